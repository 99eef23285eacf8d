//! Evaluation `clean`: cleaning a labelled noisy crawl built from real pairs
//! (`bitext_eval::crawl` over the 3,000 line-parallel pairs of `dev/newstest-dev.en-de`, HTML
//! entities of its Moses escaping decoded, with
//! French Tatoeba sentences as the wrong language; seed 72). Each system keeps some lines;
//! reported: precision, recall and F1 of the parallel pairs kept (a ranking scorer keeps its
//! best lines up to the parallel count), and each noise kind's removal rate:
//! (a) the cosine of the subword bag of words (TF-IDF over `bwe/usem.spm128k.vec`) alone;
//! (b0) `bitext clean`'s default recipe without language identification (rules and
//! near-duplicates, `--src-lang de --tgt-lang en`); (b) with it (fastText's `lid.176.ftz`,
//! `$BITEXT_LID_MODEL` or `~/.cache/bitext/lid/`); (b+a) that recipe, then the cosine at the
//! parallel count;
//! (c) bicleaner-hardrules and opusfilter, when `benches/clean_side_by_side.py` has run on the
//! crawl this task writes (`target/eval/clean/crawl.de-en.tsv`; their keep files under
//! `target/eval/clean/tools/`, `$BITEXT_CLEAN_TOOLS` to change it).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use std::sync::Arc;

use bitext::clean::{Cleaner, Recipe, Rules};
use bitext::core::io::AtomicFile;
use bitext::core::io::text::{EmptyLines, read_lines};
use bitext::core::{Embeddings, Rng};
use bitext::encode::Side;
use bitext::eval::crawl::{CrawlConfig, CrawlLine, Kind, noisy_crawl};
use bitext::eval::prf::Prf;
use bitext::lid::{FastText, LanguageIdentifier};

use super::Ctx;
use super::bucc_bow::pieces_builder;

const SEED: u64 = 72;

/// Where the crawl and the tools' keep files live.
fn work_dir() -> PathBuf {
    crate::project_root().join("target/eval/clean")
}

/// One system's verdict: which lines it keeps.
struct Kept {
    /// The column heading of the per-kind table.
    short: String,
    name: String,
    keep: Vec<bool>,
    note: String,
}

