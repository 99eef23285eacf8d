//! Evaluation `data`: read every file of `../shared/data` with bitext-core's readers, check the
//! BUCC gold ids against the sentence files, and report sizes and reading speed. A failure here
//! means a reader rejects real data (or the data changed).

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::Result;
use bitext::core::io::text::{EmptyLines, read_parallel};
use bitext::core::io::tsv::BitextTsvReader;
use bitext::core::io::vec::read_vec;
use bitext::eval::word::read_lexicon;

use super::Ctx;
use super::neural_mining::{NEWSDEV, read_newsdev};

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let mut rows: Vec<(String, String, f64)> = Vec::new();
    let mut timed = |file: &str, f: &mut dyn FnMut() -> Result<String>| -> Result<()> {
        let t = Instant::now();
        let what = f()?;
        rows.push((file.to_string(), what, t.elapsed().as_secs_f64()));
        Ok(())
    };

    timed(NEWSDEV, &mut || {
        let (src, tgt, gold) = read_newsdev(ctx)?;
        Ok(format!(
            "BUCC: {} de + {} en sentences, {} gold pairs, all gold ids present",
            src.len(),
            tgt.len(),
            gold.len()
        ))
    })?;
    for (file, a, b) in [
        (
            "dev/newstest-dev.en-de",
            "dev/newstest-dev.en-de.en",
            "dev/newstest-dev.en-de.de",
        ),
        (
            "dev/tatoeba/tatoeba.deu-eng",
            "dev/tatoeba/tatoeba.deu-eng.deu",
            "dev/tatoeba/tatoeba.deu-eng.eng",
        ),
        (
            "dev/tatoeba/tatoeba.fra-eng",
            "dev/tatoeba/tatoeba.fra-eng.fra",
            "dev/tatoeba/tatoeba.fra-eng.eng",
        ),
        (
            "train/wmt-sample.en-de",
            "train/wmt-sample.en-de.en",
            "train/wmt-sample.en-de.de",
        ),
    ] {
        timed(file, &mut || {
            // Empty lines are kept here and counted: training data has some.
            let (x, y) = read_parallel(ctx.path(a), ctx.path(b), EmptyLines::Keep)?;
            let empty = |v: &[String]| v.iter().filter(|l| l.trim().is_empty()).count();
            Ok(format!(
                "line-parallel text: {} pairs; empty lines: {} / {}",
                x.len(),
                empty(&x),
                empty(&y)
            ))
        })?;
    }
    for file in ["train/gettext.en-de.tsv", "train/gettext.en-fr.tsv"] {
        timed(file, &mut || {
            let mut n = 0usize;
            for rec in BitextTsvReader::open(ctx.path(file), 0, 1)? {
                rec?;
                n += 1;
            }
            Ok(format!("2-column TSV: {n} pairs, no empty field"))
        })?;
    }
    for lang in ["de", "en", "fr"] {
        let file = format!("bwe/usem.{lang}.vec");
        timed(&file, &mut || {
            let wv = read_vec(ctx.path(&file), None)?;
            Ok(format!("word vectors: {} × {}", wv.len(), wv.dim()))
        })?;
    }
    timed("lexicon/ding.de-en.tsv", &mut || {
        let lex = read_lexicon(ctx.path("lexicon/ding.de-en.tsv"))?;
        Ok(format!(
            "lexicon: {} pairs, {} source words",
            lex.pairs(),
            lex.len()
        ))
    })?;

    let mut md = String::from("| file | read as | seconds |\n|---|---|---|\n");
    for (file, what, secs) in rows {
        writeln!(md, "| `{file}` | {what} | {secs:.2} |")?;
    }
    Ok(md)
}
