//! The one text training of the families: [`train_text`] runs tokenize → initialise → teacher
//! → fit → save for any [`TextFamily`], which brings what is its own (its network, its data,
//! its tables, its task). [`TextTraining::run`] is [`train_text`] of any family's job.
//!
//! Every step draws from its own fork of the training seed (the network from the family's,
//! the tables from vectors from `0xe3b`), so the steps' order is not part of the result.

use std::path::Path;

use bitext_core::Rng;
use burn::tensor::Device;
use serde::Serialize;

use crate::distill::Teacher;
use crate::encoder::FamilyNetwork;
use crate::error::Result;
use crate::pretrained::{InitReport, VectorsInit};
use crate::text::{TextCodec, TextConfig, TextCorpus, TextNetwork};
use crate::train::checkpoint::{self, Describe, Described};
use crate::train::{Fitted, Task, TrainConfig, fit};

/// What the text training reads of a family's job: its network's configuration and the parts
/// of [`TextJob`] (implemented by `text_training!`).
pub(crate) trait TextJobParts {
    /// The network's configuration (its encoder's settings read through it).
    type Network: FamilyNetwork<Model: TextNetwork<Description: Serialize + Send + Sync + 'static>>;

    /// The job's text, network and training settings (checked).
    ///
    /// # Errors
    /// [`crate::Error::Config`] naming a bad training setting.
    fn job(&self) -> Result<TextJob<'_, Self::Network>>;
}

/// What a family brings to the text training ([`train_text`]): implemented by its training
/// job.
pub(crate) trait TextFamily: TextJobParts {
    /// The training task, of the family's network (whose description `model.json` holds).
    type Task: Task<Model = ModelOf<Self>> + Described + Send;
    /// The training (and validation) text in the tokenizers' ids, and what the family keeps of
    /// it.
    type Data;
    /// How the network's tables take vectors.
    type Tables: Tables;
    /// What the family reports of its data besides the training.
    type Report;

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
    fn description(&self, network: Self::Network, text: TextConfig) -> DescriptionOf<Self>;

    /// A freshly initialised network drawn from `seed` (the network's own by default).
    ///
    /// # Errors
    /// As the network's constructor.
    fn model(&self, network: &Self::Network, seed: u64, device: &Device) -> Result<ModelOf<Self>> {
        network.init(seed, device)
    }

    /// `model` with its tables replaced by `tables` (filled from vectors by [`Tables::fill`]);
    /// anything else they need drawn from `rng`.
    ///
    /// # Errors
    /// Tables of another size.
    fn with_tables(
        &self,
        model: ModelOf<Self>,
        tables: <Self::Tables as Tables>::Filled,
        network: &Self::Network,
        rng: &mut Rng,
    ) -> Result<ModelOf<Self>>;

    /// `model` with any table of its own besides the encoders' (a fresh run when not
    /// `resuming`), which may say anew which rows are `known`. None by default.
    ///
    /// # Errors
    /// Vector files that cannot be read; tables of another size; settings that do not fit.
    fn own_tables(
        &self,
        model: ModelOf<Self>,
        (_codec, _network): (&TextCodec, &Self::Network),
        (_resuming, _seed): (bool, u64),
        _known: &mut Option<<Self::Tables as Tables>::Known>,
        _data: &mut Self::Data,
    ) -> Result<ModelOf<Self>> {
        Ok(model)
    }

    /// `model` with the bag-of-words weights of the training text (a fresh run of a network
    /// with a bag), `known` which rows came from vectors.
    ///
    /// # Errors
    /// Weights that do not fit the network.
    fn bag_weights(
        &self,
        model: ModelOf<Self>,
        network: &Self::Network,
        data: &Self::Data,
        known: Option<&<Self::Tables as Tables>::Known>,
    ) -> Result<ModelOf<Self>>;

    /// The training task of `data` for the `student` model, distilled from its teacher when
    /// given; and what to report of the data.
    ///
    /// # Errors
    /// Data or a teacher the task refuses.
    fn task(
        &self,
        network: Self::Network,
        data: Self::Data,
        student: (&ModelOf<Self>, Option<Teacher>),
    ) -> Result<(Self::Task, Self::Report)>;
}

/// A family's job as [`train_text`] reads it: the text, the network and the training settings
/// (the teacher is handed over apart, by value).
pub(crate) type TextJob<'a, N> = (&'a TextCorpus<'a>, N, &'a TrainConfig);

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
    Trained<ModelOf<F>, <<F as TextFamily>::Tables as Tables>::Init, <F as TextFamily>::Report>;

/// The network a family trains.
pub(crate) type ModelOf<F> = <<F as TextJobParts>::Network as FamilyNetwork>::Model;

/// What a family's `model.json` says.
pub(crate) type DescriptionOf<F> = <ModelOf<F> as TextNetwork>::Description;

/// How a family's tables take vectors: what their initialisation from vectors reports, and
/// which rows came from the vectors (the bag of words leaves the others out).
pub(crate) trait Tables {
    /// How the tables were initialised from vectors.
    type Init;
    /// Which rows of the tables came from the vectors.
    type Known;
    /// The tables' rows.
    type Filled;

