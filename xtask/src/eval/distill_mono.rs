//! Evaluation `distill-mono`: a language without parallel data (issue 31: "a student may also
//! learn a language it has no parallel data for, from the teacher's vectors of its monolingual
//! text"). The siamese student of `recipes/siamese-distill.json` is trained three times for the
//! same minutes and seed, its French taught three ways:
//!
//! 1. **zero-shot**: German–English pairs only (the WMT sample and the gettext de-en
//!    catalogues); French reaches the student only through the subword vectors it shares;
//! 2. **monolingual**: the same pairs, plus the French side of the gettext en-fr catalogues as
//!    monolingual text (`--teacher-text`: each sentence trained towards the teacher's vector of
//!    itself; no English is paired with it);
//! 3. **parallel**: the recipe's own data (those French sentences paired with their English,
//!    pulled towards the teacher's vector of the English).
//!
//! All three are measured as the `distill` section measures its students (Tatoeba fra-eng for
//! everyday French; newsdev, Tatoeba deu-eng and recovery for what the French costs the
//! German), and on the French of the catalogues themselves: French → English P@1 among 5000
//! of their pairs, which the monolingual run read without the English and the parallel run
//! trained on (an in-domain check of what the French text taught, not a held-out test); the
//! mean bag of the subword vectors all three start from is measured beside them.

use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::{Context, Result};
use bitext::core::Rng;
use bitext::core::io::AtomicFile;
use bitext::encode::{SentenceEncoder, Side};

use super::distill::{history, load, measure, teacher_graph};
use super::neural::out_dir;
use super::neural_mining::{p_at_1, read_bucc};
use super::{Ctx, recipe};

/// The recipe every run starts from.
const RECIPE: &str = "siamese-distill.json";

/// Minutes each run trains (the recipe's 45 are for the committed student).
const MINUTES: &str = "15";

/// The gettext en-fr catalogues, the French (second) column.
const FRENCH: &str = "train/gettext.en-fr.tsv";

/// Pairs of the catalogues the in-domain check retrieves among (drawn with a fixed seed).
const IN_DOMAIN: usize = 5000;

/// The French sentences `fr`, each once, in their first order, into `file`; how many.
fn french_text(fr: &[String], file: &std::path::Path) -> Result<usize> {
    let mut seen = std::collections::HashSet::new();
    let mut f = AtomicFile::create(file)?;
    for s in fr {
        if seen.insert(s.as_str()) {
            writeln!(f, "{s}").with_context(|| format!("writing {}", file.display()))?;
        }
    }
    f.commit()?;
    Ok(seen.len())
}

/// French → English P@1 among [`IN_DOMAIN`] catalogue pairs drawn with a fixed seed (French
/// through the source side).
fn in_domain(enc: &dyn SentenceEncoder, fr: &[String], en: &[String]) -> Result<f64> {
    let idx = Rng::seed(31).sample_indices(fr.len(), IN_DOMAIN.min(fr.len()));
    let x: Vec<&str> = idx.iter().map(|&i| fr[i].as_str()).collect();
    let y: Vec<&str> = idx.iter().map(|&i| en[i].as_str()).collect();
    let x = enc.encode(Side::Source, &x)?;
    let y = enc.encode(Side::Target, &y)?;
    Ok(p_at_1(&x, &y)?.0)
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    if let Err(why) = teacher_graph() {
        return Ok(format!("Skipped: {why}.\n"));
    }
    if let Err(why) = recipe::DIALOGUE.check() {
        return Ok(format!("Skipped: {why}.\n"));
    }
    let base = out_dir("distill-mono");
    std::fs::create_dir_all(&base).with_context(|| format!("creating {}", base.display()))?;
    let mono = base.join("gettext.fr.txt");
    let (fr, en) = super::neural::gettext(ctx, FRENCH)?;
    let n_mono = french_text(&fr, &mono)?;
    let de_en = ctx.path("train/gettext.en-de.tsv").display().to_string();
    let budget = ["--time-limit".to_string(), MINUTES.to_string()];
    let only_de = [&budget[..], &["--input".to_string(), de_en]].concat();
    let runs: [(&str, &str, Vec<String>); 3] = [
        (
            "zero-shot",
            "German–English pairs only: French never seen",
            only_de.clone(),
        ),
        (
            "monolingual",
            "the same pairs, plus the French sentences alone (`--teacher-text`)",
            [
                &only_de[..],
                &["--teacher-text".to_string(), mono.display().to_string()],
            ]
            .concat(),
        ),
        (
            "parallel",
            "the recipe's data: the French sentences paired with their English",
            budget.to_vec(),
        ),
    ];
    let mut md = String::new();
    writeln!(
        md,
        "The siamese student of `recipes/{RECIPE}`, {MINUTES} minutes each, the same seed, its \
         French taught three ways. The monolingual text is the French column of \
         `{FRENCH}`, each sentence once ({n_mono} sentences): the same French as the parallel \
         run's, without its English.\n"
    )?;
    let mut trained = Vec::new();
    for (name, _, extra) in &runs {
        let t = recipe::train(ctx, "siamese", RECIPE, extra, &base.join(name))
            .with_context(|| format!("training the {name} student"))?;
        writeln!(
            md,
            "**{name}**: `{}`, {}.{}\n",
            t.command,
            t.seconds.map_or_else(
                || "reused (`BITEXT_EVAL_REUSE=1`)".to_string(),
                |s| format!("{:.1} min", s / 60.0)
            ),
            if t.notes.is_empty() {
                String::new()
            } else {
                format!(" It reported: {}.", t.notes.join("; "))
            }
        )?;
        history(&mut md, &t.state, false)?;
        trained.push(t);
    }
    let bucc = read_bucc(ctx)?;
    writeln!(
        md,
        "**Side by side** (as the `distill` section: newsdev best F1 of `max` retrieval with the \
         ratio margin, k = 4; Tatoeba P@1 by cosine; recovery: CSLS 1-NN error on the 3000 \
         `newstest-dev` pairs; in-domain: French → English P@1 among {IN_DOMAIN} pairs of \
         `{FRENCH}` drawn with a fixed seed, French the monolingual run read without its \
         English and the parallel run trained on with it):\n\n\
         | French in training | newsdev F1 | Tatoeba deu→eng | fra→eng | recovery CSLS | \
         in-domain fr→en |\n|---|---|---|---|---|---|"
    )?;
    let mut encoders = Vec::new();
    for ((name, what, _), t) in runs.iter().zip(&trained) {
        encoders.push((*name, format!("{name}: {what}"), load(&t.dir)?));
    }
    // The bag the students start from: the mean of the same subword vectors, no training.
    let bag: Box<dyn SentenceEncoder> = Box::new(super::bucc_bow::pieces_encoder(ctx)?);
    encoders.push((
        "bag",
        "no training: the mean bag of the `usem.spm128k.vec` pieces the students read".into(),
        bag,
    ));
    for (name, what, student) in &encoders {
        let r = measure(ctx, &bucc, name, &**student)?;
        writeln!(
            md,
            "| {what} | {:.3} | {:.3} | **{:.3}** | {:.2}% | {:.3} |",
            r.f1.1,
            r.tatoeba.0,
            r.tatoeba.1,
            100.0 * r.recovery.1,
            in_domain(&**student, &fr, &en)?
        )?;
    }
    Ok(md)
}
