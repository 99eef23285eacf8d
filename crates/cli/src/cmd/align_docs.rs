//! `bitext align-docs`: align the sentences of documents that translate each other, in order
//! (`bitext_mine::docalign`, after vecalign), with any encoder; one document pair, or many
//! listed in a TSV.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_core::io::AtomicFile;
use bitext_core::io::beads::{Bead, write_beads};
use bitext_core::io::rejects::{BadLines, Rejected};
use bitext_core::io::text::{EmptyLines, read_lines};
use bitext_encode::{EncoderSpec, NoKnownWord, SentenceEncoder, Side};
use bitext_mine::docalign::{DocAlignConfig, DocScoring, Overlaps, align_documents};
use clap::Args;

use crate::flags::{BadLinesArgs, TextPair, TextPairDocs, TextPairHelp};
use crate::run::RejectSink;

/// What `--bad-lines` says in `bitext align-docs --help`.
const BAD_LINES: &str = "With --docs, a document pair that cannot be read (its line of the list \
    not `source<TAB>target<TAB>output` or not UTF-8, a line of one of its documents not UTF-8, \
    an empty document): `error` stops, naming the file, line and reason; `skip` leaves the pair \
    out (no output for it), writes the list's line to --rejects with the reason (naming the \
    document and its line where one failed) and counts it on standard error. Without --docs \
    `skip` is refused: the beads number every line of the two documents, so none can be left \
    out. Empty lines are sentences, never bad lines (a line with nothing to encode follows the \
    encoder's `no_known_word`: see --zero-unknown)";

/// Arguments of `bitext align-docs`.
#[derive(Debug, Args)]
#[command(mut_arg("src", |a| a.required_unless_present("docs")))]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(BAD_LINES)))]
pub(crate) struct AlignDocsArgs {
    #[command(flatten)]
    text: TextPair<Self>,
    /// Many document pairs: a TSV of `source<TAB>target<TAB>output` paths, one pair a line;
    /// each output gets the pair's beads (and `OUTPUT.tsv` its sentence pairs with
    /// --pairs-output). The encoder is loaded once.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["src", "tgt", "output"])]
    docs: Option<PathBuf>,
    /// Encoder of the sentences and their concatenations: `bow:FILE`, `model:DIR`,
    /// `onnx:FILE` or a JSON spec, as `bitext embed --encoder`.
    #[arg(long, value_name = "SPEC")]
    encoder: EncoderSpec,
    /// Give a sentence with nothing to encode (an empty line; no known word for a bag of
    /// words, no token for a `model:` or `onnx:` encoder) a zero vector instead of failing
    /// (the spec's `"no_known_word": "zero"`): it then costs as much against every sentence,
    /// the cost of vectors with cosine 0.
    #[arg(long)]
    zero_unknown: bool,
    /// Beads in vecalign's format, one a line: `[0]:[0, 1]:0.123456` (source sentences,
    /// target sentences, the bead's cost per sentence pair; `[]` for a deletion). Default:
    /// standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the aligned sentences as a TSV: `cost<TAB>source text<TAB>target text`
    /// (sentences of a side joined by a space; deletions left out). With --docs: a flag, each
    /// output's pairs in `OUTPUT.tsv`.
    #[arg(long)]
    pairs_output: bool,
    /// How a bead is costed: `vecalign` (vecalign's normalised cosine distance times the
    /// sentence counts, deletions at --del-percentile) or `margin` (the path maximising the sum
    /// of its beads' margins, cosine minus the mean cosine of the two sides' nearest sentences
    /// in the other document; a deletion costs 0.05 or --deletion-penalty): better with a
    /// strong encoder (USE-M on the dev document: strict F1 0.85 against 0.79 with beads of up
    /// to 4, 0.90 against 0.81 up to 8), far worse with a bag of words.
    #[arg(long, value_enum, default_value_t = Scoring::Vecalign)]
    scoring: Scoring,
    /// With --scoring margin: nearest sentences of the other document each margin's mean is
    /// over.
    #[arg(long, default_value_t = 8, value_name = "K")]
    margin_neighbours: usize,
    /// Largest bead, in sentences of both sides (4: 1-1, 1-2, 1-3, 2-1, 2-2, 3-1).
    #[arg(long, default_value_t = 4, value_name = "N")]
    max_size: usize,
    /// Quantile of the 1-1 costs of random sentence pairs a deletion costs.
    #[arg(long, default_value_t = 0.2, value_name = "Q")]
    del_percentile: f64,
    /// A fixed deletion penalty instead of --del-percentile.
    #[arg(long, value_name = "COST")]
    deletion_penalty: Option<f64>,
    /// Nodes on each side of the coarse path the finer search considers.
    #[arg(long, default_value_t = 5, value_name = "N")]
    search_buffer: usize,
    /// Align documents of up to N × N sentences by the full programme; longer ones are halved
    /// first and refined around the coarse path.
    #[arg(long, default_value_t = 300, value_name = "N")]
    max_full_dp: usize,
    /// Document pairs of --docs aligned side by side (0: one per core). Each pair's result
    /// is the same whatever this is.
    #[arg(long, default_value_t = 0, value_name = "N")]
    jobs: usize,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
}

