//! The sentence encoder the neural families share, as one configuration: [`EncoderConfig`]
//! (embedding tables, recurrent cell and size, bag of words, n-gram convolutions), embedded in
//! each family's network configuration (`#[serde(flatten)]`: the family's JSON keeps its flat
//! keys) and read through it (`config.emb_dim`, by [`std::ops::Deref`]), with one check of
//! the settings and the initialisers of the encoder's parts.
//!
//! The parts are built by the family, in its own order of draws (the parameters a seed gives
//! are part of what a saved run means), and kept as the family's own fields (their names are
//! the keys of the saved weights): [`EncoderConfig::init_table`] and
//! [`EncoderConfig::init_side_tables`], [`EncoderConfig::rnn`] and
//! [`EncoderConfig::init_side_encoders`], [`EncoderConfig::init_bag`],
//! [`EncoderConfig::init_ngrams`].

use bitext_core::Rng;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::layers::{Bag, Embedding};
use crate::ngrams::{NgramOrders, Ngrams};
use crate::rnn::{BiRnn, BiRnnConfig, CellKind};

/// How the recurrent states of a sentence become its vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// `[→h_last; ←h_first]`: the state each direction ends in (Grégoire & Langlais).
    #[default]
    Last,
    /// The element-wise maximum of `[→h_t; ←h_t]` over the sentence's positions.
    Max,
}

impl Pooling {
    /// Whether this is the default, the last states (left out of a written configuration).
    #[must_use]
    pub fn is_last(&self) -> bool {
        *self == Pooling::Last
    }
}

/// The settings of a family's sentence encoder: its embedding table(s), its bidirectional
/// recurrence, and what joins the pooled states in the sentence vector (a bag of words, n-gram
/// convolutions). Field names are those of the families' JSON, where they stand flat beside
/// the family's own settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EncoderConfig {
    /// Source-language vocabulary size (the whole vocabulary of a table shared by both
    /// languages).
    pub src_vocab: usize,
    /// Target-language vocabulary size.
    pub tgt_vocab: usize,
    /// Word embedding size.
    pub emb_dim: usize,
    /// Recurrent state size per direction: the pooled states have twice it.
    pub hidden: usize,
    /// Recurrent cell.
    pub cell: CellKind,
    /// Keep the embedding tables fixed during training (for tables initialised from bilingual
    /// embeddings, [`crate::pretrained`]); default: trained.
    #[serde(default)]
    pub frozen_embeddings: bool,
    /// Add a bag of words to the sentence vector: `v = bag(x) + P·pool(h)`, `bag` the
    /// IDF-weighted mean of the sentence's input embeddings (IDF over the training text, zero
    /// weight for rows that did not come from the initialising vectors) and `P` `[pooled_dim,
    /// emb_dim]` starting at zero, so that the untrained network *is* the bag of words over
    /// its own input vectors and training learns what the recurrent states add to it. Not in
    /// the papers (see the crate docs of [`crate::siamese`]); sentence vectors then have
    /// `emb_dim` components. Default: off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bag: bool,
    /// With [`EncoderConfig::bag`]: a trained linear map `W` `[emb_dim, emb_dim]` of the bag,
    /// starting at the identity: `v = bag(x)·W + P·pool(h)`. Over fixed input vectors the bag
    /// itself cannot move; a student trained towards a teacher's vectors
    /// ([`crate::distill`]), whose space is not that of the input vectors, needs it to.
    /// Default: off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bag_map: bool,
    /// N-gram convolutions beside the recurrence ([`crate::ngrams`]; e.g. orders 2, 3 and 5,
    /// the USE-M teacher's): their max-pooled features join the pooled recurrent states
    /// before `P`, so that a student reads fixed phrases as a CNN teacher does. Needs the bag,
    /// whose `P` starts at zero, and a fixed table to read (the table gets no gradient through
    /// them). Default: none.
    #[serde(default, skip_serializing_if = "NgramOrders::is_empty")]
    pub ngrams: NgramOrders,
    /// Filters per order of [`EncoderConfig::ngrams`] (and the width of their input
    /// projection). Default: 0 (no convolutions).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ngram_channels: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The sizes a family's preset `name` stands for: `sizes` holds those of `paper`, `medium` and
