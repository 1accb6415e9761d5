// dyngc for WebGPU engines in JavaScript: loads an artifact (NAME.wgsl + NAME.manifest.json),
// makes its buffers from typed arrays, runs it to completion or steps it without waiting, reads
// outputs and statistics. It is docs/manifest.md as a library; it needs only a GPUDevice
// (a browser's navigator.gpu, or Dawn in Node through the npm package `webgpu`).
//
//   const device = await adapter.requestDevice({ requiredLimits: requiredLimits(manifest, adapter) });
//   const program = await Program.create(device, manifest, wgsl);
//   const run = program.prepare({ inputs: { n }, arena: 1 << 20 });
//   await run.complete();                       // or: run.start(); each frame: run.poll()
//   const sums = await run.read('sums');        // a Uint32Array (Int32Array, Float32Array)
//
// Stream outputs (docs/manifest.md, "Streams") are drained between submissions with mapAsync,
// on both paths: to `onStream(name, bytes)` when given, else collected for read(name).
//
// Types: ./dyngc.d.ts.

export const SCHEMA = 'dyngc-manifest/3';

/** A stream window's capacity in elements when the engine chooses none (as `dyngc run`'s). */
export const DEFAULT_STREAM_CAPACITY = 1 << 20;
/** Without a requested window: this many of a stream's `min_capacity` per lane in flight, if more than DEFAULT_STREAM_CAPACITY (the runtime's rule, crates/runtime/src/plan.rs). */
export const DEFAULT_STREAM_UNITS_PER_LANE = 2;

const U64_MAX = (1n << 64n) - 1n;
const STORAGE_KIND = { read: 'read-only-storage', read_write: 'storage', uniform: 'uniform' };

/** A kernel error left in the control block: the run stopped (docs/manifest.md, "Errors"). */
export class KernelError extends Error {
  constructor(info) {
    const meaning = info.meaning.replaceAll('{value}', String(info.value)).replaceAll('{bound}', String(info.bound));
    super(`stage \`${info.stage}\` ${meaning} (${info.name}, value ${info.value}, bound ${info.bound})`);
    Object.assign(this, info);
    this.name = 'KernelError';
  }
}

/** A length rule (docs/manifest.md, "Length rules") in u64 arithmetic; throws naming the rule. */
export function evalLength(rule, len, param) {
  const [tag, arg] = Object.entries(rule)[0];
  const pair = () => arg.map((r) => evalLength(r, len, param));
  const checked = (v, what) => {
    if (v < 0n) throw new RangeError(`${showLength(rule)} is negative (${what})`);
    if (v > U64_MAX) throw new RangeError(`${showLength(rule)} overflows`);
    return v;
  };
  const known = (v, what) => {
    if (v === undefined) throw new Error(`${what} \`${arg}\` is not known`);
    return BigInt(v);
  };
  switch (tag) {
    case 'const': return BigInt(arg);
    case 'len': return known(len(arg), 'the length of');
    case 'param': return known(param(arg), 'parameter');
    case 'add': { const [a, b] = pair(); return checked(a + b); }
    case 'sub': { const [a, b] = pair(); return checked(a - b, `${a} - ${b}`); }
    case 'mul': { const [a, b] = pair(); return checked(a * b); }
    case 'div': {
      const [a, b] = pair();
      if (b === 0n) throw new RangeError(`${showLength(rule)} divides by zero`);
      return a / b;
    }
    default: throw new Error(`unknown length rule \`${tag}\``);
  }
}

/** A length rule as the compiler writes it: `(len(x) - 1)`. */
export function showLength(rule) {
  const [tag, arg] = Object.entries(rule)[0];
  const op = { add: '+', sub: '-', mul: '*', div: '/' }[tag];
  if (op) return `(${showLength(arg[0])} ${op} ${showLength(arg[1])})`;
  return tag === 'len' ? `len(${arg})` : String(arg);
}

/**
 * The limits to request for `manifest`: its own `limits`, raised to the adapter's for the sizes
 * (big arenas and inputs need more than the smallest run).
 */
export function requiredLimits(manifest, adapter) {
  const out = { ...(manifest.limits ?? {}) };
  for (const k of ['maxStorageBufferBindingSize', 'maxBufferSize']) {
    if (adapter?.limits?.[k] !== undefined) out[k] = Math.max(out[k] ?? 0, adapter.limits[k]);
  }
  return out;
}

