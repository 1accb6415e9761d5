#!/usr/bin/env node
// The package under Dawn in Node (npm `webgpu`, installed in tests/dawn): node test/node.mjs DIR.
// Exit 0 when every case of DIR/cases.json passes.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { limitsFor, loadCases, runCases } from './cases.mjs';

const dir = process.argv[2];
const here = path.dirname(fileURLToPath(import.meta.url));
const dawn = path.join(here, '../../tests/dawn/node_modules/webgpu/dist', `${process.platform}-${process.arch}`, 'dawn.node');
const { create, globals } = createRequire(import.meta.url)(dawn);
Object.assign(globalThis, globals);
// Kept reachable for the whole process: Dawn polls its instance for mapAsync and friends.
globalThis.dyngcGpu = create([]);
const load = async (file) => {
  const b = await readFile(path.join(dir, file));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};
const cases = await loadCases(load);
const adapter = await globalThis.dyngcGpu.requestAdapter();
const manifests = await Promise.all([...new Set(cases.map((c) => c.manifest))].map(async (f) => JSON.parse(new TextDecoder().decode(await load(f)))));
const device = await adapter.requestDevice({ requiredLimits: limitsFor(manifests, adapter) });
device.addEventListener?.('uncapturederror', (e) => { console.error(`uncaptured WebGPU error: ${e.error.message}`); process.exit(1); });
const results = await runCases(device, load, cases, (r) => console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.label}${r.ok ? '' : `: ${r.problems.join('; ')}`}`));
const failed = results.filter((r) => !r.ok).length;
console.log(`node: ${results.length - failed} of ${results.length} cases passed`);
process.exit(failed ? 1 : 0);
