//! Inputs shared by subcommands: embedding matrices (raw little-endian f32/f16 as LASER writes
//! them, or `.npy`, memory-mapped when they are f32), sentence files (BUCC `id<TAB>sentence` or
//! plain text), and progress bars; and the matching embedding output.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_core::io::bucc::read_bucc_sentences_skipping;
use bitext_core::io::raw::{RawDtype, read_raw};
use bitext_core::io::rejects::{BadLines, Rejected};
use bitext_core::{Embeddings, EmbeddingsView, MappedEmbeddings};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};

use crate::run::RejectSink;

/// An embedding matrix read from a file.
pub(crate) enum Matrix {
    /// Memory-mapped f32 (raw or `.npy`).
    Mapped(MappedEmbeddings),
    /// Read and converted (raw f16).
    Owned(Embeddings, PathBuf),
}

/// `--src-col`, `--tgt-col`: the TSV columns of the two sentences, **1-based** in every command
/// (as bicleaner's `--scol`/`--tcol`, `cut -f` and `awk`), converted once to the 0-based
/// indices of the readers.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct ColumnArgs {
    /// Column of the source sentence, 1-based (the first column is 1).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub(crate) src_col: usize,
    /// Column of the target sentence, 1-based.
    #[arg(long, visible_alias = "trg-col", default_value_t = 2, value_name = "N")]
    pub(crate) tgt_col: usize,
}

impl ColumnArgs {
    /// The 0-based (source, target) columns.
    pub(crate) fn zero_based(self) -> Result<(usize, usize)> {
        if self.src_col == 0 || self.tgt_col == 0 {
            bail!("--src-col and --tgt-col are 1-based: the first column is 1");
        }
        if self.src_col == self.tgt_col {
            bail!("--src-col and --tgt-col are both {}", self.src_col);
        }
        Ok((self.src_col - 1, self.tgt_col - 1))
    }
}

/// `--shards`, `--work-dir`, `--plan-only`: a sharded, resumable run of `filter` or `score`
/// (`bitext_shard::FilterPlan`).
#[derive(Debug, clap::Args)]
pub(crate) struct ShardArgs {
    /// Work in N byte-range shards of --input, as resumable steps in --work-dir: the output is
    /// the same as without shards, and a rerun skips the steps done.
    #[arg(long, value_name = "N", requires = "work_dir")]
    pub(crate) shards: Option<usize>,
    /// Work directory of --shards: the plan (plan.json), each step's output and completion
    /// record, and steps.log.
    #[arg(long, value_name = "DIR", requires = "shards")]
    pub(crate) work_dir: Option<PathBuf>,
    /// With --shards: write the plan and stop (`bitext mine-step` runs its steps; the same
    /// command without --plan-only then writes the output).
    #[arg(long, requires = "shards")]
    pub(crate) plan_only: bool,
}

/// `--src-embeddings`, `--tgt-embeddings` (alias `--trg-embeddings`, LASER's spelling),
/// `--dim`, `--fp16`: the two matrices of `mine`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct EmbeddingArgs {
    /// Source embeddings: raw little-endian f32 (LASER) or `.npy`, one row per sentence.
    /// (Optional with --encoder: without it the embeddings are made in a temporary directory
    /// and removed; with --shards the plan embeds the text into its work directory.)
    #[arg(long, value_name = "FILE", required_unless_present = "encoder")]
    pub(crate) src_embeddings: Option<PathBuf>,
    /// Target embeddings (same format and dimension).
    #[arg(
        long = "tgt-embeddings",
        visible_alias = "trg-embeddings",
        value_name = "FILE",
        required_unless_present = "encoder"
    )]
    pub(crate) trg_embeddings: Option<PathBuf>,
    /// Embedding dimension (required for raw files; checked against `.npy` headers).
    #[arg(long, value_name = "D")]
    pub(crate) dim: Option<usize>,
    /// Raw files hold float16 values (LASER --fp16). `bitext mine` (mode mine, exact index)
    /// maps the target file and searches it in place, widening rows only where read; other
    /// uses read and widen the files. With --encoder and --shards, the embed steps store
    /// float16 rows.
    #[arg(long)]
    pub(crate) fp16: bool,
}

