//! Mine translation pairs from two piles of sentences: encode them with the bag-of-words
//! encoder (mean of bilingual word vectors), search the nearest neighbours both ways, score
//! candidates with a margin, retrieve pairs, and — when gold pairs are known — report
//! precision, recall and F1 (BUCC protocol).
//!
//! With no arguments it mines the built-in German–English sample in `examples/data/` (103 German,
//! 102 English sentences written for bitext, 80 of them translations, and word vectors for them):
//!
//! ```sh
//! cargo run --release --example mine_bucc
//! ```
//!
//! On real data (BUCC sentence files, `.vec` word vectors, a gold file):
//!
//! ```sh
//! cargo run --release --example mine_bucc -- \
//!     --src ../shared/data/dev/bucc-style/de-en.newsdev.de \
//!     --trg ../shared/data/dev/bucc-style/de-en.newsdev.en \
//!     --src-vec ../shared/data/bwe/usem.de.vec --trg-vec ../shared/data/bwe/usem.en.vec \
//!     --gold ../shared/data/dev/bucc-style/de-en.newsdev.gold
//! ```
//!
//! or on precomputed embeddings (`--src-embeddings`, `--trg-embeddings`, raw f32 with `--dim`
//! or `.npy`), where `--src`/`--trg` only name the rows.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext::core::io::bucc::{BuccSentences, read_bucc_gold, read_bucc_sentences};
use bitext::core::io::tsv::{MinedPair, write_mined_pairs};
use bitext::core::io::vec::WordVectors;
use bitext::core::{Embeddings, MappedEmbeddings};
use bitext::encode::{BowEncoder, NoKnownWord, Side};
use bitext::eval::bucc::GoldSet;
use bitext::mine::{MineSpec, Miner, Retrieval, Threshold};
use bitext::similarity::{MarginFunction, MarginSpec};
use clap::Parser;

/// Mine translation pairs with a bag-of-words encoder and margin scoring.
#[derive(Debug, Parser)]
struct Args {
    /// Source sentences, BUCC format (`id<TAB>sentence`).
    #[arg(long, requires = "trg")]
    src: Option<PathBuf>,
    /// Target sentences, BUCC format.
    #[arg(long, requires = "src")]
    trg: Option<PathBuf>,
    /// Source-language word vectors (`.vec`).
    #[arg(long, requires = "trg_vec")]
    src_vec: Option<PathBuf>,
    /// Target-language word vectors (`.vec`).
    #[arg(long, requires = "src_vec")]
    trg_vec: Option<PathBuf>,
    /// Precomputed source embeddings (raw f32 with --dim, or `.npy`) instead of encoding.
    #[arg(long, requires = "trg_embeddings", conflicts_with = "src_vec")]
    src_embeddings: Option<PathBuf>,
    /// Precomputed target embeddings.
    #[arg(long, requires = "src_embeddings")]
    trg_embeddings: Option<PathBuf>,
    /// Dimension of raw embedding files.
    #[arg(long)]
    dim: Option<usize>,
    /// Gold pairs (`src_id<TAB>tgt_id`): report P/R/F1.
    #[arg(long)]
    gold: Option<PathBuf>,
    /// Weight words by TF-IDF (IDF over each side's sentences).
    #[arg(long)]
    tfidf: bool,
    /// Margin: absolute (cosine), distance, ratio or csls.
    #[arg(long, default_value = "ratio")]
    margin: String,
    /// Neighbourhood size.
    #[arg(short, default_value_t = 4)]
    k: usize,
    /// Retrieval: fwd, bwd, intersect or max.
    #[arg(long, default_value = "max")]
    retrieval: String,
    /// Keep pairs with score > X.
    #[arg(long, allow_negative_numbers = true)]
    threshold: Option<f64>,
    /// Write the mined pairs (`score<TAB>src_id<TAB>tgt_id`) here.
    #[arg(long)]
    output: Option<PathBuf>,
}

