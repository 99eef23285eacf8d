//! The training of `bitext train autoencoder`, on burn (only with the cargo feature `neural`).
#![cfg(feature = "neural")]

use crate::flags::Optimizer;
use anyhow::Result;
use bitext_encode::Side;
use bitext_neural::autoencoder::{
    AutoencoderConfig, AutoencoderTextTraining, AutoencoderTrainConfig, RankingTerm, Softmax,
};
use bitext_neural::text::TextTraining;
use bitext_tokenize::SequenceConfig;

use super::AutoencoderArgs;
use crate::cmd::train::training::report;

pub(in crate::cmd::train) fn train(a: &AutoencoderArgs) -> Result<()> {
    let mut rejects = crate::run::RejectSink::new(&a.pairs.bad)?;
    let split = a.pairs.read_split(&a.valid, &a.common, &mut rejects)?;
    let mono = match &a.mono {
        Some(p) => crate::neural::read_sentences(p, &mut rejects)?,
        None => Vec::new(),
    };
    rejects.finish_inputs()?;
    let mut network = AutoencoderConfig::preset(a.preset.name(), 1)?;
    network.frozen_embeddings = a.text.freeze_embeddings;
    network.cell = a.cell.kind();
    if a.reverse {
        network.decoded = Side::Source;
    }
    if let Some(h) = a.hidden {
        network.hidden = h;
    }
    if a.bag {
        network.bag = true;
        network.emb_dim = 2 * network.hidden;
    }
    if let Some(d) = a.emb_dim {
        network.emb_dim = d;
    }
    match a.candidates {
        Some(0) => network.softmax = Softmax::Full,
        Some(c) => network.softmax = Softmax::Sampled { candidates: c },
        None => {}
    }
    let mut train = AutoencoderTrainConfig::paper(a.common.seed);
    train.batching = a.batching.bucketing((60, 60 * 124));
    let optimizer = train.train.optimizer;
    let mut config = a.common.train_config(10, 1.0, Some(a.batching.clip))?;
    if a.common.optimizer == Optimizer::Adam && a.common.lr.is_none() {
        // The paper's optimiser unless the user asks for another: SGD at 1.0.
        config.optimizer = optimizer;
    }
    if a.step_decay {
        config.schedule = train.train.schedule;
    }
    config.check()?;
    train.train = config;
    if a.ranking != 0.0 {
        train.ranking = Some(RankingTerm {
            weight: a.ranking,
            scale: a.ranking_loss.scale,
            margin: a.ranking_loss.margin,
            pairs: a.ranking_pairs,
        });
    }
    let job = AutoencoderTextTraining {
        corpus: a.text.corpus(
            &split,
            SequenceConfig::default(),
            a.batching.max_len(60),
            a.common.quiet,
        )?,
        mono: &mono,
        network,
        train,
        teacher: a.teacher.teacher(&split, a.common.quiet)?,
    };
    a.teacher.hold_cache(a.common.quiet)?;
    let out = job.run(&a.common.out, a.common.resume)?;
    if !a.common.quiet {
        if let Some([s, t]) = &out.init {
            eprintln!("source embeddings initialised from the vectors: {s}");
            eprintln!("target embeddings initialised from the vectors: {t}");
        }
        let (unk, all) = out.unknown_tokens;
        eprintln!(
            "{unk} of {all} training tokens ({:.2}%) are not in the vocabulary; {} \
             sentences cut to {} tokens; {} pairs and {} monolingual sentences dropped \
             for having no tokens",
            100.0 * unk as f64 / all.max(1) as f64,
            out.truncated,
            a.batching.max_len(60),
            out.dropped_pairs,
            out.dropped_mono
        );
        if let Some(v) = out
            .fitted
            .state
            .history
            .get(out.fitted.state.best_epoch.wrapping_sub(1))
            .and_then(|e| e.valid.as_ref())
        {
            let m = |k: &str| v.metrics.get(k).copied().unwrap_or(f64::NAN);
            eprintln!(
                "validation per-token loss: translation {:.4}, autoencoding {:.4}",
                m("translation_nll"),
                m("autoencoding_nll")
            );
        }
    }
    report(&out.fitted.state, &a.common.out, a.common.quiet);
    Ok(())
}
