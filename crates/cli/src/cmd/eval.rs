//! `bitext eval`: evaluate mined pairs against gold alignments.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext_core::io::bucc::{read_bucc_gold, read_bucc_sentences_skipping};
use bitext_core::io::rejects::BadLines;
use bitext_core::io::tsv::read_mined_pairs;
use bitext_eval::bucc::GoldSet;
use bitext_eval::plot::{pr_chart, render};
use bitext_eval::prf::pr_curve;
use clap::{Args, Subcommand};

use crate::flags::{BadLinesArgs, TextPair, TextPairDocs, TextPairHelp};
use crate::run::RejectSink;

/// What `--bad-lines` says in `bitext eval bucc --help`.
const BUCC_BAD_LINES: &str = "A line of --src-text or --tgt-text that cannot be read (not \
    UTF-8, not `id<TAB>sentence`, an empty id or sentence, a duplicate id): `error` stops, naming \
    the file, line and reason; `skip` leaves it out of the ids checked, writes it to --rejects \
    (each reason naming its file) and counts it on standard error (a gold or mined id on a line \
    left out is then reported missing). --gold and --mined are always read whole, since a line \
    left out would change the precision and recall measured: `skip` needs --src-text";

/// What `--bad-lines` says in `bitext eval beads --help`.
const BEADS_BAD_LINES: &str = "A line of --gold or --test that cannot be read: `error` stops, \
    naming the file, line and reason. `skip` is refused: the beads are read whole, since a bead \
    left out would change the precision and recall measured";

/// `--bad-lines skip` refused for the files of `what`, read whole because a line left out would
/// change the precision and recall measured.
fn read_whole(bad: &BadLinesArgs, what: &str) -> Result<()> {
    if bad.bad_lines() == BadLines::Skip {
        bail!(
            "--bad-lines skip is refused for {what}: they are read whole, since a line left out \
             would change the precision and recall measured"
        );
    }
    Ok(())
}

/// Evaluation subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum EvalCommand {
    /// Precision, recall and F1 of mined pairs (`score<TAB>src_id<TAB>tgt_id`) against a BUCC
    /// gold file; without --threshold, also the F1-optimal threshold.
    Bucc(BuccArgs),
    /// Sentence alignments of documents (`bitext align-docs`, vecalign) against gold beads:
    /// strict and lax precision, recall and F1, counted as vecalign's `score.py` counts them.
    Beads(BeadsArgs),
}

