// Runs the cases of a directory written by crates/dyngc/tests/js_package.rs with the package, on
// any GPUDevice (Dawn in Node: node.mjs; headless Chromium: browser.mjs). `load(path)` gives a
// file of the directory as an ArrayBuffer. Every case runs twice on one prepared run: once at its
// own arena (to completion, or stepped with poll() when `step` is set) and once more after
// resize() to a large arena (unless `resizeTo` is null); every output must equal the CPU
// reference's, byte for byte, and the unit counts, `pending` and the rounds what the reference
// predicts. A case with a `stream` runs at its `streamCapacity`, its elements taken by `onStream`
// or read back, and must hold exactly the reference's elements as a multiset (f32 words, by the
// manifest's element type, within 1e-5 relative).
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

// Per 32-bit word of a stream element: its scalar kind by the manifest (null: padding).
function wordKinds(m, name) {
  const b = m.bindings.find((x) => x.name === name);
  const fields = m.executor.streams.find((st) => st.binding === name).fields;
  const kinds = new Array(b.element.size / 4).fill(null);
  for (const f of fields ?? [{ scalar: b.element.scalar, components: b.element.components, offset: 0 }]) {
    for (let i = 0; i < f.components; i++) kinds[f.offset / 4 + i] = f.scalar;
  }
  return kinds;
}

const byWords = (a, b) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
};

function checkStream(c, run, snapshot, got, want) {
  const m = run.program.manifest;
  const { name, row } = c.stream;
  const problems = [];
  const st = m.executor.streams.find((x) => x.binding === name);
  const capacity = run.streamCapacities[name];
  if (capacity !== Math.max(c.streamCapacity, st.min_capacity)) problems.push(`window of ${capacity} elements for a requested ${c.streamCapacity} (min_capacity ${st.min_capacity})`);
  const rows = (words) => Array.from({ length: words.length / row }, (_, i) => words.subarray(i * row, (i + 1) * row)).sort(byWords);
  const [g, w] = [rows(got), rows(want)];
  const kinds = wordKinds(m, name);
  const f32 = (x) => new Float32Array(new Uint32Array([x]).buffer)[0];
  const same = (a, b) => a.every((x, i) => kinds[i] === null || x === b[i]
    || (kinds[i] === 'f32' && Math.abs(f32(x) - f32(b[i])) <= 1e-5 * Math.max(Math.abs(f32(x)), Math.abs(f32(b[i])))));
  if (g.length !== w.length) problems.push(`stream \`${name}\` has ${g.length} elements, expected ${w.length}`);
  const i = w.findIndex((e, k) => k < g.length && !same(g[k], e));
  if (i >= 0) problems.push(`stream \`${name}\`: sorted element ${i} is [${g[i]}], expected [${w[i]}]`);
  if (snapshot.streamDrains < Math.ceil(w.length / capacity)) problems.push(`${snapshot.streamDrains} drains cannot have carried ${w.length} elements in a window of ${capacity}`);
  return problems;
}

async function check(c, run, snapshot, load, sunk) {
  const problems = [];
  if (c.stream) {
    const got = c.onStream ? new Uint32Array(concat(sunk).buffer) : new Uint32Array((await run.read(c.stream.name)).buffer);
    if (c.onStream && run.length(c.stream.name) !== 0) problems.push('onStream took the elements, yet the run collected some too');
    problems.push(...checkStream(c, run, snapshot, got, new Uint32Array(await load(c.stream.expected))));
  }
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

function concat(chunks) {
  const all = new Uint8Array(chunks.reduce((n, x) => n + x.byteLength, 0));
  chunks.reduce((at, x) => { all.set(x, at); return at + x.byteLength; }, 0);
  return all;
}

/** Runs every case on `device`; returns [{ label, ok, problems, submissions }]. */
export async function runCases(device, load, cases, log = () => {}) {
  const programs = new Map();
  const results = [];
  for (const c of cases) {
    const label = `${c.label}${c.step ? ' (stepped with poll)' : ''}${c.onStream ? ' (onStream)' : ''}`;
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
      // Chunks handed to onStream during one run.
      let sunk = [];
      const onStream = c.onStream ? (name, bytes) => { if (name === c.stream.name) sunk.push(bytes); } : undefined;
      const run = program.prepare({ inputs, params: c.params, arena: c.arena, workers: c.workers, fuel: c.fuel, streamCapacity: c.streamCapacity, onStream });
      const problems = [];
      const first = await runOnce(run, c.step);
      const a = program.manifest.executor.arena;
      // The minimum arena is one worker with the least reserve and the smallest ring, exactly.
      if (c.minArena && (first.workers !== 1 || first.stackFrames !== (a.min_stack_frames || a.stack_frames) || first.ringSlots !== a.min_ring_slots || first.arenaBytes !== a.min_bytes)) {
        problems.push(`the minimum arena gave ${first.workers} workers of ${first.stackFrames} stack frames and ${first.ringSlots} ring slots in ${first.arenaBytes} bytes`);
      }
      problems.push(...await check(c, run, first, load, sunk));
      if (c.resizeTo !== null) {
        sunk = [];
        run.resize(c.resizeTo);
        const second = await run.complete({ timeoutMs: 120_000 });
        problems.push(...(await check(c, run, second, load, sunk)).map((p) => `after resize(${c.resizeTo}): ${p}`));
      }
      run.destroy();
      results.push({ label, ok: problems.length === 0, problems, submissions: first.submissions });
    } catch (e) {
      results.push({ label, ok: false, problems: [String(e?.stack ?? e)] });
    }
    log(results.at(-1));
  }
  return results;
}
