//! [`Classifier`]: a trained pair classifier, saved in a directory that holds everything it
//! needs (`classifier.json`: the features and the fitted model; `calibration.json`: the map
//! from its score to P(parallel); `ibm1/`: the IBM-1 table trained for it), and [`train`],
//! which makes one from clean pairs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bitext_core::Rng;
use bitext_core::io::AtomicFile;
use bitext_eval::calibration::{Calibration, FitOptions as CalibrationOptions, LabelledScores};
use bitext_eval::prf::{average_precision, prf_top};
use bitext_lexical::{Ibm1, Ibm1Config, Segmenter};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::extract::{Backends, Features, Matrix};
use crate::feature::{FeatureSpec, TRAINED_IBM1};
use crate::logistic::{FitOptions, Logistic, sigmoid};
use crate::noise::{NoiseConfig, Words, negatives};

/// The name of the model's file format, written in `classifier.json`.
pub const FORMAT: &str = "bitext-classifier";
/// The version of the format this build writes and reads.
pub const VERSION: u32 = 1;
/// The description's file in a classifier's directory.
pub const DESCRIPTION: &str = "classifier.json";
/// The calibration's file in a classifier's directory (`bitext calibrate`'s format).
pub const CALIBRATION: &str = "calibration.json";
/// Pairs whose features are computed at a time while training.
const BATCH: usize = 4096;

/// What `classifier.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The features, in column order (relative paths: in the directory).
    pub features: Vec<FeatureSpec>,
    /// The fitted logistic regression.
    pub model: Logistic,
    /// Whether the rule flags are hard rules, as bicleaner's: a pair failing one scores below
    /// every pair that fails none ([`Classifier::scores_of`]).
    pub hard_rules: bool,
    /// How it was trained and how it did on its held-out pairs.
    pub training: TrainingReport,
}

impl Description {
    /// Check the fitted model against the columns of its built features (`path`: the file
    /// named in the error).
    fn check(&self, names: &[String], path: &Path) -> Result<()> {
        let m = &self.model;
        let d = m.names.len();
        if names != m.names.as_slice()
            || [m.mean.len(), m.scale.len(), m.weights.len()] != [d; 3]
            || !m.bias.is_finite()
            || m.weights
                .iter()
                .chain(&m.mean)
                .chain(&m.scale)
                .any(|v| !v.is_finite())
            || m.scale.iter().any(|&s| s <= 0.0)
        {
            return Err(Error::Model {
                path: path.to_path_buf(),
                reason: format!(
                    "the model's columns {:?} (or their values) do not match its features' {names:?}",
                    m.names
                ),
            });
        }
        Ok(())
    }

    /// The columns whose flag is a hard rule (none without hard rules).
    fn gates(&self) -> Vec<usize> {
        let names = &self.model.names;
        (0..names.len())
            .filter(|&c| self.hard_rules && names[c].starts_with("rule_"))
            .collect()
    }

    /// The scores of feature rows ([`Classifier::scores_of`]).
    fn scores(&self, x: &Matrix) -> Result<Vec<f64>> {
        let logits = self.model.logits(x)?;
        let gates = self.gates();
        Ok(logits
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let p = sigmoid(l);
                match (self.hard_rules, self.model.gate(&gates, x, i)) {
                    (false, _) => p,
                    (true, Some(_)) => (0.5 * p).min(0.5 - 1e-12),
                    (true, None) => 0.5 + 0.5 * p,
                }
            })
            .collect())
    }
}

/// How a classifier was trained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingReport {
    /// Clean pairs it was trained on (the held-out ones aside).
    pub pairs: usize,
    /// Clean pairs held out for the calibration and the report.
    pub held_out: usize,
    /// Synthetic negatives of each kind, training and held-out together.
    pub negatives: BTreeMap<String, usize>,
    /// The seed of the split and the noise.
    pub seed: u64,
    /// The noise's settings.
    pub noise: NoiseConfig,
    /// Average precision on the held-out pairs and their negatives.
    pub held_out_ap: f64,
    /// F1 of the held-out pairs' best-scored lines up to the count of clean pairs.
    pub held_out_f1: f64,
    /// What the calibration was fitted on.
    pub calibration: String,
}

/// How to train.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainConfig {
    /// The features ([`FeatureSpec::defaults`] for the default set).
    pub features: Vec<FeatureSpec>,
    /// The synthetic negatives.
    pub noise: NoiseConfig,
    /// Share of the clean pairs held out (default 0.2).
    pub held_out: f64,
    /// The seed of the split and the noise.
    pub seed: u64,
    /// The logistic regression's options.
    pub fit: FitOptions,
    /// Whether the rule flags are hard rules ([`Description::hard_rules`]).
    pub hard_rules: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            features: Vec::new(),
            noise: NoiseConfig::default(),
            held_out: 0.2,
            seed: 73,
            fit: FitOptions::default(),
            hard_rules: true,
        }
    }
}

