//! LASER raw little-endian f32 and f16 matrices, whole, in blocks and memory-mapped.
#![no_main]

use bitext_core::io::raw::{RawBlockReader, RawDtype, read_raw};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let dim = usize::from(first % 9);
    let dtype = if first & 0x80 == 0 {
        RawDtype::F32
    } else {
        RawDtype::F16
    };
    bitext_fuzz::with_file("m.raw", rest, |p| {
        let _ = read_raw(p, dim, dtype);
        if let Ok(mut r) = RawBlockReader::open(p, dim, dtype) {
            let _ = r.seek_row(usize::from(first) % 4);
            while let Ok(Some(_)) = r.next_block(2) {}
        }
        let _ = bitext_core::MappedEmbeddings::open(p, Some(dim));
    });
});
