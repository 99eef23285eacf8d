//! Evaluation `multilingual`: one siamese student for every language of its teacher (issue
//! 75). The student of `recipes/multilingual-distill.json` (the network of
//! `recipes/siamese-distill.json`, trained also on the English pairs of Debian's translation
//! catalogues in the fifteen other languages of USE-M, `recipes/data/multilingual_catalogs.py`)
//! is measured beside its teacher and beside today's student (`recipes/siamese-distill.json`,
//! German and French only, the model the `distill` section trains) on a dev set of every
//! language: the shared Tatoeba sets where there is one, else the catalogue pairs held out by
//! package. Per language: 1-NN error by cosine both ways (language → English, English →
//! language) and the student's error over the teacher's; where the student loses (each side's
//! vectors from the student against the other's from the teacher, and the errors by sentence
//! length); the German sentences the teacher matches and the student misses; then the `distill` section's German
//! measures (newsdev, Tatoeba, recovery) of both students, and sentences per second of each
//! encoder over all dev sentences. The mean bag of the teacher's subword vectors
//! (`bwe/usem.spm128k.vec`, the `distill` section's baseline) is measured beside them.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::Embeddings;
use bitext::core::io::text::EmptyLines;
use bitext::encode::{OnnxSpec, SentenceEncoder, Side};
use bitext_onnx::OnnxEncoder;

use super::distill::{history, load, measure, teacher_graph};
use super::neural::out_dir;
use super::neural_mining::{nearest, p_at_1, read_bucc};
use super::{Ctx, recipe};

/// The committed recipe of the multilingual student.
const RECIPE: &str = "multilingual-distill.json";

/// Today's student (German and French), as the `distill` section trains it.
const TODAY: (&str, &str) = ("siamese-distill.json", "siamese-distill");

/// Every language of the teacher but English: the catalogues' code, its name, and its
/// Tatoeba code where the shared data has a Tatoeba dev set (else the held-out catalogue
/// pairs `dev/catalogs.en-CODE.tsv` of the multilingual folder).
const LANGS: [(&str, &str, Option<&str>); 15] = [
    ("de", "German", Some("deu")),
    ("fr", "French", Some("fra")),
    ("es", "Spanish", Some("spa")),
    ("it", "Italian", Some("ita")),
    ("pt", "Portuguese", Some("por")),
    ("nl", "Dutch", Some("nld")),
    ("ru", "Russian", Some("rus")),
    ("ja", "Japanese", Some("jpn")),
    ("ar", "Arabic", None),
    ("ko", "Korean", None),
    ("pl", "Polish", None),
    ("th", "Thai", None),
    ("tr", "Turkish", None),
    ("zh_CN", "Chinese (simplified)", None),
    ("zh_TW", "Chinese (traditional)", None),
];

/// The mean bag of the subword vectors of `bwe/usem.spm128k.vec` (the 128k pieces' vectors
/// each embedded alone by the teacher; a sentence without a known piece is the zero vector):
/// what the neural students improve on, with no training.
const BAG: &str = "mean bag of pieces";

/// The aim: the student's error at most this many times the teacher's, in every language.
const AIM: f64 = 1.3;

/// A language's dev pairs: (language, English).
struct Dev {
    code: &'static str,
    name: &'static str,
    source: String,
    xx: Vec<String>,
    en: Vec<String>,
}

/// The dev pairs of every language, or why there are none.
fn dev_sets(ctx: &Ctx, dir: &std::path::Path) -> Result<std::result::Result<Vec<Dev>, String>> {
    let mut out = Vec::new();
    for (code, name, tatoeba) in LANGS {
        let (source, xx, en) = if let Some(t) = tatoeba {
            let stem = format!("dev/tatoeba/tatoeba.{t}-eng");
            let (xx, en) = ctx.parallel(&stem, (t, "eng"), EmptyLines::Reject)?;
            (format!("`{stem}`"), xx, en)
        } else {
            let file = dir.join(format!("dev/catalogs.en-{code}.tsv"));
            if !file.is_file() {
                return Ok(Err(format!(
                    "no {} (`python3 recipes/data/multilingual_catalogs.py {}` makes it from \
                     Debian's packages; BITEXT_MULTILINGUAL names another folder)",
                    file.display(),
                    dir.display()
                )));
            }
            let (mut xx, mut en) = (Vec::new(), Vec::new());
            for rec in bitext::core::io::tsv::BitextTsvReader::open(&file, 1, 0)? {
                let r = rec?;
                xx.push(r.src);
                en.push(r.tgt);
            }
            (
                format!("catalogues held out by package (`dev/catalogs.en-{code}.tsv`)"),
                xx,
                en,
            )
        };
        out.push(Dev {
            code,
            name,
            source,
            xx,
            en,
        });
    }
    Ok(Ok(out))
}

