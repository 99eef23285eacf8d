//! Word translation with the Earth Mover's Distance (Zhang et al. 2016, "Word Translation"):
//! the source words are holes and the target words piles of earth, each weighted by its
//! corpus frequency and placed at its bilingual embedding; the optimal plan of moving the
//! earth into the holes at Euclidean cost translates every source word, and the number of
//! translations a word gets comes out of the transport.

use std::collections::HashMap;
use std::path::Path;

use bitext_core::io::LineReader;
use bitext_core::io::vec::{WordVectors, read_vec};
use bitext_core::{Embeddings, EmbeddingsView};

use crate::error::{Error, Result};
use crate::problem::{CostMatrix, Problem, Transport};
use crate::retrieval::{Proposals, cosine_similarities};
use crate::solver::TransportSolver;

/// Read a frequency file: `word<TAB>count` per line (the `.freq` files beside fastText `.vec`
/// files). Counts are non-negative numbers.
///
/// # Errors
/// A missing file, invalid UTF-8, a line without exactly one tab, an empty word, a count that
/// is not a finite non-negative number, a duplicate word (naming both lines), or an empty file.
pub fn read_frequencies(path: impl AsRef<Path>) -> Result<Vec<(String, f64)>> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    LineReader::open(path)?.each_line("words", |r, line| {
        let f = r.fields(line, 2, "word<TAB>count")?;
        let (word, count) = (f[0], f[1]);
        if word.is_empty() {
            return Err(r.error("empty word"));
        }
        let c: f64 = count
            .trim()
            .parse()
            .map_err(|_| r.error(format!("count {count:?} of {word:?} is not a number")))?;
        if !(c.is_finite() && c >= 0.0) {
            return Err(r.error(format!(
                "count {count} of {word:?} must be finite and non-negative"
            )));
        }
        if let Some(first) = seen.insert(word.to_string(), r.line_number()) {
            return Err(r.error(format!("duplicate word {word:?} (first on line {first})")));
        }
        out.push((word.to_string(), c));
        Ok(())
    })?;
    Ok(out)
}

/// One side of a word-translation problem: word vectors (bilingual embeddings, row `i`
/// belonging to word `i`) and the words' corpus frequencies.
#[derive(Debug, Clone, PartialEq)]
pub struct Vocabulary {
    vectors: WordVectors,
    freqs: Vec<f64>,
}

impl Vocabulary {
    /// Build a vocabulary.
    ///
    /// # Errors
    /// [`Error::Shape`] when the counts differ; [`Error::BadWeight`] for a negative or
    /// non-finite frequency; a non-finite vector value; an empty, duplicate or
    /// whitespace-holding word (see [`WordVectors::new`]).
    pub fn new(words: Vec<String>, freqs: Vec<f64>, vectors: Embeddings) -> Result<Self> {
        if words.len() != freqs.len() || words.len() != vectors.len() {
            return Err(Error::Shape(format!(
                "{} words, {} frequencies and {} vectors",
                words.len(),
                freqs.len(),
                vectors.len()
            )));
        }
        Self::with_freqs(WordVectors::new(words, vectors)?, freqs)
    }

    /// Word vectors with one frequency per word.
    fn with_freqs(vectors: WordVectors, freqs: Vec<f64>) -> Result<Self> {
        if let Some(index) = freqs.iter().position(|f| !(f.is_finite() && *f >= 0.0)) {
            return Err(Error::BadWeight {
                side: "vocabulary",
                index,
                value: freqs[index],
            });
        }
        vectors.vectors().check_finite()?;
        Ok(Self { vectors, freqs })
    }

