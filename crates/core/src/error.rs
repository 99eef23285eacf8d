//! The error type of `bitext-core`: every failure names the file, where in it, and why.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Where in a file (or in an in-memory matrix) a problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// The whole file (e.g. it is empty, or its size is wrong).
    File,
    /// A 1-based line number of a text file.
    Line(usize),
    /// A 0-based byte offset into a binary file.
    Byte(u64),
    /// A 0-based row (and optionally column) of an embedding matrix.
    Row {
        /// 0-based row index.
        row: usize,
        /// 0-based column index, when one value is at fault.
        col: Option<usize>,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File => Ok(()),
            Location::Line(n) => write!(f, ":{n}"),
            Location::Byte(b) => write!(f, " (byte offset {b})"),
            Location::Row { row, col: None } => write!(f, " (row {row})"),
            Location::Row { row, col: Some(c) } => write!(f, " (row {row}, column {c})"),
        }
    }
}

/// Errors of `bitext-core`.
///
/// File problems carry the path and a [`Location`]; their `Display` reads like a compiler
/// diagnostic: `data/de.tsv:17: missing tab between id and sentence`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be opened, read or written.
    ///
    /// The I/O error is part of the message, not a separate `source()`: reported as a chain
    /// (`anyhow`'s `{:#}`), it would be printed twice.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying I/O error.
        error: io::Error,
    },
    /// The file's content is malformed.
    #[error("{}{at}: {reason}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where in the file.
        at: Location,
        /// What is wrong, in words.
        reason: String,
    },
    /// An in-memory value is invalid (NaN, infinite, out of range).
    #[error("invalid value{at}: {reason}")]
    Value {
        /// Where in the data.
        at: Location,
        /// What is wrong, in words.
        reason: String,
    },
    /// Sizes or dimensions do not fit together.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A parameter is out of its valid range.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl AsRef<Path>, error: io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            error,
        }
    }

    /// A parse error at `at` in `path`.
    pub fn parse(path: impl AsRef<Path>, at: Location, reason: impl Into<String>) -> Self {
        Error::Parse {
            path: path.as_ref().to_path_buf(),
            at,
            reason: reason.into(),
        }
    }

    /// Attach a file to an in-memory [`Error::Value`] / [`Error::Shape`] error, turning it into a
    /// [`Error::Parse`] that names the file. Other errors are returned unchanged.
    #[must_use]
    pub fn in_file(self, path: impl AsRef<Path>) -> Self {
        match self {
            Error::Value { at, reason } => Error::parse(path, at, reason),
            Error::Shape(reason) => Error::parse(path, Location::File, reason),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_line_and_reason() {
        let e = Error::parse("data/de.tsv", Location::Line(17), "missing tab");
        assert_eq!(e.to_string(), "data/de.tsv:17: missing tab");
        let e = Error::parse("x.f32", Location::Byte(4096), "NaN");
        assert_eq!(e.to_string(), "x.f32 (byte offset 4096): NaN");
        let e = Error::Value {
            at: Location::Row {
                row: 3,
                col: Some(1),
            },
            reason: "NaN".into(),
        }
        .in_file("e.npy");
        assert_eq!(e.to_string(), "e.npy (row 3, column 1): NaN");
    }
}
