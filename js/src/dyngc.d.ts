// Types of the dyngc package and of the manifest (docs/manifest.md; the Rust schema in
// crates/artifact/src/lib.rs is the source of truth for field names).

// GPU* types: the @webgpu/types package (or a lib with WebGPU).

export const SCHEMA: 'dyngc-manifest/3';
/** The least stream window in elements when none is chosen: 2^20. */
export const DEFAULT_STREAM_CAPACITY: number;
/** When none is chosen, a stream window holds this many of its `min_capacity` per lane in flight (at least DEFAULT_STREAM_CAPACITY): 2. */
export const DEFAULT_STREAM_UNITS_PER_LANE: number;

export type Scalar = 'u32' | 'i32' | 'f32';

/** Externally tagged integer expression over input lengths and parameters. */
export type LengthRule =
  | { const: number }
  | { len: string }
  | { param: string }
  | { add: [LengthRule, LengthRule] }
  | { sub: [LengthRule, LengthRule] }
  | { mul: [LengthRule, LengthRule] }
  | { div: [LengthRule, LengthRule] };

export interface Element {
  scalar: Scalar | null;
  components: number;
  atomic: boolean;
  wgsl: string;
  size: number;
}

export interface Binding {
  name: string;
  group: number;
  binding: number;
  role: 'input' | 'output' | 'buffer' | 'params' | 'control' | 'arena' | 'marks' | 'stream';
  access: 'read' | 'read_write' | 'uniform';
  element: Element;
  array: boolean;
  length: LengthRule | null;
  fill: number | null;
}

export interface Dispatch {
  entry_point: string;
  stage: number;
  workgroup_size: number;
  indirect_args: number;
}

/** WebGPU limits the program needs, by their GPUSupportedLimits names. */
export interface Limits {
  maxBindGroups: number;
  maxBindingsPerBindGroup: number;
  maxStorageBuffersPerShaderStage: number;
  maxUniformBuffersPerShaderStage: number;
  maxComputeWorkgroupStorageSize: number;
  maxComputeInvocationsPerWorkgroup: number;
  maxComputeWorkgroupSizeX: number;
  maxStorageBufferBindingSize: number;
  maxUniformBufferBindingSize: number;
}

export interface ParamInfo {
  name: string;
  scalar: Scalar;
  offset: number;
  default: number | null;
}

export interface StageInfo {
  id: number;
  name: string;
  keyed: LengthRule | null;
  max_depth: number | null;
}

export interface StatField {
  name: string;
  word: number;
  meaning: string;
}

/** A field of a stream's struct element (nested structs flattened as `a.b`). */
export interface FieldInfo {
  name: string;
  scalar: Scalar;
  /** 1 for a scalar, N for `vecN`. */
  components: number;
  /** Byte offset in the element. */
  offset: number;
}

/** One stream output: `executor.streams[i]`. */
export interface StreamInfo {
  binding: string;
  /** Byte offset of the window capacity (u32, elements) in the parameter uniform. */
  capacity_offset: number;
  /** Control word: the number of sub-windows S (a power of two, 1 to `max_sub_windows`), set by the init launch. */
  sub_windows_word: number;
  /** Control word of sub-window 0's reserved count; its written count is the next word; sub-window s's pair is `s * counts_stride` words later. */
  counts_word: number;
  counts_stride: number;
  max_sub_windows: number;
  /** The most elements one unit may emit: the smallest window. */
  min_capacity: number;
  /** Struct elements only. */
  fields?: FieldInfo[];
}

export interface ErrorInfo {
  code: number;
  name: string;
  meaning: string;
}

