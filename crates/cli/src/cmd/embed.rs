//! `bitext embed`: sentence embeddings, written as raw little-endian f32/f16 (LASER's format)
//! or `.npy` — with the bag-of-words encoder (`--vectors`: the mean, optionally TF-IDF
//! weighted, of the `.vec` word vectors of a sentence's words) or a trained neural model
//! (`--model DIR`, written by `bitext train`). The flags make a `bitext_encode::EncoderSpec`,
//! from which the encoder is built.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use bitext_core::io::AtomicFile;
use bitext_encode::{
    BowSpec, EncoderSpec, ModelSpec, NoKnownWord, SentenceEncoder, Side, Weighting,
};
use bitext_tokenize::{SequenceConfig, TokenizerSpec};
use clap::{ArgGroup, Args, ValueEnum};

use crate::flags::BadLinesArgs;
use crate::input::{
    Sentences, TextFormat, check_embeddings_output, progress_bar, write_embeddings,
};
use crate::run::{RejectSink, Streamed};

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

/// What `--bad-lines` says in `bitext embed --help`.
const BAD_LINES: &str = "An input line that cannot be read (not UTF-8, empty; BUCC input: not \
    `id<TAB>sentence`, an empty id, a duplicate id): `error` stops, naming the file, line and \
    reason; `skip` leaves it out, writes it to --rejects and counts it on standard error. The \
    output then has one row per line kept, in order: the rejects file's line numbers say which \
    lines have no row";

/// Arguments of `bitext embed`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("sided").args(["model", "encoder"])))]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(BAD_LINES)))]
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
        required_unless_present_any = ["model", "encoder"],
        conflicts_with = "model"
    )]
    vectors: Option<PathBuf>,
    /// Neural encoder: a model directory written by `bitext train` (a siamese classifier, an
    /// autoencoder, an aligner, or an MLP whose encoder is used).
    #[arg(long, value_name = "DIR")]
    #[cfg_attr(
        not(feature = "neural"),
        arg(help = "Neural encoder (not in this build: needs the cargo feature `neural`)")
    )]
    model: Option<PathBuf>,
    /// With --model or --encoder: which language the input is in.
    #[arg(long, value_enum, default_value_t = SideArg::Source, requires = "sided")]
    side: SideArg,
    /// With --model: burn backend (flex, ndarray, wgpu, cuda; the last three need cargo features).
    #[arg(long, value_enum, default_value_t = crate::flags::Backend::Flex, requires = "model")]
    backend: crate::flags::Backend,
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
    #[arg(long, requires = "vectors", conflicts_with = "spm")]
    keep_case: bool,
    /// Subword bag of words: look up the pieces of this sentencepiece model (HTML entities
    /// unescaped first) in --vectors, a `.vec` file keyed by its pieces (e.g.
    /// `usem.spm128k.vec` with `use-multilingual-v3-128k.model`), instead of words.
    #[arg(long, value_name = "MODEL", requires = "vectors")]
    spm: Option<PathBuf>,
    /// Write a zero row for a sentence with nothing to encode, and list it, instead of failing:
    /// for the bag of words a sentence with no word in the vocabulary; for --model and the
    /// --encoder kinds `model:` and `onnx:` a sentence its tokenizer gives no token at all
    /// (`&nbsp;&nbsp;` for a word vocabulary, characters a sentencepiece model drops; unknown
    /// words are `<unk>` tokens, and a tokenizer that adds special tokens gives every sentence
    /// some). The same as `"no_known_word": "zero"` in an --encoder spec.
    #[arg(long)]
    zero_unknown: bool,
    /// Write the 1-based line numbers of the sentences given zero rows here (--zero-unknown,
    /// or a spec's `"no_known_word": "zero"`).
    #[arg(long, value_name = "FILE")]
    unknown_list: Option<PathBuf>,
    /// The encoder as a spec instead of --vectors/--model and their options: `bow:FILE`,
    /// `model:DIR`, `onnx:FILE` (a pretrained ONNX graph; ONNX Runtime beside the binary, else
    /// from $BITEXT_ONNXRUNTIME), `hf:ORG/NAME[@REVISION]` (an ONNX export in the Hugging Face
    /// cache: `bitext encoders`), or JSON (`{"type": "bow", "vectors": FILE, "weighting": "tf_idf", …}`;
    /// every kind takes `"no_known_word": "zero"`, as --zero-unknown).
    #[arg(long, value_name = "SPEC")]
    #[arg(conflicts_with_all = ["vectors", "model", "max_words", "tfidf", "keep_case", "spm"])]
    encoder: Option<EncoderSpec>,
    /// Output: `.npy` by extension, raw little-endian (LASER) otherwise.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// Write raw float16 instead of float32 (raw output only).
    #[arg(long)]
    fp16: bool,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
}

