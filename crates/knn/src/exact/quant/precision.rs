//! [`Precision`], the arithmetic of a search's scan, and [`Precision::resolve`]: what runs on
//! this CPU for a precision asked for (`Auto`: `f32` where nothing else can run, else a
//! measurement's choice; an explicit reduced precision without a kernel that beats `f32`:
//! `f32`, with a note).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::QuantKernel;
use crate::error::{Error, Result};

/// Arithmetic of the exact search's scan. Results are the same for all: reduced precisions
/// only change how fast the candidates are found (see the module docs of the certified
/// re-rank).
///
/// What runs depends on the CPU ([`Precision::resolve`]): `Auto` takes the exact path measured
/// fastest on this CPU for the search at hand ([`crate::exact::auto`]), and an explicit `Bf16` or `Int8` with automatic kernel choice runs in `f32`
/// where the CPU has no kernel that makes it faster (saying so in the run's
/// [`crate::Certification`]); a kernel forced with [`crate::ExactParams::kernel`] runs the precision
/// asked for whatever its speed (how the tests reach every kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Precision {
    /// The exact path measured fastest on this CPU ([`crate::exact::auto`]): each path is
    /// timed on a sample of the search (or read from the cache of an earlier measurement),
    /// and `f32` runs unless another is more than 5% faster, and for searches too small to
    /// repay a measurement.
    #[default]
    Auto,
    /// Scan in `f32` (the reference; no re-rank needed).
    F32,
    /// Scan a bfloat16 copy (`VDPBF16PS` where the CPU has AVX512-BF16), then re-rank in `f32`.
    Bf16,
    /// Scan an int8 copy with a scale per vector (`VPDPBUSD` where the CPU has AVX512-VNNI or
    /// AVX-VNNI, `SDOT` on aarch64 with the dot-product extension), then re-rank in `f32`.
    Int8,
}

/// The precision a search runs at on this CPU ([`Precision::resolve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    /// The precision the scan runs at (`Auto`: chosen by measuring the search).
    pub precision: Precision,
    /// Why it is not the one asked for, when that was an explicit `bf16` or `int8`.
    pub note: Option<&'static str>,
}

impl Precision {
    /// The precision a search asked to run at `self` runs at with `kernel` (the parameters'
    /// choice, `Auto` or forced), ranked by `metric`. Reduced precision covers the inner
    /// product only. `Auto` resolves to `f32` where nothing else can run (the L2 metric, a
    /// forced kernel, a CPU without a SIMD reduced-precision scan) and otherwise stays `Auto`:
    /// the search then measures ([`crate::exact::auto::Tuner`]).
    #[must_use]
    pub fn resolve(self, kernel: crate::Kernel, metric: crate::Metric) -> Resolved {
        let run = |precision, note| Resolved { precision, note };
        let ip = metric == crate::Metric::InnerProduct;
        match self {
            Precision::F32 => run(Precision::F32, None),
            Precision::Auto => {
                let measure = ip
                    && kernel == crate::Kernel::Auto
                    && crate::exact::auto::candidates().len() > 1;
                run(
                    if measure {
                        Precision::Auto
                    } else {
                        Precision::F32
                    },
                    None,
                )
            }
            p if !ip => run(p, Some("reduced precision covers the inner product only")),
            p if kernel != crate::Kernel::Auto || QuantKernel::fast(p).is_some() => run(p, None),
            Precision::Bf16 => run(
                Precision::F32,
                Some("this CPU has no bf16 kernel faster than f32 (it needs AVX-512 BF16)"),
            ),
            _ => run(
                Precision::F32,
                Some(
                    "this CPU has no int8 kernel faster than f32 (it needs AVX-512 VNNI, \
                     AVX-VNNI or SDOT)",
                ),
            ),
        }
    }

    /// Candidates kept per query by the scan when `ExactParams::candidates` is 0: enough that
    /// the certificate usually holds at the first try on normalised embeddings.
    #[must_use]
    pub fn default_candidates(self, k: usize) -> usize {
        match self {
            Precision::F32 | Precision::Auto => k,
            Precision::Bf16 => (2 * k).max(k + 16),
            Precision::Int8 => (4 * k).max(k + 124),
        }
    }

    /// Bytes per value of the scanned copy (`Auto`: those of `f32`, the widest it may run at).
    #[must_use]
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 | Precision::Auto => 4,
            Precision::Bf16 => 2,
            Precision::Int8 => 1,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::Auto => "auto",
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
        })
    }
}

impl FromStr for Precision {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "fp32" | "float32" => Ok(Precision::F32),
            "bf16" | "bfloat16" => Ok(Precision::Bf16),
            "int8" | "i8" | "sq8" => Ok(Precision::Int8),
            "auto" => Ok(Precision::Auto),
            other => Err(Error::Invalid(format!(
                "unknown precision {other:?}: expected auto, f32, bf16 or int8"
            ))),
        }
    }
}
