//! `bitext tokenize`: train a joint sentencepiece model on raw text, and encode or decode text
//! with a sentencepiece `.model`, one line out per line in, as Debian's `spm_encode` /
//! `spm_decode` do.
//!
//! Lines are split on `\n` only (a `\r` stays part of the line, as with `spm_encode`); every
//! line must be UTF-8 (an error names the file and line: `spm_encode` would substitute U+FFFD
//! instead). An empty line gives an empty output line, as with `spm_encode`, unless
//! `--empty error`.

use std::fmt::Write as _;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use bitext_core::Location;
use bitext_core::io::AtomicFile;
use bitext_core::io::rejects::{BadLines, Rejected};
use bitext_core::io::text::{EmptyLines, read_lines_skipping};
use bitext_tokenize::{
    Error as TokError, ModelType, Normalization, Sentencepiece, SequenceConfig, SubwordTrainer,
    Tokenizer,
};
use clap::{Args, Subcommand, ValueEnum};

use crate::flags::BadLinesArgs;
use crate::run::RejectSink;

/// What `--bad-lines` says in `bitext tokenize train --help`.
const TRAIN_BAD_LINES: &str = "A line of an --input that is not UTF-8: `error` stops, naming the \
    file, line and reason; `skip` leaves it out of the training text, writes it to --rejects \
    (each reason naming its file) and counts it on standard error";

/// What `--bad-lines` says in `bitext tokenize encode --help` and `decode --help`.
const CODE_BAD_LINES: &str = "An input line that is not UTF-8 (with `encode --empty error`, also \
    an empty line): `error` stops, naming the file, line and reason; `skip` leaves it out, writes \
    it to --rejects (each reason naming its file) and counts it on standard error. The output \
    then has one line per line kept, in order: the rejects file's line numbers say which lines \
    have no output line";

/// Tokenization subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum TokenizeCommand {
    /// Train a joint subword model (sentencepiece `.model`) on text files, one sentence per line
    /// and typically one file per language.
    Train(TrainArgs),
    /// Encode text with a sentencepiece model: one line of space-separated ids or pieces per
    /// input line (as `spm_encode --output_format=id|piece`).
    Encode(EncodeArgs),
    /// Decode lines of space-separated ids or pieces back into text (as `spm_decode`).
    Decode(DecodeArgs),
}

/// `unigram` or `bpe` (sentencepiece also trains `word` and `char` models).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModelTypeArg {
    Unigram,
    Bpe,
    Word,
    Char,
}

/// Normalization rules of sentencepiece.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum NormalizationArg {
    NmtNfkc,
    Nfkc,
    NmtNfkcCf,
    NfkcCf,
    Identity,
}

/// Arguments of `bitext tokenize train`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(TRAIN_BAD_LINES)))]
pub(crate) struct TrainArgs {
    /// Training text, one sentence per line; repeat for each language (joint model).
    #[arg(long, value_name = "FILE", required = true)]
    input: Vec<PathBuf>,
    /// Number of pieces, special pieces and language tags included.
    #[arg(long, value_name = "N")]
    vocab_size: usize,
    /// Where to write the model (atomically).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    /// Segmentation algorithm.
    #[arg(long, value_enum, default_value = "unigram")]
    model_type: ModelTypeArg,
    /// Share of characters to cover; rarer ones become `<unk>` (1.0 for small alphabets).
    #[arg(long, value_name = "F", default_value_t = 0.9995)]
    character_coverage: f64,
    /// Text normalization stored in the model.
    #[arg(long, value_enum, default_value = "nmt-nfkc")]
    normalization: NormalizationArg,
    /// Language tag to reserve as a piece `<LANG>` (ids 4, 5, … after `<pad> <unk> <s> </s>`);
    /// repeat or separate with commas.
    #[arg(long, value_name = "LANG", value_delimiter = ',')]
    lang: Vec<String>,
    /// Further user-defined symbol (always one piece); repeatable.
    #[arg(long, value_name = "SYMBOL")]
    user_symbol: Vec<String>,
    /// Train on at most N sentences, sampled with --seed.
    #[arg(long, value_name = "N")]
    max_sentences: Option<usize>,
    /// Take the same number of sentences from every input.
    #[arg(long)]
    balance: bool,
    /// Skip (and count) empty lines instead of failing on them.
    #[arg(long)]
    skip_empty: bool,
    /// Skip (and count) lines longer than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4192)]
    max_sentence_bytes: usize,
    /// Longest piece, in characters.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_piece_len: usize,
    /// Split numbers into digits.
    #[arg(long)]
    split_digits: bool,
    /// Encode unknown characters as bytes instead of `<unk>`.
    #[arg(long)]
    byte_fallback: bool,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Training threads (default: all cores; fix it for reproducible unigram models).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Show sentencepiece's training log.
    #[arg(long)]
    verbose: bool,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

/// Output of `encode` / input of `decode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Id,
    Piece,
}

