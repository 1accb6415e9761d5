#!/usr/bin/env node
// A frame loop over one dyngc artifact under Dawn (npm `webgpu`), written from docs/async.md's
// JavaScript recipe and the manifest alone: every frame submits a run whose arena size the sizing
// policy chose from earlier frames' usage, never waits on the GPU, and picks up the readbacks
// (`mapAsync`) that resolved since the previous frame. Runs that are not done get another launch
// chain; finished ones deliver their outputs. This is the full version of the doc's recipe.
//
// Usage:
//   node frame_loop.mjs --wgsl F.wgsl --manifest F.manifest.json --config CONFIG.json --out OUT.json
//
// CONFIG.json:
//   {
//     "frames": [ { "seed": 7, "max_depth": 9 }, ... ],   // one object per frame: parameter values
//     "params": { "max_children": 4 },                      // optional: values for every frame
//     "max_in_flight": 3,        // frames whose runs may be in flight before the next is held back
//     "workers": 64,             // workers requested (default: the manifest's defaults.workers)
//     "fuel": 4096, "chain": 16, // default: the manifest's defaults
//     "policy": { "floor": 0, "ceiling": 16777216, "grow": 2, "touch": 0.75,
//                 "shrink_below": 0.125, "shrink_after": 8 },   // all optional (the defaults)
//     "tick_ms": 2,              // delay between two ticks of the loop
//     "max_submissions": 10000,  // per run: more means the program does not terminate
//     "timeout_s": 300,          // for the whole loop
//     "await_in_frame": false    // self-check only: a frame awaits the GPU, which must be detected
//   }
//
// OUT.json: per frame (in frame order) its parameters, every output's words by name, the units
// per stage, the arena it ran with (bytes, workers, stack frames per reserve, ring slots), its
// final usage (ring and stack high-water marks, used bytes, fallback spawns, launches), its
// submissions, the frame in whose tick it was harvested (`resolved_in`) and its latency; every
// usage sample in the order the policy saw it (the run's layout and arena buffer bytes, the raw
// statistic words, `used_bytes` and the policy's new size or null); the arena size changes of
// the policy;
// `awaited_in_frame` (whether any promise continuation ran while a tick was still inside its
// body, i.e. whether a tick awaited anything); the longest tick; the wall time.
//
// The loop is a chain of ticks (setTimeout), each entirely synchronous: harvest the runs whose
// readback resolved, then, unless `max_in_flight` frames are in flight (back-pressure, as
// requestAnimationFrame gives in a browser), run the next frame: create its run at the policy's
// size and submit its first chain. A tick that held the frame back is a frame that did not happen.
//
// Exit status: 0 all frames delivered; 1 a WebGPU error; 2 bad usage, manifest or config; 3 a
// kernel error in some run; 4 timeout or a run over max_submissions. OUT.json is written in every
// case where the loop started (with `error` set on failure).
//
// Environment: on a machine without a GPU point Dawn at SwiftShader with
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json XDG_RUNTIME_DIR=/tmp

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  EXIT_GPU, EXIT_KERNEL, EXIT_TIMEOUT, EXIT_USAGE, createPipelines, evalRule, indirectBytes, openDevice, parseFlags,
  readArtifact, readJson, recordLaunch,
} from './common.mjs';

// The report, written on success and on failure (`finish`).
let outPath;
const report = { device: null, frames: [], samples: [], resizes: [], awaited_in_frame: false, ticks: 0, longest_tick_ms: 0, wall_ms: 0, error: null };
const started = performance.now();

function finish(code, message) {
  if (message) {
    report.error = message;
    process.stderr.write(`frame_loop.mjs: ${message}\n`);
  }
  report.wall_ms = Math.round(performance.now() - started);
  if (outPath) writeFileSync(outPath, JSON.stringify(report, null, 1) + '\n');
  process.exit(code);
}

function usageError(message) {
  process.stderr.write(`frame_loop.mjs: ${message}\n`);
  process.exit(EXIT_USAGE);
}

// ---------------------------------------------------------------------------------------------
// Command line and config

function parseArgs(argv) {
  const o = {};
  const set = (key) => (v) => { o[key] = v; };
  const values = { '--wgsl': set('wgsl'), '--manifest': set('manifest'), '--config': set('config'), '--out': set('out') };
  parseFlags(argv, { values, usage: 'usage: --wgsl F.wgsl --manifest F.manifest.json --config C.json --out OUT.json' }, finish);
  for (const key of ['manifest', 'config', 'out']) if (!o[key]) usageError(`--${key} is required`);
  return o;
}

