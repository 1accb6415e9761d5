// What the Dawn drivers share (run.mjs runs one artifact, frame_loop.mjs a frame loop of them):
// exit statuses, the command line, reading the manifest and the WGSL, length rules, opening a
// Dawn device and launch protocol step 1 (module, bind group layouts, pipelines), all from the
// manifest alone (docs/manifest.md).
//
// Functions that can fail take the script's `fail(code, message)`, which reports and exits.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// The GPU object of `create()` must stay reachable for the whole process: the package polls its
// instance for events (mapAsync, popErrorScope, ...) and a garbage-collected GPU object leaves it
// polling freed memory (a segfault in dawn::native::InstanceBase::ProcessEvents).
let gpu;

export const EXIT_GPU = 1;
export const EXIT_USAGE = 2;
export const EXIT_KERNEL = 3;
export const EXIT_TIMEOUT = 4;

// ---------------------------------------------------------------------------------------------
// Command line and files

// Walks `argv` (process.argv): a flag of `values` calls its function with the argument after it,
// a flag of `switches` calls its function; anything else fails, naming `usage`.
export function parseFlags(argv, { values = {}, switches = {}, usage }, fail) {
  for (let i = 2; i < argv.length; i++) {
    const flag = argv[i];
    if (Object.hasOwn(switches, flag)) {
      switches[flag]();
    } else if (Object.hasOwn(values, flag)) {
      if (i + 1 >= argv.length) fail(EXIT_USAGE, `${flag} needs a value`);
      values[flag](argv[++i], flag);
    } else {
      fail(EXIT_USAGE, `unknown argument \`${flag}\` (${usage})`);
    }
  }
}

export function readJson(file, what, fail) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return fail(EXIT_USAGE, `cannot read the ${what} ${file}: ${e.message}`);
  }
}

function validateManifest(m, fail) {
  if (m.schema !== 'dyngc-manifest/2') fail(EXIT_USAGE, `manifest schema is \`${m.schema}\`, this driver reads \`dyngc-manifest/2\``);
  for (const role of ['params', 'control', 'arena', 'marks']) {
    const n = m.bindings.filter((b) => b.role === role).length;
    if (n > 1 || (n === 0 && role !== 'marks')) fail(EXIT_USAGE, `manifest has ${n} bindings with role \`${role}\``);
  }
  for (const b of m.bindings) {
    if (!(b.element.size > 0 && b.element.size % 4 === 0)) fail(EXIT_USAGE, `binding \`${b.name}\` has element size ${b.element.size}`);
    if (!['read', 'read_write', 'uniform'].includes(b.access)) fail(EXIT_USAGE, `binding \`${b.name}\` has unknown access \`${b.access}\``);
  }
}

// The manifest `manifestFile` (checked) and its WGSL: `wgslFile`, else the manifest's `wgsl` file
// beside it.
export function readArtifact(manifestFile, wgslFile, fail) {
  const manifestPath = path.resolve(manifestFile);
  const m = readJson(manifestPath, 'manifest', fail);
  validateManifest(m, fail);
  const wgslPath = wgslFile ?? path.join(path.dirname(manifestPath), m.wgsl);
  let code;
  try {
    code = readFileSync(wgslPath, 'utf8');
  } catch (e) {
    fail(EXIT_USAGE, `cannot read the WGSL ${wgslPath}: ${e.message}`);
  }
  return { m, wgslPath, code };
}

// ---------------------------------------------------------------------------------------------
// Length rules (docs/manifest.md, "Length rules")

// The JavaScript package's (js/): the drivers here stay plain manifest readers otherwise.
export { evalLength as evalRule, showLength as showRule } from '../../js/src/dyngc.js';

// ---------------------------------------------------------------------------------------------
// WebGPU

