//! `bitext mine` writes byte-identical output for every spelling of the exact index and every
//! thread count, and the same bytes as the two-index exact path (an `ExactIndex` searched from
//! each side: what `--index '{"type":"exact"}'` ran before the one-pass search served every
//! exact spec), on planted data large enough for several query blocks and split databases.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use bitext_core::{Embeddings, EmbeddingsView};
use bitext_knn::{ExactIndex, KnnIndex, Metric, NeighborPair, TwoIndexes};
use bitext_mine::{Miner, Retrieval, ScoredPair, UnitRows};
use bitext_similarity::{MarginFunction, MarginSpec, PairScorer};

mod common;
use common::{bitext, mine_embeddings, planted, run, succeed, write_pair};

const D: usize = 24;

fn mine(x: &Path, y: &Path, extra: &[&str]) -> String {
    succeed(mine_embeddings(D, x, y).args(extra)).0
}

/// `bitext mine` (not quiet) of `x` and `y` with `extra`, which must succeed: its report.
fn report(x: &Path, y: &Path, extra: &[&str]) -> String {
    let mut c = bitext();
    c.args(["mine", "--dim", &D.to_string(), "--src-embeddings"])
        .arg(x)
        .arg("--trg-embeddings")
        .arg(y)
        .args(extra);
    succeed(&mut c).1
}

/// The CLI's lines (`score<TAB>src<TAB>tgt`, shortest exact score) of `pairs`.
fn lines(pairs: &[ScoredPair]) -> String {
    let mut s = String::new();
    for p in pairs {
        writeln!(s, "{}\t{}\t{}", p.score, p.src, p.tgt).unwrap();
    }
    s
}

/// `miner`'s neighbourhoods of `x` and `y` (normalised) by the two-index exact path, with the
/// normalised sides.
fn two_index_search(
    miner: &Miner,
    x: &Embeddings,
    y: &Embeddings,
) -> (NeighborPair, Embeddings, Embeddings) {
    let xu = UnitRows::new(x.view(), "source").unwrap().view().to_owned();
    let yu = UnitRows::new(y.view(), "target").unwrap().view().to_owned();
    let two = TwoIndexes::new(exact_index, Metric::InnerProduct);
    let nb = miner
        .search(xu.view(), yu.view(), &two, &mut |_, _, _| {})
        .unwrap();
    (nb, xu, yu)
}