/// One encoder's 1-NN errors `(xx → en, en → xx)` per language, its vectors of both sides
/// and its sentences per second over all of them.
struct Errors {
    per_lang: Vec<(f64, f64)>,
    vectors: Vec<(Embeddings, Embeddings)>,
    rate: f64,
}

/// The mean cosine of each row of `a` with the same row of `b`.
fn mean_cosine(a: &Embeddings, b: &Embeddings) -> f64 {
    let cos = |x: &[f32], y: &[f32]| {
        let dot: f64 = x.iter().zip(y).map(|(p, q)| f64::from(p * q)).sum();
        let n = |v: &[f32]| v.iter().map(|p| f64::from(p * p)).sum::<f64>().sqrt();
        dot / (n(x) * n(y)).max(1e-12)
    };
    (0..a.len()).map(|i| cos(a.row(i), b.row(i))).sum::<f64>() / a.len().max(1) as f64
}

fn encode(enc: &dyn SentenceEncoder, side: Side, s: &[String]) -> Result<Embeddings> {
    let r: Vec<&str> = s.iter().map(String::as_str).collect();
    Ok(enc.encode(side, &r)?)
}

fn errors(name: &str, enc: &dyn SentenceEncoder, devs: &[Dev]) -> Result<Errors> {
    eprintln!("multilingual: measuring {name}");
    let (mut per_lang, mut vectors, mut n, mut secs) = (Vec::new(), Vec::new(), 0usize, 0.0);
    for d in devs {
        let t0 = Instant::now();
        let x = encode(enc, Side::Source, &d.xx)?;
        let y = encode(enc, Side::Target, &d.en)?;
        secs += t0.elapsed().as_secs_f64();
        n += d.xx.len() + d.en.len();
        let (a, b) = p_at_1(&x, &y).with_context(|| format!("{name}, {}", d.code))?;
        per_lang.push((1.0 - a, 1.0 - b));
        vectors.push((x, y));
    }
    Ok(Errors {
        per_lang,
        vectors,
        rate: n as f64 / secs,
    })
}

/// Mean of both directions' errors.
fn mean(e: (f64, f64)) -> f64 {
    (e.0 + e.1) / 2.0
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let model = match teacher_graph() {
        Ok(m) => m,
        Err(why) => return Ok(format!("Skipped: {why}.\n")),
    };
    let dialogue = match recipe::DIALOGUE.check() {
        Ok(d) => d,
        Err(why) => return Ok(format!("Skipped: {why}.\n")),
    };
    let everyday = match recipe::EVERYDAY.check() {
        Ok(d) => d,
        Err(why) => return Ok(format!("Skipped: {why}.\n")),
    };
    let dir = recipe::MULTILINGUAL.path();
    let devs = match dev_sets(ctx, &dir)? {
        Ok(d) => d,
        Err(why) => return Ok(format!("Skipped: {why}.\n")),
    };
    let mut md = String::new();
    writeln!(
        md,
        "The multilingual folder: `{}`; the game dialogue: `{}`; the everyday text: `{}`.\n\n\
         ### The multilingual student\n",
        dir.display(),
        dialogue.display(),
        everyday.display()
    )?;
    let student = recipe::train(
        ctx,
        "siamese",
        RECIPE,
        &[],
        &out_dir("multilingual-distill"),
    )
    .context("training the multilingual student")?;
    student.describe(&mut md)?;
    history(&mut md, &student.state, false)?;
    writeln!(md, "### Today's student, German and French only\n")?;
    let today = recipe::train(ctx, "siamese", TODAY.0, &[], &out_dir(TODAY.1))
        .context("training today's student")?;
    writeln!(
        md,
        "`{}`, {}.\n",
        today.command,
        match (today.seconds, today.earlier) {
            (Some(s), _) => format!("{:.1} min", s / 60.0),
            (None, Some(s)) => format!(
                "reused (`BITEXT_EVAL_REUSE=1`) from an earlier run that trained it in {:.1} min",
                s / 60.0
            ),
            (None, None) => "reused (`BITEXT_EVAL_REUSE=1`)".to_string(),
        }
    )?;
    history(&mut md, &today.state, false)?;
    let threads = 2;
    let teacher = OnnxEncoder::load(&OnnxSpec {
        threads,
        ..OnnxSpec::new(&model)
    })
    .with_context(|| format!("loading {}", model.display()))?;
    let encoders: [(&str, Box<dyn SentenceEncoder>); 3] = [
        ("multilingual student", load(&student.dir)?),
        ("today's student", load(&today.dir)?),
        (BAG, Box::new(super::bucc_bow::pieces_encoder(ctx)?)),
    ];
    let t = errors("teacher", &teacher, &devs)?;
    let measured: Vec<(&str, Errors)> = encoders
        .iter()
        .map(|(name, enc)| Ok((*name, errors(name, &**enc, &devs)?)))
        .collect::<Result<_>>()?;
    per_language_table(&mut md, &devs, &t, &measured)?;
    where_it_loses(&mut md, &devs, &t, &measured[0].1)?;
    missed(
        &mut md,
        &devs[0],
        (&t.vectors[0], &measured[0].1.vectors[0]),
    )?;
    writeln!(
        md,
        "\n**Speed** over all {} dev sentences (both sides of every language, batches as each \
         encoder's default): teacher (USE-M, ONNX, {threads} threads) **{:.0}** sentences/s; \
         {}.\n",
        devs.iter().map(|d| 2 * d.xx.len()).sum::<usize>(),
        t.rate,
        measured
            .iter()
            .map(|(name, e)| format!(
                "{name} (all {} cores) **{:.0}** ({:.1}× the teacher)",
                bitext_neural::backend::Threads::available(),
                e.rate,
                e.rate / t.rate
            ))
            .collect::<Vec<_>>()
            .join("; ")
    )?;
    let bucc = read_bucc(ctx)?;
    writeln!(
        md,
        "**German and French as the `distill` section measures them** (newsdev: best F1 of \
         `max` retrieval, k = 4; Tatoeba P@1 by cosine; recovery: CSLS 1-NN error on the 3000 \
         `newstest-dev` pairs, mean of both directions):\n\n\
         | encoder | newsdev F1 cosine | ratio margin | Tatoeba deu→eng | fra→eng | recovery \
         CSLS |\n|---|---|---|---|---|---|"
    )?;
    for (name, enc) in &encoders {
        let r = measure(ctx, &bucc, name, &**enc)?;
        writeln!(
            md,
            "| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2}% |",
            r.f1.0,
            r.f1.1,
            r.tatoeba.0,
            r.tatoeba.1,
            100.0 * r.recovery.1
        )?;
    }
    Ok(md)
}

