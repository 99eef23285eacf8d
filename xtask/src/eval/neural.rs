//! Evaluation `neural`: train the siamese BiGRU (Grégoire & Langlais 2018) from its committed
//! recipe `recipes/siamese-news.json` with `bitext train siamese` (the `recipe` module), then
//! measure it on held-out news and Tatoeba: the paper's noisy-parallel protocol, BUCC-style
//! extraction, Tatoeba P@1, alignment recovery, and an MLP similarity (Kim et al. 2019) on the
//! encoder's vectors. Variants are recipes: `BITEXT_EVAL_RECIPES=DIR` reads them from another
//! directory, `BITEXT_EVAL_REUSE=1` reuses a model trained from the same recipe, and
//! `BITEXT_EVAL_OUT` says where models go (`target/eval`).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::Rng;
use bitext::core::io::text::EmptyLines;
use bitext::core::io::tsv::BitextTsvReader;
use bitext::eval::noisy::NoisyParallel;
use bitext_neural::backend::BackendSpec;
use bitext_neural::siamese::{Pooling, SiameseEncoder};
use bitext_neural::train::TrainerState;

pub(super) use super::neural_mining::{
    Bucc, greedy_all_pairs, greedy_best, margin_mining, pieces_bow_bar, read_bucc,
};
use super::neural_mlp;
use super::{Ctx, recipe};

/// Where evaluation models are written.
pub(super) fn out_dir(name: &str) -> PathBuf {
    std::env::var_os("BITEXT_EVAL_OUT")
        .map_or_else(|| crate::project_root().join("target/eval"), PathBuf::from)
        .join(name)
}

/// The gettext catalogue pairs as (German, English) columns.
pub(super) fn gettext_de_en(ctx: &Ctx) -> Result<(Vec<String>, Vec<String>)> {
    gettext(ctx, "train/gettext.en-de.tsv")
}

/// The pairs of a gettext catalogue file (`english<TAB>other`) as (other, English) columns.
pub(super) fn gettext(ctx: &Ctx, file: &str) -> Result<(Vec<String>, Vec<String>)> {
    let (mut other, mut en) = (Vec::new(), Vec::new());
    for rec in BitextTsvReader::open(ctx.path(file), 1, 0)? {
        let r = rec?;
        other.push(r.src);
        en.push(r.tgt);
    }
    Ok((other, en))
}

/// A probability threshold as text; near 1 (where a confident classifier's thresholds sit) as
/// `1 − ε`, so that close thresholds stay apart.
pub(super) fn rho(t: f64) -> String {
    if t > 0.999 && t < 1.0 {
        format!("1 − {:.1e}", 1.0 - t)
    } else {
        format!("{t:.4}")
    }
}

/// The committed recipe of this section (`recipes/`).
const RECIPE: &str = "siamese-news.json";

/// The recipe's training pairs (its `data.src-text` and `data.tgt-text`; pairs with an empty
/// side left out, as its `skip-empty` does).
pub(super) fn recipe_pairs(
    ctx: &Ctx,
    json: &serde_json::Value,
) -> Result<(Vec<String>, Vec<String>)> {
    let (src, tgt) = bitext::core::io::text::read_parallel(
        recipe::data_path(ctx, json, "src-text")?,
        recipe::data_path(ctx, json, "tgt-text")?,
        EmptyLines::Keep,
    )?;
    Ok(src
        .into_iter()
        .zip(tgt)
        .filter(|(s, t)| !s.trim().is_empty() && !t.trim().is_empty())
        .unzip())
}