// A parameter's 32-bit pattern from a JSON number, by the parameter's scalar kind.
function paramBits(p, v) {
  const bad = () => usageError(`parameter \`${p.name}\` (${p.scalar}) cannot take ${JSON.stringify(v)}`);
  if (typeof v !== 'number' || !Number.isFinite(v)) bad();
  if (p.scalar === 'f32') {
    const dv = new DataView(new ArrayBuffer(4));
    dv.setFloat32(0, v, true);
    return dv.getUint32(0, true);
  }
  if (!Number.isInteger(v)) bad();
  if (p.scalar === 'i32' ? v < -(2 ** 31) || v >= 2 ** 31 : v < 0 || v >= 2 ** 32) bad();
  return v >>> 0;
}

// Every frame's parameter bits, resolved against the manifest (given, else default, else refuse).
function frameParams(m, cfg) {
  if (!Array.isArray(cfg.frames) || cfg.frames.length === 0) usageError('the config needs a non-empty `frames` list');
  return cfg.frames.map((f, i) => {
    const given = { ...(cfg.params ?? {}), ...f };
    for (const name of Object.keys(given)) {
      if (!m.params.some((p) => p.name === name)) usageError(`frame ${i}: \`${name}\` is not a parameter (parameters: ${m.params.map((p) => p.name).join(', ')})`);
    }
    const bits = new Map();
    for (const p of m.params) {
      if (p.name in given) bits.set(p.name, paramBits(p, given[p.name]));
      else if (p.default !== null && p.default !== undefined) bits.set(p.name, p.default >>> 0);
      else usageError(`frame ${i}: parameter \`${p.name}\` has no default and must be given`);
    }
    return { given, bits };
  });
}

// ---------------------------------------------------------------------------------------------
// Length rules (docs/manifest.md, "Length rules", evaluated by common.mjs)

// Element counts of every output and buffer binding, and the marks words, for one frame.
function lengthsOf(m, bits) {
  const lengths = new Map();
  const param = (n) => (bits.has(n) ? BigInt(bits.get(n)) : undefined);
  let pending = m.bindings.filter((b) => b.role === 'output' || b.role === 'buffer');
  for (const b of pending) if (!b.array) lengths.set(b.name, 1n);
  pending = pending.filter((b) => b.array);
  while (pending.length) {
    let failure;
    const rest = pending.filter((b) => {
      if (!b.length) usageError(`manifest gives no length rule for \`${b.name}\``);
      try {
        lengths.set(b.name, evalRule(b.length, (n) => lengths.get(n), param));
        return false;
      } catch (e) {
        failure ??= `\`${b.name}\`: ${e.message}`;
        return true;
      }
    });
    if (rest.length === pending.length) throw new Error(`the parameters do not fit the program: length of ${failure}`);
    pending = rest;
  }
  let marks = 0n;
  for (const s of [...m.stages].sort((a, b) => a.id - b.id)) {
    if (s.keyed) marks += (evalRule(s.keyed, (n) => lengths.get(n), param) + 31n) / 32n;
  }
  return { lengths, marksWords: Number(marks > 0n ? marks : 1n) };
}

// ---------------------------------------------------------------------------------------------
// The recipe of docs/async.md: usage, layout and the sizing policy, from the manifest alone.

let A, C, W, maxWg;

function setUpRecipe(m, device) {
  A = m.executor.arena;
  C = m.executor.control;
  const word = (name) => {
    const s = C.stats.find((x) => x.name === name);
    if (!s) usageError(`the manifest lists no \`${name}\` statistic: the sizing policy cannot read this program's usage`);
    return s.word;
  };
  W = { ring: word('ring_high_water'), stack: word('stack_high_water'), fallbacks: word('fallback_spawns'), launches: word('launches'),
        fuel: word('fuel_exhaustions'), batches: word('batches'), idle: word('idle_steps') };
  maxWg = device.limits.maxComputeWorkgroupsPerDimension;
}