pub(crate) fn run(a: &EmbedArgs) -> Result<()> {
    crate::run::check_outputs([Some(a.output.as_path()), a.unknown_list.as_deref()])?;
    let mut spec = encoder_spec(a)?;
    if a.zero_unknown {
        spec = spec.with_no_known_word(NoKnownWord::Zero);
    }
    check_embeddings_output(&a.output, a.fp16)?;
    let mut rejects = RejectSink::new(&a.bad)?;
    // The bag's coverage of the input, or what the encoder measured (ONNX sessions).
    let (done, dim, note) = if spec.reads_input() {
        embed_bow(a, &spec)?
    } else {
        let encoder = crate::build::encoder(&spec, None::<&[&str]>)?;
        let done = crate::run::encode_streaming(
            &*encoder,
            &a.input,
            a.text_format,
            Side::from(a.side),
            (a.output.as_path(), a.fp16),
            a.quiet.quiet,
            a.bad.bad_lines(),
        )?;
        (done, encoder.dim(), encoder.tuning())
    };
    let secs = done.secs;
    eprintln!(
        "embedded {} sentences ({dim} dimensions) into {} ({:.0} sentences/s over {secs:.2} \
         s of encoding)",
        done.rows,
        a.output.display(),
        done.rows as f64 / secs.max(1e-9)
    );
    if let Some(c) = note {
        eprintln!("{c}");
    }
    rejects.add(&done.rejected)?;
    rejects.finish(&a.input)?;
    report_zero_rows(a, &spec, &done.zero_lines)
}

/// The bag of words (every other encoder streams): its IDF is counted over the input, and its
/// coverage of the input said. What it did, the dimension, and the coverage in words.
fn embed_bow(a: &EmbedArgs, spec: &EncoderSpec) -> Result<(Streamed, usize, Option<String>)> {
    let (input, rejected) = Sentences::read_skipping(&a.input, a.text_format, a.bad.bad_lines())?;
    if input.len() == 0 {
        bail!("{}: no sentences", a.input.display());
    }
    let encoder = spec.build_bow(Some(&input.sentences))?;
    let side = Side::from(a.side);
    let bar = progress_bar(input.len(), "embedding", a.quiet.quiet);
    let mut out = bitext_core::Embeddings::with_capacity(encoder.dim(), input.len())?;
    let mut zero_lines = Vec::new();
    let (mut tokens, mut known) = (0usize, 0usize);
    const CHUNK: usize = 4096;
    let started = std::time::Instant::now();
    for (c, chunk) in input.sentences.chunks(CHUNK).enumerate() {
        let lines = &input.lines[c * CHUNK..];
        let (e, cov) = encoder
            .encode_with_coverage(side, chunk)
            .map_err(|e| no_known_word(a, spec, lines, e))?;
        zero_lines.extend(cov.no_known_word.iter().map(|&i| lines[i]));
        tokens += cov.tokens;
        known += cov.known;
        out.extend_from_view(e.view())?;
        bar.set_position(out.len() as u64);
    }
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    write_embeddings(&a.output, &out, a.fp16)?;
    let coverage = format!(
        "coverage: {known} of {tokens} tokens ({:.2}%) have a vector",
        100.0 * known as f64 / tokens.max(1) as f64
    );
    let done = Streamed {
        rows: out.len(),
        secs,
        rejected,
        zero_lines,
    };
    Ok((done, out.dim(), Some(coverage)))
}

/// Say which sentences got zero rows (the lines `zero`), and list them in --unknown-list.
fn report_zero_rows(a: &EmbedArgs, spec: &EncoderSpec, zero: &[usize]) -> Result<()> {
    if !zero.is_empty() {
        let first: Vec<String> = zero.iter().take(10).map(ToString::to_string).collect();
        eprintln!(
            "{} sentences had {} and got zero rows (lines {}{})",
            zero.len(),
            if spec.reads_input() {
                "no known word"
            } else {
                "no token"
            },
            first.join(", "),
            if zero.len() > 10 { ", …" } else { "" }
        );
    }
    if let Some(p) = &a.unknown_list {
        let mut f = AtomicFile::create_text(p)?;
        for l in zero {
            writeln!(f, "{l}").map_err(|e| f.err(e))?;
        }
        f.commit()?;
    }
    Ok(())
}

/// The encoder spec of the flags: `--encoder SPEC`, `--model DIR` (with `--backend`), or
/// `--vectors FILE` with the bag-of-words options.
fn encoder_spec(a: &EmbedArgs) -> Result<EncoderSpec> {
    if let Some(spec) = &a.encoder {
        return Ok(spec.clone());
    }
    Ok(match (&a.model, &a.vectors) {
        (Some(dir), _) => EncoderSpec::from(ModelSpec {
            backend: a.backend.spec(),
            ..ModelSpec::new(dir)
        }),
        (None, Some(vectors)) => EncoderSpec::from(BowSpec {
            max_words: a.max_words,
            lowercase: !a.keep_case,
            pieces: a.spm.as_ref().map(|model| TokenizerSpec::Sentencepiece {
                model: model.clone(),
                sequence: SequenceConfig::default(),
            }),
            weighting: if a.tfidf {
                Weighting::TfIdf
            } else {
                Weighting::Mean
            },
            idf_corpus: a.idf_corpus.clone(),
            ..BowSpec::new(vectors)
        }),
        (None, None) => bail!("give --vectors FILE (bag of words) or --model DIR (neural)"),
    })
}

/// The error of a sentence without a known word, naming its line (`lines`: the line of each
/// sentence of the chunk).
fn no_known_word(
    a: &EmbedArgs,
    spec: &EncoderSpec,
    lines: &[usize],
    e: bitext_encode::Error,
) -> anyhow::Error {
    match (e, spec.as_bow()) {
        (
            bitext_encode::Error::NoKnownWord {
                index, sentence, ..
            },
            Some(b),
        ) => {
            anyhow::anyhow!(
                "{}:{}: no word of the sentence is in the vocabulary of {} (use \
                 --zero-unknown to write a zero row and list it): {sentence:?}",
                a.input.display(),
                lines.get(index).copied().unwrap_or(index + 1),
                b.vectors.display()
            )
        }
        (other, _) => crate::run::unencodable(other, &a.input, lines),
    }
}
