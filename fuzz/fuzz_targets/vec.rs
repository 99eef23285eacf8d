//! fastText/MUSE `.vec` word vectors (header `count dim`, then `word v1 … vd`).
#![no_main]

use bitext_core::io::vec::read_vec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bitext_fuzz::with_file("words.vec", data, |p| {
        if let Ok(v) = read_vec(p, None) {
            assert_eq!(v.words().len(), v.vectors().len());
            assert!(v.vectors().as_slice().iter().all(|x| x.is_finite()));
        }
        let _ = read_vec(p, Some(2));
    });
});
