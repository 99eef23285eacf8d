//! Evaluation `autoencoder`: Kim et al. (2019)'s shared-decoder autoencoder trained on the
//! shared de-en training data (gettext + WMT sample; German → English translation plus English
//! autoencoding) within a time budget on this CPU, then measured as Kim et al. measure it:
//! alignment-recovery error (§4.1) with cosine, −Euclidean and CSLS next to the bag of words
//! over the same input vectors and character Levenshtein, BUCC-style newsdev F1 with cosine and
//! ratio margin under every retrieval, Tatoeba de-en P@1, the noisy-parallel protocol of the
//! other neural sections, and the MLP similarity (§3.3, §5.2) on its vectors.
//!
//! Environment knobs (defaults after the colon): `BITEXT_EVAL_AE_MINUTES` training budget: 28,
//! `BITEXT_EVAL_AE_PRESET`: small, `BITEXT_EVAL_AE_INIT` embedding tables: `pieces` (the 128k
//! sentencepiece model's pieces with `bwe/usem.spm128k.vec`), `words` (a joint word vocabulary
//! with `bwe/usem.{de,en}.vec`) or `random` (a joint word vocabulary), `BITEXT_EVAL_AE_FREEZE=1`
//! keep the initialised tables fixed, `BITEXT_EVAL_AE_OPTIMIZER`: `adam` (2e-3; the paper's
//! SGD at 1.0 with `sgd`), `BITEXT_EVAL_AE_CANDIDATES` sampled-softmax size: the preset's,
//! `BITEXT_EVAL_AE_REUSE=1` reuse the model of an earlier run, `BITEXT_EVAL_OUT`: where models
//! go, `BITEXT_EVAL_AE_DATA`: `all` (gettext + WMT) or `wmt`, `BITEXT_EVAL_AE_BAG=1` add each
//! encoder's bag of its input vectors to its sentence vector (embeddings of the vectors' width,
//! 512, and 256 per encoder direction, whatever the preset), `BITEXT_EVAL_AE_RANKING` weight
//! of the auxiliary in-batch ranking loss: 0 (none; scale 20, margin 0.2 otherwise),
//! `BITEXT_EVAL_AE_RANKING_PAIRS` pairs it ranks per step: 0 (the batch's own).

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::io::text::EmptyLines;
use bitext::core::{Embeddings, Rng};
use bitext::encode::{BowEncoder, SentenceEncoder, Side};
use bitext::eval::alignment::{AlignmentError, line_parallel_error};
use bitext::knn::{ExactIndex, KnnIndex, Metric};
use bitext::lexical::LevenshteinScorer;
use bitext::similarity::MarginFunction;
use bitext_neural::autoencoder::{
    AutoencoderConfig, AutoencoderEncoder, AutoencoderTextTraining, AutoencoderTrainConfig,
    RankingTerm, Softmax, train_autoencoder,
};
use bitext_neural::backend::{BackendSpec, Threads};
use bitext_neural::batch::Bucketing;
use bitext_neural::pretrained::VectorsInit;
use bitext_neural::siamese::split_indices;
use bitext_neural::text::WordVocabConfig;
use bitext_neural::train::{LrSchedule, OptimizerSpec, TrainConfig, TrainerState};

use super::Ctx;
use super::neural::{Bucc, env, out_dir, read_bucc, training_pairs};

/// The input vectors the tables start from, and the bag of words over the same vectors.
struct Inputs {
    kind: String,
    init: Option<VectorsInit>,
    spm: Option<std::path::PathBuf>,
}

fn inputs(ctx: &Ctx) -> Result<Inputs> {
    let kind: String = env("BITEXT_EVAL_AE_INIT", "pieces".to_string());
    let (init, spm) = match kind.as_str() {
        "pieces" => (
            Some(VectorsInit {
                source: ctx.path("bwe/usem.spm128k.vec"),
                target: None,
                max_words: None,
            }),
            Some(ctx.path("spm/use-multilingual-v3-128k.model")),
        ),
        "words" => (
            Some(VectorsInit {
                source: ctx.path("bwe/usem.de.vec"),
                target: Some(ctx.path("bwe/usem.en.vec")),
                max_words: None,
            }),
            None,
        ),
        "random" => (None, None),
        other => anyhow::bail!("BITEXT_EVAL_AE_INIT={other}: expected pieces, words or random"),
    };
    Ok(Inputs { kind, init, spm })
}