/**
 * A control block read back: done, error, every statistic by name, units per stage by name,
 * each stream's reserved and written counts by name and whether a window filled.
 */
export function decodeControl(m, words) {
  const c = m.executor.control;
  const stats = Object.fromEntries(c.stats.map((s) => [s.name, words[s.word]]));
  const units = Object.fromEntries([...m.stages].sort((a, b) => a.id - b.id).map((s, i) => [s.name, words[c.units_per_stage + i]]));
  const [code, stageId, value, bound] = words.slice(c.error, c.error + 4);
  let error = null;
  if (code !== 0) {
    const e = m.executor.errors.find((x) => x.code === code);
    const stage = m.stages.find((s) => s.id === stageId);
    error = { code, name: e?.name ?? `UNKNOWN(${code})`, meaning: e?.meaning ?? 'unknown error code', stage: stage?.name ?? `#${stageId}`, stageId, value, bound };
  }
  const streams = Object.fromEntries((m.executor.streams ?? []).map((st) => {
    const subWindows = subWindowCounts(st, words);
    const sum = (k) => subWindows.reduce((n, w) => n + w[k], 0);
    return [st.binding, { reserved: sum('reserved'), written: sum('written'), subWindows }];
  }));
  const streamFull = m.executor.stream_full !== undefined && m.executor.stream_full !== null && words[m.executor.stream_full] !== 0;
  return { words, done: words[c.done] !== 0, error, stats, unitsPerStage: units, streams, streamFull };
}

/** A stream's sub-windows as a control block `words` holds them: `{ reserved, written }` each. */
function subWindowCounts(st, words) {
  const n = Math.min(words[st.sub_windows_word], st.max_sub_windows);
  return Array.from({ length: n }, (_, s) => {
    const at = st.counts_word + s * st.counts_stride;
    return { reserved: words[at], written: words[at + 1] };
  });
}

/** Refuses a manifest this package cannot run: another schema, missing or disagreeing executor bindings. */
export function checkManifest(m) {
  if (m.schema !== SCHEMA) throw new Error(`manifest schema is \`${m.schema}\`; this package reads \`${SCHEMA}\``);
  for (const role of ['params', 'control', 'arena']) {
    if (m.bindings.filter((b) => b.role === role).length !== 1) throw new Error(`the manifest needs exactly one \`${role}\` binding`);
  }
  if (m.bindings.filter((b) => b.role === 'marks').length > 1) throw new Error('the manifest has more than one `marks` binding');
  const streams = m.executor.streams ?? [];
  const bound = m.bindings.filter((b) => b.role === 'stream');
  const full = m.executor.stream_full !== undefined && m.executor.stream_full !== null;
  if (bound.length !== streams.length || !streams.every((st) => bound.some((b) => b.name === st.binding)) || full !== streams.length > 0) {
    throw new Error(`the manifest's ${bound.length} stream bindings, ${streams.length} entries of executor.streams and stream_full (${m.executor.stream_full}) disagree`);
  }
}

/**
 * The window of `stream` (an entry of `executor.streams`), in elements: `requested` (by default
 * the larger of DEFAULT_STREAM_CAPACITY and DEFAULT_STREAM_UNITS_PER_LANE maxima per lane in
 * flight), raised to
 * the most one unit emits (`min_capacity`), at most what one binding of `limits` holds, and small
 * enough that the reservations of every lane in flight cannot wrap the kernel's 32-bit counter:
 * `C + workers * workgroup_size * min_capacity < 2^32`.
 */
export function streamCapacity(manifest, stream, workers, limits, requested) {
  if (requested !== undefined && !(Number.isSafeInteger(requested) && requested >= 0)) throw new RangeError(`a stream capacity is a whole number of elements (got ${requested})`);
  const size = BigInt(manifest.bindings.find((b) => b.name === stream.binding).element.size);
  const binding = BigInt(Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize ?? Infinity));
  const inFlight = BigInt(workers) * BigInt(manifest.workgroup_size) * BigInt(stream.min_capacity);
  const counter = (1n << 32n) - 1n - inFlight;
  const most = binding / size < counter ? binding / size : counter;
  const least = BigInt(Math.max(1, stream.min_capacity));
  if (most < least) throw new RangeError(`stream \`${stream.binding}\` needs a window of at least ${least} elements, and this device and ${workers} workers allow ${most < 0n ? 0n : most}`);
  const byLanes = BigInt(DEFAULT_STREAM_UNITS_PER_LANE) * inFlight;
  const floor = BigInt(DEFAULT_STREAM_CAPACITY);
  const want = requested !== undefined ? BigInt(requested) : byLanes > floor ? byLanes : floor;
  return Number(want < least ? least : want > most ? most : want);
}