/// `small`.
///
/// # Errors
/// [`Error::Config`] for another name.
pub(crate) fn preset_sizes<T: Copy>(family: &str, name: &str, sizes: [T; 3]) -> Result<T> {
    match ["paper", "medium", "small"].iter().position(|&p| p == name) {
        Some(k) => Ok(sizes[k]),
        None => Err(Error::Config(format!(
            "unknown {family} preset {name:?} (expected paper, medium or small)"
        ))),
    }
}

/// What a family asks of its [`EncoderConfig`] beyond the settings' own consistency
/// ([`EncoderConfig::check`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EncoderRules<'a> {
    /// The family, for messages (`"siamese"`).
    pub(crate) family: &'a str,
    /// Whether the target vocabulary is a table of its own (not when one table is shared).
    pub(crate) tgt_table: bool,
    /// Whether the n-gram convolutions read a fixed table, and the settings that make one (for
    /// the message).
    pub(crate) fixed_table: (bool, &'a str),
}

impl EncoderConfig {
    /// An encoder of `cell` with vocabularies `src_vocab` and `tgt_vocab`, embeddings of
    /// `emb_dim` and `hidden` states per direction: trained tables, no bag of words, no n-gram
    /// convolutions.
    #[must_use]
    pub fn new(
        (src_vocab, tgt_vocab): (usize, usize),
        emb_dim: usize,
        hidden: usize,
        cell: CellKind,
    ) -> Self {
        Self {
            src_vocab,
            tgt_vocab,
            emb_dim,
            hidden,
            cell,
            frozen_embeddings: false,
            bag: false,
            bag_map: false,
            ngrams: NgramOrders::default(),
            ngram_channels: 0,
        }
    }

    /// The same settings with the vocabularies `(source, target)` (those of the tokenizers a
    /// training built).
    #[must_use]
    pub fn with_vocab(self, (src_vocab, tgt_vocab): (usize, usize)) -> Self {
        Self {
            src_vocab,
            tgt_vocab,
            ..self
        }
    }

    /// Width of the pooled states `P` maps: `2 × hidden`, plus orders × channels of the
    /// n-gram convolutions.
    #[must_use]
    pub fn pooled_dim(&self) -> usize {
        2 * self.hidden + self.ngrams.orders().len() * self.ngram_channels
    }

    /// Sentence vector size: `2 × hidden`, or `emb_dim` with the bag of words.
    #[must_use]
    pub fn dim(&self) -> usize {
        if self.bag {
            self.emb_dim
        } else {
            2 * self.hidden
        }
    }

    /// Check the sizes (at least 1), the bag's map (with the bag only) and the n-gram
    /// convolutions ([`crate::ngrams::check_config`]) under a family's `rules`.
    ///
    /// # Errors
    /// [`Error::Config`] naming the family and the bad value.
    pub(crate) fn check(&self, rules: EncoderRules<'_>) -> Result<()> {
        let sizes = [
            ("src_vocab", self.src_vocab),
            (
                "tgt_vocab",
                if rules.tgt_table { self.tgt_vocab } else { 1 },
            ),
            ("emb_dim", self.emb_dim),
            ("hidden", self.hidden),
        ];
        if let Some((name, _)) = sizes.iter().find(|(_, v)| *v == 0) {
            return Err(Error::Config(format!(
                "{} {name} must be at least 1",
                rules.family
            )));
        }
        if self.bag_map && !self.bag {
            return Err(Error::Config(
                "a map of the bag of words (bag_map) needs the bag (bag)".into(),
            ));
        }
        crate::ngrams::check_config(
            self.ngrams,
            self.ngram_channels,
            self.bag,
            rules.fixed_table,
        )
    }

    /// The recurrence's configuration: `emb_dim` inputs, `hidden` states per direction.
    #[must_use]
    pub fn rnn(&self) -> BiRnnConfig {
        BiRnnConfig {
            cell: self.cell,
            d_input: self.emb_dim,
            d_hidden: self.hidden,
        }
    }

    /// An embedding table of `rows` rows, drawn from `rng`.
    #[must_use]
    pub fn init_table(&self, rows: usize, rng: &mut Rng, device: &Device) -> Embedding {
        Embedding::new(rows, self.emb_dim, rng, device)
    }