/// The bag of words over the vectors the autoencoder's tables start from (the bar it must
/// clear): pieces or words, mean.
fn bow(ctx: &Ctx, inputs: &Inputs) -> Result<(String, BowEncoder)> {
    Ok(if inputs.kind == "pieces" {
        (
            "bag of pieces (mean, `usem.spm128k.vec`)".into(),
            super::bucc_bow::pieces_encoder(ctx)?,
        )
    } else {
        (
            "bag of words (mean, `usem.{de,en}.vec`)".into(),
            super::bucc_bow::mean_encoder(ctx)?,
        )
    })
}

fn train(ctx: &Ctx, inputs: &Inputs, md: &mut String) -> Result<AutoencoderEncoder> {
    let dir = out_dir("autoencoder");
    let report = dir.join("eval-training.md");
    if env("BITEXT_EVAL_AE_REUSE", 0u8) == 1 && dir.join("weights.bpk").exists() {
        let earlier = std::fs::read_to_string(&report).unwrap_or_default();
        writeln!(
            md,
            "Model reused from an earlier run of this evaluation (`BITEXT_EVAL_AE_REUSE=1`, \
             `{}`); its training:\n\n{}\n",
            dir.display(),
            earlier.trim()
        )?;
        return Ok(AutoencoderEncoder::load(&dir, BackendSpec::Flex)?);
    }
    let start = md.len();
    let _ = std::fs::remove_dir_all(&dir);
    let minutes: f64 = env("BITEXT_EVAL_AE_MINUTES", 28.0);
    let preset: String = env("BITEXT_EVAL_AE_PRESET", "small".to_string());
    let optimizer: String = env("BITEXT_EVAL_AE_OPTIMIZER", "adam".to_string());
    let data: String = env("BITEXT_EVAL_AE_DATA", "all".to_string());
    let (de, en, what) = training_pairs(ctx, &data)?;
    let (tr, va) = split_indices(de.len(), 0.01, &mut Rng::seed(17));
    let pick = |v: &[String], idx: &[usize]| idx.iter().map(|&i| v[i].clone()).collect::<Vec<_>>();
    let (tde, ten, vde, ven) = (
        pick(&de, &tr),
        pick(&en, &tr),
        pick(&de, &va),
        pick(&en, &va),
    );
    let mut network = AutoencoderConfig::preset(&preset, 1)?;
    network.frozen_embeddings = inputs.init.is_some() && env("BITEXT_EVAL_AE_FREEZE", 0u8) == 1;
    network.bag = env("BITEXT_EVAL_AE_BAG", 0u8) == 1;
    if network.bag {
        (network.emb_dim, network.hidden) = (512, 256);
    }
    if let Some(c) = std::env::var("BITEXT_EVAL_AE_CANDIDATES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        network.softmax = if c == 0 {
            Softmax::Full
        } else {
            Softmax::Sampled { candidates: c }
        };
    }
    let mut train = AutoencoderTrainConfig::paper(17);
    train.batching = Bucketing {
        max_items: 60,
        max_tokens: 60 * 124,
    };
    let (opt, schedule) = if optimizer == "sgd" {
        (
            OptimizerSpec::Sgd {
                lr: 1.0,
                momentum: 0.0,
            },
            train.train.schedule,
        )
    } else {
        (
            OptimizerSpec::adam(2e-3),
            LrSchedule::Plateau { factor: 0.5 },
        )
    };
    train.train = TrainConfig {
        optimizer: opt,
        schedule,
        clip_norm: Some(5.0),
        patience: Some(3),
        time_limit_secs: Some(minutes * 60.0),
        progress: true,
        threads: Threads(0),
        ..TrainConfig::new(50, 1.0, 17)
    };
    let ranking: f64 = env("BITEXT_EVAL_AE_RANKING", 0.0);
    train.ranking = (ranking > 0.0).then_some(RankingTerm {
        weight: ranking,
        scale: 20.0,
        margin: 0.2,
        pairs: env("BITEXT_EVAL_AE_RANKING_PAIRS", 0),
    });
    let vocab = WordVocabConfig {
        joint: true,
        min_count: 2,
        max_size: Some(40_000),
        ..WordVocabConfig::default()
    };
    let job = AutoencoderTextTraining {
        src: &tde,
        tgt: &ten,
        mono: &[],
        valid: Some((&vde, &ven)),
        network,
        train: train.clone(),
        vocab: vocab.clone(),
        spm: inputs.spm.clone(),
        init: inputs.init.clone(),
        max_len: Some(60),
    };
    let t0 = Instant::now();
    let trained = train_autoencoder(&job, &dir, false).context("training the autoencoder")?;
    let secs = t0.elapsed().as_secs_f64();
    let (unk, all) = trained.unknown_tokens;
    writeln!(
        md,
        "**Training.** {what}: German → English translation and English autoencoding, 1:1 in \
         every batch of ≤ 60 pairs (120 decoded sentences, the paper's batch); 1% held out \
         for validation ({} pairs); {} pairs dropped for an empty side, {} sentences cut to 60 \
         tokens, {:.2}% of the tokens unknown to the vocabulary. Tokens: {}. Network preset \
         `{preset}`: embeddings {}, GRU {} per encoder direction, sentence vectors and decoder \
         state {}, softmax {:?} while training (full softmax for validation). {}, \
         global-norm clipping at 5, {minutes} min budget: **{:.1} min** of training on {} \
         threads.\n",
        va.len(),
        trained.dropped_pairs,
        trained.truncated,
        100.0 * unk as f64 / all.max(1) as f64,
        if inputs.spm.is_some() {
            format!(
                "the pieces of `spm/use-multilingual-v3-128k.model` ({} ids)",
                trained.vocab_sizes.0
            )
        } else {
            format!(
                "a joint lowercased word vocabulary (min count 2, at most 40,000): {} tokens",
                trained.vocab_sizes.0
            )
        },
        network.emb_dim,
        network.hidden,
        network.dim(),
        network.softmax,
        if optimizer == "sgd" {
            "SGD at 1.0 (×0.9 every 50k updates after 100k, the paper's)".to_string()
        } else {
            "Adam 2e-3, halved when the validation loss stalls".to_string()
        },
        secs / 60.0,
        Threads::available(),
    )?;
    writeln!(
        md,
        "**Beside the paper** (`BITEXT_EVAL_AE_DATA={data}`): {}; {}.\n",
        if network.bag {
            "each encoder's vector `s0` is the IDF-weighted bag of its input vectors (IDF over \
             the training sentences of its language) plus a projection of the max-pooled states \
             that starts at zero (`BITEXT_EVAL_AE_BAG=1`)"
        } else {
            "the paper's `s0`, the max-pooled states"
        },
        match train.ranking {
            Some(r) => format!(
                "an auxiliary in-batch ranking loss between the two encoders' vectors of the \
                 translation pairs, weight {}, scale {}, margin {} (`BITEXT_EVAL_AE_RANKING`){}",
                r.weight,
                r.scale,
                r.margin,
                if r.pairs > 0 {
                    format!(
                        ", over the batch's pairs topped up to {} per step with random training \
                         pairs (`BITEXT_EVAL_AE_RANKING_PAIRS`)",
                        r.pairs
                    )
                } else {
                    String::new()
                }
            ),
            None => "Kim et al.'s loss alone".to_string(),
        }
    )?;
    match &trained.init {
        Some([s, t]) => writeln!(
            md,
            "**Embedding tables initialised** (`BITEXT_EVAL_AE_INIT={}`, {}): source {s}; \
             target {t}; the decoder's input table starts as the target table.\n",
            inputs.kind,
            if network.frozen_embeddings {
                "kept fixed"
            } else {
                "trained with the rest"
            }
        )?,
        None => writeln!(md, "**Embedding tables drawn at random.**\n")?,
    }
    history(md, &trained.fitted.state)?;
    std::fs::write(&report, &md[start..])
        .with_context(|| format!("writing {}", report.display()))?;
    Ok(AutoencoderEncoder::load(&dir, BackendSpec::Flex)?)
}