/// How many of the student's misses [`missed`] shows.
const MISSES: usize = 8;

/// The first [`MISSES`] sentences of `dev` whose English translation the teacher finds (its
/// nearest by cosine) and the student does not, with what the student found instead.
fn missed(
    md: &mut String,
    dev: &Dev,
    (teacher, student): (&(Embeddings, Embeddings), &(Embeddings, Embeddings)),
) -> Result<()> {
    let (t, s) = (
        nearest(&teacher.0, &teacher.1)?,
        nearest(&student.0, &student.1)?,
    );
    let misses: Vec<usize> = (0..dev.xx.len())
        .filter(|&i| t[i] == i && s[i] != i)
        .collect();
    writeln!(
        md,
        "\n**{} → English, missed by the student only** ({} of {} sentences; the first {}):\n\n\
         | {} | English | the student's nearest |\n|---|---|---|",
        dev.name,
        misses.len(),
        dev.xx.len(),
        MISSES.min(misses.len()),
        dev.name
    )?;
    let cell = |t: &str| t.replace('|', "\\|");
    for &i in misses.iter().take(MISSES) {
        writeln!(
            md,
            "| {} | {} | {} |",
            cell(&dev.xx[i]),
            cell(&dev.en[i]),
            cell(&dev.en[s[i]])
        )?;
    }
    Ok(())
}