/// Arguments of `bitext eval beads`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(BEADS_BAD_LINES)))]
pub(crate) struct BeadsArgs {
    /// Gold beads in vecalign's format (`[0]:[0, 1]` a line), one file per document.
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    gold: Vec<PathBuf>,
    /// Test beads, one file per document, in the order of --gold.
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    test: Vec<PathBuf>,
    /// Also write every test bead as `score<TAB>label<TAB>source<TAB>target`: the score minus
    /// the bead's cost (higher is better), the label 1 when the gold has exactly the bead:
    /// the input of `bitext calibrate --scores`, which maps bead scores to the probability
    /// that a bead is right.
    #[arg(long, value_name = "FILE")]
    labels_output: Option<PathBuf>,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

fn beads(a: &BeadsArgs) -> Result<()> {
    use bitext_core::io::beads::read_beads;
    use bitext_eval::beads::BeadCounts;
    if a.gold.len() != a.test.len() {
        bail!(
            "{} gold files but {} test files: give one test file per gold file",
            a.gold.len(),
            a.test.len()
        );
    }
    crate::run::check_outputs([a.labels_output.as_deref()])?;
    read_whole(&a.bad, "--gold and --test beads")?;
    // Only to refuse --rejects without --bad-lines skip, as every command does.
    RejectSink::new(&a.bad)?;
    let mut total = BeadCounts::default();
    let mut labelled = String::new();
    for (g, t) in a.gold.iter().zip(&a.test) {
        let (gold, test) = (read_beads(g)?, read_beads(t)?);
        total.add(&BeadCounts::of(&gold, &test));
        if a.labels_output.is_some() {
            let labels = bitext_eval::beads::strict_labels(&gold, &test);
            for (b, ok) in test.iter().zip(labels) {
                let Some(cost) = b.cost else {
                    bail!(
                        "{}: beads without a cost cannot be labelled for calibration",
                        t.display()
                    );
                };
                let ids =
                    |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
                labelled.push_str(&format!(
                    "{}\t{}\t{}\t{}\n",
                    -cost,
                    u8::from(ok),
                    ids(&b.src),
                    ids(&b.tgt)
                ));
            }
        }
    }
    if let Some(p) = &a.labels_output {
        use std::io::Write as _;
        let mut f = bitext_core::io::AtomicFile::create_text(p)?;
        f.write_all(labelled.as_bytes()).map_err(|e| f.err(e))?;
        f.commit()?;
    }
    for (name, p) in [("strict", total.strict()), ("lax", total.lax())] {
        println!(
            "{name}: P {:.4} R {:.4} F1 {:.4} ({} test beads, {} gold beads that are not \
             deletions)",
            p.precision, p.recall, p.f1, total.predicted, total.relevant
        );
    }
    Ok(())
}

/// Arguments of `bitext eval bucc`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(BUCC_BAD_LINES)))]
pub(crate) struct BuccArgs {
    /// Gold file: `src_id<TAB>tgt_id` per line.
    #[arg(long, value_name = "FILE")]
    gold: PathBuf,
    /// Mined pairs: `score<TAB>src_id<TAB>tgt_id` per line (as `bitext mine` writes with BUCC
    /// sentence files).
    #[arg(long, value_name = "FILE")]
    mined: PathBuf,
    /// Keep only pairs with score >= this value.
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    threshold: Option<f64>,
    #[command(flatten)]
    text: TextPair<Self>,
    /// Also draw the precision–recall curve of the mined pairs (one point per distinct
    /// score) as an SVG figure.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

impl TextPairHelp for BuccArgs {
    const TEXT: TextPairDocs = TextPairDocs {
        src: "BUCC source sentence file: check that every gold and mined source id occurs in it",
        tgt: "BUCC target sentence file: check that every gold and mined target id occurs in it",
        aliases: [Some("src-sentences"), Some("tgt-sentences")],
    };
}

pub(crate) fn run(cmd: EvalCommand) -> Result<()> {
    match cmd {
        EvalCommand::Bucc(a) => bucc(&a),
        EvalCommand::Beads(a) => beads(&a),
    }
}

fn bucc(a: &BuccArgs) -> Result<()> {
    crate::run::check_outputs([a.plot.as_deref()])?;
    if let Some(t) = a.threshold.filter(|t| !t.is_finite()) {
        bail!("--threshold must be a finite number, got {t}");
    }
    if a.text.paths().is_none() {
        read_whole(
            &a.bad,
            "--gold and --mined (skip reads --src-text and --tgt-text)",
        )?;
    }
    let mut rejects = RejectSink::new(&a.bad)?;
    let gold = read_bucc_gold(&a.gold)?;
    let mined = read_mined_pairs(&a.mined)?;
    // A pair mined twice is a bug in whatever wrote the file: name both lines.
    let mut seen: HashMap<(&str, &str), usize> = HashMap::with_capacity(mined.len());
    for (i, p) in mined.iter().enumerate() {
        if let Some(first) = seen.insert((&p.src, &p.tgt), i + 1) {
            bail!(
                "{}:{}: pair {} {} already occurs on line {first}",
                a.mined.display(),
                i + 1,
                p.src,
                p.tgt
            );
        }
    }
    if let Some((s, t)) = a.text.paths() {
        let mut read = |path| -> Result<_> {
            let (read, rejected) = read_bucc_sentences_skipping(path, rejects.bad_lines())?;
            rejects.add_named(path, rejected)?;
            Ok(read)
        };
        let (src, tgt) = (read(s)?, read(t)?);
        rejects.finish_inputs()?;
        gold.check_ids(&src, &tgt)?;
        for (i, p) in mined.iter().enumerate() {
            for (id, side) in [(&p.src, &src), (&p.tgt, &tgt)] {
                if side.index_of(id).is_none() {
                    bail!(
                        "{}:{}: id {id} does not occur in {}",
                        a.mined.display(),
                        i + 1,
                        side.path().display()
                    );
                }
            }
        }
    }
    let gold_set = GoldSet::from_bucc(&gold)?;
    let candidates: Vec<(f64, String, String)> =
        mined.into_iter().map(|p| (p.score, p.src, p.tgt)).collect();
    println!(
        "mined pairs: {}  gold pairs: {}",
        candidates.len(),
        gold_set.len()
    );
    let all = gold_set
        .at_threshold(&candidates, f64::NEG_INFINITY)
        .context("evaluating")?;
    if let Some(plot) = &a.plot {
        let curve = pr_curve(&gold_set.label(&candidates)?, gold_set.len())?;
        let name = a
            .mined
            .file_name()
            .map_or_else(|| "mined".to_string(), |n| n.to_string_lossy().into_owned());
        let chart = pr_chart("BUCC precision–recall", &[(name.as_str(), &curve[..])]);
        crate::run::write_svg(plot, &render(&[chart]))?;
    }
    match a.threshold {
        Some(t) => {
            let p = gold_set.at_threshold(&candidates, t)?;
            println!("threshold {t}: {p}");
        }
        None => {
            println!("all pairs: {all}");
            match gold_set.best_threshold(&candidates)? {
                Some(best) => println!("best threshold {}: {}", best.threshold, best.prf),
                None => println!("best threshold: none (no mined pair is in the gold file)"),
            }
        }
    }
    Ok(())
}