fn history(md: &mut String, state: &TrainerState) -> Result<()> {
    md.push_str(
        "| epoch | sentences | train loss | valid loss | valid translation | valid \
         autoencoding | valid ranking | sentences/s | min |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for h in &state.history {
        let v = h.valid.as_ref();
        let m = |k: &str| {
            v.and_then(|v| v.metrics.get(k))
                .copied()
                .unwrap_or(f64::NAN)
        };
        writeln!(
            md,
            "| {}{} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {:.0} | {:.1} |",
            h.epoch,
            if h.truncated { " (cut)" } else { "" },
            h.items,
            h.train_loss,
            v.map_or(f64::NAN, |v| v.loss),
            m("translation_nll"),
            m("autoencoding_nll"),
            if m("ranking_loss").is_nan() {
                "–".to_string()
            } else {
                format!("{:.3}", m("ranking_loss"))
            },
            h.items_per_sec,
            h.seconds / 60.0
        )?;
    }
    writeln!(
        md,
        "\nLosses are mean negative log-likelihoods per decoded token (nats; the sampled \
         softmax's for training), plus the weighted ranking loss when there is one. Best \
         epoch: {}; {}.\n",
        state.best_epoch,
        state.stopped.as_deref().unwrap_or("all epochs done")
    )?;
    Ok(())
}

