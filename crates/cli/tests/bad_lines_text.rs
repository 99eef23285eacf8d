//! `--bad-lines error|skip` and `--rejects` of the commands that read text (embed, mine,
//! align-docs, the neural trainings, lid, extract, emd, tokenize, eval; `bad_lines.rs` has those
//! that read a TSV of pairs): `skip` leaves an unreadable line out (both sides of line-parallel
//! files together), writes it to the rejects file and counts it; where a line left out would put
//! rows out of step or change what is measured (`mine --mode score`, one document pair of
//! `align-docs`, gold files), `skip` is refused, saying why.

mod common;

use std::path::Path;
use std::process::Command;

use common::{cli, fail, read, skip, skipping, succeed, with_input};

/// German and English one-hot word vectors in `dir`, as a bag-of-words encoder spec.
fn bow(dir: &Path) -> String {
    let de = ["das", "haus", "ist", "rot", "guten", "morgen"];
    let en = ["the", "house", "is", "red", "good", "morning"];
    let vec = |l: &[&str]| common::one_hot_vectors(l);
    let (de, en) = common::word_vectors(dir, &vec(&de), &vec(&en));
    common::bow_spec(&de, &en)
}

/// A German text with a line that is not UTF-8 (2) and an empty line (3); the same without.
const TEXT: &[u8] = b"das haus\nist \xff rot\n\nguten morgen\n";
const CLEAN_TEXT: &str = "das haus\nguten morgen\n";
const TEXT_REJECTED: &str =
    "2\tinvalid UTF-8 at byte 4 of the line\tist \u{fffd} rot\n3\tempty line\t\n";

#[test]
fn embed_leaves_out_bad_lines_and_writes_a_row_per_line_kept() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let input = common::write(d.path(), "de.txt", TEXT);
    let clean = common::write(d.path(), "clean.txt", CLEAN_TEXT);
    let (out, want, rejects) = (
        d.path().join("x.npy"),
        d.path().join("w.npy"),
        d.path().join("r.tsv"),
    );
    let embed = |input: &Path, out: &Path| common::embed_with(input, &spec, out);
    fail(
        &mut embed(&input, &out),
        "de.txt:2: invalid UTF-8 at byte 4 of the line",
    );
    let (_, err) = succeed(embed(&input, &out).args(skipping(&rejects)));
    assert!(
        err.contains("skipped 2 lines of") && err.contains("de.txt"),
        "{err}"
    );
    assert_eq!(read(&rejects), TEXT_REJECTED);
    succeed(&mut embed(&clean, &want));
    let (got, want) = (npy(&out), npy(&want));
    assert_eq!((got.len(), got.as_slice()), (2, want.as_slice()));
    // Zero rows are listed by their line in the input, skipped lines counted.
    let unknown = common::write(d.path(), "u.txt", b"das haus\n\xfe\nxyz\nrot\n");
    let list = d.path().join("unknown.txt");
    let mut cmd = embed(&unknown, &out);
    cmd.args(skipping(&rejects))
        .arg("--zero-unknown")
        .arg("--unknown-list")
        .arg(&list);
    let (_, err) = succeed(&mut cmd);
    assert!(
        err.contains("1 sentences had no known word and got zero rows (lines 3)"),
        "{err}"
    );
    assert_eq!((read(&list), npy(&out).len()), ("3\n".to_string(), 3));
}

#[test]
fn embed_skips_the_same_bucc_lines_with_every_encoder() {
    let d = tempfile::tempdir().unwrap();
    let bucc = b"de-1\tdas haus\nde-2\nde-1\tguten morgen\nde-3\tist rot\n";
    let input = common::write(d.path(), "de.tsv", bucc);
    let want = "2\tmissing tab: expected id<TAB>sentence\tde-2\n\
                3\tduplicate id de-1 (first on line 1)\tde-1\tguten morgen\n";
    // The bag of words reads the file whole; a model streams it.
    #[allow(unused_mut)]
    let mut specs = vec![bow(d.path())];
    #[cfg(feature = "neural")]
    specs.push(format!("model:{}", common::aligner(d.path()).display()));
    for spec in specs {
        let (out, rejects) = (d.path().join("x.npy"), d.path().join("r.tsv"));
        fail(
            &mut common::embed_with(&input, &spec, &out),
            "de.tsv:2: missing tab",
        );
        succeed(common::embed_with(&input, &spec, &out).args(skipping(&rejects)));
        assert_eq!(read(&rejects), want, "{spec}");
        assert_eq!(npy(&out).len(), 2);
    }
}

