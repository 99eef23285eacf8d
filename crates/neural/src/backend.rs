//! Backends: which burn device runs a model, and on how many threads.
//!
//! burn 0.22 picks its backend at run time through a [`Device`]. bitext defaults to
//! **Flex**, burn's pure-Rust CPU backend (SIMD kernels, `gemm` matrix products, rayon threads),
//! which measured about twice as fast as burn-ndarray on this project's recurrent models (see
//! `docs/BENCHMARKS.md`). burn-ndarray (feature `ndarray`), wgpu (feature `wgpu`: a GPU; a
//! software renderer such as Mesa's llvmpipe only with `BITEXT_WGPU_SOFTWARE=1`, and without
//! any adapter [`Error::BackendUnusable`], not a panic) and CUDA (feature `cuda`: an NVIDIA
//! GPU through the driver's libcuda and NVRTC, both loaded at run time; without them
//! [`Error::BackendUnusable`]) are opt-in.
//!
//! Threads: Flex runs its large matrix products and row-wise kernels on the current rayon pool.
//! [`Threads`] runs a closure on a pool of a given size (`0` = one thread per core), so that the
//! same code can be measured on one thread and on all cores.
//!
//! Memory: [`tune_allocator`] makes glibc keep and reuse the large blocks that burn allocates
//! and frees at every operation (a program calls it once, at its start).