/// 1-NN recovery with cosine, −Euclidean and CSLS (k = 4) of line-parallel vectors.
fn recovery_rows(x: &Embeddings, y: &Embeddings) -> Result<Vec<(&'static str, AlignmentError)>> {
    let (mut xn, mut yn) = (x.clone(), y.clone());
    xn.normalize_l2();
    yn.normalize_l2();
    let mut rows = super::bucc_bow::recovery_errors(&xn, &yn)?;
    let l2 = |a: &Embeddings, b: &Embeddings| -> Result<Vec<usize>> {
        let index = ExactIndex::over(b.view(), Metric::L2)?;
        Ok(index.search(a.view(), 1)?.all_ids().to_vec())
    };
    rows.insert(
        1,
        ("−Euclidean", line_parallel_error(&l2(x, y)?, &l2(y, x)?)?),
    );
    Ok(rows)
}

fn encode(enc: &dyn SentenceEncoder, side: Side, s: &[String]) -> Result<Embeddings> {
    let r: Vec<&str> = s.iter().map(String::as_str).collect();
    Ok(enc.encode(side, &r)?)
}

/// (a) Alignment recovery on newstest-dev: every method on the pairs where the bag of words
/// knows a word on both sides (the others would have no vector to compare), the autoencoder
/// on all pairs as well.
fn recovery(
    ctx: &Ctx,
    enc: &AutoencoderEncoder,
    bow: &(String, BowEncoder),
    md: &mut String,
) -> Result<()> {
    let (en, de) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    let (bx, xc) = bow.1.encode_with_coverage(Side::Source, &de)?;
    let (by, yc) = bow.1.encode_with_coverage(Side::Target, &en)?;
    let mut skip: Vec<usize> = xc
        .no_known_word
        .iter()
        .chain(&yc.no_known_word)
        .copied()
        .collect();
    skip.sort_unstable();
    skip.dedup();
    let (bx, kept) = bx.view().without_rows(&skip);
    let (by, _) = by.view().without_rows(&skip);
    writeln!(
        md,
        "**(a) Alignment recovery** (Kim et al. §4.1) on `dev/newstest-dev.en-de`: each \
         sentence retrieves its nearest sentence on the other side; an error is a miss of its \
         own translation (paper, WMT newstest en-de with 1.6M sentences of parallel training \
         data: 23.0% with cosine). Every row is over the {} of {} line-parallel pairs where the \
         bag of words knows a word on both sides; the autoencoder on all {} pairs as well.\n\n\
         | method | scoring | pairs | de→en | en→de | mean |\n|---|---|---|---|---|---|",
        kept.len(),
        de.len(),
        de.len()
    )?;
    let row = |md: &mut String, m: &str, s: &str, n: usize, e: &AlignmentError| {
        writeln!(
            md,
            "| {m} | {s} | {n} | {:.2}% | {:.2}% | {:.2}% |",
            100.0 * e.src_to_tgt,
            100.0 * e.tgt_to_src,
            100.0 * e.mean
        )
    };
    let (x, y) = (
        encode(enc, Side::Source, &de)?,
        encode(enc, Side::Target, &en)?,
    );
    for (s, e) in recovery_rows(&x, &y)? {
        row(md, "**autoencoder**", s, de.len(), &e)?;
    }
    if !skip.is_empty() {
        let (kx, _) = x.view().without_rows(&skip);
        let (ky, _) = y.view().without_rows(&skip);
        for (s, e) in recovery_rows(&kx, &ky)? {
            row(md, "**autoencoder**", s, kept.len(), &e)?;
        }
    }
    for (s, e) in recovery_rows(&bx, &by)? {
        row(md, &bow.0, s, kept.len(), &e)?;
    }
    let sdir = out_dir("siamese");
    if sdir.join("weights.bpk").exists()
        && let Ok(siamese) = bitext_neural::siamese::SiameseEncoder::load(&sdir, BackendSpec::Flex)
    {
        let (sx, _) = encode(&siamese, Side::Source, &de)?
            .view()
            .without_rows(&skip);
        let (sy, _) = encode(&siamese, Side::Target, &en)?
            .view()
            .without_rows(&skip);
        for (s, e) in recovery_rows(&sx, &sy)? {
            row(
                md,
                "siamese (evaluation `neural`'s model)",
                s,
                kept.len(),
                &e,
            )?;
        }
    }
    let d: Vec<&str> = kept.iter().map(|&i| de[i].as_str()).collect();
    let e: Vec<&str> = kept.iter().map(|&i| en[i].as_str()).collect();
    let fwd = LevenshteinScorer::new(&d, &e)?;
    let bwd = LevenshteinScorer::new(&e, &d)?;
    let near = |s: &LevenshteinScorer| -> Vec<usize> {
        (0..d.len())
            .map(|i| s.nearest(i).map_or(usize::MAX, |n| n.0))
            .collect()
    };
    let lev = line_parallel_error(&near(&fwd), &near(&bwd))?;
    row(
        md,
        "Levenshtein",
        "characters, normalised",
        kept.len(),
        &lev,
    )?;
    md.push('\n');
    Ok(())
}