/// `bitext mine --encoder SPEC` of the German `src` against the English `tgt`, names as text.
fn mine_text(spec: &str, src: &Path, tgt: &Path, out: &Path) -> Command {
    let mut cmd = cli![
        "mine",
        "-q",
        "--encoder",
        spec,
        "--src-text",
        src,
        "--tgt-text",
        tgt
    ];
    cmd.args(["-k", "1", "--text-format", "plain", "-o"])
        .arg(out);
    cmd
}

#[test]
fn mine_with_an_encoder_skips_the_same_lines_in_its_rows_and_names() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let de = common::write(d.path(), "de.txt", TEXT);
    let en = common::write(d.path(), "en.txt", b"good morning\n\xc3\nthe house\n");
    let clean_de = common::write(d.path(), "clean.de", CLEAN_TEXT);
    let clean_en = common::write(d.path(), "clean.en", "good morning\nthe house\n");
    let (out, want, rejects) = (
        d.path().join("m.tsv"),
        d.path().join("w.tsv"),
        d.path().join("r.tsv"),
    );
    fail(
        &mut mine_text(&spec, &de, &en, &out),
        "de.txt:2: invalid UTF-8",
    );
    let (_, err) = succeed(mine_text(&spec, &de, &en, &out).args(skipping(&rejects)));
    assert!(
        err.contains("skipped 3 lines (2 of") && err.contains("1 of"),
        "{err}"
    );
    let (dn, en_name) = (de.display(), en.display());
    assert_eq!(
        read(&rejects),
        format!(
            "2\t{dn}: invalid UTF-8 at byte 4 of the line\tist \u{fffd} rot\n\
             3\t{dn}: empty line\t\n\
             2\t{en_name}: invalid UTF-8 at byte 0 of the line\t\u{fffd}\n"
        )
    );
    succeed(&mut mine_text(&spec, &clean_de, &clean_en, &want));
    assert_eq!(read(&out), read(&want));
    assert_eq!(read(&out).lines().count(), 2);
}

#[test]
fn mine_refuses_to_skip_where_rows_would_go_out_of_step() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let de = common::write(d.path(), "de.txt", TEXT);
    let (out, rejects) = (d.path().join("m.tsv"), d.path().join("r.tsv"));
    let e = bitext_core::Embeddings::new(vec![1.0; 8], 2).unwrap();
    let (x, y) = common::write_pair(d.path(), &e, &e);
    let mut made_elsewhere = cli!["mine", "-q", "--dim", "2", "--src-embeddings", &x];
    made_elsewhere
        .arg("--tgt-embeddings")
        .arg(&y)
        .arg("--src-text")
        .arg(&de);
    made_elsewhere.args(skipping(&rejects));
    fail(&mut made_elsewhere, "--bad-lines skip needs --encoder");
    let mut score = mine_text(&spec, &de, &de, &out);
    score.args(["--mode", "score"]).args(skipping(&rejects));
    fail(&mut score, "--bad-lines skip is refused with --mode score");
    let mut sharded = mine_text(&spec, &de, &de, &out);
    sharded
        .args(["--shards", "2", "--work-dir"])
        .arg(d.path().join("w"))
        .args(skipping(&rejects));
    fail(&mut sharded, "not available with --shards");
    assert!(!out.exists());
}

#[test]
fn align_docs_skips_a_document_pair_that_cannot_be_read() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let de = common::write(d.path(), "a.de", CLEAN_TEXT);
    let en = common::write(d.path(), "a.en", "good morning\nthe house\n");
    let bad = common::write(d.path(), "b.de", b"das haus\n\xffguten\n");
    let (out1, out2) = (d.path().join("a.beads"), d.path().join("b.beads"));
    let list_text = format!(
        "{}\t{}\t{}\n{}\t{}\t{}\nonly\ttwo\n",
        de.display(),
        en.display(),
        out1.display(),
        bad.display(),
        en.display(),
        out2.display()
    );
    let list = common::write(d.path(), "docs.tsv", list_text);
    let rejects = d.path().join("r.tsv");
    let align = || cli!["align-docs", "-q", "--encoder", &spec, "--docs", &list];
    fail(&mut align(), "docs.tsv:3: expected 3 tab-separated fields");
    let (_, err) = succeed(align().args(skipping(&rejects)));
    assert!(
        err.contains("skipped 2 lines of") && err.contains("docs.tsv"),
        "{err}"
    );
    assert!(out1.exists() && !out2.exists());
    assert_eq!(
        read(&rejects),
        format!(
            "2\t{}:2: invalid UTF-8 at byte 0 of the line\t{}\t{}\t{}\n\
             3\texpected 3 tab-separated fields (source<TAB>target<TAB>output), found 2\tonly\ttwo\n",
            bad.display(),
            bad.display(),
            en.display(),
            out2.display()
        )
    );
    // One pair: its beads number every line, so none is left out.
    let mut one = cli![
        "align-docs",
        "--encoder",
        &spec,
        "--src-text",
        &bad,
        "--tgt-text",
        &en
    ];
    one.args(skipping(&rejects));
    fail(&mut one, "--bad-lines skip works with --docs");
}