// manifest.md, "The arena": of an arena of `bytes`, the workers, each one's stack reserve in
// frames, the ring slots and the bytes of the arena buffer; null below the minimum.
function layout(bytes, requested) {
  if (bytes < A.min_bytes) return null;
  const frameBytes = 4 * A.frame_words;
  const workerBytes = (frames) => A.bytes_per_worker - frameBytes * (A.stack_frames - frames);
  const least = A.min_stack_frames || A.stack_frames;       // 0 or absent in an older manifest
  const reserves = Math.min(Math.floor(bytes * A.reserve_sixteenths / 16), Math.max(0, bytes - A.min_ring_slots * A.bytes_per_slot));
  const workers = Math.max(1, Math.min(requested, Math.floor(reserves / workerBytes(least)), maxWg));
  // The reserves' share spread evenly (a smaller reserve fits more workers; the kernel narrows
  // its batches so that a stack never outgrows it), from `least` to `stack_frames` frames.
  const each = Math.floor(Math.max(0, Math.floor(reserves / workers) - workerBytes(0)) / frameBytes);
  const frames = Math.min(A.stack_frames, Math.max(least, each));
  const slotCap = A.ring_slots_per_worker > 0 ? Math.max(A.ring_slots_per_worker * Math.max(workers, 64), A.min_ring_slots) : 2 ** 31;
  const fit = Math.min(Math.floor((bytes - workers * workerBytes(frames)) / A.bytes_per_slot), 2 ** 31, slotCap);
  const ring = fit >= 1 ? 2 ** (31 - Math.clz32(fit)) : 0; // largest power of two <= fit
  const buffer = Math.ceil((workers * workerBytes(frames) + ring * A.bytes_per_slot) / 4) * 4;
  return ring >= A.min_ring_slots ? { workers, frames, ring, buffer } : null;
}

// executor.md, "Ring shards": the shards the kernel splits `ring` slots into for `workers`
// workers (one shard for a manifest without the rule).
function shards(workers, ring) {
  if (!A.shard_workers || !A.min_shard_slots || !A.max_shards) return 1;
  const most = Math.min(Math.max(1, Math.floor(workers / A.shard_workers)), Math.max(1, Math.floor(ring / A.min_shard_slots)), A.max_shards);
  return 2 ** (31 - Math.clz32(most));
}

function usage(words, run) {                 // run: { arenaBytes, requested, workers, frames, ring }
  const ringHw = Math.min(words[W.ring], run.ring);
  const stackHw = Math.min(words[W.stack], run.frames);
  return { arenaBytes: run.arenaBytes, requested: run.requested, workers: run.workers, ring: run.ring, ringHw, stackHw,
           used: run.workers * 4 * (1 + stackHw * A.frame_words) + ringHw * A.bytes_per_slot,
           fallbacks: words[W.fallbacks], launches: words[W.launches], fuel: words[W.fuel], batches: words[W.batches], idle: words[W.idle], done: words[C.done] !== 0 };
}

class Policy {
  constructor(floor, ceiling, { grow = 2, touch = 0.75, shrinkBelow = 0.125, shrinkAfter = 8 } = {}) {
    Object.assign(this, { floor: Math.max(floor, A.min_bytes), ceiling, grow, touch, shrinkBelow, shrinkAfter });
    if (!(this.ceiling >= this.floor)) throw new Error(`the ceiling (${ceiling} bytes) is below the floor (${this.floor} bytes)`);
    if (!(grow > 1) || !(touch > 0 && touch <= 1) || !(shrinkBelow > 0 && shrinkBelow < 1) || !(shrinkAfter >= 1)) {
      throw new Error(`policy knobs out of range: ${JSON.stringify({ grow, touch, shrinkBelow, shrinkAfter })}`);
    }
    this.size = this.floor;
    this.calm = [];                          // fullest ring shards of the latest calm samples
  }
  observe(u) {                               // returns the new size, or null
    if (u.arenaBytes !== this.size) return null;
    // Fallback-bound (the ring full and more spawns kept home than idle steps) or worker-bound (out of fuel with
    // fewer workers than asked for, and busy ones: no more idle steps than batches): grow, if
    // the larger arena holds more workers or ring slots (the ring may be at its cap).
    if ((u.fallbacks > u.idle && u.ringHw >= this.touch * u.ring) || (u.fuel > 0 && u.workers < u.requested && u.idle <= u.batches)) {
      const next = Math.max(this.size, Math.min(this.ceiling, Math.floor(this.size * this.grow)));
      const l = layout(next, u.requested);
      if (l && (l.ring > u.ring || l.workers > u.workers)) return this.change(next);
    }
    if (!u.done) return null;
    if (u.used > this.shrinkBelow * this.size) { this.calm = []; return null; }
    this.calm.push(Math.ceil(u.ringHw / shards(u.workers, u.ring)));
    if (this.calm.length > this.shrinkAfter) this.calm.shift();
    if (this.calm.length < this.shrinkAfter) return null;
    const next = Math.min(this.size, Math.max(this.floor, Math.floor(this.size / this.grow)));
    const l = layout(next, u.requested);
    const median = [...this.calm].sort((a, b) => a - b)[this.calm.length >> 1];
    return l && median < this.touch * (l.ring / shards(l.workers, l.ring)) ? this.change(next) : null;
  }
  change(next) { this.calm = []; if (next === this.size) return null; this.size = next; return next; }
}