fn main() -> Result<()> {
    let a = Args::parse();
    let (src, trg, gold) = match (&a.src, &a.trg) {
        (Some(s), Some(t)) => (
            read_bucc_sentences(s)?,
            read_bucc_sentences(t)?,
            a.gold
                .as_ref()
                .map(read_bucc_gold)
                .transpose()?
                .map(|g| g.pairs().to_vec()),
        ),
        _ => {
            if a.gold.is_some() || a.src_embeddings.is_some() {
                bail!("--gold and --src-embeddings need --src and --trg sentence files");
            }
            let (s, t, g) = sample::corpus()?;
            (s, t, Some(g))
        }
    };
    // Embeddings: precomputed, or encoded with word vectors (given, or the built-in sample's).
    let (x, y, src_rows, trg_rows) =
        if let (Some(se), Some(te)) = (&a.src_embeddings, &a.trg_embeddings) {
            let (xm, ym) = (
                MappedEmbeddings::open(se, a.dim)?,
                MappedEmbeddings::open(te, a.dim)?,
            );
            for (m, s) in [(&xm, &src), (&ym, &trg)] {
                if m.len() != s.len() {
                    bail!(
                        "{} has {} rows but {} has {} sentences",
                        m.path().display(),
                        m.len(),
                        s.path().display(),
                        s.len()
                    );
                }
            }
            let rows = |n: usize| (0..n).collect::<Vec<_>>();
            (
                xm.view().to_owned(),
                ym.view().to_owned(),
                rows(src.len()),
                rows(trg.len()),
            )
        } else {
            let (sv, tv) = match (&a.src_vec, &a.trg_vec) {
                (Some(s), Some(t)) => (
                    bitext::core::io::vec::read_vec(s, None)?,
                    bitext::core::io::vec::read_vec(t, None)?,
                ),
                _ => sample::word_vectors()?,
            };
            let mut b = BowEncoder::builder(sv, tv).no_known_word(NoKnownWord::Zero);
            if a.tfidf {
                b = b.tfidf(src.sentences(), trg.sentences());
            }
            let enc = b.build()?;
            let (x, xs) = encode(&enc, Side::Source, &src)?;
            let (y, ys) = encode(&enc, Side::Target, &trg)?;
            (x, y, xs, ys)
        };
    let f: MarginFunction = a.margin.parse()?;
    let r: Retrieval = a.retrieval.parse()?;
    let mut miner = Miner::new(MarginSpec::new(f, a.k)).retrieval(r);
    if let Some(value) = a.threshold {
        miner = miner.threshold(Threshold::Above { value });
    }
    let t = std::time::Instant::now();
    let pairs = MineSpec::new(miner).mine(x.view(), y.view(), &mut |_, _, _| {})?;
    println!(
        "{} × {} sentences, {} margin, k = {}, {} retrieval: {} pairs in {:.2} s",
        x.len(),
        y.len(),
        f.name(),
        a.k,
        r.name(),
        pairs.len(),
        t.elapsed().as_secs_f64()
    );
    let mined: Vec<MinedPair> = pairs
        .iter()
        .map(|p| MinedPair {
            score: p.score,
            src: src.id(src_rows[p.src]).to_owned(),
            tgt: trg.id(trg_rows[p.tgt]).to_owned(),
        })
        .collect();
    for m in mined.iter().take(8) {
        let (s, t) = (
            src.index_of(&m.src).context("id")?,
            trg.index_of(&m.tgt).context("id")?,
        );
        println!(
            "{:8.4}  {}  |  {}",
            m.score,
            short(src.sentence(s)),
            short(trg.sentence(t))
        );
    }
    if let Some(g) = gold {
        let gold = GoldSet::new(g)?;
        let cands: Vec<(f64, String, String)> = mined
            .iter()
            .map(|m| (m.score, m.src.clone(), m.tgt.clone()))
            .collect();
        let all = gold.at_threshold(&cands, f64::NEG_INFINITY)?;
        println!("all mined pairs:   {all}");
        match gold.best_threshold(&cands)? {
            Some(b) => println!("best threshold {:.4}: {}", b.threshold, b.prf),
            None => println!("no mined pair is a gold pair"),
        }
    }
    if let Some(out) = &a.output {
        write_mined_pairs(out, &mined)?;
        println!("wrote {}", out.display());
    }
    Ok(())
}

/// Encode one side; sentences without a known word are left out (and reported).
fn encode(enc: &BowEncoder, side: Side, s: &BuccSentences) -> Result<(Embeddings, Vec<usize>)> {
    let (e, cov) = enc.encode_with_coverage(side, s.sentences())?;
    if !cov.no_known_word.is_empty() {
        let ids: Vec<&str> = cov.no_known_word.iter().take(5).map(|&i| s.id(i)).collect();
        eprintln!(
            "{side}: {} sentences have no known word and are left out (first: {})",
            cov.no_known_word.len(),
            ids.join(", ")
        );
    }
    let rows: Vec<usize> = (0..s.len())
        .filter(|i| cov.no_known_word.binary_search(i).is_err())
        .collect();
    Ok((
        Embeddings::from_rows(rows.iter().map(|&i| e.row(i)), e.dim())?,
        rows,
    ))
}

fn short(s: &str) -> String {
    let mut t: String = s.chars().take(48).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

/// The built-in sample (`examples/data/`, made by `make_sample.py` there): 103 German and 102
/// English sentences written for bitext, 80 of them translations of each other and the rest
/// unpaired sentences on the same topics, in the BUCC format with a gold file; and word vectors
/// for every word of each side (Universal Sentence Encoder Multilingual's vector of the word
/// alone, both languages projected onto their top 64 principal directions).
mod sample {
    use super::*;

    fn path(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("examples/data")
            .join(name)
    }

    /// Source sentences, target sentences and gold id pairs.
    type Corpus = (BuccSentences, BuccSentences, Vec<(String, String)>);

    pub(super) fn corpus() -> Result<Corpus> {
        Ok((
            read_bucc_sentences(path("sample.de"))?,
            read_bucc_sentences(path("sample.en"))?,
            read_bucc_gold(path("sample.gold"))?.pairs().to_vec(),
        ))
    }

    pub(super) fn word_vectors() -> Result<(WordVectors, WordVectors)> {
        Ok((
            bitext::core::io::vec::read_vec(path("sample.de.vec"), None)?,
            bitext::core::io::vec::read_vec(path("sample.en.vec"), None)?,
        ))
    }
}
