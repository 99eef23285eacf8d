//! `bitext train aligner`: the word-alignment BiLSTM of the divergence-detection draft
//! (`bitext_neural::aligner`) on parallel text, into a model directory; resumable. Every epoch
//! draws fresh synthetic examples (paired, unpaired, replace, insert) from the training pairs;
//! the replace examples' word links come from IBM Model 1 (`bitext_lexical::Ibm1`, default
//! options, grow-diag-final-and) trained here on the model's own tokens of the training pairs.
//! The arguments parse in every build; the training compiles only with the feature `neural`.

use clap::{Args, ValueEnum};

use super::{CommonArgs, PairArgs, TextArgs};
use crate::flags::{Cell, Preset, RankingArgs, SentenceVectorArgs};

/// What the aligner is trained to predict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ObjectiveArg {
    /// The word-level loss over the aggregated alignment scores (`wemb`; the paper's).
    Words,
    /// The sentence-level loss of the comparison head (`semb`).
    Sentence,
    /// Both losses summed: word labels, `wemb` cosines and `semb` scores from one model.
    Both,
}

/// Arguments of `bitext train aligner`.
#[derive(Debug, Args)]
pub(crate) struct AlignerArgs {
    #[command(flatten)]
    pairs: PairArgs,
    #[command(flatten)]
    valid: super::ValidArgs,
    /// Network size: paper (embeddings 256, 256 per direction: 512-d word and sentence
    /// vectors), medium (256/128: 256-d) or small (128/64: 128-d).
    #[arg(long, value_enum, default_value_t = Preset::Small)]
    preset: Preset,
    /// Recurrent cell (the paper: LSTM).
    #[arg(long, value_enum, default_value_t = Cell::Lstm)]
    cell: Cell,
    /// Embedding size instead of the preset's (e.g. 512, the width of --init-vectors, so that
    /// they are not projected).
    #[arg(long, value_name = "N")]
    emb_dim: Option<usize>,
    /// Kinds of synthetic example, by letter: P (paired), U (unpaired), R (a span replaced),
    /// I (a sentence inserted); paired examples are always included.
    #[arg(long, default_value = "PURI", value_name = "LETTERS")]
    kinds: String,
    /// Examples of each kind per epoch, drawn afresh every epoch (default: as many as there
    /// are training pairs).
    #[arg(long, value_name = "N")]
    per_kind: Option<usize>,
    /// The loss trained: `words` (the word labels and the `wemb` cosine), `sentence` (the
    /// `semb` head) or `both`.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Words)]
    objective: ObjectiveArg,
    /// Sharpness r of the aggregation (1/r) log Σ exp(r·S): large r approaches the maximum,
    /// small r a sum.
    #[arg(long = "r", default_value_t = 1.0, value_name = "R")]
    r: f64,
    /// Add the in-batch ranking loss of the parallel examples' sentence vectors, with this
    /// weight, beside the objective (the siamese network's `--objective ranking`), so that the
    /// sentence vectors mine; 0 leaves it out.
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    ranking_weight: f64,
    // With --ranking-weight or --distill-ranking-weight: the ranking softmax's temperature and
    // margin.
    #[command(flatten)]
    ranking: RankingArgs,
    // Pooling, the bags (IDF over every sentence of that side in training, --distill-input's
    // included) and n-gram convolutions.
    #[command(flatten)]
    vector: SentenceVectorArgs,
    /// With --bag: both bags read a fixed table of their own, filled from these vectors (a
    /// `.vec` or, as for --init-vectors, an ONNX encoder spec naming the graph's per-piece
    /// tensor), shared by the two sides (one --spm), instead of the encoders' input rows:
    /// e.g. the teacher's own piece vectors for the sentence vector while the recurrent
    /// encoders and the word labels keep --init-vectors. Rows no vector reaches are left out
    /// of the bags. Not in the draft.
    #[arg(long, value_name = "FILE|SPEC", requires = "bag")]
    bag_vectors: Option<std::path::PathBuf>,
    /// Shift every alignment score of a pair by a trained function of its two sentence
    /// vectors' cosine, 40·(a·cos + c), starting at zero: an unrelated pair then has all its
    /// words divergent without any word state having to say so. Not in the draft.
    #[arg(long)]
    sentence_shift: bool,
    /// Dropout on the input embeddings while training (a share in [0, 1)).
    #[arg(long, default_value_t = 0.0, value_name = "P")]
    dropout: f64,
    // With --teacher: both sentence vectors of every paired example are pulled towards the
    // teacher's vector of that training pair, beside the word (or sentence) loss; needs
    // sentence vectors as wide as the teacher's (--bag --emb-dim 512 for USE-M).
    #[command(flatten)]
    teacher: super::teacher::TeacherArgs,
    /// More pairs, as TSVs (columns as --src-col/--tgt-col; repeat for several files), that
    /// train only the sentence vectors towards the teacher's (each sentence encoded alone,
    /// no synthetic example drawn from it): other registers and languages for the sentence
    /// vectors while the word examples stay on the training pairs.
    #[arg(long, value_name = "FILE", requires = "teacher")]
    distill_input: Vec<std::path::PathBuf>,
    /// With --distill-input: pairs drawn afresh for every epoch (default: --per-kind's
    /// number).
    #[arg(long, value_name = "N", requires = "distill_input")]
    distill_per_epoch: Option<usize>,
    /// With --distill-input: which sentence's teacher vector each sentence of those pairs is
    /// pulled towards: its own (`both`, for a multilingual teacher) or that of the pair's
    /// source or target sentence.
    #[arg(long, value_enum, default_value_t = super::teacher::TeacherSide::Both,
          requires = "distill_input")]
    distill_side: super::teacher::TeacherSide,
    /// With --distill-input: add the in-batch ranking loss of each batch of those pairs (its
    /// source sentences' vectors against its target sentences', as --ranking-weight ranks the
    /// paired examples), with this weight, beside the pull towards the teacher, so that a
    /// sentence's vector lies nearer its translation's than the batch's other sentences'; 0
    /// leaves it out.
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "W",
        requires = "distill_input"
    )]
    distill_ranking_weight: f64,
    /// With --distill-ranking-weight: stop that term's gradient at the pooled word states, so
    /// that it trains the bag, its map, the projection of the states and the n-gram
    /// convolutions of the sentence vector but not the recurrent encoders whose word states
    /// the word labels read (the pull towards the teacher still trains them). Needs --bag.
    #[arg(long, requires_all = ["distill_ranking_weight", "bag"])]
    distill_ranking_spares_words: bool,
    /// With --distill-input: N span pairs of each distinct pair of those files whose two
    /// sentences have at least 6 words each: a span of 3 to 12 words of each side, drawn with
    /// the seed, each pulled towards the teacher's vector of itself (so it needs
    /// --distill-side both) and never ranked, the two spans not being translations of each
    /// other. Short phrases of the other registers and languages, each with the teacher's own
    /// vector of it, as --teacher-spans gives the siamese student.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        requires = "distill_input"
    )]
    distill_spans: usize,
    #[command(flatten)]
    text: TextArgs,
    #[command(flatten)]
    batching: super::BatchArgs,
    #[command(flatten)]
    common: CommonArgs,
}