/// What to do with an empty (or whitespace-only) input line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Empty {
    /// Write an empty output line (as spm_encode).
    Keep,
    /// Fail, naming the file and line.
    Error,
}

/// Input and output files shared by `encode` and `decode`.
#[derive(Debug, Args)]
struct Io {
    /// The sentencepiece model.
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    /// Input file (repeatable, read in order; default: standard input).
    #[arg(long, value_name = "FILE")]
    input: Vec<PathBuf>,
    /// Output file, written atomically (default: standard output).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    bad: BadLinesArgs,
}

/// Arguments of `bitext tokenize encode`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(CODE_BAD_LINES)))]
pub(crate) struct EncodeArgs {
    #[command(flatten)]
    io: Io,
    /// Write ids or pieces.
    #[arg(long, value_enum, default_value = "id")]
    output_format: Format,
    /// Empty input lines: keep (empty output line) or error.
    #[arg(long, value_enum, default_value = "keep")]
    empty: Empty,
    /// Put `<s>` first (as spm_encode --extra_options=bos).
    #[arg(long)]
    add_bos: bool,
    /// Put `</s>` last (as spm_encode --extra_options=eos).
    #[arg(long)]
    add_eos: bool,
    /// Keep at most N tokens per line, `<s>` and `</s>` included (always kept).
    #[arg(long, value_name = "N")]
    max_len: Option<usize>,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

/// Arguments of `bitext tokenize decode`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(CODE_BAD_LINES)))]
pub(crate) struct DecodeArgs {
    #[command(flatten)]
    io: Io,
    /// Read ids or pieces.
    #[arg(long, value_enum, default_value = "id")]
    input_format: Format,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

pub(crate) fn run(cmd: TokenizeCommand) -> Result<()> {
    match cmd {
        TokenizeCommand::Train(a) => train(a),
        TokenizeCommand::Encode(a) => encode(&a),
        TokenizeCommand::Decode(a) => decode(&a),
    }
}

fn train(a: TrainArgs) -> Result<()> {
    let model_type = match a.model_type {
        ModelTypeArg::Unigram => ModelType::Unigram,
        ModelTypeArg::Bpe => ModelType::Bpe,
        ModelTypeArg::Word => ModelType::Word,
        ModelTypeArg::Char => ModelType::Char,
    };
    let normalization = match a.normalization {
        NormalizationArg::NmtNfkc => Normalization::NmtNfkc,
        NormalizationArg::Nfkc => Normalization::Nfkc,
        NormalizationArg::NmtNfkcCf => Normalization::NmtNfkcCf,
        NormalizationArg::NfkcCf => Normalization::NfkcCf,
        NormalizationArg::Identity => Normalization::Identity,
    };
    let trained = SubwordTrainer::new()
        .model_type(model_type)
        .vocab_size(a.vocab_size)
        .character_coverage(a.character_coverage)
        .normalization(normalization)
        .lang_tags(a.lang)
        .user_symbols(a.user_symbol)
        .max_sentences(a.max_sentences)
        .balance(a.balance)
        .skip_empty_lines(a.skip_empty)
        .max_sentence_bytes(a.max_sentence_bytes)
        .max_piece_len(a.max_piece_len)
        .split_digits(a.split_digits)
        .byte_fallback(a.byte_fallback)
        .seed(a.seed)
        .threads(a.threads)
        .verbose(a.verbose);
    let mut rejects = RejectSink::new(&a.bad)?;
    let trained = if rejects.bad_lines() == BadLines::Error {
        trained.train_files(&a.input)?
    } else {
        // Empty lines are kept: the trainer skips them with --skip-empty, or names them.
        let mut corpora = Vec::with_capacity(a.input.len());
        for p in &a.input {
            let name = bitext_core::io::stream::input_name(p).display().to_string();
            let (lines, rejected) = read_lines_skipping(p, EmptyLines::Keep, BadLines::Skip)?;
            rejects.add_named(p, rejected)?;
            corpora.push((name, lines));
        }
        let named: Vec<(&str, &[String])> =
            corpora.iter().map(|(n, l)| (n.as_str(), &l[..])).collect();
        trained.train_corpora(&named)?
    };
    rejects.finish_inputs()?;
    trained.save(&a.model)?;
    eprint!("{}", trained.report());
    if !a.quiet.quiet {
        eprintln!("wrote {}", a.model.display());
    }
    Ok(())
}

/// Lines per batch: encoded on all cores, written in order.
const BATCH: usize = 4096;

/// Reads lines of the inputs (or stdin) in batches, keeping each line's file and number; a
/// line that cannot be read is an error or goes to `rejects`, by its policy.
struct Lines<'a> {
    inputs: Vec<PathBuf>,
    next_input: usize,
    reader: Option<(String, Box<dyn BufRead>, usize)>,
    rejects: &'a mut RejectSink,
    /// An empty (or blank) line cannot be read (`encode --empty error`).
    empty_is_bad: bool,
}

impl<'a> Lines<'a> {
    fn new(inputs: &[PathBuf], rejects: &'a mut RejectSink, empty_is_bad: bool) -> Self {
        Self {
            inputs: inputs.to_vec(),
            next_input: 0,
            reader: None,
            rejects,
            empty_is_bad,
        }
    }

