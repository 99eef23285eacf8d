//! The training of `bitext train aligner`, on burn (only with the cargo feature `neural`).
#![cfg(feature = "neural")]

use crate::flags::Optimizer;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use bitext_lexical::{Ibm1, Ibm1Config, Segmenter, Symmetrization};
use bitext_neural::aligner::{
    AlignerConfig, AlignerTextTraining, AlignerTrainConfig, DistillText, Kind, Links, Objective,
    RankingTerm,
};
use bitext_neural::pretrained::VectorsInit;
use bitext_neural::text::TextTraining;

use bitext_tokenize::{SequenceConfig, WordConfig};

use super::super::teacher::TeacherSide;
use super::{AlignerArgs, ObjectiveArg};
use crate::cmd::train::training::report;
use crate::run::RejectSink;

impl AlignerArgs {
    /// The pairs of every --distill-input TSV (empty without), the lines left out under
    /// --bad-lines kept in `rejects`.
    fn read_distill(&self, rejects: &mut RejectSink) -> Result<(Vec<String>, Vec<String>)> {
        let (mut src, mut tgt) = (Vec::new(), Vec::new());
        if self.distill_input.is_empty() {
            return Ok((src, tgt));
        }
        let cols = self.pairs.cols.zero_based()?;
        for f in &self.distill_input {
            let skip_empty = self.pairs.skip_empty;
            let (s, t) =
                crate::neural::read_pairs(Some(f), cols, (None, None), skip_empty, rejects)?;
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
    fn distill_spans(&self, src: &[String], tgt: &[String]) -> Result<(Vec<String>, Vec<String>)> {
        if self.distill_spans == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        if self.distill_side != TeacherSide::Both {
            bail!(
                "--distill-spans needs --distill-side both: a span has no translation \
                 whose teacher vector it could take"
            );
        }
        let rng = bitext_core::Rng::seed(self.common.seed).fork(0x5A46);
        let spans = bitext_neural::distill::span_pairs(src, tgt, self.distill_spans, 3..=12, &rng)?;
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
    let mut rejects = RejectSink::new(&a.pairs.bad)?;
    let split = a.pairs.read_split(&a.valid, &a.common, &mut rejects)?;
    let (ds, dt) = a.read_distill(&mut rejects)?;
    rejects.finish_inputs()?;
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
    a.teacher.hold_cache(quiet)?;
    let out = job.run(&a.common.out, a.common.resume)?;
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
