//! Evaluation `distill-aligner`: the word-alignment BiLSTM as a student of the production
//! encoder (issue 31, "a distilled student per family"). It is trained from the committed
//! recipe `recipes/aligner-distill.json` (the aligner over the fixed USE-M subword vectors with
//! their bag, its word loss on every mix of synthetic examples, and the teacher's vectors of
//! the paired examples' English side) with the `aligner` section's 300 held-out validation
//! pairs, and measured as the `distill` section measures its students, side by side with the
//! teacher, the aligner of the `aligner` section (no teacher, when it left its model in
//! `BITEXT_EVAL_OUT`) and the mean bag of the same subword vectors.

use std::fmt::Write as _;

use anyhow::{Context, Result};

use super::distill::{history, load, measure, teacher_graph, teacher_row, with_bag_table};
use super::neural::out_dir;
use super::neural_mining::read_bucc;
use super::{Ctx, aligner, recipe};

/// The committed recipe of the student.
const RECIPE: &str = "aligner-distill.json";

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let mut md = String::new();
    let model = match teacher_graph() {
        Ok(m) => m,
        Err(why) => {
            writeln!(md, "Skipped: {why}.")?;
            return Ok(md);
        }
    };
    let data = aligner::data(ctx)?;
    let valid = aligner::valid_files(&data)?;
    let trained = recipe::train(ctx, "aligner", RECIPE, &valid, &out_dir("aligner-distill"))
        .context("training the aligner student")?;
    trained.describe(&mut md)?;
    history(&mut md, &trained.state, true)?;
    let bucc = read_bucc(ctx)?;
    let threads = 2;
    let mut rows = vec![teacher_row(ctx, &bucc, &model, threads)?];
    let student = load("aligner", &trained.dir)?;
    rows.push(measure(
        ctx,
        &bucc,
        &format!("aligner student: `{RECIPE}`"),
        &*student,
    )?);
    let mut missing = String::new();
    match load("aligner", &out_dir("aligner-puri-words")) {
        Ok(enc) => rows.push(measure(
            ctx,
            &bucc,
            "aligner, no teacher: `aligner-news.json` (P+U+R+I, `wemb`)",
            &*enc,
        )?),
        Err(e) => write!(
            missing,
            " (The aligner without a teacher is missing: {e}; `cargo xtask eval aligner` \
             trains it.)"
        )?,
    }
    with_bag_table(ctx, &bucc, md, rows, threads, &missing)
}