    /// A table per language, source then target, drawn from `rng`.
    #[must_use]
    pub fn init_side_tables(&self, rng: &mut Rng, device: &Device) -> (Embedding, Embedding) {
        let src = self.init_table(self.src_vocab, rng, device);
        (src, self.init_table(self.tgt_vocab, rng, device))
    }

    /// A recurrence per language, both from the same draw of a generator forked from `rng`
    /// (separate parameters that part ways as soon as training starts): with tables taken from
    /// one bilingual space the two languages' encoders then start as the same function of the
    /// vectors, so that a sentence and its translation start near each other instead of in two
    /// unrelated random spaces.
    #[must_use]
    pub fn init_side_encoders(&self, rng: &mut Rng, device: &Device) -> (BiRnn, BiRnn) {
        let config = self.rnn();
        let draw = rng.fork(0xe2c);
        (
            config.init(&mut draw.clone(), device),
            config.init(&mut draw.clone(), device),
        )
    }

    /// The bag of words of a table of `rows` rows (see [`EncoderConfig::bag`]), with its map
    /// when [`EncoderConfig::bag_map`]; `None` without the bag.
    #[must_use]
    pub fn init_bag(&self, rows: usize, device: &Device) -> Option<Bag> {
        self.bag.then(|| {
            let bag = Bag::new(rows, self.pooled_dim(), self.emb_dim, device);
            if self.bag_map { bag.with_map() } else { bag }
        })
    }

    /// The n-gram convolutions over the embeddings, drawn from `rng`; `None` without orders.
    ///
    /// # Errors
    /// As [`Ngrams::new`].
    pub fn init_ngrams(&self, rng: &mut Rng, device: &Device) -> Result<Option<Ngrams>> {
        (!self.ngrams.is_empty())
            .then(|| Ngrams::new(self.emb_dim, self.ngrams, self.ngram_channels, rng, device))
            .transpose()
    }
}

/// A family's network configuration: its encoder's settings read through it, its own check
/// (implemented by `encoder_settings!`).
pub(crate) trait FamilyNetwork: Copy + std::ops::DerefMut<Target = EncoderConfig> {
    /// The network this configures.
    type Model: burn::module::Module + 'static;

    /// The family's check of the whole configuration.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    fn check_network(&self) -> Result<()>;

    /// A freshly initialised network on `device`, drawn from `seed`.
    ///
    /// # Errors
    /// [`Error::Config`] for an invalid configuration.
    fn init(&self, seed: u64, device: &Device) -> Result<Self::Model>;
}