#[cfg(feature = "neural")]
pub(in crate::cmd::train) use training::train;

/// The training itself, on burn.
#[cfg(feature = "neural")]
mod training {
    use crate::flags::Optimizer;
    use std::path::PathBuf;
    use std::time::Instant;

    use anyhow::{Result, bail};
    use bitext_lexical::{Ibm1, Ibm1Config, Segmenter, Symmetrization};
    use bitext_neural::aligner::{
        AlignerConfig, AlignerTextTraining, AlignerTrainConfig, DistillText, Kind, Links,
        Objective, RankingTerm, train_aligner,
    };
    use bitext_neural::pretrained::VectorsInit;

    use bitext_tokenize::{SequenceConfig, WordConfig};

    use super::super::teacher::TeacherSide;
    use super::{AlignerArgs, ObjectiveArg};
    use crate::cmd::train::training::report;

    impl AlignerArgs {
        /// The pairs of every --distill-input TSV (empty without).
        fn read_distill(&self) -> Result<(Vec<String>, Vec<String>)> {
            let (mut src, mut tgt) = (Vec::new(), Vec::new());
            if self.distill_input.is_empty() {
                return Ok((src, tgt));
            }
            let cols = self.pairs.cols.zero_based()?;
            for f in &self.distill_input {
                let (s, t) =
                    crate::neural::read_pairs(Some(f), cols, (None, None), self.pairs.skip_empty)?;
                src.extend(s);
                tgt.extend(t);
            }
            if src.is_empty() {
                bail!("--distill-input: the files hold no pairs");
            }
            if self.distill_per_epoch == Some(0) {
                bail!("--distill-per-epoch must be at least 1");
            }
            Ok((src, tgt))
        }

