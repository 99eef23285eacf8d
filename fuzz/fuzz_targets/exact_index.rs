//! Saved exact kNN indexes (`ExactIndex::save`: header and matrix), loaded and searched.
#![no_main]

use bitext_core::Embeddings;
use bitext_knn::{KnnIndex, load_index};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bitext_fuzz::with_file("index.bin", data, |p| {
        if let Ok(index) = load_index(p) {
            let d = index.dim();
            if d > 0 && d <= 64 && !index.is_empty() {
                let q = Embeddings::new(vec![0.5; d], d).unwrap();
                let _ = index.search(q.view(), 1);
            }
        }
    });
});
