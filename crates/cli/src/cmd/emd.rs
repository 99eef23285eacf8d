//! `bitext emd`: the exact Earth Mover's Distance solver — checked against known optima
//! (`check`) and used for word translation between two vocabularies (`translate`).

use std::collections::{BTreeMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext_core::io::AtomicFile;
use bitext_core::io::LineReader;
use bitext_core::io::rejects::BadLines;
use bitext_eval::word::{evaluate_word_translation, read_lexicon};
use bitext_transport::cases::{EmdCase, read_cases};
use bitext_transport::retrieval::{self, Proposals};
use bitext_transport::word::{Vocabulary, emd_translate};
use bitext_transport::{Problem, SolverSpec, TransportSolver};
use clap::{Args, Subcommand, ValueEnum};

use crate::flags::BadLinesArgs;
use crate::run::RejectSink;

/// What `--bad-lines` says in `bitext emd check --help`.
const CHECK_BAD_LINES: &str = "A line of --cases that cannot be read (not UTF-8, not a case, a \
    non-finite optimum): `error` stops, naming the file, line and reason; `skip` leaves it out \
    of the cases checked and timed, writes it to --rejects and counts it on standard error";

/// What `--bad-lines` says in `bitext emd translate --help`.
const TRANSLATE_BAD_LINES: &str = "A line of the vectors, frequencies or --lexicon that cannot \
    be read: `error` stops, naming the file, line and reason. `skip` is refused: a `.vec` file's \
    rows must match its header and every word needs its frequency, and a lexicon line left out \
    would change the precision and recall measured";

/// EMD subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum EmdCommand {
    /// Solve every problem of a JSON-lines file (`n, m, a, b, cost, optimum` per line, as
    /// `pot-emd-cases.jsonl`) and report, per size, solves per second and the largest relative
    /// deviation from the file's optimum; fails if any case deviates by more than the
    /// tolerance.
    Check(CheckArgs),
    /// Translate the words of one vocabulary into another: by the Earth Mover's Distance over
    /// word frequencies (Zhang et al. 2016) or by a retrieval baseline.
    Translate(TranslateArgs),
}

/// Arguments of `bitext emd check`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(CHECK_BAD_LINES)))]
pub(crate) struct CheckArgs {
    /// The cases: one JSON object per line.
    #[arg(long, value_name = "FILE")]
    cases: PathBuf,
    /// Largest accepted relative deviation from a case's optimum.
    #[arg(long, default_value_t = 1e-9, value_name = "REL")]
    tolerance: f64,
    /// Seconds to spend timing each size (0: check only).
    #[arg(long, default_value_t = 1.0, value_name = "SECS")]
    min_time: f64,
    #[command(flatten)]
    run: RunArgs,
}

/// The flags that end both `emd` subcommands: the solver, `--bad-lines` (each subcommand says
/// what it does in its help) and `-q`.
#[derive(Debug, Args)]
struct RunArgs {
    /// Solver as JSON, e.g. `{"type": "network_simplex", "initial": "vogel"}` (default: the
    /// exact network simplex).
    #[arg(long, value_name = "JSON")]
    solver: Option<String>,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
}

/// The cases of `path` (blank lines left out), each with its line, under the policy of
/// `rejects`, which keeps the lines skipped.
fn cases_skipping(path: &Path, rejects: &mut RejectSink) -> Result<Vec<(usize, EmdCase)>> {
    if rejects.bad_lines() == BadLines::Error {
        return Ok(read_cases(path)?);
    }
    let mut cases = Vec::new();
    let rejected =
        LineReader::open(path)?.each_line_skipping("cases", BadLines::Skip, |r, l| {
            if l.trim().is_empty() {
                return Ok(());
            }
            let c: EmdCase =
                serde_json::from_str(l).map_err(|e| r.error(format!("not a case: {e}")))?;
            if !c.optimum.is_finite() {
                return Err(r.error("the optimum is not a finite number"));
            }
            cases.push((r.line_number(), c));
            Ok(())
        })?;
    rejects.add(&rejected)?;
    if cases.is_empty() {
        bail!("{}: no cases", path.display());
    }
    Ok(cases)
}

fn solver_from(json: Option<&str>) -> Result<Box<dyn TransportSolver>> {
    let spec: SolverSpec = match json {
        Some(j) => serde_json::from_str(j).context("--solver is not a valid solver spec")?,
        None => SolverSpec::default(),
    };
    Ok(spec.build()?)
}