/// The rows of a `.npy` file.
fn npy(path: &Path) -> bitext_core::Embeddings {
    bitext_core::io::npy::read_npy(path).unwrap()
}

#[cfg(feature = "neural")]
#[test]
fn training_skips_bad_lines_of_every_input_and_pairs_of_parallel_files_together() {
    let (dir, src, tgt, _) = common::toy_corpus(30, 3, 6);
    let mut bad_src = std::fs::read(&src).unwrap();
    bad_src.extend(b"a1 \xff a2\n\na3 a4\n");
    let mut bad_tgt = std::fs::read(&tgt).unwrap();
    bad_tgt.extend(b"b1 b2\nb3\n\n");
    let (s, t) = (
        common::write(dir.path(), "s.txt", bad_src),
        common::write(dir.path(), "t.txt", bad_tgt),
    );
    let tsv = common::write(dir.path(), "more.tsv", b"a1 a2\tb1 b2\nno tab here\n");
    let mono = common::write(dir.path(), "mono.txt", b"b1 b2\n\xfe\n");
    let (model, rejects) = (dir.path().join("ae"), dir.path().join("r.tsv"));
    let train = || {
        let mut c = cli![
            "train",
            "autoencoder",
            "--src-text",
            &s,
            "--tgt-text",
            &t,
            "--input",
            &tsv
        ];
        c.arg("--mono").arg(&mono).arg("-o").arg(&model);
        c.args([
            "--preset",
            "small",
            "--min-count",
            "1",
            "--epochs",
            "1",
            "-q",
        ]);
        c
    };
    fail(&mut train(), "s.txt:31: invalid UTF-8");
    assert!(!model.exists());
    let (_, err) = succeed(train().args(skipping(&rejects)));
    assert!(err.contains("skipped 5 lines (3 of"), "{err}");
    let (sn, tn) = (s.display(), t.display());
    assert_eq!(
        read(&rejects),
        format!(
            "31\t{sn}: invalid UTF-8 at byte 3 of the line\ta1 \u{fffd} a2\tb1 b2\n\
             32\t{sn}: empty line\t\tb3\n\
             33\t{tn}: empty line\ta3 a4\t\n\
             2\t{}: 1 tab-separated fields, but 2 are needed (source in column 1, target in column 2)\tno tab here\n\
             2\t{}: invalid UTF-8 at byte 0 of the line\t\u{fffd}\n",
            tsv.display(),
            mono.display()
        )
    );
    assert!(model.join("model.json").exists());
}

/// Three sentences, the second not UTF-8, and the rejects line it makes (as `FILE: reason`
/// when the command names its inputs, as `name` does).
fn one_bad_sentence(name: &str) -> (&'static [u8], String) {
    let text = b"Das Haus ist rot.\nbad \xff byte\nLa maison est rouge.\n";
    let reason = "invalid UTF-8 at byte 4 of the line";
    let reason = if name.is_empty() {
        reason.to_string()
    } else {
        format!("{name}: {reason}")
    };
    (text, format!("2\t{reason}\tbad \u{fffd} byte\n"))
}

/// `cmd()` must stop with `error` by default, and with `skip` (the flags of `--bad-lines skip`,
/// `-q` among them or not) succeed, saying `skipped {skipped}` on standard error: its stdout.
fn stops_then_skips(
    cmd: impl Fn() -> Command,
    error: &str,
    skip: &[&str],
    skipped: &str,
) -> String {
    fail(&mut cmd(), error);
    let (out, err) = succeed(cmd().args(skip));
    assert!(err.contains(&format!("skipped {skipped}")), "{err}");
    out
}

#[test]
fn lid_skips_a_line_that_is_not_utf8_and_labels_the_lines_kept() {
    let (text, rejected) = one_bad_sentence("");
    let (dir, input) = with_input(text);
    let model = common::toy_lid(dir.path());
    let (out, rejects) = (dir.path().join("langs.tsv"), dir.path().join("rej.tsv"));
    let lid = || cli!["lid", "--input", &input, "-o", &out, "--lid-model", &model];
    let error = "in.tsv:2: invalid UTF-8 at byte 4 of the line";
    stops_then_skips(lid, error, &skip(&rejects), "1 line of");
    assert_eq!(read(&rejects), rejected);
    let langs: Vec<String> = common::rows(&out)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(langs, ["de", "fr"], "one row per line kept, in order");
    let (help, _) = succeed(&mut cli!["lid", "--help"]);
    assert!(help.contains("one row per line kept"), "{help}");
}