        /// The --distill-spans span pairs of the distillation pairs `(src, tgt)` (none
        /// without).
        fn distill_spans(
            &self,
            src: &[String],
            tgt: &[String],
        ) -> Result<(Vec<String>, Vec<String>)> {
            if self.distill_spans == 0 {
                return Ok((Vec::new(), Vec::new()));
            }
            if self.distill_side != TeacherSide::Both {
                bail!(
                    "--distill-spans needs --distill-side both: a span has no translation \
                     whose teacher vector it could take"
                );
            }
            let mut rng = bitext_core::Rng::seed(self.common.seed).fork(0x5A46);
            let spans =
                bitext_neural::distill::span_pairs(src, tgt, self.distill_spans, 3..=12, &mut rng)?;
            if !self.common.quiet {
                eprintln!(
                    "distillation: {} span pairs of the {} pairs",
                    spans.0.len(),
                    src.len()
                );
            }
            Ok(spans)
        }
    }

    /// The symmetrised IBM-1 links of pairs of tokens.
    fn align(model: &Ibm1, (src, tgt): (&[Vec<String>], &[Vec<String>])) -> Links {
        model.align_all_tokens(src, tgt, Symmetrization::GrowDiagFinalAnd)
    }

    /// What cut the model's tokens, for the IBM-1 model trained on them: the sentencepiece
    /// model, or the word tokenizer of the vocabulary.
    fn segmenter(spm: Option<&PathBuf>, word: WordConfig) -> Segmenter {
        Segmenter::sentencepiece_or_words(spm.cloned(), word)
    }

