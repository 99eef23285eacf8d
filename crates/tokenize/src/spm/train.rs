//! [`SubwordTrainer`]: train a joint sentencepiece model (unigram or BPE) on text in one or more
//! languages, with SentencePiece's own C++ trainer, so that a user goes from raw bitext to a
//! `.model` without another tool.
//!
//! Rust reads and checks the input (UTF-8, empty lines, by file and line), samples and balances
//! it with a seeded [`bitext_core::Rng`], and hands the chosen sentences to the trainer in
//! memory; the model comes back in memory and is written with [`bitext_core::io::AtomicFile`].
//! No path, and no text of the user's, goes through a SentencePiece flag string.

use std::fmt;
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::proto::ModelType;
use super::sample::{Collected, InputSource, collect};
use super::{Sentencepiece, ffi, write_model};
use crate::error::{Error, Result};

/// The text normalization a trained model applies before segmenting (stored in the model, so
/// encoding applies it too).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Normalization {
    /// NFKC plus whitespace and control-character clean-up for MT (sentencepiece's default).
    #[default]
    NmtNfkc,
    /// Plain Unicode NFKC.
    Nfkc,
    /// `nmt_nfkc` with case folding (lowercasing).
    NmtNfkcCf,
    /// NFKC with case folding.
    NfkcCf,
    /// No normalization.
    Identity,
}

impl Normalization {
    /// The rule's name in sentencepiece.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Normalization::NmtNfkc => "nmt_nfkc",
            Normalization::Nfkc => "nfkc",
            Normalization::NmtNfkcCf => "nmt_nfkc_cf",
            Normalization::NfkcCf => "nfkc_cf",
            Normalization::Identity => "identity",
        }
    }
}

/// Configuration of a subword training run; build it with the `#[must_use]` setters, then call
/// [`SubwordTrainer::train_files`] or [`SubwordTrainer::train_corpora`].
///
/// Trained models put the special pieces where [`crate::Vocab`] puts its special tokens:
/// `<pad>` = 0, `<unk>` = 1, `<s>` = 2, `</s>` = 3, then the language tags (`<de>`, `<en>`, as
/// user-defined symbols, which are always one piece, also when they occur in the text), then
/// further user symbols, then the learnt pieces. `vocab_size` counts all of them.
///
/// # Input
/// Each input is one language (or one corpus). Lines must be UTF-8. An empty or whitespace-only
/// line is an error naming the file and line, unless [`SubwordTrainer::skip_empty_lines`] is
/// set; then it is skipped and counted in the [`TrainReport`]. Lines longer than
/// `max_sentence_bytes` and lines containing `▅` (U+2585, reserved by sentencepiece's trainer)
/// are skipped by sentencepiece itself; bitext skips them first and counts them in the report,
/// so nothing is dropped unseen.
///
/// # Sampling and balance
/// `max_sentences` caps the number of training sentences (uniform reservoir sample). With
/// `balance`, every input contributes the same number of sentences: the smallest input's
/// usable count, or `max_sentences / inputs`, whichever is smaller (a joint model for two
/// languages then does not favour the larger side). Sampled sentences keep their input order.
/// The chosen sentences are held in memory, once by bitext and once by the trainer: cap very
/// large corpora with `max_sentences` (the reservoirs never hold more than that).
///
/// # Determinism
/// Sampling is seeded (`seed`) and reproducible. SentencePiece's training itself uses no
/// randomness here (bitext does the sampling, so SentencePiece's shuffling is off; its random
/// generator is still seeded from `seed`). BPE training is single-threaded in SentencePiece and
/// deterministic. Unigram training splits its EM sums over `threads` threads: the same input,
/// seed and thread count give the same model byte for byte; a different thread count can
/// change float sums and so, rarely, the pieces. Set `threads` for reproducible unigram models
/// across machines (the default is the number of cores). The model file records the settings
/// it was trained with (sentencepiece's `trainer_spec`), so it also differs with them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SubwordTrainer {
    pub(super) model_type: ModelType,
    pub(super) vocab_size: usize,
    pub(super) character_coverage: f64,
    pub(super) normalization: Normalization,
    pub(super) lang_tags: Vec<String>,
    pub(super) user_symbols: Vec<String>,
    pub(super) max_sentences: Option<usize>,
    pub(super) balance: bool,
    pub(super) max_sentence_bytes: usize,
    pub(super) max_piece_len: usize,
    pub(super) split_digits: bool,
    pub(super) byte_fallback: bool,
    pub(super) skip_empty_lines: bool,
    pub(super) seed: u64,
    pub(super) threads: Option<usize>,
    pub(super) verbose: bool,
}

