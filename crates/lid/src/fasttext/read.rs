//! A cursor over the bytes of a fastText model file: little-endian integers and floats, NUL-
//! terminated words, and errors that name the file, the byte offset and the reason. Every count
//! is checked against the bytes left before anything is allocated.

use std::path::Path;

use bitext_core::Location;

use crate::error::Result;

/// Reads a model file front to back.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`, the content of `path` (named in errors).
    pub(super) fn new(path: &'a Path, bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            path,
        }
    }

    /// The byte offset of the next read.
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub(super) fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// An error at byte offset `at`.
    pub(super) fn error_at(&self, at: usize, reason: impl Into<String>) -> crate::Error {
        bitext_core::Error::parse(self.path, Location::Byte(at as u64), reason).into()
    }

    /// `n` bytes, or an error saying the file ends inside `what`.
    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.left() {
            return Err(self.error_at(
                self.pos,
                format!(
                    "truncated: {what} needs {n} bytes, the file has {} left",
                    self.left()
                ),
            ));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let b = self.take(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// A little-endian `int32_t`.
    pub(super) fn i32(&mut self, what: &str) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }

    /// A little-endian `int64_t`.
    pub(super) fn i64(&mut self, what: &str) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    /// A little-endian `double`.
    pub(super) fn f64(&mut self, what: &str) -> Result<f64> {
        Ok(f64::from_le_bytes(self.array(what)?))
    }

    /// One byte.
    pub(super) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    /// A C++ `bool` (one byte, 0 or 1).
    pub(super) fn bool(&mut self, what: &str) -> Result<bool> {
        let at = self.pos;
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(self.error_at(at, format!("{what} is {v}, not a boolean (0 or 1)"))),
        }
    }

    /// A count stored as an integer of any width: an error unless it lies in `lo..=hi`.
    pub(super) fn count(&self, at: usize, v: i64, lo: i64, hi: i64, what: &str) -> Result<usize> {
        if v < lo || v > hi {
            return Err(self.error_at(at, format!("{what} is {v}, outside {lo}..={hi}")));
        }
        usize::try_from(v).map_err(|_| self.error_at(at, format!("{what} is {v}")))
    }

    /// The bytes of a NUL-terminated word (without the NUL).
    pub(super) fn word(&mut self, what: &str) -> Result<&'a [u8]> {
        let rest = &self.bytes[self.pos..];
        let Some(len) = rest.iter().position(|&b| b == 0) else {
            return Err(self.error_at(
                self.pos,
                format!("truncated: {what} has no terminating NUL byte"),
            ));
        };
        let word = &rest[..len];
        self.pos += len + 1;
        Ok(word)
    }

    /// `n` little-endian `float`s, each finite (a NaN or an infinity is an error naming its
    /// offset); the bytes are checked to be there before the vector is allocated.
    pub(super) fn f32s(&mut self, n: usize, what: &str) -> Result<Vec<f32>> {
        let bytes = n
            .checked_mul(4)
            .ok_or_else(|| self.error_at(self.pos, format!("{what}: {n} floats overflow")))?;
        let start = self.pos;
        let b = self.take(bytes, what)?;
        let mut out = Vec::with_capacity(n);
        for (i, c) in b.chunks_exact(4).enumerate() {
            let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            if !v.is_finite() {
                return Err(self.error_at(start + 4 * i, format!("{what}: {v} is not finite")));
            }
            out.push(v);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_reports_offsets() {
        let mut bytes = vec![];
        bytes.extend_from_slice(&(-2i32).to_le_bytes());
        bytes.extend_from_slice(b"ab\0");
        bytes.extend_from_slice(&[1, 2]);
        let path = Path::new("m.bin");
        let mut r = Reader::new(path, &bytes);
        assert_eq!(r.i32("x").unwrap(), -2);
        assert_eq!(r.word("w").unwrap(), b"ab");
        assert!(r.bool("flag").unwrap());
        let e = r.bool("flag").unwrap_err().to_string();
        assert_eq!(
            e,
            "m.bin (byte offset 8): flag is 2, not a boolean (0 or 1)"
        );
        let e = r.i64("n").unwrap_err().to_string();
        assert_eq!(
            e,
            "m.bin (byte offset 9): truncated: n needs 8 bytes, the file has 0 left"
        );
        assert!(
            r.word("w")
                .unwrap_err()
                .to_string()
                .contains("no terminating NUL")
        );
        let e = r.count(3, -1, 0, 5, "size").unwrap_err().to_string();
        assert_eq!(e, "m.bin (byte offset 3): size is -1, outside 0..=5");
    }
}
