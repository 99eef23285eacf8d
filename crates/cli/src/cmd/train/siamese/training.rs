//! The training of `bitext train siamese`, on burn (only with the cargo feature `neural`).
#![cfg(feature = "neural")]

use anyhow::Result;
use bitext_neural::siamese::{Objective, SiameseConfig, SiameseTextTraining, SiameseTrainConfig};
use bitext_neural::text::TextTraining;
use bitext_tokenize::SequenceConfig;

use super::{SiameseArgs, SiameseObjective};
use crate::cmd::train::training::report;
use crate::neural::read_sentences;
use crate::run::RejectSink;

pub(in crate::cmd::train) fn train(a: &SiameseArgs) -> Result<()> {
    let mut rejects = RejectSink::new(&a.pairs.bad)?;
    let mut split = a.pairs.read_split(&a.valid, &a.common, &mut rejects)?;
    for f in &a.teacher_text {
        let lines = read_sentences(f, &mut rejects)?;
        split.0.extend(lines.iter().cloned());
        split.1.extend(lines);
    }
    rejects.finish_inputs()?;
    if a.teacher_spans > 0 {
        let rng = bitext_core::Rng::seed(a.common.seed).fork(0x5A45);
        let sentences = split.0.iter().chain(&split.1).map(String::as_str);
        let spans = bitext_neural::distill::spans(sentences, a.teacher_spans, 3..=12, &rng)?;
        if !a.common.quiet {
            eprintln!("teacher: {} spans of the training sentences", spans.len());
        }
        split.0.extend(spans.iter().cloned());
        split.1.extend(spans);
    }
    let mut network = SiameseConfig::preset(a.preset.name(), 1)?;
    network.frozen_embeddings = a.text.freeze_embeddings;
    network.bag = a.vector.bag;
    network.bag_map = a.vector.bag_map;
    network.bag_hidden = a.bag_hidden;
    (network.ngrams, network.ngram_channels) = a
        .vector
        .ngrams
        .config(a.text.freeze_embeddings, "--freeze-embeddings")?;
    if a.vector.bag {
        network.dropout_input = 0.0;
    }
    network.pooling = a.vector.pooling.pooling();
    if let Some(d) = a.emb_dim {
        network.emb_dim = d;
    }
    network.cell = a.cell.kind();
    let mut train = SiameseTrainConfig::paper(a.common.seed);
    train.negatives = a.negatives;
    // Distillation alone validates as the ranking objective does (P@1 by cosine).
    if a.objective == SiameseObjective::Ranking || a.teacher.alone() {
        train.objective = Objective::Ranking {
            scale: a.ranking.scale,
            margin: a.ranking.margin,
        };
    }
    train.batching = a.batching.bucketing((128, 128 * 80));
    train.pieces = a.batch_pieces;
    train.train = a.common.train_config(15, 2e-4, Some(a.batching.clip))?;
    let max_len = a.batching.max_len(80);
    let sequence = SequenceConfig {
        max_len: Some(max_len),
        ..SequenceConfig::default()
    };
    let job = SiameseTextTraining {
        corpus: a.text.corpus(&split, sequence, max_len, a.common.quiet)?,
        network,
        train,
        teacher: a.teacher.teacher(&split, a.common.quiet)?,
    };
    a.teacher.hold_cache(a.common.quiet)?;
    let out = job.run(&a.common.out, a.common.resume)?;
    if let (Some(r), false) = (&out.init, a.common.quiet) {
        eprintln!("embeddings initialised from the vectors: {r}");
    }
    if !a.common.quiet && out.dropped_pairs > 0 {
        eprintln!(
            "dropped {} training pairs with a side that has no tokens",
            out.dropped_pairs
        );
    }
    report(&out.fitted.state, &a.common.out, a.common.quiet);
    Ok(())
}
