//! The steps of a cleaning plan, each a pure function of its inputs (see the module above for
//! what each holds): `count`, `repeats`, `judge`, `dedup`, and the writers with the lines as
//! single-process `bitext clean` writes them ([`kept_line`], [`removed_line`]).

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use bitext_clean::{BestCopies, Removal, Repeats, Side as CleanSide};
use bitext_core::io::AtomicFile;
use bitext_core::io::tsv::BitextRecord;
use bitext_similarity::{Cosines, PairScorer};

use super::{BATCH, CleanPlan, Judged, bucket};
use crate::arrays::{self, Array};
use crate::error::{Error, Result};
use crate::run::RunOptions;

/// The two sides of a record as the cleaning steps judge them.
fn sides<'r>(plan: &CleanPlan, rec: &'r BitextRecord) -> (Cow<'r, str>, Cow<'r, str>) {
    bitext_clean::judged_sides(&rec.src, &rec.tgt, plan.recipe.unescape_html)
}

/// The error of shard `s` of the input.
fn in_shard(plan: &CleanPlan, s: usize, e: impl std::fmt::Display) -> Error {
    Error::Invalid(format!(
        "{} (shard {s}, from byte {}; lines counted from there): {e}",
        plan.input.path.display(),
        plan.input.bytes[s].0
    ))
}

/// Shard `s`'s sides counted by folded key.
pub(super) fn count(plan: &CleanPlan, s: usize, out: &Path) -> Result<()> {
    let mut counts = Repeats::default();
    let mut lines = 0;
    let mut records = plan.records(s)?;
    while let Some(rec) = records.next_record()? {
        let (src, tgt) = sides(plan, &rec);
        counts.add(&src, &tgt);
        lines += 1;
    }
    write_counts(out, &counts, vec![lines])
}

/// `counts` as a `counts` file: keys and counts of the source side, then of the target side.
fn write_counts(out: &Path, counts: &Repeats, shape: Vec<usize>) -> Result<()> {
    let mut arrays = Vec::new();
    for side in [CleanSide::Source, CleanSide::Target] {
        let (keys, n): (Vec<u64>, Vec<u64>) =
            counts.counts(side).map(|(k, c)| (k, u64::from(c))).unzip();
        arrays.push(Array::u64s(keys));
        arrays.push(Array::u64s(n));
    }
    arrays::write(out, "counts", shape, &arrays)
}

/// Call `f` with each side, key and count of a `counts` file.
fn read_counts(path: &Path, f: &mut dyn FnMut(CleanSide, u64, u32)) -> Result<()> {
    let r = arrays::read(path, "counts", &[8, 8, 8, 8])?;
    for (i, side) in [CleanSide::Source, CleanSide::Target]
        .into_iter()
        .enumerate()
    {
        let (keys, n) = (r.u64s(2 * i), r.u64s(2 * i + 1));
        if keys.len() != n.len() {
            return Err(Error::Corrupt {
                path: path.into(),
                reason: "keys and counts of different lengths".into(),
            });
        }
        for (k, c) in keys.into_iter().zip(n) {
            f(side, k, u32::try_from(c).unwrap_or(u32::MAX));
        }
    }
    Ok(())
}

/// Bucket `b`'s counts summed over the shards; the sides over the boilerplate limit kept.
pub(super) fn repeats(plan: &CleanPlan, dir: &Path, b: usize, out: &Path) -> Result<()> {
    let n = plan.shards();
    let mut sum = Repeats::default();
    for s in 0..n {
        read_counts(
            &plan.output_of(dir, &format!("count-{s}"))?,
            &mut |side, k, c| {
                if bucket(k, n) == b {
                    sum.add_key(side, k, c);
                }
            },
        )?;
    }
    let max = plan.recipe.recipe.rules.max_repeats;
    let mut over = Repeats::default();
    for side in [CleanSide::Source, CleanSide::Target] {
        for (k, c) in sum.counts(side).filter(|&(_, c)| c as usize > max) {
            over.add_key(side, k, c);
        }
    }
    write_counts(out, &over, vec![b])
}