/// (b) BUCC-style newsdev: the vectors mined with cosine and ratio margin under each
/// retrieval, next to the bag of words over the same input vectors (mean and TF-IDF).
fn bucc(
    ctx: &Ctx,
    b: &Bucc,
    enc: &AutoencoderEncoder,
    inputs: &Inputs,
    md: &mut String,
) -> Result<()> {
    const K: usize = 4;
    writeln!(
        md,
        "**(b) BUCC-style newsdev** ({} de × {} en sentences, {} gold pairs): sentence vectors \
         mined with exact kNN both ways, k = {K}, best F1 over each strategy's scored pairs \
         (threshold tuned on this set, as in the `bucc_bow` section); the bags of words leave \
         out sentences with no known word, whose gold pairs count as missed.\n\n\
         | vectors | scoring | fwd | bwd | intersect | max |\n|---|---|---|---|---|---|",
        b.de.len(),
        b.en.len(),
        b.gold.len()
    )?;
    // (name, source and target vectors, the original row of each vector's row: the bags of
    // words leave out sentences with no known word, whose gold pairs then count as missed).
    type Rows = (Vec<usize>, Vec<usize>);
    let all = (
        (0..b.de.len()).collect::<Vec<_>>(),
        (0..b.en.len()).collect::<Vec<_>>(),
    );
    let mut rows: Vec<(String, Embeddings, Embeddings, Rows)> = vec![(
        "**autoencoder**".into(),
        encode(enc, Side::Source, &b.de)?,
        encode(enc, Side::Target, &b.en)?,
        all,
    )];
    let builder = |tfidf: bool| -> Result<BowEncoder> {
        let base = if inputs.kind == "pieces" {
            super::bucc_bow::pieces_builder(ctx)?
        } else {
            let (d, e) = (ctx.path("bwe/usem.de.vec"), ctx.path("bwe/usem.en.vec"));
            BowEncoder::from_vec_files(&d, &e, None)?
                .no_known_word(bitext::encode::NoKnownWord::Zero)
        };
        Ok(if tfidf {
            base.tfidf(&b.de, &b.en).build()?
        } else {
            base.build()?
        })
    };
    let what = if inputs.kind == "pieces" {
        "bag of pieces"
    } else {
        "bag of words"
    };
    for tfidf in [false, true] {
        let e = super::bucc_bow::encode(&builder(tfidf)?, &b.de, &b.en)?;
        rows.push((
            format!("{what}, {}", if tfidf { "TF-IDF" } else { "mean" }),
            e.src,
            e.trg,
            (e.src_rows, e.trg_rows),
        ));
    }
    for (name, x, y, (sr, tr)) in &rows {
        for f in [MarginFunction::Absolute, MarginFunction::Ratio] {
            let mut line = format!(
                "| {name} | {} |",
                if f == MarginFunction::Absolute {
                    "cosine"
                } else {
                    "ratio margin"
                }
            );
            for (_, pairs) in super::mine_every_strategy(x, y, f, K)? {
                let gold = bitext::eval::bucc::GoldSet::new(b.gold.iter().copied())?;
                let scored: Vec<(f64, usize, usize)> = pairs
                    .iter()
                    .map(|p| (p.score, sr[p.src], tr[p.tgt]))
                    .collect();
                match gold.best_threshold(&scored)? {
                    Some(t) => write!(line, " {:.3} |", t.prf.f1)?,
                    None => line.push_str(" 0 |"),
                }
            }
            writeln!(md, "{line}")?;
        }
    }
    md.push('\n');
    Ok(())
}

