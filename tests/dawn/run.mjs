#!/usr/bin/env node
// Runs one dyngc artifact (NAME.wgsl + NAME.manifest.json) under Dawn — the WebGPU implementation
// of Chromium, here through the npm package `webgpu` — using nothing but the manifest. It is the
// launch protocol of docs/manifest.md written as a browser engine author would write it: no dyngc
// code is linked, every size, offset and name comes from the manifest.
//
// Usage:
//   node run.mjs --wgsl F.wgsl --manifest F.manifest.json \
//                [--input NAME=FILE.bin ...] [--param NAME=VALUE ...] --arena BYTES \
//                [--workers N] [--fuel N] [--chain N] [--stream-capacity N] [--timeout SECONDS] \
//                [--max-submissions N] [--verbose] --out DIR
//   node run.mjs --compile-only [--wgsl F.wgsl] --manifest F.manifest.json
//
//   --input      an input binding's data: raw little-endian bytes, `element.size` bytes per element
//                (its length is bytes / element.size).
//   --param      a parameter's value: u32 (decimal or 0x hex); i32 parameters also take negative
//                numbers and f32 parameters take decimals (stored as IEEE bits).
//   --arena      arena bytes (at least `executor.arena.min_bytes`); decides workers, their stack
//                reserves and ring slots.
//   --workers    workers requested (default `executor.defaults.workers`, clamped to the arena).
//   --fuel       scheduler steps per workgroup per launch (default `executor.defaults.fuel`).
//   --chain      launches per submission (default `executor.defaults.chain_length`); 1 after a
//                submission that filled a stream window, doubling back.
//   --stream-capacity  elements of every stream output's window (default: twice the stream's
//                `min_capacity` per lane in flight, at least 2^20; raised to the
//                stream's `min_capacity`, capped by the device and the 32-bit counter).
//   --timeout    wall-clock limit of the launch loop in seconds (default 300).
//   --max-submissions  most submissions before giving up (default 1000000).
//   --compile-only  only compile: Tint on the module, the layouts and every pipeline; exit 0 if
//                all is accepted (nothing runs, --arena and --out are not needed).
//   --wgsl       defaults to the manifest's `wgsl` file beside it.
//
// Writes DIR/NAME.bin for every output binding (exactly `length * element.size` bytes) and every
// stream output (every element drained, in no particular order: the windows are drained with the
// package's drainStreams, js/src/dyngc.js, whenever one fills and at the end) and DIR/stats.json:
// the plan (workers, ring slots, stack frames per reserve, arena bytes, fuel, chain length,
// stream capacities), host counters (submissions, launches, stream drains, elapsed), the done and
// error words, every `executor.control.stats` word by name and the units run per stage by stage
// name.
//
// Exit status: 0 done; 1 a WebGPU error (shader compilation, validation, device loss, readback);
// 2 bad usage, manifest or inputs; 3 the kernel reported an error (name and stage printed, and
// stats.json still written); 4 the run did not finish within --timeout / --max-submissions.
//
// Environment: Dawn picks Vulkan; on a machine without a GPU point it at SwiftShader with
//   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json XDG_RUNTIME_DIR=/tmp

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EXIT_GPU, EXIT_KERNEL, EXIT_TIMEOUT, EXIT_USAGE, createPipelines, evalRule, indirectBytes, openDevice, parseFlags,
  readArtifact, recordLaunch, scoped,
  showRule,
} from './common.mjs';
import { decodeControl as decode, drainStreams, streamCapacity } from '../../js/src/dyngc.js';

