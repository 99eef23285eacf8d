//! End-to-end: `bitext train siamese --teacher SPEC` (distillation) on small files built here,
//! with a bag-of-words teacher over target-language vectors (any encoder spec is a teacher):
//! pairs from text files and a TSV together, the teacher's vectors cached and reused, the
//! validation reporting the cosine with the teacher, and the errors for a missing or
//! mismatched teacher.

#![cfg(feature = "neural")]

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{cli, corpus_dir, fail, read, succeed};

/// A `.vec` of the words `{prefix}0 … {prefix}14`, `dim` values each.
fn vec_file(dir: &Path, name: &str, prefixes: &[&str], dim: usize) -> PathBuf {
    common::toy_vectors(dir, name, prefixes, dim, 5)
}

/// A distillation's files in a fresh temporary folder: the [`corpus_dir`] of 30 pairs, the
/// student's vectors of both languages (`v.vec`) and the teacher's of the target language
/// (`t.vec`), 16 dimensions each. The folder, `src.txt`, `tgt.txt`, `pairs.tsv`, the student's
/// vectors and the teacher's.
fn distillation() -> (
    tempfile::TempDir,
    PathBuf,
    PathBuf,
    PathBuf,
    PathBuf,
    PathBuf,
) {
    let (d, src, tgt, tsv) = corpus_dir(30);
    let student_vectors = vec_file(d.path(), "v.vec", &["a", "b"], 16);
    let teacher = vec_file(d.path(), "t.vec", &["b"], 16);
    (d, src, tgt, tsv, student_vectors, teacher)
}

/// `bitext train KIND --src-text SRC --tgt-text TGT`, for the caller's options.
fn train_text(kind: &str, src: &Path, tgt: &Path) -> Command {
    cli!["train", kind, "--src-text", src, "--tgt-text", tgt]
}

/// `bitext train siamese` on `src` and `tgt` as a small student of a bag over the fixed
/// `vectors` (16 dimensions), its teacher's vectors cached in `cache`, for `epochs` epochs.
fn small_student(
    (src, tgt): (&Path, &Path),
    vectors: &Path,
    cache: &Path,
    epochs: &str,
) -> Command {
    let mut c = train_text("siamese", src, tgt);
    c.args(["--preset", "small", "--epochs", epochs, "--bag"])
        .args(["--emb-dim", "16", "--pooling", "max", "--min-count", "1"])
        .arg("--freeze-embeddings")
        .arg("--init-vectors")
        .arg(vectors)
        .arg("--teacher-cache")
        .arg(cache);
    c
}

