//! NumPy `.npy` matrices: header, whole reads and block reads.
#![no_main]

use bitext_core::io::npy::{NpyBlockReader, read_npy, read_npy_header};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bitext_fuzz::with_file("m.npy", data, |p| {
        let _ = read_npy_header(p);
        let whole = read_npy(p);
        if let Ok(mut r) = NpyBlockReader::open(p) {
            let mut rows = 0;
            while let Ok(Some(b)) = r.next_block(3) {
                rows += b.len();
            }
            if let Ok(w) = whole {
                assert!(rows <= w.len());
            }
        }
        let _ = bitext_core::MappedEmbeddings::open(p, None);
    });
});
