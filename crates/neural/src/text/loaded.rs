//! A trained network loaded from its model directory with its tokenizers: [`TextModel`], the
//! one loading, accessors and `SentenceEncoder` of the families that encode text
//! ([`SiameseEncoder`](crate::siamese::SiameseEncoder),
//! [`AutoencoderEncoder`](crate::autoencoder::AutoencoderEncoder),
//! [`AlignerModel`](crate::aligner::AlignerModel)), and [`TextNetwork`], what each family's
//! network says of its directory.

use std::path::{Path, PathBuf};

use bitext_core::Embeddings;
use bitext_encode::{NoKnownWord, SentenceEncoder, Side};
use burn::module::Module;
use burn::tensor::Device;
use serde::de::DeserializeOwned;

use crate::backend::BackendSpec;
use crate::batch::Bucketing;
use crate::error::Result;
use crate::text::TextCodec;
use crate::train::checkpoint;

/// A network saved in a model directory (`model.json`, `weights.bpk`, its tokenizers' files)
/// that encodes sentences of either side as vectors.
pub trait TextNetwork: Module + Sized {
    /// What `model.json` says.
    type Description: DeserializeOwned;

    /// The batches sentences are encoded in unless [`TextModel::with_batching`] says otherwise.
    const BATCHING: Bucketing;

    /// Checks of `dir` before its `model.json` is read (e.g. of the model's kind); none by
    /// default.
    ///
    /// # Errors
    /// A directory that does not hold this network, named.
    fn check_dir(_dir: &Path) -> Result<()> {
        Ok(())
    }

    /// The tokenizers `description` names, with files relative to `dir`.
    ///
    /// # Errors
    /// As [`TextCodec::load`]; tokenizers that do not fit the network.
    fn tokenizers(description: &Self::Description, dir: &Path) -> Result<TextCodec>;

    /// The network `description` describes on `device`, before its weights are loaded.
    ///
    /// # Errors
    /// An invalid configuration.
    fn build(description: &Self::Description, device: &Device) -> Result<Self>;

    /// Checks of the loaded network and tokenizers of `dir`; none by default.
    ///
    /// # Errors
    /// Parts that do not fit each other, naming `dir`.
    fn check_loaded(
        _description: &Self::Description,
        _text: &TextCodec,
        _dir: &Path,
    ) -> Result<()> {
        Ok(())
    }

    /// The dimension of the sentence vectors.
    fn vector_dim(&self) -> usize;

    /// Sentence vectors of any number of sentences of `side` (token ids; rows in input order),
    /// encoded in length-sorted batches under `batching`, the recurrence's and convolutions'
    /// weights copied to the host once for all batches on the CPU. Call on an inference model
    /// (`model.valid()` or one built on a plain device).
    ///
    /// # Errors
    /// A sequence without tokens or with an id outside the vocabulary; backend errors.
    fn encode_all(&self, seqs: &[&[u32]], side: Side, batching: &Bucketing) -> Result<Embeddings>;
}

/// A trained network with its tokenizers, loaded from its model directory, ready to encode
/// text of either language.
#[derive(Debug)]
pub struct TextModel<M: TextNetwork> {
    pub(crate) model: M,
    pub(crate) text: TextCodec,
    description: M::Description,
    pub(crate) batching: Bucketing,
    dir: PathBuf,
    no_token: NoKnownWord,
}

impl<M: TextNetwork> TextModel<M> {
    /// Load the model saved in `dir` onto `backend`'s inference device.
    ///
    /// # Errors
    /// Missing or malformed files, named; tokenizers that do not fit the network.
    pub fn load(dir: &Path, backend: BackendSpec) -> Result<Self> {
        M::check_dir(dir)?;
        let description: M::Description = checkpoint::read_json(&dir.join(checkpoint::MODEL_FILE))?;
        let text = M::tokenizers(&description, dir)?;
        let device = backend.device()?;
        let model = M::build(&description, &device)?;
        let model = checkpoint::load_weights(model, &dir.join(checkpoint::WEIGHTS_FILE))?;
        M::check_loaded(&description, &text, dir)?;
        Ok(Self {
            model,
            text,
            description,
            batching: M::BATCHING,
            dir: dir.to_path_buf(),
            no_token: NoKnownWord::Error,
        })
    }

    /// The network (on the inference device).
    #[must_use]
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The tokenizers.
    #[must_use]
    pub fn text(&self) -> &TextCodec {
        &self.text
    }

    /// The saved description.
    #[must_use]
    pub fn description(&self) -> &M::Description {
        &self.description
    }

    /// The model directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Batches used for encoding.
    #[must_use]
    pub fn with_batching(mut self, batching: Bucketing) -> Self {
        self.batching = batching;
        self
    }

    /// What [`TextModel::vectors`] makes of a sentence with no token at all (an empty line, a
    /// line the tokenizer drops whole such as `&nbsp;` for word vocabularies): an error (the
    /// default) or a zero row. Unknown words are `<unk>` tokens and are encoded.
    #[must_use]
    pub fn with_no_known_word(mut self, policy: NoKnownWord) -> Self {
        self.no_token = policy;
        self
    }

    /// The policy of [`TextModel::with_no_known_word`].
    #[must_use]
    pub fn no_known_word(&self) -> NoKnownWord {
        self.no_token
    }

    /// Sentence vectors of `sentences` of `side` (that language's encoder), rows in input
    /// order; a sentence with no token follows [`TextModel::with_no_known_word`].
    ///
    /// # Errors
    /// [`bitext_encode::Error::NoToken`] (as [`crate::Error::Encoder`]) for the first sentence
    /// without tokens, unless the policy gives it a zero row; tokenizer errors.
    pub fn vectors(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        let ids = self.text.tokenizer(side).encode_batch_ids(sentences)?;
        let dim = self.model.vector_dim();
        self.no_token.encode_ids(side, sentences, ids, dim, |ids| {
            let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
            self.model.encode_all(&refs, side, &self.batching)
        })
    }
}

impl<M: TextNetwork + Send + Sync> SentenceEncoder for TextModel<M>
where
    M::Description: Send + Sync,
{
    fn dim(&self) -> usize {
        self.model.vector_dim()
    }

    fn encode_batch(&self, side: Side, sentences: &[&str]) -> bitext_encode::Result<Embeddings> {
        Ok(self.vectors(side, sentences)?)
    }

    fn batch_size(&self) -> usize {
        4096
    }
}
