//! Opening a device on a chosen backend, and the small helpers the hand-written baselines share:
//! buffers counted against a peak-memory meter, pipelines from WGSL, blocking readback.

use std::cell::Cell;

pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
}

/// Opens the first adapter of `backend` ("vulkan", "gl", "metal", "dx12", or "" for
/// `WGPU_BACKEND` / all).
pub fn open(backend: &str) -> Result<Gpu, String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = if backend.is_empty() {
        wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())
    } else {
        wgpu::Backends::from_comma_list(backend)
    };
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        ..Default::default()
    }))
    .map_err(|e| format!("no adapter for backends {:?}: {e}", desc_backends(backend)))?;
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("dyngc-bench"),
        required_features: wgpu::Features::empty(),
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .map_err(|e| format!("request_device on `{}` ({:?}): {e}", info.name, info.backend))?;
    let limits = device.limits();
    Ok(Gpu {
        device,
        queue,
        info,
        limits,
    })
}

fn desc_backends(backend: &str) -> String {
    if backend.is_empty() {
        std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "all".into())
    } else {
        backend.into()
    }
}

/// Counts the device memory a schedule holds: every buffer it creates through [`Mem::buffer`]
/// adds its size until [`Mem::free`].
#[derive(Default)]
pub struct Mem {
    cur: Cell<u64>,
    peak: Cell<u64>,
}

impl Mem {
    pub fn add(&self, bytes: u64) {
        self.cur.set(self.cur.get() + bytes);
        self.peak.set(self.peak.get().max(self.cur.get()));
    }
    pub fn peak(&self) -> u64 {
        self.peak.get()
    }
    pub fn free(&self, b: wgpu::Buffer) {
        self.cur.set(self.cur.get().saturating_sub(b.size()));
        b.destroy();
    }
}

pub const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

impl Gpu {
    /// A storage buffer of `bytes` (rounded up to 4, at least 4), zeroed; an error if the device
    /// cannot hold it.
    pub fn buffer(&self, mem: &Mem, label: &str, bytes: u64) -> Result<wgpu::Buffer, String> {
        let size = bytes.max(4).div_ceil(4) * 4;
        if size > self.limits.max_buffer_size || size > self.limits.max_storage_buffer_binding_size {
            return Err(format!(
                "`{label}` needs {size} bytes; the device allows {} per buffer and {} per binding",
                self.limits.max_buffer_size, self.limits.max_storage_buffer_binding_size
            ));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: STORAGE,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("allocating `{label}` ({size} bytes): {e}"));
        }
        mem.add(size);
        Ok(b)
    }

    pub fn upload(&self, mem: &Mem, label: &str, data: &[u8]) -> Result<wgpu::Buffer, String> {
        let b = self.buffer(mem, label, data.len() as u64)?;
        if !data.is_empty() {
            self.queue.write_buffer(&b, 0, data);
        }
        Ok(b)
    }

    pub fn uniform(&self, words: &[u32]) -> wgpu::Buffer {
        let mut w = words.to_vec();
        w.resize(w.len().max(8).div_ceil(8) * 8, 0);
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("params"),
            size: w.len() as u64 * 4,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&b, 0, &words_bytes(&w));
        b
    }

    /// Compute pipelines for every named entry point of `wgsl`, with layouts derived from it.
    pub fn pipelines(&self, wgsl: &str, entries: &[&str]) -> Result<Vec<wgpu::ComputePipeline>, String> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        });
        let ps = entries
            .iter()
            .map(|e| {
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(e),
                    layout: None,
                    module: &module,
                    entry_point: Some(e),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("pipeline creation: {e}"));
        }
        Ok(ps)
    }

    /// Records one dispatch of `pipeline` with group 0 bound to `buffers` (binding i = buffers[i]),
    /// enough workgroups of 256 for `threads` (2-D when past the per-dimension limit).
    pub fn dispatch(
        &self,
        enc: &mut wgpu::CommandEncoder,
        p: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        threads: u64,
    ) {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &p.get_bind_group_layout(0),
            entries: &entries,
        });
        let groups = threads.div_ceil(256).max(1);
        let max = self.limits.max_compute_workgroups_per_dimension as u64;
        let x = groups.min(max.min(65535));
        let y = groups.div_ceil(x);
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(x as u32, y as u32, 1);
    }

    pub fn submit_wait(&self, enc: wgpu::CommandEncoder) {
        let i = self.queue.submit([enc.finish()]);
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(i),
                timeout: None,
            })
            .expect("poll");
    }

    /// Flushes pending writes and waits for the queue to be idle.
    pub fn idle(&self) {
        let i = self.queue.submit([]);
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(i),
                timeout: None,
            })
            .expect("poll");
    }

    /// Reads `bytes` bytes from `b` at `offset` (blocking), after submitting `enc` if given.
    pub fn read(&self, b: &wgpu::Buffer, offset: u64, bytes: u64, enc: Option<wgpu::CommandEncoder>) -> Vec<u32> {
        let size = bytes.max(4).div_ceil(4) * 4;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = enc.unwrap_or_else(|| self.device.create_command_encoder(&Default::default()));
        enc.copy_buffer_to_buffer(b, offset, &staging, 0, size);
        let i = self.queue.submit([enc.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(i),
                timeout: None,
            })
            .expect("poll");
        let v = staging.get_mapped_range(..).expect("mapped").to_vec();
        staging.unmap();
        v.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    pub fn read_all(&self, b: &wgpu::Buffer) -> Vec<u32> {
        self.read(b, 0, b.size(), None)
    }
}

pub fn words_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}
