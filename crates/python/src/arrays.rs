//! numpy arrays in and out. A matrix argument is a 2-d numpy array of `float32`, read in place
//! when it is C-contiguous (the library borrows the buffer: no copy), or of `float16`, widened
//! into a `float32` copy by bitext-core's `HalfView`. Anything else raises `ValueError` naming
//! the argument: another dtype (say which to convert with), a non-contiguous or misaligned
//! buffer, not 2 dimensions, NaN or infinity (the row and column).

use bitext_core::{EmbeddingsView, HalfView};
use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::error::{OrRaise, invalid};

/// A matrix argument: the caller's `float32` buffer, or a widened copy of its `float16` one.
pub(crate) enum Matrix<'py> {
    /// C-contiguous `float32`, borrowed (read-only) for the call.
    Borrowed(PyReadonlyArray2<'py, f32>),
    /// `float16` rows widened to `float32`, and the dimension.
    Widened(Vec<f32>, usize),
}

impl Matrix<'_> {
    /// The rows as the library's view (no copy of a borrowed buffer).
    pub(crate) fn view(&self) -> EmbeddingsView<'_> {
        match self {
            Matrix::Borrowed(a) => {
                let dim = a.shape()[1];
                let data = a.as_slice().expect("`layout` checked in `matrix`");
                EmbeddingsView::new(data, dim).expect("the shape was checked in `matrix`")
            }
            Matrix::Widened(v, dim) => {
                EmbeddingsView::new(v, *dim).expect("the shape was checked in `matrix`")
            }
        }
    }

    /// The address of the rows the library reads (the numpy buffer's when borrowed).
    pub(crate) fn address(&self) -> usize {
        self.view().as_slice().as_ptr() as usize
    }
}

/// The matrix argument `name`: checked as the module docs say.
pub(crate) fn matrix<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Matrix<'py>> {
    let Ok(array) = obj.cast::<PyUntypedArray>() else {
        return Err(invalid(format!(
            "{name}: expected a numpy array of float32, got {}",
            obj.get_type().name()?
        )));
    };
    if array.ndim() != 2 {
        return Err(invalid(format!(
            "{name}: expected a 2-d array (one row per sentence), got {} dimension(s) of shape {:?}",
            array.ndim(),
            array.shape()
        )));
    }
    let (rows, dim) = (array.shape()[0], array.shape()[1]);
    if dim == 0 {
        return Err(invalid(format!("{name}: the rows have no column")));
    }
    let dtype = array.dtype();
    let m = if let Ok(a) = obj.cast::<PyArray2<f32>>() {
        layout(array, name)?;
        Matrix::Borrowed(a.readonly())
    } else if let Ok(a) = obj.cast::<PyArray2<half::f16>>() {
        layout(array, name)?;
        let ro = a.readonly();
        let halves = ro.as_slice().expect("`layout` checked above");
        let bits: &[u16] = half::slice::HalfFloatSliceExt::reinterpret_cast(halves);
        let view = HalfView::new(bits, dim).or_raise()?;
        view.check_finite()
            .map_err(|e| invalid(format!("{name}: {e}")))?;
        let mut out = vec![0.0f32; rows * dim];
        for (i, row) in out.chunks_exact_mut(dim).enumerate() {
            view.widen_into(i, row);
        }
        Matrix::Widened(out, dim)
    } else {
        return Err(invalid(format!(
            "{name}: expected float32 (or float16), got {dtype}; convert with \
             {name}.astype(numpy.float32)"
        )));
    };
    m.view()
        .check_finite()
        .map_err(|e| invalid(format!("{name}: {e}")))?;
    Ok(m)
}

/// The layout the library reads in place: C-contiguous (rows one after the other) and
/// aligned for the element type (numpy's flags); `ValueError` naming `name` otherwise, so that
/// reading the buffer as a slice cannot fail later.
pub(crate) fn layout(array: &Bound<'_, PyUntypedArray>, name: &str) -> PyResult<()> {
    if !array.is_c_contiguous() {
        return Err(invalid(format!(
            "{name}: the array is not C-contiguous (a slice or a transpose?); pass \
             numpy.ascontiguousarray({name})"
        )));
    }
    if !array.is_aligned() {
        return Err(invalid(format!(
            "{name}: the array's buffer is not aligned for its dtype (a view at an odd byte \
             offset?); pass numpy.require({name}, requirements=\"CA\")"
        )));
    }
    Ok(())
}

