//! `bitext train classifier`: a pair classifier (`bitext_classify`) trained from clean pairs
//! alone: synthetic negatives, features from the scorers --scorers names (a default set that
//! needs no other file), a logistic regression, its score calibrated to P(parallel). The model
//! directory holds everything `bitext score --classifier DIR` needs. No neural feature needed
//! (unless a feature names a neural model).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext_classify::{FeatureSpec, FitOptions, NoiseConfig, NoiseKind, TrainConfig};
use bitext_clean::Rules;
use bitext_core::io::rejects::BadLines;
use bitext_core::io::text::{EmptyLines, read_lines_skipping};
use bitext_core::io::tsv::BitextTsvReader;
use clap::Args;

use crate::input::ColumnArgs;

/// Arguments of `bitext train classifier`.
#[derive(Debug, Args)]
pub(crate) struct ClassifierArgs {
    /// Clean pairs: a TSV whose columns --src-col and --tgt-col hold the sentences.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    #[command(flatten)]
    cols: ColumnArgs,
    /// Model directory to write (created): `classifier.json`, `calibration.json`, `ibm1/`.
    #[arg(long, short = 'o', value_name = "DIR")]
    output: PathBuf,
    /// The features (repeatable, or comma-separated names): `length_ratio`, `levenshtein`,
    /// `numbers`, `punctuation`, `rules`, `lid` (with --src-lang/--tgt-lang), `ibm1` (trained
    /// here on the clean pairs), `ibm1:DIR`, `model:DIR`, `encoder:SPEC`, or JSON (a scorer
    /// spec of sentences, or `{"type": "lid", …}`). Default: length_ratio, levenshtein,
    /// numbers, punctuation, rules, ibm1, and lid when --src-lang and --tgt-lang are given.
    #[arg(long, value_name = "SPEC")]
    scorers: Vec<String>,
    /// Add the cosine of this encoder's vectors as a feature (`bow:FILE`, `model:DIR`,
    /// `onnx:FILE` or JSON; repeatable).
    #[arg(long, value_name = "SPEC")]
    encoder: Vec<bitext_encode::EncoderSpec>,
    /// The source language (a label of the language identifier: `de`), for the script rule
    /// and language identification.
    #[arg(long, value_name = "LANG", requires = "tgt_lang")]
    src_lang: Option<String>,
    /// The target language.
    #[arg(long, value_name = "LANG", requires = "src_lang")]
    tgt_lang: Option<String>,
    /// Leave language identification out of the default features.
    #[arg(long)]
    no_lid: bool,
    #[command(flatten)]
    lid: crate::flags::LidArgs,
    /// Text of another language, one sentence per line: targets of wrong-language negatives.
    #[arg(long, value_name = "FILE")]
    other_language: Option<PathBuf>,
    /// The kinds of synthetic negatives (comma-separated): misaligned, truncated, replaced,
    /// untranslated, wrong_language, wrong_side [default: all; wrong_language with
    /// --other-language].
    #[arg(long, value_name = "KINDS", value_delimiter = ',', value_parser = noise_kind)]
    noise: Vec<NoiseKind>,
    /// Synthetic negatives per clean pair.
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    negatives_per_pair: f64,
    /// Share of the clean pairs held out for the calibration and the report.
    #[arg(long, value_name = "X", default_value_t = 0.2)]
    held_out: f64,
    /// Calibrate on this labelled sample instead of the held-out pairs: a TSV
    /// `label<TAB>source<TAB>target`, the label `1`, `true` or `parallel` for a parallel pair
    /// and anything else (`0`, a noise kind) for one that is not.
    #[arg(long, value_name = "FILE")]
    labelled: Option<PathBuf>,
    /// Treat the rule flags as features only; by default they are hard rules, as bicleaner's:
    /// a pair that fails one scores below 0.5, under every pair that fails none.
    #[arg(long)]
    no_hard_rules: bool,
    /// L2 penalty of the logistic regression, per training pair.
    #[arg(long, value_name = "X", default_value_t = 1e-4)]
    l2: f64,
    /// Seed of the split and the noise.
    #[arg(long, default_value_t = 73)]
    seed: u64,
    #[command(flatten)]
    bad: crate::flags::BadLinesArgs,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
}

fn noise_kind(s: &str) -> Result<NoiseKind, String> {
    NoiseKind::from_name(s).ok_or_else(|| {
        format!(
            "unknown noise kind {s:?}: misaligned, truncated, replaced, untranslated, \
             wrong_language, wrong_side"
        )
    })
}

impl ClassifierArgs {
    /// The languages and the identifier's model, for the `lid` feature.
    fn lid(&self) -> Result<Option<(PathBuf, String, String)>> {
        match (&self.src_lang, &self.tgt_lang) {
            (Some(s), Some(t)) if !self.no_lid => Ok(Some((
                self.lid.model_path().map_err(|e| {
                    e.context("the lid feature identifies languages (--no-lid: without)")
                })?,
                s.clone(),
                t.clone(),
            ))),
            _ => Ok(None),
        }
    }