fn check(a: &CheckArgs) -> Result<()> {
    if !(a.tolerance.is_finite() && a.tolerance >= 0.0) {
        bail!("--tolerance must be a finite non-negative number");
    }
    if !(a.min_time.is_finite() && a.min_time >= 0.0) {
        bail!("--min-time must be a finite non-negative number of seconds");
    }
    let mut solver = solver_from(a.run.solver.as_deref())?;
    let mut rejects = RejectSink::new(&a.run.bad)?;
    let cases = cases_skipping(&a.cases, &mut rejects)?;
    rejects.finish(&a.cases)?;
    // Groups: square Euclidean problems by size, everything else by kind.
    let mut groups: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    let mut failures = 0;
    let mut worst_overall = 0.0f64;
    let mut deviation = vec![0.0; cases.len()];
    for (k, (line, c)) in cases.iter().enumerate() {
        let at = || format!("{}:{line}", a.cases.display());
        let p = c.problem().with_context(at)?;
        let t = solver.solve(&p).with_context(at)?;
        let dev = (t.cost - c.optimum).abs() / c.optimum.abs().max(f64::MIN_POSITIVE);
        if dev > a.tolerance {
            failures += 1;
            eprintln!(
                "{}: cost {} but the optimum is {} (relative deviation {dev:.2e})",
                at(),
                t.cost,
                c.optimum
            );
        }
        deviation[k] = dev;
        worst_overall = worst_overall.max(dev);
        let kind = c.kind.clone().unwrap_or_else(|| "case".into());
        let key = if c.n == c.m && kind == "euclid" {
            (c.n, format!("{}×{}", c.n, c.m))
        } else {
            (usize::MAX, format!("{kind}, mixed sizes"))
        };
        groups.entry(key).or_default().push(k);
    }
    println!(
        "{:<24} {:>6} {:>12} {:>12} {:>12}",
        "size", "cases", "solves/s", "median ms", "max rel dev"
    );
    for ((_, name), idx) in &groups {
        let problems: Vec<Problem<'_>> = idx
            .iter()
            .map(|&k| cases[k].1.problem())
            .collect::<Result<_, _>>()?;
        let worst = idx.iter().map(|&k| deviation[k]).fold(0.0, f64::max);
        let (rate, median) = if a.min_time > 0.0 {
            time_solves(solver.as_mut(), &problems, a.min_time)?
        } else {
            (f64::NAN, f64::NAN)
        };
        println!(
            "{name:<24} {:>6} {rate:>12.1} {:>12.4} {worst:>12.2e}",
            idx.len(),
            median * 1e3
        );
    }
    println!(
        "{} cases, largest relative deviation {worst_overall:.2e} (tolerance {:.0e}), solver: {}",
        cases.len(),
        a.tolerance,
        solver.name()
    );
    if failures > 0 {
        bail!(
            "{failures} of {} cases deviate from their optimum by more than {:.0e}",
            cases.len(),
            a.tolerance
        );
    }
    Ok(())
}