    /// Load the first `limit` words of a `.vec` file (all without a limit) and their
    /// frequencies from a `word<TAB>count` file, which must list every one of these words.
    ///
    /// # Errors
    /// As [`read_vec`] and [`read_frequencies`]; a word of the `.vec` file missing from the
    /// frequency file (naming the word and both files).
    pub fn load(
        vec_path: impl AsRef<Path>,
        freq_path: impl AsRef<Path>,
        limit: Option<usize>,
    ) -> Result<Self> {
        let (vec_path, freq_path) = (vec_path.as_ref(), freq_path.as_ref());
        let wv: WordVectors = read_vec(vec_path, limit)?;
        let freqs: HashMap<String, f64> = read_frequencies(freq_path)?.into_iter().collect();
        let f = wv
            .words()
            .iter()
            .map(|w| {
                freqs.get(w).copied().ok_or_else(|| {
                    Error::Invalid(format!(
                        "word {w:?} of {} has no frequency in {}",
                        vec_path.display(),
                        freq_path.display()
                    ))
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        Self::with_freqs(wv, f)
    }

    /// The first `k` words (the most frequent ones when the files are sorted by frequency).
    #[must_use]
    pub fn head(&self, k: usize) -> Self {
        let k = k.min(self.len());
        let words = self.words()[..k].to_vec();
        let vectors = self.vectors().slice_rows(0..k).to_owned();
        Self {
            vectors: WordVectors::new(words, vectors).expect("a prefix of valid word vectors"),
            freqs: self.freqs[..k].to_vec(),
        }
    }

    /// The words.
    #[must_use]
    pub fn words(&self) -> &[String] {
        self.vectors.words()
    }

    /// Their frequencies.
    #[must_use]
    pub fn freqs(&self) -> &[f64] {
        &self.freqs
    }

    /// Their embeddings.
    #[must_use]
    pub fn vectors(&self) -> EmbeddingsView<'_> {
        self.vectors.vectors().view()
    }

    /// The words and their embeddings.
    #[must_use]
    pub fn word_vectors(&self) -> &WordVectors {
        &self.vectors
    }

    /// Number of words.
    #[must_use]
    pub fn len(&self) -> usize {
        self.freqs.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.freqs.is_empty()
    }
}

/// The result of translating a vocabulary with the Earth Mover's Distance.
#[derive(Debug, Clone)]
pub struct EmdTranslation {
    /// The optimal transport between the vocabularies (sources are rows, targets columns).
    pub transport: Transport,
    /// For each source word, the targets it received mass from, by mass (largest first).
    pub proposals: Proposals,
}

/// Translate every word of `src` into `tgt` with the Earth Mover's Distance: frequencies are
/// the masses, Euclidean distances between embeddings the costs, the partial form of Zhang et
/// al. (Eq. 1) moves all of the lighter side (normally the source words); a source word's
/// translations are the targets its mass comes from.
///
/// Memory: the `|src| × |tgt|` cost matrix in `f64` (320 MB for 4000 × 10000 words) plus the
/// network simplex's working copy of it (another 320 MB); the `f32` similarities it is made
/// from (160 MB) are freed before the solve.
///
/// # Errors
/// [`Error::Shape`] for different dimensions; [`Error::ZeroMass`] when a side has no
/// frequency mass; the solver's errors.
pub fn emd_translate(
    src: &Vocabulary,
    tgt: &Vocabulary,
    solver: &mut dyn TransportSolver,
) -> Result<EmdTranslation> {
    let sims = cosine_similarities(src.vectors(), tgt.vectors())?;
    let norms = |v: EmbeddingsView<'_>| -> Vec<f64> {
        v.rows()
            .map(|r| r.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>())
            .collect()
    };
    let (ns, nt) = (norms(src.vectors()), norms(tgt.vectors()));
    // ‖x − y‖² = ‖x‖² + ‖y‖² − 2‖x‖‖y‖ cos(x, y).
    let m = tgt.len();
    let cost: Vec<f64> = sims
        .chunks_exact(m)
        .zip(&ns)
        .flat_map(|(row, &sx)| {
            row.iter().zip(&nt).map(move |(&c, &sy)| {
                (sx + sy - 2.0 * (sx * sy).sqrt() * f64::from(c))
                    .max(0.0)
                    .sqrt()
            })
        })
        .collect();
    drop(sims);
    let problem = Problem::new(
        src.freqs(),
        tgt.freqs(),
        CostMatrix::new(&cost, src.len(), m)?,
    )?
    .partial();
    let transport = solver.solve(&problem)?;
    let mut lists = vec![Vec::new(); src.len()];
    for f in &transport.plan {
        lists[f.src].push((f.tgt, f.mass));
    }
    Ok(EmdTranslation {
        transport,
        proposals: Proposals::new(lists),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetworkSimplex;

    fn vocab(words: &[&str], freqs: &[f64], vecs: &[[f32; 2]]) -> Vocabulary {
        Vocabulary::new(
            words.iter().map(|w| (*w).to_string()).collect(),
            freqs.to_vec(),
            Embeddings::from_rows(vecs.iter().copied(), 2).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn emd_resolves_what_nearest_neighbour_gets_wrong() {
        // Zhang et al., Figure 1: "music" is the nearest neighbour of both source words, but
        // its mass only fills "yinyue"; "wudao" must take "dance".
        let src = vocab(
            &["yinyue", "wudao"],
            &[10.0, 10.0],
            &[[0.0, 0.0], [1.0, 0.0]],
        );
        let tgt = vocab(
            &["music", "dance"],
            &[10.0, 11.0],
            &[[0.45, 0.1], [1.5, 1.0]],
        );
        let nn = crate::retrieval::nearest_neighbours(src.vectors(), tgt.vectors(), 1).unwrap();
        assert_eq!((nn.get(0)[0].0, nn.get(1)[0].0), (0, 0));
        let e = emd_translate(&src, &tgt, &mut NetworkSimplex::default()).unwrap();
        assert_eq!(e.proposals.get(0)[0].0, 0);
        assert_eq!(e.proposals.get(1)[0].0, 1);
        assert!((e.transport.mass - 20.0).abs() < 1e-9);
    }

    #[test]
    fn a_frequent_word_splits_into_several_translations() {
        // One source word as frequent as two target words together gets both.
        let src = vocab(&["haus"], &[20.0], &[[0.0, 0.0]]);
        let tgt = vocab(
            &["house", "home", "tree"],
            &[12.0, 9.0, 30.0],
            &[[0.1, 0.0], [0.0, 0.2], [3.0, 3.0]],
        );
        let e = emd_translate(&src, &tgt, &mut NetworkSimplex::default()).unwrap();
        let got: Vec<usize> = e.proposals.get(0).iter().map(|p| p.0).collect();
        assert_eq!(got, vec![0, 1]);
        assert!((e.proposals.get(0)[1].1 - 8.0).abs() < 1e-9);
    }

    #[test]
    fn frequency_files_and_loading() {
        let d = tempfile::tempdir().unwrap();
        let vec = d.path().join("w.vec");
        std::fs::write(&vec, "2 2\nder 1 0\ndie 0 1\n").unwrap();
        let freq = d.path().join("w.freq");
        std::fs::write(&freq, "die\t5\nder\t7\n").unwrap();
        let v = Vocabulary::load(&vec, &freq, None).unwrap();
        assert_eq!(v.freqs(), &[7.0, 5.0]);
        assert_eq!(v.head(1).words(), &["der".to_string()]);
        for (content, want) in [
            ("der 5\n", "w.freq:1: missing tab: expected word<TAB>count"),
            ("der\t-1\n", "w.freq:1: count -1"),
            ("der\tx\n", "w.freq:1: count \"x\""),
            (
                "der\t1\nder\t2\n",
                "w.freq:2: duplicate word \"der\" (first on line 1)",
            ),
            ("", "w.freq: file is empty"),
        ] {
            std::fs::write(&freq, content).unwrap();
            let e = read_frequencies(&freq).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        std::fs::write(&freq, "der\t1\n").unwrap();
        let e = Vocabulary::load(&vec, &freq, None).unwrap_err().to_string();
        assert!(e.contains("\"die\"") && e.contains("no frequency"), "{e}");
        assert!(
            Vocabulary::new(
                vec!["a".into()],
                vec![f64::NAN],
                Embeddings::zeros(1, 2).unwrap()
            )
            .is_err()
        );
    }
}