export interface Executor {
  config: {
    workers: number;
    ring_slots: number;
    fuel: number;
    dispatch_groups: number;
    queue_frames: number;
    /** Each worker's stack reserve in frames (0: `arena.stack_frames`); absent in an older manifest, whose kernel always uses `arena.stack_frames`. */
    stack_frames?: number;
  };
  params_size: number;
  lengths: { binding: string; offset: number }[];
  arena: {
    frame_words: number;
    /** The most frames of a worker's stack reserve (a reserve never needs more). */
    stack_frames: number;
    /** The fewest frames of a reserve (0 or absent in an older manifest: always `stack_frames`). */
    min_stack_frames?: number;
    min_ring_slots: number;
    /** Bytes of one worker with a reserve of `stack_frames` frames. */
    bytes_per_worker: number;
    bytes_per_slot: number;
    /** One worker with `min_stack_frames` frames and the smallest ring. */
    min_bytes: number;
    /** Sixteenths of an arena that worker reserves may take (docs/manifest.md, "The arena"). */
    reserve_sixteenths: number;
    /** The most ring slots per worker, 0 for no cap (docs/manifest.md, "The arena"). */
    ring_slots_per_worker: number;
    /** The kernel's ring shards (docs/manifest.md, "The arena"); absent in an older manifest. */
    shard_workers?: number;
    min_shard_slots?: number;
    max_shards?: number;
  };
  control: {
    words: number;
    indirect_args: number;
    done: number;
    error: number;
    stats: StatField[];
    units_per_stage: number;
  };
  defaults: { workers: number; fuel: number; chain_length: number };
  errors: ErrorInfo[];
  max_spawn_depth: number;
  graph_loop?: { max_rounds: number | null };
  schedule: 'megakernel' | 'partitioned';
  /** Stream outputs in declaration order; absent when there are none. */
  streams?: StreamInfo[];
  /** Control word set when a unit found no room in a window; present exactly with `streams`. */
  stream_full?: number;
}

export interface Manifest {
  schema: 'dyngc-manifest/3';
  name: string;
  wgsl: string;
  workgroup_size: number;
  entry_points: { init: string; main: string; dispatches?: Dispatch[] };
  limits?: Limits;
  bindings: Binding[];
  params: ParamInfo[];
  stages: StageInfo[];
  executor: Executor;
}

/** What the kernel left in the control block when it stopped on an error. */
export interface KernelErrorInfo {
  code: number;
  name: string;
  meaning: string;
  stage: string;
  stageId: number;
  value: number;
  bound: number;
}

export class KernelError extends Error implements KernelErrorInfo {
  constructor(info: KernelErrorInfo);
  code: number;
  meaning: string;
  stage: string;
  stageId: number;
  value: number;
  bound: number;
}

/** The control block decoded after a readback. */
export interface Snapshot {
  words: Uint32Array;
  done: boolean;
  error: KernelErrorInfo | null;
  /** Every `executor.control.stats` word by name (`launches`, `pending`, `rounds`, ...). */
  stats: Record<string, number>;
  unitsPerStage: Record<string, number>;
  /** Per stream: elements reserved and written since the last drain (as read, before draining). */
  streams: Record<string, { reserved: number; written: number; subWindows: { reserved: number; written: number }[] }>;
  /** Whether a window was full: the workers left their launches until it is drained. */
  streamFull: boolean;
  /** Drains of this run so far (each copies every non-empty window out). */
  streamDrains: number;
  submissions: number;
  workers: number;
  /** Each worker's stack reserve in frames. */
  stackFrames: number;
  ringSlots: number;
  arenaBytes: number;
}

/** What an arena holds (arenaLayout). */
export interface ArenaLayout {
  workers: number;
  /** Each worker's stack reserve in frames, from `min_stack_frames` to `stack_frames`. */
  stackFrames: number;
  ringSlots: number;
  /** Arena bytes used, rounded up to a multiple of 4: the arena buffer's size. */
  arenaBytes: number;
  /** The [start, end) byte ranges a run clears: the stacks' top and bottom words and the ring's slot states (frames need no clearing). */
  zeroed: [number, number][];
}

export type InputData = ArrayBuffer | ArrayBufferView;

export interface RunOptions {
  /** Input data by binding name; lengths are bytes / element.size. */
  inputs?: Record<string, InputData>;
  /** Parameter values (u32, i32 or f32 by the parameter's type). */
  params?: Record<string, number>;
  /** Arena bytes, at least `executor.arena.min_bytes` (the default). */
  arena?: number;
  workers?: number;
  fuel?: number;
  /** Launches per submission (1 after a full stream window, doubling back). */
  chain?: number;
  /** The most workgroups one dispatch of the partitioned schedule launches (default 0: no cap). A CPU adapter runs much sooner with a few per thread. */
  dispatchGroups?: number;
  /** The most frames each queue of a one-lane dispatched stage holds (default 0: every frame the arena gives it). A full queue's spawns run on the spawner's lane, which a CPU adapter runs sooner: give it 1. */
  queueFrames?: number;
  /** Window of every stream output in elements (default: twice its `min_capacity` per lane in flight, at least 2^20), raised to its `min_capacity`, capped by the device and the counter's range. */
  streamCapacity?: number;
  /** Takes every drained chunk of a stream (whole elements, never empty) instead of collecting it for `read`. */
  onStream?: (name: string, bytes: Uint8Array) => void;
}

