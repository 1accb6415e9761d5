// Compile-time test of src/dyngc.d.ts (tsc -p js): an engine's use of the package type-checks.
import { KernelError, Program, arenaLayout, checkManifest, drainStreams, requiredLimits, streamCapacity, type ArenaLayout, type Manifest, type Snapshot, type StreamInfo } from '../src/dyngc.js';

export async function engine(adapter: GPUAdapter, manifest: Manifest, wgsl: string, n: Uint32Array): Promise<Uint32Array> {
  const device = await adapter.requestDevice({ requiredLimits: requiredLimits(manifest, adapter) });
  const program = await Program.create(device, manifest, wgsl);
  const run = program.prepare({ inputs: { n }, arena: manifest.executor.arena.min_bytes, workers: 1 });
  run.start();
  let s: Snapshot | null = null;
  while (!(s = run.poll())?.done) await new Promise((r) => setTimeout(r, 0));
  const launches: number = s.stats.launches + s.stackFrames;
  run.resize(1 << 20);
  const l: ArenaLayout = arenaLayout(manifest, 1n << 20n, 1, device.limits.maxComputeWorkgroupsPerDimension);
  if (l.stackFrames !== run.stackFrames || l.arenaBytes !== run.arenaBytes) throw new Error('resize() is arenaLayout');
  try {
    await run.complete({ timeoutMs: 1000 });
  } catch (e) {
    if (e instanceof KernelError) console.log(e.stage, e.value, e.bound, launches);
  }
  const enc = device.createCommandEncoder();
  run.recordStart(enc);
  run.recordChain(enc);
  const out = await run.read('sums');
  return out instanceof Uint32Array ? out : new Uint32Array(out.buffer);
}

// A program with a stream output: chunks to a callback, the manifest's fields to decode them.
export async function streams(program: Program, ctrl: Float32Array): Promise<number> {
  const m: Manifest = program.manifest;
  const verts = m.executor.streams?.find((st: StreamInfo) => st.binding === 'verts');
  const pos = verts?.fields?.find((f) => f.name === 'pos')?.offset ?? 0;
  let count = 0;
  const run = program.prepare({
    inputs: { ctrl },
    params: { segments_per_unit: 3.5 },
    streamCapacity: 7,
    onStream: (name: string, bytes: Uint8Array) => { count += new DataView(bytes.buffer).getFloat32(pos, true) >= 0 && name === 'verts' ? 1 : 0; },
  });
  const capacity: number = run.streamCapacities.verts;
  const s = await run.complete();
  const full: boolean = s.streamFull;
  const written: number = s.streams.verts.written + s.streamDrains;
  const words = new Uint32Array(m.executor.control.words);
  const drained: boolean = await run.drain(words) || await drainStreams(program.device, m, words, (name) => { throw new Error(name); }, () => {});
  checkManifest(m);
  return count + capacity + written + streamCapacity(m, verts!, run.workers, program.device.limits) + (full || drained ? 1 : 0) + (m.executor.stream_full ?? 0);
}
