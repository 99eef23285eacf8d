//! `bitext score`: score the aligned sentence pairs of a bicleaner-style TSV and append one
//! score column (higher = more parallel). The input/output handling is shared; each scorer
//! (`--scorer`, or `--model DIR` for a trained neural model) is a `bitext_mine::ScorerSpec`
//! made from the flags, which builds a `PairScorer` over each batch of sentences. With a
//! word-alignment model (`bitext train aligner`), `--aligner-score` picks its sentence score and
//! `--words` adds its per-word divergence labels.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext_core::io::tsv::{BitextRecord, BitextTsvReader, ScoredTsvWriter};
use bitext_encode::ModelSpec;
use bitext_mine::ScorerSpec;
use bitext_similarity::PairScorer;
use clap::{Args, ValueEnum};

use crate::build::BatchScorers;
use crate::flags::{EmdArgs, LengthUnitArg, ModelArgs};
use crate::input::{CalibrationArgs, ColumnArgs};
use crate::run::read_columns_skipping;

/// Which scorer computes the score column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScorerKind {
    /// Earth Mover's Distance between TF-IDF-weighted bags of bilingual word embeddings
    /// (Zhang et al. 2016); the score is minus the distance.
    Emd,
    /// A neural model trained by `bitext train` (--model): the siamese classifier's
    /// probability, the cosine of the autoencoder's vectors, an aligner's `semb` score (or the
    /// cosine of its vectors, `wemb`: --aligner-score), or an MLP similarity over its
    /// encoder's vectors.
    Model,
    /// IBM Model 1 trained by `bitext train ibm1` (--model): the length-normalised
    /// log-probability of each side given the other, summed (Khadivi & Ney 2005).
    Ibm1,
    /// One minus the character-level Levenshtein distance over the longer length.
    Levenshtein,
    /// Shorter length over longer (--length-unit: characters or word tokens).
    LengthRatio,
}

/// Arguments of `bitext score`.
#[derive(Debug, Args)]
pub(crate) struct ScoreArgs {
    /// The scorer (`model` when --model is given).
    #[arg(
        long,
        value_enum,
        required_unless_present_any = ["model", "scorer_spec", "encoder", "classifier"]
    )]
    scorer: Option<ScorerKind>,
    /// Score with a pair classifier (`bitext train classifier`): its score in [0, 1], then the
    /// calibrated probability that the pair is parallel (P(parallel)), as two columns.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["scorer", "scorer_spec", "model", "encoder", "words", "aligner_score", "calibration"]
    )]
    classifier: Option<PathBuf>,
    /// With --classifier: write why each pair scores what it does, as a column before the
    /// scores: `bias=+1.234 length_ratio=-0.012 …`, each feature's contribution to the logit
    /// (`gate=rule_markup` first when the pair fails a hard rule: its score is then below 0.5).
    #[arg(long, requires = "classifier")]
    explain: bool,
    /// Score each pair by the cosine of its two sentences' vectors from this encoder
    /// (`bow:FILE`, `model:DIR`, `onnx:FILE` or a JSON spec, as `bitext embed --encoder`;
    /// source sentences through the source side, target sentences through the target side).
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with_all = ["scorer", "scorer_spec", "model", "words", "aligner_score"]
    )]
    encoder: Option<bitext_encode::EncoderSpec>,
    /// The scorer as a spec instead of --scorer/--model and their options: `model:DIR`,
    /// `ibm1:DIR`, `levenshtein`, `length_ratio`, or JSON (`{"type": "emd", "src_vectors": FILE, "tgt_vectors": FILE, "distance": {"oov":
    /// "match_identical", …}}`, `{"type": "model", "dir": DIR, "backend": "flex"}`).
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with_all = [
            "scorer", "model", "src_vec", "tgt_vec", "src_idf", "tgt_idf", "no_idf", "oov",
            "oov_cost", "solver", "length_unit"
        ]
    )]
    scorer_spec: Option<ScorerSpec>,
    #[command(flatten)]
    io: IoArgs,
    #[command(flatten)]
    emd: EmdArgs,
    #[command(flatten)]
    neural: ModelArgs,
    /// What `--scorer length-ratio` counts.
    #[arg(long, value_enum, default_value_t = LengthUnitArg::Chars)]
    length_unit: LengthUnitArg,
    #[command(flatten)]
    calibration: CalibrationArgs,
    /// With an aligner (`bitext train aligner`): the score, `wemb` (the cosine of its sentence
    /// vectors) or `semb` (its comparison head; higher = more parallel, negative = predicted
    /// divergent). Default: `semb` when the model trained that head, else `wemb`.
    #[arg(long, value_enum, value_name = "SCORE")]
    aligner_score: Option<AlignerScore>,
    /// With an aligner: also write which words diverge, as four columns between the input's
    /// and the score: the source tokens, their labels, the target tokens, their labels.
    /// Tokens are the model's (lowercased words unless it keeps case, or sentencepiece
    /// pieces), separated by spaces; labels are one `0` (parallel) or `1` (divergent) per
    /// token, separated by spaces (e.g. `0 0 1 1`).
    #[arg(long)]
    words: bool,
    /// Sharded, resumable scoring (the same lines as the filter of the same scorer without a
    /// budget; not with --words, --aligner-score or --calibration).
    #[command(flatten)]
    sharded: crate::input::ShardArgs,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

