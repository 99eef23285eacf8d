//! Evaluation `lexical`: the lexical baselines of `bitext-lexical` on real data. IBM Model 1 is
//! trained on `train/` (gettext en-de and the WMT sample, German → English); then (a) the
//! 1-NN alignment-recovery error of Kim et al. (2019, §4.1) on `dev/newstest-dev.en-de` with
//! Levenshtein and IBM-1 next to the bag-of-words encoder, and (b) Grégoire & Langlais'
//! noisy-parallel protocol with IBM-1 and Levenshtein next to the siamese classifier (whose
//! numbers are read from the `neural` record, `docs/eval/neural.md`). The noise protocol of
//! Zhang et al. (IBM-1 next to the EMD) is part of the `filter` evaluation, which trains the
//! same model through [`ibm1`].

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::io::text::{EmptyLines, read_parallel};
use bitext::core::io::tsv::BitextTsvReader;
use bitext::eval::alignment::{AlignmentError, line_parallel_error};
use bitext::lexical::{
    Direction, Ibm1, Ibm1Config, Ibm1Scorer, LevenshteinScorer, Segmenter, TrainReport,
};
use bitext::similarity::PairScorer;

use super::Ctx;
use super::bucc_bow::{bow_recovery, mean_encoder};

/// The trained model and the Markdown paragraph that describes its training.
type Trained = (Arc<Ibm1>, String);

/// IBM Model 1 trained once per process on `train/`: `gettext.en-de.tsv` (German column as the
/// source) and `wmt-sample.en-de.{de,en}`, lowercased words, 5 EM iterations each way. Pairs
/// with an empty side or a side without a token are left out and counted.
pub(super) fn ibm1(ctx: &Ctx) -> Result<Trained> {
    static MODEL: OnceLock<Trained> = OnceLock::new();
    if let Some(m) = MODEL.get() {
        return Ok(m.clone());
    }
    let (mut de, mut en) = (Vec::new(), Vec::new());
    let mut dropped = 0usize;
    let gettext = ctx.path("train/gettext.en-de.tsv");
    for rec in BitextTsvReader::open(&gettext, 1, 0)?.empty_fields(EmptyLines::Keep) {
        let rec = rec?;
        de.push(rec.src);
        en.push(rec.tgt);
    }
    let (wde, wen) = read_parallel(
        ctx.path("train/wmt-sample.en-de.de"),
        ctx.path("train/wmt-sample.en-de.en"),
        EmptyLines::Keep,
    )?;
    de.extend(wde);
    en.extend(wen);
    let segmenter = Segmenter::default();
    let seg = segmenter.build()?;
    let (de_t, en_t) = (seg.tokens_batch(&de)?, seg.tokens_batch(&en)?);
    let (mut src, mut tgt) = (Vec::new(), Vec::new());
    for (s, t) in de_t.into_iter().zip(en_t) {
        if s.is_empty() || t.is_empty() {
            dropped += 1;
        } else {
            src.push(s);
            tgt.push(t);
        }
    }
    let mut reports: Vec<TrainReport> = Vec::new();
    let start = Instant::now();
    let model = Ibm1::train_tokens(&Ibm1Config::default(), segmenter, &src, &tgt, &mut |r| {
        reports.push(r)
    })?;
    let secs = start.elapsed().as_secs_f64();
    let mut md = String::new();
    let (sv, tv) = model.vocabs();
    let (fe, be) = model.entries();
    writeln!(
        md,
        "IBM Model 1 (`bitext-lexical`, NULL word, lowercased `WordTokenizer` words, 5 EM \
         iterations each way) trained on `train/gettext.en-de.tsv` + `train/wmt-sample.en-de` \
         with German as the source: {} pairs ({dropped} left out for an empty side), {} German \
         and {} English types, {fe} + {be} probabilities; {secs:.1} s in all (tokenizing, \
         tables, both directions), all cores.\n",
        model.pairs(),
        sv.len(),
        tv.len(),
    )?;
    md.push_str(
        "| direction | iteration | log-probability per token | seconds |\n|---|---|---|---|\n",
    );
    for r in &reports {
        let dir = match r.direction {
            Direction::SrcToTgt => "de → en",
            Direction::TgtToSrc => "en → de",
        };
        writeln!(
            md,
            "| {dir} | {} | {:.4} | {:.2} |",
            r.report.iteration, r.report.log_prob_per_token, r.report.seconds
        )?;
    }
    let trained = (Arc::new(model), md);
    let _ = MODEL.set(trained.clone());
    Ok(trained)
}

