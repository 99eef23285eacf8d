//! The CUDA compiler: CubeCL kernels transpiled to CUDA C++ and compiled by NVRTC.
//!
//! bitext's copy of cubecl-cuda 0.11.3 keeps only this backend. The upstream crate also links
//! an LLVM/pliron backend whose build script downloads an LLVM bundle from GitHub, which an
//! offline build cannot do; see `vendor/README.md`.

use cubecl_core::ir::nvidia::SmArch;
use cubecl_core::prelude::KernelDefinition;
use cubecl_cpp::shared::CompilationOptions;
use cubecl_cpp::{ComputeKernel, shared::CppCompiler, target::Cuda};
use cubecl_server::compiler::{CompilationError, Compiler};
use cubecl_server::kernel::BufferIOAttr;

use crate::ptx_version::PtxVersion;

/// Which backend turns a `KernelDefinition` into something the CUDA driver can load.
///
/// Only [`CudaBackend::Cpp`] exists in this build; `Llvm` stays as a name so that the PTX
/// cache's namespaces match upstream's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CudaBackend {
    /// Transpile to CUDA C++ and hand the source to NVRTC.
    #[default]
    Cpp,
    /// Lower through pliron and LLVM to PTX (not built here).
    #[allow(dead_code)]
    Llvm,
}

/// The CUDA C++ compiler.
#[derive(Clone, Debug, Default)]
pub struct CudaCompiler(CppCompiler<Cuda>);

impl CudaCompiler {
    /// The compiler; every backend is the C++ one in this build.
    pub fn new(_backend: CudaBackend) -> Self {
        Self::default()
    }
}

/// Options for the compiler. `arch` is a device property, filled in by the runtime.
#[derive(Debug, Default, Clone)]
pub struct CudaCompilationOptions {
    pub cpp: CompilationOptions,
    /// The device, as the runtime read its compute capability.
    pub arch: Option<SmArch>,
    /// The newest PTX version the driver loads (read by upstream's LLVM backend only).
    pub ptx_version: Option<PtxVersion>,
}

/// A compiled kernel: CUDA C++ source for NVRTC.
pub enum CudaRepresentation {
    Cpp(ComputeKernel),
}

impl core::fmt::Debug for CudaRepresentation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CudaRepresentation::Cpp")
    }
}

impl CudaRepresentation {
    /// Shared memory the launch must reserve (`sharedMemBytes`).
    pub fn shared_memory_size(&self) -> usize {
        match self {
            CudaRepresentation::Cpp(kernel) => kernel.shared_memory_size,
        }
    }
}

impl core::fmt::Display for CudaRepresentation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CudaRepresentation::Cpp(kernel) => write!(f, "{kernel}"),
        }
    }
}

impl Compiler for CudaCompiler {
    type Representation = CudaRepresentation;
    type CompilationOptions = CudaCompilationOptions;

    fn buffer_io(repr: &Self::Representation) -> Option<Vec<BufferIOAttr>> {
        match repr {
            CudaRepresentation::Cpp(kernel) => <CppCompiler<Cuda> as Compiler>::buffer_io(kernel),
        }
    }

    fn compile(
        &mut self,
        kernel: KernelDefinition,
        options: &Self::CompilationOptions,
    ) -> Result<Self::Representation, CompilationError> {
        Ok(CudaRepresentation::Cpp(self.0.compile(kernel, &options.cpp)?))
    }

    fn extension(&self) -> &'static str {
        self.0.extension()
    }

    fn lang_tag(&self) -> &'static str {
        self.0.lang_tag()
    }
}