#[test]
fn a_siamese_student_distils_a_teacher_and_reuses_its_vectors() {
    let (d, src, tgt, tsv, student_vectors, teacher) = distillation();
    let cache = d.path().join("cache");
    let train = |out: &str, extra: &[&str]| {
        let mut c = small_student((&src, &tgt), &student_vectors, &cache, "2");
        c.arg("--tsv")
            .arg(&tsv)
            .args(["--src-col", "2", "--tgt-col", "3"])
            .args(["--valid-fraction", "0.2"])
            .arg("-o")
            .arg(d.path().join(out))
            .args(extra);
        c
    };
    let teacher_spec = format!("bow:{}", teacher.display());
    let args = ["--teacher", &teacher_spec, "--objective", "ranking"];
    let (_, err) = succeed(&mut train("m1", &args));
    // 60 pairs (30 from the text files, 30 from the TSV, the same ones): 48 to train, 12 to
    // validate; the teacher embeds each distinct sentence once.
    assert!(
        err.contains("teacher: 29 distinct sentences of 48"),
        "{err}"
    );
    assert!(err.contains("embedded 29 sentences"), "{err}");
    assert!(
        err.contains("teacher: 11 distinct sentences of 12"),
        "{err}"
    );
    // The validation sentences the training list holds (10 of 11: pairs repeat) are read
    // from it; the teacher embeds the other.
    assert!(
        err.contains(
            "teacher: 10 of 11 sentences' vectors read from earlier runs' lists, 1 to embed"
        ),
        "{err}"
    );
    assert!(err.contains("embedded 1 sentences"), "{err}");
    assert!(err.contains("teacher cos src"), "{err}");
    let cached = std::fs::read_dir(&cache)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "npy")
        })
        .count();
    // The training list's, the validation list's and the one sentence embedded for it.
    assert_eq!(cached, 3);
    // Monolingual text the student learns from the teacher alone: 5 more training pairs.
    let mono = common::write(d.path(), "mono.txt", "b1 b2\nb3\nb4 b5 b6\nb7\nb8 b9\n");
    let (_, err) = succeed(
        train("m0", &["--teacher", &teacher_spec])
            .arg("--teacher-text")
            .arg(&mono),
    );
    assert!(err.contains("distinct sentences of 53"), "{err}");
    // Spans of the training sentences of at least 6 words (here the two long monolingual
    // ones), learnt from the teacher alone as well.
    let long = common::write(
        d.path(),
        "long.txt",
        "b1 b2 b3 b4 b5 b6 b7 b8\nb9 b10 b11 b12 b13 b14\n",
    );
    let (_, err) = succeed(
        train("m6", &["--teacher", &teacher_spec, "--teacher-spans", "2"])
            .arg("--teacher-text")
            .arg(&long),
    );
    let spans: usize = err
        .split(" spans of the training sentences")
        .next()
        .and_then(|h| h.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!((1..=4).contains(&spans), "{err}");
    assert!(
        err.contains(&format!("distinct sentences of {}", 48 + 2 + spans)),
        "{err}"
    );
    // The text files' training pairs three times: more rows, the same distinct sentences, so
    // the cached vectors serve.
    let (_, err) = succeed(&mut train(
        "m4",
        &["--teacher", &teacher_spec, "--text-repeat", "3"],
    ));
    let rows: usize = err
        .split("teacher: 29 distinct sentences of ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(rows > 48 && (rows - 48).is_multiple_of(2), "{rows}");
    assert!(!err.contains("embedded"), "{err}");
    // The same teacher and pairs: the vectors are read back, not recomputed.
    let (_, err) = succeed(&mut train(
        "m2",
        &["--teacher", &teacher_spec, "--distill-only"],
    ));
    assert_eq!(err.matches("reusing").count(), 2, "{err}");
    assert!(!err.contains("embedded"), "{err}");
    // Each sentence towards the teacher's vector of itself: a teacher that knows both
    // languages reads the source sentences too (training and validation, besides the
    // target's), the bag of the student passes through a hidden layer, and n-gram
    // convolutions sit beside its recurrence.
    let both = vec_file(d.path(), "both.vec", &["a", "b"], 16);
    let both_spec = format!("bow:{}", both.display());
    let (_, err) = succeed(&mut train(
        "m5",
        &[
            "--teacher",
            &both_spec,
            "--teacher-side",
            "both",
            "--bag-map",
            "--bag-hidden",
            "8",
            "--ngrams",
            "2,3",
            "--ngram-channels",
            "4",
        ],
    ));
    assert_eq!(err.matches("embedded").count(), 4, "{err}");
    assert!(err.contains("teacher cos src"), "{err}");
    let model = read(d.path().join("m5").join("model.json"));
    for field in [r#""bag_hidden": 8"#, r#""ngram_channels": 4"#] {
        assert!(
            model.contains(field) || model.contains(&field.replace(' ', "")),
            "{model}"
        );
    }
    assert!(model.contains(r#""ngrams""#), "{model}");
    // A teacher of another width than the student's vectors.
    let narrow = vec_file(d.path(), "n.vec", &["b"], 8);
    let narrow_spec = format!("bow:{}", narrow.display());
    fail(
        &mut train("m3", &["--teacher", &narrow_spec]),
        "8 dimensions but the student's 16",
    );
    // Flags that need another: refused by the parser, naming it.
    for (flags, needs) in [
        (&["--distill-only"][..], "--teacher <SPEC>"),
        (&["--bag-hidden", "8"][..], "--bag"),
        (&["--ngrams", "2,3"][..], "--bag"),
        (&["--ngram-channels", "8"][..], "--ngrams"),
        (&["--teacher-spans", "1"][..], "--teacher <SPEC>"),
    ] {
        fail(
            common::bitext()
                .args(["train", "siamese", "--tsv", "p.tsv", "-o", "x"])
                .args(flags),
            needs,
        );
    }
    // Convolutions over a table that trains: refused before training, naming the flag.
    fail(
        common::bitext()
            .args(["train", "siamese", "--tsv"])
            .arg(&tsv)
            .args([
                "--src-col",
                "2",
                "--tgt-col",
                "3",
                "--bag",
                "--min-count",
                "1",
            ])
            .args(["--ngrams", "2,3", "-o"])
            .arg(d.path().join("m7")),
        "the n-gram convolutions read a fixed table (they pass it no gradient); give \
         --freeze-embeddings",
    );
}

/// `--teacher-cache-limit`: once the cache passes it, the lists of earlier runs are removed,
/// and the run's own lists stay and serve the next run; a size that is not one is refused.
#[test]
fn the_teacher_cache_is_held_to_its_limit() {
    let (d, src, tgt, _, student_vectors, teacher) = distillation();
    let (cache, spec) = (d.path().join("cache"), format!("bow:{}", teacher.display()));
    let train = |out: &str, valid: &str, limit: &str| {
        let mut c = small_student((&src, &tgt), &student_vectors, &cache, "1");
        c.args(["--valid-fraction", valid, "--teacher", &spec])
            .args(["--teacher-cache-limit", limit])
            .arg("-o")
            .arg(d.path().join(out));
        c
    };
    let lists = || {
        let mut v: Vec<String> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".npy"))
            .collect();
        v.sort();
        v
    };
    let (_, err) = succeed(&mut train("a", "0.2", "20"));
    assert!(!err.contains("--teacher-cache-limit"), "{err}");
    let first = lists();
    assert!(!first.is_empty());
    // Another split: new lists, and at a limit of 0 every list of the first run goes.
    let (_, err) = succeed(&mut train("b", "0.3", "0"));
    assert!(err.contains("over its limit of 0.0 GiB"), "{err}");
    assert!(err.contains("are kept though they pass it"), "{err}");
    let second = lists();
    assert!(!second.is_empty());
    assert!(
        second.iter().all(|n| !first.contains(n)),
        "{first:?} {second:?}"
    );
    // The same run again reads its own lists back.
    let (_, err) = succeed(&mut train("c", "0.3", "0"));
    assert!(!err.contains("embedded"), "{err}");
    assert_eq!(lists(), second);
    for (bad, says) in [
        ("-1", "give a size of 0 or more"),
        ("lots", "not a number of GiB"),
    ] {
        fail(&mut train("d", "0.3", bad), says);
    }
}

#[test]
fn an_aligner_student_distils_a_teacher_beside_its_word_loss() {
    let (d, src, tgt, tsv, student_vectors, teacher) = distillation();
    let teacher_spec = format!("bow:{}", teacher.display());
    let train = |out: &str, extra: &[&str]| {
        let mut c = train_text("aligner", &src, &tgt);
        c.args(["--epochs", "2", "--kinds", "PU", "--per-kind", "20"])
            .args(["--bag", "--emb-dim", "16", "--pooling", "max"])
            .args(["--min-count", "1", "--freeze-embeddings"])
            .args(["--valid-fraction", "0.2", "--teacher", &teacher_spec])
            .arg("--init-vectors")
            .arg(&student_vectors)
            .arg("--init-tgt-vectors")
            .arg(&student_vectors)
            .arg("--teacher-cache")
            .arg(d.path().join("cache"))
            .arg("-o")
            .arg(d.path().join(out))
            .args(extra);
        c
    };
    let (_, err) = succeed(&mut train("m1", &[]));
    // 30 pairs: 24 to train, 6 to validate.
    assert!(err.contains("embedded 24 sentences"), "{err}");
    assert!(err.contains("embedded 6 sentences"), "{err}");
    assert!(err.contains("teacher cos src"), "{err}");
    assert!(err.contains("word_accuracy_U"), "{err}");
    // Flags an aligner refuses: refused before the teacher embeds anything.
    for (flags, why) in [
        (
            &["--distill-only"][..],
            "cannot learn from the teacher alone",
        ),
        (
            &["--teacher-side", "both"][..],
            "give --teacher-side source or target",
        ),
    ] {
        let err = fail(&mut train("m2", flags), why);
        assert!(!err.contains("embedded"), "{err}");
    }
    // A TSV of pairs that train only the sentence vectors, towards the teacher's vectors of
    // their target sentences.
    let stream = |side: &str, per_epoch: &str| {
        let mut c = train("m3", &["--src-col", "2", "--tgt-col", "3"]);
        c.arg("--distill-input").arg(&tsv).args([
            "--distill-side",
            side,
            "--distill-per-epoch",
            per_epoch,
        ]);
        c
    };
    let (_, err) = succeed(&mut stream("target", "10"));
    // Its sentences are the training and validation pairs': read from their lists.
    assert!(
        err.contains(
            "teacher: 30 of 30 sentences' vectors read from earlier runs' lists, 0 to embed"
        ),
        "{err}"
    );
    assert!(!err.contains("embedded 30"), "{err}");
    assert!(
        err.contains("distillation pairs: 30 read, 0 dropped"),
        "{err}"
    );
    fail(&mut stream("target", "0"), "at least 1");
    // Their batches ranked too, beside the pull towards the teacher; a negative weight is
    // refused, and so is the flag without the pairs.
    let (_, err) = succeed(stream("target", "10").args(["--distill-ranking-weight", "0.5"]));
    assert!(err.contains("distillation pairs: 30 read"), "{err}");
    fail(
        stream("target", "10").arg("--distill-ranking-weight=-1"),
        "finite weight and margin ≥ 0",
    );
    fail(
        &mut train("m4", &["--distill-ranking-weight", "1"]),
        "--distill-input <FILE>",
    );
    // The term's gradient stopped at the word states; the flag asks for the term.
    let spare = [
        "--distill-ranking-weight",
        "0.5",
        "--distill-ranking-spares-words",
    ];
    let (_, err) = succeed(stream("target", "10").args(spare));
    assert!(err.contains("distillation pairs: 30 read"), "{err}");
    fail(
        stream("target", "10").arg("--distill-ranking-spares-words"),
        "--distill-ranking-weight <W>",
    );
    // Span pairs of pairs of 7 words a side (words the teacher knows on both), each span
    // towards the teacher's vector of itself and left out of the ranking; a side whose
    // teacher vector is another sentence's is refused.
    let long: String = (0..10)
        .map(|k| {
            let side = |o: usize| {
                (0..7)
                    .map(|i| format!("b{}", (k + i * o) % 15))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!("id{k}\t{}\t{}\n", side(1), side(2))
        })
        .collect();
    let long = common::write(d.path(), "long.tsv", long);
    let spans = |side: &str| {
        let mut c = train("m6", &["--src-col", "2", "--tgt-col", "3"]);
        c.arg("--distill-input").arg(&long).args([
            "--distill-side",
            side,
            "--distill-spans",
            "2",
            "--distill-ranking-weight",
            "0.5",
        ]);
        c
    };
    let (_, err) = succeed(&mut spans("both"));
    let drawn = err
        .lines()
        .find_map(|l| l.strip_prefix("distillation: "))
        .and_then(|l| l.strip_suffix(" span pairs of the 10 pairs"))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!((11..=20).contains(&drawn), "{err}");
    assert!(
        err.contains(&format!(
            "distillation pairs: {} read, 0 dropped",
            10 + drawn
        )),
        "{err}"
    );
    fail(
        &mut spans("target"),
        "--distill-spans needs --distill-side both",
    );
    // The bags read a table of their own: the teacher's vectors of the `b` words, while the
    // encoders keep the student's; n-gram convolutions read it too.
    let ngrams = ["--ngrams", "2,3", "--ngram-channels", "4"];
    let (_, err) = succeed(train("m5", &ngrams).arg("--bag-vectors").arg(&teacher));
    assert!(
        err.contains("the bags' own table initialised from the vectors"),
        "{err}"
    );
    let model = read(d.path().join("m5").join("model.json"));
    for field in [r#""bag_table""#, r#""ngrams""#, r#""ngram_channels""#] {
        assert!(model.contains(field), "{model}");
    }
    let encoded = d.path().join("m5.emb");
    succeed(
        common::bitext()
            .args(["embed", "--model"])
            .arg(d.path().join("m5"))
            .arg("--input")
            .arg(&src)
            .arg("-o")
            .arg(&encoded),
    );
    assert!(encoded.is_file());
    // Without --bag the convolutions are refused by the parser; without a fixed table to
    // read, before training, naming the flags that give one.
    fail(
        common::bitext()
            .args(["train", "aligner", "--tsv", "p.tsv", "-o", "x"])
            .args(ngrams),
        "--bag",
    );
    let err = fail(
        train_text("aligner", &src, &tgt)
            .args(["--bag", "--min-count", "1", "-o"])
            .arg(d.path().join("m7"))
            .args(ngrams),
        "give --bag-vectors (the bags' own table) or --freeze-embeddings",
    );
    assert!(!err.contains("IBM Model 1"), "{err}");
    // A table file that is not there: refused before anything is trained.
    let err = fail(
        &mut train("m6", &["--bag-vectors", "nope.vec"]),
        "--bag-vectors nope.vec: no such file",
    );
    assert!(!err.contains("IBM Model 1"), "{err}");
    fail(
        common::bitext()
            .args([
                "train",
                "aligner",
                "--tsv",
                "p.tsv",
                "-o",
                "x",
                "--bag-vectors",
            ])
            .arg(&teacher),
        "--bag",
    );
    let mut no_teacher = train_text("aligner", &src, &tgt);
    no_teacher
        .arg("--distill-input")
        .arg(&tsv)
        .arg("-o")
        .arg(d.path().join("m4"));
    fail(&mut no_teacher, "--teacher");
}