/// The per-language table: errors both ways of the teacher and each student, the first
/// student's mean error over the teacher's.
fn per_language_table(
    md: &mut String,
    devs: &[Dev],
    teacher: &Errors,
    students: &[(&str, Errors)],
) -> Result<()> {
    let pct = |e: (f64, f64)| format!("{:.1}% / {:.1}%", 100.0 * e.0, 100.0 * e.1);
    writeln!(
        md,
        "**Per language**: 1-NN error by cosine, language → English / English → language, on \
         each dev set's pairs (the language through the source side); *ratio*: the \
         {0}'s mean error of both directions over the teacher's (the aim: at most {AIM}); \
         *cosine*: the mean cosine of the {0}'s vector of each dev sentence with the teacher's, \
         language / English.\n",
        students[0].0
    )?;
    let mut head = "| language | dev set | pairs | teacher".to_string();
    for (name, _) in students {
        write!(head, " | {name}")?;
    }
    writeln!(
        md,
        "{head} | ratio | cosine |\n|---|---|---|---|{}---|---|",
        "---|".repeat(students.len())
    )?;
    let mut worst = (0.0f64, "");
    for (i, d) in devs.iter().enumerate() {
        let mut row = format!(
            "| {} | {} | {} | {}",
            d.name,
            d.source,
            d.xx.len(),
            pct(teacher.per_lang[i])
        );
        for (_, e) in students {
            write!(row, " | {}", pct(e.per_lang[i]))?;
        }
        let ratio = mean(students[0].1.per_lang[i]) / mean(teacher.per_lang[i]).max(1e-9);
        if ratio > worst.0 {
            worst = (ratio, d.name);
        }
        let (sx, sy) = &students[0].1.vectors[i];
        let (tx, ty) = &teacher.vectors[i];
        writeln!(
            md,
            "{row} | **{ratio:.2}** | {:.3} / {:.3} |",
            mean_cosine(sx, tx),
            mean_cosine(sy, ty)
        )?;
    }
    let avg = |e: &Errors| e.per_lang.iter().map(|&x| mean(x)).sum::<f64>() / devs.len() as f64;
    write!(md, "| mean | | | {:.1}%", 100.0 * avg(teacher))?;
    for (_, e) in students {
        write!(md, " | {:.1}%", 100.0 * avg(e))?;
    }
    writeln!(
        md,
        " | {:.2} | |\n\nThe largest ratio: {:.2} ({}).",
        avg(&students[0].1) / avg(teacher),
        worst.0,
        worst.1
    )?;
    Ok(())
}

/// The buckets of [`where_it_loses`]: the English sentence's length in words, at most.
const LENGTHS: [(usize, &str); 4] = [(3, "1–3"), (6, "4–6"), (10, "7–10"), (usize::MAX, "11+")];

/// Where the student's extra errors are, per language: the mean 1-NN error of both directions
/// with one side's vectors the student's and the other the teacher's (a student side as good
/// as the teacher's leaves the error at the teacher's), and the student's and the teacher's
/// errors by the length of the English sentence (Japanese and Chinese are not split into
/// words, their translations are).
fn where_it_loses(md: &mut String, devs: &[Dev], t: &Errors, s: &Errors) -> Result<()> {
    let err = |a: &Embeddings, b: &Embeddings| -> Result<f64> {
        let (x, y) = p_at_1(a, b)?;
        Ok(100.0 - 50.0 * (x + y))
    };
    // Per sentence: its misses both ways (0, 1 or 2).
    let misses = |(a, b): &(Embeddings, Embeddings)| -> Result<Vec<u32>> {
        let (x, y) = (nearest(a, b)?, nearest(b, a)?);
        Ok((0..x.len())
            .map(|i| u32::from(x[i] != i) + u32::from(y[i] != i))
            .collect())
    };
    writeln!(
        md,
        "\n**Where the student loses**: mean 1-NN error of both directions with the \
         language's vectors from one encoder and the English vectors from the other (*student, \
         teacher*: the student's vectors of the language against the teacher's of English); \
         then the student's / the teacher's error by the English sentence's length in words \
         (its sentences).\n\n\
         | language | student, teacher | teacher, student |{}\n|---|---|---|{}",
        LENGTHS
            .iter()
            .map(|(_, name)| format!(" {name} words |"))
            .collect::<String>(),
        "---|".repeat(LENGTHS.len())
    )?;
    for (i, d) in devs.iter().enumerate() {
        let ((tx, ty), (sx, sy)) = (&t.vectors[i], &s.vectors[i]);
        let mut row = format!(
            "| {} | {:.1}% | {:.1}% |",
            d.name,
            err(sx, ty)?,
            err(tx, sy)?
        );
        let (mt, ms) = (misses(&t.vectors[i])?, misses(&s.vectors[i])?);
        let words: Vec<usize> = d.en.iter().map(|e| e.split_whitespace().count()).collect();
        let mut from = 1;
        for &(to, _) in &LENGTHS {
            let rows: Vec<usize> = (0..words.len())
                .filter(|&k| (from..=to).contains(&words[k]))
                .collect();
            let pct = |m: &[u32]| {
                50.0 * rows.iter().map(|&k| f64::from(m[k])).sum::<f64>() / rows.len().max(1) as f64
            };
            if rows.is_empty() {
                row.push_str(" – |");
            } else {
                write!(
                    row,
                    " {:.1}% / {:.1}% ({}) |",
                    pct(&ms),
                    pct(&mt),
                    rows.len()
                )?;
            }
            from = to.saturating_add(1);
        }
        writeln!(md, "{row}")?;
    }
    Ok(())
}