/// The sentence score of an aligner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AlignerScore {
    /// The cosine of the two sentence vectors.
    Wemb,
    /// The comparison head's `h_sim` (needs a model trained with `--objective sentence` or
    /// `both`).
    Semb,
}

/// Input and output, common to every scorer.
#[derive(Debug, Args)]
pub(crate) struct IoArgs {
    /// Input TSV: any columns, two of which hold the source and target sentences.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Output TSV: every input line unchanged, with the score appended as a last column (then
    /// the calibrated probability with --calibration; --words adds its columns before them);
    /// `-` (the default) is standard output, as for `mine` and `align-docs`.
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    output: PathBuf,
    #[command(flatten)]
    cols: ColumnArgs,
    /// Write scores with this many decimals (default: shortest exact form).
    #[arg(long, value_name = "N")]
    decimals: Option<usize>,
    /// Pairs read and scored at a time.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    batch: usize,
    #[command(flatten)]
    bad: crate::flags::BadLinesArgs,
}

/// Builds the `--words` columns of each batch of (source, target) sentences: one string per
/// pair, its columns joined by tabs.
pub(crate) type WordColumns = Box<dyn Fn(&[&str], &[&str]) -> Result<Vec<String>>>;

/// The scorer spec of the flags.
fn scorer_spec(a: &ScoreArgs) -> Result<ScorerSpec> {
    if let Some(spec) = &a.scorer_spec {
        return Ok(spec.clone());
    }
    Ok(match a.scorer.unwrap_or(ScorerKind::Model) {
        ScorerKind::Emd => a.emd.spec()?,
        ScorerKind::Model => a.neural.spec(false)?,
        ScorerKind::Ibm1 => a.neural.spec(true)?,
        ScorerKind::Levenshtein => ScorerSpec::Levenshtein,
        ScorerKind::LengthRatio => ScorerSpec::LengthRatio {
            unit: a.length_unit.unit(),
        },
    })
}

/// The scorers of an aligner (`--aligner-score`; `score`: its default when `None`) and, with
/// `words`, the builder of its word columns; the model is loaded once for both.
#[cfg(feature = "neural")]
fn aligner_scorers(
    m: &ModelSpec,
    score: Option<AlignerScore>,
    words: bool,
) -> Result<(BatchScorers, Option<WordColumns>)> {
    use std::sync::Arc;

    use bitext_neural::spec::NeuralModel;

    let flag = if words { "--words" } else { "--aligner-score" };
    let model = match crate::build::neural_model(m)? {
        NeuralModel::Aligner(a) => Arc::<bitext_neural::aligner::AlignerModel>::from(a),
        _ => bail!(
            "{flag} needs a word-alignment model (`bitext train aligner`), but {} holds a \
             model of kind {:?}",
            m.dir.display(),
            bitext_neural::siamese::model_kind(&m.dir)?
        ),
    };
    let trained_head = model.description().network.objective.sentence();
    let semb = match score {
        Some(AlignerScore::Semb) if !trained_head => bail!(
            "--aligner-score semb: the aligner in {} was trained without its sentence-level \
             head (train it with --objective sentence or both), use --aligner-score wemb",
            m.dir.display()
        ),
        Some(s) => s == AlignerScore::Semb,
        None => trained_head,
    };
    let scoring = Arc::clone(&model);
    let scorers: BatchScorers = Box::new(move |src, tgt| Ok(scoring.scorer(src, tgt, semb)?));
    let columns = words.then(|| -> WordColumns {
        Box::new(move |src, tgt| {
            let join = |v: &[u8]| v.iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
            Ok(model
                .word_scores(src, tgt)?
                .iter()
                .map(|w| {
                    let (ls, lt) = w.labels();
                    format!(
                        "{}\t{}\t{}\t{}",
                        w.src_tokens.join(" "),
                        join(&ls),
                        w.tgt_tokens.join(" "),
                        join(&lt)
                    )
                })
                .collect())
        })
    });
    Ok((scorers, columns))
}

/// `--words` or `--aligner-score` in a binary without the neural models.
#[cfg(not(feature = "neural"))]
fn aligner_scorers(
    _: &ModelSpec,
    _: Option<AlignerScore>,
    _: bool,
) -> Result<(BatchScorers, Option<WordColumns>)> {
    Err(crate::run::neural_unavailable("`bitext score --model`"))
}

