//! `bitext embed`: sentence embeddings, written as raw little-endian f32/f16 (LASER's format)
//! or `.npy` — with the bag-of-words encoder (`--vectors`: the mean, optionally TF-IDF
//! weighted, of the `.vec` word vectors of a sentence's words) or a trained neural model
//! (`--model DIR`, written by `bitext train`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_core::io::AtomicFile;
use bitext_core::io::vec::read_vec;
use bitext_encode::{BowEncoder, Idf, NoKnownWord, Side};
use bitext_tokenize::{WordConfig, WordTokenizer};
use clap::{Args, ValueEnum};

use crate::input::{
    Sentences, TextFormat, check_embeddings_output, progress_bar, write_embeddings,
};

/// A side on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SideArg {
    /// The source language (the first language of the training pairs).
    Source,
    /// The target language.
    Target,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::Source => Side::Source,
            SideArg::Target => Side::Target,
        }
    }
}

/// Arguments of `bitext embed`.
#[derive(Debug, Args)]
pub(crate) struct EmbedArgs {
    /// Sentences: BUCC `id<TAB>sentence` or plain text, one per line.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Layout of --input (auto: BUCC when the first line holds a tab).
    #[arg(long, value_enum, default_value_t = TextFormat::Auto)]
    text_format: TextFormat,
    /// Bag-of-words encoder: word vectors of the input's language (fastText/MUSE `.vec`, in a
    /// space shared with the other language's vectors).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "model",
        conflicts_with = "model"
    )]
    vectors: Option<PathBuf>,
    /// Neural encoder: a model directory written by `bitext train` (a siamese classifier, or an
    /// MLP whose encoder is used).
    #[arg(long, value_name = "DIR")]
    #[cfg_attr(
        not(feature = "neural"),
        arg(help = "Neural encoder (not in this build: needs the cargo feature `neural`)")
    )]
    model: Option<PathBuf>,
    /// With --model: which language the input is in.
    #[arg(long, value_enum, default_value_t = SideArg::Source, requires = "model")]
    // Parsed in every build, so that the flags do not depend on cargo features; read only by
    // the neural encoder.
    #[cfg_attr(not(feature = "neural"), allow(dead_code))]
    side: SideArg,
    /// With --model: burn backend (flex, ndarray, wgpu; the last two need cargo features).
    #[arg(long, default_value = "flex", requires = "model")]
    #[cfg_attr(not(feature = "neural"), allow(dead_code))]
    backend: String,
    /// Read only the first N words of --vectors (the most frequent, in fastText/MUSE files).
    #[arg(long, value_name = "N", requires = "vectors")]
    max_words: Option<usize>,
    /// Weight words by TF-IDF instead of the plain mean.
    #[arg(long, requires = "vectors")]
    tfidf: bool,
    /// Reference corpus of the IDF (same layouts as --input; default: the input itself).
    #[arg(long, value_name = "FILE", requires = "tfidf")]
    idf_corpus: Option<PathBuf>,
    /// Keep tokens' case (the default lowercases, as `.vec` vocabularies usually are).
    #[arg(long, requires = "vectors")]
    keep_case: bool,
    /// Write a zero row for a sentence with no word in the vocabulary (and list it) instead of
    /// failing.
    #[arg(long, requires = "vectors")]
    zero_unknown: bool,
    /// With --zero-unknown: write the 1-based line numbers of those sentences here.
    #[arg(long, value_name = "FILE", requires = "zero_unknown")]
    unknown_list: Option<PathBuf>,
    /// Output: `.npy` by extension, raw little-endian (LASER) otherwise.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// Write raw float16 instead of float32 (raw output only).
    #[arg(long)]
    fp16: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub(crate) fn run(a: &EmbedArgs) -> Result<()> {
    match (&a.model, &a.vectors) {
        (Some(model), _) => run_model(a, model),
        (None, Some(vectors)) => run_bow(a, vectors),
        (None, None) => bail!("give --vectors FILE (bag of words) or --model DIR (neural)"),
    }
}

