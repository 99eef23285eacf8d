//! End-to-end tests of `bitext mine` on small embedding and sentence files built here.

use std::path::Path;
use std::process::Command;

use bitext_core::io::npy;
use bitext_core::{Embeddings, Rng};

mod common;
use common::{COLS, bitext, cli, fail, mine_embeddings, read, succeed, write_pair, write_raw};

/// 30 sources and 35 targets in 64 dimensions; target `j < 10` is a noisy copy of source
/// `9 - j` (the gold pairs are (9,0), (8,1), …, (0,9)). Rows are not normalised: the miner must
/// normalise them.
fn data(seed: u64) -> (Embeddings, Embeddings) {
    let mut rng = Rng::seed(seed);
    let mut row = || (0..D).map(|_| rng.normal() as f32).collect::<Vec<_>>();
    let x: Vec<Vec<f32>> = (0..30)
        .map(|_| row().iter().map(|v| 3.0 * v).collect())
        .collect();
    let mut y: Vec<Vec<f32>> = (0..35).map(|_| row()).collect();
    for (j, t) in y.iter_mut().enumerate().take(10) {
        let noise = row();
        *t = x[9 - j]
            .iter()
            .zip(&noise)
            .map(|(a, n)| a + 0.3 * n)
            .collect();
    }
    (
        Embeddings::from_rows(x, D).unwrap(),
        Embeddings::from_rows(y, D).unwrap(),
    )
}

const D: usize = 64;

fn mine(x: &Path, y: &Path) -> Command {
    mine_embeddings(D, x, y)
}

fn parse(out: &str) -> Vec<(f64, String, String)> {
    out.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "{l}");
            (f[0].parse().unwrap(), f[1].to_string(), f[2].to_string())
        })
        .collect()
}