pub(crate) fn run(a: &ScoreArgs) -> Result<()> {
    crate::run::check_outputs([Some(a.io.output.as_path())])?;
    if a.io.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let (src_col, tgt_col) = a.io.cols.zero_based()?;
    if a.explain && a.classifier.is_none() {
        bail!("--explain explains a classifier's scores: give --classifier DIR");
    }
    let classifier = a
        .classifier
        .as_deref()
        .map(crate::build::classifier)
        .transpose()?;
    if classifier.is_some() && a.sharded.shards.is_some() {
        bail!("--classifier scores in one process: leave out --shards");
    }
    let (cal, min) = a.calibration.load_with(classifier.as_deref())?;
    if let (Some(shards), Some(dir)) = (a.sharded.shards, &a.sharded.work_dir) {
        if a.words || a.aligner_score.is_some() {
            bail!("--shards scores without --words or --aligner-score");
        }
        let recipe = bitext_shard::FilterRecipe {
            scorer: match &a.encoder {
                Some(_) => ScorerSpec::Cosine,
                None => scorer_spec(a)?,
            },
            encoder: a.encoder.clone(),
            src_col,
            tgt_col,
            budget: None,
            threshold: min.map(|value| bitext_mine::Threshold::AtLeast { value }),
            decimals: a.io.decimals,
            calibration: a.calibration.calibration.clone(),
        };
        let files = (a.io.input.as_path(), a.io.output.as_path());
        let plan = (shards, dir.as_path(), a.sharded.plan_only);
        if let Some(r) = crate::run::filter_sharded(files, &recipe, plan, true)?
            && !a.quiet.quiet
        {
            eprintln!("scored {} pairs", r.lines);
        }
        return Ok(());
    }
    let (build, words) = if let Some(c) = classifier {
        let explain = a.explain.then(|| explanations(std::sync::Arc::clone(&c)));
        (bitext::build::classifier_scorers(c), explain)
    } else if let Some(encoder) = &a.encoder {
        (
            crate::build::encoder_scorers(crate::build::encoder(encoder, None::<&[&str]>)?),
            None,
        )
    } else if a.words || a.aligner_score.is_some() {
        let spec = scorer_spec(a)?;
        let Some(m) = spec.as_model() else {
            bail!(
                "--words and --aligner-score need a word-alignment model: --model DIR (`bitext \
                 train aligner`)"
            );
        };
        aligner_scorers(m, a.aligner_score, a.words)?
    } else {
        // Two passes when the EMD needs an IDF: the input's own columns are the reference
        // corpus.
        let spec = scorer_spec(a)?;
        let build = crate::build::batch_scorers(&spec, || {
            let bad = a.io.bad.bad_lines();
            let (s, t, _) = read_columns_skipping(&a.io.input, (src_col, tgt_col), bad)?;
            Ok((s, t))
        })?;
        (build, None)
    };
    let start = Instant::now();
    let mut rejects = crate::run::RejectSink::new(&a.io.bad)?;
    let mut reader =
        BitextTsvReader::open(&a.io.input, src_col, tgt_col)?.bad_lines(a.io.bad.bad_lines());
    let mut writer = ScoredTsvWriter::create(&a.io.output)?;
    if let Some(d) = a.io.decimals {
        writer = writer.decimals(d);
    }
    let mut batch: Vec<BitextRecord> = Vec::with_capacity(a.io.batch);
    let mut total = 0usize;
    while reader.next_batch(a.io.batch, &mut batch)? {
        rejects.add(&reader.take_rejected())?;
        let src: Vec<&str> = batch.iter().map(|r| r.src.as_str()).collect();
        let tgt: Vec<&str> = batch.iter().map(|r| r.tgt.as_str()).collect();
        let lines = || reader.batch_lines(&batch);
        let scorer = build(&src, &tgt).with_context(lines)?;
        let pairs: Vec<(usize, usize)> = (0..batch.len()).map(|i| (i, i)).collect();
        let scores = scorer.score(&pairs).with_context(lines)?;
        let columns = match &words {
            Some(w) => Some(w(&src, &tgt).with_context(lines)?),
            None => None,
        };
        for (k, (rec, s)) in batch.iter().zip(scores).enumerate() {
            if min.is_some_and(|m| s < m) {
                continue;
            }
            let raw = match &columns {
                Some(c) => std::borrow::Cow::Owned(format!("{}\t{}", rec.raw, c[k])),
                None => std::borrow::Cow::Borrowed(rec.raw.as_str()),
            };
            match &cal {
                Some(c) => writer.write_scores(&raw, &[s, c.probability(s)])?,
                None => writer.write(&raw, s)?,
            }
        }
        total += batch.len();
    }
    rejects.add(&reader.take_rejected())?;
    if total == 0 {
        bail!("{}: no sentence pairs", a.io.input.display());
    }
    writer.commit()?;
    rejects.finish(&a.io.input)?;
    let secs = start.elapsed().as_secs_f64();
    if !a.quiet.quiet {
        eprintln!(
            "scored {total} pairs in {secs:.1} s ({:.0} pairs/s)",
            total as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}

/// The --explain column of a classifier: each feature's contribution to each pair's logit.
fn explanations(c: std::sync::Arc<bitext_classify::Classifier>) -> WordColumns {
    Box::new(move |src, tgt| {
        let x = c.features(src, tgt)?;
        Ok((0..src.len())
            .map(|i| c.explain(&x, i).to_field())
            .collect())
    })
}
