// Runs the cases of a directory written by crates/dyngc/tests/js_package.rs with the package, on
// any GPUDevice (Dawn in Node: node.mjs; headless Chromium: browser.mjs). `load(path)` gives a
// file of the directory as an ArrayBuffer. Every case runs twice on one prepared run: once at its
// own arena (to completion, or stepped with poll() when `step` is set) and once more after
// resize() to a large arena; every output must equal the CPU reference's, byte for byte, and the
// unit counts, `pending` and the rounds what the reference predicts.
import { Program, requiredLimits } from '../src/dyngc.js';

const text = async (load, path) => new TextDecoder().decode(await load(path));

export async function loadCases(load) {
  return JSON.parse(await text(load, 'cases.json'));
}

/** Limits for one device that runs every case. */
export function limitsFor(manifests, adapter) {
  const out = {};
  for (const m of manifests) {
    for (const [k, v] of Object.entries(requiredLimits(m, adapter))) out[k] = Math.max(out[k] ?? 0, v);
  }
  return out;
}

function nextTick() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function runOnce(run, step) {
  if (!step) return run.complete({ timeoutMs: 120_000 });
  // Never awaiting the GPU: a frame loop's poll() until the snapshot says done.
  run.start();
  for (let frames = 0; frames < 10_000_000; frames++) {
    const s = run.poll();
    if (s?.done) return s;
    await nextTick();
  }
  throw new Error('not done after ten million polls');
}

async function check(c, run, snapshot, load) {
  const problems = [];
  for (const [name, file] of Object.entries(c.expected)) {
    const want = new Uint32Array(await load(file));
    const got = new Uint32Array((await run.read(name)).buffer);
    if (got.length !== want.length) {
      problems.push(`\`${name}\` has ${got.length} words, expected ${want.length}`);
      continue;
    }
    const i = want.findIndex((w, k) => got[k] !== w);
    if (i >= 0) problems.push(`\`${name}\`[${i}] = ${got[i]}, expected ${want[i]}`);
  }
  for (const [stage, [kind, n]] of Object.entries(c.units)) {
    const have = snapshot.unitsPerStage[stage];
    if (kind === 'exact' ? have !== n : have < n) problems.push(`stage \`${stage}\` ran ${have} units, expected ${kind === 'exact' ? '' : 'at least '}${n}`);
  }
  if (snapshot.stats.pending !== 0) problems.push(`pending ${snapshot.stats.pending}`);
  if (snapshot.stats.rounds !== c.rounds) problems.push(`rounds ${snapshot.stats.rounds}, expected ${c.rounds}`);
  return problems;
}

/** Runs every case on `device`; returns [{ label, ok, problems, submissions }]. */
export async function runCases(device, load, cases, log = () => {}) {
  const programs = new Map();
  const results = [];
  for (const c of cases) {
    const label = `${c.label}${c.step ? ' (stepped with poll)' : ''}`;
    try {
      if (!programs.has(c.manifest)) {
        const manifest = JSON.parse(await text(load, c.manifest));
        const program = await Program.create(device, manifest, await text(load, c.wgsl));
        if (program.compilerMessages.length) throw new Error(`Tint: ${program.compilerMessages.join('; ')}`);
        programs.set(c.manifest, program);
      }
      const program = programs.get(c.manifest);
      const inputs = {};
      for (const [name, file] of Object.entries(c.inputs)) inputs[name] = new Uint32Array(await load(file));
      const run = program.prepare({ inputs, params: c.params, arena: c.arena, workers: c.workers, fuel: c.fuel });
      const problems = [];
      const first = await runOnce(run, c.step);
      if (c.minArena && (first.workers !== 1 || first.ringSlots !== program.manifest.executor.arena.min_ring_slots)) {
        problems.push(`the minimum arena gave ${first.workers} workers and ${first.ringSlots} ring slots`);
      }
      problems.push(...await check(c, run, first, load));
      run.resize(c.resizeTo);
      const second = await run.complete({ timeoutMs: 120_000 });
      problems.push(...(await check(c, run, second, load)).map((p) => `after resize(${c.resizeTo}): ${p}`));
      run.destroy();
      results.push({ label, ok: problems.length === 0, problems, submissions: first.submissions });
    } catch (e) {
      results.push({ label, ok: false, problems: [String(e?.stack ?? e)] });
    }
    log(results.at(-1));
  }
  return results;
}