impl Default for SubwordTrainer {
    fn default() -> Self {
        Self {
            model_type: ModelType::Unigram,
            vocab_size: 8000,
            character_coverage: 0.9995,
            normalization: Normalization::NmtNfkc,
            lang_tags: Vec::new(),
            user_symbols: Vec::new(),
            max_sentences: None,
            balance: false,
            max_sentence_bytes: 4192,
            max_piece_len: 16,
            split_digits: false,
            byte_fallback: false,
            skip_empty_lines: false,
            seed: 0,
            threads: None,
            verbose: false,
        }
    }
}

/// The special pieces of trained models, at ids 0–3 as in [`crate::Vocab`].
const SPECIALS: [&str; 4] = ["<pad>", "<unk>", "<s>", "</s>"];

macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty),* $(,)?) => {$(
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, $name: $ty) -> Self {
            self.$name = $name;
            self
        }
    )*};
}

impl SubwordTrainer {
    /// The defaults: unigram, 8000 pieces, coverage 0.9995, `nmt_nfkc`, no language tags, all
    /// sentences, seed 0, all cores.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    setters! {
        /// Unigram (default) or BPE (also `word`, `char`).
        model_type: ModelType,
        /// Number of pieces, special pieces and symbols included (default 8000). Kim et al.'s
        /// 20k BPE merges correspond to about 20k + the number of characters.
        vocab_size: usize,
        /// Share of characters the model must cover (default 0.9995; 1.0 for small alphabets);
        /// rarer characters become `<unk>` (or bytes with `byte_fallback`).
        character_coverage: f64,
        /// Normalization rule (default `nmt_nfkc`).
        normalization: Normalization,
        /// Train on at most this many sentences, sampled with `seed` (default: all).
        max_sentences: Option<usize>,
        /// Give every input the same number of sentences (default off).
        balance: bool,
        /// Longer lines (in bytes) are skipped and counted (default 4192, sentencepiece's).
        max_sentence_bytes: usize,
        /// Longest piece in characters (default 16).
        max_piece_len: usize,
        /// Split numbers into single digits (default off).
        split_digits: bool,
        /// Encode unknown characters as byte pieces instead of `<unk>` (default off).
        byte_fallback: bool,
        /// Skip empty and whitespace-only lines, counting them, instead of failing (default off).
        skip_empty_lines: bool,
        /// Seed of the sampling (and of sentencepiece's random generator).
        seed: u64,
        /// Training threads (default: all cores; see Determinism above).
        threads: Option<usize>,
        /// Let sentencepiece log its progress to stderr (default: only errors).
        verbose: bool,
    }

    /// Language tags: `["de", "en"]` adds `<de>` and `<en>` at ids 4 and 5.
    #[must_use]
    pub fn lang_tags<S: Into<String>>(mut self, langs: impl IntoIterator<Item = S>) -> Self {
        self.lang_tags = langs.into_iter().map(Into::into).collect();
        self
    }

    /// Further user-defined symbols (always one piece), after the language tags.
    #[must_use]
    pub fn user_symbols<S: Into<String>>(mut self, symbols: impl IntoIterator<Item = S>) -> Self {
        self.user_symbols = symbols.into_iter().map(Into::into).collect();
        self
    }

    /// The user-defined symbols in id order: language tags, then user symbols.
    fn symbols(&self) -> Vec<String> {
        self.lang_tags
            .iter()
            .map(|l| crate::vocab::lang_tag(l))
            .chain(self.user_symbols.iter().cloned())
            .collect()
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] saying which parameter is out of range.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        let symbols = self.symbols();
        for (i, s) in symbols.iter().enumerate() {
            let what = if i < self.lang_tags.len() {
                "language tag"
            } else {
                "user symbol"
            };
            if s.is_empty() || s == "<>" {
                return bad(format!("empty {what}"));
            }
            if s.chars()
                .any(|c| c.is_whitespace() || matches!(c, ',' | '"' | '\0'))
            {
                return bad(format!(
                    "{what} {s:?}: whitespace, commas, quotes and NUL are not allowed"
                ));
            }
            if SPECIALS.contains(&s.as_str()) || symbols[..i].contains(s) {
                return bad(format!("{what} {s:?} occurs twice (or is a special token)"));
            }
        }
        let min = SPECIALS.len() + symbols.len() + 1;
        if self.vocab_size < min || self.vocab_size > i32::MAX as usize {
            return bad(format!(
                "vocab_size {} must be at least {min} (4 special pieces, {} symbols, one piece)",
                self.vocab_size,
                symbols.len()
            ));
        }
        let c = self.character_coverage;
        if !(c > 0.0 && c <= 1.0) {
            return bad(format!("character_coverage {c} must be in (0, 1]"));
        }
        if self.max_sentences == Some(0) {
            return bad("max_sentences must be at least 1".into());
        }
        if !(1..=i32::MAX as usize).contains(&self.max_sentence_bytes) {
            return bad(format!(
                "max_sentence_bytes {} out of range",
                self.max_sentence_bytes
            ));
        }
        if !(1..=512).contains(&self.max_piece_len) {
            return bad(format!(
                "max_piece_len {} must be in 1..=512",
                self.max_piece_len
            ));
        }
        if let Some(t) = self.threads
            && !(1..=1024).contains(&t)
        {
            return bad(format!("threads {t} must be in 1..=1024"));
        }
        Ok(())
    }

    /// Train on text files, one sentence per line (one file per language for a joint model).
    ///
    /// # Errors
    /// Invalid parameters; a file that cannot be read, invalid UTF-8 or (unless skipped) an
    /// empty line, naming the file and line; no usable sentence; sentencepiece's own errors
    /// (e.g. `vocab_size` too large for the text) as [`Error::Sentencepiece`].
    pub fn train_files<P: AsRef<Path>>(&self, files: &[P]) -> Result<TrainedModel> {
        let sources: Vec<InputSource<'_, String>> = files
            .iter()
            .map(|p| InputSource::File(p.as_ref()))
            .collect();
        self.train_sources(&sources)
    }

    /// Train on sentences in memory: `(name, sentences)` per language; the name is used in
    /// errors (`de:17: empty line`) and in the report.
    ///
    /// # Errors
    /// As [`SubwordTrainer::train_files`].
    pub fn train_corpora<S: AsRef<str>>(&self, corpora: &[(&str, &[S])]) -> Result<TrainedModel> {
        let sources: Vec<InputSource<'_, S>> = corpora
            .iter()
            .map(|&(name, lines)| InputSource::Memory(name, lines))
            .collect();
        self.train_sources(&sources)
    }

    fn train_sources<S: AsRef<str>>(&self, sources: &[InputSource<'_, S>]) -> Result<TrainedModel> {
        self.check()?;
        if sources.is_empty() {
            return Err(Error::InvalidArgument("no training input".into()));
        }
        let start = Instant::now();
        let Collected { sentences, inputs } = collect(self, sources)?;
        if sentences.is_empty() {
            return Err(Error::InvalidArgument(
                "no usable training sentence in the input".into(),
            ));
        }
        let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
        let bytes = ffi::train(&self.options(), &refs, self.seed_u32()).map_err(|m| {
            Error::Sentencepiece(format!("training on {} sentences failed: {m}", refs.len()))
        })?;
        let model = Sentencepiece::from_bytes(bytes)?;
        let report = TrainReport {
            inputs,
            sentences: refs.len(),
            pieces: model.pieces().len(),
            model_type: self.model_type,
            seconds: start.elapsed().as_secs_f64(),
        };
        Ok(TrainedModel { model, report })
    }

    /// SentencePiece's 32-bit seed; `u32::MAX` is reserved there for "random".
    fn seed_u32(&self) -> u32 {
        let s = (self.seed ^ (self.seed >> 32)) as u32;
        if s == u32::MAX { s - 1 } else { s }
    }

    /// The trainer options, as SentencePiece's `TrainerSpec` field names.
    fn options(&self) -> Vec<(&'static str, String)> {
        let threads = self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        });
        let mut o = vec![
            ("model_type", self.model_type.name().to_string()),
            ("vocab_size", self.vocab_size.to_string()),
            ("character_coverage", format!("{}", self.character_coverage)),
            ("normalization_rule_name", self.normalization.name().into()),
            ("pad_id", "0".into()),
            ("unk_id", "1".into()),
            ("bos_id", "2".into()),
            ("eos_id", "3".into()),
            ("max_sentence_length", self.max_sentence_bytes.to_string()),
            ("max_sentencepiece_length", self.max_piece_len.to_string()),
            ("split_digits", self.split_digits.to_string()),
            ("byte_fallback", self.byte_fallback.to_string()),
            ("num_threads", threads.min(1024).to_string()),
            ("input_sentence_size", "0".into()),
            ("shuffle_input_sentence", "false".into()),
            ("hard_vocab_limit", "true".into()),
            ("minloglevel", if self.verbose { "0" } else { "2" }.into()),
        ];
        let symbols = self.symbols();
        if !symbols.is_empty() {
            o.push(("user_defined_symbols", symbols.join(",")));
        }
        o
    }
}

