//! fastText supervised models written in code, in fastText's own file format (`.bin`, and
//! `.ftz` with product-quantized matrices), for the tests and benches of `bitext-lid`: small
//! models with known weights whose predictions can be worked out by hand.
//!
//! Quantization here is exact rather than trained: each sub-quantizer's centroids are the
//! distinct sub-vectors of the rows (at most 256 of them, as an 8-bit code allows), and the
//! norms (`qnorm`) are given, so a quantized row is `norm × row` exactly as written. The bytes
//! are laid out as fastText's `saveModel` writes them (magic 793712314, version 12, little-endian);
//! [`offsets`] names where the header's fields sit, for tests that corrupt them.

/// fastText's file signature.
pub const MAGIC: i32 = 793_712_314;

/// Byte offsets of the header's fields, for tests that corrupt a file.
pub mod offsets {
    /// The magic number (`i32`).
    pub const MAGIC: usize = 0;
    /// The format version (`i32`).
    pub const VERSION: usize = 4;
    /// `dim` (`i32`).
    pub const DIM: usize = 8;
    /// The loss (`i32`).
    pub const LOSS: usize = 32;
    /// The model type (`i32`, 3: supervised).
    pub const MODEL: usize = 36;
    /// The bucket count (`i32`).
    pub const BUCKET: usize = 40;
    /// The dictionary's size (`i32`), after the header.
    pub const DICT_SIZE: usize = 64;
}

/// fastText's losses (`loss_name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    /// Hierarchical softmax.
    HierarchicalSoftmax = 1,
    /// Negative sampling.
    NegativeSampling = 2,
    /// Softmax.
    Softmax = 3,
    /// One-vs-all.
    OneVsAll = 4,
}

/// How a matrix is stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// `f32` values (`DenseMatrix`).
    Dense,
    /// Product-quantized (`QuantMatrix`): sub-vectors of `dsub` columns, and with `norms` one
    /// norm per row quantized apart (`qnorm`; the row is then `norm × row`).
    Quantized {
        /// Columns per sub-vector.
        dsub: usize,
        /// One norm per row, or none.
        norms: Option<Vec<f32>>,
    },
}

/// A supervised fastText model: its settings, dictionary and matrices.
#[derive(Debug, Clone, PartialEq)]
pub struct FastTextModel {
    /// Format version (12; 11 drops character n-grams).
    pub version: i32,
    /// Columns of both matrices.
    pub dim: usize,
    /// The output layer.
    pub loss: Loss,
    /// Shortest character n-gram.
    pub minn: i32,
    /// Longest character n-gram (0: none).
    pub maxn: i32,
    /// Hash buckets of n-grams.
    pub bucket: i32,
    /// Longest word n-gram (1: words only).
    pub word_ngrams: i32,
    /// The words and their counts, in order (row `i` of the input matrix is word `i`).
    pub words: Vec<(String, i64)>,
    /// The labels (with their `__label__` prefix) and their counts, in order (row `i` of the
    /// output matrix is label `i`).
    pub labels: Vec<(String, i64)>,
    /// The pruned buckets, `(bucket, row after the words)`, or `None` for an unpruned model
    /// (whose input matrix has a row for each bucket).
    pub pruned: Option<Vec<(i32, i32)>>,
    /// Input rows, `dim` values each: the words', then the buckets' (or the pruned rows).
    pub input: Vec<f32>,
    /// Output rows, `dim` values each: one per label.
    pub output: Vec<f32>,
}

impl FastTextModel {
    /// A model of `dim` columns without n-grams: words and labels with count 1 and zero
    /// matrices, to be filled in by the caller.
    #[must_use]
    pub fn new(dim: usize, loss: Loss, words: &[&str], labels: &[&str]) -> Self {
        let with_count = |v: &[&str]| v.iter().map(|w| ((*w).to_owned(), 1)).collect();
        Self {
            version: 12,
            dim,
            loss,
            minn: 0,
            maxn: 0,
            bucket: 0,
            word_ngrams: 1,
            words: with_count(words),
            labels: with_count(labels),
            pruned: None,
            input: vec![0.0; words.len() * dim],
            output: vec![0.0; labels.len() * dim],
        }
    }