    pub(in crate::cmd::train) fn train(a: &AlignerArgs) -> Result<()> {
        let kinds = Kind::parse_set(&a.kinds)?;
        a.teacher.check_for_aligner()?;
        let split = a.pairs.read_split(&a.valid, &a.common)?;
        if split.0.is_empty() {
            bail!("no training pairs");
        }
        let per_kind = a.per_kind.unwrap_or(split.0.len());
        if per_kind == 0 {
            bail!("--per-kind must be at least 1");
        }
        let mut network = AlignerConfig::preset(a.preset.name(), 1)?;
        network.frozen_embeddings = a.text.freeze_embeddings;
        network.cell = a.cell.kind();
        network.r = a.r;
        if let Some(d) = a.emb_dim {
            network.emb_dim = d;
        }
        network.objective = match a.objective {
            ObjectiveArg::Words => Objective::Words,
            ObjectiveArg::Sentence => Objective::Sentence,
            ObjectiveArg::Both => Objective::Both,
        };
        network.pooling = a.vector.pooling.pooling();
        network.bag = a.vector.bag;
        network.bag_map = a.vector.bag_map;
        network.bag_table = a.bag_vectors.is_some();
        network.sentence_shift = a.sentence_shift;
        (network.ngrams, network.ngram_channels) = a.vector.ngrams.config(
            a.bag_vectors.is_some() || a.text.freeze_embeddings,
            "--bag-vectors (the bags' own table) or --freeze-embeddings",
        )?;
        network.dropout = a.dropout;
        network.ranking = (a.ranking_weight != 0.0).then_some(RankingTerm {
            weight: a.ranking_weight,
            scale: a.ranking.scale,
            margin: a.ranking.margin,
            pairs: 0,
        });
        let mut train = AlignerTrainConfig::paper(a.common.seed);
        train.batching = a.batching.bucketing((32, 32 * 160));
        let (optimizer, schedule) = (train.train.optimizer, train.train.schedule);
        let mut config = a.common.train_config(10, 1.0, Some(a.batching.clip))?;
        if a.common.optimizer == Optimizer::Adam && a.common.lr.is_none() {
            // The paper's optimiser unless the user asks for another: SGD at 1.0, the rate
            // × 0.8 after an epoch without a better validation loss (or --plateau's halving,
            // or --linear-decay).
            config.optimizer = optimizer;
            if !(a.common.plateau || a.common.linear_decay) {
                config.schedule = schedule;
            }
        }
        config.check()?;
        train.train = config;
        let corpus = a.text.corpus(
            &split,
            SequenceConfig::default(),
            a.batching.max_len(80),
            a.common.quiet,
        )?;
        let segmenter = segmenter(a.text.spm.as_ref(), corpus.vocab.word);
        let replace = kinds.contains(&Kind::Replace);
        let quiet = a.common.quiet;
        // Only replace examples read links: without them, no IBM-1 is trained.
        let links = move |train: (&[Vec<String>], &[Vec<String>]),
                          valid: (&[Vec<String>], &[Vec<String>])|
              -> Result<(Links, Links), String> {
            if !replace {
                return Ok((
                    vec![Vec::new(); train.0.len()],
                    vec![Vec::new(); valid.0.len()],
                ));
            }
            let start = Instant::now();
            let model = Ibm1::train_tokens(
                &Ibm1Config::default(),
                segmenter.clone(),
                train.0,
                train.1,
                &mut |_| {},
            )
            .map_err(|e| format!("IBM Model 1: {e}"))?;
            let out = (align(&model, train), align(&model, valid));
            if !quiet {
                eprintln!(
                    "word links of the replace examples: IBM Model 1 on {} pairs, \
                     grow-diag-final-and ({:.1} s)",
                    train.0.len(),
                    start.elapsed().as_secs_f64()
                );
            }
            Ok(out)
        };
        let (ds, dt) = a.read_distill()?;
        let (ss, st) = a.distill_spans(&ds, &dt)?;
        let distill_rows = a.teacher.distill_rows(&ds, &dt, a.distill_side, quiet)?;
        // The spans' teacher vectors are cached apart, so that the pairs' cache stays.
        let distill_rows = match (
            distill_rows,
            a.teacher.distill_rows(&ss, &st, TeacherSide::Both, quiet)?,
        ) {
            (Some(rows), Some(spans)) => Some(rows.then(&spans)?),
            (rows, _) => rows,
        };
        let parallel = ds.len();
        let (ds, dt) = ([ds, ss].concat(), [dt, st].concat());
        let distill = distill_rows.as_ref().map(|rows| {
            let (src_rows, tgt_rows) = rows.sides();
            DistillText {
                src: &ds,
                tgt: &dt,
                src_rows,
                tgt_rows,
                per_epoch: a.distill_per_epoch.unwrap_or(per_kind),
                ranking: (a.distill_ranking_weight != 0.0).then_some(RankingTerm {
                    weight: a.distill_ranking_weight,
                    scale: a.ranking.scale,
                    margin: a.ranking.margin,
                    pairs: 0,
                }),
                ranking_spares_words: a.distill_ranking_spares_words,
                parallel,
            }
        });
        let job = AlignerTextTraining {
            corpus,
            network,
            train,
            kinds,
            per_kind,
            links: &links,
            teacher: a.teacher.teacher(&split, quiet)?,
            distill,
            bag_init: a
                .bag_vectors
                .as_ref()
                .map(|v| -> Result<VectorsInit> {
                    Ok(VectorsInit {
                        source: super::super::pieces::resolve(v, "--bag-vectors", quiet)?,
                        target: None,
                        max_words: None,
                    })
                })
                .transpose()?,
        };
        let out = train_aligner(&job, &a.common.out, a.common.resume)?;
        if !quiet {
            if let Some([s, t]) = &out.init {
                eprintln!("source embeddings initialised from the vectors: {s}");
                eprintln!("target embeddings initialised from the vectors: {t}");
            }
            if let Some(b) = &out.bag_init {
                eprintln!("the bags' own table initialised from the vectors: {b}");
            }
            eprintln!(
                "vocabularies of {} source and {} target tokens; {} sentences cut to {} tokens; \
                 {} pairs dropped for having no tokens",
                out.vocab_sizes.0,
                out.vocab_sizes.1,
                out.truncated,
                a.batching.max_len(80),
                out.dropped_pairs
            );
            if !ds.is_empty() {
                eprintln!(
                    "distillation pairs: {} read, {} dropped for having no tokens",
                    ds.len(),
                    out.dropped_distill
                );
            }
            let state = &out.fitted.state;
            if let Some(v) = state
                .history
                .get(state.best_epoch.wrapping_sub(1))
                .and_then(|e| e.valid.as_ref())
            {
                let mut line = String::from("validation word accuracy");
                if let Some(x) = v.metrics.get("word_accuracy") {
                    line.push_str(&format!(" {x:.4}"));
                }
                let per_kind: Vec<String> = Kind::ALL
                    .iter()
                    .filter_map(|k| {
                        let x = v.metrics.get(&format!("word_accuracy_{}", k.letter()))?;
                        Some(format!("{} {x:.4}", k.letter()))
                    })
                    .collect();
                if !per_kind.is_empty() {
                    line.push_str(&format!(" ({})", per_kind.join(", ")));
                }
                if let Some(x) = v.metrics.get("pair_accuracy") {
                    line.push_str(&format!("; pair accuracy (semb) {x:.4}"));
                }
                eprintln!("{line}");
            }
        }
        report(&out.fitted.state, &a.common.out, quiet);
        Ok(())
    }
}
