//! The one text training of the families: [`train_text`] runs tokenize → initialise → teacher
//! → fit → save for any [`TextFamily`], which brings what is its own (its network, its data,
//! its tables, its task). `train_siamese`, `train_autoencoder` and `train_aligner` are
//! [`train_text`] of their jobs.
//!
//! Every step draws from its own fork of the training seed (the network from the family's,
//! the tables from vectors from `0xe3b`), so the steps' order is not part of the result.

use std::path::Path;

use bitext_core::Rng;
use burn::module::Module;
use burn::tensor::Device;
use serde::Serialize;

use crate::distill::Teacher;
use crate::encoder::FamilyNetwork;
use crate::error::Result;
use crate::pretrained::VectorsInit;
use crate::text::{TextCodec, TextConfig, TextCorpus};
use crate::train::checkpoint::{self, Describe, Described};
use crate::train::{Fitted, Task, TrainConfig, fit};

/// What a family brings to the text training ([`train_text`]): implemented by its training
/// job.
pub(crate) trait TextFamily {
    /// The network's configuration (its encoder's settings read through it).
    type Network: FamilyNetwork;
    /// The network.
    type Model: Module + 'static;
    /// The training task.
    type Task: Task<Model = Self::Model> + Described + Send;
    /// The training (and validation) text in the tokenizers' ids, and what the family keeps of
    /// it.
    type Data;
    /// What `model.json` says.
    type Description: Serialize + Send + Sync + 'static;
    /// How the tables were initialised from vectors.
    type Init;
    /// Which rows of the tables came from the vectors (the bag of words leaves the others
    /// out).
    type Known;
    /// What the family reports of its data besides the training.
    type Report;

    /// The job's text, network, training settings (checked) and teacher.
    ///
    /// # Errors
    /// [`crate::Error::Config`] naming a bad training setting.
    fn job(&self) -> Result<TextJob<'_, Self::Network>>;

    /// The job's `network` for the tokenizers `codec` beyond their vocabulary sizes (which the
    /// training sets): unchanged by default.
    fn for_tokenizers(&self, network: Self::Network, _codec: &TextCodec) -> Self::Network {
        network
    }

    /// The text in `codec`'s ids.
    ///
    /// # Errors
    /// Tokenizer errors; data the family cannot train on.
    fn tokenize(&self, codec: &TextCodec, network: &Self::Network) -> Result<Self::Data>;

    /// The indices of the training pairs kept, and of the validation pairs kept (the rows of
    /// the teacher that stay).
    fn kept(data: &Self::Data) -> (&[usize], Option<&[usize]>);

    /// What `model.json` will say.
    fn description(&self, network: Self::Network, text: TextConfig) -> Self::Description;

    /// A freshly initialised network drawn from `seed`.
    ///
    /// # Errors
    /// As the network's constructor.
    fn model(&self, network: &Self::Network, seed: u64, device: &Device) -> Result<Self::Model>;

    /// `model` with its tables taken from `vectors` for the `tokens` (the tokenizers and the
    /// network), the rest drawn from `rng`.
    ///
    /// # Errors
    /// Vector files that cannot be read; tables of another size.
    fn init_tables(
        &self,
        model: Self::Model,
        vectors: &VectorsInit,
        tokens: (&TextCodec, &Self::Network),
        rng: &mut Rng,
    ) -> Result<(Self::Model, Self::Init, Self::Known)>;

    /// `model` with any table of its own besides the encoders' (a fresh run when not
    /// `resuming`), which may say anew which rows are `known`. None by default.
    ///
    /// # Errors
    /// As [`TextFamily::init_tables`]; settings that do not fit.
    fn own_tables(
        &self,
        model: Self::Model,
        (_codec, _network): (&TextCodec, &Self::Network),
        (_resuming, _seed): (bool, u64),
        _known: &mut Option<Self::Known>,
        _data: &mut Self::Data,
    ) -> Result<Self::Model> {
        Ok(model)
    }

    /// `model` with the bag-of-words weights of the training text (a fresh run of a network
    /// with a bag), `known` which rows came from vectors.
    ///
    /// # Errors
    /// Weights that do not fit the network.
    fn bag_weights(
        &self,
        model: Self::Model,
        network: &Self::Network,
        data: &Self::Data,
        known: Option<&Self::Known>,
    ) -> Result<Self::Model>;