fn exact_index(v: EmbeddingsView<'_>) -> bitext_knn::Result<Box<dyn KnnIndex + '_>> {
    Ok(Box::new(ExactIndex::over(v, Metric::InnerProduct)?))
}

#[test]
fn every_exact_spelling_and_thread_count_writes_the_same_bytes_as_two_exact_searches() {
    let d = tempfile::tempdir().unwrap();
    // 600 sources: three query blocks of 256; 530 targets.
    let (x, y) = planted(D, 600, 530, 200, 17);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let spellings = [
        "exact",
        "EXACT",
        r#"{"type":"exact"}"#,
        r#"{"type":"exact","metric":"inner_product","query_block":64,"kernel":"portable"}"#,
        r#"{"type":"exact","threads":3}"#,
    ];
    for (margin, retrieval, f, r) in [
        ("ratio", "max", MarginFunction::Ratio, Retrieval::Max),
        (
            "distance",
            "intersect",
            MarginFunction::Distance,
            Retrieval::Intersection,
        ),
        (
            "absolute",
            "fwd",
            MarginFunction::Absolute,
            Retrieval::Forward,
        ),
    ] {
        let args = ["--margin", margin, "--retrieval", retrieval, "-k", "5"];
        // The reference: the two-index exact path through the library.
        let miner = Miner::new(MarginSpec::new(f, 5)).retrieval(r);
        let (nb, _, _) = two_index_search(&miner, &x, &y);
        let want = lines(&miner.mine_neighbors(&nb).unwrap());
        assert!(want.lines().count() > 100, "{margin} {retrieval}");
        for index in spellings {
            for threads in ["0", "1", "2"] {
                let got = mine(
                    &xp,
                    &yp,
                    &[&args[..], &["--index", index, "--threads", threads]].concat(),
                );
                assert!(
                    got == want,
                    "{margin} {retrieval} --index {index} --threads {threads}"
                );
            }
        }
    }
}

/// `--precision bf16|int8` (and a JSON spec with a precision and few candidates, which forces
/// widened scans and f32 fallbacks) writes the bytes of the f32 search, and says how many
/// lists were certified, which kernel scanned, and why a precision asked for did not run.
#[test]
fn every_precision_writes_the_same_bytes_as_f32() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = planted(D, 600, 530, 200, 23);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let args = ["--margin", "ratio", "--retrieval", "max", "-k", "4"];
    let want = mine(&xp, &yp, &args);
    assert!(want.lines().count() > 100);
    for (index, precision) in [
        ("exact", "bf16"),
        ("exact", "int8"),
        (
            r#"{"type":"exact","precision":"int8","candidates":4}"#,
            "f32",
        ),
    ] {
        for threads in ["1", "2"] {
            let extra = [
                "--index",
                index,
                "--precision",
                precision,
                "--threads",
                threads,
            ];
            let got = mine(&xp, &yp, &[&args[..], &extra].concat());
            assert!(got == want, "--index {index} --precision {precision}");
        }
    }
    let err = report(&xp, &yp, &["--precision", "int8"]);
    // An int8 scan where this CPU has a fast int8 kernel, else f32 with a note saying why.
    assert!(
        err.contains("kNN source → target: int8 scan")
            || err.contains("f32 scan of 600 queries")
                && err.contains("; int8 asked for: this CPU has no int8 kernel faster"),
        "{err}"
    );
    // A forced kernel runs int8 on any CPU, and the summary names it.
    let err = report(
        &xp,
        &yp,
        &[
            "--index",
            r#"{"type":"exact","kernel":"portable","precision":"int8"}"#,
        ],
    );
    assert!(
        err.contains("kNN source → target: int8 scan, portable kernel, "),
        "{err}"
    );
    // Without the flag the precision is `auto`, and the summary names the kernel.
    let err = report(&xp, &yp, &[]);
    assert!(
        err.contains("kNN source → target: f32 scan of 600 queries, ")
            && err.contains(" kernel (auto) (exact, nothing to certify)"),
        "{err}"
    );
    let mut c: Command = bitext();
    c.args(["mine", "--precision", "fp8"]);
    let (ok, _, err) = run(&mut c);
    assert!(!ok && err.contains("unknown precision"), "{err}");
}

#[test]
fn score_and_search_modes_agree_across_spellings_and_threads() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = planted(D, 300, 300, 250, 23);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    // Aligned pairs scored by the margin over the two-index neighbourhoods.
    let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, 4));
    let (nb, xu, yu) = two_index_search(&miner, &x, &y);
    let scorer =
        bitext_similarity::MarginScorer::new(miner.margin(&nb).unwrap(), xu.view(), yu.view())
            .unwrap();
    let aligned: Vec<(usize, usize)> = (0..300).map(|i| (i, i)).collect();
    let scores = scorer.score(&aligned).unwrap();
    let want: Vec<ScoredPair> = aligned
        .iter()
        .zip(scores)
        .map(|(&(i, j), s)| ScoredPair::new(s, i, j))
        .collect();
    let want = lines(&want);
    for (index, threads) in [("exact", "1"), (r#"{"type":"exact"}"#, "2"), ("exact", "0")] {
        let a = [
            "--mode",
            "score",
            "-k",
            "4",
            "--index",
            index,
            "--threads",
            threads,
        ];
        assert!(mine(&xp, &yp, &a) == want, "score {index} {threads}");
    }
    let search = |index: &str, threads: &str| {
        mine(
            &xp,
            &yp,
            &[
                "--mode",
                "search",
                "-k",
                "1",
                "--index",
                index,
                "--threads",
                threads,
            ],
        )
    };
    let first = search("exact", "1");
    assert!(first.starts_with(" - errors: "), "{first}");
    assert_eq!(search(r#"{"type":"exact","query_block":32}"#, "2"), first);
}