    /// The tables of `dim` columns for the tokenizers `codec`, each row a token's vector of
    /// `vectors` where it has one, the others drawn from `rng`.
    ///
    /// # Errors
    /// Vector files that cannot be read or have another dimension.
    fn fill(
        vectors: &VectorsInit,
        codec: &TextCodec,
        dim: usize,
        rng: &mut Rng,
    ) -> Result<(Self::Filled, Self::Init, Self::Known)>;
}

/// A source and a target table (the autoencoder's and the aligner's encoders).
pub(crate) struct SideTables;

impl Tables for SideTables {
    type Init = [InitReport; 2];
    type Known = (Vec<bool>, Vec<bool>);
    type Filled = [Vec<f32>; 2];

    fn fill(
        vectors: &VectorsInit,
        codec: &TextCodec,
        dim: usize,
        rng: &mut Rng,
    ) -> Result<([Vec<f32>; 2], [InitReport; 2], (Vec<bool>, Vec<bool>))> {
        let [(src, ks, rs), (tgt, kt, rt)] = vectors.side_tables_filled(codec, dim, rng)?;
        Ok(([src, tgt], [rs, rt], (ks, kt)))
    }
}

/// One table holding both sides' rows (the siamese network's).
pub(crate) struct StackedTable;

impl Tables for StackedTable {
    type Init = InitReport;
    type Known = Vec<bool>;
    type Filled = Vec<f32>;

    fn fill(
        vectors: &VectorsInit,
        codec: &TextCodec,
        dim: usize,
        rng: &mut Rng,
    ) -> Result<(Vec<f32>, InitReport, Vec<bool>)> {
        let (table, filled, report) = vectors.stacked_table_filled(codec, dim, rng)?;
        Ok((table, report, filled))
    }
}

/// A family's text-training job ([`SiameseTextTraining`](crate::siamese::SiameseTextTraining),
/// [`AutoencoderTextTraining`](crate::autoencoder::AutoencoderTextTraining),
/// [`AlignerTextTraining`](crate::aligner::AlignerTextTraining)): one way to run them all.
pub trait TextTraining {
    /// What the training did besides training ([`Trained`] of the family's model, table
    /// initialisation and report).
    type Trained;

    /// Train on the job's text into the model directory `out`: build the tokenizers (or reuse
    /// those of `out` when `resume`), tokenize, drop (and count) the pairs with a side without
    /// tokens, keep the teacher's rows of the pairs kept, initialise the network (its tables
    /// from vectors and its bag's weights, on a fresh run), add what the family does of its
    /// own (the job's type says what), train with validation, save the best model. Takes the
    /// job, so that its teacher's vectors are held once.
    ///
    /// # Errors
    /// Invalid configuration or data (sides of different lengths, no pair left); the family's
    /// own (an aligner's word alignments); I/O errors with their paths;
    /// [`crate::Error::Diverged`].
    fn run(self, out: &Path, resume: bool) -> Result<Self::Trained>;
}

/// A family's job `$job` (a [`TextFamily`] with the fields `corpus`, `network` (a `$network`),
/// `train` (the family's training settings, with a `check` and the [`TrainConfig`] `train`)
/// and `teacher`, as every family's job has): its [`TextJobParts`], and its [`TextTraining`]
/// ([`train_text`] of it) whose run returns `$trained`.
macro_rules! text_training {
    ($job:ty, $network:ty, $trained:ty) => {
        impl $crate::text::driver::TextJobParts for $job {
            type Network = $network;

            fn job(&self) -> $crate::Result<$crate::text::driver::TextJob<'_, $network>> {
                self.train.check()?;
                Ok((&self.corpus, self.network, &self.train.train))
            }
        }

        impl $crate::text::TextTraining for $job {
            type Trained = $trained;

            fn run(mut self, out: &std::path::Path, resume: bool) -> $crate::Result<$trained> {
                let teacher = self.teacher.take();
                $crate::text::driver::train_text(&self, teacher, out, resume)
            }
        }
    };
}
pub(crate) use text_training;

/// Train `family`'s job on its text into the model directory `out`, distilled from `teacher`
/// (the job's, taken out of it): build the tokenizers (or
/// reuse those of `out` when resuming), tokenize, keep the teacher's rows of the pairs kept,
/// initialise the network (its tables from vectors and its bag's weights, on a fresh run),
/// train with validation, save the best model.
///
/// # Errors
/// Invalid configuration or data; I/O errors with their paths; [`crate::Error::Diverged`].
pub(crate) fn train_text<F: TextFamily>(
    family: &F,
    teacher: Option<Teacher>,
    out: &Path,
    resume: bool,
) -> Result<TextRun<F>> {
    let (corpus, network, train) = family.job()?;
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
        let (tables, report, k) = F::Tables::fill(vectors, &codec, network.emb_dim, &mut rng)?;
        model = family.with_tables(model, tables, &network, &mut rng)?;
        (init, known) = (Some(report), Some(k));
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