/**
 * The drain step of docs/manifest.md, "Streams", after a control-block readback `words` with no
 * kernel error: when a window filled (`stream_full`), or the run is done with elements left,
 * checks that every sub-window's `written` equals its `reserved`, copies the first `written`
 * elements of each sub-window out (one copy, one mapAsync) and hands each stream's to
 * `deliver(name, bytes)` (whole elements; empty windows are skipped), then zeroes every
 * sub-window's counts and `stream_full` with writeBuffer, ahead of the next submission.
 * `buffer(name)` gives a binding's GPUBuffer, which holds exactly the window's capacity in
 * elements. Resolves true when it drained.
 */
export async function drainStreams(device, manifest, words, buffer, deliver) {
  const ex = manifest.executor;
  const streams = ex.streams ?? [];
  if (streams.length === 0 || words[ex.control.error] !== 0) return false;
  const full = words[ex.stream_full] !== 0;
  const counts = streams.map((st) => subWindowCounts(st, words));
  if (!full && !(words[ex.control.done] !== 0 && counts.flat().some((w) => w.written > 0))) return false;
  let total = 0;
  const windows = streams.map((st, j) => {
    const window = buffer(st.binding);
    const size = manifest.bindings.find((b) => b.name === st.binding).element.size;
    const n = counts[j].length;
    const per = Math.floor(Math.floor(window.size / size) / n);
    if (!(n > 0 && (n & (n - 1)) === 0 && per > 0)) throw new Error(`stream \`${st.binding}\` reports ${n} sub-windows in a window of ${window.size / size} elements (an executor bug: please report it)`);
    const ranges = [];
    counts[j].forEach(({ reserved, written }, s) => {
      if (reserved !== written) throw new Error(`stream \`${st.binding}\` has ${reserved} elements reserved and ${written} written in sub-window ${s} between launches (an executor bug: please report it)`);
      if (written > per) throw new Error(`stream \`${st.binding}\` reports ${written} elements in sub-window ${s} of ${per} (an executor bug: please report it)`);
      if (written > 0) ranges.push({ offset: s * per * size, bytes: written * size });
    });
    const bytes = ranges.reduce((n, r) => n + r.bytes, 0);
    const at = total;
    total += bytes;
    return { name: st.binding, window, ranges, at, bytes };
  });
  if (total > 0) {
    const staging = device.createBuffer({ label: 'dyngc stream drain', size: total, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const encoder = device.createCommandEncoder({ label: 'dyngc stream drain' });
    let at = 0;
    for (const w of windows) {
      for (const r of w.ranges) {
        encoder.copyBufferToBuffer(w.window, r.offset, staging, at, r.bytes);
        at += r.bytes;
      }
    }
    device.queue.submit([encoder.finish()]);
    try {
      await staging.mapAsync(GPUMapMode.READ);
      const data = staging.getMappedRange();
      for (const w of windows) if (w.bytes > 0) deliver(w.name, new Uint8Array(data.slice(w.at, w.at + w.bytes)));
    } finally {
      staging.destroy();
    }
  }
  const control = buffer(manifest.bindings.find((b) => b.role === 'control').name);
  streams.forEach((st, j) => {
    if (counts[j].length > 0) device.queue.writeBuffer(control, st.counts_word * 4, new Uint32Array((counts[j].length - 1) * st.counts_stride + 2));
  });
  device.queue.writeBuffer(control, ex.stream_full * 4, new Uint32Array(1));
  return true;
}

/**
 * The arena rule of docs/manifest.md, "The arena" (crates/artifact's Manifest is the reference):
 * for an arena of `bytes` and `requested` workers, at most `maxWorkgroups` (the device's
 * maxComputeWorkgroupsPerDimension), the workers, each one's stack reserve in frames, the ring
 * slots and the arena bytes they use, and `zeroed`: the [start, end) byte ranges a run clears (the
 * stacks' top and bottom words, the ring's slot states; the frames need no clearing: crates/artifact's
 * `Manifest::arena_zeroed`). Throws a RangeError below `min_bytes`.
 */
export function arenaLayout(manifest, bytes, requested, maxWorkgroups) {
  const a = manifest.executor.arena;
  const A = BigInt(bytes);
  if (A < BigInt(a.min_bytes)) throw new RangeError(`the arena must be at least ${a.min_bytes} bytes (got ${bytes})`);
  const [perSlot, minSlots, most] = [BigInt(a.bytes_per_slot), BigInt(a.min_ring_slots), BigInt(a.stack_frames)];
  const frameBytes = 4n * BigInt(a.frame_words);
  // An older manifest has no min_stack_frames: its reserves are always stack_frames.
  const least = BigInt(a.min_stack_frames || a.stack_frames);
  const workerBytes = (frames) => BigInt(a.bytes_per_worker) - frameBytes * (most - frames);
  // Reserves take at most reserve_sixteenths of the arena and leave room for the smallest ring.
  const share = A * BigInt(a.reserve_sixteenths) / 16n;
  const besideMinRing = A > minSlots * perSlot ? A - minSlots * perSlot : 0n;
  const reserves = share < besideMinRing ? share : besideMinRing;
  // As many workers as fit with the fewest frames (one always fits at min_bytes) ...
  let workers = BigInt(requested);
  for (const cap of [reserves / workerBytes(least), BigInt(maxWorkgroups)]) if (workers > cap) workers = cap;
  if (workers < 1n) workers = 1n;
  // ... then the reserves' share spread evenly over them: a smaller reserve fits more workers,
  // and the kernel narrows its batches so that a stack never outgrows it.
  const each = reserves / workers - workerBytes(0n);
  let frames = each > 0n ? each / frameBytes : 0n;
  if (frames < least) frames = least;
  if (frames > most) frames = most;
  const rest = A - workers * workerBytes(frames);
  let fit = rest > 0n ? rest / perSlot : 0n;
  if (fit > 1n << 31n) fit = 1n << 31n;
  const perWorkerSlots = BigInt(a.ring_slots_per_worker);
  if (perWorkerSlots > 0n) {
    let cap = perWorkerSlots * (workers > 64n ? workers : 64n); // at least 64 workers' worth
    if (cap < minSlots) cap = minSlots;
    if (fit > cap) fit = cap;
  }
  let slots = fit > 0n ? 1n : 0n;
  while (slots * 2n <= fit) slots *= 2n;
  if (slots < minSlots) throw new RangeError(`the arena must be at least ${a.min_bytes} bytes (got ${bytes})`);
  const used = workers * workerBytes(frames) + slots * perSlot;
  const states = 8n * workers + frameBytes * frames * workers;
  const zeroed = [[0, Number(8n * workers)], [Number(states), Number(states + 4n * slots)]];
  return { workers: Number(workers), stackFrames: Number(frames), ringSlots: Number(slots), arenaBytes: Number((used + 3n) / 4n * 4n), zeroed };
}

/** A compiled artifact on one device: the module, layouts and pipelines (launch protocol step 1). */
export class Program {
  /** Compiles every entry point with createComputePipelineAsync; rejects on any WGSL error. */
  static async create(device, manifest, wgsl) {
    checkManifest(manifest);
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ label: manifest.name, code: wgsl });
    const info = await module.getCompilationInfo();
    const scoped = await device.popErrorScope();
    const errors = info.messages.filter((x) => x.type === 'error');
    if (errors.length || scoped) {
      throw new Error(`WGSL of \`${manifest.name}\` rejected: ${errors.map((e) => `${e.lineNum}:${e.linePos}: ${e.message}`).join('; ') || scoped.message}`);
    }
    const groups = Math.max(-1, ...manifest.bindings.map((b) => b.group)) + 1;
    const layouts = Array.from({ length: groups }, (_, g) => device.createBindGroupLayout({
      label: `${manifest.name} group ${g}`,
      entries: manifest.bindings.filter((b) => b.group === g).map((b) => ({
        binding: b.binding,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type: STORAGE_KIND[b.access], hasDynamicOffset: false, minBindingSize: 0 },
      })),
    }));
    const layout = device.createPipelineLayout({ label: manifest.name, bindGroupLayouts: layouts });
    const dispatches = manifest.entry_points.dispatches ?? [];
    const names = [manifest.entry_points.init, manifest.entry_points.main, ...dispatches.map((d) => d.entry_point)];
    const pipelines = await Promise.all(names.map((entryPoint) => device.createComputePipelineAsync({ label: `${manifest.name} ${entryPoint}`, layout, compute: { module, entryPoint } })));
    return new Program(device, manifest, layouts, pipelines, warnings(info));
  }

  constructor(device, manifest, layouts, pipelines, compilerMessages) {
    this.device = device;
    this.manifest = manifest;
    this.layouts = layouts;
    this.init = pipelines[0];
    // main, then each dispatch, with the control word of its indirect arguments.
    const args = [manifest.executor.control.indirect_args, ...(manifest.entry_points.dispatches ?? []).map((d) => d.indirect_args)];
    this.kernels = pipelines.slice(1).map((pipeline, j) => ({ pipeline, args: args[j] }));
    /** Tint's warnings and infos, as `line:column: message`. */
    this.compilerMessages = compilerMessages;
  }

  /** Sizes and allocates one run (launch protocol steps 2-3). */
  prepare(options) {
    return new Run(this, options);
  }
}

