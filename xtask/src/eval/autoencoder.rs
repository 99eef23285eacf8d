//! Evaluation `autoencoder`: Kim et al. (2019)'s shared-decoder autoencoder trained on the
//! shared de-en training data (gettext + WMT sample; German → English translation plus English
//! autoencoding) within a time budget on this CPU, then measured as Kim et al. measure it:
//! alignment-recovery error (§4.1) with cosine, −Euclidean and CSLS next to the bag of words
//! over the same input vectors and character Levenshtein, BUCC-style newsdev F1 with cosine and
//! ratio margin under every retrieval, Tatoeba de-en P@1, the noisy-parallel protocol of the
//! other neural sections, and the MLP similarity (§3.3, §5.2) on its vectors.
//!
//! The model is trained from its committed recipe `recipes/autoencoder-news.json` with
//! `bitext train autoencoder` (the `recipe` module: `BITEXT_EVAL_RECIPES`, `BITEXT_EVAL_REUSE`).

use std::fmt::Write as _;

use anyhow::{Context, Result};
use bitext::core::Embeddings;
use bitext::core::io::text::EmptyLines;
use bitext::encode::{BowEncoder, SentenceEncoder, Side};
use bitext::eval::alignment::{AlignmentError, line_parallel_error};
use bitext::knn::{ExactIndex, KnnIndex, Metric};
use bitext::mine::ScoredPair;
use bitext::similarity::MarginFunction;
use bitext_neural::autoencoder::AutoencoderEncoder;
use bitext_neural::backend::BackendSpec;
use bitext_neural::train::TrainerState;

use super::bucc_bow::{KnownPairs, known_pairs};
use super::neural::{Bucc, out_dir, read_bucc};
use super::neural_mining::best_f1;
use super::{Ctx, recipe};

/// What the tables start from (the recipe's `init-vectors`): `pieces` (the subword vectors
/// `usem.spm128k.vec`), `words` (other vectors) or `random`; the bag of words over the same
/// vectors is the bar.
struct Inputs {
    kind: &'static str,
}

fn inputs(ctx: &Ctx, json: &serde_json::Value) -> Inputs {
    let kind = match recipe::value(ctx, json, "initialisation", "init-vectors") {
        Some(v) if v.ends_with("usem.spm128k.vec") => "pieces",
        Some(_) => "words",
        None => "random",
    };
    Inputs { kind }
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

/// The committed recipe of this section (`recipes/`).
const RECIPE: &str = "autoencoder-news.json";

/// Train the autoencoder from its recipe with `bitext train autoencoder`, and describe it.
fn train(ctx: &Ctx, md: &mut String) -> Result<(AutoencoderEncoder, recipe::Trained)> {
    let trained = recipe::train(ctx, "autoencoder", RECIPE, &[], &out_dir("autoencoder"))
        .context("training the autoencoder")?;
    trained.describe(md)?;
    let enc = AutoencoderEncoder::load(&trained.dir, BackendSpec::Flex)?;
    let net = &enc.description().network;
    writeln!(
        md,
        "The network: German → English translation and English autoencoding, 1:1 in every \
         batch; embeddings {} ({} tokens, {}), GRU {} per encoder direction, sentence vectors \
         and decoder state {}, softmax {:?} while training (full softmax for validation); \
         `s0` {}.\n",
        net.emb_dim,
        net.src_vocab,
        recipe::fixed_or_trained(net.frozen_embeddings),
        net.hidden,
        net.dim(),
        net.softmax,
        if net.bag {
            "the IDF-weighted bag of the encoder's input vectors plus a projection of the \
             max-pooled states that starts at zero (not in the paper)"
        } else {
            "the max-pooled states (the paper's)"
        },
    )?;
    history(md, &trained.state)?;
    Ok((enc, trained))
}

fn history(md: &mut String, state: &TrainerState) -> Result<()> {
    md.push_str(
        "| epoch | sentences | train loss | valid loss | valid translation | valid \
         autoencoding | valid ranking | sentences/s | min |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for h in &state.history {
        let m = |k: &str| recipe::valid_metric(h, k).unwrap_or(f64::NAN);
        let ranking = if m("ranking_loss").is_nan() {
            "–".to_string()
        } else {
            format!("{:.3}", m("ranking_loss"))
        };
        let middle = format!(
            "{:.3} | {:.3} | {ranking}",
            m("translation_nll"),
            m("autoencoding_nll")
        );
        recipe::epoch_row(md, h, 3, &middle)?;
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
    let KnownPairs {
        src: bx,
        trg: by,
        kept,
        skip,
    } = known_pairs(&bow.1, &de, &en)?;
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
    let lev = super::lexical::levenshtein_recovery(&d, &e)?;
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
            let mut line = format!("| {name} | {} |", super::scoring_name(f));
            for (_, pairs) in super::mine_every_strategy(x, y, f, K)? {
                let pairs: Vec<ScoredPair> = pairs
                    .iter()
                    .map(|p| ScoredPair::new(p.score, sr[p.src], tr[p.tgt]))
                    .collect();
                match best_f1(&pairs, &b.gold)? {
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
    let (enc, trained) = train(ctx, &mut md)?;
    let inputs = inputs(ctx, &trained.json);
    let bow = bow(ctx, &inputs)?;
    recovery(ctx, &enc, &bow, &mut md)?;
    let b = read_bucc(ctx)?;
    bucc(ctx, &b, &enc, &inputs, &mut md)?;
    tatoeba(ctx, &enc, inputs.kind == "pieces", &mut md)?;
    super::neural_mining::noisy_cosine(ctx, &enc, "(d) ", &mut md)?;
    if inputs.kind == "pieces" {
        let (tde, ten) = super::neural::recipe_pairs(ctx, &trained.json)?;
        super::neural::pieces_bow_bar(ctx, &b, (&tde, &ten), &mut md)?;
    }
    super::neural_mlp::run(ctx, &enc, enc.dir(), &b, &mut md)?;
    Ok(md)
}