#[test]
fn extract_skips_unreadable_sentences_of_either_side_and_refuses_knn() {
    let (text, _) = one_bad_sentence("");
    let (dir, src) = common::with_file("src.txt", text);
    let tgt = common::write(dir.path(), "tgt.txt", "The house is red.\n\nLa maison.\n");
    let clean = [
        "Das Haus ist rot.\nLa maison est rouge.\n",
        "The house is red.\nLa maison.\n",
    ];
    let clean_src = common::write(dir.path(), "csrc.txt", clean[0]);
    let clean_tgt = common::write(dir.path(), "ctgt.txt", clean[1]);
    let (out, want) = (dir.path().join("out.tsv"), dir.path().join("want.tsv"));
    let rejects = dir.path().join("rej.tsv");
    let extract = |s: &Path, t: &Path, o: &Path| {
        let mut cmd = cli!["extract", "--src-text", s, "--tgt-text", t, "-o", o];
        cmd.args(["--scorer", "levenshtein", "--threshold", "0"]);
        cmd
    };
    let error = "src.txt:2: invalid UTF-8";
    let kept = || extract(&src, &tgt, &out);
    stops_then_skips(kept, error, &skipping(&rejects), "2 lines (1 of");
    let (_, rejected) = one_bad_sentence(&src.display().to_string());
    let empty = format!("2\t{}: empty line\t\n", tgt.display());
    assert_eq!(read(&rejects), format!("{rejected}{empty}"));
    succeed(&mut extract(&clean_src, &clean_tgt, &want));
    assert_eq!(read(&out), read(&want));
    assert_eq!(read(&out).lines().count(), 2);
    let mut knn = extract(&src, &tgt, &out);
    knn.args(["--pairs", "knn", "--src-embeddings", "x.npy"]);
    knn.args(["--tgt-embeddings", "y.npy"])
        .args(skipping(&rejects));
    fail(&mut knn, "--bad-lines skip is refused with --pairs knn");
}

#[test]
fn emd_check_skips_unreadable_cases_and_translate_refuses_to_skip() {
    let case = r#"{"n": 2, "m": 2, "a": [0.75, 0.25], "b": [0.5, 0.5], "cost": [0.0, 1.0, 1.0, 0.0], "optimum": 0.25}"#;
    let cases = format!("{case}\n{{\"n\": 1}}\n\n{case}\n");
    let (dir, cases) = common::with_file("cases.jsonl", cases);
    let rejects = dir.path().join("rej.tsv");
    let check = || cli!["emd", "check", "--min-time", "0", "--cases", &cases];
    let error = "cases.jsonl:2: not a case";
    let out = stops_then_skips(check, error, &skip(&rejects), "1 line of");
    assert!(out.contains("2 cases, largest relative deviation"), "{out}");
    let rejected = read(&rejects);
    assert!(rejected.starts_with("2\tnot a case: "), "{rejected}");
    assert!(rejected.ends_with("\t{\"n\": 1}\n"), "{rejected}");
    let only_bad = common::write(dir.path(), "bad.jsonl", "{\"n\": 1}\n");
    let mut check = cli!["emd", "check", "--min-time", "0", "--cases", &only_bad];
    fail(check.args(skip(&rejects)), "no cases");
    let mut translate = cli!["emd", "translate", "--src-vec", "a.vec"];
    translate.args([
        "--src-freq",
        "a.freq",
        "--tgt-vec",
        "b.vec",
        "--tgt-freq",
        "b.freq",
    ]);
    translate
        .arg("-o")
        .arg(dir.path().join("out.tsv"))
        .args(skip(&rejects));
    fail(
        &mut translate,
        "--bad-lines skip is refused by emd translate",
    );
}

/// `n` lines of German words, seeded by their number.
fn sentences(n: usize) -> String {
    let words = "das haus ist rot guten morgen grün und nicht";
    let words: &Vec<&str> = &words.split(' ').collect();
    let line = |i: usize| (0..5).map(move |k| words[(i * 7 + k * k * 3 + i / 9) % 9]);
    (0..n)
        .map(|i| line(i).collect::<Vec<_>>().join(" ") + "\n")
        .collect()
}

