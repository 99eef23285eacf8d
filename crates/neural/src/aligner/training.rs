//! Training the aligner from parallel text ([`TextTraining::run`](crate::text::TextTraining::run)): the aligner's part of the
//! families' one text training (its synthetic examples and word alignments, the bags' own
//! table, the distillation pairs).

use bitext_core::Rng;
use bitext_encode::Side;

use crate::aligner::stream::{DistillPairs, DistillText};
use crate::aligner::synth::{Corpus, Example, Kind, Synthesizer};
use crate::aligner::text::{AlignerDescription, LinkFn, classes};
use crate::aligner::{Aligner, AlignerConfig, AlignerTask, AlignerTrainConfig};
use crate::distill::{Distilled, Teacher};
use crate::encoding::side_bag_weights;
use crate::error::{Error, Result};
use crate::pretrained::{InitReport, VectorsInit};
use crate::text::driver::{SideTables, TextFamily, text_training};
use crate::text::tokens::PairTokens;
use crate::text::{TextCodec, TextConfig, TextCorpus, Trained};

/// Parallel training text and what to do with it: [`TextTraining::run`](crate::text::TextTraining::run)
/// trains an aligner on it: the words aligned (`links`), validation examples drawn from the
/// held-out pairs.
pub struct AlignerTextTraining<'a> {
    /// The pairs (validation examples are drawn once, seeded, from its held-out pairs), their
    /// tokenizers, the vectors the tables start from and the cut.
    pub corpus: TextCorpus<'a>,
    /// The network (vocabulary sizes are set from the tokenizers).
    pub network: AlignerConfig,
    /// Batches, optimiser, epochs, seed.
    pub train: AlignerTrainConfig,
    /// Kinds of synthetic example (paired examples are always included).
    pub kinds: Vec<Kind>,
    /// Examples of each kind per epoch.
    pub per_kind: usize,
    /// Word alignments of the training and validation pairs.
    pub links: &'a LinkFn<'a>,
    /// A teacher's vectors to distil from ([`crate::distill`]), one row per pair of
    /// [`TextCorpus::src`] (and of its validation pairs): see [`AlignerTask`].
    pub teacher: Option<Teacher>,
    /// More pairs that train only the sentence vectors towards the teacher's (needs
    /// `teacher`): see [`AlignerTask::with_distill_pairs`].
    pub distill: Option<DistillText<'a>>,
    /// The vectors of the bags' own table (needed with [`AlignerConfig::bag_table`]; one
    /// shared tokenizer): every row a vector reaches, the rest drawn at the table's scale and
    /// left out of the bags (weight 0), as the encoders' rows without a vector are.
    pub bag_init: Option<VectorsInit>,
}

/// What [`TextTraining::run`](crate::text::TextTraining::run) did besides training: the training outcome, the pairs dropped for
/// a side without tokens, the vocabulary sizes, how the tables were initialised from vectors,
/// and [`AlignerReport`].
pub type AlignerTrained = Trained<Aligner, [InitReport; 2], AlignerReport>;

/// What the aligner's text training reports of its data.
#[derive(Debug)]
pub struct AlignerReport {
    /// Distillation pairs dropped because a side had no tokens.
    pub dropped_distill: usize,
    /// Sentences cut to `max_len` tokens.
    pub truncated: usize,
    /// How the bags' own table was initialised from vectors.
    pub bag_init: Option<InitReport>,
    /// The held-out pairs as a corpus (token ids, links, classes), for test examples.
    pub valid: Option<Corpus>,
}

/// The aligner's text in the tokenizers' ids: the training pairs as a corpus (links, word
/// classes) and the indices of those kept, the held-out ones and their validation examples,
/// the distillation pairs.
pub(crate) struct AlignerData {
    train: Corpus,
    kept: Vec<usize>,
    valid_kept: Option<Vec<usize>>,
    valid: Option<Vec<Example>>,
    distill: Option<DistillPairs>,
    report: AlignerReport,
}

