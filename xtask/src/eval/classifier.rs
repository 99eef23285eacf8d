//! Evaluation `classifier`: the pair classifier of `bitext-classify`, trained from clean pairs
//! alone (the 9,999 pairs of `train/wmt-sample.en-de`, HTML entities decoded; French
//! catalogue strings of `train/gettext.en-fr.tsv` as the wrong language; seed 73), scored on
//! the labelled noisy crawl of the `clean` task (newstest de-en, never seen in training).
//! Reported: average precision and F1 at the parallel count of the classifier against each of
//! its features alone and against their plain sum (each standardised over the crawl), overall
//! and per noise kind; the calibration at P 0.5, 0.8 and 0.9 (the held-out synthetic
//! calibration, and one fitted on a labelled half of the crawl, measured on the other half),
//! with a reliability plot (`docs/eval/classifier-reliability.svg`); training and scoring
//! speed.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use bitext::classify::{Classifier, FeatureSpec, Matrix, TrainConfig, train};
use bitext::clean::Rules;
use bitext::core::Rng;
use bitext::core::io::AtomicFile;
use bitext::core::io::text::EmptyLines;
use bitext::eval::calibration::{Calibration, FitOptions, LabelledScores};
use bitext::eval::crawl::{CrawlLine, Kind};
use bitext::eval::plot::{Chart, render};
use bitext::eval::prf::{average_precision, prf_top};

use super::Ctx;
use super::clean::{crawl_lines, kind_table, top};

const SEED: u64 = 73;

fn work_dir() -> PathBuf {
    crate::project_root().join("target/eval/classifier")
}

/// One ranking of the crawl's lines: its name and each line's score (higher = more parallel).
struct System {
    name: String,
    scores: Vec<f64>,
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let plain = |s: String| bitext::tokenize::unescape_html(&s).into_owned();
    let (de, en) = ctx.parallel("train/wmt-sample.en-de", ("de", "en"), EmptyLines::Keep)?;
    // The sample's pairs with text on both sides.
    let pairs: Vec<(String, String)> = de
        .into_iter()
        .map(plain)
        .zip(en.into_iter().map(plain))
        .filter(|(s, t)| !s.trim().is_empty() && !t.trim().is_empty())
        .collect();
    let other: Vec<String> = std::fs::read_to_string(ctx.path("train/gettext.en-fr.tsv"))?
        .lines()
        .filter_map(|l| l.split('\t').nth(1).map(str::trim))
        .filter(|s| s.split_whitespace().count() >= 3)
        .take(5000)
        .map(String::from)
        .collect();
    let lid = bitext::lid::default_model_path()
        .filter(|p| p.is_file())
        .map(|p| (p, "de".to_string(), "en".to_string()));
    let rules = Rules {
        src_lang: Some("de".into()),
        tgt_lang: Some("en".into()),
        ..Rules::default()
    };
    let dir = work_dir();
    std::fs::create_dir_all(&dir)?;
    // The subword bag of words (TF-IDF over the clean pairs' own sides) as the encoder.
    let idf = |side: usize, name: &str| -> Result<PathBuf> {
        let path = dir.join(name);
        let mut out = AtomicFile::create_text(&path)?;
        for p in &pairs {
            let s = if side == 0 { &p.0 } else { &p.1 };
            std::io::Write::write_all(&mut out, format!("{s}\n").as_bytes())
                .map_err(|e| out.err(e))?;
        }
        out.commit()?;
        Ok(path)
    };
    let encoder: bitext::encode::EncoderSpec = serde_json::from_value(serde_json::json!({
        "type": "bow",
        "vectors": ctx.path("bwe/usem.spm128k.vec"),
        "pieces": {"type": "sentencepiece", "model": ctx.path("spm/use-multilingual-v3-128k.model")},
        "weighting": "tf_idf",
        "idf_corpus": idf(0, "idf.de")?,
        "target_idf_corpus": idf(1, "idf.en")?,
        "no_known_word": "zero",
    }))?;
    let base = FeatureSpec::defaults(lid.clone(), rules);
    let mut with_cosine = base.clone();
    with_cosine.push(FeatureSpec::Encoder { encoder });
    let backends = bitext::build::ClassifierBackends;
    let mut trained = Vec::new();
    for (name, features) in [("default", base), ("default + cosine", with_cosine)] {
        let config = TrainConfig {
            features,
            seed: SEED,
            ..TrainConfig::default()
        };
        let start = Instant::now();
        let out = dir.join(name.replace(" + ", "-"));
        let c = train(&pairs, &other, None, &config, &out, &backends, &mut |_| {})?;
        trained.push((name, c, start.elapsed().as_secs_f64()));
    }