impl TextPairHelp for AlignDocsArgs {
    const TEXT: TextPairDocs = TextPairDocs {
        src: "Source document: one sentence a line, in order (empty lines are sentences too)",
        tgt: "Target document, as --src-text",
        aliases: [None, None],
    };
}

/// `--scoring`: [`DocScoring`]'s kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Scoring {
    /// vecalign's costs (the default).
    Vecalign,
    /// The margin over the nearest sentences of the other document.
    Margin,
}

/// Whether a bead aligns sentences of both sides (is not a deletion).
fn aligns(b: &Bead) -> bool {
    !b.src.is_empty() && !b.tgt.is_empty()
}

/// A document: its file and its lines.
type Document<'a> = (&'a Path, Vec<String>);

/// Align one document pair, the documents `src` and `tgt` whose lines are `s` and `t`, and write
/// its outputs.
fn align_pair(
    a: &AlignDocsArgs,
    enc: &dyn SentenceEncoder,
    ((src, s), (tgt, t)): (Document<'_>, Document<'_>),
    out: &Path,
    pairs: Option<&Path>,
) -> Result<Vec<Bead>> {
    let scoring = match a.scoring {
        Scoring::Vecalign => DocScoring::Vecalign,
        Scoring::Margin => DocScoring::Margin {
            neighbours: a.margin_neighbours,
            pool: DocScoring::MARGIN_POOL,
        },
    };
    let c = DocAlignConfig {
        scoring,
        max_size: a.max_size,
        del_percentile: a.del_percentile,
        deletion_penalty: a.deletion_penalty,
        search_buffer: a.search_buffer,
        max_full_dp: a.max_full_dp,
        ..DocAlignConfig::default()
    };
    c.check()?;
    let layers = c.max_size - 1;
    let embedded = |doc: &Path| {
        format!(
            "embedding the sentences of {} (sentence k is its line k + 1; --zero-unknown gives \
             a sentence with nothing to encode a zero vector)",
            doc.display()
        )
    };
    let (os, ot) = (
        Overlaps::encode(enc, Side::Source, &s, layers).with_context(|| embedded(src))?,
        Overlaps::encode(enc, Side::Target, &t, layers).with_context(|| embedded(tgt))?,
    );
    let beads = align_documents(&os, &ot, &c)
        .with_context(|| format!("aligning {} with {}", src.display(), tgt.display()))?;
    write_beads(out, &beads)?;
    if let Some(p) = pairs {
        let mut f = AtomicFile::create_text(p)?;
        for b in beads.iter().filter(|b| aligns(b)) {
            let join = |ids: &[usize], lines: &[String]| {
                ids.iter()
                    .map(|&i| lines[i].trim())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            writeln!(
                f,
                "{:.6}\t{}\t{}",
                b.cost.unwrap_or(0.0),
                join(&b.src, &s),
                join(&b.tgt, &t)
            )
            .map_err(|e| f.err(e))?;
        }
        f.commit()?;
    }
    if !a.quiet.quiet {
        let aligned = beads.iter().filter(|b| aligns(b)).count();
        eprintln!(
            "{} ({} sentences) with {} ({}): {} beads, {aligned} aligned, {} deletions",
            src.display(),
            s.len(),
            tgt.display(),
            t.len(),
            beads.len(),
            beads.len() - aligned
        );
    }
    Ok(beads)
}

/// A document pair of --docs: its source, target and output, and its line in the list.
struct Job {
    src: PathBuf,
    tgt: PathBuf,
    out: PathBuf,
    line: usize,
}

/// The document pairs of the list `path` under `bad`, and the lines of it skipped.
fn read_jobs(path: &Path, bad: BadLines) -> Result<(Vec<Job>, Vec<Rejected>)> {
    let mut jobs = Vec::new();
    let reader = bitext_core::io::LineReader::open(path)?;
    let rejected = reader.each_line_skipping("document pairs", bad, |r, line| {
        let f = r.fields(line, 3, "source<TAB>target<TAB>output")?;
        let [src, tgt, out] = [0, 1, 2].map(|i| PathBuf::from(f[i]));
        let line = r.line_number();
        jobs.push(Job {
            src,
            tgt,
            out,
            line,
        });
        Ok(())
    })?;
    Ok((jobs, rejected))
}

/// The two documents of `job`: every line, empty lines included (as vecalign reads them). A
/// document that cannot be read (a line not UTF-8, an empty file) is an error, or under
/// `bad` (skip) the list's line of the pair, its reason naming the document and its line.
fn read_documents(bad: BadLines, job: &Job) -> Result<Result<[Vec<String>; 2], Rejected>> {
    let read = |p: &Path| read_lines(p, EmptyLines::Keep);
    match read(&job.src).and_then(|s| Ok([s, read(&job.tgt)?])) {
        Ok(docs) => Ok(Ok(docs)),
        Err(e @ bitext_core::Error::Parse { .. }) if bad == BadLines::Skip => Ok(Err(Rejected {
            line: job.line,
            reason: e.to_string(),
            text: format!(
                "{}\t{}\t{}",
                job.src.display(),
                job.tgt.display(),
                job.out.display()
            ),
        })),
        Err(e) => Err(e.into()),
    }
}

pub(crate) fn run(a: &AlignDocsArgs) -> Result<()> {
    let stdout = PathBuf::from("-");
    let out = a.output.as_ref().unwrap_or(&stdout);
    let pairs_path = |o: &Path| PathBuf::from(format!("{}.tsv", o.display()));
    if a.pairs_output && a.docs.is_none() && bitext_core::io::is_stdio(out) {
        bail!("--pairs-output writes OUTPUT.tsv beside --output: give -o FILE");
    }
    let bad = a.bad.bad_lines();
    if bad == BadLines::Skip && a.docs.is_none() {
        bail!(
            "--bad-lines skip works with --docs (it leaves out a whole document pair): the beads \
             of one pair number every line of its documents, so no line can be left out"
        );
    }
    let mut rejects = RejectSink::new(&a.bad)?;
    let (jobs, mut rejected): (Vec<Job>, Vec<Rejected>) = match (&a.docs, a.text.paths()) {
        (Some(list), _) => read_jobs(list, bad)?,
        (None, Some((s, t))) => {
            let job = Job {
                src: s.into(),
                tgt: t.into(),
                out: out.clone(),
                line: 1,
            };
            (vec![job], Vec::new())
        }
        _ => bail!("give --src-text and --tgt-text, or --docs"),
    };
    crate::run::check_outputs(jobs.iter().map(|j| Some(j.out.as_path())))?;
    let spec = match a.zero_unknown {
        true => a.encoder.clone().with_no_known_word(NoKnownWord::Zero),
        false => a.encoder.clone(),
    };
    let enc = crate::build::encoder(&spec, None::<&[&str]>)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs)
        .build()
        .context("starting the --jobs threads")?;
    // Each pair aligned, or (under skip) the list's line of a pair whose documents cannot be
    // read; in the list's order.
    let done: Vec<Option<Rejected>> = pool.install(|| {
        use rayon::prelude::*;
        jobs.par_iter()
            .map(|job| {
                let [s, t] = match read_documents(bad, job)? {
                    Ok(docs) => docs,
                    Err(skipped) => return Ok(Some(skipped)),
                };
                let p = a.pairs_output.then(|| pairs_path(&job.out));
                let docs = ((job.src.as_path(), s), (job.tgt.as_path(), t));
                align_pair(a, enc.as_ref(), docs, &job.out, p.as_deref()).map(|_| None)
            })
            .collect::<Result<_>>()
    })?;
    // The list's lines left out, in its order.
    rejected.extend(done.into_iter().flatten());
    rejected.sort_by_key(|r| r.line);
    rejects.add(&rejected)?;
    match &a.docs {
        Some(list) => rejects.finish(list),
        None => rejects.finish(out),
    }
}