/// Train the siamese encoder from its recipe with `bitext train siamese`, and describe it.
fn train(ctx: &Ctx, md: &mut String) -> Result<(SiameseEncoder, recipe::Trained)> {
    let trained = recipe::train(ctx, "siamese", RECIPE, &[], &out_dir("siamese"))
        .context("training the siamese encoder")?;
    trained.describe(md)?;
    let enc = SiameseEncoder::load(&trained.dir, BackendSpec::Flex)?;
    let net = &enc.description().network;
    writeln!(
        md,
        "The network: embeddings {} ({} tokens, {}), GRU {} per direction, {} hidden units, \
         dropout {}/{}, sentence vector: {}{}.\n",
        net.emb_dim,
        net.src_vocab,
        recipe::fixed_or_trained(net.frozen_embeddings),
        net.hidden,
        net.ff,
        net.dropout_input,
        net.dropout_output,
        match net.pooling {
            Pooling::Last => "the last states",
            Pooling::Max => "the maximum over positions of the states",
        },
        if net.bag {
            ", projected and added to the IDF-weighted mean of the sentence's input vectors \
             (IDF over the training sentences; the projection starts at zero, so the untrained \
             network is that bag of words)"
        } else {
            ""
        }
    )?;
    history(md, &trained.state)?;
    Ok((enc, trained))
}

fn history(md: &mut String, state: &TrainerState) -> Result<()> {
    let ranking = state.history.iter().any(|h| {
        h.valid
            .as_ref()
            .is_some_and(|v| v.metrics.contains_key("p@1 src→tgt"))
    });
    md.push_str(if ranking {
        "| epoch | pairs | train loss | valid loss | valid P@1 de→en / en→de | pairs/s | min |\n\
         |---|---|---|---|---|---|---|\n"
    } else {
        "| epoch | pairs | train loss | valid loss | valid acc | valid P / R | pairs/s | min |\n\
         |---|---|---|---|---|---|---|---|\n"
    });
    for h in &state.history {
        let m = |k: &str| recipe::valid_metric(h, k).unwrap_or(f64::NAN);
        let valid = if ranking {
            format!("{:.3} / {:.3}", m("p@1 src→tgt"), m("p@1 tgt→src"))
        } else {
            format!(
                "{:.4} | {:.3} / {:.3}",
                m("accuracy"),
                m("precision"),
                m("recall")
            )
        };
        recipe::epoch_row(md, h, 4, &valid)?;
    }
    best_epoch(md, state)
}

/// The line under a training history: the best epoch and why training stopped.
pub(super) fn best_epoch(md: &mut String, state: &TrainerState) -> Result<()> {
    writeln!(
        md,
        "\nBest epoch: {}; {}.\n",
        state.best_epoch,
        state.stopped.as_deref().unwrap_or("all epochs done")
    )?;
    Ok(())
}

/// Builds the scorer of a model over two lists of sentences.
pub(super) type ScorerOf<'a> =
    dyn Fn(&[&str], &[&str]) -> Result<Box<dyn bitext::similarity::PairScorer>> + 'a;

/// (a) The noisy-parallel protocol on the first 1000 pairs of newstest-dev.
fn noisy(ctx: &Ctx, enc: &SiameseEncoder, md: &mut String) -> Result<()> {
    md.push_str(
        "**(a) Noisy-parallel protocol** (§5.1): the first 1000 pairs of \
         `dev/newstest-dev.en-de` (de → en), a ratio of the English sides replaced by sentences \
         of pairs 1001–3000, the classifier's probability on all 1000 × 1000 pairs, P/R/F1 at \
         the F1-optimal ρ (paper, Europarl-trained 512/512 GRU on newstest2012 en-fr: F1 75.7 \
         at 0%, 66.7 at 90%).\n\n",
    );
    noisy_table(ctx, &|s, t| Ok(Box::new(enc.scorer(s, t)?)), md)
}