    let lines = crawl_lines(ctx)?;
    let src: Vec<&str> = lines.iter().map(|l| l.src.as_str()).collect();
    let tgt: Vec<&str> = lines.iter().map(|l| l.tgt.as_str()).collect();
    let labels: Vec<bool> = lines.iter().map(|l| l.kind == Kind::Parallel).collect();
    let parallel = labels.iter().filter(|&&b| b).count();
    let (_, full, _) = &trained[1];
    let start = Instant::now();
    let x = full.features(&src, &tgt)?;
    let feature_secs = start.elapsed().as_secs_f64();
    let mut systems = singles(&x);
    let sum = plain_sum(&systems);
    systems.push(System {
        name: "sum of the above (standardised)".into(),
        scores: sum,
    });
    let mut speed = Vec::new();
    for (name, c, secs) in &trained {
        let start = Instant::now();
        let scores = c.score(&src, &tgt)?;
        let score_secs = start.elapsed().as_secs_f64();
        speed.push((
            name.to_string(),
            *secs,
            score_secs,
            c.description().training.clone(),
        ));
        systems.push(System {
            name: format!("**classifier ({name})**"),
            scores,
        });
    }

    let mut md = String::new();
    writeln!(
        md,
        "Trained on the {} pairs of `train/wmt-sample.en-de` (20% held out for the calibration; \
         as many synthetic negatives: misaligned, truncated, replaced words, untranslated, \
         French targets), scored on the {} lines of the `clean` task's noisy crawl ({parallel} \
         parallel; `target/eval/clean/crawl.de-en.tsv`). Features: {}. Language \
         identification: {}.\n",
        pairs.len(),
        lines.len(),
        full.description().model.names.join(", "),
        if lid.is_some() {
            "lid.176.ftz"
        } else {
            "none (no lid.176.ftz)"
        }
    )?;
    writeln!(md, "| scorer | AP | F1 at the parallel count |")?;
    writeln!(md, "|---|---|---|")?;
    let mut best_single = (String::new(), 0.0f64);
    for s in &systems {
        let scored: Vec<(f64, bool)> = s
            .scores
            .iter()
            .copied()
            .zip(labels.iter().copied())
            .collect();
        let ap = average_precision(&scored, parallel)?;
        let f1 = prf_top(&scored, parallel, parallel)?.f1;
        if !s.name.contains("classifier") && !s.name.starts_with("sum") && f1 > best_single.1 {
            best_single = (s.name.clone(), f1);
        }
        writeln!(md, "| {} | {ap:.3} | {f1:.3} |", s.name)?;
    }
    writeln!(
        md,
        "\nBest single scorer: {} (F1 {:.3}).\n",
        best_single.0, best_single.1
    )?;
    per_kind(&mut md, &lines, &systems, parallel)?;
    calibration(&mut md, full, &x, &lines, &labels)?;
    writeln!(
        md,
        "\nSpeed, this process, 2 threads where the scorers use them:\n"
    )?;
    writeln!(
        md,
        "| classifier | training (pairs and negatives) | scoring the crawl |"
    )?;
    writeln!(md, "|---|---|---|")?;
    for (name, train_secs, score_secs, t) in &speed {
        let n = t.pairs + t.held_out + t.negatives.values().sum::<usize>();
        writeln!(
            md,
            "| {name} | {:.1} s, {:.0} pairs/s | {:.0} pairs/s |",
            train_secs,
            n as f64 / train_secs,
            lines.len() as f64 / score_secs
        )?;
    }
    writeln!(
        md,
        "\nHeld-out synthetic set of the default + cosine classifier: AP {:.3}, F1 {:.3}. \
         Features alone: {:.0} pairs/s.",
        full.description().training.held_out_ap,
        full.description().training.held_out_f1,
        lines.len() as f64 / feature_secs
    )?;
    Ok(md)
}

/// Each feature alone, oriented as its scorer is (higher = more parallel): the rule flags as
/// one scorer (minus the rules failed), a missing value the lowest.
fn singles(x: &Matrix) -> Vec<System> {
    let mut out = Vec::new();
    let mut rules = vec![0.0; x.rows()];
    for (name, col) in x.names.iter().zip(&x.columns) {
        if name.ends_with("_missing") {
            continue;
        }
        if name.starts_with("rule_") {
            for (r, v) in rules.iter_mut().zip(col) {
                *r -= v;
            }
            continue;
        }
        let low = col
            .iter()
            .copied()
            .filter(|v| !v.is_nan())
            .fold(f64::INFINITY, f64::min);
        out.push(System {
            name: name.clone(),
            scores: col
                .iter()
                .map(|&v| if v.is_nan() { low - 1.0 } else { v })
                .collect(),
        });
    }
    out.push(System {
        name: "rules (minus the rules failed)".into(),
        scores: rules,
    });
    out
}

/// The sum of the systems' scores, each standardised over the crawl.
fn plain_sum(systems: &[System]) -> Vec<f64> {
    let n = systems.first().map_or(0, |s| s.scores.len());
    let mut sum = vec![0.0; n];
    for s in systems {
        let m = s.scores.iter().sum::<f64>() / n as f64;
        let sd = (s.scores.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n as f64).sqrt();
        for (a, v) in sum.iter_mut().zip(&s.scores) {
            *a += if sd > 0.0 { (v - m) / sd } else { 0.0 };
        }
    }
    sum
}