#[test]
fn mines_planted_pairs_sorted_by_score_with_rows_ids_or_sentences() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = data(1);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let out = d.path().join("out.tsv");
    succeed(
        mine(&xp, &yp)
            .args(["-k", "2", "--retrieval", "intersect", "-o"])
            .arg(&out),
    );
    let pairs = parse(&read(&out));
    assert!(pairs.windows(2).all(|w| w[0].0 >= w[1].0), "{pairs:?}");
    let mut top: Vec<(usize, usize)> = pairs[..10]
        .iter()
        .map(|p| (p.1.parse().unwrap(), p.2.parse().unwrap()))
        .collect();
    top.sort_unstable();
    assert_eq!(
        top,
        (0..10).map(|i| (i, 9 - i)).collect::<Vec<_>>(),
        "{pairs:?}"
    );

    // BUCC files: ids; plain text: sentences. Same pairs, same scores.
    let bucc = |name: &str, n: usize, p: &str| {
        let path = d.path().join(name);
        let text: String = (0..n).map(|i| format!("{p}-{i:03}\tSatz {i}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    };
    let (xb, yb) = (bucc("x.bucc", 30, "de"), bucc("y.bucc", 35, "en"));
    let (stdout, _) = succeed(
        mine(&xp, &yp)
            .args(["-k", "2", "--retrieval", "intersect", "--src-text"])
            .arg(&xb)
            .arg("--trg-text")
            .arg(&yb),
    );
    let by_id = parse(&stdout);
    assert_eq!(by_id.len(), pairs.len());
    for (b, p) in by_id.iter().zip(&pairs) {
        let (i, j): (usize, usize) = (p.1.parse().unwrap(), p.2.parse().unwrap());
        assert_eq!(
            (b.0, &b.1, &b.2),
            (p.0, &format!("de-{i:03}"), &format!("en-{j:03}"))
        );
    }
    let plain = d.path().join("x.txt");
    std::fs::write(
        &plain,
        (0..30)
            .map(|i| format!("sentence number {i}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let (stdout, _) = succeed(mine(&xp, &yp).args(["-k", "2", "--src-text"]).arg(&plain));
    assert!(
        parse(&stdout)
            .iter()
            .all(|p| p.1.starts_with("sentence number "))
    );

    // .npy input gives the same output as raw.
    let (xn, yn) = (d.path().join("x.npy"), d.path().join("y.npy"));
    npy::write_npy(&xn, x.view()).unwrap();
    npy::write_npy(&yn, y.view()).unwrap();
    let (stdout, _) = succeed(&mut cli![
        "mine",
        "-q",
        "-k",
        "2",
        "--retrieval",
        "intersect",
        "--src-embeddings",
        &xn,
        "--trg-embeddings",
        &yn
    ]);
    assert_eq!(stdout, read(&out));
}

/// Every `--index` gives the pairs of the one-pass exact search: the exact index searched one
/// direction at a time (a JSON spec), and faiss's flat index when the CLI is built with it.
#[test]
fn index_backends_agree_with_the_one_pass_search() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = data(3);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let mine_with =
        |index: &str| parse(&succeed(mine(&xp, &yp).args(["-k", "3", "--index", index])).0);
    let one_pass = mine_with("exact");
    assert!(one_pass.len() >= 10, "{one_pass:?}");
    assert_eq!(mine_with(r#"{"type":"exact","query_block":4}"#), one_pass);
    #[cfg(feature = "faiss")]
    {
        let flat = mine_with("Flat");
        assert_eq!(flat.len(), one_pass.len());
        for (f, e) in flat.iter().zip(&one_pass) {
            assert_eq!((&f.1, &f.2), (&e.1, &e.2), "{flat:?}\n{one_pass:?}");
            assert!((f.0 - e.0).abs() < 1e-5, "{f:?} vs {e:?}");
        }
    }
}

#[test]
fn threshold_top_n_score_and_search_modes() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = data(2);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let all = parse(&succeed(mine(&xp, &yp).args(["-k", "3", "--margin", "distance"])).0);
    let cut = all[2].0;
    let (kept, _) = succeed(
        mine(&xp, &yp)
            .args(["-k", "3", "--margin", "distance", "--threshold"])
            .arg(cut.to_string()),
    );
    assert_eq!(
        parse(&kept).len(),
        3,
        "a pair scoring exactly the threshold is kept, as `filter --threshold` keeps it"
    );
    let (above, _) = succeed(
        mine(&xp, &yp)
            .args(["-k", "3", "--margin", "distance", "--threshold"])
            .arg(cut.next_up().to_string()),
    );
    assert_eq!(parse(&above), all[..2].to_vec());
    let (top, _) =
        succeed(mine(&xp, &yp).args(["-k", "3", "--margin", "distance", "--top-n", "1"]));
    assert_eq!(parse(&top), all[..1].to_vec());

    // Score mode: aligned pairs (i, i) in input order; needs equal sizes.
    fail(
        mine(&xp, &yp).args(["--mode", "score", "-k", "2"]),
        "--mode score scores aligned pairs",
    );
    let (out, _) = succeed(mine(&xp, &xp).args(["--mode", "score", "-k", "2"]));
    let scored = parse(&out);
    let order: Vec<String> = scored.iter().map(|p| p.1.clone()).collect();
    assert_eq!(order, (0..30).map(|i| i.to_string()).collect::<Vec<_>>());
    assert!(scored.iter().all(|p| p.1 == p.2 && p.0 > 1.0), "{scored:?}");

    // Search mode: the 1-NN error against the identity, as LASER prints it.
    let rev = Embeddings::from_rows((0..30).rev().map(|i| x.row(i).to_vec()), D).unwrap();
    let rp = write_raw(d.path(), "rev.f32", &rev);
    let (out, _) = succeed(mine(&xp, &xp).args(["--mode", "search", "-k", "1"]));
    assert!(out.starts_with(" - errors: 0=0.00%"), "{out}");
    let (out, _) = succeed(mine(&xp, &rp).args(["--mode", "search", "-k", "1"]));
    assert!(out.starts_with(" - errors: 30=100.00%"), "{out}");
}

#[test]
fn bad_inputs_are_clear_errors() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = data(3);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    // A neighbourhood larger than a side is all of that side (said once), as LASER's search
    // over a smaller index returns it whole.
    let (all, err) = succeed(mine(&xp, &yp).args(["-k", "36", "--margin", "distance"]));
    assert!(
        err.contains("neighbourhoods of 35 targets and 30 sources (asked: 36 and 36)"),
        "{err}"
    );
    let (fitted, _) =
        succeed(mine(&xp, &yp).args(["--src-k", "35", "--tgt-k", "30", "--margin", "distance"]));
    assert_eq!(all, fitted);
    assert!(parse(&all).len() >= 10);
    let (xn, yn) = (d.path().join("x.npy"), d.path().join("y4.npy"));
    npy::write_npy(&xn, x.view()).unwrap();
    let y4 = Embeddings::from_rows(y.rows().map(|r| r[..4].to_vec()), 4).unwrap();
    npy::write_npy(&yn, y4.view()).unwrap();
    fail(
        bitext()
            .args(["mine", "--src-embeddings"])
            .arg(&xn)
            .arg("--trg-embeddings")
            .arg(&yn),
        "dimension mismatch",
    );
    let mut nan = y.clone();
    nan.row_mut(5)[2] = f32::NAN;
    let np = d.path().join("nan.f32");
    let bytes: Vec<u8> = nan
        .as_slice()
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&np, bytes).unwrap();
    fail(
        &mut mine(&xp, &np),
        "target embeddings: row 5, column 2 is NaN",
    );
    let empty = d.path().join("empty.f32");
    std::fs::write(&empty, b"").unwrap();
    fail(&mut mine(&empty, &yp), "empty.f32: file is empty");
    let short = d.path().join("short.txt");
    std::fs::write(&short, "one\ntwo\n").unwrap();
    fail(
        mine(&xp, &yp).arg("--src-text").arg(&short),
        "has 2 sentences but",
    );
    fail(
        mine(&xp, &yp).args(["--index", r#"{"type":"annoy"}"#]),
        "--index",
    );
    fail(
        mine(&xp, &yp).args(["--index", r#"{"type":"exact","metric":"l2"}"#]),
        "needs an inner-product index",
    );
    fail(
        bitext()
            .args(["mine", "--src-embeddings"])
            .arg(&xp)
            .arg("--trg-embeddings")
            .arg(&yp),
        "give --dim",
    );
    fail(mine(&xp, &yp).args(["-k", "0"]), "at least one neighbour");
}

#[test]
fn filter_keeps_the_best_lines_within_a_word_budget() {
    let d = tempfile::tempdir().unwrap();
    // Four aligned pairs; cosines 1, 0.8, 0, 0.6 by construction.
    let x = Embeddings::from_rows([[1.0f32, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], 2).unwrap();
    let y = Embeddings::from_rows([[2.0f32, 0.0], [0.8, 0.6], [0.0, 1.0], [0.6, 0.8]], 2).unwrap();
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let input = d.path().join("in.tsv");
    std::fs::write(
        &input,
        "u\tein Haus\ta house\nu\tzwei\ttwo words\nu\tnein\tno\n\
         u\tdrei Wörter hier\tthree words here\n",
    )
    .unwrap();
    let out = d.path().join("out.tsv");
    let filter_with = |y: &Path| {
        cli![
            "filter",
            "--dim",
            "2",
            "--input",
            &input,
            "--src-embeddings",
            &xp,
            "--trg-embeddings",
            y,
            "-o",
            &out
        ]
    };
    let filter = |extra: &[&str]| succeed(filter_with(&yp).arg("-q").args(COLS).args(extra));
    // By score: line 1 (2 words), 2 (2 → 4), 4 (3 → 7), 3 (1 → 8). Budget 6 stops before 4.
    let (_, err) = filter(&["--budget-words", "6"]);
    assert!(err.contains("kept 2 of 4 lines (4 words"), "{err}");
    let got = read(&out);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("u\tein Haus\ta house\t"));
    let s: f64 = lines[1].rsplit('\t').next().unwrap().parse().unwrap();
    assert!((s - 0.8).abs() < 1e-6, "{s}");
    filter(&["--budget-lines", "3", "--decimals", "2"]);
    assert!(read(&out).ends_with("three words here\t0.60\n"));
    let short = write_raw(
        d.path(),
        "short.f32",
        &Embeddings::from_rows([[1.0f32, 0.0]], 2).unwrap(),
    );
    fail(&mut filter_with(&short), "one row per line");
}

/// Zero rows (`bitext embed --zero-unknown`) are refused, naming the file, the row and the
/// flag; with `--skip-zero-rows` they are never candidates and the output names original rows.
#[test]
fn zero_rows_are_refused_or_left_out() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = data(7);
    let zero_at = |e: &Embeddings, rows: &[usize]| {
        let mut e = e.clone();
        for &r in rows {
            e.row_mut(r).iter_mut().for_each(|v| *v = 0.0);
        }
        e
    };
    // Source 3 (gold partner: target 6) and target 2 (gold partner: source 7) become zeros.
    let (xp, yp) = write_pair(d.path(), &zero_at(&x, &[3, 20]), &zero_at(&y, &[2]));
    fail(
        &mut mine(&xp, &yp),
        "x.f32: row 3 is all zeros (2 such rows)",
    );
    let e = fail(&mut mine(&xp, &yp), "--skip-zero-rows");
    assert!(!e.contains("panicked"), "{e}");
    let (out, err) = succeed(mine(&xp, &yp).args(["--skip-zero-rows", "--retrieval", "intersect"]));
    assert!(
        err.contains("left out all-zero rows: 2 (3, 20) of") && err.contains("1 (2) of"),
        "{err}"
    );
    let pairs = parse(&out);
    let gold: Vec<(String, String)> = (0..10)
        .filter(|&j| j != 6 && j != 2)
        .map(|j| ((9 - j).to_string(), j.to_string()))
        .collect();
    for g in &gold {
        assert!(
            pairs.iter().any(|(_, s, t)| (s, t) == (&g.0, &g.1)),
            "{g:?} not in {pairs:?}"
        );
    }
    assert!(
        pairs
            .iter()
            .all(|(_, s, t)| s != "3" && s != "20" && t != "2")
    );
    // Aligned scoring leaves out the pairs with a zero row on either side.
    let (xs, ys) = (zero_at(&x, &[1]), zero_at(&x, &[4]));
    let (xp, yp) = write_pair(d.path(), &xs, &ys);
    let (out, _) = succeed(mine(&xp, &yp).args(["--skip-zero-rows", "--mode", "score"]));
    let rows: Vec<String> = parse(&out).into_iter().map(|(_, s, _)| s).collect();
    assert_eq!(rows.len(), 28);
    assert!(!rows.contains(&"1".to_string()) && !rows.contains(&"4".to_string()));
}

/// `--unify`: a sentence that repeats an earlier one is mined once, and written at its first
/// occurrence, or at every combination of occurrences.
#[test]
fn unify_mines_each_sentence_once() {
    let d = tempfile::tempdir().unwrap();
    let (mut x, mut y) = data(3);
    // Source 25 repeats source 9 (gold partner: target 0); target 30 repeats target 0.
    let (r9, r0) = (x.row(9).to_vec(), y.row(0).to_vec());
    x.row_mut(25).copy_from_slice(&r9);
    y.row_mut(30).copy_from_slice(&r0);
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let text = |n: usize, prefix: &str, dup: (usize, usize)| {
        let lines: Vec<String> = (0..n)
            .map(|i| {
                let s = if i == dup.1 { dup.0 } else { i };
                format!("{prefix}-{i}\tsentence {prefix} {s}")
            })
            .collect();
        lines.join("\n") + "\n"
    };
    let st = common::write(d.path(), "s.txt", text(30, "de", (9, 25)));
    let tt = common::write(d.path(), "t.txt", text(35, "en", (0, 30)));
    let run = |extra: &[&str]| {
        let (out, err) = succeed(
            mine(&xp, &yp)
                .args(["--retrieval", "intersect", "--src-text"])
                .arg(&st)
                .arg("--tgt-text")
                .arg(&tt)
                .args(extra),
        );
        (parse(&out), err)
    };
    let (first, err) = run(&["--unify"]);
    assert!(err.contains("--unify: 1 of 30 sentences of"), "{err}");
    assert!(
        first.iter().any(|(_, s, t)| s == "de-9" && t == "en-0"),
        "{first:?}"
    );
    assert!(first.iter().all(|(_, s, t)| s != "de-25" && t != "en-30"));
    let (all, _) = run(&["--unify", "all"]);
    let with_9: Vec<(String, String)> = all
        .iter()
        .filter(|(_, s, _)| s == "de-9" || s == "de-25")
        .map(|(_, s, t)| (s.clone(), t.clone()))
        .collect();
    assert_eq!(
        with_9,
        [
            ("de-9", "en-0"),
            ("de-9", "en-30"),
            ("de-25", "en-0"),
            ("de-25", "en-30")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!(all.len(), first.len() + 3);
    fail(
        mine(&xp, &yp).arg("--unify"),
        "give --src-text and --tgt-text",
    );
    fail(
        mine(&xp, &yp)
            .args(["--unify", "--mode", "score"])
            .arg("--src-text")
            .arg(&st)
            .arg("--tgt-text")
            .arg(&tt),
        "does not apply to --mode score",
    );
}
