//! A sentence with nothing to encode, for each kind of encoder: the bag of words (no known
//! word: `&nbsp;&nbsp;` is HTML spaces, `zzz` is not in the vocabulary), a trained `model:`
//! (no token at all: an empty line, `&nbsp;&nbsp;`; unknown words are `<unk>` tokens) and an
//! `onnx:` graph (no token: a zero-width space, an empty line; none when its tokenizer adds
//! special tokens). By default `score --encoder`, `filter --encoder`, `embed` and `align-docs`
//! stop, naming the sentence; with `"no_known_word": "zero"` in the spec (`--zero-unknown` of
//! `embed` and `align-docs`) it gets a zero vector, whose pairs score −1 (the lowest cosine) in
//! `score` and `filter`, never NaN.

mod common;

use std::path::Path;

use common::{COLS, cli, fail, last_column, read, succeed, write};

/// The spec `spec` (JSON) with `"no_known_word": "zero"`.
fn zero(spec: &str) -> String {
    let open = spec.trim_end().strip_suffix('}').unwrap();
    format!(r#"{open},"no_known_word":"zero"}}"#)
}

/// `bitext COMMAND -q --encoder SPEC` (`score` or `filter`) of columns 2 and 3 of `input`.
fn scoring(command: &str, spec: &str, input: &Path, out: &Path) -> std::process::Command {
    let mut c = cli![
        command,
        "-q",
        "--encoder",
        spec,
        "--input",
        input,
        "-o",
        out
    ];
    c.args(COLS);
    c
}

/// What one kind of encoder is tried on: a translation (`src`, `tgt`), a sentence with nothing
/// to encode, one of unknown words, and what is expected of them.
struct Case<'a> {
    /// The encoder spec (JSON).
    spec: String,
    /// A source sentence and its translation, both known to the encoder.
    pair: (&'a str, &'a str),
    /// A source sentence with nothing to encode.
    nothing: &'a str,
    /// Whether a sentence of unknown words has nothing to encode too (the bag of words).
    unknown_is_nothing: bool,
    /// What the error about `nothing` says, at position 1 of the source side.
    error: &'a str,
}

impl Case<'_> {
    /// `score` and `filter --scorer cosine`: an error naming the sentence by default; with
    /// `zero`, the pair scores −1, the lowest cosine, and the others a finite cosine.
    fn scores(&self, dir: &Path) {
        let (s, t) = self.pair;
        let tsv = format!("id1\t{s}\t{t}\nid2\t{}\t{t}\nid3\tzzz\tqqq\n", self.nothing);
        let input = write(dir, "in.tsv", tsv);
        let out = dir.join("out.tsv");
        for command in ["score", "filter"] {
            let run = |spec: &str| scoring(command, spec, &input, &out);
            fail(&mut run(&self.spec), self.error);
            succeed(&mut run(&zero(&self.spec)));
            let scores = last_column(&out);
            assert_eq!(
                (scores.len(), scores[1]),
                (3, -1.0),
                "{command}: {scores:?}"
            );
            assert!(
                scores[0] > 0.5 && scores[2].is_finite(),
                "{command}: {scores:?}"
            );
            assert_eq!(
                scores[2] == -1.0,
                self.unknown_is_nothing,
                "{command}: {scores:?}"
            );
        }
    }

    /// `embed`: an error naming the file and line by default; with `--zero-unknown` (or the
    /// spec's `zero`), zero rows, listed by line.
    fn embeds(&self, dir: &Path) {
        let (s, _) = self.pair;
        let input = write(dir, "e.txt", format!("{s}\n{}\nzzz\n", self.nothing));
        let (out, list) = (dir.join("e.npy"), dir.join("unknown.txt"));
        let embed = |spec: &str| common::embed_with(&input, spec, &out);
        fail(&mut embed(&self.spec), "e.txt:2: ");
        let zero_lines = if self.unknown_is_nothing {
            "2\n3\n"
        } else {
            "2\n"
        };
        let flag: [&[&str]; 2] = [&["--zero-unknown"], &[]];
        for (spec, flag) in [self.spec.clone(), zero(&self.spec)].iter().zip(flag) {
            succeed(embed(spec).args(flag).arg("--unknown-list").arg(&list));
            assert_eq!(read(&list), zero_lines);
            let e = bitext_core::io::npy::read_npy(&out).unwrap();
            e.check_finite().unwrap();
            assert!(e.row(1).iter().all(|&x| x == 0.0) && e.row(0).iter().any(|&x| x != 0.0));
        }
    }

    /// `align-docs` of documents with an empty line (a sentence, as vecalign reads them): an
    /// error by default, aligned with `--zero-unknown`.
    fn aligns(&self, dir: &Path) {
        let (s, t) = self.pair;
        let de = write(dir, "doc.de", format!("{s}\n\n{s}\n"));
        let en = write(dir, "doc.en", format!("{t}\n\n{t}\n"));
        let align = || {
            cli![
                "align-docs",
                "-q",
                "--encoder",
                &self.spec,
                "--src-text",
                &de,
                "--tgt-text",
                &en
            ]
        };
        fail(&mut align(), "sentence k is its line k + 1");
        let (beads, _) = succeed(align().arg("--zero-unknown"));
        assert_eq!(beads.lines().count(), 3, "{beads}");
    }
}

/// German and English one-hot vectors: a bag of words.
fn bow(dir: &Path) -> String {
    let vec = |words: &[&str]| common::one_hot_vectors(words);
    let (de, en) = common::word_vectors(dir, &vec(&["das", "haus"]), &vec(&["the", "house"]));
    common::bow_spec(&de, &en)
}