    /// Fill `out` with up to `BATCH` lines as (file, line number, text); false at the end.
    fn batch(&mut self, out: &mut Vec<(usize, String)>, name: &mut String) -> Result<bool> {
        out.clear();
        let mut buf = Vec::new();
        while out.len() < BATCH {
            if self.reader.is_none() && !self.open_next()? {
                break;
            }
            let (file, reader, line) = self.reader.as_mut().expect("opened above");
            if out.is_empty() {
                // A batch never spans two files (it ends with its file), so that errors name
                // the right one.
                name.clone_from(file);
            }
            buf.clear();
            let n = reader
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("reading {file}"))?;
            if n == 0 {
                self.reader = None;
                if !out.is_empty() {
                    break;
                }
                continue;
            }
            *line += 1;
            if *line == 1 && buf.starts_with(bitext_core::io::BOM) {
                buf.drain(..bitext_core::io::BOM.len());
            }
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            let bad = match String::from_utf8(std::mem::take(&mut buf)) {
                Ok(text) if self.empty_is_bad && text.trim().is_empty() => {
                    ("empty line".into(), text)
                }
                Ok(text) => {
                    out.push((*line, text));
                    continue;
                }
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                    (format!("invalid UTF-8 at byte {at} of the line"), text)
                }
            };
            let (why, text) = bad;
            let e = bitext_core::Error::parse(Path::new(file), Location::Line(*line), why);
            let skipped = Rejected::of(self.rejects.bad_lines(), e, &text)?;
            self.rejects.add_named(Path::new(file), vec![skipped])?;
        }
        Ok(!out.is_empty())
    }

    fn open_next(&mut self) -> Result<bool> {
        if self.inputs.is_empty() && self.next_input == 0 {
            self.next_input = 1;
            self.reader = Some(("<stdin>".into(), Box::new(io::stdin().lock()), 0));
            return Ok(true);
        }
        let Some(path) = self.inputs.get(self.next_input) else {
            return Ok(false);
        };
        self.next_input += 1;
        let r = bitext_core::io::open(path)?;
        let name = bitext_core::io::stream::input_name(path)
            .display()
            .to_string();
        self.reader = Some((name, Box::new(r), 0));
        Ok(true)
    }
}

/// Standard output, or a file written through the one writer (boxed: it is the larger).
enum Output {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    File(Box<AtomicFile>),
}