/// Embeddings from a trained neural model.
#[cfg(feature = "neural")]
fn run_model(a: &EmbedArgs, dir: &Path) -> Result<()> {
    use bitext_encode::SentenceEncoder;

    crate::cmd::neural::start_neural_command();
    check_embeddings_output(&a.output, a.fp16)?;
    let backend = bitext_neural::backend::BackendSpec::parse(&a.backend)?;
    let model = crate::cmd::neural::load(dir, backend)?;
    let input = Sentences::read(&a.input, a.text_format)
        .with_context(|| format!("reading {}", a.input.display()))?;
    let refs: Vec<&str> = input.sentences.iter().map(String::as_str).collect();
    let pb = progress_bar(refs.len(), "embedding", a.quiet);
    let e = model
        .encoder()
        .encode_with_progress(a.side.into(), &refs, &mut |n| pb.set_position(n as u64))
        .with_context(|| format!("embedding {}", a.input.display()))?;
    pb.finish_and_clear();
    write_embeddings(&a.output, &e, a.fp16)?;
    if !a.quiet {
        eprintln!(
            "embedded {} sentences ({} dimensions) into {}",
            e.len(),
            e.dim(),
            a.output.display()
        );
    }
    Ok(())
}

/// `--model` in a binary without the neural models: the error that says how to get them.
#[cfg(not(feature = "neural"))]
fn run_model(_: &EmbedArgs, _: &Path) -> Result<()> {
    Err(crate::cmd::neural_unavailable("`bitext embed --model`"))
}

/// Embeddings from the bag-of-words encoder.
fn run_bow(a: &EmbedArgs, vec_path: &Path) -> Result<()> {
    check_embeddings_output(&a.output, a.fp16)?;
    let input = Sentences::read(&a.input, a.text_format)
        .with_context(|| format!("reading {}", a.input.display()))?;
    let vectors = read_vec(vec_path, a.max_words)?;
    let mut b = BowEncoder::builder_shared(vectors)
        .lowercase(!a.keep_case)
        .no_known_word(if a.zero_unknown {
            NoKnownWord::Zero
        } else {
            NoKnownWord::Error
        });
    if a.tfidf {
        let tok = WordTokenizer::new(WordConfig {
            lowercase: !a.keep_case,
            ..WordConfig::default()
        });
        let idf = match &a.idf_corpus {
            Some(p) => {
                let r = Sentences::read(p, a.text_format)
                    .with_context(|| format!("reading {}", p.display()))?;
                Idf::from_sentences(&tok, &r.sentences)?
            }
            None => Idf::from_sentences(&tok, &input.sentences)?,
        };
        b = b.tfidf_from(idf.clone(), idf);
    }
    let enc = b.build()?;
    let bar = progress_bar(input.len(), "embedding", a.quiet);
    let mut out =
        bitext_core::Embeddings::with_capacity(enc.vectors(Side::Source).dim(), input.len())?;
    let mut missing = Vec::new();
    const CHUNK: usize = 4096;
    for (c, chunk) in input.sentences.chunks(CHUNK).enumerate() {
        let (e, cov) = enc
            .encode_with_coverage(Side::Source, chunk)
            .map_err(|e| match e {
                bitext_encode::Error::NoKnownWord {
                    index, sentence, ..
                } => anyhow::anyhow!(
                    "{}:{}: no word of the sentence is in the vocabulary of {} (use \
                     --zero-unknown to write a zero row and list it): {sentence:?}",
                    a.input.display(),
                    c * CHUNK + index + 1,
                    vec_path.display()
                ),
                other => other.into(),
            })?;
        missing.extend(cov.no_known_word.iter().map(|i| c * CHUNK + i + 1));
        out.extend_from_view(e.view())?;
        bar.set_position(out.len() as u64);
    }
    bar.finish_and_clear();
    write_embeddings(&a.output, &out, a.fp16)?;
    eprintln!(
        "embedded {} sentences ({} dimensions) into {}",
        out.len(),
        out.dim(),
        a.output.display()
    );
    if !missing.is_empty() {
        let first: Vec<String> = missing.iter().take(10).map(ToString::to_string).collect();
        eprintln!(
            "{} sentences had no known word and got zero rows (lines {}{})",
            missing.len(),
            first.join(", "),
            if missing.len() > 10 { ", …" } else { "" }
        );
        if let Some(p) = &a.unknown_list {
            let mut f = AtomicFile::create(p)?;
            for l in &missing {
                writeln!(f, "{l}").map_err(|e| f.err(e))?;
            }
            f.commit()?;
        }
    }
    Ok(())
}
