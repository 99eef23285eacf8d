//! The shared [`PairScorer`](bitext_similarity::PairScorer) conformance suite
//! (`bitext_testkit::pair_scorer_suite!`) instantiated for every scorer of this crate: the three
//! measures of `EmbeddingScorer`, `Cosines` (an encoder's own vectors) and `MarginScorer` with
//! each margin function, over planted data (12 sources, 10 targets; target `j < 8` translates
//! source `j`), with neighbour lists from the testkit's brute-force reference kNN.

use std::sync::OnceLock;

use bitext_core::{Embeddings, EmbeddingsView};
use bitext_knn::{KnnIndex, Metric, Neighbors};
use bitext_similarity::{
    EmbeddingScorer, Margin, MarginFunction, MarginScorer, MarginSpec, Measure,
};
use bitext_testkit::BruteForce;
use bitext_testkit::data::planted_pairs;
use bitext_testkit::pair_scorer_suite;
use bitext_testkit::scorer::Expect;

/// The planted sources and targets, built once.
fn data() -> &'static (Embeddings, Embeddings) {
    static DATA: OnceLock<(Embeddings, Embeddings)> = OnceLock::new();
    DATA.get_or_init(|| planted_pairs(12, 10, 8, 16, 99))
}

fn measure(m: Measure) -> EmbeddingScorer<'static> {
    let (x, y) = data();
    EmbeddingScorer::new(x.view(), y.view(), m).unwrap()
}

/// The `k` nearest rows of `db` for each row of `q` (inner product, exact).
fn knn(q: EmbeddingsView<'_>, db: EmbeddingsView<'_>, k: usize) -> Neighbors {
    BruteForce::over(db, Metric::InnerProduct)
        .unwrap()
        .search(q, k)
        .unwrap()
}

fn margin(f: MarginFunction) -> MarginScorer<'static> {
    let (x, y) = data();
    let (fwd, bwd) = (knn(x.view(), y.view(), 3), knn(y.view(), x.view(), 3));
    let m = Margin::from_neighbors(&MarginSpec::new(f, 3), &fwd, &bwd).unwrap();
    MarginScorer::new(m, x.view(), y.view()).unwrap()
}

const PLANTED: Expect = Expect::exact().planted(8);

pair_scorer_suite!(cosine, measure(Measure::Cosine), PLANTED);
pair_scorer_suite!(dot, measure(Measure::Dot), PLANTED);
pair_scorer_suite!(neg_euclidean, measure(Measure::NegEuclidean), PLANTED);
pair_scorer_suite!(
    cosines,
    {
        let (x, y) = data();
        bitext_similarity::Cosines::new(x.clone(), y.clone()).unwrap()
    },
    PLANTED
);
pair_scorer_suite!(margin_absolute, margin(MarginFunction::Absolute), PLANTED);
pair_scorer_suite!(margin_distance, margin(MarginFunction::Distance), PLANTED);
pair_scorer_suite!(margin_ratio, margin(MarginFunction::Ratio), PLANTED);
pair_scorer_suite!(margin_csls, margin(MarginFunction::Csls), PLANTED);