/// Scores computed once, served as a [`PairScorer`] (row-major `n × m`).
struct Table {
    n: usize,
    m: usize,
    scores: Vec<f64>,
}

impl Table {
    /// Every pair of `scorer`.
    fn of(scorer: &dyn PairScorer) -> Result<Self> {
        let (n, m) = scorer.sizes();
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (0..m).map(move |j| (i, j))).collect();
        Ok(Self {
            n,
            m,
            scores: scorer.score(&pairs)?,
        })
    }

    /// For each row, the column of its best score; for each column, the row (ties: first).
    fn best(&self) -> (Vec<usize>, Vec<usize>) {
        let mut rows = vec![(f64::NEG_INFINITY, 0); self.n];
        let mut cols = vec![(f64::NEG_INFINITY, 0); self.m];
        for (i, (row, line)) in rows.iter_mut().zip(self.scores.chunks(self.m)).enumerate() {
            for (j, (col, &s)) in cols.iter_mut().zip(line).enumerate() {
                if s > row.0 {
                    *row = (s, j);
                }
                if s > col.0 {
                    *col = (s, i);
                }
            }
        }
        (
            rows.into_iter().map(|r| r.1).collect(),
            cols.into_iter().map(|c| c.1).collect(),
        )
    }
}

impl PairScorer for Table {
    fn sizes(&self) -> (usize, usize) {
        (self.n, self.m)
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext::similarity::Result<Vec<f64>> {
        Ok(pairs
            .iter()
            .map(|&(i, j)| self.scores[i * self.m + j])
            .collect())
    }
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let (model, mut md) = ibm1(ctx)?;
    md.push('\n');
    recovery(ctx, &model, &mut md)?;
    noisy(ctx, &model, &mut md)?;
    Ok(md)
}

/// (a) Alignment recovery on newstest-dev, on the pairs the bag of words can encode.
fn recovery(ctx: &Ctx, model: &Arc<Ibm1>, md: &mut String) -> Result<()> {
    let (en, de) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    let bow = bow_recovery(ctx, &mean_encoder(ctx)?)?;
    let de: Vec<&str> = bow.kept.iter().map(|&i| de[i].as_str()).collect();
    let en: Vec<&str> = bow.kept.iter().map(|&i| en[i].as_str()).collect();
    writeln!(
        md,
        "**(a) Alignment recovery** (Kim et al. 2019, §4.1): each sentence of \
         `dev/newstest-dev.en-de` retrieves its best match among all sentences of the other \
         side; an error is a miss of its own translation. The {} pairs where both sides have a \
         word with a vector (of {}), for every method alike.\n\n\
         | method | de→en | en→de | mean | seconds |\n|---|---|---|---|---|",
        bow.kept.len(),
        bow.total
    )?;
    let row = |md: &mut String, name: &str, e: &bitext::eval::alignment::AlignmentError, secs| {
        writeln!(
            md,
            "| {name} | {:.2}% | {:.2}% | {:.2}% | {secs} |",
            100.0 * e.src_to_tgt,
            100.0 * e.tgt_to_src,
            100.0 * e.mean
        )
    };
    for (name, e) in &bow.rows {
        row(
            md,
            &format!("bag of words (mean, 10k-word vectors), {name}"),
            e,
            "".into(),
        )?;
    }
    let t = Instant::now();
    let e = levenshtein_recovery(&de, &en)?;
    let secs = format!("{:.1}", t.elapsed().as_secs_f64());
    row(md, "Levenshtein (characters, normalised)", &e, secs)?;
    let t = Instant::now();
    let table = Table::of(&Ibm1Scorer::new(model.clone(), &de, &en)?)?;
    let (f1, b1) = table.best();
    let e = line_parallel_error(&f1, &b1)?;
    let secs = format!("{:.1}", t.elapsed().as_secs_f64());
    row(md, "IBM Model 1 (both directions)", &e, secs)?;
    writeln!(
        md,
        "\nSeconds: all {n} × {n} pairs (IBM-1: every score; Levenshtein: the pruned nearest \
         search, both directions), all cores.\n",
        n = de.len()
    )?;
    Ok(())
}

/// The 1-NN alignment-recovery error of line-parallel `src` and `tgt` by normalised
/// character Levenshtein (the pruned nearest search, both directions; a row with no nearest
/// counts as a miss).
pub(super) fn levenshtein_recovery(src: &[&str], tgt: &[&str]) -> Result<AlignmentError> {
    let near = |a: &[&str], b: &[&str]| -> Result<Vec<usize>> {
        let s = LevenshteinScorer::new(a, b)?;
        Ok((0..a.len())
            .map(|i| s.nearest(i).map_or(usize::MAX, |n| n.0))
            .collect())
    };
    Ok(line_parallel_error(&near(src, tgt)?, &near(tgt, src)?)?)
}

/// (b) The noisy-parallel protocol on the first 1000 pairs of newstest-dev, as the `neural`
/// evaluation runs it for the siamese classifier.
fn noisy(ctx: &Ctx, model: &Arc<Ibm1>, md: &mut String) -> Result<()> {
    let siamese = siamese_f1(ctx);
    md.push_str(
        "**(b) Noisy-parallel protocol** (Grégoire & Langlais 2018, §5.1; the `neural` \
         evaluation's protocol and seeds): the first 1000 pairs of `dev/newstest-dev.en-de` \
         (de → en), a ratio of the English sides replaced by sentences of pairs 1001–3000, every \
         one of the 1000 × 1000 pairs scored, P/R/F1 at the F1-optimal threshold. The siamese \
         column is the F1 recorded in the `neural` section of this file.\n\n\
         | noise | gold pairs | IBM-1 P | IBM-1 R | IBM-1 F1 | threshold | Levenshtein F1 | \
         siamese F1 | seconds (IBM-1) |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    super::neural::noisy_sets(ctx, |noise, test, src, tgt| {
        let t = Instant::now();
        let table = Table::of(&Ibm1Scorer::new(model.clone(), src, tgt)?)?;
        let r = test.evaluate(&table)?;
        let secs = t.elapsed().as_secs_f64();
        let b = r.best.context("no gold pair")?;
        let lev = Table::of(&LevenshteinScorer::new(src, tgt)?)?;
        let lb = test.evaluate(&lev)?.best.context("no gold pair")?;
        let pct = format!("{:.0}%", noise * 100.0);
        writeln!(
            md,
            "| {pct} | {} | {:.3} | {:.3} | **{:.3}** | {:.3} | {:.3} | {} | {secs:.1} |",
            test.gold().len(),
            b.prf.precision,
            b.prf.recall,
            b.prf.f1,
            b.threshold,
            lb.prf.f1,
            siamese
                .iter()
                .find(|(p, _)| *p == pct)
                .map_or("—".into(), |(_, f)| f.clone()),
        )?;
        Ok(())
    })
}

/// The siamese classifier's noisy-parallel F1 per noise level, from the `neural` record,
/// `docs/eval/neural.md` (empty when the record is missing).
fn siamese_f1(_ctx: &Ctx) -> Vec<(String, String)> {
    let path = super::record_path("neural");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let Some(start) = text.find("<!-- eval:neural -->") else {
        return Vec::new();
    };
    let section = &text[start
        ..text[start..]
            .find("<!-- /eval:neural -->")
            .map_or(text.len(), |e| start + e)];
    section
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            // | noise | gold pairs | P | R | **F1** | …
            let pct = cells.get(1)?;
            let f1 = cells.get(5)?.trim_matches('*');
            (pct.ends_with('%') && f1.parse::<f64>().is_ok()).then(|| (pct.to_string(), f1.into()))
        })
        .take(3)
        .collect()
}