/// A trained model and how it was trained.
#[derive(Debug)]
pub struct TrainedModel {
    model: Sentencepiece,
    report: TrainReport,
}

impl TrainedModel {
    /// The model, ready to encode.
    #[must_use]
    pub fn tokenizer(&self) -> &Sentencepiece {
        &self.model
    }

    /// The model, by value.
    #[must_use]
    pub fn into_tokenizer(self) -> Sentencepiece {
        self.model
    }

    /// What went in.
    #[must_use]
    pub fn report(&self) -> &TrainReport {
        &self.report
    }

    /// The bytes of the `.model` file.
    #[must_use]
    pub fn to_bytes(&self) -> &[u8] {
        self.model.to_bytes()
    }

    /// Write the `.model` file (atomically); it loads in [`Sentencepiece::open`] and in every
    /// sentencepiece tool (`spm_encode --model`).
    ///
    /// # Errors
    /// [`Error::Core`] naming `path`.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        write_model(path.as_ref(), self.to_bytes())
    }
}

/// What one input contributed to training.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputReport {
    /// The file (or corpus name).
    pub name: String,
    /// Lines read.
    pub lines: usize,
    /// Empty or whitespace-only lines skipped (only with `skip_empty_lines`).
    pub empty: usize,
    /// Lines longer than `max_sentence_bytes`, skipped.
    pub too_long: usize,
    /// Lines containing `▅` (U+2585), which sentencepiece's trainer refuses, skipped.
    pub reserved: usize,
    /// Sentences given to the trainer (after sampling and balancing).
    pub used: usize,
}

/// Summary of a training run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TrainReport {
    /// One entry per input, in input order.
    pub inputs: Vec<InputReport>,
    /// Sentences given to the trainer.
    pub sentences: usize,
    /// Pieces of the model.
    pub pieces: usize,
    /// The algorithm.
    pub model_type: ModelType,
    /// Wall-clock seconds (reading, sampling and training).
    pub seconds: f64,
}

impl fmt::Display for TrainReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "trained a {} model of {} pieces on {} sentences in {:.1} s",
            self.model_type, self.pieces, self.sentences, self.seconds
        )?;
        for i in &self.inputs {
            write!(f, "  {}: {} lines, {} used", i.name, i.lines, i.used)?;
            for (n, what) in [
                (i.empty, "empty lines"),
                (i.too_long, "too long lines"),
                (i.reserved, "lines with U+2585"),
            ] {
                if n > 0 {
                    write!(f, ", {n} {what} skipped")?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