/// (c) Tatoeba de-en P@1 by cosine, both directions.
fn tatoeba(ctx: &Ctx, enc: &AutoencoderEncoder, pieces: bool, md: &mut String) -> Result<()> {
    let (de, en) = ctx.parallel(
        "dev/tatoeba/tatoeba.deu-eng",
        ("deu", "eng"),
        EmptyLines::Reject,
    )?;
    let (x, y) = (
        encode(enc, Side::Source, &de)?,
        encode(enc, Side::Target, &en)?,
    );
    let (de_en, en_de) = super::neural_mining::p_at_1(&x, &y)?;
    let fr = if pieces {
        let (fr_en, en_fr) = super::neural_mining::tatoeba_fr_en(ctx, enc)?;
        format!(
            "Tatoeba fr-en, zero-shot (French through the German encoder: the pieces and their \
             vectors cover French, the network never saw it): {fr_en:.3} (fr→en), {en_fr:.3} \
             (en→fr)."
        )
    } else {
        "Tatoeba fr-en needs a French encoder, which this de-en model does not have.".into()
    };
    writeln!(
        md,
        "**(c) Tatoeba de-en** ({} pairs), P@1 by cosine: **{de_en:.3}** (de→en), {en_de:.3} \
         (en→de). {fr} (Reference: a production multilingual encoder, 0.979.)\n",
        de.len(),
    )?;
    Ok(())
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let mut md = String::new();
    let inputs = inputs(ctx)?;
    let enc = train(ctx, &inputs, &mut md)?;
    let bow = bow(ctx, &inputs)?;
    recovery(ctx, &enc, &bow, &mut md)?;
    let b = read_bucc(ctx)?;
    bucc(ctx, &b, &enc, &inputs, &mut md)?;
    tatoeba(ctx, &enc, inputs.kind == "pieces", &mut md)?;
    super::neural_mining::noisy_cosine(ctx, &enc, "(d) ", &mut md)?;
    if inputs.kind == "pieces" {
        let data: String = env("BITEXT_EVAL_AE_DATA", "all".to_string());
        let (tde, ten, _) = training_pairs(ctx, &data)?;
        super::neural::pieces_bow_bar(ctx, &b, (&tde, &ten), &mut md)?;
    }
    super::neural_mlp::run(ctx, &enc, enc.dir(), &b, &mut md)?;
    Ok(md)
}