/// `Deref` and `DerefMut` of a family's network configuration to its [`EncoderConfig`] field
/// `encoder`, the encoder's settings read and set as the family's own (`config.emb_dim`), and
/// its `with_encoder` and [`FamilyNetwork`] of the network `$model` (built by its `new`).
macro_rules! encoder_settings {
    ($family:ty => $model:ty) => {
        impl $crate::encoder::FamilyNetwork for $family {
            type Model = $model;

            fn check_network(&self) -> $crate::Result<()> {
                self.check()
            }

            fn init(&self, seed: u64, device: &burn::tensor::Device) -> $crate::Result<$model> {
                <$model>::new(self, seed, device)
            }
        }

        impl $family {
            /// The same configuration with its encoder's settings changed by `f`
            /// (`config.with_encoder(|e| e.bag = true)`).
            #[must_use]
            pub fn with_encoder(
                mut self,
                f: impl FnOnce(&mut $crate::encoder::EncoderConfig),
            ) -> Self {
                f(&mut self.encoder);
                self
            }
        }

        impl std::ops::Deref for $family {
            type Target = $crate::encoder::EncoderConfig;

            fn deref(&self) -> &Self::Target {
                &self.encoder
            }
        }

        impl std::ops::DerefMut for $family {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.encoder
            }
        }
    };
}
pub(crate) use encoder_settings;

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(fixed: bool) -> EncoderRules<'static> {
        EncoderRules {
            family: "test",
            tgt_table: true,
            fixed_table: (fixed, "frozen_embeddings"),
        }
    }

    #[test]
    fn sizes_bag_and_ngrams_are_checked() {
        let e = EncoderConfig::new((10, 12), 8, 6, CellKind::Gru);
        e.check(rules(false)).unwrap();
        assert_eq!((e.dim(), e.pooled_dim()), (12, 12));
        let zero = EncoderConfig { tgt_vocab: 0, ..e };
        let m = zero.check(rules(false)).unwrap_err().to_string();
        assert!(m.contains("test tgt_vocab must be at least 1"), "{m}");
        // One shared table: the target vocabulary is not read.
        zero.check(EncoderRules {
            tgt_table: false,
            ..rules(false)
        })
        .unwrap();
        let m = EncoderConfig { bag_map: true, ..e }
            .check(rules(false))
            .unwrap_err()
            .to_string();
        assert!(m.contains("needs the bag"), "{m}");
        let ng = EncoderConfig {
            bag: true,
            ngrams: NgramOrders::new(&[2, 3]).unwrap(),
            ngram_channels: 4,
            ..e
        };
        assert_eq!((ng.dim(), ng.pooled_dim()), (8, 12 + 8));
        let m = ng.check(rules(false)).unwrap_err().to_string();
        assert!(m.contains("(frozen_embeddings)"), "{m}");
        ng.check(rules(true)).unwrap();
    }

    /// The network descriptions the flat configurations of earlier versions wrote
    /// (`tests/fixtures/`, the paper's networks and ones with every encoder option) read back
    /// as the same settings and are written again with the same keys and values (a siamese
    /// network now also writes `"frozen_embeddings": false`); an unknown key is still refused.
    #[test]
    fn descriptions_written_before_the_shared_encoder_read_and_write_alike() {
        use crate::aligner::AlignerConfig;
        use crate::autoencoder::AutoencoderConfig;
        use crate::siamese::SiameseConfig;
        use serde::de::DeserializeOwned;
        use serde_json::Value;
        /// The configuration of fixture `name`, checked as the test says.
        fn same<C: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(name: &str) -> C {
            let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
            let json = std::fs::read_to_string(format!("{dir}{name}.json")).unwrap();
            let old: Value = serde_json::from_str(&json).unwrap();
            let config: C = serde_json::from_str(&json).unwrap();
            let written = serde_json::to_value(&config).unwrap();
            let mut want = old.clone();
            if want.get("shared_embeddings").is_some() {
                want.as_object_mut()
                    .unwrap()
                    .entry("frozen_embeddings")
                    .or_insert(Value::Bool(false));
            }
            assert_eq!(written, want, "{name}");
            let again: C = serde_json::from_value(written).unwrap();
            assert_eq!(again, config);
            let mut bogus = old;
            bogus["bogus"] = Value::Bool(true);
            let e = serde_json::from_value::<C>(bogus).unwrap_err().to_string();
            assert!(e.contains("bogus"), "{e}");
            config
        }
        assert_eq!(
            same::<SiameseConfig>("siamese_paper"),
            SiameseConfig::paper(100, 200)
        );
        let s: SiameseConfig = same("siamese_all");
        assert_eq!(
            (s.bag_hidden, s.pooling, s.ngrams.orders()),
            (16, Pooling::Max, vec![2, 3])
        );
        assert!(s.frozen_embeddings && s.bag && s.bag_map && s.shared_embeddings);
        s.check().unwrap();
        let a = AutoencoderConfig::paper(100, 200);
        assert_eq!(same::<AutoencoderConfig>("autoencoder_paper"), a);
        let a: AutoencoderConfig = same("autoencoder_all");
        assert!(a.bag && a.frozen_embeddings && a.dropout == 0.1);
        assert_eq!(
            same::<AlignerConfig>("aligner_paper"),
            AlignerConfig::paper(100, 200)
        );
        let l: AlignerConfig = same("aligner_all");
        assert_eq!((l.ngram_channels, l.pooling), (3, Pooling::Max));
        assert!(l.bag && l.bag_map && l.bag_table && l.sentence_shift && l.frozen_embeddings);
        l.check().unwrap();
    }

    #[test]
    fn the_two_side_encoders_start_equal() {
        let e = EncoderConfig::new((10, 12), 8, 6, CellKind::Lstm);
        let device = Device::flex();
        let (a, b) = e.init_side_encoders(&mut Rng::seed(3), &device);
        let host = |r: &BiRnn| r.fwd.w_hh.val().into_data().try_into_vec::<f32>().unwrap();
        assert_eq!(host(&a), host(&b));
        let (s, t) = e.init_side_tables(&mut Rng::seed(3), &device);
        assert_eq!((s.weight.dims(), t.weight.dims()), ([10, 8], [12, 8]));
    }
}