/// The same flags where the embeddings are optional (`filter` and `extract` can work from the
/// sentences alone): [`OptionalEmbeddingArgs::get`] gives the [`EmbeddingArgs`] when both files
/// are named.
#[derive(Debug, clap::Args)]
pub(crate) struct OptionalEmbeddingArgs {
    #[command(flatten)]
    files: EmbeddingFiles,
    /// Embedding dimension (required for raw files; checked against `.npy` headers).
    #[arg(long, value_name = "D")]
    dim: Option<usize>,
    /// Raw embedding files hold float16 values.
    #[arg(long)]
    fp16: bool,
}

/// The two files of [`OptionalEmbeddingArgs`]: neither, or both.
#[derive(Debug, clap::Args)]
#[group(multiple = true, requires_all = ["src_embeddings", "trg_embeddings"])]
struct EmbeddingFiles {
    /// Source embeddings, one row per sentence: raw little-endian f32 (LASER) or `.npy`.
    #[arg(long, value_name = "FILE")]
    src_embeddings: Option<PathBuf>,
    /// Target embeddings (same format and dimension).
    #[arg(
        long = "tgt-embeddings",
        visible_alias = "trg-embeddings",
        value_name = "FILE"
    )]
    trg_embeddings: Option<PathBuf>,
}

impl OptionalEmbeddingArgs {
    /// The embeddings, when both files are named.
    pub(crate) fn get(&self) -> Option<EmbeddingArgs> {
        match (&self.files.src_embeddings, &self.files.trg_embeddings) {
            (Some(s), Some(t)) => Some(EmbeddingArgs {
                src_embeddings: Some(s.clone()),
                trg_embeddings: Some(t.clone()),
                dim: self.dim,
                fp16: self.fp16,
            }),
            _ => None,
        }
    }
}

impl EmbeddingArgs {
    /// The two files (an error when either is not given).
    pub(crate) fn paths(&self) -> Result<(&Path, &Path)> {
        match (&self.src_embeddings, &self.trg_embeddings) {
            (Some(s), Some(t)) => Ok((s, t)),
            _ => bail!("give --src-embeddings and --tgt-embeddings"),
        }
    }

    /// Open (memory-map, or read and convert) both matrices, which must have one dimension.
    pub(crate) fn open(&self) -> Result<(Matrix, Matrix)> {
        let (s, t) = self.paths()?;
        let src = Matrix::open(s, self.dim, self.fp16)?;
        let trg = Matrix::open(t, self.dim, self.fp16)?;
        let (sd, td) = (src.view().dim(), trg.view().dim());
        if sd != td {
            bail!(
                "dimension mismatch: {} holds {sd}-dimensional embeddings but {} holds {td}",
                src.path().display(),
                trg.path().display(),
            );
        }
        Ok((src, trg))
    }
}

impl Matrix {
    /// Open `path`: `.npy` by extension (its header gives the dimension; `dim`, when given,
    /// must agree), raw little-endian otherwise (f16 with `fp16`, f32 memory-mapped).
    pub(crate) fn open(path: &Path, dim: Option<usize>, fp16: bool) -> Result<Self> {
        let is_npy = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
        if fp16 && is_npy {
            let e = bitext_core::io::npy::read_npy(path)?;
            if let Some(d) = dim.filter(|&d| d != e.dim()) {
                bail!(
                    "{}: the array has dimension {} but --dim is {d}",
                    path.display(),
                    e.dim()
                );
            }
            return Ok(Matrix::Owned(e, path.into()));
        }
        if fp16 {
            let Some(dim) = dim else {
                bail!(
                    "{}: raw embedding files have no header; give --dim",
                    path.display()
                );
            };
            return Ok(Matrix::Owned(
                read_raw(path, dim, RawDtype::F16)?,
                path.into(),
            ));
        }
        if is_npy && dim.is_none() {
            return Ok(Matrix::Mapped(MappedEmbeddings::open(path, None)?));
        }
        if dim.is_none() {
            bail!(
                "{}: raw embedding files have no header; give --dim",
                path.display()
            );
        }
        Ok(Matrix::Mapped(MappedEmbeddings::open(path, dim)?))
    }

    pub(crate) fn view(&self) -> EmbeddingsView<'_> {
        match self {
            Matrix::Mapped(m) => m.view(),
            Matrix::Owned(e, _) => e.view(),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        match self {
            Matrix::Mapped(m) => m.path(),
            Matrix::Owned(_, p) => p,
        }
    }
}

/// How a sentence file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TextFormat {
    /// BUCC when the first line holds a tab, plain text otherwise.
    Auto,
    /// BUCC sentences: `id<TAB>sentence` per line.
    Bucc,
    /// One sentence per line.
    Plain,
}