/// Shard `s` judged: rules, language identification, the near-duplicate key and the score.
pub(super) fn judge(
    plan: &CleanPlan,
    dir: &Path,
    s: usize,
    out: &Path,
    opts: &RunOptions,
) -> Result<()> {
    let mut cleaner = plan.cleaner()?;
    if cleaner.needs_counts() {
        let mut over = Repeats::default();
        for b in 0..plan.shards() {
            let path = plan.output_of(dir, &format!("repeats-{b}"))?;
            read_counts(&path, &mut |side, k, c| over.add_key(side, k, c))?;
        }
        cleaner.set_repeats(over);
    }
    // What scores the passing pairs: the encoder's cosine, or the classifier.
    let scorer: Option<Box<BatchScores>> = match (&plan.recipe.encoder, &plan.recipe.classifier) {
        (Some(spec), _) => {
            let enc = opts.encoder(spec)?;
            Some(Box::new(move |src, tgt| cosines(enc.as_ref(), src, tgt)))
        }
        (None, Some(dir)) => {
            let score = opts.classifier(dir)?;
            Some(Box::new(move |src, tgt| {
                score(src, tgt).map_err(Error::Invalid)
            }))
        }
        (None, None) => None,
    };
    let (mut verdicts, mut keys, mut scores, mut text) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Passing pairs waiting for their scores: (index in the shard, source, target).
    let mut batch: Vec<(usize, String, String)> = Vec::new();
    let mut records = plan.records(s)?;
    while let Some(rec) = records.next_record()? {
        let (src, tgt) = sides(plan, &rec);
        match cleaner.screen(&src, &tgt) {
            Err(r) => {
                verdicts.push(1);
                keys.push(0);
                for field in [r.step.name(), r.what, &r.reason] {
                    text.extend_from_slice(field.as_bytes());
                    text.push(0);
                }
            }
            Ok(key) => {
                verdicts.push(0);
                keys.push(key.unwrap_or(0));
                if scorer.is_some() {
                    batch.push((scores.len(), src.into_owned(), tgt.into_owned()));
                }
            }
        }
        scores.push(f64::NAN);
        if let Some(score) = &scorer
            && batch.len() >= BATCH
        {
            score_batch(score.as_ref(), &mut batch, &mut scores)
                .map_err(|e| in_shard(plan, s, e))?;
        }
    }
    if let Some(score) = &scorer {
        score_batch(score.as_ref(), &mut batch, &mut scores).map_err(|e| in_shard(plan, s, e))?;
    }
    let shape = vec![verdicts.len()];
    let arrays = [
        Array::u64s(verdicts),
        Array::u64s(keys),
        Array::f64s(&scores),
        Array::bytes(text),
    ];
    arrays::write(out, "judged", shape, &arrays)
}

/// The scores of a batch of (source, target) sentences.
type BatchScores = dyn Fn(&[&str], &[&str]) -> Result<Vec<f64>>;

/// The cosine of the encoder's vectors of each pair.
fn cosines(
    enc: &dyn bitext_encode::SentenceEncoder,
    src: &[&str],
    tgt: &[&str],
) -> Result<Vec<f64>> {
    let x = enc.encode(bitext_encode::Side::Source, src)?;
    let y = enc.encode(bitext_encode::Side::Target, tgt)?;
    let pairs: Vec<(usize, usize)> = (0..src.len()).map(|k| (k, k)).collect();
    Ok(Cosines::new(x, y)?.score_batch(&pairs)?)
}

/// The score of each pair of `batch`, into `scores` at the pair's index (a non-finite score
/// is an error naming the line, counted from the shard's start).
fn score_batch(
    score: &BatchScores,
    batch: &mut Vec<(usize, String, String)>,
    scores: &mut [f64],
) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let src: Vec<&str> = batch.iter().map(|b| b.1.as_str()).collect();
    let tgt: Vec<&str> = batch.iter().map(|b| b.2.as_str()).collect();
    let got = score(&src, &tgt)?;
    if got.len() != batch.len() {
        return Err(Error::Invalid(format!(
            "{} scores for {} pairs",
            got.len(),
            batch.len()
        )));
    }
    for (b, s) in batch.drain(..).zip(got) {
        if !s.is_finite() {
            return Err(Error::Invalid(format!(
                "line {}: score {s} is not finite",
                b.0 + 1
            )));
        }
        scores[b.0] = s;
    }
    Ok(())
}

