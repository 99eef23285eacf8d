//! `bitext train`: train the neural models into a model directory (configuration, weights,
//! vocabularies; resumable with `--resume`).
//!
//! - `bitext train siamese`: the siamese BiGRU classifier (Grégoire & Langlais 2018) on
//!   parallel text.
//! - `bitext train autoencoder`: the shared-decoder autoencoder (Kim et al. 2019) on parallel
//!   text, plus monolingual text of the decoded language if given.
//! - `bitext train aligner`: the word-alignment BiLSTM (divergence detection: which words of a
//!   pair are not translations, `wemb`/`semb` scores, `bitext fix`) on parallel text, with
//!   synthetic examples and IBM-1 word links.
//! - `bitext train mlp`: the MLP similarity (Kim et al. 2019) on the sentence vectors of a
//!   trained encoder, with random negatives or the worst-scored lines of a noisy corpus.
//! - `bitext train ibm1`: IBM Model 1 in both directions (`train/ibm1.rs`; no burn, in
//!   every build).
//! - `bitext train classifier`: a pair classifier over every scorer's features, from clean
//!   pairs alone (`train/classifier.rs`; no burn).
//!
//! The arguments parse in every build, so that `--help` and the flags are the same; the neural
//! training (the `training` module, on burn) compiles only with the cargo feature `neural`,
//! and without it `bitext train siamese|autoencoder|aligner|mlp` says how to get it.

// Without the feature the arguments are parsed and never read.
#![cfg_attr(not(feature = "neural"), allow(dead_code))]

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::flags::{Backend, Optimizer};

mod aligner;
mod autoencoder;
mod classifier;
mod ibm1;
mod pairs;
#[cfg(feature = "neural")]
mod pieces;
mod siamese;
mod teacher;

pub(crate) use pairs::{PairArgs, ValidArgs};

/// Training subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum TrainCommand {
    /// The siamese BiGRU classifier on parallel text.
    Siamese(Box<siamese::SiameseArgs>),
    /// The shared-decoder autoencoder (Kim et al. 2019) on parallel text.
    Autoencoder(Box<autoencoder::AutoencoderArgs>),
    /// The word-alignment BiLSTM (which words of a pair diverge; `bitext score --words`,
    /// `bitext fix`) on parallel text.
    ///
    /// Every epoch draws fresh synthetic examples of each of --kinds from the training pairs
    /// (the validation examples of every kind are drawn once, from the held-out pairs);
    /// the words of replaced spans are linked to the other side by IBM Model 1 (trained here on
    /// the model's tokens, grow-diag-final-and). Without --optimizer or --lr it trains as the
    /// paper: SGD at rate 1.0, the rate × 0.8 after an epoch without a better validation loss
    /// (--plateau: halved), the gradient norm clipped at 5 (--clip), 10 epochs (--epochs).
    Aligner(Box<aligner::AlignerArgs>),
    /// The MLP similarity on the vectors of a trained encoder (siamese, autoencoder or
    /// aligner).
    Mlp(Box<MlpArgs>),
    /// IBM Model 1 in both directions on a parallel TSV (lexical baseline; no neural feature
    /// needed).
    Ibm1(Box<ibm1::Ibm1Args>),
    /// A pair classifier from clean pairs alone (synthetic negatives, features from every
    /// scorer, logistic regression, a calibrated probability; `bitext score --classifier`);
    /// no neural feature needed.
    Classifier(Box<classifier::ClassifierArgs>),
}

