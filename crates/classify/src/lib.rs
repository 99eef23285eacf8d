//! One calibrated score from every scorer: a classifier of sentence pairs (bicleaner's kind)
//! over features that the workspace's scorers compute ([`FeatureSpec`]: the length ratio,
//! Levenshtein, numbers and punctuation agreement, the rule flags of `bitext-clean`,
//! language identification, IBM Model 1 both ways, any scorer of sentences, an encoder's
//! cosine), trained from clean pairs alone with synthetic negatives ([`negatives`]), by a
//! logistic regression over standardised features ([`Logistic`]); its score is calibrated to
//! P(parallel) by `bitext-eval`'s isotonic calibration, and each score can be explained
//! feature by feature ([`Explanation`]).
//!
//! ```no_run
//! use bitext_classify::{Classifier, FeatureSpec, LightBackends, TrainConfig, train};
//! # fn main() -> bitext_classify::Result<()> {
//! let pairs: Vec<(String, String)> = vec![/* clean pairs */];
//! let config = TrainConfig {
//!     features: FeatureSpec::defaults(None, Default::default()),
//!     ..TrainConfig::default()
//! };
//! let dir = std::path::Path::new("runs/classifier");
//! train(&pairs, &[], None, &config, dir, &LightBackends, &mut |_| {})?;
//! let classifier = Classifier::load(dir, &LightBackends)?;
//! let scores = classifier.score(&["Das Haus ."], &["The house ."])?;
//! println!("P(parallel) = {}", classifier.probability(scores[0]));
//! # Ok(())
//! # }
//! ```

mod error;
mod extract;
mod feature;
mod logistic;
mod model;
mod noise;
mod scorer;

pub use error::{Error, Result};
pub use extract::{
    Backends, BatchScorers, Features, LightBackends, Matrix, number_agreement,
    punctuation_agreement,
};
pub use feature::{FeatureSpec, TRAINED_IBM1};
pub use logistic::{FitOptions, Logistic, sigmoid};
pub use model::{
    CALIBRATION, Classifier, DESCRIPTION, Description, Explanation, FORMAT, LabelledPair,
    TrainConfig, TrainingReport, VERSION, train,
};
pub use noise::{Negative, NoiseConfig, NoiseKind, Words, negatives};
pub use scorer::ClassifierScorer;
