//! What the Vulkan driver compiled a WGSL compute shader into: registers per invocation, shared
//! and local memory, and whatever else the driver reports through
//! `VK_KHR_pipeline_executable_properties`, plus the occupancy those imply on an NVIDIA SM.
//!
//! The shader goes through naga's SPIR-V backend with the options wgpu's Vulkan backend uses
//! (bounds checks, loop bounding, integer-division checks), one entry point at a time, as wgpu
//! compiles it. No GPU profiler reaches the bench machine; this is the counter that does.
//!
//! `vk-pipeline-stats FILE.wgsl [--no-loop-bounding] [--cache-dump DIR]` prints one block per
//! compute entry point; with `--cache-dump`, it also writes the driver's pipeline cache after each
//! entry point's pipeline to `DIR/ENTRY.cache` (on NVIDIA, a zstd frame holding the machine
//! code, which `bench/h200/s23/disasm.py` cuts out and disassembles with `nvdisasm`).

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::process::ExitCode;

use ash::vk;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--cache-dump"))
        .map(|(_, a)| a)
    else {
        eprintln!("usage: vk-pipeline-stats FILE.wgsl [--no-loop-bounding] [--cache-dump DIR]");
        return ExitCode::from(2);
    };
    let loop_bounding = !args.iter().any(|a| a == "--no-loop-bounding");
    let cache_dump = args
        .iter()
        .position(|a| a == "--cache-dump")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    match run(path, loop_bounding, cache_dump.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: &str, loop_bounding: bool, cache_dump: Option<&std::path::Path>) -> Result<(), String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| format!("{path}: {}", e.emit_to_string(&source)))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| format!("{path}: {}", e.emit_to_string(&source)))?;
    let gpu = Gpu::open()?;
    println!("device: {}", gpu.name);
    let layout = gpu.pipeline_layout(&module)?;
    for entry in module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
    {
        let words = spirv(&module, &info, &entry.name, loop_bounding)?;
        println!(
            "entry point {} (workgroup size {:?}):",
            entry.name, entry.workgroup_size
        );
        let (stats, cache) = gpu.statistics(layout, &words, &entry.name)?;
        if let Some(dir) = cache_dump {
            let file = dir.join(format!("{}.cache", entry.name));
            std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(&file, &cache))
                .map_err(|e| format!("{}: {e}", file.display()))?;
            println!("  pipeline cache: {} ({} bytes)", file.display(), cache.len());
        }
        for (name, value) in &stats {
            println!("  {name}: {value}");
        }
        let threads: u32 = entry.workgroup_size.iter().product();
        if let Some(registers) = stats.get("Register Count").and_then(|v| v.parse().ok()) {
            println!(
                "  resident workgroups per SM by registers (65,536 per SM, 64 warps): {}",
                workgroups_by_registers(registers, threads)
            );
        }
    }
    Ok(())
}

/// How many workgroups of `threads` invocations fit one SM's register file when each invocation
/// holds `registers`: NVIDIA allocates per warp, in units of 256 registers, and runs at most 64
/// warps per SM (Hopper).
fn workgroups_by_registers(registers: u32, threads: u32) -> u32 {
    let per_warp = (registers * 32).div_ceil(256) * 256;
    let warps_per_group = threads.div_ceil(32);
    let warps = (65_536 / per_warp.max(1)).min(64);
    warps / warps_per_group.max(1)
}

/// The module as wgpu 30's Vulkan backend writes it for one entry point
/// (wgpu-hal/src/vulkan/adapter.rs, `naga_options`).
fn spirv(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry_point: &str,
    loop_bounding: bool,
) -> Result<Vec<u32>, String> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let options = spv::Options {
        lang_version: (1, 6),
        bounds_check_policies: BoundsCheckPolicies {
            index: BoundsCheckPolicy::Restrict,
            buffer: BoundsCheckPolicy::Unchecked,
            image_load: BoundsCheckPolicy::Unchecked,
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Native,
        force_loop_bounding: loop_bounding,
        emit_int_div_checks: true,
        ..spv::Options::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry_point.to_string(),
    };
    spv::write_vec(module, info, &options, Some(&pipeline)).map_err(|e| e.to_string())
}

struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    executables: ash::khr::pipeline_executable_properties::Device,
    name: String,
}