/// Bucket `b`'s near-duplicates: of the passing pairs whose key falls in it, each copy but the
/// best-scored (the first of equals: [`BestCopies`], the single-process choice) is a duplicate
/// of the one kept.
pub(super) fn dedup(plan: &CleanPlan, dir: &Path, b: usize, out: &Path) -> Result<()> {
    let n = plan.shards();
    let mut best = BestCopies::default();
    let mut entries: Vec<(u64, usize)> = Vec::new();
    let mut line = 0usize;
    for s in 0..n {
        let judged = Judged::read(&plan.output_of(dir, &format!("judge-{s}"))?)?;
        for ((&v, &k), &score) in judged.verdicts.iter().zip(&judged.keys).zip(&judged.scores) {
            line += 1;
            if v == 0 && bucket(k, n) == b {
                best.offer(k, line, score);
                entries.push((k, line));
            }
        }
    }
    let (mut lines, mut firsts) = (Vec::new(), Vec::new());
    for (k, line) in entries {
        if let Some((_, kept)) = best.kept(k).filter(|&(_, kept)| kept != line) {
            lines.push(line as u64);
            firsts.push(kept as u64);
        }
    }
    let shape = vec![lines.len()];
    arrays::write(
        out,
        "duplicates",
        shape,
        &[Array::u64s(lines), Array::u64s(firsts)],
    )
}

/// The kept lines, verbatim, with their score and probability (with an encoder and a
/// calibration), in input order: as single-process `bitext clean` writes them.
pub(super) fn write_kept(
    plan: &CleanPlan,
    dir: &Path,
    out: &Path,
    opts: &RunOptions,
) -> Result<()> {
    // A classifier's probability is its own calibration file's.
    let calibration = match (&plan.recipe.calibration, &plan.recipe.classifier) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(dir)) => Some(dir.join("calibration.json")),
        (None, None) => None,
    };
    let probability = match &calibration {
        Some(path) => Some(crate::kinds::calibration(opts, path)?),
        None => None,
    };
    let mut w = AtomicFile::create(out)?;
    plan.verdicts(dir, Some(()), &mut |j| {
        let (Some(rec), None, score) = (j.rec, j.removal, j.score) else {
            return Ok(());
        };
        let line = kept_line(&rec.raw, score, probability.as_deref());
        w.write_all(line.as_bytes()).map_err(|e| w.err(e))?;
        Ok(())
    })?;
    w.commit()?;
    Ok(())
}

/// A kept line as `bitext clean` writes it: the input line, then its score and probability
/// when it has them, tab-separated.
#[must_use]
pub fn kept_line(
    raw: &str,
    score: Option<f64>,
    probability: Option<&dyn Fn(f64) -> f64>,
) -> String {
    match (score, probability) {
        (None, _) => format!("{raw}\n"),
        (Some(s), None) => format!("{raw}\t{s}\n"),
        (Some(s), Some(p)) => format!("{raw}\t{s}\t{}\n", p(s)),
    }
}

/// A removed line as `bitext clean --removed` writes it: the input line, then the step, the
/// rule and the reason (tabs and line breaks in it as spaces).
#[must_use]
pub fn removed_line(raw: &str, r: &Removal) -> String {
    let reason = r.reason.replace(['\t', '\n', '\r'], " ");
    format!("{raw}\t{}\t{}\t{reason}\n", r.step.name(), r.what)
}

/// The removed lines with their step, rule and reason, in input order.
pub(super) fn write_removed(plan: &CleanPlan, dir: &Path, out: &Path) -> Result<()> {
    let mut w = AtomicFile::create(out)?;
    plan.verdicts(dir, Some(()), &mut |j| {
        if let (Some(rec), Some(r)) = (j.rec, j.removal) {
            w.write_all(removed_line(&rec.raw, r).as_bytes())
                .map_err(|e| w.err(e))?;
        }
        Ok(())
    })?;
    w.commit()?;
    Ok(())
}