#[test]
fn the_bag_of_words_scores_a_sentence_without_a_known_word_zero_or_names_it() {
    let d = tempfile::tempdir().unwrap();
    let case = Case {
        spec: bow(d.path()),
        pair: ("das haus", "the house"),
        nothing: "&nbsp;&nbsp;",
        unknown_is_nothing: true,
        error: r#"source sentence 1 has no word in the source vocabulary: "&nbsp;&nbsp;""#,
    };
    case.scores(d.path());
    case.embeds(d.path());
    case.aligns(d.path());
    // The margins search neighbourhoods by cosine, which a zero row has none of.
    let input = d.path().join("in.tsv");
    let mut ratio = cli![
        "filter",
        "--encoder",
        &zero(&case.spec),
        "--scorer",
        "ratio",
        "--input",
        &input
    ];
    ratio.args(COLS).arg("-o").arg(d.path().join("r.tsv"));
    fail(&mut ratio, "is all zeros");
}

#[cfg(feature = "neural")]
#[test]
fn a_trained_model_scores_a_sentence_without_tokens_zero_or_names_it() {
    let (d, src, tgt, _) = common::toy_corpus(30, 3, 6);
    let model = d.path().join("siamese");
    let mut train = cli![
        "train",
        "siamese",
        "-o",
        &model,
        "--src-text",
        &src,
        "--tgt-text"
    ];
    succeed(train.arg(&tgt).args([
        "--preset",
        "small",
        "--min-count",
        "1",
        "--epochs",
        "2",
        "-q",
    ]));
    // The toy corpus's first pair, a sentence and its translation.
    let pairs = read(&src);
    let (s, t) = (pairs.lines().next().unwrap(), read(&tgt));
    let t = t.lines().next().unwrap();
    let spec = serde_json::json!({"type": "model", "dir": model}).to_string();
    let case = Case {
        spec: spec.clone(),
        pair: (s, t),
        nothing: "&nbsp;&nbsp;",
        unknown_is_nothing: false,
        error: r#"source sentence 1 has no token: "&nbsp;&nbsp;""#,
    };
    case.embeds(d.path());
    case.aligns(d.path());
    // Scores are cosines of an encoder trained briefly: its translation's need not pass 0.5.
    let input = write(
        d.path(),
        "in.tsv",
        format!("id1\t{s}\t{t}\nid2\t&nbsp;&nbsp;\t{t}\n"),
    );
    let out = d.path().join("out.tsv");
    let score = |spec: &str| scoring("score", spec, &input, &out);
    fail(&mut score(&spec), case.error);
    succeed(&mut score(&zero(&spec)));
    let scores = last_column(&out);
    assert!(
        scores[0].is_finite() && scores[0] > -1.0 && scores[1] == -1.0,
        "{scores:?}"
    );
    // As a scorer, the model has no score for a zero vector.
    let mut scorer = cli![
        "score",
        "--scorer-spec",
        &zero(&spec),
        "--input",
        &input,
        "-o",
        &out
    ];
    scorer.args(COLS);
    fail(
        &mut scorer,
        "\"no_known_word\": \"zero\" is for the model as an encoder",
    );
}

#[cfg(feature = "onnx")]
#[test]
fn an_onnx_graph_scores_a_sentence_without_tokens_zero_or_names_it() {
    use bitext_testkit::needs::{self, group};
    let runtime = bitext_onnx::runtime_path(None).ok();
    let Some(_) = needs::file(group::ONNX_RUNTIME, runtime) else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    // A sentencepiece model of these words, and a graph over its pieces.
    let (spm, words) = (
        d.path().join("spm.model"),
        ["der", "hund", "the", "dog", "haus"],
    );
    let corpus = bitext_testkit::data::word_lines(&words, 120, 2, 4, 7).join("\n");
    let mut tokenize = common::tokenize_train(&write(d.path(), "c.txt", corpus), 16, &spm);
    succeed(tokenize.args(["--threads", "1"]));
    let table = bitext_tokenize::Sentencepiece::open(&spm)
        .unwrap()
        .pieces()
        .len();
    let (graph, _) = bitext_onnx::graph::build::token_states(table, 5, 4, false);
    let graph = write(d.path(), "g.onnx", graph);
    let spec = |framed: bool| {
        let sequence = serde_json::json!({"add_bos": framed, "add_eos": framed});
        let tokenizer =
            serde_json::json!({"type": "sentencepiece", "model": spm, "sequence": sequence});
        serde_json::json!({"type": "onnx", "model": graph, "tokenizer": tokenizer}).to_string()
    };
    let case = Case {
        spec: spec(false),
        pair: ("der hund", "der hund"),
        nothing: "\u{200b}",
        unknown_is_nothing: false,
        error: "source sentence 1 has no token: \"\\u{200b}\"",
    };
    case.scores(d.path());
    case.embeds(d.path());
    case.aligns(d.path());
    // With special tokens every sentence has some: the graph encodes it, under either policy.
    let input = d.path().join("in.tsv");
    let out = d.path().join("framed.tsv");
    let mut framed = cli![
        "score",
        "-q",
        "--encoder",
        &spec(true),
        "--input",
        &input,
        "-o",
        &out
    ];
    succeed(framed.args(COLS));
    let scores = last_column(&out);
    assert!(
        scores.iter().all(|s| s.is_finite() && *s != 0.0),
        "{scores:?}"
    );
}