/// A pair labelled parallel or not, for calibrating on a labelled sample.
pub type LabelledPair = (String, String, bool);

/// A loaded classifier.
#[derive(Debug)]
pub struct Classifier {
    description: Description,
    features: Features,
    calibration: Calibration,
    dir: PathBuf,
}

/// A pair's score explained: each column's contribution to the logit.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The bias (the logit of a pair at every training mean).
    pub bias: f64,
    /// `(column, weight × standardised value)`, in column order.
    pub contributions: Vec<(String, f64)>,
    /// The hard rule the pair fails (its score is then below 0.5).
    pub gate: Option<String>,
}

impl Explanation {
    /// As one TSV field: `bias=+0.120 length_ratio=-0.031 …` (three decimals), with
    /// `gate=rule_markup` first when the pair fails a hard rule.
    #[must_use]
    pub fn to_field(&self) -> String {
        let mut parts = Vec::with_capacity(self.contributions.len() + 2);
        if let Some(g) = &self.gate {
            parts.push(format!("gate={g}"));
        }
        parts.push(format!("bias={:+.3}", self.bias));
        parts.extend(
            self.contributions
                .iter()
                .map(|(n, v)| format!("{n}={v:+.3}")),
        );
        parts.join(" ")
    }
}

impl Classifier {
    /// Load the classifier saved in `dir`, building its features with `backends`.
    ///
    /// # Errors
    /// [`Error::Model`] for a missing or malformed file, another format or version, features
    /// that do not match the model; a feature that does not build.
    pub fn load(dir: &Path, backends: &dyn Backends) -> Result<Self> {
        let path = dir.join(DESCRIPTION);
        let bad = |reason: String| Error::Model {
            path: path.clone(),
            reason,
        };
        let bytes = std::fs::read(&path).map_err(|e| bad(format!("cannot read: {e}")))?;
        let description: Description =
            serde_json::from_slice(bitext_core::io::strip_bom(&bytes))
                .map_err(|e| bad(format!("not a classifier description: {e}")))?;
        if description.format != FORMAT || description.version != VERSION {
            return Err(bad(format!(
                "format {} version {}, this build reads {FORMAT} version {VERSION}",
                description.format, description.version
            )));
        }
        let calibration = Calibration::load(dir.join(CALIBRATION))?;
        let features = Features::build(&description.features, dir, backends)?;
        description.check(features.names(), &path)?;
        Ok(Self {
            description,
            features,
            calibration,
            dir: dir.to_path_buf(),
        })
    }

    /// What `classifier.json` holds.
    #[must_use]
    pub fn description(&self) -> &Description {
        &self.description
    }

    /// The calibration of the score.
    #[must_use]
    pub fn calibration(&self) -> &Calibration {
        &self.calibration
    }

    /// The directory it was loaded from or saved to.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The features of pairs.
    ///
    /// # Errors
    /// As [`Features::compute`].
    pub fn features(&self, src: &[&str], tgt: &[&str]) -> Result<Matrix> {
        self.features.compute(src, tgt)
    }

    /// The scores of feature rows: the logistic model's probability `p`; with hard rules,
    /// `0.5 + p / 2` for a pair that fails no rule and `p / 2` (below 0.5) for one that fails
    /// a rule, so that the rules come first and the model orders the pairs on each side (its
    /// calibration then finds thresholds inside either group).
    ///
    /// # Errors
    /// Columns that are not the model's.
    pub fn scores_of(&self, x: &Matrix) -> Result<Vec<f64>> {
        self.description.scores(x)
    }

    /// The score of each pair `(src[i], tgt[i])`: in `[0, 1]`, higher = more parallel.
    ///
    /// # Errors
    /// As [`Classifier::features`].
    pub fn score(&self, src: &[&str], tgt: &[&str]) -> Result<Vec<f64>> {
        self.scores_of(&self.features(src, tgt)?)
    }

    /// The calibrated probability that a pair of this score is parallel.
    #[must_use]
    pub fn probability(&self, score: f64) -> f64 {
        self.calibration.probability(score)
    }

    /// Why row `i` of `x` scores what it does.
    #[must_use]
    pub fn explain(&self, x: &Matrix, i: usize) -> Explanation {
        let m = &self.description.model;
        Explanation {
            bias: m.bias,
            contributions: m.names.iter().cloned().zip(m.contributions(x, i)).collect(),
            gate: m
                .gate(&self.description.gates(), x, i)
                .map(|c| m.names[c].clone()),
        }
    }