/// Options shared by every model's training.
#[derive(Debug, Args)]
pub(crate) struct CommonArgs {
    /// Model directory to write (created; `--resume` continues the run saved there).
    #[arg(long = "output", short = 'o', alias = "out", value_name = "DIR")]
    out: PathBuf,
    /// Continue the training saved in --output after its last finished epoch.
    #[arg(long)]
    resume: bool,
    /// Most epochs.
    #[arg(long)]
    epochs: Option<usize>,
    /// Learning rate (default: the model's).
    #[arg(long)]
    lr: Option<f64>,
    /// Optimiser.
    #[arg(long, value_enum, default_value_t = Optimizer::Adam)]
    optimizer: Optimizer,
    /// Halve the learning rate after an epoch without a better validation loss.
    #[arg(long)]
    plateau: bool,
    /// What --plateau multiplies the learning rate by (instead of halving it).
    #[arg(long, default_value_t = 0.5, value_name = "F", requires = "plateau")]
    plateau_factor: f64,
    /// Decay the learning rate linearly to zero over the run's budget (--time-limit,
    /// --max-steps or --epochs: whichever the run is nearer the end of), as budgeted-training
    /// studies advise for a run cut at a budget; a --resume decays again over its own time
    /// budget.
    #[arg(long, conflicts_with = "plateau")]
    linear_decay: bool,
    /// Stop after this many epochs without a better validation loss.
    #[arg(long, default_value_t = 3)]
    patience: usize,
    /// Stop training after this many minutes (the epoch under way is validated and saved).
    #[arg(long, value_name = "MIN")]
    time_limit: Option<f64>,
    /// Stop after this many updates in all, a --resume's included (the epoch under way is
    /// validated and saved): a budget that, unlike --time-limit, does not depend on how busy
    /// the machine is.
    #[arg(long, value_name = "N")]
    max_steps: Option<usize>,
    /// Share of the training pairs held out for validation (without --valid-*).
    #[arg(long, default_value_t = 0.01)]
    valid_fraction: f64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Backend (ndarray and wgpu need cargo features).
    #[arg(long, value_enum, default_value_t = Backend::Flex)]
    backend: Backend,
    /// No progress bars or summaries on standard error (errors, and notices of what was left
    /// out, still print); epoch summaries included.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// How a neural model cuts text and starts its embedding tables: word vocabularies built from
/// the training text or a sentencepiece model, optionally initialised from bilingual vectors
/// (`bitext train siamese`, `autoencoder` and `aligner`).
#[derive(Debug, Args)]
pub(crate) struct TextArgs {
    /// One vocabulary per language (default: one joint vocabulary).
    #[arg(long)]
    separate_vocab: bool,
    /// Cut both languages into the pieces of this sentencepiece model (copied into the model
    /// directory) instead of building word vocabularies (--separate-vocab, --min-count,
    /// --max-vocab and --keep-case then do not apply).
    #[arg(long, value_name = "MODEL", conflicts_with_all = ["separate_vocab", "keep_case"])]
    spm: Option<PathBuf>,
    /// Initialise the embedding tables from bilingual vectors (`.vec`) of the source language
    /// (of both, for one file in a shared space such as `usem.spm128k.vec`): each token found
    /// there starts from its vector (projected on its top principal directions when the
    /// model's embedding size is smaller), the rest at random with the same scale. An ONNX
    /// encoder spec instead of a file (`{"type": "onnx", "model": FILE, "output": TENSOR}`)
    /// takes the graph's own input vectors of its pieces: the spec's "output" names the per-piece tensor of its embedding lookup (for USE-M
    /// `StatefulPartitionedCall/EncoderDNN/EmbeddingLookup/EmbeddingLookupUnique/Reshape_1:0`;
    /// with --spm, the same sentencepiece model as the graph's); computed once and cached
    /// (`~/.cache/bitext/pieces`).
    #[arg(long, value_name = "FILE|SPEC")]
    init_vectors: Option<PathBuf>,
    /// The target language's vectors for --init-vectors (same space; a file or, as there, an
    /// ONNX encoder spec).
    #[arg(
        long = "init-tgt-vectors",
        alias = "init-target-vectors",
        value_name = "FILE|SPEC",
        requires = "init_vectors"
    )]
    init_target_vectors: Option<PathBuf>,
    /// Keep the embedding tables fixed while training (with --init-vectors).
    #[arg(long, requires = "init_vectors")]
    freeze_embeddings: bool,
    /// Keep words seen at least this often.
    #[arg(long, default_value_t = 2)]
    min_count: u64,
    /// Keep at most this many words per vocabulary.
    #[arg(long, default_value_t = 32_000)]
    max_vocab: usize,
    /// Keep the case of words (the default lowercases, as the papers).
    #[arg(long)]
    keep_case: bool,
}