function fail(code, message) {
  process.stderr.write(`run.mjs: ${message}\n`);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------------
// Command line

function parseArgs(argv) {
  const o = { inputs: [], params: [], verbose: false, timeout: 300, maxSubmissions: 1_000_000 };
  const pair = (s, flag) => {
    const eq = s.indexOf('=');
    if (eq <= 0) fail(EXIT_USAGE, `${flag} takes NAME=VALUE, got \`${s}\``);
    return [s.slice(0, eq), s.slice(eq + 1)];
  };
  const count = (s, flag, min) => {
    if (!/^\d+$/.test(s)) fail(EXIT_USAGE, `${flag} takes a whole number, got \`${s}\``);
    const n = BigInt(s);
    if (n < BigInt(min)) fail(EXIT_USAGE, `${flag} must be at least ${min}`);
    return n;
  };
  const help = () => {
    const text = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    process.stdout.write(text.slice(1, text.findIndex((l) => l.startsWith('import'))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
    process.exit(0);
  };
  const values = {
    '--wgsl': (v) => { o.wgsl = v; },
    '--manifest': (v) => { o.manifest = v; },
    '--input': (v, a) => { o.inputs.push(pair(v, a)); },
    '--param': (v, a) => { o.params.push(pair(v, a)); },
    '--arena': (v, a) => { o.arena = count(v, a, 0); },
    '--workers': (v, a) => { o.workers = Number(count(v, a, 1)); },
    '--fuel': (v, a) => { o.fuel = Number(count(v, a, 1)); },
    '--chain': (v, a) => { o.chain = Number(count(v, a, 1)); },
    '--stream-capacity': (v, a) => { o.streamCapacity = Number(count(v, a, 0)); },
    '--timeout': (v) => { o.timeout = Number(v); },
    '--max-submissions': (v, a) => { o.maxSubmissions = Number(count(v, a, 1)); },
    '--out': (v) => { o.out = v; },
  };
  const switches = {
    '--verbose': () => { o.verbose = true; },
    '--compile-only': () => { o.compileOnly = true; },
    '-h': help,
    '--help': help,
  };
  parseFlags(argv, { values, switches, usage: 'see --help' }, fail);
  const required = o.compileOnly ? [['--manifest', 'manifest']] : [['--manifest', 'manifest'], ['--arena', 'arena'], ['--out', 'out']];
  for (const [flag, key] of required) {
    if (o[key] === undefined) fail(EXIT_USAGE, `${flag} is required`);
  }
  if (!(o.timeout > 0)) fail(EXIT_USAGE, '--timeout must be a positive number of seconds');
  return o;
}

// ---------------------------------------------------------------------------------------------
// Host-side arithmetic (docs/manifest.md, "Length rules", "The arena", "The parameter uniform")

// A parameter's 32-bit pattern from its text, by the parameter's scalar kind.
function paramBits(p, text) {
  const bad = () => fail(EXIT_USAGE, `parameter \`${p.name}\` (${p.scalar}) cannot take \`${text}\``);
  if (p.scalar === 'f32') {
    const v = Number(text);
    if (text.trim() === '' || Number.isNaN(v)) bad();
    const dv = new DataView(new ArrayBuffer(4));
    dv.setFloat32(0, v, true);
    return dv.getUint32(0, true);
  }
  if (!/^-?(\d+|0x[0-9a-fA-F]+)$/.test(text)) bad();
  const neg = text.startsWith('-');
  let v = BigInt(neg ? text.slice(1) : text);
  if (neg) v = -v;
  if (p.scalar === 'i32' ? v < -(1n << 31n) || v >= (1n << 32n) : v < 0n || v >= (1n << 32n)) bad();
  return Number(BigInt.asUintN(32, v));
}

const ceil4 = (n) => (n + 3n) / 4n * 4n;
const min = (...xs) => xs.reduce((a, b) => (b < a ? b : a));
const max = (...xs) => xs.reduce((a, b) => (b > a ? b : a));

// Everything decided before any GPU object exists (docs/manifest.md, launch protocol step 2).
function plan(m, opts, limits) {
  const ex = m.executor;
  const lengths = new Map(); // binding name -> element count (BigInt)
  const data = new Map(); // input name -> Uint8Array

  const inputs = m.bindings.filter((b) => b.role === 'input');
  for (const [name] of opts.inputs) {
    if (!inputs.some((b) => b.name === name)) {
      fail(EXIT_USAGE, `\`${name}\` is not an input (inputs: ${inputs.map((b) => b.name).join(', ') || 'none'})`);
    }
  }
  for (const b of inputs) {
    const given = opts.inputs.filter(([n]) => n === b.name);
    if (given.length !== 1) fail(EXIT_USAGE, `input \`${b.name}\` must be given exactly once (--input ${b.name}=FILE.bin)`);
    const bytes = new Uint8Array(readFileSync(given[0][1]));
    if (bytes.length % b.element.size !== 0) {
      fail(EXIT_USAGE, `input \`${b.name}\` has ${bytes.length} bytes, not a whole number of \`${b.element.wgsl}\` (${b.element.size} bytes)`);
    }
    const n = BigInt(bytes.length / b.element.size);
    if (!b.array && n !== 1n) fail(EXIT_USAGE, `input \`${b.name}\` is a single \`${b.element.wgsl}\`: expected ${b.element.size} bytes`);
    lengths.set(b.name, n);
    data.set(b.name, bytes);
  }

  for (const [name] of opts.params) {
    if (!m.params.some((p) => p.name === name)) {
      fail(EXIT_USAGE, `\`${name}\` is not a parameter (parameters: ${m.params.map((p) => p.name).join(', ') || 'none'})`);
    }
  }
  const params = new Map(); // name -> u32 bits (Number)
  for (const p of m.params) {
    const given = opts.params.filter(([n]) => n === p.name);
    if (given.length > 1) fail(EXIT_USAGE, `parameter \`${p.name}\` is given twice`);
    if (given.length === 1) params.set(p.name, paramBits(p, given[0][1]));
    else if (p.default !== null && p.default !== undefined) params.set(p.name, p.default >>> 0);
    else fail(EXIT_USAGE, `parameter \`${p.name}\` has no default and must be given (--param ${p.name}=VALUE)`);
  }
  const lenOf = (n) => lengths.get(n);
  const paramOf = (n) => (params.has(n) ? BigInt(params.get(n)) : undefined);

  // Outputs and buffers: rules may refer to each other's lengths, so resolve to a fixed point.
  let pending = [];
  for (const b of m.bindings) {
    if (b.role !== 'output' && b.role !== 'buffer') continue;
    if (!b.array) lengths.set(b.name, 1n);
    else if (!b.length) fail(EXIT_USAGE, `manifest gives no length rule for \`${b.name}\``);
    else pending.push(b);
  }
  while (pending.length) {
    let failure;
    const rest = pending.filter((b) => {
      try {
        lengths.set(b.name, evalRule(b.length, lenOf, paramOf));
        return false;
      } catch (e) {
        failure ??= `\`${b.name}\`: ${e.message} (in \`${showRule(b.length)}\`)`;
        return true;
      }
    });
    if (rest.length === pending.length) fail(EXIT_USAGE, `the inputs do not fit the program: length of ${failure}`);
    pending = rest;
  }

  // Marks: ceil(domain / 32) words per keyed stage, in stage id order; at least one word.
  let marksWords = 0n;
  for (const s of [...m.stages].sort((a, b) => a.id - b.id)) {
    if (!s.keyed) continue;
    let domain;
    try {
      domain = evalRule(s.keyed, lenOf, paramOf);
    } catch (e) {
      fail(EXIT_USAGE, `the inputs do not fit the program: key domain of stage \`${s.name}\`: ${e.message}`);
    }
    marksWords += (domain + 31n) / 32n;
  }
  if (marksWords < 1n) marksWords = 1n;

  // The arena: as many of the requested workers as it holds, each with a stack reserve of
  // stackFrames frames, the rest is the ring.
  const a = ex.arena;
  const [bps, minSlots, most] = [BigInt(a.bytes_per_slot), BigInt(a.min_ring_slots), BigInt(a.stack_frames)];
  const A = opts.arena;
  const maxBinding = BigInt(limits.maxStorageBufferBindingSize);
  const maxBuffer = BigInt(limits.maxBufferSize);
  if (A > maxBinding || A > maxBuffer) {
    fail(EXIT_USAGE, `an arena of ${A} bytes exceeds the device's largest storage binding / buffer (${maxBinding} / ${maxBuffer} bytes)`);
  }
  const tooSmall = () => fail(EXIT_USAGE, `the arena must be at least ${a.min_bytes} bytes (got ${A})`);
  if (A < BigInt(a.min_bytes)) tooSmall();
  // A worker's bytes with a reserve of `frames` frames (bytes_per_worker is at stack_frames).
  const frameBytes = 4n * BigInt(a.frame_words);
  const workerBytes = (frames) => BigInt(a.bytes_per_worker) - frameBytes * (most - frames);
  // An older manifest has no min_stack_frames: its reserves are always stack_frames.
  const least = BigInt(a.min_stack_frames || a.stack_frames);
  // Worker reserves take at most reserve_sixteenths of the arena and leave room for the smallest
  // ring; as many workers fit as have `least` frames there (one always fits above the minimum).
  const reserves = min(A * BigInt(a.reserve_sixteenths) / 16n, max(A - minSlots * bps, 0n));
  const maxWorkers = max(reserves / workerBytes(least), 1n);
  const requestedWorkers = opts.workers ?? ex.defaults.workers;
  const workers = max(min(BigInt(requestedWorkers), maxWorkers, BigInt(limits.maxComputeWorkgroupsPerDimension)), 1n);
  // The reserves' share spread evenly over the workers, from `least` to `stack_frames` frames.
  const stackFrames = min(max(max(reserves / workers - workerBytes(0n), 0n) / frameBytes, least), most);
  // At most ring_slots_per_worker slots a worker where that is set, counting at least 64 workers.
  const perWorkerSlots = BigInt(a.ring_slots_per_worker);
  const slotCap = perWorkerSlots > 0n ? max(perWorkerSlots * max(workers, 64n), minSlots) : 1n << 31n;
  const fit = min(max(A - workers * workerBytes(stackFrames), 0n) / bps, 1n << 31n, slotCap);
  let ringSlots = fit > 0n ? 1n : 0n;
  while (ringSlots * 2n <= fit) ringSlots *= 2n;
  if (ringSlots < minSlots) tooSmall();
  const arenaBytes = ceil4(workers * workerBytes(stackFrames) + ringSlots * bps);

  const fuel = opts.fuel ?? ex.defaults.fuel;
  const chain = opts.chain ?? ex.defaults.chain_length;

  // Stream windows (docs/manifest.md, "Streams"): they depend on the worker count.
  const capacities = new Map();
  for (const st of ex.streams ?? []) {
    try {
      capacities.set(st.binding, BigInt(streamCapacity(m, st, Number(workers), limits, opts.streamCapacity)));
    } catch (e) {
      fail(EXIT_USAGE, e.message);
    }
  }

  // The parameter uniform.
  const uniform = new DataView(new ArrayBuffer(ex.params_size));
  uniform.setUint32(ex.config.workers, Number(workers), true);
  uniform.setUint32(ex.config.ring_slots, Number(ringSlots), true);
  uniform.setUint32(ex.config.fuel, fuel, true);
  // An older manifest has no such word: its kernel always uses arena.stack_frames.
  if (ex.config.stack_frames !== undefined) uniform.setUint32(ex.config.stack_frames, Number(stackFrames), true);
  for (const p of m.params) uniform.setUint32(p.offset, params.get(p.name), true);
  // True element counts: the kernel cannot tell an empty input from arrayLength (no empty buffers).
  for (const l of ex.lengths) uniform.setUint32(l.offset, Number(lengths.get(l.binding) ?? 0n), true);
  for (const st of ex.streams ?? []) uniform.setUint32(st.capacity_offset, Number(capacities.get(st.binding)), true);

  // One buffer per binding: data bytes and allocated bytes (at least one element and 4 bytes).
  const buffers = m.bindings.map((b) => {
    const size = BigInt(b.element.size);
    let length, bytes;
    switch (b.role) {
      case 'input': case 'output': case 'buffer': length = lengths.get(b.name); bytes = length * size; break;
      case 'params': length = 1n; bytes = BigInt(ex.params_size); break;
      case 'control': length = BigInt(ex.control.words); bytes = length * 4n; break;
      case 'arena': length = arenaBytes / 4n; bytes = arenaBytes; break;
      case 'marks': length = marksWords; bytes = marksWords * 4n; break;
      case 'stream': length = capacities.get(b.name); bytes = length * size; break;
      default: fail(EXIT_USAGE, `binding \`${b.name}\` has unknown role \`${b.role}\``);
    }
    let alloc = ceil4(bytes > size ? bytes : size);
    if (alloc < 4n) alloc = 4n;
    const limit = b.access === 'uniform' ? BigInt(limits.maxUniformBufferBindingSize) : maxBinding;
    if (alloc > limit || alloc > maxBuffer) {
      fail(EXIT_USAGE, `binding \`${b.name}\` needs ${alloc} bytes, more than the device allows (${limit < maxBuffer ? limit : maxBuffer})`);
    }
    return { binding: b, length, bytes, alloc: Number(alloc), data: data.get(b.name) };
  });

  return { workers: Number(workers), requestedWorkers, stackFrames: Number(stackFrames), ringSlots: Number(ringSlots), arenaBytes: Number(arenaBytes), fuel, chain, capacities, params, uniform, buffers };
}

// ---------------------------------------------------------------------------------------------
// WebGPU

// Launch protocol step 3: buffers, uploads, fills, bind groups.
function allocate(device, m, p, layouts) {
  const usage = {
    storage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    uniform: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
  };
  const buffers = p.buffers.map((bp) => {
    const b = bp.binding;
    const fill = b.role === 'output' || b.role === 'buffer' ? (b.fill ?? 0) >>> 0 : 0;
    const initial = bp.data !== undefined || fill !== 0;
    const buffer = device.createBuffer({
      label: b.name,
      size: bp.alloc,
      usage: b.access === 'uniform' ? usage.uniform : usage.storage,
      mappedAtCreation: initial,
    });
    if (initial) {
      const range = buffer.getMappedRange();
      if (bp.data !== undefined) new Uint8Array(range).set(bp.data);
      else new Uint32Array(range).fill(fill);
      buffer.unmap();
    }
    return buffer;
  });
  const role = (r) => m.bindings.findIndex((b) => b.role === r);
  device.queue.writeBuffer(buffers[role('params')], 0, p.uniform.buffer);
  const bindGroups = layouts.map((layout, g) => device.createBindGroup({
    label: `${m.name} group ${g}`,
    layout,
    entries: m.bindings.map((b, i) => [b, i]).filter(([b]) => b.group === g)
      .map(([b, i]) => ({ binding: b.binding, resource: { buffer: buffers[i], offset: 0, size: p.buffers[i].alloc } })),
  }));
  const indirect = device.createBuffer({ label: 'indirect args', size: indirectBytes(m), usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
  const readback = device.createBuffer({ label: 'control readback', size: m.executor.control.words * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  return {
    buffers, bindGroups, indirect, readback,
    control: buffers[role('control')], arena: buffers[role('arena')],
    marks: role('marks') >= 0 ? buffers[role('marks')] : null,
  };
}

// Steps 4-6: one submission of `launches` launches; `first` adds the clears and `init` before
// the launch chain.
function record(device, m, p, r, pipelines, first, launches) {
  const enc = device.createCommandEncoder({ label: first ? 'dyngc start' : 'dyngc launch chain' });
  const bind = (pass) => r.bindGroups.forEach((bg, g) => pass.setBindGroup(g, bg));
  if (first) {
    enc.clearBuffer(r.control);
    enc.clearBuffer(r.arena);
    if (r.marks) enc.clearBuffer(r.marks);
    const pass = enc.beginComputePass({ label: 'dyngc init' });
    pass.setPipeline(pipelines.init);
    bind(pass);
    pass.dispatchWorkgroups(1, 1, 1);
    pass.end();
  }
  for (let i = 0; i < launches; i++) recordLaunch(enc, m, pipelines, r);
  enc.copyBufferToBuffer(r.control, 0, r.readback, 0, m.executor.control.words * 4);
  return enc.finish();
}

async function readBuffer(device, buffer, bytes) {
  const n = Math.max(4, Math.ceil(bytes / 4) * 4);
  const staging = device.createBuffer({ size: n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buffer, 0, staging, 0, n);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Uint8Array(staging.getMappedRange().slice(0, bytes));
  staging.unmap();
  staging.destroy();
  return out;
}

// ---------------------------------------------------------------------------------------------

// The package's decoding, in the shape stats.json has always had.
function decodeControl(m, words) {
  const d = decode(m, words);
  const error = d.error && { code: d.error.code, name: d.error.name, meaning: d.error.meaning, stage: d.error.stage, stage_id: d.error.stageId, value: d.error.value, bound: d.error.bound };
  return { done: words[m.executor.control.done], error, stats: d.stats, units_per_stage: d.unitsPerStage, stream_full: d.streamFull };
}

async function main() {
  const opts = parseArgs(process.argv);
  const { m, wgslPath, code } = readArtifact(opts.manifest, opts.wgsl, fail);

  const { device, limits, description } = await openDevice(fail);
  if (opts.compileOnly) {
    await createPipelines(device, m, code, wgslPath, fail);
    process.stdout.write(`run.mjs: ${wgslPath}: Tint and the pipelines accept it (${description})\n`);
    process.exit(0);
  }
  const p = plan(m, opts, limits);
  const pipelines = await createPipelines(device, m, code, wgslPath, fail);
  const r = await scoped(device, 'allocating the run\'s buffers', () => allocate(device, m, p, pipelines.layouts), fail);
  if (opts.verbose) {
    process.stderr.write(`run.mjs: ${m.name} on ${description}: ${p.workers} workers (of ${p.requestedWorkers} requested) of ${p.stackFrames} stack frames, ${p.ringSlots} ring slots, ${p.arenaBytes} arena bytes, fuel ${p.fuel}, chain ${p.chain}\n`);
  }

  const start = performance.now();
  const elapsed = () => performance.now() - start;
  const host = () => ({
    submissions, launches, workers: p.workers, ring_slots: p.ringSlots, stack_frames: p.stackFrames, arena_bytes: p.arenaBytes, fuel: p.fuel, chain_length: p.chain,
    stream_capacities: Object.fromEntries([...p.capacities].map(([n, c]) => [n, Number(c)])), stream_drains: streamDrains, elapsed_ms: Math.round(elapsed()),
  });
  let submissions = 0;
  let launches = 0;
  let streamDrains = 0;
  let chain = p.chain;
  // Per stream: the chunks drained so far.
  const drained = new Map([...p.capacities.keys()].map((n) => [n, []]));
  const bufferOf = (name) => r.buffers[m.bindings.findIndex((b) => b.name === name)];
  let snapshot;
  mkdirSync(opts.out, { recursive: true });
  const writeStats = (outputs) => {
    const s = { name: m.name, device: description, done: snapshot.done, error: snapshot.error, stats: snapshot.stats, units_per_stage: snapshot.units_per_stage, host: host(), outputs };
    writeFileSync(path.join(opts.out, 'stats.json'), JSON.stringify(s, null, 2) + '\n');
  };

  // A hung kernel never resolves mapAsync: a watchdog ends the process meanwhile.
  const watchdog = setTimeout(() => {
    fail(EXIT_TIMEOUT, `no completion within ${opts.timeout} s (${submissions} submissions, ${launches} launches); the program may not terminate — try a larger --timeout`);
  }, opts.timeout * 1000);

  for (;;) {
    // Steps 4-7: submit a chain (the first with the clears and init), then await the readback.
    const commands = record(device, m, p, r, pipelines, submissions === 0, chain);
    await scoped(device, 'submitting a launch chain', () => device.queue.submit([commands]), fail);
    submissions += 1;
    launches += chain;
    try {
      await r.readback.mapAsync(GPUMapMode.READ);
    } catch (e) {
      fail(EXIT_GPU, `reading back the control block failed: ${e.message}`);
    }
    const words = new Uint32Array(r.readback.getMappedRange().slice(0));
    r.readback.unmap();
    snapshot = decodeControl(m, words);
    // Step 8.
    if (snapshot.error) {
      const e = snapshot.error;
      writeStats({});
      fail(EXIT_KERNEL, `kernel error ${e.name} in stage \`${e.stage}\` (value ${e.value}, bound ${e.bound}): ${e.meaning}`);
    }
    // Streams: drain a full window (and what is left at the end) before anything else runs.
    try {
      if (await drainStreams(device, m, words, bufferOf, (name, bytes) => drained.get(name).push(bytes))) streamDrains += 1;
    } catch (e) {
      fail(EXIT_GPU, `draining the streams failed: ${e.message}`);
    }
    // The launches after a full window would only leave at once: one, then doubling back.
    chain = snapshot.stream_full ? 1 : Math.min(chain * 2, p.chain);
    if (snapshot.done) break;
    if (opts.verbose && submissions % 100 === 0) {
      process.stderr.write(`run.mjs: ${submissions} submissions, units ${JSON.stringify(snapshot.units_per_stage)}\n`);
    }
    // Step 9: the guard.
    if (submissions >= opts.maxSubmissions || elapsed() >= opts.timeout * 1000) {
      writeStats({});
      fail(EXIT_TIMEOUT, `not done after ${submissions} submissions (${launches} launches, ${(elapsed() / 1000).toFixed(1)} s); raise --max-submissions / --timeout`);
    }
  }
  clearTimeout(watchdog);

  // Reading results: every output's first length * element.size bytes.
  const outputs = {};
  for (const [i, b] of m.bindings.entries()) {
    if (b.role !== 'output') continue;
    const bp = p.buffers[i];
    const bytes = await readBuffer(device, r.buffers[i], Number(bp.bytes));
    const file = path.join(opts.out, `${b.name}.bin`);
    writeFileSync(file, bytes);
    outputs[b.name] = { file, length: Number(bp.length), element_size: b.element.size, wgsl: b.element.wgsl };
  }
  for (const [name, chunks] of drained) {
    const b = m.bindings.find((x) => x.name === name);
    const file = path.join(opts.out, `${name}.bin`);
    writeFileSync(file, Buffer.concat(chunks));
    const bytes = chunks.reduce((n, c) => n + c.byteLength, 0);
    outputs[name] = { file, length: bytes / b.element.size, element_size: b.element.size, wgsl: b.element.wgsl, stream: true };
  }
  writeStats(outputs);
  if (opts.verbose) {
    process.stderr.write(`run.mjs: done in ${submissions} submissions, ${(elapsed() / 1000).toFixed(2)} s; ${JSON.stringify(snapshot.stats)}\n`);
  }
  process.exit(0);
}

main().catch((e) => fail(EXIT_GPU, e?.stack ?? String(e)));