    /// The features of the flags.
    fn features(&self) -> Result<Vec<FeatureSpec>> {
        let rules = Rules {
            src_lang: self.src_lang.clone(),
            tgt_lang: self.tgt_lang.clone(),
            ..Rules::default()
        };
        let mut out = if self.scorers.is_empty() {
            FeatureSpec::defaults(self.lid()?, rules.clone())
        } else {
            let mut out = Vec::new();
            for s in &self.scorers {
                let parts: Vec<&str> = if s.trim_start().starts_with('{') {
                    vec![s.as_str()]
                } else {
                    s.split(',').filter(|p| !p.trim().is_empty()).collect()
                };
                for p in parts {
                    let spec: FeatureSpec = p.parse().with_context(|| format!("--scorers {p}"))?;
                    out.push(match spec {
                        FeatureSpec::Lid { model, .. } if model.as_os_str().is_empty() => {
                            let Some((model, src_lang, tgt_lang)) = self.lid()? else {
                                bail!("--scorers lid needs --src-lang and --tgt-lang");
                            };
                            FeatureSpec::Lid {
                                model,
                                src_lang,
                                tgt_lang,
                            }
                        }
                        FeatureSpec::Rules { .. } if p.trim() == "rules" => FeatureSpec::Rules {
                            rules: rules.clone(),
                        },
                        other => other,
                    });
                }
            }
            out
        };
        out.extend(
            self.encoder
                .iter()
                .map(|e| FeatureSpec::Encoder { encoder: e.clone() }),
        );
        Ok(out)
    }
}

/// The labelled sample of --labelled, its bad lines under --bad-lines (skipped ones to
/// `rejects`).
fn labelled(
    path: &std::path::Path,
    bad: BadLines,
    rejects: &mut crate::run::RejectSink,
) -> Result<Vec<bitext_classify::LabelledPair>> {
    let mut out = Vec::new();
    let mut reader = BitextTsvReader::open(path, 1, 2)?.bad_lines(bad);
    for rec in reader.by_ref() {
        let rec = rec?;
        let label = rec.raw.split('\t').next().unwrap_or("").trim();
        out.push((rec.src, rec.tgt, matches!(label, "1" | "true" | "parallel")));
    }
    rejects.add_named(path, reader.take_rejected())?;
    if !out.iter().any(|p| p.2) || out.iter().all(|p| p.2) {
        bail!(
            "{}: a calibration sample needs parallel and non-parallel pairs",
            path.display()
        );
    }
    Ok(out)
}

pub(crate) fn run(a: &ClassifierArgs) -> Result<()> {
    if a.output.exists() && !a.output.is_dir() {
        bail!("-o {}: not a directory", a.output.display());
    }
    let start = Instant::now();
    let features = a.features()?;
    let (src_col, tgt_col) = a.cols.zero_based()?;
    let (src, tgt, skipped) =
        crate::run::read_columns_skipping(&a.input, (src_col, tgt_col), a.bad.bad_lines())?;
    let mut rejects = crate::run::RejectSink::new(&a.bad)?;
    rejects.add_named(&a.input, skipped)?;
    let pairs: Vec<(String, String)> = src.into_iter().zip(tgt).collect();
    let other = match &a.other_language {
        Some(p) => {
            let (lines, bad) = read_lines_skipping(p, EmptyLines::Reject, a.bad.bad_lines())?;
            rejects.add_named(p, bad)?;
            lines
        }
        None => Vec::new(),
    };
    let sample = match &a.labelled {
        Some(p) => Some(labelled(p, a.bad.bad_lines(), &mut rejects)?),
        None => None,
    };
    let mut noise = NoiseConfig {
        per_pair: a.negatives_per_pair,
        ..NoiseConfig::default()
    };
    if !a.noise.is_empty() {
        noise.kinds.clone_from(&a.noise);
    }
    if other.is_empty() && a.noise.contains(&NoiseKind::WrongLanguage) {
        bail!("--noise wrong_language needs --other-language FILE");
    }
    let config = TrainConfig {
        features,
        noise,
        held_out: a.held_out,
        seed: a.seed,
        fit: FitOptions {
            l2: a.l2,
            ..FitOptions::default()
        },
        hard_rules: !a.no_hard_rules,
    };
    let quiet = a.quiet.quiet;
    #[cfg(feature = "neural")]
    if config.features.iter().any(|f| f.neural_model().is_some()) {
        crate::neural::start_neural_command();
    }
    let classifier = bitext_classify::train(
        &pairs,
        &other,
        sample.as_deref(),
        &config,
        &a.output,
        &crate::build::ClassifierBackends,
        &mut |msg| {
            if !quiet {
                eprintln!("{msg}");
            }
        },
    )
    .with_context(|| format!("training a classifier on {}", a.input.display()))?;
    rejects.finish_inputs()?;
    let d = classifier.description();
    let t = &d.training;
    if !quiet {
        eprintln!("weights (per standard deviation):");
        for (name, w) in d.model.names.iter().zip(&d.model.weights) {
            eprintln!("  {name:<22} {w:+.3}");
        }
    }
    eprintln!(
        "trained a classifier of {} features on {} clean pairs ({} held out) and {} synthetic \
         negatives in {:.1} s: held-out AP {:.3}, F1 {:.3}; calibrated on {}: {}",
        d.model.names.len(),
        t.pairs + t.held_out,
        t.held_out,
        t.negatives.values().sum::<usize>(),
        start.elapsed().as_secs_f64(),
        t.held_out_ap,
        t.held_out_f1,
        t.calibration,
        a.output.display()
    );
    Ok(())
}
