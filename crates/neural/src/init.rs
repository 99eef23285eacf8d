//! Seeded parameter initialisation and host↔tensor conversions.
//!
//! Parameters are drawn on the host with [`bitext_core::Rng`] and uploaded, instead of with
//! burn's backend generator (a process-wide static): the same seed then gives the same model on
//! every backend, thread count and test interleaving.

use bitext_core::Rng;
use burn::module::Param;
use burn::tensor::{Device, Int, Tensor, TensorData};

use crate::error::{Error, Result};

/// How to draw a weight matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Init {
    /// Uniform in `[-a, a]`.
    Uniform(f64),
    /// "Uniform unit scaling" (TensorFlow's default in Grégoire & Langlais): uniform in
    /// `±sqrt(3 / fan_in)`, which keeps the variance of `x·W` equal to that of `x`.
    UnitScaling,
    /// All zeros (biases).
    Zeros,
}

/// Draw `rows × cols` values (row-major); `fan_in` is `rows` (the input dimension of `x·W`).
pub(crate) fn draw(rng: &mut Rng, rows: usize, cols: usize, init: Init) -> Vec<f32> {
    let n = rows * cols;
    let a = match init {
        Init::Zeros => return vec![0.0; n],
        Init::Uniform(a) => a,
        Init::UnitScaling => (3.0 / rows.max(1) as f64).sqrt(),
    };
    (0..n).map(|_| rng.uniform(-a, a) as f32).collect()
}

/// A `[rows, cols]` parameter drawn with `init`.
pub(crate) fn param2(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    init: Init,
    device: &Device,
) -> Param<Tensor<2>> {
    let data = draw(rng, rows, cols, init);
    Param::from_tensor(Tensor::from_data(
        TensorData::new(data, [rows, cols]),
        device,
    ))
}

/// A `[len]` parameter drawn with `init`.
pub(crate) fn param1(rng: &mut Rng, len: usize, init: Init, device: &Device) -> Param<Tensor<1>> {
    let data = draw(rng, 1, len, init);
    Param::from_tensor(Tensor::from_data(TensorData::new(data, [len]), device))
}

/// A float tensor from host values.
pub(crate) fn float2(data: Vec<f32>, shape: [usize; 2], device: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(data, shape), device)
}

/// An integer tensor of indices from host values.
pub(crate) fn int1(data: &[usize], device: &Device) -> Tensor<1, Int> {
    let v: Vec<i64> = data.iter().map(|&x| x as i64).collect();
    let n = v.len();
    Tensor::from_data(TensorData::new(v, [n]), device)
}

/// Read a 2-D float tensor back to the host as row-major values.
///
/// # Errors
/// [`Error::BackendUnusable`] when the device failed to compute it (on wgpu, e.g. a buffer
/// larger than the adapter allows: a software renderer and a 128k-row embedding table);
/// [`Error::Input`] when the backend cannot hand the data back as `f32`.
pub(crate) fn to_host2(t: Tensor<2>) -> Result<(Vec<f32>, [usize; 2])> {
    let dims = t.dims();
    Ok((read_back(t.try_into_data())?, dims))
}

/// Read a 1-D float tensor back to the host.
///
/// # Errors
/// As [`to_host2`].
pub(crate) fn to_host1(t: Tensor<1>) -> Result<Vec<f32>> {
    read_back(t.try_into_data())
}

/// A backend's multi-line error as its first line and its innermost cause (the line that
/// says what went wrong, e.g. "can't allocate buffer of size: 262144000").
fn first_and_cause(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !(l.is_empty()
                || [
                    "Caused by:",
                    "Asked at:",
                    "Backtrace:",
                    "No backtrace available",
                ]
                .contains(l)
                || l.starts_with("skipped `")
                || l.starts_with('('))
        })
        .collect();
    match (lines.first(), lines.last()) {
        (Some(a), Some(b)) if a != b => format!("{a}: {b}"),
        (Some(a), _) => (*a).to_string(),
        _ => text.to_string(),
    }
}

fn read_back<E: std::fmt::Display>(data: std::result::Result<TensorData, E>) -> Result<Vec<f32>> {
    data.map_err(|e| Error::BackendUnusable {
        backend: "gpu",
        reason: first_and_cause(&e.to_string()),
    })?
    .try_into_vec::<f32>()
    .map_err(|e| Error::Input(format!("cannot read a tensor back: {e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backend_error_keeps_its_first_line_and_its_cause() {
        let text = "An error happened during execution\nCaused by:\n  Several failures\n  \
                    skipped `ElemwiseFuse`: it needed memory\nCaused by:\n  can't allocate \
                    buffer of size: 262144000\nNo backtrace available\nAsked at:\nNo backtrace available\n";
        assert_eq!(
            first_and_cause(text),
            "An error happened during execution: can't allocate buffer of size: 262144000"
        );
        assert_eq!(first_and_cause("one line"), "one line");
    }

    #[test]
    fn draws_are_seeded_and_bounded() {
        let a = draw(&mut Rng::seed(1), 12, 5, Init::UnitScaling);
        let b = draw(&mut Rng::seed(1), 12, 5, Init::UnitScaling);
        assert_eq!(a, b);
        let lim = (3.0f32 / 12.0).sqrt();
        assert!(a.iter().all(|x| x.abs() <= lim));
        assert!(
            draw(&mut Rng::seed(1), 2, 2, Init::Zeros)
                .iter()
                .all(|&x| x == 0.0)
        );
    }
}
