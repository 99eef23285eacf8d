//! `MineSpec::mine_half_target`: a binary16 target searched as it is mines the pairs that
//! `MineSpec::mine` mines over the widened target, for unit and non-unit rows, every
//! retrieval; bad inputs are errors that say what is wrong.

use bitext_core::{Embeddings, HalfView, Rng};
use bitext_knn::IndexSpec;
use bitext_mine::{MineSpec, Miner, Retrieval};
use bitext_similarity::{MarginFunction, MarginSpec};
use half::f16;

fn random(rng: &mut Rng, n: usize, dim: usize, unit: bool) -> Embeddings {
    let rows: Vec<Vec<f32>> = (0..n)
        .map(|_| {
            let mut r: Vec<f32> = (0..dim).map(|_| rng.next_f32() - 0.5).collect();
            if unit {
                let norm = r.iter().map(|x| x * x).sum::<f32>().sqrt();
                r.iter_mut().for_each(|x| *x /= norm);
            }
            r
        })
        .collect();
    Embeddings::from_rows(rows.iter(), dim).unwrap()
}

/// `e` rounded to binary16: the bits, and the widened matrix.
fn halve(e: &Embeddings) -> (Vec<u16>, Embeddings) {
    let bits: Vec<u16> = e
        .as_slice()
        .iter()
        .map(|&x| f16::from_f32(x).to_bits())
        .collect();
    let wide: Vec<f32> = bits.iter().map(|&b| f16::from_bits(b).to_f32()).collect();
    let rows: Vec<&[f32]> = wide.chunks(e.dim()).collect();
    (bits, Embeddings::from_rows(rows, e.dim()).unwrap())
}

fn spec(retrieval: Retrieval, k: usize) -> MineSpec {
    let margin = MarginSpec::new(MarginFunction::Ratio, k);
    MineSpec::new(Miner::new(margin).retrieval(retrieval))
}

#[test]
fn the_half_target_mines_the_widened_targets_pairs() {
    let mut rng = Rng::seed(31);
    for (n, m, d, unit) in [(40, 55, 16, false), (70, 30, 8, true), (5, 5, 3, false)] {
        let src = random(&mut rng, n, d, unit);
        let trg = random(&mut rng, m, d, unit);
        let (bits, wide) = halve(&trg);
        for retrieval in [
            Retrieval::Forward,
            Retrieval::Backward,
            Retrieval::Intersection,
            Retrieval::Max,
        ] {
            let s = spec(retrieval, 3.min(n).min(m));
            let want = s.mine(src.view(), wide.view(), &mut |_, _, _| {}).unwrap();
            let mut last = 0;
            let (got, nb) = s
                .mine_half_target(
                    src.view(),
                    HalfView::new(&bits, d).unwrap(),
                    &mut |_, done, total| {
                        assert!(done <= total);
                        last = done;
                    },
                )
                .unwrap();
            assert_eq!(got, want, "{n}×{m}×{d} unit {unit} {retrieval:?}");
            assert_eq!(nb.forward.len(), n);
            assert_eq!(last, n, "progress reaches every source row");
        }
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let mut rng = Rng::seed(5);
    let src = random(&mut rng, 10, 4, false);
    let (bits, _) = halve(&random(&mut rng, 3, 4, false));
    let view = HalfView::new(&bits, 4).unwrap();
    // k larger than the target.
    let e = spec(Retrieval::Max, 4)
        .mine_half_target(src.view(), view, &mut |_, _, _| {})
        .unwrap_err();
    assert!(e.to_string().contains("needs at least"), "{e}");
    // A NaN in the target, named by row.
    let mut nan = bits.clone();
    nan[6] = f16::NAN.to_bits();
    let e = spec(Retrieval::Max, 2)
        .mine_half_target(
            src.view(),
            HalfView::new(&nan, 4).unwrap(),
            &mut |_, _, _| {},
        )
        .unwrap_err();
    assert!(e.to_string().contains("target"), "{e}");
    // Different dimensions.
    let (b3, _) = halve(&random(&mut rng, 8, 3, false));
    assert!(
        spec(Retrieval::Max, 2)
            .mine_half_target(
                src.view(),
                HalfView::new(&b3, 3).unwrap(),
                &mut |_, _, _| {}
            )
            .is_err()
    );
    // A faiss index does not search binary16 rows.
    if let Ok(faiss) = "HNSW32".parse::<IndexSpec>() {
        let s = spec(Retrieval::Max, 2).index(faiss);
        assert!(
            s.mine_half_target(src.view(), view, &mut |_, _, _| {})
                .is_err()
        );
    }
}