/// The labelled noisy crawl (seed [`SEED`]): newstest's pairs, HTML entities decoded, and the
/// noise of `bitext_eval::crawl`, French Tatoeba sentences as the wrong language.
pub(super) fn crawl_lines(ctx: &Ctx) -> Result<Vec<CrawlLine>> {
    let (de, en) = ctx.parallel("dev/newstest-dev.en-de", ("de", "en"), EmptyLines::Reject)?;
    // newstest is Moses-escaped (`&quot;`, `&apos;`): a crawl's parallel text is not.
    let plain = |s: String| bitext::tokenize::unescape_html(&s).into_owned();
    let pairs: Vec<(String, String)> = de
        .into_iter()
        .map(plain)
        .zip(en.into_iter().map(plain))
        .collect();
    let fr = read_lines(
        ctx.path("dev/tatoeba/tatoeba.fra-eng.fra"),
        EmptyLines::Reject,
    )?;
    Ok(noisy_crawl(
        &pairs,
        &fr,
        &CrawlConfig::default(),
        &mut Rng::seed(SEED),
    )?)
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let lines = crawl_lines(ctx)?;
    let crawl = work_dir().join("crawl.de-en.tsv");
    std::fs::create_dir_all(work_dir())?;
    let mut out = AtomicFile::create_text(&crawl)?;
    for l in &lines {
        writeln!(out, "{}\t{}\t{}", l.kind.name(), l.src, l.tgt).map_err(|e| out.err(e))?;
    }
    out.commit()?;
    let parallel = lines.iter().filter(|l| l.kind == Kind::Parallel).count();

    let start = Instant::now();
    let cosines = cosines(ctx, &lines)?;
    let cos_secs = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let rules = recipe_keep(&lines, None)?;
    let rule_secs = start.elapsed().as_secs_f64();
    let lid = lid_model();
    let start = Instant::now();
    let with_lid = lid
        .as_ref()
        .map(|m| recipe_keep(&lines, Some((m.clone(), 0.0))))
        .transpose()?;
    let lid_secs = start.elapsed().as_secs_f64();
    let mut systems = vec![
        Kept {
            short: "a".into(),
            name: "(a) cosine of the subword bag of words, alone".into(),
            keep: top(&cosines, &vec![true; lines.len()], parallel),
            note: "its best lines up to the parallel count".into(),
        },
        Kept {
            short: "b0".into(),
            name: "(b0) `bitext clean --no-lid`".into(),
            keep: rules.clone(),
            note: "rules and near-duplicates; `--src-lang de --tgt-lang en`".into(),
        },
    ];
    if let Some(keep) = &with_lid {
        systems.push(Kept {
            short: "**b**".into(),
            name: "(b) `bitext clean`, default recipe".into(),
            keep: keep.clone(),
            note: "rules, language identification (lid.176: each side read as its language), near-duplicates".into(),
        });
        for p in [0.25, 0.5] {
            let model = lid.clone().map(|m| (m, p));
            systems.push(Kept {
                short: format!("b, {p}"),
                name: format!("(b) `--min-lang-confidence {p}`"),
                keep: recipe_keep(&lines, model)?,
                note: format!("as (b), each side's language at least {p} probable"),
            });
        }
    }
    let best = with_lid.as_ref().unwrap_or(&rules);
    systems.push(Kept {
        short: "b+a".into(),
        name: "(b+a) the recipe, then the cosine".into(),
        keep: top(&cosines, best, parallel),
        note: "the lines the recipe keeps, their best up to the parallel count".into(),
    });
    let (python, speed) = tools(lines.len())?;
    systems.extend(python);

    let mut md = String::new();
    writeln!(
        md,
        "{} lines: {parallel} parallel pairs of `dev/newstest-dev.en-de` and the noise of \
         `bitext_eval::crawl` (3% of the pairs per kind; seed {SEED}), written to \
         `target/eval/clean/crawl.de-en.tsv` (`label<TAB>de<TAB>en`).\n",
        lines.len()
    )?;
    writeln!(md, "| system | P | R | F1 | kept | how |")?;
    writeln!(md, "|---|---|---|---|---|---|")?;
    for s in &systems {
        let tp = s
            .keep
            .iter()
            .zip(&lines)
            .filter(|(k, l)| **k && l.kind == Kind::Parallel)
            .count();
        let kept = s.keep.iter().filter(|k| **k).count();
        let prf = Prf::from_counts(tp, kept, parallel);
        writeln!(
            md,
            "| {} | {:.3} | {:.3} | **{:.3}** | {kept} | {} |",
            s.name, prf.precision, prf.recall, prf.f1, s.note
        )?;
    }
    writeln!(
        md,
        "\nShare of each kind's lines removed (parallel: the share lost):\n"
    )?;
    let short: Vec<&str> = systems.iter().map(|s| s.short.as_str()).collect();
    let keeps: Vec<&[bool]> = systems.iter().map(|s| s.keep.as_slice()).collect();
    kind_table(&mut md, &lines, &short, &keeps)?;
    writeln!(
        md,
        "\nIn this process, one thread: the recipe without language identification {:.0} \
         lines/s, with it {}, the bag-of-words cosine {:.0} lines/s (both sides encoded).",
        lines.len() as f64 / rule_secs.max(1e-9),
        if with_lid.is_some() {
            format!("{:.0} lines/s", lines.len() as f64 / lid_secs.max(1e-9))
        } else {
            "not run (no lid.176.ftz: `$BITEXT_LID_MODEL`)".into()
        },
        lines.len() as f64 / cos_secs.max(1e-9)
    )?;
    md.push_str(&speed);
    Ok(md)
}

/// The table of each noise kind's share of lines each system removes (`keeps[s][i]`: whether
/// system `s` keeps line `i`), one column per system.
pub(super) fn kind_table(
    md: &mut String,
    lines: &[CrawlLine],
    names: &[&str],
    keeps: &[&[bool]],
) -> Result<()> {
    writeln!(md, "| kind | lines | {} |", names.join(" | "))?;
    writeln!(md, "|---|---|{}", "---|".repeat(names.len()))?;
    for kind in Kind::ALL {
        let idx: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].kind == kind)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let rates: Vec<String> = keeps
            .iter()
            .map(|keep| {
                let removed = idx.iter().filter(|&&i| !keep[i]).count();
                format!("{:.0}%", 100.0 * removed as f64 / idx.len() as f64)
            })
            .collect();
        writeln!(
            md,
            "| {} | {} | {} |",
            kind.name(),
            idx.len(),
            rates.join(" | ")
        )?;
    }
    Ok(())
}

