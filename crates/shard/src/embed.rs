//! The embed step: one byte-range shard of a text side encoded into raw `f32` rows (the shard's
//! embedding file, read in place by the mining steps), every row checked as the mining of an
//! embedding file checks it. [`Encoders`] builds the plan's encoder: this crate builds bags of
//! words itself, and a caller that links the neural or ONNX encoders (the CLI) gives a builder.

use std::path::Path;
use std::sync::{Arc, Mutex};

use bitext_core::io::raw::RawDtype;
use bitext_core::io::writer::EmbeddingsWriter;
use bitext_encode::{EncoderSpec, SentenceEncoder};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::plan::{Plan, PlannedSide, Side};

/// Sentences encoded at a time: a step holds one chunk of text and its vectors.
const CHUNK: usize = 4096;

/// What an embed step records beside its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Embedded {
    /// Rows written.
    pub rows: usize,
    /// Their dimension.
    pub dim: usize,
    /// Whether every row is unit length.
    pub unit: bool,
}

/// A function that builds an encoder from its spec (the error is the message to report).
pub type BuildEncoder =
    dyn Fn(&EncoderSpec) -> std::result::Result<Box<dyn SentenceEncoder>, String> + Send + Sync;

/// Builds the plan's encoder once per process and keeps it for the following embed steps.
pub struct Encoders {
    build: Box<BuildEncoder>,
    last: Mutex<Option<(EncoderSpec, Arc<dyn SentenceEncoder>)>>,
}

impl std::fmt::Debug for Encoders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoders").finish_non_exhaustive()
    }
}

impl Default for Encoders {
    /// Bags of words only (what this crate can build).
    fn default() -> Self {
        Encoders::new(Box::new(|spec: &EncoderSpec| {
            spec.build(None::<&[&str]>).map_err(|e| e.to_string())
        }))
    }
}

impl Encoders {
    /// Encoders made by `build`.
    #[must_use]
    pub fn new(build: Box<BuildEncoder>) -> Self {
        Encoders {
            build,
            last: Mutex::new(None),
        }
    }

    /// The encoder of `spec`, built on first use.
    ///
    /// # Errors
    /// The builder's error.
    pub fn get(&self, spec: &EncoderSpec) -> Result<Arc<dyn SentenceEncoder>> {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((s, e)) = last.as_ref()
            && s == spec
        {
            return Ok(Arc::clone(e));
        }
        let e: Arc<dyn SentenceEncoder> = Arc::from((self.build)(spec).map_err(Error::Invalid)?);
        *last = Some((spec.clone(), Arc::clone(&e)));
        Ok(e)
    }
}

/// Encode shard `s` of the text side `side` into `out` (atomically): every line, or with
/// `unify` the lines the side's dedup step in `dir` kept.
pub(crate) fn embed(
    plan: &Plan,
    dir: &Path,
    (side, s): (Side, usize),
    out: &Path,
    opts: &crate::run::RunOptions,
) -> Result<Embedded> {
    let PlannedSide::Text(text) = plan.side(side) else {
        return Err(Error::Invalid(format!(
            "the {} side is not text",
            side.name()
        )));
    };
    let spec = plan
        .encoder
        .as_ref()
        .ok_or_else(|| Error::Invalid("the plan names no encoder".into()))?;
    let encoder = opts.encoder(spec)?;
    let which = match side {
        Side::Src => bitext_encode::Side::Source,
        Side::Trg => bitext_encode::Side::Target,
    };
    let dim = encoder.dim();
    let dtype = if plan.fp16 {
        RawDtype::F16
    } else {
        RawDtype::F32
    };
    let mut w = EmbeddingsWriter::raw(out, dim, dtype)?;
    let (start, _) = text.bytes[s];
    let what = format!("{} (shard {s}, from byte {start})", text.path.display());
    let mut unit = true;
    let mut chunk: Vec<String> = Vec::with_capacity(CHUNK);
    let mut flush = |chunk: &mut Vec<String>, w: &mut EmbeddingsWriter| -> Result<()> {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let done = w.rows();
        let e = encoder
            .encode(which, &refs)
            .map_err(|e| Error::Invalid(format!("embedding {what}: {}", e.shifted(done))))?;
        // Checked as the mining steps will read them: binary16 rows widened.
        let read_back = if plan.fp16 {
            let v = e
                .as_slice()
                .iter()
                .map(|&x| half::f16::from_f32(x).to_f32())
                .collect();
            Some(bitext_core::Embeddings::new(v, e.dim())?)
        } else {
            None
        };
        let rows = read_back
            .as_ref()
            .map_or_else(|| e.view(), bitext_core::Embeddings::view);
        unit &= bitext_mine::check_unit(rows, &format!("{what}:"), done)
            .map_err(|e| Error::Invalid(format!("{e} (rows count from the shard's first line)")))?;
        w.push(e.view())?;
        chunk.clear();
        Ok(())
    };
    let kept = if plan.unify {
        Some(crate::dedup::read(plan, dir, side)?.kept.swap_remove(s))
    } else {
        None
    };
    let (mut line, mut next) = (0usize, 0usize);
    text.each_sentence(s, |x| {
        let keep = kept.as_ref().is_none_or(|k| k.get(next) == Some(&line));
        line += 1;
        if !keep {
            return Ok(());
        }
        next += 1;
        chunk.push(x.to_string());
        if chunk.len() == CHUNK {
            flush(&mut chunk, &mut w)?;
        }
        Ok(())
    })?;
    if !chunk.is_empty() {
        flush(&mut chunk, &mut w)?;
    }
    let rows = w.finish()?;
    Ok(Embedded { rows, dim, unit })
}