    /// The lowest score whose kept set reaches `precision` on the calibration sample.
    ///
    /// # Errors
    /// As [`Calibration::min_score`].
    pub fn min_score(&self, precision: f64) -> Result<f64> {
        Ok(self.calibration.min_score(precision)?)
    }

    /// Save `classifier.json` and `calibration.json` in `dir` (each written whole or not at
    /// all).
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| bitext_core::Error::io(dir, e))?;
        let json = serde_json::to_string_pretty(&self.description)
            .map_err(|e| Error::Invalid(e.to_string()))?;
        let path = dir.join(DESCRIPTION);
        let mut out = AtomicFile::create_text(&path)?;
        std::io::Write::write_all(&mut out, json.as_bytes()).map_err(|e| out.err(e))?;
        std::io::Write::write_all(&mut out, b"\n").map_err(|e| out.err(e))?;
        out.commit()?;
        self.calibration.save(dir.join(CALIBRATION))?;
        Ok(())
    }
}

/// The features of many pairs, batch by batch.
fn features_of(features: &Features, src: &[&str], tgt: &[&str]) -> Result<Matrix> {
    let mut x = Matrix::default();
    for (s, t) in src.chunks(BATCH).zip(tgt.chunks(BATCH)) {
        x.extend(features.compute(s, t)?)?;
    }
    Ok(x)
}

/// IBM Model 1 on `pairs` (lowercased words; pairs with a side without a word left out),
/// saved in `dir`.
fn train_ibm1(pairs: &[(String, String)], dir: &Path) -> Result<()> {
    let segment = Segmenter::default()
        .build()
        .map_err(bitext_lexical::Error::from)?;
    let (mut s, mut t) = (Vec::new(), Vec::new());
    for (a, b) in pairs {
        let tokens = |x: &str| segment.tokens(x).map_err(bitext_lexical::Error::from);
        let (ta, tb) = (tokens(a)?, tokens(b)?);
        if !ta.is_empty() && !tb.is_empty() {
            s.push(ta);
            t.push(tb);
        }
    }
    let model = Ibm1::train_tokens(
        &Ibm1Config::default(),
        Segmenter::default(),
        &s,
        &t,
        &mut |_| {},
    )?;
    Ok(model.save(dir)?)
}

/// Clean pairs and their negatives, as sides and labels, with each negative's kind counted.
fn with_negatives(
    clean: &[(String, String)],
    words: &Words,
    other: &[String],
    noise: &NoiseConfig,
    rng: &mut Rng,
    counts: &mut BTreeMap<String, usize>,
) -> Result<(Vec<String>, Vec<String>, Vec<bool>)> {
    let neg = negatives(clean, words, other, noise, rng)?;
    let mut src: Vec<String> = clean.iter().map(|p| p.0.clone()).collect();
    let mut tgt: Vec<String> = clean.iter().map(|p| p.1.clone()).collect();
    let mut y = vec![true; clean.len()];
    for n in neg {
        *counts.entry(n.kind.name().to_string()).or_default() += 1;
        src.push(n.src);
        tgt.push(n.tgt);
        y.push(false);
    }
    Ok((src, tgt, y))
}