impl TextFormat {
    /// Whether `path` is read as BUCC sentences (for `Auto`: its first line holds a tab; on
    /// standard input, peeked without consuming it).
    pub(crate) fn is_bucc(self, path: &Path) -> Result<bool> {
        Ok(match self {
            TextFormat::Bucc => true,
            TextFormat::Plain => false,
            TextFormat::Auto => {
                bitext_core::io::stream::first_line(path)?.is_some_and(|l| l.contains('\t'))
            }
        })
    }
}

/// Sentences of one side, with their BUCC ids when the file had them.
pub(crate) struct Sentences {
    pub(crate) path: PathBuf,
    pub(crate) ids: Option<Vec<String>>,
    pub(crate) sentences: Vec<String>,
    /// The line (1-based) of each sentence: every line unless some were skipped.
    pub(crate) lines: Vec<usize>,
}

impl Sentences {
    /// Read `path` (empty lines are errors naming the line).
    pub(crate) fn read(path: &Path, format: TextFormat) -> Result<Self> {
        Ok(Self::read_skipping(path, format, BadLines::Error)?.0)
    }

    /// [`Sentences::read`] under `bad`: with `skip`, the lines that cannot be read (not UTF-8,
    /// empty, for BUCC not `id<TAB>sentence` or a duplicate id) are left out and returned.
    pub(crate) fn read_skipping(
        path: &Path,
        format: TextFormat,
        bad: BadLines,
    ) -> Result<(Self, Vec<Rejected>)> {
        if format.is_bucc(path)? {
            let (s, rejected) = read_bucc_sentences_skipping(path, bad)?;
            let read = Self {
                path: path.into(),
                ids: Some(s.ids().to_vec()),
                sentences: s.sentences().to_vec(),
                lines: s.lines().to_vec(),
            };
            return Ok((read, rejected));
        }
        let (mut sentences, mut lines) = (Vec::new(), Vec::new());
        let reader = bitext_core::io::LineReader::open(path)?;
        let rejected = reader.each_line_skipping("sentences", bad, |r, line| {
            sentences.push(r.sentence(line, false)?.to_string());
            lines.push(r.line_number());
            Ok(())
        })?;
        let read = Self {
            path: path.into(),
            ids: None,
            sentences,
            lines,
        };
        Ok((read, rejected))
    }

    pub(crate) fn len(&self) -> usize {
        self.sentences.len()
    }

    /// Check that the file has one line per embedding row.
    pub(crate) fn check_rows(&self, m: &Matrix) -> Result<()> {
        self.check_row_count(m.view().len(), m.path())
    }

    /// Check that there is one sentence per row of the `rows`-row embedding file `emb`.
    pub(crate) fn check_row_count(&self, rows: usize, emb: &Path) -> Result<()> {
        if self.len() != rows {
            bail!(
                "{} has {} sentences but {} has {rows} embedding rows: they must match line \
                 for row",
                self.path.display(),
                self.len(),
                emb.display()
            );
        }
        Ok(())
    }
}

/// How rows are named in outputs.
pub(crate) enum Labels {
    /// 0-based row indices.
    Rows,
    /// BUCC sentence ids.
    Ids(Vec<String>),
    /// The sentences themselves.
    Text(Vec<String>),
}

impl Labels {
    /// Ids for BUCC files, sentences for plain text, row numbers without a file.
    pub(crate) fn of(s: Option<Sentences>) -> Self {
        match s {
            None => Labels::Rows,
            Some(Sentences { ids: Some(ids), .. }) => Labels::Ids(ids),
            Some(s) => Labels::Text(s.sentences),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Cow<'_, str> {
        match self {
            Labels::Rows => Cow::Owned(i.to_string()),
            Labels::Ids(v) | Labels::Text(v) => Cow::Borrowed(&v[i]),
        }
    }
}

/// Read the optional sentence file of a side and check it against the embeddings (under the
/// policy of `rejects`, which keeps the lines skipped; none: every line must read).
pub(crate) fn sentences_for(
    path: Option<&Path>,
    format: TextFormat,
    m: &Matrix,
    rejects: Option<&mut RejectSink>,
) -> Result<Option<Sentences>> {
    sentences_for_rows(path, format, (m.view().len(), m.path()), rejects)
}

/// [`sentences_for`] an embedding file `emb` of `rows` rows that is not opened here.
pub(crate) fn sentences_for_rows(
    path: Option<&Path>,
    format: TextFormat,
    (rows, emb): (usize, &Path),
    rejects: Option<&mut RejectSink>,
) -> Result<Option<Sentences>> {
    let Some(p) = path else {
        return Ok(None);
    };
    let bad = rejects.as_ref().map_or(BadLines::Error, |r| r.bad_lines());
    let (s, rejected) = Sentences::read_skipping(p, format, bad)?;
    if let Some(r) = rejects {
        r.add_named(p, rejected)?;
    }
    s.check_row_count(rows, emb)?;
    Ok(Some(s))
}

/// A count of work done with no total known ahead (a stream), on stderr like
/// [`progress_bar`], or hidden when `quiet`.
pub(crate) fn progress_count(message: &'static str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let style =
        ProgressStyle::with_template("{msg:>24} [{elapsed_precise}] {human_pos} ({per_sec})")
            .expect("valid template");
    ProgressBar::no_length()
        .with_style(style)
        .with_message(message)
}

/// A progress bar on stderr (drawn only on a terminal), or a hidden one when `quiet`.
pub(crate) fn progress_bar(total: usize, message: &'static str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{msg:>24} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} ({per_sec}, eta {eta})",
    )
    .expect("valid template");
    ProgressBar::new(total as u64)
        .with_style(style)
        .with_message(message)
}