/// Each noise kind's share removed when every system keeps its best lines up to the parallel
/// count.
fn per_kind(
    md: &mut String,
    lines: &[CrawlLine],
    systems: &[System],
    parallel: usize,
) -> Result<()> {
    writeln!(
        md,
        "Share of each kind's lines left out at the parallel count (parallel: the share lost):\n"
    )?;
    let names: Vec<String> = (0..systems.len()).map(|i| format!("s{}", i + 1)).collect();
    let all = vec![true; lines.len()];
    let kept: Vec<Vec<bool>> = systems
        .iter()
        .map(|s| top(&s.scores, &all, parallel))
        .collect();
    let names_ref: Vec<&str> = names.iter().map(String::as_str).collect();
    let keeps: Vec<&[bool]> = kept.iter().map(Vec::as_slice).collect();
    kind_table(md, lines, &names_ref, &keeps)?;
    let legend: Vec<String> = systems
        .iter()
        .zip(&names)
        .map(|(s, n)| format!("{n}: {}", s.name.replace("**", "")))
        .collect();
    writeln!(md, "\n{}.\n", legend.join("; "))?;
    Ok(())
}

/// Measured precision at the thresholds for P 0.5, 0.8 and 0.9: with the classifier's own
/// calibration (held-out synthetic pairs) on the whole crawl, and with a calibration fitted on
/// a labelled half of the crawl (seeded), measured on the other half; and the reliability
/// plot of both.
fn calibration(
    md: &mut String,
    c: &Classifier,
    x: &Matrix,
    lines: &[CrawlLine],
    labels: &[bool],
) -> Result<()> {
    let scores = c.scores_of(x)?;
    let mut order: Vec<usize> = (0..lines.len()).collect();
    Rng::seed(SEED).shuffle(&mut order);
    let (fit_idx, test_idx) = order.split_at(lines.len() / 2);
    let sample: Vec<(f64, bool)> = fit_idx.iter().map(|&i| (scores[i], labels[i])).collect();
    let halves = Calibration::fit(
        &LabelledScores::new(sample)?,
        &FitOptions {
            source: "a labelled half of the crawl".into(),
            ..FitOptions::default()
        },
    )?;
    let all: Vec<usize> = (0..lines.len()).collect();
    writeln!(
        md,
        "Calibration (default + cosine): the precision measured on the crawl at each calibration's threshold for a target precision.\n"
    )?;
    writeln!(
        md,
        "| target | held-out synthetic: threshold | measured (all lines) | labelled half: threshold | measured (other half) |"
    )?;
    writeln!(md, "|---|---|---|---|---|")?;
    let measure = |t: f64, idx: &[usize]| -> (f64, usize) {
        let kept: Vec<usize> = idx.iter().copied().filter(|&i| scores[i] >= t).collect();
        let tp = kept.iter().filter(|&&i| labels[i]).count();
        (tp as f64 / kept.len().max(1) as f64, kept.len())
    };
    for p in [0.5, 0.8, 0.9] {
        let a = c.min_score(p)?;
        let b = halves.min_score(p)?;
        let (pa, na) = measure(a, &all);
        let (pb, nb) = measure(b, test_idx);
        writeln!(
            md,
            "| {p} | {a:.4} | {pa:.3} ({na} kept) | {b:.4} | {pb:.3} ({nb} kept) |"
        )?;
    }
    // Reliability: calibrated probability in ten bins against the share parallel.
    let bins = |cal: &Calibration, idx: &[usize]| -> Vec<(f64, f64)> {
        let mut acc = vec![(0.0, 0.0, 0usize); 10];
        for &i in idx {
            let p = cal.probability(scores[i]);
            let b = ((p * 10.0) as usize).min(9);
            acc[b].0 += p;
            acc[b].1 += f64::from(u8::from(labels[i]));
            acc[b].2 += 1;
        }
        acc.into_iter()
            .filter(|a| a.2 > 0)
            .map(|a| (a.0 / a.2 as f64, a.1 / a.2 as f64))
            .collect()
    };
    let chart = Chart::new(
        "reliability of P(parallel) on the noisy crawl",
        "calibrated probability (bin mean)",
        "share parallel",
    )
    .x_range(0.0, 1.0)
    .y_range(0.0, 1.0)
    .line("ideal", vec![(0.0, 0.0), (1.0, 1.0)])
    .line(
        "held-out synthetic calibration, all lines",
        bins(c.calibration(), &all),
    )
    .line(
        "labelled half of the crawl, other half",
        bins(&halves, test_idx),
    );
    let svg = crate::project_root().join("docs/eval/classifier-reliability.svg");
    let mut out = AtomicFile::create_text(&svg)?;
    std::io::Write::write_all(&mut out, render(&[chart]).as_bytes()).map_err(|e| out.err(e))?;
    out.commit()?;
    writeln!(
        md,
        "\nReliability plot: [classifier-reliability.svg](classifier-reliability.svg)."
    )?;
    Ok(())
}