/// Train a classifier from clean pairs, save it in `dir` and return it: a held-out share of
/// the pairs aside; synthetic negatives made from each part ([`negatives`]; `other`: text of
/// another language for wrong-language sides); IBM Model 1 trained on the training part when
/// a feature asks for it (saved in `dir/ibm1`); the logistic regression fitted; its score
/// calibrated on the held-out pairs and their negatives, or on `labelled` when given.
/// `progress` hears each stage in words.
///
/// # Errors
/// Too few pairs (at least 10), a bad setting, a feature that does not build or fails, a
/// file that cannot be written.
pub fn train(
    pairs: &[(String, String)],
    other: &[String],
    labelled: Option<&[LabelledPair]>,
    config: &TrainConfig,
    dir: &Path,
    backends: &dyn Backends,
    progress: &mut dyn FnMut(&str),
) -> Result<Classifier> {
    if pairs.len() < 10 {
        return Err(Error::Invalid(format!(
            "training a classifier needs at least 10 clean pairs, got {}",
            pairs.len()
        )));
    }
    if !(config.held_out > 0.0 && config.held_out < 1.0) {
        return Err(Error::Invalid(format!(
            "the held-out share must lie between 0 and 1, got {}",
            config.held_out
        )));
    }
    config.noise.check()?;
    for f in &config.features {
        f.check()?;
    }
    let rng = Rng::seed(config.seed);
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    rng.fork(0).shuffle(&mut order);
    let held = ((pairs.len() as f64 * config.held_out).round() as usize).clamp(1, pairs.len() - 2);
    let (held_idx, train_idx) = order.split_at(held);
    let pick = |idx: &[usize]| -> Vec<(String, String)> {
        idx.iter().map(|&i| pairs[i].clone()).collect()
    };
    let (train_pairs, held_pairs) = (pick(train_idx), pick(held_idx));

    std::fs::create_dir_all(dir).map_err(|e| bitext_core::Error::io(dir, e))?;
    let words = Words::of_pairs(&train_pairs);
    let mut counts = BTreeMap::new();
    // A table trained on the pairs it scores would score them better than any new pair: the
    // weights are fitted on pairs the table has not seen (cross-fitting), then the table of
    // the directory is trained on every training pair.
    let trains_ibm1 = config.features.iter().any(FeatureSpec::trains_ibm1);
    let (fit_pairs, table_pairs) = if trains_ibm1 {
        let half = train_pairs.len() / 2;
        (&train_pairs[half..], &train_pairs[..half])
    } else {
        (&train_pairs[..], &train_pairs[..0])
    };
    if trains_ibm1 {
        progress(&format!(
            "training IBM Model 1 on {} pairs (for the fit)",
            table_pairs.len()
        ));
        train_ibm1(table_pairs, &dir.join(TRAINED_IBM1))?;
    }
    let features = Features::build(&config.features, dir, backends)?;
    let (src, tgt, y) = with_negatives(
        fit_pairs,
        &words,
        other,
        &config.noise,
        &mut rng.fork(1),
        &mut counts,
    )?;
    progress(&format!("features of {} training pairs", src.len()));
    let x = features_of(&features, &as_strs(&src), &as_strs(&tgt))?;
    let model = Logistic::fit(&x, &y, &config.fit)?;
    let features = if trains_ibm1 {
        progress(&format!(
            "training IBM Model 1 on {} pairs",
            train_pairs.len()
        ));
        train_ibm1(&train_pairs, &dir.join(TRAINED_IBM1))?;
        Features::build(&config.features, dir, backends)?
    } else {
        features
    };

    let (hs, ht, hy) = with_negatives(
        &held_pairs,
        &words,
        other,
        &config.noise,
        &mut rng.fork(2),
        &mut counts,
    )?;
    progress(&format!("features of {} held-out pairs", hs.len()));
    let hx = features_of(&features, &as_strs(&hs), &as_strs(&ht))?;
    let description = Description {
        format: FORMAT.into(),
        version: VERSION,
        features: config.features.clone(),
        model,
        hard_rules: config.hard_rules,
        training: TrainingReport {
            pairs: train_pairs.len(),
            held_out: held_pairs.len(),
            negatives: counts,
            seed: config.seed,
            noise: config.noise.clone(),
            held_out_ap: 0.0,
            held_out_f1: 0.0,
            calibration: String::new(),
        },
    };
    let mut description = description;
    description.check(features.names(), &dir.join(DESCRIPTION))?;
    let held_scores = description.scores(&hx)?;
    let scored: Vec<(f64, bool)> = held_scores
        .iter()
        .copied()
        .zip(hy.iter().copied())
        .collect();
    let positives = held_pairs.len();
    let report = &mut description.training;
    report.held_out_ap = average_precision(&scored, positives)?;
    report.held_out_f1 = prf_top(&scored, positives, positives)?.f1;
    let (sample, source) = match labelled {
        Some(l) => {
            let s: Vec<&str> = l.iter().map(|p| p.0.as_str()).collect();
            let t: Vec<&str> = l.iter().map(|p| p.1.as_str()).collect();
            let scores = description.scores(&features_of(&features, &s, &t)?)?;
            let sample: Vec<(f64, bool)> = scores.into_iter().zip(l.iter().map(|p| p.2)).collect();
            (sample, format!("a labelled sample of {} pairs", l.len()))
        }
        None => (
            scored,
            format!(
                "{} held-out clean pairs and their {} synthetic negatives",
                positives,
                hy.len() - positives
            ),
        ),
    };
    description.training.calibration.clone_from(&source);
    let calibration = Calibration::fit(
        &LabelledScores::new(sample)?,
        &CalibrationOptions {
            source,
            ..CalibrationOptions::default()
        },
    )?;
    let classifier = Classifier {
        description,
        features,
        calibration,
        dir: dir.to_path_buf(),
    };
    classifier.save(dir)?;
    Ok(classifier)
}

fn as_strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}