/// Batches, clipping and truncation of a text model's training (`bitext train siamese`,
/// `autoencoder` and `aligner`); the defaults are the model family's.
#[derive(Debug, Args)]
pub(crate) struct BatchArgs {
    /// Most examples per batch (default: siamese 128 pairs, autoencoder 60, aligner 32).
    #[arg(long, value_name = "N")]
    batch: Option<usize>,
    /// Most padded tokens per batch, examples × the longest (default: siamese 128 × 80,
    /// autoencoder 60 × 124, aligner 32 × 160).
    #[arg(long, value_name = "N")]
    max_tokens: Option<usize>,
    /// Clip the global gradient norm to this.
    #[arg(long, default_value_t = 5.0)]
    clip: f64,
    /// Cut training sentences to this many tokens (default: 80; autoencoder 60).
    #[arg(long, value_name = "N")]
    max_len: Option<usize>,
}

/// Arguments of `bitext train mlp`.
#[derive(Debug, Args)]
#[command(mut_arg(crate::flags::BadLinesArgs::HELP_ID, |a| a.help(pairs::BAD_LINES)))]
pub(crate) struct MlpArgs {
    /// Encoder model directory whose sentence vectors the MLP compares.
    #[arg(long, value_name = "DIR")]
    encoder: PathBuf,
    /// Positive (parallel) pairs.
    #[command(flatten)]
    pairs: PairArgs,
    /// Negatives: `repaired`, random re-pairings of the positives; `random`, random lines of
    /// --noisy (Kim et al. §5.2's random negatives); or `worst:X`, the worst-scored lines (by
    /// cosine) of the top X% of --noisy (§5.2).
    #[arg(
        long = "negative-source",
        alias = "negatives",
        default_value = "repaired"
    )]
    negatives: String,
    /// Noisy corpus TSV for `random` and `worst:X` negatives (columns --src-col / --tgt-col).
    #[arg(long, value_name = "FILE")]
    noisy: Option<PathBuf>,
    /// Number of negatives (default: as many as positives).
    #[arg(long)]
    count: Option<usize>,
    /// Hidden layer sizes.
    #[arg(long, default_value = "512,512", value_delimiter = ',')]
    hidden: Vec<usize>,
    /// Pairs per batch.
    #[arg(long, default_value_t = 200)]
    batch: usize,
    #[command(flatten)]
    common: CommonArgs,
}

/// Train the model `cmd` names.
#[cfg(feature = "neural")]
pub(crate) fn run(cmd: &TrainCommand) -> Result<()> {
    match cmd {
        TrainCommand::Ibm1(a) => return ibm1::run(a),
        TrainCommand::Classifier(a) => return classifier::run(a),
        _ => {}
    }
    crate::neural::start_neural_command();
    match cmd {
        TrainCommand::Siamese(a) => siamese::training::train(a),
        TrainCommand::Autoencoder(a) => autoencoder::training::train(a),
        TrainCommand::Aligner(a) => aligner::training::train(a),
        TrainCommand::Mlp(a) => training::mlp(a),
        TrainCommand::Ibm1(a) => ibm1::run(a),
        TrainCommand::Classifier(a) => classifier::run(a),
    }
}

/// `bitext train` in a binary without the neural models: IBM-1 trains; the neural models' error
/// says how to get them.
#[cfg(not(feature = "neural"))]
pub(crate) fn run(cmd: &TrainCommand) -> Result<()> {
    match cmd {
        TrainCommand::Ibm1(a) => ibm1::run(a),
        TrainCommand::Classifier(a) => classifier::run(a),
        _ => Err(crate::run::neural_unavailable(
            "`bitext train siamese|autoencoder|aligner|mlp`",
        )),
    }
}

/// The training itself, on burn (only with the cargo feature `neural`).
#[cfg(feature = "neural")]
mod training {
    use std::path::Path;

    use anyhow::{Context, Result, bail};
    use bitext_core::Rng;
    use bitext_encode::Side;
    use bitext_neural::backend::{BackendSpec, Threads};
    use bitext_neural::batch::Bucketing;
    use bitext_neural::mlp::{
        Mlp, MlpConfig, MlpDescription, MlpTask, PairSet, cosine_rows, random_negatives,
        worst_of_portion,
    };
    use bitext_neural::pretrained::VectorsInit;
    use bitext_neural::spec::ModelEncoder;
    use bitext_neural::text::{TextCorpus, WordVocabConfig};
    use bitext_neural::train::{LrSchedule, OptimizerSpec, TrainConfig, TrainerState, fit};
    use bitext_tokenize::{SequenceConfig, WordConfig};