    /// Number of input rows the settings call for: the words and the buckets (or the rows
    /// pruning kept).
    #[must_use]
    pub fn input_rows(&self) -> usize {
        let extra = match &self.pruned {
            Some(p) => p.iter().map(|&(_, to)| to as usize + 1).max().unwrap_or(0),
            None if self.maxn != 0 || self.word_ngrams > 1 => self.bucket as usize,
            None => 0,
        };
        self.words.len() + extra
    }

    /// The file with dense matrices (a `.bin`).
    #[must_use]
    pub fn to_bin(&self) -> Vec<u8> {
        self.write(&Storage::Dense, &Storage::Dense)
            .expect("dense matrices always write")
    }

    /// The file with the input matrix (and the output matrix, when `output` is quantized too)
    /// stored as given (an `.ftz` when quantized).
    ///
    /// # Errors
    /// When a quantized matrix has more than 256 distinct sub-vectors in a block or norms,
    /// when the norms do not match the rows, or when the output is quantized and the input not
    /// (fastText's format cannot say that).
    pub fn write(&self, input: &Storage, output: &Storage) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let i32s = |out: &mut Vec<u8>, v: &[i32]| {
            for x in v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
        i32s(&mut out, &[MAGIC, self.version]);
        let (ws, epoch, min_count, neg, model, lr_update) = (5, 5, 1, 5, 3, 100);
        i32s(
            &mut out,
            &[
                self.dim as i32,
                ws,
                epoch,
                min_count,
                neg,
                self.word_ngrams,
                self.loss as i32,
                model,
                self.bucket,
                self.minn,
                self.maxn,
                lr_update,
            ],
        );
        out.extend_from_slice(&1e-4f64.to_le_bytes());
        let size = self.words.len() + self.labels.len();
        i32s(
            &mut out,
            &[
                size as i32,
                self.words.len() as i32,
                self.labels.len() as i32,
            ],
        );
        out.extend_from_slice(&(size as i64 * 10).to_le_bytes());
        let pruned = self.pruned.as_ref().map_or(-1, |p| p.len() as i64);
        out.extend_from_slice(&pruned.to_le_bytes());
        for (kind, entries) in [(0u8, &self.words), (1u8, &self.labels)] {
            for (word, count) in entries {
                out.extend_from_slice(word.as_bytes());
                out.push(0);
                out.extend_from_slice(&count.to_le_bytes());
                out.push(kind);
            }
        }
        for &(from, to) in self.pruned.iter().flatten() {
            i32s(&mut out, &[from, to]);
        }
        let quant_in = matches!(input, Storage::Quantized { .. });
        let quant_out = matches!(output, Storage::Quantized { .. });
        if quant_out && !quant_in {
            return Err("fastText quantizes the output matrix only with the input".into());
        }
        out.push(u8::from(quant_in));
        write_matrix(&mut out, &self.input, self.dim, input)?;
        out.push(u8::from(quant_out));
        write_matrix(&mut out, &self.output, self.dim, output)?;
        Ok(out)
    }
}