function warnings(info) {
  return info.messages.filter((x) => x.type !== 'error').map((x) => `${x.lineNum}:${x.linePos}: ${x.type}: ${x.message}`);
}

const TYPED = { u32: Uint32Array, i32: Int32Array, f32: Float32Array };

function bytesOf(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('inputs are typed arrays, DataViews or ArrayBuffers');
}

function paramBits(scalar, value) {
  const v = new DataView(new ArrayBuffer(4));
  if (scalar === 'f32') v.setFloat32(0, Number(value), true);
  else if (scalar === 'i32') v.setInt32(0, Number(value), true);
  else v.setUint32(0, Number(value), true);
  return v.getUint32(0, true);
}

/** One run of a program: its buffers, the launch chain and the control block's readback. */
export class Run {
  constructor(program, { inputs = {}, params = {}, arena, workers, fuel, chain, dispatchGroups, queueFrames, streamCapacity: capacity, onStream } = {}) {
    const m = program.manifest;
    const ex = m.executor;
    this.program = program;
    this.device = program.device;
    this.requestedStreamCapacity = capacity;
    this.onStream = onStream ?? null;
    this.fuel = fuel ?? ex.defaults.fuel;
    this.chain = chain ?? ex.defaults.chain_length;
    this.requestedWorkers = workers ?? ex.defaults.workers;
    this.dispatchGroups = dispatchGroups ?? 0;
    if (!(Number.isInteger(this.dispatchGroups) && this.dispatchGroups >= 0)) throw new RangeError('dispatchGroups is a count of workgroups (0: no cap)');
    this.queueFrames = queueFrames ?? 0;
    if (!(Number.isInteger(this.queueFrames) && this.queueFrames >= 0)) throw new RangeError('queueFrames is a count of frames (0: every frame the arena gives a queue)');
    if (!(this.fuel >= 1 && this.chain >= 1 && this.requestedWorkers >= 1)) throw new RangeError('fuel, chain and workers are at least 1');
    for (const name of Object.keys(inputs)) {
      if (!m.bindings.some((b) => b.role === 'input' && b.name === name)) throw new Error(`\`${name}\` is not an input of \`${m.name}\``);
    }
    this.params = new Map();
    for (const name of Object.keys(params)) {
      if (!m.params.some((p) => p.name === name)) throw new Error(`unknown parameter \`${name}\``);
    }
    for (const p of m.params) {
      if (params[p.name] !== undefined) this.params.set(p.name, paramBits(p.scalar, params[p.name]));
      else if (p.default !== null && p.default !== undefined) this.params.set(p.name, p.default >>> 0);
      else throw new Error(`parameter \`${p.name}\` has no default and was not given`);
    }
    this.lengths = new Map();
    this.data = new Map();
    for (const b of m.bindings.filter((x) => x.role === 'input')) {
      if (inputs[b.name] === undefined) throw new Error(`input \`${b.name}\` was not given`);
      const bytes = bytesOf(inputs[b.name]);
      if (bytes.byteLength % b.element.size !== 0) throw new RangeError(`input \`${b.name}\`: ${bytes.byteLength} bytes is not a whole number of ${b.element.size}-byte elements`);
      this.data.set(b.name, bytes);
      this.lengths.set(b.name, BigInt(bytes.byteLength / b.element.size));
    }
    // Lengths may refer to other outputs' lengths: resolve until nothing changes.
    const sized = m.bindings.filter((b) => (b.role === 'output' || b.role === 'buffer'));
    for (let pass = 0; pass <= sized.length; pass++) {
      for (const b of sized) {
        if (this.lengths.has(b.name)) continue;
        try {
          this.lengths.set(b.name, b.length ? evalLength(b.length, (n) => this.lengths.get(n), (n) => this.params.get(n)) : 1n);
        } catch (e) {
          if (pass === sized.length) throw new Error(`cannot size \`${b.name}\`: ${e.message}`);
        }
      }
    }
    let marks = 0n;
    for (const s of m.stages) {
      if (s.keyed) marks += (evalLength(s.keyed, (n) => this.lengths.get(n), (n) => this.params.get(n)) + 31n) / 32n;
    }
    this.marksWords = marks > 0n ? marks : 1n;
    this.buffers = new Map();
    this.resize(arena ?? Number(ex.arena.min_bytes));
  }

