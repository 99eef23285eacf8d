//! [`OnnxEncoder`]: a [`SentenceEncoder`] over an ONNX graph run by ONNX Runtime.

use bitext_core::Embeddings;
use bitext_core::tune::TuneCache;
use bitext_encode::{BatchOrder, Error, OnnxSpec, Pooling, Result, SentenceEncoder, Side};
use bitext_tokenize::{Sentencepiece, SequenceConfig, Tokenizer};
use ort::session::Session;
use ort::value::{DynValue, Tensor, TensorElementType, ValueType};

use crate::graph::{self, dtype};
use crate::split::{self, Measured, Pending, Split, SplitKey, SplitSource};

mod pieces;
use crate::runtime::{environment, runtime_path};

fn backend(e: impl std::fmt::Display) -> Error {
    Error::Backend(e.to_string().into())
}

/// How a batch is fed to the graph.
#[derive(Debug, Clone)]
enum Feed {
    /// The graph of an in-graph tokenizer, cut: all ids concatenated, and row splits.
    Ragged {
        ids: String,
        ids_i64: bool,
        splits: String,
        splits_i64: bool,
    },
    /// Padded `[batch, length]` ids with a mask (and token types).
    Padded {
        input_ids: String,
        mask: Option<String>,
        types: Option<String>,
        i64: bool,
        pad: u32,
    },
}

/// A pretrained sentence encoder as an ONNX graph ([`OnnxSpec`]), run by ONNX Runtime. The
/// same encoder embeds both sides (the models are multilingual).
pub struct OnnxEncoder {
    /// One or more sessions of the same graph ([`OnnxSpec::sessions`]).
    sessions: split::Sessions,
    tokenizer: Box<dyn Tokenizer>,
    feed: Feed,
    output: String,
    dim: usize,
    spec: OnnxSpec,
    /// The pieces of the graph's own sentencepiece model, by id (graphs with a tokenizer
    /// inside), for [`OnnxEncoder::pieces`].
    pieces: Option<Vec<String>>,
}

impl std::fmt::Debug for OnnxEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxEncoder")
            .field("model", &self.spec.model)
            .field("feed", &self.feed)
            .field("output", &self.output)
            .field("dim", &self.dim)
            .finish_non_exhaustive()
    }
}

/// A graph input or output: its name, and its element type and shape when it is a tensor
/// (`-1` for a symbolic dimension).
type Io = (String, Option<(TensorElementType, Vec<i64>)>);

fn tensor_shape(t: &ValueType) -> Option<(TensorElementType, Vec<i64>)> {
    match t {
        ValueType::Tensor { ty, shape, .. } => Some((*ty, shape.iter().copied().collect())),
        _ => None,
    }
}

impl OnnxEncoder {
    /// Load the graph of `spec`: cut off an in-graph tokenizer, check the graph's inputs and
    /// output, and open an ONNX Runtime session.
    ///
    /// # Errors
    /// As [`OnnxSpec::check`]; the file missing or not an ONNX model (naming it), no ONNX
    /// Runtime library ([`runtime_path`]), inputs or an output this encoder does not know how
    /// to feed or read (naming them), a graph ONNX Runtime refuses (its reason, e.g. an
    /// operator it lacks), a tokenizer that cannot be built.
    pub fn load(spec: &OnnxSpec) -> Result<Self> {
        Self::load_tuned(spec, TuneCache::from_env())
    }