export function evalLength(
  rule: LengthRule,
  len: (name: string) => bigint | number | undefined,
  param: (name: string) => bigint | number | undefined,
): bigint;
export function showLength(rule: LengthRule): string;
/** Throws when the package cannot run `manifest` (schema, executor bindings, streams that disagree). */
export function checkManifest(manifest: Manifest): void;
/** A stream's window: `requested` (default: `DEFAULT_STREAM_UNITS_PER_LANE * workers * workgroup_size * min_capacity`, at least 2^20) clamped to `[min_capacity, most]` (docs/manifest.md, "Streams"); throws when none fits. */
export function streamCapacity(
  manifest: Manifest,
  stream: StreamInfo,
  workers: number,
  limits: { maxStorageBufferBindingSize: number; maxBufferSize?: number },
  requested?: number,
): number;
/**
 * The drain step after a readback `words` (no kernel error): when a window is full or the run is
 * done, copies every sub-window's elements out to `deliver` (one call per non-empty stream), then
 * zeroes the stream words. Resolves true when it drained; rejects when reserved and written
 * disagree.
 */
export function drainStreams(
  device: GPUDevice,
  manifest: Manifest,
  words: Uint32Array,
  buffer: (binding: string) => GPUBuffer,
  deliver: (name: string, bytes: Uint8Array) => void,
): Promise<boolean>;
/** The control block decoded (without the run's own fields). */
export function decodeControl(manifest: Manifest, words: Uint32Array): Omit<Snapshot, 'submissions' | 'workers' | 'stackFrames' | 'ringSlots' | 'arenaBytes' | 'streamDrains'>;
/** The arena rule (docs/manifest.md, "The arena") for an arena of `bytes`, `requested` workers and the device's maxComputeWorkgroupsPerDimension; throws a RangeError below `min_bytes`. */
export function arenaLayout(manifest: Manifest, bytes: number | bigint, requested: number, maxWorkgroups: number): ArenaLayout;
/** `manifest.limits`, with the adapter's buffer size limits for big arenas and inputs. */
export function requiredLimits(manifest: Manifest, adapter?: GPUAdapter): Record<string, number>;

export class Program {
  /** Compiles `init`, `main` and every dispatch with createComputePipelineAsync. */
  static create(device: GPUDevice, manifest: Manifest, wgsl: string): Promise<Program>;
  readonly device: GPUDevice;
  readonly manifest: Manifest;
  readonly layouts: GPUBindGroupLayout[];
  /** Tint's warnings and infos. */
  readonly compilerMessages: string[];
  prepare(options?: RunOptions): Run;
}

export class Run {
  readonly program: Program;
  readonly workers: number;
  /** Each worker's stack reserve in frames (chosen at each resize). */
  readonly stackFrames: number;
  readonly ringSlots: number;
  readonly arenaBytes: number;
  /** Each stream's window in elements, by binding name (chosen at each resize). */
  readonly streamCapacities: Record<string, number>;
  readonly submissions: number;
  /** The last snapshot read, or null. */
  readonly snapshot: Snapshot | null;
  /** A new arena for the next start (reallocates the run's buffers; inputs are kept). */
  resize(bytes: number): void;
  /** Records clears, `init` and a launch chain of one launch into an encoder of the engine's. */
  recordStart(encoder: GPUCommandEncoder): void;
  /** Records one launch chain: `launches` (default `chain`) times `main` and every dispatch. */
  recordChain(encoder: GPUCommandEncoder, launches?: number): void;
  /** The drain step (drainStreams) on this run's buffers, after a readback of the engine's own; start()/poll()/complete() run it themselves. */
  drain(words: Uint32Array): Promise<boolean>;
  /** Submits the start without waiting. */
  start(): void;
  /** Never waits: null while the readback (and the stream drain after it) is in flight, else the snapshot (the next chain is submitted when not done). Throws KernelError. */
  poll(): Snapshot | null;
  /** Runs to completion. Rejects with KernelError, or when the limits are reached. */
  complete(options?: { timeoutMs?: number; maxSubmissions?: number }): Promise<Snapshot>;
  decode(words: Uint32Array): Snapshot;
  /** Elements of a binding; of a stream, the elements collected so far. */
  length(name: string): number;
  /** An output or buffer: Uint32Array, Int32Array or Float32Array by its scalar kind. A stream: every element drained (struct elements as u32 words), empty when `onStream` took them. */
  read(name: string): Promise<Uint32Array | Int32Array | Float32Array>;
  destroy(): void;
}