  /**
   * Chooses the arena for the next start (docs/manifest.md, "The arena"): workers, their stack
   * reserves and ring slots follow from `bytes` (arenaLayout). Call between runs, e.g. from
   * usage read by poll().
   */
  resize(bytes) {
    const m = this.program.manifest;
    const l = arenaLayout(m, bytes, this.requestedWorkers, this.device.limits.maxComputeWorkgroupsPerDimension);
    this.workers = l.workers;
    this.stackFrames = l.stackFrames;
    this.ringSlots = l.ringSlots;
    this.arenaZeroed = l.zeroed;
    this.arenaBytes = l.arenaBytes;
    // The windows depend on the worker count (lanes in flight may each hold a reservation).
    this.streamCapacities = Object.fromEntries((m.executor.streams ?? []).map((st) => [st.binding, streamCapacity(m, st, this.workers, this.device.limits, this.requestedStreamCapacity)]));
    this.allocate();
  }

  allocate() {
    const { device } = this;
    const m = this.program.manifest;
    const ex = m.executor;
    for (const buffer of this.buffers.values()) buffer.destroy();
    this.buffers = new Map();
    const maxBinding = BigInt(device.limits.maxStorageBufferBindingSize);
    this.sizes = new Map();
    for (const b of m.bindings) {
      let bytes;
      switch (b.role) {
        case 'input': case 'output': case 'buffer': bytes = this.lengths.get(b.name) * BigInt(b.element.size); break;
        case 'params': bytes = BigInt(ex.params_size); break;
        case 'control': bytes = BigInt(ex.control.words * 4); break;
        case 'arena': bytes = BigInt(this.arenaBytes); break;
        case 'marks': bytes = this.marksWords * 4n; break;
        case 'stream': bytes = BigInt(this.streamCapacities[b.name]) * BigInt(b.element.size); break;
        default: throw new Error(`binding \`${b.name}\` has unknown role \`${b.role}\``);
      }
      // No empty buffers in WebGPU: at least one element and one word, the real length kept.
      let alloc = bytes > BigInt(b.element.size) ? bytes : BigInt(b.element.size);
      alloc = (alloc + 3n) / 4n * 4n;
      if (b.access !== 'uniform' && alloc > maxBinding) throw new RangeError(`\`${b.name}\` needs ${alloc} bytes, more than the device's maxStorageBufferBindingSize (${maxBinding})`);
      const fill = b.role === 'output' || b.role === 'buffer' ? (b.fill ?? 0) >>> 0 : 0;
      const data = this.data.get(b.name);
      const buffer = device.createBuffer({
        label: b.name,
        size: Number(alloc),
        usage: b.access === 'uniform' ? GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST : GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
        mappedAtCreation: data !== undefined || fill !== 0,
      });
      if (data !== undefined) new Uint8Array(buffer.getMappedRange()).set(data);
      else if (fill !== 0) new Uint32Array(buffer.getMappedRange()).fill(fill);
      if (data !== undefined || fill !== 0) buffer.unmap();
      this.buffers.set(b.name, buffer);
      this.sizes.set(b.name, Number(bytes));
    }
    const role = (r) => m.bindings.find((b) => b.role === r);
    this.control = this.buffers.get(role('control').name);
    this.arena = this.buffers.get(role('arena').name);
    this.marks = role('marks') ? this.buffers.get(role('marks').name) : null;
    const uniform = new DataView(new ArrayBuffer(ex.params_size));
    uniform.setUint32(ex.config.workers, this.workers, true);
    uniform.setUint32(ex.config.ring_slots, this.ringSlots, true);
    uniform.setUint32(ex.config.fuel, this.fuel, true);
    uniform.setUint32(ex.config.dispatch_groups, this.dispatchGroups, true);
    uniform.setUint32(ex.config.queue_frames, this.queueFrames, true);
    // An older manifest has no such word: its kernel always uses arena.stack_frames.
    if (ex.config.stack_frames !== undefined) uniform.setUint32(ex.config.stack_frames, this.stackFrames, true);
    for (const p of m.params) uniform.setUint32(p.offset, this.params.get(p.name), true);
    for (const l of ex.lengths) uniform.setUint32(l.offset, Number(this.lengths.get(l.binding) ?? 0n), true);
    for (const st of ex.streams ?? []) uniform.setUint32(st.capacity_offset, this.streamCapacities[st.binding], true);
    device.queue.writeBuffer(this.buffers.get(role('params').name), 0, uniform.buffer);
    this.bindGroups = this.program.layouts.map((layout, g) => device.createBindGroup({
      label: `${m.name} group ${g}`,
      layout,
      entries: m.bindings.filter((b) => b.group === g).map((b) => ({ binding: b.binding, resource: { buffer: this.buffers.get(b.name) } })),
    }));
    this.indirect?.destroy();
    this.readback?.destroy();
    this.indirect = device.createBuffer({ label: 'dyngc indirect', size: 12 * this.program.kernels.length, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
    this.readback = device.createBuffer({ label: 'dyngc control readback', size: ex.control.words * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    this.pending = null;
    this.snapshot = null;
    this.submissions = 0;
    this.resetStreams();
  }

  resetStreams() {
    // Per stream: the chunks drained so far (unless onStream takes them).
    this.collected = new Map((this.program.manifest.executor.streams ?? []).map((st) => [st.binding, []]));
    this.streamDrains = 0;
    // The start records one launch; each next submission twice as many, up to `chain` (a launch
    // after the kernel finished is empty but not free, and most runs finish in the first).
    this.nextChain = 1;
  }

  /** Records the start of a run: clears, `init`, then one launch chain (protocol step 4). */
  recordStart(encoder) {
    encoder.clearBuffer(this.control);
    // Only what must start at zero: clearing the frames too cost time in proportion to the arena.
    for (const [start, end] of this.arenaZeroed) encoder.clearBuffer(this.arena, start, end - start);
    if (this.marks) encoder.clearBuffer(this.marks);
    const pass = encoder.beginComputePass({ label: 'dyngc init' });
    pass.setPipeline(this.program.init);
    this.bindGroups.forEach((bg, g) => pass.setBindGroup(g, bg));
    pass.dispatchWorkgroups(1, 1, 1);
    pass.end();
    this.recordChain(encoder, 1);
  }

  /** Records one launch chain: `launches` times `main` and every dispatch, each indirect (step 5). */
  recordChain(encoder, launches = this.chain) {
    for (let i = 0; i < launches; i++) {
      this.program.kernels.forEach((k, j) => {
        encoder.copyBufferToBuffer(this.control, k.args * 4, this.indirect, 12 * j, 12);
        const pass = encoder.beginComputePass({ label: 'dyngc kernel' });
        pass.setPipeline(k.pipeline);
        this.bindGroups.forEach((bg, g) => pass.setBindGroup(g, bg));
        pass.dispatchWorkgroupsIndirect(this.indirect, 12 * j);
        pass.end();
      });
    }
  }

  submit(first) {
    const encoder = this.device.createCommandEncoder({ label: first ? 'dyngc start' : 'dyngc chain' });
    if (first) this.recordStart(encoder);
    else this.recordChain(encoder, this.nextChain);
    encoder.copyBufferToBuffer(this.control, 0, this.readback, 0, this.program.manifest.executor.control.words * 4);
    this.device.queue.submit([encoder.finish()]);
    this.submissions += 1;
    // The words count as read once the streams are drained too: a done snapshot means every
    // element has been delivered, and the next chain is submitted after the windows are empty.
    const p = { words: null, error: null };
    p.promise = this.readback.mapAsync(GPUMapMode.READ).then(async () => {
      const words = new Uint32Array(this.readback.getMappedRange().slice(0));
      this.readback.unmap();
      await this.drain(words);
      p.words = words;
    }).catch((e) => { p.error = e; });
    this.pending = p;
  }

  /**
   * The drain step (drainStreams) on this run's buffers, for a readback `words` of the control
   * block; submit() runs it after every readback. Resolves true when it drained.
   */
  async drain(words) {
    const drained = await drainStreams(this.device, this.program.manifest, words, (name) => this.buffers.get(name), (name, bytes) => {
      if (this.onStream) this.onStream(name, bytes);
      else this.collected.get(name).push(bytes);
    });
    if (drained) this.streamDrains += 1;
    return drained;
  }

  /** Submits the start of the run (clears, init, the first chain) without waiting. */
  start() {
    this.snapshot = null;
    this.submissions = 0;
    this.resetStreams();
    this.submit(true);
  }

  /**
   * Never waits: `null` while the last readback is in flight; else the snapshot it read. A run
   * that is not done gets its next chain submitted here. Throws a KernelError if the kernel
   * stopped on one.
   */
  poll() {
    if (this.snapshot?.done) return this.snapshot;
    const p = this.pending;
    if (!p) throw new Error('poll() before start()');
    if (p.error) throw p.error;
    if (!p.words) return null;
    this.snapshot = this.decode(p.words);
    if (this.snapshot.error) throw new KernelError(this.snapshot.error);
    // After a full window, one launch: the rest of a chain would only leave at once. Then
    // doubling (back) to the chain length.
    this.nextChain = this.snapshot.streamFull ? 1 : Math.min(this.nextChain * 2, this.chain);
    if (!this.snapshot.done) this.submit(false);
    return this.snapshot;
  }

  /** Runs to completion: resolves with the final snapshot, rejects on a kernel error or the limits. */
  async complete({ timeoutMs = 300_000, maxSubmissions = 1_000_000 } = {}) {
    const started = performance.now();
    this.start();
    for (;;) {
      await this.pending.promise;
      const s = this.poll();
      if (s?.done) return s;
      if (this.submissions >= maxSubmissions || performance.now() - started > timeoutMs) {
        throw new Error(`\`${this.program.manifest.name}\` not done after ${this.submissions} submissions (${Math.round(performance.now() - started)} ms)`);
      }
    }
  }

  /** The control block decoded (decodeControl), with this run's plan and submissions. */
  decode(words) {
    return { ...decodeControl(this.program.manifest, words), submissions: this.submissions, workers: this.workers, stackFrames: this.stackFrames, ringSlots: this.ringSlots, arenaBytes: this.arenaBytes, streamDrains: this.streamDrains };
  }

  /** Element count of a binding in this run; of a stream, the elements collected so far. */
  length(name) {
    const chunks = this.collected.get(name);
    if (chunks) return chunks.reduce((n, c) => n + c.byteLength, 0) / this.program.manifest.bindings.find((b) => b.name === name).element.size;
    return Number(this.lengths.get(name));
  }

  /**
   * An output (or buffer) read back: a typed array of its scalar kind, `length * components`
   * long. A stream: every element drained so far, in no particular order (struct elements as
   * u32 words: decode them with the stream's `fields`); empty when `onStream` took them.
   */
  async read(name) {
    const b = this.program.manifest.bindings.find((x) => x.name === name);
    if (b?.role === 'stream') {
      const chunks = this.collected.get(name);
      const all = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
      chunks.reduce((at, c) => { all.set(c, at); return at + c.byteLength; }, 0);
      return new (TYPED[b.element.scalar] ?? Uint32Array)(all.buffer);
    }
    if (!b || (b.role !== 'output' && b.role !== 'buffer')) throw new Error(`\`${name}\` is not an output of \`${this.program.manifest.name}\``);
    const bytes = this.sizes.get(name);
    const size = Math.max(4, Math.ceil(bytes / 4) * 4);
    const staging = this.device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const encoder = this.device.createCommandEncoder();
    encoder.copyBufferToBuffer(this.buffers.get(name), 0, staging, 0, size);
    this.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const copy = staging.getMappedRange().slice(0, bytes);
    staging.unmap();
    staging.destroy();
    return new (TYPED[b.element.scalar] ?? Uint32Array)(copy);
  }

  destroy() {
    for (const buffer of this.buffers.values()) buffer.destroy();
    this.indirect.destroy();
    this.readback.destroy();
  }
}