    use super::pairs::Split;
    use super::{BatchArgs, CommonArgs, MlpArgs, TextArgs};
    use crate::flags::Optimizer;
    use crate::neural::read_pairs;
    use crate::run::RejectSink;

    impl TextArgs {
        /// The word vocabularies to build (when no sentencepiece model is given).
        pub(in crate::cmd::train) fn vocab(&self, sequence: SequenceConfig) -> WordVocabConfig {
            WordVocabConfig {
                joint: !self.separate_vocab,
                min_count: self.min_count,
                max_size: Some(self.max_vocab),
                word: WordConfig {
                    lowercase: !self.keep_case,
                    ..WordConfig::default()
                },
                sequence,
            }
        }

        /// The training text of a text model: `split`'s pairs (its validation pairs when it has
        /// any), cut by the vocabulary's `sequence` and at `max_len` tokens.
        pub(in crate::cmd::train) fn corpus<'a>(
            &self,
            split: &'a Split,
            sequence: SequenceConfig,
            max_len: usize,
            quiet: bool,
        ) -> Result<TextCorpus<'a>> {
            let (ts, tt, vs, vt) = split;
            Ok(TextCorpus {
                src: ts,
                tgt: tt,
                valid: (!vs.is_empty()).then_some((&vs[..], &vt[..])),
                vocab: self.vocab(sequence),
                spm: self.spm.clone(),
                init: self.init(quiet)?,
                max_len: Some(max_len),
            })
        }

        /// The bilingual vectors the embedding tables start from, if any (an `onnx:` spec
        /// given as --init-vectors made into its graph's piece vectors first).
        pub(in crate::cmd::train) fn init(&self, quiet: bool) -> Result<Option<VectorsInit>> {
            self.init_vectors
                .as_ref()
                .map(|v| {
                    Ok(VectorsInit {
                        source: super::pieces::resolve(v, "--init-vectors", quiet)?,
                        target: self
                            .init_target_vectors
                            .as_ref()
                            .map(|t| super::pieces::resolve(t, "--init-tgt-vectors", quiet))
                            .transpose()?,
                        max_words: None,
                    })
                })
                .transpose()
        }
    }

    impl CommonArgs {
        pub(super) fn train_config(
            &self,
            epochs: usize,
            lr: f64,
            clip: Option<f64>,
        ) -> Result<TrainConfig> {
            let lr = self.lr.unwrap_or(lr);
            let c = TrainConfig {
                epochs: self.epochs.unwrap_or(epochs),
                optimizer: if self.optimizer == Optimizer::Sgd {
                    OptimizerSpec::Sgd { lr, momentum: 0.0 }
                } else {
                    OptimizerSpec::adam(lr)
                },
                schedule: if self.plateau {
                    LrSchedule::Plateau {
                        factor: self.plateau_factor,
                    }
                } else if self.linear_decay {
                    LrSchedule::Linear
                } else {
                    LrSchedule::Constant
                },
                clip_norm: clip,
                patience: Some(self.patience),
                seed: self.seed,
                max_steps: self.max_steps,
                time_limit_secs: self.time_limit.map(|m| m * 60.0),
                backend: BackendSpec::from(self.backend.spec()),
                threads: Threads(self.threads),
                progress: !self.quiet,
            };
            c.check()?;
            // The device first: a backend this build or machine cannot run is refused before
            // any data is read or any output written (the probe is made once per process).
            c.backend.device()?;
            Ok(c)
        }
    }

    impl BatchArgs {
        /// The batches: --batch and --max-tokens, else the family's `(items, tokens)`.
        pub(in crate::cmd::train) fn bucketing(
            &self,
            (items, tokens): (usize, usize),
        ) -> Bucketing {
            Bucketing {
                max_items: self.batch.unwrap_or(items),
                max_tokens: self.max_tokens.unwrap_or(tokens),
            }
        }

        /// --max-len, else the family's.
        pub(in crate::cmd::train) fn max_len(&self, default: usize) -> usize {
            self.max_len.unwrap_or(default)
        }
    }

    pub(super) fn report(state: &TrainerState, dir: &Path, quiet: bool) {
        if quiet {
            return;
        }
        let best = state.history.get(state.best_epoch.wrapping_sub(1));
        eprintln!(
            "saved the best model (epoch {}, validation loss {}) to {}",
            state.best_epoch,
            best.and_then(|b| b.valid.as_ref())
                .map_or("n/a".to_string(), |v| format!("{:.4}", v.loss)),
            dir.display()
        );
    }

    pub(super) fn mlp(a: &MlpArgs) -> Result<()> {
        a.pairs.refuse_repeat("train mlp")?;
        let backend = BackendSpec::from(a.common.backend.spec());
        let enc = ModelEncoder::load(&a.encoder, backend)
            .with_context(|| format!("loading the encoder {}", a.encoder.display()))?;
        let mut rejects = RejectSink::new(&a.pairs.bad)?;
        let (src, tgt) = a.pairs.read(&mut rejects)?;
        let vec = |side: Side, s: &[String]| -> Result<bitext_core::Embeddings> {
            let r: Vec<&str> = s.iter().map(String::as_str).collect();
            Ok(enc.vectors(side, &r)?)
        };
        let (pa, pb) = (vec(Side::Source, &src)?, vec(Side::Target, &tgt)?);
        let count = a.count.unwrap_or(pa.len());
        let mut rng = Rng::seed(a.common.seed);
        // The noisy corpus's vectors, for the negatives drawn from it.
        let mut noisy = |what: &str| -> Result<(bitext_core::Embeddings, bitext_core::Embeddings)> {
            let noisy = a
                .noisy
                .as_deref()
                .with_context(|| format!("--negative-source {what} needs --noisy FILE"))?;
            let (ns, nt) = read_pairs(
                Some(noisy),
                a.pairs.cols.zero_based()?,
                (None, None),
                a.pairs.skip_empty,
                &mut rejects,
            )?;
            Ok((vec(Side::Source, &ns)?, vec(Side::Target, &nt)?))
        };
        let set = if a.negatives == "repaired" {
            let neg = random_negatives(pa.len(), count, &mut rng);
            PairSet::with_negative_pairs(pa.view(), pb.view(), &neg)?
        } else if a.negatives == "random" || a.negatives.starts_with("worst:") {
            let (na, nb) = noisy(&a.negatives)?;
            let idx = if let Some(x) = a.negatives.strip_prefix("worst:") {
                let portion: f64 = x.trim_end_matches('%').parse().with_context(|| {
                    format!("--negative-source worst:X needs a percentage, got {x:?}")
                })?;
                worst_of_portion(&cosine_rows(na.view(), nb.view())?, portion / 100.0, count)?
            } else {
                if count > na.len() {
                    bail!(
                        "--negative-source random needs {count} lines of --noisy, which has {}",
                        na.len()
                    );
                }
                let mut idx: Vec<usize> = (0..na.len()).collect();
                rng.shuffle(&mut idx);
                idx.truncate(count);
                idx
            };
            let mut sa = bitext_core::Embeddings::with_capacity(na.dim(), idx.len())?;
            let mut sb = bitext_core::Embeddings::with_capacity(nb.dim(), idx.len())?;
            for &i in &idx {
                sa.push_row(na.row(i))?;
                sb.push_row(nb.row(i))?;
            }
            PairSet::from_sets(pa.view(), pb.view(), sa.view(), sb.view())?
        } else {
            bail!(
                "--negative-source must be `repaired`, `random` or `worst:X`, got {:?}",
                a.negatives
            );
        };
        rejects.finish_inputs()?;
        let (train, valid) = set.split(a.common.valid_fraction.max(0.05), &mut rng)?;
        let encoder = a
            .encoder
            .canonicalize()
            .unwrap_or_else(|_| a.encoder.clone());
        let desc = MlpDescription {
            network: MlpConfig {
                dim: pa.dim(),
                hidden: a.hidden.clone(),
                dropout: 0.0,
            },
            encoder: Some(encoder.display().to_string()),
        };
        let config = a.common.train_config(30, 1e-3, None)?;
        let mut task = MlpTask::new(desc.clone(), train, Some(valid), a.batch)?;
        let model = Mlp::new(
            &desc.network,
            a.common.seed,
            &config.backend.autodiff_device()?,
        )?;
        let fitted = fit(&mut task, model, &config, &a.common.out, a.common.resume)?;
        report(&fitted.state, &a.common.out, a.common.quiet);
        Ok(())
    }
}
