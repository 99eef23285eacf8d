//! Saved quantised copies: saved, mapped back and searched with the same results and counts as
//! the copy built in memory; refused (never a panic, never a wrong answer) when they are of
//! other vectors, truncated, or corrupt anywhere.

mod common;

use bitext_core::{Embeddings, HalfView, Rng};
use bitext_knn::{ExactIndex, KnnIndex, Metric, Precision};
use common::{at, bits};
use proptest::prelude::*;

fn data(n: usize, d: usize, rng: &mut Rng) -> Embeddings {
    let base: Vec<f32> = (0..d).map(|_| rng.normal() as f32).collect();
    let mut rows = Vec::with_capacity(n * d);
    for i in 0..n {
        if i % 5 == 3 {
            rows.extend_from_slice(&base); // exact copies: the duplicate tables are saved too
        } else {
            rows.extend((0..d).map(|_| rng.normal() as f32));
        }
    }
    let mut e = Embeddings::new(rows, d).unwrap();
    e.normalize_l2();
    e
}

/// Why `index` refuses the saved copy at `path`.
fn refusal(index: ExactIndex<'_>, path: impl AsRef<std::path::Path>) -> String {
    index.with_quantized_file(path).unwrap_err().to_string()
}

#[test]
fn a_saved_copy_is_mapped_and_searches_like_the_built_one() {
    let mut rng = Rng::seed(11);
    let db = data(700, 33, &mut rng);
    let q = data(90, 33, &mut rng);
    let dir = tempfile::tempdir().unwrap();
    for p in [Precision::Bf16, Precision::Int8] {
        let path = dir.path().join(format!("db.{p}"));
        let built = ExactIndex::over(db.view(), Metric::InnerProduct)
            .unwrap()
            .with_params(at(p))
            .unwrap();
        built.save_quantized(&path).unwrap();
        assert!(!built.quantized_is_mapped());
        // A fresh index takes the file's precision (with a concrete kernel, so that the copy
        // is scanned on every CPU).
        let mapped = ExactIndex::over(db.view(), Metric::InnerProduct)
            .unwrap()
            .with_params(at(Precision::F32))
            .unwrap()
            .with_quantized_file(&path)
            .unwrap();
        assert!(mapped.quantized_is_mapped());
        assert_eq!(mapped.params().precision, p);
        let want = built.search_certified(q.view(), 4, &mut |_| {}).unwrap();
        let got = mapped.search_certified(q.view(), 4, &mut |_| {}).unwrap();
        assert_eq!(got.certification, want.certification);
        let exact = ExactIndex::over(db.view(), Metric::InnerProduct)
            .unwrap()
            .search(q.view(), 4)
            .unwrap();
        assert_eq!(bits(&got.neighbors), bits(&exact));
        let (f, b) = mapped
            .search_both_certified(q.view(), 4, 3, &mut |_| {})
            .unwrap();
        let (wf, wb) = ExactIndex::over(db.view(), Metric::InnerProduct)
            .unwrap()
            .search_both_with_progress(q.view(), 4, 3, &mut |_| {})
            .unwrap();
        assert_eq!(
            (bits(&f.neighbors), bits(&b.neighbors)),
            (bits(&wf), bits(&wb))
        );
    }
}

#[test]
fn a_copy_of_binary16_rows_is_saved_and_mapped_too() {
    let mut rng = Rng::seed(12);
    let db = data(300, 20, &mut rng);
    let h: Vec<u16> = db
        .as_slice()
        .iter()
        .map(|&x| half::f16::from_f32(x).to_bits())
        .collect();
    let q = data(40, 20, &mut rng);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.int8");
    let v = HalfView::new(&h, 20).unwrap();
    let index = ExactIndex::over_half(v, Metric::InnerProduct, true)
        .unwrap()
        .with_params(at(Precision::Int8))
        .unwrap();
    index.save_quantized(&path).unwrap();
    let want = index.search(q.view(), 3).unwrap();
    let mapped = ExactIndex::over_half(v, Metric::InnerProduct, true)
        .unwrap()
        .with_quantized_file(&path)
        .unwrap();
    assert_eq!(bits(&mapped.search(q.view(), 3).unwrap()), bits(&want));
    // Not normalised: other vectors, refused.
    let err = refusal(
        ExactIndex::over_half(v, Metric::InnerProduct, false).unwrap(),
        &path,
    );
    assert!(
        err.contains("f16-normalized") && err.contains("db.int8"),
        "{err}"
    );
}

#[test]
fn copies_of_other_vectors_and_impossible_saves_are_refused() {
    let mut rng = Rng::seed(13);
    let (a, b) = (data(100, 8, &mut rng), data(100, 8, &mut rng));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.bf16");
    // At f32 there is no copy to save (at `Auto`, there is one on a CPU with a fast kernel).
    let f32_err = ExactIndex::over(a.view(), Metric::InnerProduct)
        .unwrap()
        .with_params(at(Precision::F32))
        .unwrap()
        .save_quantized(&path)
        .unwrap_err()
        .to_string();
    assert!(f32_err.contains("no quantised copy"), "{f32_err}");
    assert!(!path.exists());
    let ia = ExactIndex::over(a.view(), Metric::InnerProduct).unwrap();
    ia.with_params(at(Precision::Bf16))
        .unwrap()
        .save_quantized(&path)
        .unwrap();
    let err = refusal(
        ExactIndex::over(b.view(), Metric::InnerProduct).unwrap(),
        &path,
    );
    assert!(
        err.contains("other vectors") && err.contains("a.bf16"),
        "{err}"
    );
    let short = ExactIndex::over(a.slice_rows(0..99), Metric::InnerProduct).unwrap();
    assert!(short.with_quantized_file(&path).is_err());
    let l2 = ExactIndex::over(a.view(), Metric::L2).unwrap();
    assert!(l2.with_quantized_file(&path).is_err());
    let missing = refusal(
        ExactIndex::over(a.view(), Metric::InnerProduct).unwrap(),
        dir.path().join("none"),
    );
    assert!(missing.contains("none"), "{missing}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any flipped byte or truncation: an error naming the file, or (a harmless change such as
    /// header whitespace) the exact results; never a panic.
    #[test]
    fn corrupt_files_are_refused_or_harmless(
        int8 in any::<bool>(), pos in 0.0f64..1.0, flip in 1u8..=255, cut in any::<bool>(),
    ) {
        let mut rng = Rng::seed(14);
        let db = data(60, 9, &mut rng);
        let q = data(10, 9, &mut rng);
        let p = if int8 { Precision::Int8 } else { Precision::Bf16 };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.q");
        let index = ExactIndex::over(db.view(), Metric::InnerProduct).unwrap();
        index.clone().with_params(at(p)).unwrap().save_quantized(&path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let i = ((bytes.len() as f64 * pos) as usize).min(bytes.len() - 1);
        if cut { bytes.truncate(i); } else { bytes[i] ^= flip; }
        std::fs::write(&path, &bytes).unwrap();
        match index.clone().with_quantized_file(&path) {
            Err(e) => prop_assert!(e.to_string().contains("c.q"), "{}", e),
            Ok(mapped) => {
                let want = index.search(q.view(), 3).unwrap();
                prop_assert_eq!(bits(&mapped.search(q.view(), 3).unwrap()), bits(&want));
            }
        }
    }
}
