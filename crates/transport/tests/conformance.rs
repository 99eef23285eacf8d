//! The shared conformance suites instantiated for this crate's implementations: the
//! [`TransportSolver`](bitext_transport::TransportSolver) suite
//! (`bitext_testkit::transport_solver_suite!`) for the network simplex with each initial basis
//! and for Sinkhorn, and the [`PairScorer`](bitext_similarity::PairScorer) suite
//! (`bitext_testkit::pair_scorer_suite!`) for `EmdScorer` with the exact and the entropic solver,
//! over the testkit's parallel text and lexicon (source `i < 8` translated by target `i`).

use std::sync::Arc;

use bitext_testkit::data::{VOCAB, lexicon, parallel_text};
use bitext_testkit::{pair_scorer_suite, scorer, transport, transport_solver_suite};
use bitext_transport::sentence::{SentenceConfig, SentenceDistance};
use bitext_transport::{
    EmdScorer, InitialBasis, NetworkSimplex, SimplexParams, SinkhornParams, SolverSpec,
};

transport_solver_suite!(
    network_simplex,
    NetworkSimplex::default(),
    transport::Expect::exact()
);
/// The network simplex started from `initial`.
fn simplex_from(initial: InitialBasis) -> NetworkSimplex {
    SimplexParams::default().initial(initial).check().unwrap()
}

transport_solver_suite!(
    network_simplex_vogel,
    simplex_from(InitialBasis::Vogel),
    transport::Expect::exact()
);
transport_solver_suite!(
    network_simplex_north_west,
    simplex_from(InitialBasis::NorthWest),
    transport::Expect::exact()
);
transport_solver_suite!(
    sinkhorn,
    SinkhornParams::default()
        .reg(1e-3)
        .tolerance(1e-7)
        .check()
        .unwrap(),
    transport::Expect::within(3e-2)
);

/// An EMD scorer with `solver` over 12 source sentences and 10 targets: the translations of the
/// first 8 sources, then 2 unrelated sentences.
fn emd(solver: SolverSpec) -> EmdScorer {
    let (de, en) = lexicon(VOCAB, 8, 1);
    let config = SentenceConfig {
        solver,
        ..SentenceConfig::default()
    };
    let d = SentenceDistance::new(Arc::new(de), Arc::new(en), None, config).unwrap();
    let (src, tgt) = parallel_text(12, 21);
    let (_, other) = parallel_text(2, 22);
    let toks = |s: &String| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    let src: Vec<Vec<String>> = src.iter().map(toks).collect();
    let tgt: Vec<Vec<String>> = tgt[..8].iter().chain(&other).map(toks).collect();
    EmdScorer::new(d, &src, &tgt).unwrap()
}

pair_scorer_suite!(
    emd_scorer,
    emd(SolverSpec::default()),
    scorer::Expect::exact().planted(8)
);
pair_scorer_suite!(
    emd_scorer_sinkhorn,
    emd(SolverSpec::Sinkhorn(SinkhornParams::default().reg(0.1))),
    scorer::Expect::exact().planted(8)
);
