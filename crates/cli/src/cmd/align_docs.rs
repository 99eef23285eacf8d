//! `bitext align-docs`: align the sentences of documents that translate each other, in order
//! (`bitext_mine::docalign`, after vecalign), with any encoder; one document pair, or many
//! listed in a TSV.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_core::io::AtomicFile;
use bitext_core::io::beads::{Bead, write_beads};
use bitext_core::io::text::{EmptyLines, read_lines};
use bitext_encode::{EncoderSpec, SentenceEncoder, Side};
use bitext_mine::docalign::{DocAlignConfig, Overlaps, align_documents};
use clap::Args;

use crate::flags::{TextPair, TextPairDocs, TextPairHelp};

/// Arguments of `bitext align-docs`.
#[derive(Debug, Args)]
#[command(mut_arg("src", |a| a.required_unless_present("docs")))]
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
    quiet: crate::flags::Quiet,
}

impl TextPairHelp for AlignDocsArgs {
    const TEXT: TextPairDocs = TextPairDocs {
        src: "Source document: one sentence a line, in order (empty lines are sentences too)",
        tgt: "Target document, as --src-text",
        aliases: [None, None],
    };
}

/// Whether a bead aligns sentences of both sides (is not a deletion).
fn aligns(b: &Bead) -> bool {
    !b.src.is_empty() && !b.tgt.is_empty()
}

/// Align one document pair and write its outputs.
fn align_pair(
    a: &AlignDocsArgs,
    enc: &dyn SentenceEncoder,
    (src, tgt): (&Path, &Path),
    out: &Path,
    pairs: Option<&Path>,
) -> Result<Vec<Bead>> {
    let c = DocAlignConfig {
        max_size: a.max_size,
        del_percentile: a.del_percentile,
        deletion_penalty: a.deletion_penalty,
        search_buffer: a.search_buffer,
        max_full_dp: a.max_full_dp,
        ..DocAlignConfig::default()
    };
    c.check()?;
    let s = read_lines(src, EmptyLines::Keep)?;
    let t = read_lines(tgt, EmptyLines::Keep)?;
    let layers = c.max_size - 1;
    let (os, ot) = (
        Overlaps::encode(enc, Side::Source, &s, layers)
            .with_context(|| format!("embedding the sentences of {}", src.display()))?,
        Overlaps::encode(enc, Side::Target, &t, layers)
            .with_context(|| format!("embedding the sentences of {}", tgt.display()))?,
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

pub(crate) fn run(a: &AlignDocsArgs) -> Result<()> {
    let stdout = PathBuf::from("-");
    let out = a.output.as_ref().unwrap_or(&stdout);
    let pairs_path = |o: &Path| PathBuf::from(format!("{}.tsv", o.display()));
    if a.pairs_output && a.docs.is_none() && bitext_core::io::is_stdio(out) {
        bail!("--pairs-output writes OUTPUT.tsv beside --output: give -o FILE");
    }
    let jobs: Vec<(PathBuf, PathBuf, PathBuf)> = match (&a.docs, a.text.paths()) {
        (Some(list), _) => {
            let mut jobs = Vec::new();
            bitext_core::io::LineReader::open(list)?.each_line(
                "document pairs",
                |r, line| -> Result<()> {
                    let f = r.fields(line, 3, "source<TAB>target<TAB>output")?;
                    jobs.push((f[0].into(), f[1].into(), f[2].into()));
                    Ok(())
                },
            )?;
            jobs
        }
        (None, Some((s, t))) => vec![(s.into(), t.into(), out.clone())],
        _ => bail!("give --src-text and --tgt-text, or --docs"),
    };
    crate::run::check_outputs(jobs.iter().map(|j| Some(j.2.as_path())))?;
    let enc = crate::build::encoder(&a.encoder, None::<&[&str]>)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs)
        .build()
        .context("starting the --jobs threads")?;
    pool.install(|| {
        use rayon::prelude::*;
        jobs.par_iter().try_for_each(|(s, t, o)| {
            let p = a.pairs_output.then(|| pairs_path(o));
            align_pair(a, enc.as_ref(), (s, t), o, p.as_deref()).map(drop)
        })
    })
}
