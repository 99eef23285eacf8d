//! The argument groups of `bitext train` that several model families share: the in-batch
//! ranking loss ([`RankingArgs`]: siamese, autoencoder, aligner) and what the sentence vector is
//! made of beside the recurrence ([`SentenceVectorArgs`]: the pooling, the bag of input vectors
//! and its map, n-gram convolutions; siamese and aligner). Declared once, so that the families
//! spell and document them alike.

use clap::{Args, ValueEnum};

/// How an encoder's recurrent states become its sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PoolingArg {
    /// The final states (the papers').
    Last,
    /// The maximum over positions.
    Max,
}

/// The in-batch ranking loss: each pair's translation against the batch's other sentences, by
/// cosine with an additive margin.
#[derive(Debug, Args)]
pub(crate) struct RankingArgs {
    /// Inverse temperature of the ranking softmax.
    #[arg(long, default_value_t = 20.0)]
    pub(crate) scale: f64,
    /// Margin subtracted from each parallel pair's cosine in the ranking loss.
    #[arg(long = "loss-margin", alias = "margin", default_value_t = 0.2)]
    pub(crate) margin: f64,
}

/// What a sentence vector holds beside the pooled recurrent states.
#[derive(Debug, Args)]
pub(crate) struct SentenceVectorArgs {
    /// How the recurrent states become the sentence vector: `last` (the final states, the
    /// papers') or `max` (their maximum over positions).
    #[arg(long, value_enum, default_value_t = PoolingArg::Last)]
    pub(crate) pooling: PoolingArg,
    /// Add the IDF-weighted bag of the sentence's input embeddings to its vector (each
    /// encoder's own, for the aligner; vectors of the embedding size, so that the untrained
    /// network is the bag of words over its own vectors and the sentence vector reaches the
    /// recurrent states only through a trained projection). The siamese network turns its input
    /// dropout off with it, which would blur the bag. Not in the papers.
    #[arg(long)]
    pub(crate) bag: bool,
    /// With --bag: train a linear map of the bag (starting at the identity), so that a bag of
    /// fixed input vectors can move towards a teacher's space (--teacher).
    #[arg(long, requires = "bag")]
    pub(crate) bag_map: bool,
    // With --bag and a fixed table: n-gram convolutions beside the recurrence.
    #[command(flatten)]
    pub(crate) ngrams: NgramArgs,
}

/// N-gram convolutions beside an encoder's recurrence.
#[derive(Debug, Args)]
pub(crate) struct NgramArgs {
    /// With --bag and a fixed table to read (--freeze-embeddings, or the aligner's
    /// --bag-vectors): n-gram convolutions of these orders beside the recurrence (e.g. 2,3,5,
    /// as the USE-M teacher's CNN), max-pooled over the sentence; their features join the
    /// recurrent states the bag's projection maps, so that a student reads fixed phrases as a
    /// CNN teacher does.
    #[arg(long, value_name = "K,K,…", value_delimiter = ',', requires = "bag")]
    ngrams: Vec<usize>,
    /// Filters per order of --ngrams (and the width of their input projection).
    #[arg(long, value_name = "N", default_value_t = 128, requires = "ngrams")]
    ngram_channels: usize,
}

#[cfg(feature = "neural")]
impl PoolingArg {
    /// The networks' pooling.
    pub(crate) fn pooling(self) -> bitext_neural::siamese::Pooling {
        match self {
            PoolingArg::Last => bitext_neural::siamese::Pooling::Last,
            PoolingArg::Max => bitext_neural::siamese::Pooling::Max,
        }
    }
}

#[cfg(feature = "neural")]
impl NgramArgs {
    /// The orders and channels of the network's configuration (no channels without orders).
    /// `fixed`: whether the table the convolutions read is fixed, which `flags` make so (they
    /// get no gradient through to a trained table, so one is refused before training, naming
    /// those flags).
    pub(crate) fn config(
        &self,
        fixed: bool,
        flags: &str,
    ) -> anyhow::Result<(bitext_neural::ngrams::NgramOrders, usize)> {
        if !self.ngrams.is_empty() && !fixed {
            anyhow::bail!(
                "--ngrams: the n-gram convolutions read a fixed table (they pass it no \
                 gradient); give {flags}"
            );
        }
        let orders = bitext_neural::ngrams::NgramOrders::new(&self.ngrams)?;
        let channels = if self.ngrams.is_empty() {
            0
        } else {
            self.ngram_channels
        };
        Ok((orders, channels))
    }
}