// Loads Dawn for Node and opens a device with the adapter's limits. Device loss and uncaptured
// errors end the process through `fail` (a frame loop never awaits an error scope, so every error
// that escapes one arrives there).
export async function openDevice(fail) {
  const dawn = path.join(here, 'node_modules/webgpu/dist', `${process.platform}-${process.arch}`, 'dawn.node');
  if (!existsSync(dawn)) fail(EXIT_GPU, `Dawn for Node is not installed (${dawn} is missing): run scripts/test, or \`npm ci\` in ${here}`);
  const { create, globals } = createRequire(import.meta.url)(dawn);
  Object.assign(globalThis, globals); // GPUBufferUsage, GPUMapMode, ...
  gpu = create([]);
  const adapter = await gpu.requestAdapter();
  if (!adapter) fail(EXIT_GPU, 'no WebGPU adapter (on a machine without a GPU set VK_ICD_FILENAMES to SwiftShader)');
  // The defaults (8 storage buffers, 128 MiB bindings) are often too small: ask for the adapter's.
  const want = ['maxStorageBuffersPerShaderStage', 'maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupsPerDimension', 'maxUniformBufferBindingSize'];
  const requiredLimits = Object.fromEntries(want.map((k) => [k, adapter.limits[k]]));
  const device = await adapter.requestDevice({ requiredLimits });
  device.lost.then((info) => {
    if (info.reason !== 'destroyed') fail(EXIT_GPU, `device lost (${info.reason}): ${info.message}`);
  });
  device.addEventListener?.('uncapturederror', (e) => fail(EXIT_GPU, `uncaptured WebGPU error: ${e.error.message}`));
  const info = adapter.info ?? {};
  return { device, limits: device.limits, description: [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') };
}

// Runs `fn` inside validation and out-of-memory error scopes; fails naming `what` on an error.
export async function scoped(device, what, fn, fail) {
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  const result = fn();
  const validation = await device.popErrorScope();
  const oom = await device.popErrorScope();
  const err = validation ?? oom;
  if (err) fail(EXIT_GPU, `WebGPU error while ${what}: ${err.message}`);
  return result;
}

// Launch protocol step 1: module, bind group layouts, pipelines. Tint's messages go to stderr.
export async function createPipelines(device, m, code, wgslPath, fail) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ label: m.name, code });
  const info = await module.getCompilationInfo();
  const moduleError = await device.popErrorScope();
  const errors = info.messages.filter((msg) => msg.type === 'error');
  for (const msg of info.messages) {
    if (msg.type !== 'info') process.stderr.write(`tint: ${wgslPath}:${msg.lineNum}:${msg.linePos}: ${msg.type}: ${msg.message}\n`);
  }
  if (errors.length || moduleError) {
    if (moduleError && !errors.length) process.stderr.write(`${moduleError.message}\n`);
    fail(EXIT_GPU, `Tint rejected ${wgslPath} (${errors.length} error(s))`);
  }

  const kind = { read: 'read-only-storage', read_write: 'storage', uniform: 'uniform' };
  const groups = Math.max(-1, ...m.bindings.map((b) => b.group)) + 1;
  const layouts = await scoped(device, 'creating the bind group layouts', () => {
    const out = [];
    for (let g = 0; g < groups; g++) {
      out.push(device.createBindGroupLayout({
        label: `${m.name} group ${g}`,
        entries: m.bindings.filter((b) => b.group === g).map((b) => ({
          binding: b.binding,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: kind[b.access], hasDynamicOffset: false, minBindingSize: 0 },
        })),
      }));
    }
    return out;
  }, fail);
  const layout = device.createPipelineLayout({ label: m.name, bindGroupLayouts: layouts });
  // Asynchronously, all at once: a browser's first synchronous compile blocks its thread for
  // seconds (docs/manifest.md, step 1). The partitioned schedule's kernels run after every
  // launch of `main`, in this order.
  const entries = [m.entry_points.init, m.entry_points.main, ...(m.entry_points.dispatches ?? []).map((d) => d.entry_point)];
  let pipelines;
  try {
    pipelines = await Promise.all(entries.map((entryPoint) => device.createComputePipelineAsync({ label: `${m.name} ${entryPoint}`, layout, compute: { module, entryPoint } })));
  } catch (e) {
    fail(EXIT_GPU, `WebGPU error while creating the pipelines: ${e.message}`);
  }
  const [init, main, ...kernels] = pipelines;
  const dispatches = kernels.map((pipeline, j) => ({ pipeline, args: m.entry_points.dispatches[j].indirect_args }));
  return { layouts, init, main, dispatches };
}

// The indirect buffer's size: three words for `main`, then three for each of the partitioned
// schedule's dispatches (`entry_points.dispatches`, absent for the megakernel schedule).
export function indirectBytes(m) {
  return 12 * (1 + (m.entry_points.dispatches ?? []).length);
}

// One launch: `main`, then each dispatch in order, each after a copy of its own three indirect
// words from the control block (docs/manifest.md, the launch protocol, step 5).
export function recordLaunch(enc, m, pipelines, run) {
  const kernels = [{ pipeline: pipelines.main, args: m.executor.control.indirect_args }, ...pipelines.dispatches];
  kernels.forEach((k, j) => {
    enc.copyBufferToBuffer(run.control, k.args * 4, run.indirect, 12 * j, 12);
    const pass = enc.beginComputePass({ label: 'dyngc kernel' });
    pass.setPipeline(k.pipeline);
    run.bindGroups.forEach((bg, g) => pass.setBindGroup(g, bg));
    pass.dispatchWorkgroupsIndirect(run.indirect, 12 * j);
    pass.end();
  });
}