/// The noisy-parallel table (0, 50 and 90% noise) of any pair scorer: the first 1000 pairs of
/// newstest-dev (de → en), English sides replaced by sentences of pairs 1001–3000, P/R/F1 at
/// the F1-optimal threshold.
pub(super) fn noisy_table(ctx: &Ctx, scorer_of: &ScorerOf<'_>, md: &mut String) -> Result<()> {
    md.push_str(
        "| noise | gold pairs | P | R | F1 | ρ | P at R ≥ 0.25 / 0.5 / 0.75 | seconds |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    noisy_sets(ctx, |noise, test, src, tgt| {
        let t0 = Instant::now();
        let scorer = scorer_of(src, tgt)?;
        let r = test.evaluate(scorer.as_ref())?;
        let p_at = |rec: f64| {
            r.curve
                .iter()
                .filter(|p| p.prf.recall >= rec)
                .map(|p| p.prf.precision)
                .fold(0.0, f64::max)
        };
        let b = r.best.context("no gold pair")?;
        writeln!(
            md,
            "| {:.0}% | {} | {:.3} | {:.3} | **{:.3}** | {} | {:.3} / {:.3} / {:.3} | {:.1} |",
            noise * 100.0,
            test.gold().len(),
            b.prf.precision,
            b.prf.recall,
            b.prf.f1,
            rho(b.threshold),
            p_at(0.25),
            p_at(0.5),
            p_at(0.75),
            t0.elapsed().as_secs_f64()
        )?;
        Ok(())
    })?;
    md.push('\n');
    Ok(())
}

/// The test sets of the noisy-parallel protocol (Grégoire & Langlais 2018, §5.1): the first
/// 1000 pairs of newstest-dev (de → en) with a ratio of 0, 0.5 and 0.9 of the English sides
/// replaced by sentences of pairs 1001–3000 (seed 2018). `each` gets the ratio, the set, the
/// German sentences and the English sentences as the set has them.
pub(super) fn noisy_sets(
    ctx: &Ctx,
    mut each: impl FnMut(f64, &NoisyParallel, &[&str], &[&str]) -> Result<()>,
) -> Result<()> {
    let (en, de) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    let n = 1000;
    let src: Vec<&str> = de[..n].iter().map(String::as_str).collect();
    let par: Vec<&str> = en[..n].iter().map(String::as_str).collect();
    let pool: Vec<&str> = en[n..].iter().map(String::as_str).collect();
    for noise in [0.0, 0.5, 0.9] {
        let test = NoisyParallel::build(n, pool.len(), noise, &mut Rng::seed(2018))?;
        let tgt: Vec<&str> = test
            .target_items(&par, &pool)?
            .into_iter()
            .copied()
            .collect();
        each(noise, &test, &src, &tgt)?;
    }
    Ok(())
}

/// (d) 1-NN alignment-recovery error (Kim et al. 2019, §4.1) of the encoder's vectors on the
/// line-parallel `dev/newstest-dev.en-de`, cosine and CSLS, next to the bags of words over
/// the word vectors the table was initialised from.
fn recovery(ctx: &Ctx, enc: &SiameseEncoder, md: &mut String) -> Result<()> {
    let (en, de) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    let d: Vec<&str> = de.iter().map(String::as_str).collect();
    let e: Vec<&str> = en.iter().map(String::as_str).collect();
    let mut x = enc.vectors(bitext::encode::Side::Source, &d)?;
    let mut y = enc.vectors(bitext::encode::Side::Target, &e)?;
    x.normalize_l2();
    y.normalize_l2();
    let bow = super::bucc_bow::bow_recovery(ctx, &super::bucc_bow::mean_encoder(ctx)?)?;
    writeln!(
        md,
        "**(d) Alignment recovery** (Kim et al. 2019, §4.1) on `dev/newstest-dev.en-de` ({} \
         line-parallel pairs): 1-NN error of the encoder's vectors, next to the mean bag of \
         words over `bwe/usem.{{de,en}}.vec` ({} pairs with a known word on both sides).\n\n\
         | scoring | siamese de→en | en→de | mean | bag of words mean |\n|---|---|---|---|---|",
        d.len(),
        bow.kept.len()
    )?;
    let rows = super::bucc_bow::recovery_errors(&x, &y)?;
    for (i, (name, err)) in rows.iter().enumerate() {
        writeln!(
            md,
            "| {name} | {:.2}% | {:.2}% | **{:.2}%** | {:.2}% |",
            100.0 * err.src_to_tgt,
            100.0 * err.tgt_to_src,
            100.0 * err.mean,
            100.0 * bow.rows[i].1.mean
        )?;
    }
    md.push('\n');
    Ok(())
}