impl Output {
    fn new(path: Option<&Path>) -> Result<Self> {
        Ok(match path {
            Some(p) => Output::File(Box::new(AtomicFile::create_text(p)?)),
            None => Output::Stdout(BufWriter::with_capacity(1 << 20, io::stdout().lock())),
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Output::Stdout(w) => w,
            Output::File(f) => f,
        }
    }

    fn finish(self, path: Option<&Path>) -> Result<()> {
        match self {
            Output::Stdout(mut w) => w.flush().context("writing standard output"),
            Output::File(f) => {
                f.commit()?;
                if let Some(p) = path {
                    eprintln!("wrote {}", p.display());
                }
                Ok(())
            }
        }
    }
}

/// Turn a batch error into `file:line: reason`.
fn at_line(e: TokError, name: &str, lines: &[(usize, String)]) -> anyhow::Error {
    match e {
        TokError::Item { index, source } => {
            anyhow::anyhow!("{name}:{}: {source}", lines[index].0)
        }
        e => e.into(),
    }
}

fn encode(a: &EncodeArgs) -> Result<()> {
    let seq = SequenceConfig {
        add_bos: a.add_bos,
        add_eos: a.add_eos,
        max_len: a.max_len,
    };
    let spm = Sentencepiece::open(&a.io.model)?.with_sequence(seq)?;
    let mut rejects = RejectSink::new(&a.io.bad)?;
    let mut out = Output::new(a.io.output.as_deref())?;
    let mut lines = Lines::new(&a.io.input, &mut rejects, a.empty == Empty::Error);
    let (mut batch, mut name) = (Vec::new(), String::new());
    let mut text = String::new();
    while lines.batch(&mut batch, &mut name)? {
        let refs: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        text.clear();
        match a.output_format {
            Format::Id => {
                let ids = spm
                    .encode_batch_ids(&refs)
                    .map_err(|e| at_line(e, &name, &batch))?;
                for ids in &ids {
                    for (i, id) in ids.iter().enumerate() {
                        if i > 0 {
                            text.push(' ');
                        }
                        write!(text, "{id}").expect("writing to a String");
                    }
                    text.push('\n');
                }
            }
            Format::Piece => {
                let encs = spm
                    .encode_batch(&refs)
                    .map_err(|e| at_line(e, &name, &batch))?;
                for enc in &encs {
                    join(&mut text, &enc.pieces);
                }
            }
        }
        out.writer()
            .write_all(text.as_bytes())
            .context("writing the output")?;
    }
    out.finish(a.io.output.as_deref().filter(|_| !a.quiet.quiet))?;
    rejects.finish_inputs()
}

/// Append the pieces separated by single spaces, then a newline.
fn join(out: &mut String, pieces: &[String]) {
    for (i, s) in pieces.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(s);
    }
    out.push('\n');
}

fn decode(a: &DecodeArgs) -> Result<()> {
    let spm = Sentencepiece::open(&a.io.model)?;
    let mut rejects = RejectSink::new(&a.io.bad)?;
    let mut out = Output::new(a.io.output.as_deref())?;
    let mut lines = Lines::new(&a.io.input, &mut rejects, false);
    let (mut batch, mut name) = (Vec::new(), String::new());
    let mut text = String::new();
    while lines.batch(&mut batch, &mut name)? {
        text.clear();
        for (line, l) in &batch {
            let decoded = match a.input_format {
                Format::Id => {
                    let ids = l
                        .split_whitespace()
                        .map(str::parse::<u32>)
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| anyhow::anyhow!("{name}:{line}: not an id list: {e}"))?;
                    spm.decode(&ids)
                }
                Format::Piece => {
                    let pieces: Vec<&str> = l.split_whitespace().collect();
                    spm.decode_pieces(&pieces)
                }
            }
            .map_err(|e| anyhow::anyhow!("{name}:{line}: {e}"))?;
            text.push_str(&decoded);
            text.push('\n');
        }
        out.writer()
            .write_all(text.as_bytes())
            .context("writing the output")?;
    }
    out.finish(a.io.output.as_deref().filter(|_| !a.quiet.quiet))?;
    rejects.finish_inputs()
}
