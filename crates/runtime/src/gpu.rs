//! Opening a device the way wgpu programs usually do: backends from `WGPU_BACKEND`, adapter by
//! `WGPU_ADAPTER_NAME` or power preference from `WGPU_POWER_PREF`, limits as high as the
//! adapter allows.

use crate::error::Error;

/// An opened device with what it came from.
#[derive(Debug)]
pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
}

const DRIVER_HINT: &str = "install a Vulkan driver for your GPU; without one, a CPU implementation works: \
install SwiftShader (it ships with Debian's `chromium` package) and set \
VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json";

/// The hint for a failed adapter request: what is missing, where that can be told (the Vulkan
/// loader library, a driver file named by the environment), then the general advice.
fn driver_hint() -> String {
    let mut missing = Vec::new();
    if !vulkan_loader_present() {
        missing.push(
            "the Vulkan loader `libvulkan.so.1` is not installed (Debian/Ubuntu package `libvulkan1`); \
             wgpu's Vulkan backend needs it even for SwiftShader"
                .to_string(),
        );
    }
    for var in ["VK_ICD_FILENAMES", "VK_DRIVER_FILES"] {
        if let Ok(files) = std::env::var(var) {
            for file in files.split(':').filter(|f| !f.is_empty()) {
                if !std::path::Path::new(file).exists() {
                    missing.push(format!("{var} names `{file}`, which does not exist"));
                }
            }
        }
    }
    if missing.is_empty() {
        DRIVER_HINT.to_string()
    } else {
        format!("{}; {DRIVER_HINT}", missing.join("; "))
    }
}

/// Whether the system Vulkan loader can be opened, as wgpu's Vulkan backend would open it.
fn vulkan_loader_present() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: loading the Vulkan loader runs only its initialisers, as wgpu itself does.
    return unsafe { libloading::Library::new("libvulkan.so.1") }.is_ok();
    #[cfg(not(target_os = "linux"))]
    true
}

/// Opens a device: the instance takes its backends from `WGPU_BACKEND` (all when unset) and its
/// flags from the environment; the adapter is the first whose name contains `WGPU_ADAPTER_NAME`
/// if that is set, else the one `WGPU_POWER_PREF` (default high performance) prefers. The device
/// gets the adapter's own limits, so the storage buffer, buffer size and storage-buffers-per-stage
/// limits are as high as the hardware allows.
pub async fn open_gpu() -> Result<Gpu, Error> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let backends = desc.backends;
    let instance = wgpu::Instance::new(desc);

    let adapter = match std::env::var("WGPU_ADAPTER_NAME") {
        Ok(wanted) if !wanted.is_empty() => {
            let adapters = instance.enumerate_adapters(backends).await;
            let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
            adapters
                .into_iter()
                .find(|a| a.get_info().name.to_lowercase().contains(&wanted.to_lowercase()))
                .ok_or_else(|| {
                    Error::NoAdapter(if names.is_empty() {
                        format!("no GPU adapter found (WGPU_ADAPTER_NAME={wanted}); {}", driver_hint())
                    } else {
                        format!(
                            "no GPU adapter's name contains `{wanted}` (WGPU_ADAPTER_NAME); adapters found: {}",
                            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                        )
                    })
                })?
        }
        _ => instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::from_env().unwrap_or(wgpu::PowerPreference::HighPerformance),
                force_fallback_adapter: false,
                compatible_surface: None,
                ..Default::default()
            })
            .await
            .map_err(|e| Error::NoAdapter(format!("no GPU adapter found ({e}); {}", driver_hint())))?,
    };
    let info = adapter.get_info();
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("dyngc"),
            required_features: wgpu::Features::empty(),
            required_limits: adapter.limits(),
            ..Default::default()
        })
        .await
        .map_err(|e| Error::RequestDevice(format!("{e} (adapter `{}`, {:?})", info.name, info.backend)))?;
    Ok(Gpu {
        instance,
        adapter,
        device,
        queue,
        info,
    })
}