/// Solve the problems cyclically for at least `min_time` seconds (and at least 5 solves);
/// returns solves per second (1 / median time) and the median time in seconds.
fn time_solves(
    solver: &mut dyn TransportSolver,
    problems: &[Problem<'_>],
    min_time: f64,
) -> Result<(f64, f64)> {
    solver.solve(&problems[0])?;
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || start.elapsed().as_secs_f64() < min_time {
        let p = &problems[times.len() % problems.len()];
        let t = Instant::now();
        std::hint::black_box(solver.solve(p)?);
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    Ok((1.0 / median, median))
}

/// How `bitext emd translate` proposes translations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Method {
    /// Earth Mover's Distance over word frequencies (the number of proposals per word comes
    /// out of the transport).
    Emd,
    /// Nearest neighbours by cosine.
    Nn,
    /// Cross-domain similarity local scaling (neighbourhood 10).
    Csls,
    /// Globally corrected retrieval (Dinu et al. 2014) over all loaded source words.
    Gc,
}

/// Arguments of `bitext emd translate`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(TRANSLATE_BAD_LINES)))]
pub(crate) struct TranslateArgs {
    /// Source word vectors (fastText `.vec`, most frequent first).
    #[arg(long, value_name = "FILE")]
    src_vec: PathBuf,
    /// Source word frequencies (`word<TAB>count`).
    #[arg(long, value_name = "FILE")]
    src_freq: PathBuf,
    /// Target word vectors, in the same space as the source vectors.
    #[arg(long, value_name = "FILE")]
    tgt_vec: PathBuf,
    /// Target word frequencies.
    #[arg(long, value_name = "FILE")]
    tgt_freq: PathBuf,
    /// Translate the first N source words.
    #[arg(long, default_value_t = 4000, value_name = "N")]
    src_words: usize,
    /// Translate into the first N target words.
    #[arg(long, default_value_t = 10000, value_name = "N")]
    tgt_words: usize,
    /// Method.
    #[arg(long, value_enum, default_value_t = Method::Emd)]
    method: Method,
    /// Proposals per word for the retrieval methods; for the EMD, keep at most K (default:
    /// all of them).
    #[arg(long, value_name = "K")]
    k: Option<usize>,
    /// Output: `source<TAB>target<TAB>score` per proposal, best first (the score is the moved
    /// mass for the EMD, the similarity for NN and CSLS, minus the rank for GC).
    #[arg(long = "output", short = 'o', alias = "out", value_name = "FILE")]
    out: PathBuf,
    /// Evaluate against a `source<TAB>target` lexicon and print P/R/F1/accuracy.
    #[arg(long, value_name = "FILE")]
    lexicon: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
}

fn translate(a: &TranslateArgs) -> Result<()> {
    if a.run.bad.bad_lines() == BadLines::Skip {
        bail!(
            "--bad-lines skip is refused by emd translate: a `.vec` file's rows must match its \
             header and every word needs its frequency, and a --lexicon line left out would \
             change the precision and recall measured; fix the line the error names"
        );
    }
    // Only to refuse --rejects without --bad-lines skip, as every command does.
    RejectSink::new(&a.run.bad)?;
    if a.src_words == 0 || a.tgt_words == 0 {
        bail!("--src-words and --tgt-words must be at least 1");
    }
    crate::run::check_outputs([Some(a.out.as_path())])?;
    if a.k == Some(0) {
        bail!("--k must be at least 1");
    }
    let src_all = Vocabulary::load(&a.src_vec, &a.src_freq, None)?;
    let src = src_all.head(a.src_words);
    let tgt = Vocabulary::load(&a.tgt_vec, &a.tgt_freq, Some(a.tgt_words))?;
    let start = Instant::now();
    let k = a.k.unwrap_or(1);
    let proposals = match a.method {
        Method::Emd => {
            let mut solver = solver_from(a.run.solver.as_deref())?;
            let e = emd_translate(&src, &tgt, solver.as_mut())?;
            if !a.run.quiet.quiet {
                eprintln!(
                    "EMD {} × {} words: distance {:.6}, {} plan entries, {} pivots",
                    src.len(),
                    tgt.len(),
                    e.transport.distance(),
                    e.transport.plan.len(),
                    e.transport.iterations
                );
            }
            match a.k {
                Some(k) => e.proposals.top(k),
                None => e.proposals,
            }
        }
        Method::Nn => retrieval::nearest_neighbours(src.vectors(), tgt.vectors(), k)?,
        Method::Csls => retrieval::csls(src.vectors(), tgt.vectors(), src_all.vectors(), 10, k)?,
        Method::Gc => {
            let extra = src_all.vectors().slice_rows(src.len()..src_all.len());
            let extra = (!extra.is_empty()).then_some(extra);
            retrieval::globally_corrected(src.vectors(), tgt.vectors(), extra, k)?
        }
    };
    if !a.run.quiet.quiet {
        eprintln!(
            "{} source words translated in {:.1} s, {:.2} proposals per word",
            src.len(),
            start.elapsed().as_secs_f64(),
            proposals.mean_len()
        );
    }
    write_proposals(&a.out, &src, &tgt, &proposals)?;
    if let Some(lex) = &a.lexicon {
        let lexicon = read_lexicon(lex)?;
        let vocab: HashSet<String> = tgt.words().iter().cloned().collect();
        let index: std::collections::HashMap<&str, usize> = src
            .words()
            .iter()
            .enumerate()
            .map(|(i, w)| (w.as_str(), i))
            .collect();
        let r = evaluate_word_translation(
            src.words(),
            |w| {
                proposals
                    .get(index[w])
                    .iter()
                    .map(|&(t, _)| tgt.words()[t].as_str())
                    .collect::<Vec<_>>()
            },
            &lexicon,
            &vocab,
        )?;
        println!(
            "{} test words (of {}; {} out of lexicon, {} out of coverage): P {:.4} R {:.4} F1 {:.4} accuracy {:.4} K {:.2}",
            r.instances,
            r.source_words,
            r.out_of_lexicon,
            r.out_of_coverage,
            r.precision,
            r.recall,
            r.f1,
            r.accuracy,
            r.k
        );
    }
    Ok(())
}

fn write_proposals(
    path: &Path,
    src: &Vocabulary,
    tgt: &Vocabulary,
    proposals: &Proposals,
) -> Result<()> {
    let mut out = AtomicFile::create_text(path)?;
    for (i, w) in src.words().iter().enumerate() {
        for &(t, score) in proposals.get(i) {
            writeln!(out, "{w}\t{}\t{score}", tgt.words()[t]).map_err(|e| out.err(e))?;
        }
    }
    out.commit()?;
    Ok(())
}

pub(crate) fn run(cmd: EmdCommand) -> Result<()> {
    match cmd {
        EmdCommand::Check(a) => check(&a),
        EmdCommand::Translate(a) => translate(&a),
    }
}