    /// [`OnnxEncoder::load`], keeping a measured split (`"sessions": 0`) in `cache` rather
    /// than the environment's ([`TuneCache::from_env`]).
    ///
    /// # Errors
    /// As [`OnnxEncoder::load`].
    pub fn load_tuned(spec: &OnnxSpec, cache: TuneCache) -> Result<Self> {
        spec.check()?;
        let mut graph = graph::load(&spec.model)?;
        // An output that is not one of the graph's (an intermediate tensor) is made one.
        let declared = match &spec.output {
            Some(o) => {
                let before = graph.bytes.len();
                graph.bytes = graph::expose(std::mem::take(&mut graph.bytes), o).map_err(|e| {
                    bitext_core::Error::parse(
                        &spec.model,
                        bitext_core::Location::Byte(e.offset as u64),
                        e.reason,
                    )
                })?;
                graph.bytes.len() == before
            }
            None => true,
        };
        let env = environment(&runtime_path(spec.runtime.as_deref())?)?;
        let named =
            |e: &dyn std::fmt::Display| Error::Invalid(format!("{}: {e}", spec.model.display()));
        let (split, source, mut pending) = if spec.sessions == 0 {
            let cores = match spec.threads {
                0 => std::thread::available_parallelism().map_or(1, usize::from),
                t => t,
            };
            let key = SplitKey::new(&graph.bytes, spec.batch, cores);
            let candidates = split::candidates(cores);
            match cache.get::<_, Measured>(&key) {
                Some(m) => (m.split, SplitSource::Cached(m.rates), None),
                None if candidates.len() < 2 => (candidates[0], SplitSource::Spec, None),
                None => (
                    candidates[0],
                    SplitSource::Unmeasured,
                    Some(Pending {
                        // The graph's bytes, moved in once the first sessions are built.
                        bytes: Vec::new(),
                        key,
                        cache,
                        candidates,
                    }),
                ),
            }
        } else {
            let split = Split {
                sessions: spec.sessions,
                threads: spec.threads,
            };
            (split, SplitSource::Spec, None)
        };
        let sessions = split::build(env, &graph.bytes, split, &spec.model)?;
        if let Some(p) = &mut pending {
            p.bytes = std::mem::take(&mut graph.bytes);
        }
        let session = sessions[0]
            .lock()
            .map_err(|_| backend("a poisoned session"))?;
        let inputs: Vec<Io> = session
            .inputs()
            .iter()
            .map(|i| (i.name().to_string(), tensor_shape(i.dtype())))
            .collect();
        let outputs: Vec<Io> = session
            .outputs()
            .iter()
            .map(|o| (o.name().to_string(), tensor_shape(o.dtype())))
            .collect();
        let names = |v: &[Io]| {
            v.iter()
                .map(|x| x.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut pieces = None;
        let (tokenizer, feed): (Box<dyn Tokenizer>, Feed) = match &graph.tokenizer {
            Some(t) => {
                if spec.tokenizer.is_some() {
                    return Err(named(
                        &"the graph has its own tokenizer; the spec must not name one",
                    ));
                }
                let sp =
                    Sentencepiece::from_bytes(t.model.clone())?.with_sequence(SequenceConfig {
                        add_bos: t.add_bos,
                        add_eos: t.add_eos,
                        max_len: None,
                    })?;
                pieces = Some(sp.pieces().iter().map(|p| p.piece.clone()).collect());
                (
                    Box::new(sp),
                    Feed::Ragged {
                        ids: t.ids.clone(),
                        ids_i64: t.ids_type == dtype::INT64,
                        splits: t.splits.clone(),
                        splits_i64: t.splits_type != dtype::INT32,
                    },
                )
            }
            None => {
                let Some(tspec) = &spec.tokenizer else {
                    return Err(named(&format!(
                        "the graph (inputs: {}) has no tokenizer inside; name one in the spec \
                         (\"tokenizer\": {{\"type\": \"sentencepiece\", \"model\": FILE, …}})",
                        names(&inputs)
                    )));
                };
                let tok = tspec.build()?;
                let find = |n: &str| inputs.iter().find(|i| i.0 == n);
                let Some((_, ids_t)) = find("input_ids") else {
                    return Err(named(&format!(
                        "the graph's inputs are {}: expected input_ids, attention_mask and \
                         optionally token_type_ids",
                        names(&inputs)
                    )));
                };
                if let Some(other) = inputs.iter().find(|i| {
                    !["input_ids", "attention_mask", "token_type_ids"].contains(&i.0.as_str())
                }) {
                    return Err(named(&format!(
                        "unexpected graph input {} (inputs: {}; bitext feeds input_ids, \
                         attention_mask and token_type_ids)",
                        other.0,
                        names(&inputs)
                    )));
                }
                let i64 = match ids_t {
                    Some((TensorElementType::Int64, _)) => true,
                    Some((TensorElementType::Int32, _)) => false,
                    other => {
                        return Err(named(&format!(
                            "input_ids is {other:?}: expected an int64 or int32 tensor"
                        )));
                    }
                };
                let pad = tok.special_ids().pad.unwrap_or(0);
                (
                    tok,
                    Feed::Padded {
                        input_ids: "input_ids".into(),
                        mask: find("attention_mask").map(|i| i.0.clone()),
                        types: find("token_type_ids").map(|i| i.0.clone()),
                        i64,
                        pad,
                    },
                )
            }
        };
        let output = match &spec.output {
            Some(o) => outputs
                .iter()
                .find(|x| &x.0 == o)
                .ok_or_else(|| named(&format!("no output {o:?} (outputs: {})", names(&outputs))))?,
            None => outputs
                .first()
                .ok_or_else(|| named(&"the graph has no output"))?,
        };
        let Some((TensorElementType::Float32, shape)) = &output.1 else {
            return Err(named(&format!(
                "output {} is {:?}: expected a float32 tensor",
                output.0, output.1
            )));
        };
        // An exposed intermediate tensor has no declared shape: the probe below finds its width.
        if (declared || !shape.is_empty()) && !(2..=3).contains(&shape.len()) {
            return Err(named(&format!(
                "output {} has shape {shape:?}: expected [batch, dim] or [batch, tokens, dim]",
                output.0
            )));
        }
        drop(session);
        let mut enc = OnnxEncoder {
            sessions: split::Sessions::new(env, split, sessions, source, pending),
            tokenizer,
            feed,
            output: output.0.clone(),
            dim: shape
                .last()
                .and_then(|&d| usize::try_from(d).ok())
                .unwrap_or(0),
            spec: spec.clone(),
            pieces,
        };
        if enc.dim == 0 {
            // A symbolic dimension: run one sentence of one piece (the first of "a") to learn
            // it, so that a per-piece tensor gives one row too.
            let probe = enc.tokenizer.encode_ids("a")?.first().copied().unwrap_or(0);
            let dim = enc
                .sessions
                .with_free(&mut |session| Ok(enc.run_ids(session, &[vec![probe]])?.1))?;
            enc.dim = dim;
        }
        Ok(enc)
    }

    /// The spec the encoder was loaded from.
    #[must_use]
    pub fn spec(&self) -> &OnnxSpec {
        &self.spec
    }

    /// The ids of each sentence.
    fn ids(&self, sentences: &[&str]) -> Result<Vec<Vec<u32>>> {
        sentences
            .iter()
            .map(|s| {
                let ids = self.tokenizer.encode_ids(s)?;
                match self.spec.max_tokens {
                    Some(m) if ids.len() > m => Err(Error::Invalid(format!(
                        "a sentence has {} tokens, more than max_tokens {m}: {:?}",
                        ids.len(),
                        s.chars().take(80).collect::<String>()
                    ))),
                    _ => Ok(ids),
                }
            })
            .collect()
    }

    /// The sessions × threads split in use, and where it came from (`"sessions": 0`:
    /// measured, cached or not measured yet).
    #[must_use]
    pub fn split(&self) -> (Split, SplitSource) {
        self.sessions.split()
    }

    /// Run one batch of the piece ids of each sentence on `session`: the rows (normalised as
    /// the spec says) and their dimension.
    fn run_ids(&self, session: &mut Session, ids: &[Vec<u32>]) -> Result<(Vec<f32>, usize)> {
        let n = ids.len();
        let mut inputs: Vec<(String, DynValue)> = Vec::new();
        let mut mask_rows: Option<(Vec<u8>, usize)> = None;
        match &self.feed {
            Feed::Ragged {
                ids: ids_name,
                ids_i64,
                splits,
                splits_i64,
            } => {
                let mut sp = Vec::with_capacity(n + 1);
                sp.push(0i64);
                let flat: Vec<u32> = ids.iter().flatten().copied().collect();
                for r in ids {
                    sp.push(sp.last().copied().unwrap_or(0) + r.len() as i64);
                }
                let t = flat.len();
                let idv: DynValue = if *ids_i64 {
                    Tensor::from_array((
                        [t],
                        flat.iter().map(|&x| i64::from(x)).collect::<Vec<_>>(),
                    ))
                    .map_err(backend)?
                    .into_dyn()
                } else {
                    Tensor::from_array(([t], flat.iter().map(|&x| x as i32).collect::<Vec<_>>()))
                        .map_err(backend)?
                        .into_dyn()
                };
                inputs.push((ids_name.clone(), idv));
                let spv: DynValue = if *splits_i64 {
                    Tensor::from_array(([n + 1], sp))
                        .map_err(backend)?
                        .into_dyn()
                } else {
                    let narrow = sp
                        .iter()
                        .map(|&x| {
                            i32::try_from(x).map_err(|_| {
                                Error::Invalid(format!(
                                    "{}: a batch of {x} pieces overflows the graph's int32 row \
                                     splits",
                                    self.spec.model.display()
                                ))
                            })
                        })
                        .collect::<Result<Vec<i32>>>()?;
                    Tensor::from_array(([n + 1], narrow))
                        .map_err(backend)?
                        .into_dyn()
                };
                inputs.push((splits.clone(), spv));
            }
            Feed::Padded {
                input_ids,
                mask,
                types,
                i64,
                pad,
            } => {
                let len = ids.iter().map(Vec::len).max().unwrap_or(0).max(1);
                let mut flat = vec![*pad; n * len];
                let mut m = vec![0u8; n * len];
                for (r, row) in ids.iter().enumerate() {
                    flat[r * len..r * len + row.len()].copy_from_slice(row);
                    m[r * len..r * len + row.len()].fill(1);
                }
                let int = |v: Vec<i64>| -> Result<DynValue> {
                    Ok(if *i64 {
                        Tensor::from_array(([n, len], v))
                            .map_err(backend)?
                            .into_dyn()
                    } else {
                        Tensor::from_array((
                            [n, len],
                            v.into_iter().map(|x| x as i32).collect::<Vec<_>>(),
                        ))
                        .map_err(backend)?
                        .into_dyn()
                    })
                };
                inputs.push((
                    input_ids.clone(),
                    int(flat.iter().map(|&x| i64::from(x)).collect())?,
                ));
                if let Some(name) = mask {
                    inputs.push((
                        name.clone(),
                        int(m.iter().map(|&x| i64::from(x)).collect())?,
                    ));
                }
                if let Some(name) = types {
                    inputs.push((name.clone(), int(vec![0; n * len])?));
                }
                mask_rows = Some((m, len));
            }
        }
        let outputs = session.run(inputs).map_err(|e| {
            Error::Invalid(format!("{}: ONNX Runtime: {e}", self.spec.model.display()))
        })?;
        let (shape, data) = outputs[self.output.as_str()]
            .try_extract_tensor::<f32>()
            .map_err(backend)?;
        let shape: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        let bad = || {
            Error::Invalid(format!(
                "{}: output {} has shape {shape:?} for a batch of {n}",
                self.spec.model.display(),
                self.output
            ))
        };
        let mut rows = match (shape.as_slice(), &mask_rows) {
            (&[b, d], _) if b == n => data[..b * d].to_vec(),
            (&[b, t, d], Some((mask, len))) if b == n && t == *len => {
                pool(data, mask, n, t, d, self.spec.pooling)
            }
            _ => return Err(bad()),
        };
        let d = *shape.last().ok_or_else(bad)?;
        if let Some(i) = rows.iter().position(|x| !x.is_finite()) {
            return Err(Error::Invalid(format!(
                "{}: the graph returned a non-finite value for sentence {}",
                self.spec.model.display(),
                i / d.max(1) + 1
            )));
        }
        if self.spec.normalize {
            for r in rows.chunks_mut(d.max(1)) {
                bitext_core::normalize_row(r);
            }
        }
        Ok((rows, d))
    }
}

/// Pool `[n, t, d]` token states under `mask` (`[n, t]`).
fn pool(data: &[f32], mask: &[u8], n: usize, t: usize, d: usize, pooling: Pooling) -> Vec<f32> {
    let mut out = vec![0f32; n * d];
    for r in 0..n {
        let o = &mut out[r * d..(r + 1) * d];
        match pooling {
            Pooling::Cls => o.copy_from_slice(&data[r * t * d..r * t * d + d]),
            _ => {
                let mut count = 0f32;
                for j in 0..t {
                    if mask[r * t + j] == 0 {
                        continue;
                    }
                    count += 1.0;
                    let s = &data[(r * t + j) * d..(r * t + j + 1) * d];
                    for (a, b) in o.iter_mut().zip(s) {
                        *a += b;
                    }
                }
                for a in o.iter_mut() {
                    *a /= count.max(1.0);
                }
            }
        }
    }
    out
}

impl SentenceEncoder for OnnxEncoder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn batch_size(&self) -> usize {
        self.spec.batch
    }

    fn tuning(&self) -> Option<String> {
        self.sessions.summary()
    }

    fn encode_batch(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        self.sessions
            .with_free(&mut |session| self.encode_on(session, side, sentences))
    }

    /// Batches in the spec's order ([`BatchOrder::Length`]: by byte length, so that a batch
    /// holds sentences of similar length; absent: by length for padded feeds, in input order
    /// for graphs with their own tokenizer), run side by side by the sessions (a split still to
    /// measure is measured on a sample of them first: [`crate::split`]), written back in input
    /// order.
    fn encode_with_progress(
        &self,
        side: Side,
        sentences: &[&str],
        progress: &mut dyn FnMut(usize),
    ) -> Result<Embeddings> {
        let mut order: Vec<usize> = (0..sentences.len()).collect();
        let by_length = match self.spec.order {
            Some(o) => o == BatchOrder::Length,
            None => matches!(self.feed, Feed::Padded { .. }),
        };
        if by_length {
            order.sort_by_key(|&i| sentences[i].len());
        }
        let batches: Vec<&[usize]> = order.chunks(self.spec.batch.max(1)).collect();
        let mut rows = vec![0f32; sentences.len() * self.dim];
        let mut done = 0;
        let mut place = |b: usize, e: &Embeddings| {
            for (k, &i) in batches[b].iter().enumerate() {
                rows[i * self.dim..(i + 1) * self.dim].copy_from_slice(e.view().row(k));
            }
            done += batches[b].len();
            progress(done);
        };
        // A batch's rows; an error about one of its sentences names its input position.
        let encode = |session: &mut Session, b: usize| {
            let chunk = batches[b];
            let texts: Vec<&str> = chunk.iter().map(|&i| sentences[i]).collect();
            self.encode_on(session, side, &texts)
                .map_err(|e| e.renumbered(|k| chunk.get(k).copied().unwrap_or(k)))
        };
        let mut todo: Vec<usize> = (0..batches.len()).collect();
        let weight =
            |b: usize| -> usize { batches[b].iter().map(|&i| sentences[i].len() + 1).sum() };
        let sample: (&dyn Fn(usize) -> usize, _) = (&weight, self.spec.model.as_path());
        if let Some(encoded) = self
            .sessions
            .measure(batches.len(), sample, &encode, &mut place)?
        {
            todo.retain(|&b| !encoded[b]);
        }
        self.sessions.run(&todo, &encode, &mut place)?;
        Ok(Embeddings::new(rows, self.dim)?)
    }
}

impl OnnxEncoder {
    /// Encode one batch of `side` on `session`, checking the dimension; a sentence the
    /// tokenizer gives no token (not even a special one) follows the spec's `no_known_word`
    /// and never reaches the graph.
    fn encode_on(&self, session: &mut Session, side: Side, text: &[&str]) -> Result<Embeddings> {
        if text.is_empty() {
            return Ok(Embeddings::new(Vec::new(), self.dim)?);
        }
        let ids = self.ids(text)?;
        self.spec
            .no_known_word
            .encode_ids(side, text, ids, self.dim, |ids| {
                let (rows, d) = self.run_ids(session, ids)?;
                if d != self.dim {
                    return Err(Error::Invalid(format!(
                        "{}: output dimension {d}, expected {}",
                        self.spec.model.display(),
                        self.dim
                    )));
                }
                Ok(Embeddings::new(rows, d)?)
            })
    }
}