/// The cosine of each line's two sides under the subword bag of words (TF-IDF over the
/// crawl's own sides; a side without a known piece scores 0), by the workspace's `cosine`.
fn cosines(ctx: &Ctx, lines: &[CrawlLine]) -> Result<Vec<f64>> {
    let src: Vec<&str> = lines.iter().map(|l| l.src.as_str()).collect();
    let tgt: Vec<&str> = lines.iter().map(|l| l.tgt.as_str()).collect();
    let enc = pieces_builder(ctx)?.tfidf(&src, &tgt).build()?;
    let (s, t): (Embeddings, Embeddings) = (
        enc.encode_with_coverage(Side::Source, &src)?.0,
        enc.encode_with_coverage(Side::Target, &tgt)?.0,
    );
    // The workspace's cosine (0 for a side without a known piece).
    Ok((0..lines.len())
        .map(|i| f64::from(bitext::similarity::cosine(s.row(i), t.row(i))))
        .collect())
}

/// fastText's `lid.176.ftz`: `$BITEXT_LID_MODEL`, else `~/.cache/bitext/lid/lid.176.ftz`.
pub(super) fn lid_model() -> Option<Arc<dyn LanguageIdentifier>> {
    let path = bitext::lid::default_model_path()?;
    match FastText::open(&path) {
        Ok(m) => Some(Arc::new(m)),
        Err(e) => {
            eprintln!("eval clean: no language identification: {e}");
            None
        }
    }
}

/// The lines `bitext clean`'s default recipe keeps (languages de and en), with language
/// identification by `lid` when given.
fn recipe_keep(
    lines: &[CrawlLine],
    lid: Option<(Arc<dyn LanguageIdentifier>, f64)>,
) -> Result<Vec<bool>> {
    let mut recipe = Recipe {
        rules: Rules {
            src_lang: Some("de".into()),
            tgt_lang: Some("en".into()),
            ..Rules::default()
        },
        ..Recipe::default()
    };
    if let Some((_, p)) = &lid {
        recipe.lid.min_confidence = *p;
    }
    let mut c = Cleaner::new(recipe)?;
    if let Some((lid, _)) = lid {
        c = c.with_identifier(lid)?;
    }
    for l in lines {
        c.count(&l.src, &l.tgt);
    }
    Ok(lines
        .iter()
        .enumerate()
        .map(|(i, l)| c.judge(i + 1, &l.src, &l.tgt).is_none())
        .collect())
}

/// The `n` best-scoring lines among those `allowed` (ties in input order).
pub(super) fn top(scores: &[f64], allowed: &[bool], n: usize) -> Vec<bool> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| allowed[i]).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut keep = vec![false; scores.len()];
    for &i in order.iter().take(n) {
        keep[i] = true;
    }
    keep
}

/// The Python tools' verdicts, when `benches/clean_side_by_side.py` wrote them: `TOOL.keep`
/// (a 0 or 1 per crawl line) for each tool of its `summary.json`, and each tool's speed (lines
/// per CPU second of the whole process, start-up included), bitext's `clean` command among
/// them.
fn tools(n: usize) -> Result<(Vec<Kept>, String)> {
    let dir = std::env::var_os("BITEXT_CLEAN_TOOLS")
        .map_or_else(|| work_dir().join("tools"), PathBuf::from);
    let Ok(text) = std::fs::read_to_string(dir.join("summary.json")) else {
        eprintln!(
            "eval clean: no summary.json of the Python tools in {} (run benches/clean_side_by_side.py)",
            dir.display()
        );
        return Ok((Vec::new(), String::new()));
    };
    let summary: serde_json::Value = serde_json::from_str(&text)?;
    let mut out = Vec::new();
    let mut speed = String::from(
        "\n| process (`benches/clean_side_by_side.py`, one worker each) | lines per CPU second | wall s (start-up s) |\n|---|---|---|\n",
    );
    for (name, t) in summary["tools"].as_object().into_iter().flatten() {
        let path = dir.join(format!("{name}.keep"));
        let keep: Vec<bool> = std::fs::read_to_string(&path)?
            .lines()
            .map(|l| l.trim() == "1")
            .collect();
        anyhow::ensure!(
            keep.len() == n,
            "{}: {} lines for a crawl of {n}: run benches/clean_side_by_side.py on this crawl again",
            path.display(),
            keep.len()
        );
        writeln!(
            speed,
            "| {name} | {:.0} | {:.2} ({:.2}) |",
            t["lines_per_cpu_s"].as_f64().unwrap_or(f64::NAN),
            t["wall_s"].as_f64().unwrap_or(f64::NAN),
            t["startup_s"].as_f64().unwrap_or(f64::NAN)
        )?;
        if name == "bitext" {
            continue;
        }
        out.push(Kept {
            short: name.clone(),
            name: format!("(c) {name}"),
            keep,
            note: "configured as `benches/clean_side_by_side.md` says".into(),
        });
    }
    Ok((out, speed))
}
