//! Evaluation `distill-aligner`: the word-alignment BiLSTM as a student of the production
//! encoder (issue 31, "a distilled student per family"). It is trained from the committed
//! recipe `recipes/aligner-distill.json` (the aligner over the fixed USE-M subword vectors with
//! their bag, its word loss on every mix of synthetic examples, the teacher's vectors of the
//! paired examples' English side, and the distillation pairs of the catalogues and the game
//! dialogue when the recipe names them) with the `aligner` section's 300 held-out validation
//! pairs, and measured as the `distill` section measures its students, side by side with the
//! teacher, the aligner of the `aligner` section (no teacher, when it left its model in
//! `BITEXT_EVAL_OUT`) and the mean bag of the same subword vectors; its word labels and
//! fixing on the `aligner` section's test pairs.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use bitext_neural::aligner::{AlignerModel, Objective};
use bitext_neural::backend::BackendSpec;

use super::distill::{history, load, measure, teacher_graph, teacher_row, with_bag_table};
use super::neural::out_dir;
use super::neural_mining::read_bucc;
use super::{Ctx, aligner, recipe};

/// The committed recipe of the student.
const RECIPE: &str = "aligner-distill.json";

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let model = match teacher_graph() {
        Ok(m) => m,
        Err(why) => return Ok(format!("Skipped: {why}.\n")),
    };
    if recipe::load(RECIPE)?.1.contains("${BITEXT_DIALOGUE}")
        && let Err(why) = recipe::DIALOGUE.check()
    {
        return Ok(format!("Skipped: {why}.\n"));
    }
    let mut md = String::new();
    let data = aligner::data(ctx)?;
    let valid = aligner::valid_files(&data)?;
    let trained = recipe::train(ctx, "aligner", RECIPE, &valid, &out_dir("aligner-distill"))
        .context("training the aligner student")?;
    trained.describe(&mut md)?;
    history(&mut md, &trained.state, true)?;
    // The word labels and fixing on the `aligner` section's test pairs (its Table 2 row and
    // fixing table), links from IBM Model 1 on the student's own pieces.
    let student = AlignerModel::load(&trained.dir, BackendSpec::Flex)?;
    let links = aligner::Links1::new();
    let row = aligner::table_row(&student, &data, &links, "P+U+R+I, with the teacher")?;
    writeln!(
        md,
        "**Word-divergence accuracy** on the `aligner` section's test examples (500 from its \
         held-out test pairs: 200 P, 100 U, 100 R, 100 I, seeded as there):\n\n\
         | model | P | U | R | I | PURI |\n|---|---|---|---|---|---|\n{row}\n"
    )?;
    super::aligner_fix::fixing(&student, "the student", &data, &links, &mut md)?;
    super::aligner_fix::reranking(&student, "the student", &data, &links, &mut md)?;
    let bucc = read_bucc(ctx)?;
    let threads = 2;
    let mut rows = vec![teacher_row(ctx, &bucc, &model, threads)?];
    rows.push(measure(
        ctx,
        &bucc,
        &format!("aligner student: `{RECIPE}`"),
        &student,
    )?);
    let mut missing = String::new();
    let long = aligner::model_name(
        "PURI",
        Objective::Words,
        Some(aligner::LONG_R),
        Some(aligner::LONG_MINUTES),
    );
    match load(&out_dir(&long)) {
        Ok(enc) => rows.push(measure(
            ctx,
            &bucc,
            &format!(
                "aligner, no teacher: `aligner-news.json` (P+U+R+I, {} min, r = {}, plateau \
                 factor {}, `wemb`)",
                aligner::LONG_MINUTES,
                aligner::LONG_R,
                aligner::LONG_PLATEAU_FACTOR
            ),
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