use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Which burn backend runs a model (serialised as `{"type": "flex"}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum BackendSpec {
    /// burn-flex, pure-Rust CPU backend (the default; multi-threaded through rayon).
    #[default]
    Flex,
    /// burn-ndarray CPU backend (deprecated by burn, kept for comparison; feature `ndarray`).
    Ndarray,
    /// wgpu (Vulkan/Metal/DX12/GL; feature `wgpu`).
    Wgpu,
    /// CUDA (NVIDIA GPUs; feature `cuda`).
    Cuda,
}

impl From<bitext_encode::Backend> for BackendSpec {
    fn from(b: bitext_encode::Backend) -> Self {
        match b {
            bitext_encode::Backend::Ndarray => Self::Ndarray,
            bitext_encode::Backend::Wgpu => Self::Wgpu,
            bitext_encode::Backend::Cuda => Self::Cuda,
            _ => Self::Flex,
        }
    }
}

impl BackendSpec {
    /// Parse a backend name as given on a command line (`flex`, `ndarray`, `wgpu`, `cuda`).
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown name.
    pub fn parse(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "flex" | "cpu" => Ok(Self::Flex),
            "ndarray" => Ok(Self::Ndarray),
            "wgpu" | "gpu" => Ok(Self::Wgpu),
            "cuda" => Ok(Self::Cuda),
            other => Err(Error::Config(format!(
                "unknown backend {other:?} (expected flex, ndarray, wgpu or cuda)"
            ))),
        }
    }

    /// The backend's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Flex => "flex",
            Self::Ndarray => "ndarray",
            Self::Wgpu => "wgpu",
            Self::Cuda => "cuda",
        }
    }

    /// The inference device (no gradients).
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] when the backend's feature is off;
    /// [`Error::BackendUnusable`] when wgpu finds no adapter it can compute on, or CUDA no
    /// driver, NVRTC or GPU.
    pub fn device(self) -> Result<Device> {
        match self {
            Self::Flex => Ok(Device::flex()),
            #[cfg(feature = "ndarray")]
            #[allow(deprecated)]
            Self::Ndarray => Ok(Device::ndarray()),
            #[cfg(not(feature = "ndarray"))]
            Self::Ndarray => Err(Error::BackendUnavailable {
                backend: "ndarray",
                feature: "ndarray",
            }),
            #[cfg(feature = "wgpu")]
            Self::Wgpu => wgpu_device(),
            #[cfg(not(feature = "wgpu"))]
            Self::Wgpu => Err(Error::BackendUnavailable {
                backend: "wgpu",
                feature: "wgpu",
            }),
            #[cfg(feature = "cuda")]
            Self::Cuda => cuda_device(),
            #[cfg(not(feature = "cuda"))]
            Self::Cuda => Err(Error::BackendUnavailable {
                backend: "cuda",
                feature: "cuda",
            }),
        }
    }

    /// The training device (the inference device with automatic differentiation).
    ///
    /// # Errors
    /// As [`BackendSpec::device`].
    pub fn autodiff_device(self) -> Result<Device> {
        Ok(self.device()?.autodiff())
    }
}

/// The wgpu device, once a tiny tensor has made the round trip to it and back (see
/// [`probed`]); before that, wgpu's adapters are checked ([`wgpu_adapters_usable`]).
#[cfg(feature = "wgpu")]
fn wgpu_device() -> Result<Device> {
    static PROBE: std::sync::OnceLock<std::result::Result<(), String>> = std::sync::OnceLock::new();
    probed(
        "wgpu",
        Device::wgpu(burn::tensor::DeviceKind::DefaultDevice),
        &PROBE,
        wgpu_adapters_usable,
    )
}

/// The first CUDA device, once a tiny tensor has made the round trip (see [`probed`]). Without
/// the driver's libcuda, NVRTC or a GPU, cubecl-cuda panics at its first use; that becomes
/// [`Error::BackendUnusable`] with its reason.
#[cfg(feature = "cuda")]
fn cuda_device() -> Result<Device> {
    static PROBE: std::sync::OnceLock<std::result::Result<(), String>> = std::sync::OnceLock::new();
    probed("cuda", Device::cuda(0), &PROBE, || {
        cubecl_defaults();
        Ok(())
    })
}

/// The names under which CubeCL looks for its configuration, in the working directory and
/// every directory above it (a `[cubecl]` section of `burn.toml` counts too).
#[cfg(feature = "cuda")]
const CUBECL_CONFIG_FILES: [&str; 4] = ["cubecl.toml", "CubeCL.toml", "burn.toml", "Burn.toml"];

/// Give CubeCL bitext's settings, unless a CubeCL configuration file (see
/// [`CUBECL_CONFIG_FILES`]) in the working directory or above it says otherwise, in which case
/// CubeCL reads that file as usual. bitext's settings differ from CubeCL's defaults in two ways:
///
/// - **compiled kernels are kept on disk** (CubeCL's compilation cache, off by default): on
///   CUDA every kernel is CUDA C++ compiled by NVRTC at run time, and a training step of the
///   recurrent models compiles hundreds; with the cache a second process loads them;
/// - the cache (compiled kernels and autotune results) is in the user's cache directory
///   (`~/.cache/cubecl` on Linux), not under the outermost `Cargo.toml` above the working
///   directory, so that every run of an installed `bitext` shares it.
///
/// CubeCL's environment variables (`CUBECL_AUTOTUNE_LEVEL`, `CUBECL_DEBUG_LOG`, …) apply on
/// top, as they do to a file. Returns whether bitext's settings were installed: `false` when a
/// file was found, or when the runtime had already read its configuration (a GPU tensor made
/// earlier in the process).
#[cfg(feature = "cuda")]
pub(crate) fn cubecl_defaults() -> bool {
    use cubecl_runtime::config::cache::CacheConfig;
    use cubecl_runtime::config::{CubeClRuntimeConfig, RuntimeConfig};
    if let Ok(dir) = std::env::current_dir()
        && dir
            .ancestors()
            .any(|d| CUBECL_CONFIG_FILES.iter().any(|f| d.join(f).is_file()))
    {
        return false;
    }
    let mut config = CubeClRuntimeConfig::default();
    config.compilation.cache = true;
    config.environment.path = CacheConfig::Global;
    CubeClRuntimeConfig::try_set(config.override_from_env())
}

/// `device` once `check` has passed and a 2 × 2 product has made the round trip to it and back.
/// Without a usable device (no GPU, no driver, or a software renderer whose buffers are too
/// small) the GPU runtimes panic at their first allocation, deep inside burn; the probe turns
/// that into [`Error::BackendUnusable`] with the runtime's reason, once per process (`cell`),
/// before any model is built.
#[cfg(any(feature = "wgpu", feature = "cuda"))]
fn probed(
    backend: &'static str,
    device: Device,
    cell: &std::sync::OnceLock<std::result::Result<(), String>>,
    check: fn() -> std::result::Result<(), String>,
) -> Result<Device> {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let probe = cell.get_or_init(|| {
        check()?;
        let d = device.clone();
        // The runtime's panic is reported as the error below; the default hook would also
        // print it. A runtime may fail on its own thread first (CUDA without libcuda), so the
        // first panic message of any thread is kept: it names the cause.
        let first: std::sync::Arc<std::sync::Mutex<Option<String>>> = std::sync::Arc::default();
        let seen = first.clone();
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let mut slot = seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if slot.is_none() {
                *slot = Some(panic_text(info.payload()));
            }
        }));
        let round_trip = catch_unwind(AssertUnwindSafe(move || {
            let t = crate::init::float2(vec![1.0, 2.0, 3.0, 4.0], [2, 2], &d);
            crate::init::to_host2(t.clone().matmul(t))
        }));
        std::panic::set_hook(hook);
        let first = first
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        match round_trip {
            Ok(Ok((v, _))) if v == [7.0, 10.0, 15.0, 22.0] => Ok(()),
            Ok(Ok((v, _))) => Err(format!("a 2 × 2 product came back wrong: {v:?}")),
            Ok(Err(e)) => Err(first.unwrap_or_else(|| e.to_string())),
            Err(panic) => Err(first.unwrap_or_else(|| panic_text(panic.as_ref()))),
        }
    });
    match probe {
        Ok(()) => Ok(device),
        Err(reason) => Err(Error::BackendUnusable {
            backend,
            reason: reason.clone(),
        }),
    }
}

/// The first line of a panic's message (`String` or `&str` payloads).
#[cfg(any(feature = "wgpu", feature = "cuda"))]
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_else(|| "the GPU runtime panicked".into())
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Whether wgpu has an adapter worth computing on: none at all, or only software renderers
/// (Mesa's llvmpipe through OpenGL on a machine without a GPU, which wgpu would otherwise take,
/// orders of magnitude slower than Flex) is an error that names them. `BITEXT_WGPU_SOFTWARE=1`
/// accepts a software renderer all the same.
#[cfg(feature = "wgpu")]
fn wgpu_adapters_usable() -> std::result::Result<(), String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapters: Vec<wgpu::AdapterInfo> =
        block_on(instance.enumerate_adapters(wgpu::Backends::all()))
            .iter()
            .map(wgpu::Adapter::get_info)
            .collect();
    if adapters.is_empty() {
        return Err("wgpu finds no adapter (no Vulkan, Metal, DX12 or OpenGL driver)".into());
    }
    let software = adapters
        .iter()
        .all(|a| a.device_type == wgpu::DeviceType::Cpu);
    if software && std::env::var_os("BITEXT_WGPU_SOFTWARE").is_none_or(|v| v != "1") {
        let names: Vec<String> = adapters
            .iter()
            .map(|a| format!("{} through {:?}", a.name, a.backend))
            .collect();
        return Err(format!(
            "wgpu finds only software renderers ({}), far slower than the CPU backend; \
             BITEXT_WGPU_SOFTWARE=1 uses them anyway",
            names.join(", ")
        ));
    }
    Ok(())
}

/// Run a future to completion on this thread (wgpu's native futures are ready at once or soon).
#[cfg(feature = "wgpu")]
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

impl std::fmt::Display for BackendSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A number of worker threads for the CPU backends: `0` means one per core (rayon's global
/// pool), any other value a dedicated pool of that size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Threads(pub usize);

impl Threads {
    /// Threads that `0` stands for on this machine.
    #[must_use]
    pub fn available() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// Run `f` with this many threads serving burn's (and bitext's) rayon work.
    ///
    /// # Errors
    /// [`Error::Config`] when the pool cannot be built; otherwise what `f` returns.
    pub fn install<T: Send>(self, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
        if self.0 == 0 {
            return f();
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.0)
            .thread_name(|i| format!("bitext-neural-{i}"))
            .build()
            .map_err(|e| Error::Config(format!("cannot start {} threads: {e}", self.0)))?;
        pool.install(f)
    }
}

/// Make the C allocator reuse large freed blocks instead of returning them to the system
/// (glibc on Linux; elsewhere nothing happens and `false` is returned).
///
/// burn allocates a fresh buffer for most results, many of them megabytes (an embedding
/// gradient of 40,000 × 512 is 80 MB). By default glibc serves such requests with freshly
/// mapped pages (always above 32 MiB, and on worker threads above their arena's 64 MiB heap)
/// and unmaps them on free, so every training step pays page faults and the kernel clearing
/// pages: 15–20% of a siamese training step in `perf` on this project's machine. This sets no
/// mapping of large blocks (`M_MMAP_MAX` = 0) and no trimming of the heap below 2 GiB free
/// (`M_TRIM_THRESHOLD`), so freed blocks are reused, and one arena per core (`M_ARENA_MAX`,
/// glibc's default being 8 per core), so that each arena's heap is reused in turn. Measured:
/// siamese training +19–28% (`docs/BENCHMARKS.md`). The cost: the process keeps its peak heap
/// until it exits.
///
/// One arena for the whole process, as this set before, serialised the threads of a batch cut
/// into pieces on their allocator lock: on 16 cores, 16 pieces with one arena trained slower
/// than the batch whole, and 8 pieces with an arena per core 2.4× faster (docs/BENCHMARKS.md,
/// "Batches in pieces, on 2 and 16 cores"). Where the environment sets glibc's own
/// `MALLOC_ARENA_MAX`, the arena count is left to it (glibc has read it at start-up).
///
/// The setting is process-wide: call it once at the start of a program, before other
/// threads start. bitext's command line, examples and `cargo xtask` do. Returns whether all
/// three settings were accepted.
pub fn tune_allocator() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let arenas_from_env = std::env::var_os("MALLOC_ARENA_MAX").is_some();
        let arenas = std::thread::available_parallelism()
            .map_or(1, |n| i32::try_from(n.get()).unwrap_or(i32::MAX));
        #[allow(unsafe_code)]
        // SAFETY: `mallopt` only adjusts glibc's allocator parameters (under its own lock);
        // the values are in the documented ranges.
        let ok = unsafe {
            [
                if arenas_from_env {
                    1
                } else {
                    libc::mallopt(libc::M_ARENA_MAX, arenas)
                },
                libc::mallopt(libc::M_MMAP_MAX, 0),
                libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX),
            ]
        };
        ok.iter().all(|&r| r == 1)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_round_trips_through_serde_and_names() {
        for b in [
            BackendSpec::Flex,
            BackendSpec::Ndarray,
            BackendSpec::Wgpu,
            BackendSpec::Cuda,
        ] {
            let j = serde_json::to_string(&b).unwrap();
            assert_eq!(serde_json::from_str::<BackendSpec>(&j).unwrap(), b);
            assert_eq!(BackendSpec::parse(b.name()).unwrap(), b);
        }
        assert_eq!(
            serde_json::to_string(&BackendSpec::Flex).unwrap(),
            r#"{"type":"flex"}"#
        );
        assert!(BackendSpec::parse("tpu").is_err());
    }

    #[test]
    fn allocator_tuning_is_accepted_on_glibc() {
        assert_eq!(
            tune_allocator(),
            cfg!(all(target_os = "linux", target_env = "gnu"))
        );
        // Large blocks still allocate, free and reuse.
        for _ in 0..3 {
            let v = vec![1.0f32; 20 << 20];
            assert_eq!(v[(20 << 20) - 1], 1.0);
        }
    }

    #[test]
    fn flex_is_available_and_threads_install() {
        assert!(BackendSpec::Flex.device().is_ok());
        let n = Threads(1)
            .install(|| Ok(rayon::current_num_threads()))
            .unwrap();
        assert_eq!(n, 1);
    }

    /// With or without a GPU, asking for wgpu never panics: a device that computes, or an
    /// error that says why not (and the answer does not change within a process).
    #[cfg(feature = "wgpu")]
    #[test]
    fn wgpu_is_a_device_or_a_clear_error() {
        let first = BackendSpec::Wgpu.device();
        match &first {
            Ok(_) => {}
            Err(e) => {
                assert!(matches!(e, Error::BackendUnusable { .. }), "{e}");
                assert!(e.to_string().contains("--backend flex"), "{e}");
            }
        }
        assert_eq!(BackendSpec::Wgpu.device().is_ok(), first.is_ok());
    }

    /// With or without an NVIDIA GPU, asking for CUDA never panics: a device that computes, or
    /// an error that says why not.
    #[cfg(feature = "cuda")]
    #[test]
    fn cuda_is_a_device_or_a_clear_error() {
        let first = BackendSpec::Cuda.device();
        if let Err(e) = &first {
            assert!(matches!(e, Error::BackendUnusable { .. }), "{e}");
            assert!(e.to_string().contains("--backend flex"), "{e}");
        }
        assert_eq!(BackendSpec::Cuda.device().is_ok(), first.is_ok());
        // Whether or not a GPU answered, CubeCL now has bitext's settings (no CubeCL
        // configuration file lies above the test's working directory, the crate's root).
        use cubecl_runtime::config::cache::CacheConfig;
        use cubecl_runtime::config::{CubeClRuntimeConfig, RuntimeConfig};
        let config = CubeClRuntimeConfig::get();
        assert!(config.compilation.cache);
        assert!(matches!(config.environment.path, CacheConfig::Global));
        // Installed once: a second call finds the configuration already read.
        assert!(!cubecl_defaults());
    }
}
