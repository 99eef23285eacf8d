//! Library errors as Python exceptions: `ValueError` with the library's message, which names
//! the file, line or row and the reason. One exception type for every library error, a file
//! that cannot be read included: the library's errors carry the I/O error in their message,
//! not as a separate cause to tell apart.

use pyo3::PyErr;
use pyo3::exceptions::PyValueError;

/// `Result<T, E>` of any library error → `PyResult<T>`.
pub(crate) trait OrRaise<T> {
    /// The value, or a `ValueError` with the error's message.
    fn or_raise(self) -> pyo3::PyResult<T>;
}

impl<T, E: std::fmt::Display> OrRaise<T> for Result<T, E> {
    fn or_raise(self) -> pyo3::PyResult<T> {
        self.map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// A `ValueError` with `message`.
pub(crate) fn invalid(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}