/// Check an embedding output before any work: `--fp16` needs a raw file, not `.npy`.
pub(crate) fn check_embeddings_output(path: &Path, fp16: bool) -> Result<()> {
    if fp16 && is_npy(path) {
        bail!("--fp16 writes raw files; give an output name that does not end in .npy");
    }
    Ok(())
}

fn is_npy(path: &Path) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("npy"))
}

/// Write embeddings: `.npy` by extension, raw little-endian f32 (or f16 with `fp16`) otherwise.
pub(crate) fn write_embeddings(path: &Path, e: &Embeddings, fp16: bool) -> Result<()> {
    check_embeddings_output(path, fp16)?;
    if is_npy(path) {
        bitext_core::io::npy::write_npy(path, e.view())?;
    } else {
        let dtype = if fp16 { RawDtype::F16 } else { RawDtype::F32 };
        bitext_core::io::raw::write_raw(path, e.view(), dtype)?;
    }
    Ok(())
}

/// `--calibration FILE` and `--min-precision P` (`bitext calibrate` writes the file): the
/// calibrated score (estimated probability that a pair is parallel) is written beside the raw
/// one, and pairs below the threshold that reaches precision P are left out.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct CalibrationArgs {
    /// Calibration file of `bitext calibrate`: write the estimated probability that each pair
    /// is parallel as a column after the score.
    #[arg(long, value_name = "FILE")]
    pub(crate) calibration: Option<PathBuf>,
    /// Keep only pairs whose score reaches the threshold that gave this precision on the
    /// calibration sample (needs --calibration, or a --classifier, which holds its own).
    #[arg(long, value_name = "P")]
    pub(crate) min_precision: Option<f64>,
}

impl CalibrationArgs {
    /// The calibration and the score threshold of --min-precision.
    pub(crate) fn load(
        &self,
    ) -> Result<(Option<bitext_eval::calibration::Calibration>, Option<f64>)> {
        self.load_with(None)
    }

    /// [`CalibrationArgs::load`] for a command that may score with a pair classifier, whose
    /// own calibration then gives the probability and the threshold.
    pub(crate) fn load_with(
        &self,
        classifier: Option<&bitext_classify::Classifier>,
    ) -> Result<(Option<bitext_eval::calibration::Calibration>, Option<f64>)> {
        if let Some(c) = classifier {
            if self.calibration.is_some() {
                bail!(
                    "--calibration: the classifier in {} holds its own calibration",
                    c.dir().display()
                );
            }
            let min =
                match self.min_precision {
                    Some(p) => Some(c.min_score(p).with_context(|| {
                        format!("--min-precision {p} with {}", c.dir().display())
                    })?),
                    None => None,
                };
            return Ok((Some(c.calibration().clone()), min));
        }
        let Some(path) = &self.calibration else {
            if self.min_precision.is_some() {
                bail!("--min-precision needs --calibration FILE (or --classifier DIR)");
            }
            return Ok((None, None));
        };
        let cal = bitext_eval::calibration::Calibration::load(path)?;
        let min = match self.min_precision {
            Some(p) => Some(
                cal.min_score(p)
                    .with_context(|| format!("--min-precision {p} with {}", path.display()))?,
            ),
            None => None,
        };
        Ok((Some(cal), min))
    }
}
