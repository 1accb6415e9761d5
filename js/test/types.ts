// Compile-time test of src/dyngc.d.ts (tsc -p js): an engine's use of the package type-checks.
import { KernelError, Program, requiredLimits, type Manifest, type Snapshot } from '../src/dyngc.js';

export async function engine(adapter: GPUAdapter, manifest: Manifest, wgsl: string, n: Uint32Array): Promise<Uint32Array> {
  const device = await adapter.requestDevice({ requiredLimits: requiredLimits(manifest, adapter) });
  const program = await Program.create(device, manifest, wgsl);
  const run = program.prepare({ inputs: { n }, arena: manifest.executor.arena.min_bytes, workers: 1 });
  run.start();
  let s: Snapshot | null = null;
  while (!(s = run.poll())?.done) await new Promise((r) => setTimeout(r, 0));
  const launches: number = s.stats.launches;
  run.resize(1 << 20);
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
