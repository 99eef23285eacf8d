//! The protobuf wire format, read and written by hand for the few messages bitext reads: a
//! sentencepiece `.model` file (`bitext-tokenize`) and an ONNX graph (`bitext-onnx`). A reader
//! walks a message's `(field number, value)` pairs and skips what it does not know by wire type,
//! as protobuf readers do; errors carry the byte offset in the file. The writers append fields
//! for the few messages bitext builds or rewrites.

/// A malformed message: where (byte offset into the file) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoError {
    /// Byte offset into the file.
    pub offset: usize,
    /// Why.
    pub reason: String,
}

/// `Result` with [`ProtoError`].
pub type Result<T> = std::result::Result<T, ProtoError>;

/// A field's value, by wire type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 5.
    Fixed32(u32),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: a string, bytes, a sub-message or a packed repeated field.
    Bytes(&'a [u8]),
}

/// A field as [`Fields::next_raw`] returns it: its number, the offset of its value in the file,
/// the value, and its bytes as they are in the file (key included).
pub type RawField<'a> = (u64, usize, Value<'a>, &'a [u8]);

/// A protobuf message: a sequence of `(field number, value)`.
#[derive(Debug, Clone)]
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Offset of `buf` in the file, for errors.
    base: usize,
}

impl<'a> Fields<'a> {
    /// The fields of the message `buf`, which starts at byte `base` of its file.
    #[must_use]
    pub fn new(buf: &'a [u8], base: usize) -> Self {
        Self { buf, pos: 0, base }
    }

    /// An error at offset `at` of this message.
    pub fn err(&self, at: usize, reason: impl Into<String>) -> ProtoError {
        ProtoError {
            offset: self.base + at,
            reason: reason.into(),
        }
    }

    /// The next varint.
    ///
    /// # Errors
    /// A truncated varint, or one longer than 10 bytes.
    pub fn varint(&mut self) -> Result<u64> {
        let start = self.pos;
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(self.err(start, "truncated varint"));
            };
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err(start, "varint longer than 10 bytes"))
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let start = self.pos;
        match self.pos.checked_add(n).filter(|&e| e <= self.buf.len()) {
            Some(end) => {
                self.pos = end;
                Ok(&self.buf[start..end])
            }
            None => Err(self.err(
                start,
                format!(
                    "truncated {what}: needs {n} bytes, {} left",
                    self.buf.len() - start
                ),
            )),
        }
    }

    /// The next field: its number, the offset of its value (in the file) and the value.
    ///
    /// # Errors
    /// A truncated field, field number 0, an absurd length or an unknown wire type.
    pub fn next_field(&mut self) -> Result<Option<(u64, usize, Value<'a>)>> {
        Ok(self.next_raw()?.map(|(f, at, v, _)| (f, at, v)))
    }

    /// [`Fields::next_field`] with the field's bytes as they are in the file (key included),
    /// to copy it unchanged into a rewritten message.
    ///
    /// # Errors
    /// As [`Fields::next_field`].
    pub fn next_raw(&mut self) -> Result<Option<RawField<'a>>> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let at = self.pos;
        let key = self.varint()?;
        let (field, wire) = (key >> 3, key & 7);
        if field == 0 {
            return Err(self.err(at, "field number 0"));
        }
        let value_at = self.base + self.pos;
        let value = match wire {
            0 => Value::Varint(self.varint()?),
            1 => {
                let b = self.take(8, "fixed64 field")?;
                Value::Fixed64(u64::from_le_bytes(b.try_into().expect("8 bytes")))
            }
            2 => {
                let n = self.varint()?;
                let n = usize::try_from(n).map_err(|_| self.err(at, "absurd length"))?;
                Value::Bytes(self.take(n, "length-delimited field")?)
            }
            5 => {
                let b = self.take(4, "fixed32 field")?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            w => return Err(self.err(at, format!("unsupported wire type {w} (field {field})"))),
        };
        Ok(Some((field, value_at, value, &self.buf[at..self.pos])))
    }
}

/// `bytes` as UTF-8 text; `at` is their offset in the file, `what` names the field in errors.
///
/// # Errors
/// Invalid UTF-8, with the offset of the first bad byte.
pub fn utf8(bytes: &[u8], at: usize, what: &str) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| ProtoError {
        offset: at + e.utf8_error().valid_up_to(),
        reason: format!("{what} is not valid UTF-8"),
    })
}

/// The error for a field `what` at `at` with an unexpected wire type.
#[must_use]
pub fn wrong_type(at: usize, what: &str) -> ProtoError {
    ProtoError {
        offset: at,
        reason: format!("{what} has the wrong wire type"),
    }
}

/// Append `v` as a varint.
pub fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Append a varint field.
pub fn put_varint_field(field: u64, v: u64, out: &mut Vec<u8>) {
    put_varint(field << 3, out);
    put_varint(v, out);
}

/// Append a length-delimited field (string, bytes or sub-message).
pub fn put_bytes_field(field: u64, b: &[u8], out: &mut Vec<u8>) {
    put_varint(field << 3 | 2, out);
    put_varint(b.len() as u64, out);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_errors_carry_offsets() {
        let mut m = Vec::new();
        put_varint_field(1, 300, &mut m);
        put_bytes_field(2, b"abc", &mut m);
        put_varint(3 << 3 | 5, &mut m);
        m.extend_from_slice(&7u32.to_le_bytes());
        put_varint(4 << 3 | 1, &mut m);
        m.extend_from_slice(&9u64.to_le_bytes());
        let mut f = Fields::new(&m, 10);
        assert_eq!(f.next_field().unwrap().unwrap().2, Value::Varint(300));
        let (n, _, v, raw) = f.next_raw().unwrap().unwrap();
        assert_eq!((n, v), (2, Value::Bytes(b"abc")));
        assert_eq!(raw, &m[3..8]);
        assert_eq!(f.next_field().unwrap().unwrap().2, Value::Fixed32(7));
        assert_eq!(f.next_field().unwrap().unwrap().2, Value::Fixed64(9));
        assert!(f.next_field().unwrap().is_none());
        let mut t = Fields::new(&m[..6], 10);
        t.next_field().unwrap();
        let e = t.next_field().unwrap_err();
        assert_eq!(e.offset, 15);
        assert!(e.reason.contains("truncated"), "{e:?}");
        assert!(utf8(b"ab", 5, "name").is_ok());
        assert_eq!(utf8(&[b'a', 0xff], 5, "name").unwrap_err().offset, 6);
    }
}