/// (c) Tatoeba de-en P@1 with the encoder's vectors and cosine, and with the classifier.
fn tatoeba(ctx: &Ctx, enc: &SiameseEncoder, md: &mut String) -> Result<()> {
    let (de, en) = ctx.parallel(
        "dev/tatoeba/tatoeba.deu-eng",
        ("deu", "eng"),
        EmptyLines::Reject,
    )?;
    let d: Vec<&str> = de.iter().map(String::as_str).collect();
    let e: Vec<&str> = en.iter().map(String::as_str).collect();
    let scorer = enc.scorer(&d, &e)?;
    let (vd, ve) = (scorer.src_vectors(), scorer.tgt_vectors());
    let (cos_de_en, cos_en_de) = super::neural_mining::p_at_1(vd, ve)?;
    let n = d.len();
    let mut clf = Vec::with_capacity(n);
    for i in 0..n {
        let pairs: Vec<(usize, usize)> = (0..n).map(|j| (i, j)).collect();
        let s = bitext::similarity::PairScorer::score(&scorer, &pairs)?;
        let best = s
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |x| x.0);
        clf.push(best);
    }
    writeln!(
        md,
        "**(c) Tatoeba de-en** ({n} pairs), P@1: encoder vectors + cosine **{cos_de_en:.3}** \
         (de→en), {cos_en_de:.3} (en→de); classifier probability, de→en {:.3}. (Reference: a \
         production multilingual encoder, 0.979.)\n",
        super::neural_mining::own_share(&clf)
    )?;
    Ok(())
}

/// (b) BUCC-style extraction on newsdev with the classifier: all pairs, greedy one-to-one,
/// best threshold.
fn bucc(bucc: &Bucc, enc: &SiameseEncoder, md: &mut String) -> Result<()> {
    let t0 = Instant::now();
    let d: Vec<&str> = bucc.de.iter().map(String::as_str).collect();
    let e: Vec<&str> = bucc.en.iter().map(String::as_str).collect();
    let scorer = enc.scorer(&d, &e)?;
    // Every probability is ≥ 0: ρ = 0 keeps the whole greedy one-to-one list.
    let best = greedy_all_pairs(bucc, &scorer, 0.0)?;
    writeln!(
        md,
        "**(b) BUCC-style newsdev** ({} de × {} en sentences, {} gold pairs): classifier \
         probability on all {} pairs, greedy one-to-one, best ρ = {}: P {:.3} R {:.3} \
         **F1 {:.3}** ({:.0} s). (Reference: a production multilingual encoder, F1 0.916 \
         cosine / 0.938 ratio margin.)\n",
        d.len(),
        e.len(),
        bucc.gold.len(),
        d.len() * e.len(),
        rho(best.threshold),
        best.prf.precision,
        best.prf.recall,
        best.prf.f1,
        t0.elapsed().as_secs_f64()
    )?;
    margin_mining(bucc, scorer.src_vectors(), scorer.tgt_vectors(), md)
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let mut md = String::new();
    let (enc, trained) = train(ctx, &mut md)?;
    noisy(ctx, &enc, &mut md)?;
    let b = read_bucc(ctx)?;
    bucc(&b, &enc, &mut md)?;
    tatoeba(ctx, &enc, &mut md)?;
    recovery(ctx, &enc, &mut md)?;
    if recipe::value(ctx, &trained.json, "initialisation", "init-vectors")
        .is_some_and(|v| v.ends_with("usem.spm128k.vec"))
    {
        let (de, en) = recipe_pairs(ctx, &trained.json)?;
        pieces_bow_bar(ctx, &b, (&de, &en), &mut md)?;
    }
    neural_mlp::run(ctx, &enc, enc.dir(), &b, &mut md)?;
    Ok(md)
}