    /// The training task of `data` for the `student` model, distilled from its teacher when
    /// given; and what to report of the data.
    ///
    /// # Errors
    /// Data or a teacher the task refuses.
    fn task(
        &self,
        network: Self::Network,
        data: Self::Data,
        student: (&Self::Model, Option<Teacher>),
    ) -> Result<(Self::Task, Self::Report)>;
}

/// [`TextFamily::job`] of a job with the fields `corpus`, `network`, `train` (the family's
/// training settings, with a `check` and the [`TrainConfig`] `train`) and `teacher`, as every
/// family's job has.
macro_rules! text_job {
    () => {
        fn job(&self) -> $crate::Result<$crate::text::driver::TextJob<'_, Self::Network>> {
            self.train.check()?;
            let teacher = self.teacher.as_ref();
            Ok((&self.corpus, self.network, &self.train.train, teacher))
        }
    };
}
pub(crate) use text_job;

/// A family's job as [`train_text`] reads it: the text, the network, the training settings
/// and the teacher.
pub(crate) type TextJob<'a, N> = (&'a TextCorpus<'a>, N, &'a TrainConfig, Option<&'a Teacher>);

/// What a family's text training did besides training: the model `M` trained, how its tables
/// were initialised from vectors (`I`), and what the family reports of its data (`R`, whose
/// fields read as this type's own: `trained.truncated`).
#[derive(Debug)]
pub struct Trained<M, I, R = ()> {
    /// The training outcome (best model, history).
    pub fitted: Fitted<M>,
    /// Training pairs dropped because a side had no tokens.
    pub dropped_pairs: usize,
    /// Vocabulary sizes (source, target).
    pub vocab_sizes: (usize, usize),
    /// How the tables were initialised from vectors, when they were.
    pub init: Option<I>,
    /// What the family reports of its data.
    pub report: R,
}

impl<M, I, R> std::ops::Deref for Trained<M, I, R> {
    type Target = R;

    fn deref(&self) -> &R {
        &self.report
    }
}

/// What [`train_text`] did for the family `F`.
pub(crate) type TextRun<F> =
    Trained<<F as TextFamily>::Model, <F as TextFamily>::Init, <F as TextFamily>::Report>;

/// Train `family`'s job on its text into the model directory `out`: build the tokenizers (or
/// reuse those of `out` when resuming), tokenize, keep the teacher's rows of the pairs kept,
/// initialise the network (its tables from vectors and its bag's weights, on a fresh run),
/// train with validation, save the best model.
///
/// # Errors
/// Invalid configuration or data; I/O errors with their paths; [`crate::Error::Diverged`].
pub(crate) fn train_text<F: TextFamily>(
    family: &F,
    out: &Path,
    resume: bool,
) -> Result<TextRun<F>> {
    let (corpus, network, train, teacher) = family.job()?;
    let (text, codec, resuming) = corpus.tokenizers(out, resume)?;
    let mut network = family.for_tokenizers(network, &codec);
    (network.src_vocab, network.tgt_vocab) = codec.vocab_sizes();
    network.check_network()?;
    let mut data = family.tokenize(&codec, &network)?;
    let (kept, valid_kept) = F::kept(&data);
    let dropped_pairs = corpus.src.len() - kept.len();
    let teacher = corpus.teacher_rows(teacher, kept, valid_kept)?;
    let description = family.description(network, text);
    let seed = train.seed;
    let device = train.backend.autodiff_device()?;
    let mut model = family.model(&network, seed, &device)?;
    let (mut init, mut known) = (None, None);
    if let (Some(vectors), false) = (&corpus.init, resuming) {
        let mut rng = Rng::seed(seed).fork(0xe3b);
        let (m, report, k) = family.init_tables(model, vectors, (&codec, &network), &mut rng)?;
        (model, init, known) = (m, Some(report), Some(k));
    }
    model = family.own_tables(
        model,
        (&codec, &network),
        (resuming, seed),
        &mut known,
        &mut data,
    )?;
    if network.bag && !resuming {
        model = family.bag_weights(model, &network, &data, known.as_ref())?;
    }
    let describe: Describe = Box::new(move |dir: &Path| {
        checkpoint::write_json(&dir.join(checkpoint::MODEL_FILE), &description)
    });
    let (task, report) = family.task(network, data, (&model, teacher))?;
    let mut task = task.with_description(describe);
    let fitted = fit(&mut task, model, train, out, resume)?;
    Ok(Trained {
        fitted,
        dropped_pairs,
        vocab_sizes: codec.vocab_sizes(),
        init,
        report,
    })
}