// ---------------------------------------------------------------------------------------------
// Runs: createRun (launch protocol steps 2-3), recordStart (step 4), recordChain (step 5).

function createRun(device, m, pipelines, cfg, frame, params, arenaBytes) {
  const requested = cfg.workers ?? m.executor.defaults.workers;
  const l = layout(arenaBytes, requested);
  if (!l) throw new Error(`an arena of ${arenaBytes} bytes is below the program's minimum (${A.min_bytes})`);
  const { lengths, marksWords } = lengthsOf(m, params.bits);
  const ex = m.executor;
  const uniform = new DataView(new ArrayBuffer(ex.params_size));
  uniform.setUint32(ex.config.workers, l.workers, true);
  uniform.setUint32(ex.config.ring_slots, l.ring, true);
  uniform.setUint32(ex.config.fuel, cfg.fuel ?? ex.defaults.fuel, true);
  // An older manifest has no such word: its kernel always uses arena.stack_frames.
  if (ex.config.stack_frames !== undefined) uniform.setUint32(ex.config.stack_frames, l.frames, true);
  for (const p of m.params) uniform.setUint32(p.offset, params.bits.get(p.name), true);
  for (const x of ex.lengths) uniform.setUint32(x.offset, Number(lengths.get(x.binding) ?? 0n), true);

  const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const outputs = [];
  let readbackBytes = C.words * 4;                       // the control block, then each output
  const buffers = m.bindings.map((b) => {
    let bytes;
    switch (b.role) {
      case 'output': case 'buffer': bytes = Number(lengths.get(b.name)) * b.element.size; break;
      case 'params': bytes = ex.params_size; break;
      case 'control': bytes = C.words * 4; break;
      case 'arena': bytes = l.buffer; break;
      case 'marks': bytes = marksWords * 4; break;
      default: throw new Error(`binding \`${b.name}\` has role \`${b.role}\`, which a frame loop without inputs cannot fill`);
    }
    const alloc = Math.max(4, b.element.size, Math.ceil(bytes / 4) * 4);
    const fill = b.role === 'output' || b.role === 'buffer' ? (b.fill ?? 0) >>> 0 : 0;
    const buffer = device.createBuffer({ label: `frame ${frame} ${b.name}`, size: alloc, usage: b.access === 'uniform' ? GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST : storage, mappedAtCreation: fill !== 0 });
    if (fill !== 0) { new Uint32Array(buffer.getMappedRange()).fill(fill); buffer.unmap(); }
    if (b.role === 'output') {
      const alignedBytes = Math.ceil(bytes / 4) * 4;
      outputs.push({ name: b.name, buffer, offset: readbackBytes, bytes, alignedBytes });
      readbackBytes += alignedBytes;
    }
    return buffer;
  });
  const role = (r) => buffers[m.bindings.findIndex((b) => b.role === r)];
  device.queue.writeBuffer(role('params'), 0, uniform.buffer);
  const bindGroups = pipelines.layouts.map((layoutG, g) => device.createBindGroup({
    layout: layoutG,
    entries: m.bindings.map((b, i) => [b, i]).filter(([b]) => b.group === g).map(([b, i]) => ({ binding: b.binding, resource: { buffer: buffers[i] } })),
  }));
  return {
    frame, params, arenaBytes, requested, workers: l.workers, frames: l.frames, ring: l.ring, arenaBuffer: l.buffer,
    buffers, bindGroups, outputs, submissions: 0, submittedAt: performance.now(),
    control: role('control'), arena: role('arena'), marks: m.bindings.some((b) => b.role === 'marks') ? role('marks') : null,
    indirect: device.createBuffer({ label: `frame ${frame} indirect`, size: indirectBytes(m), usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST }),
    readback: device.createBuffer({ label: `frame ${frame} readback`, size: readbackBytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
  };
}

function recordChain(enc, m, pipelines, cfg, run) {
  const chain = cfg.chain ?? m.executor.defaults.chain_length;
  for (let i = 0; i < chain; i++) recordLaunch(enc, m, pipelines, run);
}

function recordStart(enc, m, pipelines, cfg, run) {
  enc.clearBuffer(run.control);
  enc.clearBuffer(run.arena);
  if (run.marks) enc.clearBuffer(run.marks);
  const pass = enc.beginComputePass();
  pass.setPipeline(pipelines.init);
  run.bindGroups.forEach((bg, g) => pass.setBindGroup(g, bg));
  pass.dispatchWorkgroups(1, 1, 1);
  pass.end();
  recordChain(enc, m, pipelines, cfg, run);
}

function destroyRun(run) {
  for (const b of [...run.buffers, run.indirect, run.readback]) b.destroy();
}

// ---------------------------------------------------------------------------------------------
// The frame loop

async function main() {
  const opts = parseArgs(process.argv);
  outPath = path.resolve(opts.out);
  const { m, wgslPath, code } = readArtifact(opts.manifest, opts.wgsl, finish);
  if (m.bindings.some((b) => b.role === 'input')) usageError('this frame loop feeds parameters only; the program has input bindings');
  const cfg = readJson(opts.config, 'config', finish);
  const frames = frameParams(m, cfg);
  const maxInFlight = cfg.max_in_flight ?? 3;
  const limit = cfg.max_submissions ?? 10_000;

  const { device, description } = await openDevice(finish);
  report.device = description;
  setUpRecipe(m, device);
  const pipelines = await createPipelines(device, m, code, wgslPath, finish);
  const p = cfg.policy ?? {};
  let policy;
  try {
    const deviceCeiling = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    policy = new Policy(p.floor ?? 0, Math.min(p.ceiling ?? deviceCeiling, deviceCeiling),
      { grow: p.grow, touch: p.touch, shrinkBelow: p.shrink_below, shrinkAfter: p.shrink_after });
  } catch (e) {
    usageError(`policy: ${e.message}`);
  }
  report.min_bytes = A.min_bytes;
  report.policy = { floor: policy.floor, ceiling: policy.ceiling, grow: policy.grow, touch: policy.touch, shrink_below: policy.shrinkBelow, shrink_after: policy.shrinkAfter };

  const resolvedRuns = [];                   // readbacks that resolved since the last tick
  let next = 0;                              // the next frame to run
  let inFlight = 0;                          // runs submitted and not delivered
  let delivered = 0;
  let inTick = false;                        // a tick's body is running

  // docs/async.md: submit a chain and map its readback; the promise is never awaited in a frame.
  // It only hands the run to the next tick.
  function submitChain(run, first) {
    const enc = device.createCommandEncoder();
    if (first) recordStart(enc, m, pipelines, cfg, run); else recordChain(enc, m, pipelines, cfg, run);
    enc.copyBufferToBuffer(run.control, 0, run.readback, 0, C.words * 4);
    for (const o of run.outputs) if (o.alignedBytes > 0) enc.copyBufferToBuffer(o.buffer, 0, run.readback, o.offset, o.alignedBytes);
    device.queue.submit([enc.finish()]);
    run.submissions++;
    run.readback.mapAsync(GPUMapMode.READ).then(
      () => { if (inTick) report.awaited_in_frame = true; resolvedRuns.push(run); },
      (e) => finish(EXIT_GPU, `frame ${run.frame}: mapping its readback failed: ${e?.message ?? e}`));
  }

  // One resolved readback: a usage sample for the policy, then an error, a delivery, or one
  // more chain.
  function harvest(run) {
    const bytes = run.readback.getMappedRange().slice(0); // copy out, then unmap for the next chain
    run.readback.unmap();
    const words = new Uint32Array(bytes, 0, C.words);
    const u = usage(words, run);
    const before = policy.size;
    const changed = policy.observe(u);
    report.samples.push({ frame: run.frame, arena_bytes: run.arenaBytes, requested_workers: run.requested, workers: run.workers,
      stack_frames: run.frames, ring_slots: run.ring, arena_buffer_bytes: run.arenaBuffer,
      ring_high_water: words[W.ring], stack_high_water: words[W.stack], fallback_spawns: words[W.fallbacks], launches: words[W.launches],
      fuel_exhaustions: words[W.fuel], batches: words[W.batches], idle_steps: words[W.idle], done: u.done, used_bytes: u.used, new_size: changed });
    if (changed !== null) {
      report.resizes.push({ in_frame: next, sample_of_frame: run.frame, done: u.done, from: before, to: changed, ring_high_water: u.ringHw, ring_slots: u.ring, fallback_spawns: u.fallbacks, used_bytes: u.used });
    }
    if (words[C.error] !== 0) {
      const [codeW, stage, value, bound] = words.slice(C.error, C.error + 4);
      const e = m.executor.errors.find((x) => x.code === codeW);
      const st = m.stages.find((s) => s.id === stage);
      finish(EXIT_KERNEL, `frame ${run.frame}: kernel error ${e ? e.name : `UNKNOWN(${codeW})`} in stage \`${st ? st.name : `#${stage}`}\` (value ${value}, bound ${bound})`);
    }
    if (u.done) {
      const outputs = {};
      for (const o of run.outputs) outputs[o.name] = Array.from(new Uint32Array(bytes, o.offset, o.bytes / 4));
      const units = {};
      [...m.stages].sort((a, b) => a.id - b.id).forEach((s, i) => { units[s.name] = words[C.units_per_stage + i]; });
      report.frames[run.frame] = {
        frame: run.frame, params: run.params.given, outputs, units_per_stage: units,
        arena_bytes: run.arenaBytes, workers: run.workers, stack_frames: run.frames, ring_slots: run.ring,
        ring_high_water: u.ringHw, stack_high_water: u.stackHw, used_bytes: u.used,
        fallback_spawns: u.fallbacks, launches: u.launches, submissions: run.submissions,
        resolved_in: next, latency_ms: Math.round(performance.now() - run.submittedAt),
      };
      destroyRun(run);
      inFlight--;
      delivered++;
      return;
    }
    if (run.submissions >= limit) finish(EXIT_TIMEOUT, `frame ${run.frame}: not done after ${run.submissions} submissions`);
    submitChain(run, false);                 // not done: one more chain; the frame never fails
  }

  function frame(i) {
    const run = createRun(device, m, pipelines, cfg, i, frames[i], policy.size);
    inFlight++;
    submitChain(run, true);
  }

  // The body of a tick: synchronous from start to end.
  function body() {
    for (const run of resolvedRuns.splice(0)) harvest(run);
    if (next < frames.length && inFlight < maxInFlight) frame(next++);
  }

  function tick() {
    const t0 = performance.now();
    inTick = true;
    // A continuation queued now runs only once the tick has returned, unless the tick awaits.
    queueMicrotask(() => { if (inTick) report.awaited_in_frame = true; });
    try {
      body();
    } catch (e) {
      finish(EXIT_GPU, e?.stack ?? String(e));
    }
    inTick = false;
    after(t0);
  }

  // Self-check of the detector: the same body, then a wait on the GPU inside the tick.
  async function awaitingTick() {
    const t0 = performance.now();
    inTick = true;
    queueMicrotask(() => { if (inTick) report.awaited_in_frame = true; });
    body();
    await device.queue.onSubmittedWorkDone();
    inTick = false;
    after(t0);
  }

  function after(t0) {
    report.ticks++;
    report.longest_tick_ms = Math.max(report.longest_tick_ms, performance.now() - t0);
    if (delivered === frames.length) {
      report.longest_tick_ms = Math.round(report.longest_tick_ms * 10) / 10;
      report.final_arena_bytes = policy.size;
      finish(0);
    }
    setTimeout(cfg.await_in_frame ? awaitingTick : tick, cfg.tick_ms ?? 2);
  }

  setTimeout(() => finish(EXIT_TIMEOUT, `the loop did not finish within ${cfg.timeout_s ?? 300} s (${delivered} of ${frames.length} frames delivered)`),
    (cfg.timeout_s ?? 300) * 1000);
  setTimeout(cfg.await_in_frame ? awaitingTick : tick, 0);
}

main().catch((e) => finish(EXIT_GPU, e?.stack ?? String(e)));