impl Gpu {
    fn open() -> Result<Gpu, String> {
        // SAFETY: loading the system's Vulkan loader; nothing else in this process uses it.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("Vulkan loader: {e}"))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance_info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a plain instance with no layers or extensions; destroyed in Drop.
        let instance =
            unsafe { entry.create_instance(&instance_info, None) }.map_err(|e| format!("vkCreateInstance: {e}"))?;
        // SAFETY: the instance is alive for these queries.
        let physical = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| format!("vkEnumeratePhysicalDevices: {e}"))?
            .into_iter()
            .next()
            .ok_or("no Vulkan device")?;
        // SAFETY: `physical` came from this instance.
        let properties = unsafe { instance.get_physical_device_properties(physical) };
        let name = properties
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // SAFETY: as above.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue")? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let extensions = [ash::khr::pipeline_executable_properties::NAME.as_ptr()];
        let mut executable_info =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default().pipeline_executable_info(true);
        let device_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .push_next(&mut executable_info);
        // SAFETY: the create info points at locals that outlive the call.
        let device = unsafe { instance.create_device(physical, &device_info, None) }
            .map_err(|e| format!("vkCreateDevice with VK_KHR_pipeline_executable_properties on {name}: {e}"))?;
        let executables = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
        Ok(Gpu {
            _entry: entry,
            instance,
            device,
            executables,
            name,
        })
    }

    /// One storage or uniform buffer descriptor per bound global, every set the module names.
    fn pipeline_layout(&self, module: &naga::Module) -> Result<vk::PipelineLayout, String> {
        let mut sets: BTreeMap<u32, Vec<vk::DescriptorSetLayoutBinding>> = BTreeMap::new();
        for (_, global) in module.global_variables.iter() {
            let Some(binding) = &global.binding else {
                continue;
            };
            let kind = match global.space {
                naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
                other => return Err(format!("a bound global in {other:?} is not supported")),
            };
            sets.entry(binding.group).or_default().push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding.binding)
                    .descriptor_type(kind)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        let count = sets.keys().last().map_or(0, |g| g + 1);
        let mut set_layouts = Vec::new();
        for group in 0..count {
            let bindings = sets.remove(&group).unwrap_or_default();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            // SAFETY: the device is alive; the layout lives as long as the process.
            let layout = unsafe { self.device.create_descriptor_set_layout(&info, None) }
                .map_err(|e| format!("vkCreateDescriptorSetLayout: {e}"))?;
            set_layouts.push(layout);
        }
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        // SAFETY: as above.
        unsafe { self.device.create_pipeline_layout(&info, None) }.map_err(|e| format!("vkCreatePipelineLayout: {e}"))
    }

    fn statistics(
        &self,
        layout: vk::PipelineLayout,
        words: &[u32],
        entry_point: &str,
    ) -> Result<(BTreeMap<String, String>, Vec<u8>), String> {
        let module_info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: the words are naga's validated SPIR-V.
        let shader = unsafe { self.device.create_shader_module(&module_info, None) }
            .map_err(|e| format!("vkCreateShaderModule: {e}"))?;
        let name = std::ffi::CString::new(entry_point).map_err(|e| e.to_string())?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(&name);
        let info = vk::ComputePipelineCreateInfo::default()
            .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR)
            .stage(stage)
            .layout(layout);
        // A fresh cache per pipeline, so that its data holds this entry point's code alone.
        // SAFETY: the device is alive; the cache is destroyed below.
        let cache = unsafe {
            self.device
                .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
        }
        .map_err(|e| format!("vkCreatePipelineCache: {e}"))?;
        // SAFETY: the shader module, layout and cache are alive for the call.
        let pipeline = unsafe { self.device.create_compute_pipelines(cache, &[info], None) }
            .map_err(|(_, e)| format!("vkCreateComputePipelines: {e}"))?[0];
        // SAFETY: the cache is alive.
        let cache_data = unsafe { self.device.get_pipeline_cache_data(cache) }
            .map_err(|e| format!("vkGetPipelineCacheData: {e}"))?;
        let mut out = BTreeMap::new();
        let pipeline_info = vk::PipelineInfoKHR::default().pipeline(pipeline);
        // SAFETY: the pipeline was created with CAPTURE_STATISTICS on a device with the feature.
        let executables = unsafe { self.executables.get_pipeline_executable_properties(&pipeline_info) }
            .map_err(|e| format!("vkGetPipelineExecutablePropertiesKHR: {e}"))?;
        for (index, executable) in executables.iter().enumerate() {
            let executable_info = vk::PipelineExecutableInfoKHR::default()
                .pipeline(pipeline)
                .executable_index(index as u32);
            // SAFETY: as above; the index comes from the driver's own list.
            let statistics = unsafe { self.executables.get_pipeline_executable_statistics(&executable_info) }
                .map_err(|e| format!("vkGetPipelineExecutableStatisticsKHR: {e}"))?;
            let prefix = if executables.len() > 1 {
                format!("{}: ", c_text(&executable.name))
            } else {
                String::new()
            };
            for statistic in &statistics {
                // SAFETY: the format says which member of the union the driver wrote.
                let value = unsafe {
                    match statistic.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (statistic.value.b32 != 0).to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => statistic.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => statistic.value.u64.to_string(),
                        _ => statistic.value.f64.to_string(),
                    }
                };
                out.insert(format!("{prefix}{}", c_text(&statistic.name)), value);
            }
        }
        // SAFETY: nothing uses the pipeline or the module after this.
        unsafe {
            self.device.destroy_pipeline(pipeline, None);
            self.device.destroy_pipeline_cache(cache, None);
            self.device.destroy_shader_module(shader, None);
        }
        Ok((out, cache_data))
    }
}

fn c_text(chars: &[std::ffi::c_char]) -> String {
    // SAFETY: the driver writes a NUL-terminated string into its fixed-size array.
    unsafe { CStr::from_ptr(chars.as_ptr()) }.to_string_lossy().into_owned()
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: nothing created from these outlives this value.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