/// A 1-d `float64` array of `values`.
pub(crate) fn vector(py: Python<'_>, values: Vec<f64>) -> Bound<'_, PyArray1<f64>> {
    PyArray1::from_vec(py, values)
}

/// A `rows × cols` array of `values` (row-major).
pub(crate) fn table<T: numpy::Element>(
    py: Python<'_>,
    values: Vec<T>,
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    Ok(Array2::from_shape_vec((rows, cols), values)
        .map_err(|e| invalid(e.to_string()))?
        .into_pyarray(py))
}

/// Pairs of row indices from an `n × 2` integer array (or any sequence of 2-tuples), checked
/// non-negative.
pub(crate) fn pairs(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<(usize, usize)>> {
    if let Ok(a) = obj.cast::<PyArray2<i64>>() {
        if !a.is_aligned() {
            return Err(invalid(format!(
                "{name}: the array's buffer is not aligned for int64; pass \
                 numpy.require({name}, requirements=\"A\")"
            )));
        }
        let ro = a.readonly();
        let view = ro.as_array();
        if view.ncols() != 2 {
            return Err(invalid(format!(
                "{name}: expected shape (n, 2), got {:?}",
                view.shape()
            )));
        }
        return view
            .rows()
            .into_iter()
            .enumerate()
            .map(|(i, r)| index_pair(name, i, r[0], r[1]))
            .collect();
    }
    let list: Vec<(i64, i64)> = obj.extract().map_err(|_| {
        invalid(format!(
            "{name}: expected an (n, 2) int64 array or a sequence of (source, target) pairs"
        ))
    })?;
    list.into_iter()
        .enumerate()
        .map(|(i, (s, t))| index_pair(name, i, s, t))
        .collect()
}

fn index_pair(name: &str, i: usize, s: i64, t: i64) -> PyResult<(usize, usize)> {
    match (usize::try_from(s), usize::try_from(t)) {
        (Ok(s), Ok(t)) => Ok((s, t)),
        _ => Err(invalid(format!(
            "{name}: pair {i} ({s}, {t}) has a negative index"
        ))),
    }
}

/// Sentences from a sequence of `str`.
pub(crate) fn sentences(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<String>> {
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Err(invalid(format!(
            "{name}: expected a sequence of sentences, got one str"
        )));
    }
    obj.extract()
        .map_err(|_| invalid(format!("{name}: expected a sequence of str")))
}

/// Aligned pairs `(src[i], tgt[i])`: two sequences of sentences of one length.
pub(crate) fn sentence_pairs(
    src: &Bound<'_, PyAny>,
    tgt: &Bound<'_, PyAny>,
) -> PyResult<(Vec<String>, Vec<String>)> {
    let (s, t) = (sentences(src, "src")?, sentences(tgt, "tgt")?);
    if s.len() != t.len() {
        return Err(invalid(format!(
            "src has {} sentences and tgt {}: the pairs are (src[i], tgt[i])",
            s.len(),
            t.len()
        )));
    }
    Ok((s, t))
}

/// A C-contiguous `float64` array argument of `D` dimensions (`emd`'s weights and costs), read
/// in place; another dtype, layout or dimension count raises `ValueError` naming `name`.
pub(crate) fn f64_array<'py, D: numpy::ndarray::Dimension>(
    obj: &Bound<'py, PyAny>,
    name: &str,
) -> PyResult<numpy::PyReadonlyArray<'py, f64, D>> {
    let Ok(array) = obj.cast::<PyUntypedArray>() else {
        return Err(invalid(format!(
            "{name}: expected a numpy array of float64, got {}",
            obj.get_type().name()?
        )));
    };
    let want = D::NDIM.unwrap_or(0);
    if array.ndim() != want {
        return Err(invalid(format!(
            "{name}: expected a {want}-d array, got shape {:?}",
            array.shape()
        )));
    }
    let Ok(a) = obj.cast::<numpy::PyArray<f64, D>>() else {
        return Err(invalid(format!(
            "{name}: expected float64, got {}; convert with {name}.astype(numpy.float64)",
            array.dtype()
        )));
    };
    layout(array, name)?;
    Ok(a.readonly())
}