text_training!(AlignerTextTraining<'_>, AlignerConfig, AlignerTrained);

impl TextFamily for AlignerTextTraining<'_> {
    type Task = AlignerTask;
    type Data = AlignerData;
    type Tables = SideTables;
    type Report = AlignerReport;

    fn tokenize(&self, codec: &TextCodec, _: &AlignerConfig) -> Result<AlignerData> {
        let (corpus, max_len) = (&self.corpus, self.corpus.max_len);
        let mut pairs = PairTokens::new(codec, (corpus.src, corpus.tgt), max_len, true)?;
        let mut truncated = pairs.cut_kept();
        let ((si, ti), (sp, tp)) = (pairs.take_ids(), pairs.take_pieces());
        let (vsi, vti, vsp, vtp, valid_kept) = match corpus.valid {
            Some(v) => {
                let mut pairs = PairTokens::new(codec, v, max_len, true)?;
                truncated += pairs.cut_kept();
                let ((a, b), (c, d)) = (pairs.take_ids(), pairs.take_pieces());
                (a, b, c, d, Some(pairs.kept))
            }
            None => Default::default(),
        };
        let (links, vlinks) = (self.links)((&sp, &tp), (&vsp, &vtp))
            .map_err(|e| Error::Input(format!("word alignment: {e}")))?;
        let unk = |side| codec.tokenizer(side).special_ids().unk;
        let (vs, vt) = codec.vocab_sizes();
        let src_classes = classes(vs, &si, &sp, unk(Side::Source));
        let tgt_classes = classes(vt, &ti, &tp, unk(Side::Target));
        let valid_corpus = (vsi.len() >= 2).then(|| Corpus {
            src: vsi,
            tgt: vti,
            links: vlinks,
            src_classes: src_classes.clone(),
            tgt_classes: tgt_classes.clone(),
        });
        let valid = match &valid_corpus {
            Some(c) => {
                let mut rng = Rng::seed(self.train.train.seed).fork(0x7a1);
                Some(Synthesizer::new(c)?.epoch(&self.kinds, c.len().min(500), &mut rng)?)
            }
            None => None,
        };
        let (distill, dropped_distill) = match &self.distill {
            Some(d) => {
                let (pairs, dropped, cut) = d.tokens(codec, max_len)?;
                truncated += cut;
                (Some(pairs), dropped)
            }
            None => (None, 0),
        };
        Ok(AlignerData {
            train: Corpus {
                src: si,
                tgt: ti,
                links,
                src_classes,
                tgt_classes,
            },
            kept: pairs.kept,
            valid_kept,
            valid,
            distill,
            report: AlignerReport {
                dropped_distill,
                truncated,
                bag_init: None,
                valid: valid_corpus,
            },
        })
    }

    fn kept(data: &AlignerData) -> (&[usize], Option<&[usize]>) {
        (&data.kept, data.valid_kept.as_deref())
    }

    fn description(&self, network: AlignerConfig, text: TextConfig) -> AlignerDescription {
        AlignerDescription {
            network,
            text,
            kinds: Kind::set_name(&self.kinds),
            max_len: self.corpus.max_len,
        }
    }

    fn with_tables(
        &self,
        model: Aligner,
        [src, tgt]: [Vec<f32>; 2],
        _: &AlignerConfig,
        _: &mut Rng,
    ) -> Result<Aligner> {
        model.with_embedding_tables(src, tgt)
    }

    fn own_tables(
        &self,
        model: Aligner,
        (codec, network): (&TextCodec, &AlignerConfig),
        (resuming, seed): (bool, u64),
        known: &mut Option<(Vec<bool>, Vec<bool>)>,
        data: &mut AlignerData,
    ) -> Result<Aligner> {
        match (&self.bag_init, network.bag_table) {
            (Some(_), false) => Err(Error::Config(
                "vectors for the bags' own table, but the network's bags read the encoders' rows \
                 (bag_table is off)"
                    .into(),
            )),
            (None, true) if !resuming => Err(Error::Config(
                "the bags read their own table (bag_table): give its vectors".into(),
            )),
            (Some(_), true) if !codec.shared() => Err(Error::Config(
                "the bags' own table is shared by both sides: it needs one tokenizer for both \
                 languages"
                    .into(),
            )),
            (Some(v), true) if !resuming => {
                let mut rng = Rng::seed(seed).fork(0xba9);
                let (table, k, report) =
                    v.stacked_table_filled(codec, network.emb_dim, &mut rng)?;
                data.report.bag_init = Some(report);
                *known = Some((k.clone(), k));
                model.with_bag_table(table)
            }
            _ => Ok(model),
        }
    }

    fn bag_weights(
        &self,
        model: Aligner,
        network: &AlignerConfig,
        data: &AlignerData,
        known: Option<&(Vec<bool>, Vec<bool>)>,
    ) -> Result<Aligner> {
        // IDF of each side's rows over every sentence that side reads in training: the word
        // examples' and the distillation pairs' (another register, another language: French
        // function words would otherwise weigh as rare German pieces do).
        let none: &[Vec<u32>] = &[];
        let (ds, dt) = data
            .distill
            .as_ref()
            .map_or((none, none), |p| (&p.src[..], &p.tgt[..]));
        let (ws, wt) = side_bag_weights(
            (network.src_vocab, network.tgt_vocab),
            (&[&data.train.src, ds], &[&data.train.tgt, dt]),
            known,
        );
        model.with_bag_weights(ws, wt)
    }

    fn task(
        &self,
        network: AlignerConfig,
        data: AlignerData,
        (model, teacher): (&Aligner, Option<Teacher>),
    ) -> Result<(AlignerTask, AlignerReport)> {
        let dim = model.dim();
        let task = AlignerTask::new(
            network,
            data.train,
            &self.kinds,
            self.per_kind,
            data.valid,
            self.train.batching,
        )?;
        let task = match &data.report.valid {
            Some(c) => task.with_valid_pairs(c.len()),
            None => task,
        };
        let task = task.taught(teacher, dim)?;
        let task = match data.distill {
            Some(pairs) => task.with_distill_pairs(pairs, dim)?,
            None => task,
        };
        Ok((task, data.report))
    }
}