fn write_matrix(
    out: &mut Vec<u8>,
    data: &[f32],
    dim: usize,
    storage: &Storage,
) -> Result<(), String> {
    let rows = data.len() / dim;
    let shape = |out: &mut Vec<u8>| {
        out.extend_from_slice(&(rows as i64).to_le_bytes());
        out.extend_from_slice(&(dim as i64).to_le_bytes());
    };
    match storage {
        Storage::Dense => {
            shape(out);
            for v in data {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        Storage::Quantized { dsub, norms } => {
            if let Some(n) = norms
                && n.len() != rows
            {
                return Err(format!("{} norms for {rows} rows", n.len()));
            }
            out.push(u8::from(norms.is_some()));
            shape(out);
            let (codes, pq) = quantize(data, dim, *dsub)?;
            out.extend_from_slice(&(codes.len() as i32).to_le_bytes());
            out.extend_from_slice(&codes);
            out.extend_from_slice(&pq);
            if let Some(norms) = norms {
                let (codes, npq) = quantize(norms, 1, 1)?;
                out.extend_from_slice(&codes);
                out.extend_from_slice(&npq);
            }
        }
    }
    Ok(())
}

/// Exact product quantization of `rows × dim` values in blocks of `dsub` columns: the codes
/// (row-major, one per block) and the quantizer's bytes (`ProductQuantizer::save`).
fn quantize(data: &[f32], dim: usize, dsub: usize) -> Result<(Vec<u8>, Vec<u8>), String> {
    if dsub == 0 || dsub > dim {
        return Err(format!("sub-vectors of {dsub} for dimension {dim}"));
    }
    let rows = data.len() / dim;
    let nsubq = dim.div_ceil(dsub);
    let lastdsub = dim - (nsubq - 1) * dsub;
    let mut codes = vec![0u8; rows * nsubq];
    let mut centroids = vec![0.0f32; dim * 256];
    for m in 0..nsubq {
        let d = if m == nsubq - 1 { lastdsub } else { dsub };
        let mut seen: Vec<&[f32]> = Vec::new();
        for r in 0..rows {
            let sub = &data[r * dim + m * dsub..r * dim + m * dsub + d];
            let code = match seen
                .iter()
                .position(|s| s.iter().zip(sub).all(|(a, b)| a.to_bits() == b.to_bits()))
            {
                Some(c) => c,
                None => {
                    seen.push(sub);
                    seen.len() - 1
                }
            };
            if code > 255 {
                return Err(format!("block {m} has more than 256 distinct sub-vectors"));
            }
            codes[r * nsubq + m] = code as u8;
        }
        // `get_centroids`: the last block's centroids are `lastdsub` wide.
        let base = m * 256 * dsub;
        for (c, sub) in seen.iter().enumerate() {
            centroids[base + c * d..base + (c + 1) * d].copy_from_slice(sub);
        }
    }
    let mut pq = Vec::new();
    for v in [dim, nsubq, dsub, lastdsub] {
        pq.extend_from_slice(&(v as i32).to_le_bytes());
    }
    for v in centroids {
        pq.extend_from_slice(&v.to_le_bytes());
    }
    Ok((codes, pq))
}

/// A random model shaped like lid.176 (for benches and cross-checks): `dim` 16, hierarchical
/// softmax over `labels` labels with falling counts, character n-grams of 2 to 4 in 2 000 000
/// buckets of which `kept` are kept (pruned, as `.ftz` files are), `words` in the dictionary
/// after `</s>`. Every block of two columns takes one of 256 seeded values, so that
/// [`Storage::Quantized`] with `dsub: 2` stores the input exactly.
#[must_use]
pub fn synthetic(words: &[&str], labels: usize, kept: usize, seed: u64) -> FastTextModel {
    let mut rng = bitext_core::Rng::seed(seed);
    let dim = 16;
    let mut all_words = vec!["</s>"];
    all_words.extend_from_slice(words);
    let names: Vec<String> = (0..labels).map(|i| format!("__label__l{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut m = FastTextModel::new(dim, Loss::HierarchicalSoftmax, &all_words, &names);
    (m.minn, m.maxn, m.bucket) = (2, 4, 2_000_000);
    for (i, l) in m.labels.iter_mut().enumerate() {
        l.1 = 1_000_000 / (i as i64 + 1);
    }
    let buckets = rng.sample_indices(m.bucket as usize, kept);
    m.pruned = Some(
        buckets
            .iter()
            .enumerate()
            .map(|(row, &b)| (b as i32, row as i32))
            .collect(),
    );
    let pool: Vec<[f32; 2]> = (0..256)
        .map(|_| [rng.normal() as f32 * 0.3, rng.normal() as f32 * 0.3])
        .collect();
    m.input = (0..(all_words.len() + kept) * dim / 2)
        .flat_map(|_| pool[rng.below(256)])
        .collect();
    m.output = (0..labels * dim).map(|_| rng.normal() as f32).collect();
    m
}