#[test]
fn tokenize_skips_lines_that_are_not_utf8_in_train_encode_and_decode() {
    let mut text = sentences(200).into_bytes();
    text.extend_from_slice(b"bad \xff byte\n");
    let (dir, input) = common::with_file("train.de", &text);
    let clean = common::write(dir.path(), "clean.de", sentences(200));
    let (model, want) = (dir.path().join("m.model"), dir.path().join("want.model"));
    let rejects = dir.path().join("rej.tsv");
    let train = |input: &Path, model: &Path| {
        let mut cmd = common::tokenize_train(input, 30, model);
        cmd.args(["--model-type", "bpe", "--threads", "1"]);
        cmd
    };
    let error = "train.de:201: invalid UTF-8 at byte 4";
    let trained = || train(&input, &model);
    stops_then_skips(trained, error, &skip(&rejects), "1 line (1 of");
    let name = input.display();
    let why = "invalid UTF-8 at byte 4 of the line";
    assert_eq!(
        read(&rejects),
        format!("201\t{name}: {why}\tbad \u{fffd} byte\n")
    );
    succeed(&mut train(&clean, &want));
    assert_eq!(
        std::fs::read(&model).unwrap(),
        std::fs::read(&want).unwrap()
    );

    let lines = common::write(dir.path(), "in.txt", b"das haus\nbad \xff\n\nist rot\n");
    let out = dir.path().join("out.txt");
    let code = |sub: &str, input: &Path| {
        let mut cmd = cli![
            "tokenize", sub, "--model", &model, "--input", input, "-o", &out
        ];
        cmd.args(
            ["--empty", "error"]
                .iter()
                .take(if sub == "encode" { 2 } else { 0 }),
        );
        cmd
    };
    let encode = || code("encode", &lines);
    stops_then_skips(
        encode,
        "in.txt:2: invalid UTF-8",
        &skip(&rejects),
        "2 lines (2 of",
    );
    let name = lines.display();
    let bad = format!("2\t{name}: {why}\tbad \u{fffd}\n");
    assert_eq!(read(&rejects), format!("{bad}3\t{name}: empty line\t\n"));
    let ids = read(&out);
    assert_eq!(ids.lines().count(), 2, "one line per line kept: {ids}");
    let mut bad_ids = ids.into_bytes();
    bad_ids.extend_from_slice(b"\xff\n");
    let ids = common::write(dir.path(), "ids.txt", bad_ids);
    let decode = || code("decode", &ids);
    let error = "ids.txt:3: invalid UTF-8 at byte 0";
    stops_then_skips(decode, error, &skipping(&rejects), "1 line (1 of");
    assert_eq!(read(&out), "das haus\nist rot\n");
    assert_eq!(
        read(&rejects),
        format!(
            "3\t{}: invalid UTF-8 at byte 0 of the line\t\u{fffd}\n",
            ids.display()
        )
    );
}

#[test]
fn eval_bucc_skips_sentence_lines_and_reads_gold_and_mined_whole() {
    let (dir, gold, mined) = common::gold_and_mined(2, "0.9\td1\te1\n0.8\td2\te2\n");
    let src = common::write(dir.path(), "src.tsv", b"d1\tEins\nd2\tZwei\nd3\tbad \xff\n");
    let tgt = common::write(dir.path(), "tgt.tsv", "e1\tOne\ne2\tTwo\nno tab\n");
    let rejects = dir.path().join("rej.tsv");
    let eval = || {
        let mut cmd = common::eval_bucc(&gold, &mined);
        cmd.arg("--src-text").arg(&src).arg("--tgt-text").arg(&tgt);
        cmd
    };
    let error = "src.tsv:3: invalid UTF-8";
    let out = stops_then_skips(eval, error, &skip(&rejects), "2 lines (1 of");
    assert!(out.contains("mined pairs: 2  gold pairs: 2"), "{out}");
    let (s, t) = (src.display(), tgt.display());
    let bad = format!("3\t{s}: invalid UTF-8 at byte 7 of the line\td3\tbad \u{fffd}\n");
    let no_tab = format!("3\t{t}: missing tab: expected id<TAB>sentence\tno tab\n");
    assert_eq!(read(&rejects), format!("{bad}{no_tab}"));
    fail(
        common::eval_bucc(&gold, &mined).args(skip(&rejects)),
        "--bad-lines skip is refused for --gold and --mined",
    );
    let beads = common::write(dir.path(), "g.beads", "[0]:[0]\n");
    fail(
        cli!["eval", "beads", "--gold", &beads, "--test", &beads].args(skip(&rejects)),
        "--bad-lines skip is refused for --gold and --test beads",
    );
}
