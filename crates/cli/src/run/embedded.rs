//! Text embedded into a file: streaming, chunk by chunk, for every encoder but the bag of words
//! (`bitext embed`), and reused when the same encoder made it from the same text earlier
//! (`bitext mine --encoder`, the teachers of `bitext train`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_core::io::AtomicFile;
use bitext_encode::{EncoderSpec, SentenceEncoder, Side};

use crate::input::{
    Sentences, TextFormat, check_embeddings_output, progress_bar, write_embeddings,
};

/// Sentences per encoder call when streaming: memory holds one chunk of text and its vectors,
/// never the whole input.
const STREAM_CHUNK: usize = 4096;

/// Each sentence of `text` in file order, checked as [`Sentences::read`] checks them (BUCC:
/// `id<TAB>sentence` with both non-empty; plain text: no empty line), errors naming the line.
fn each_sentence(
    text: &Path,
    format: TextFormat,
    mut f: impl FnMut(&str) -> Result<()>,
) -> Result<()> {
    let bucc = format.is_bucc(text)?;
    bitext_core::io::LineReader::open(text)?
        .each_line("sentences", |r, line| f(r.sentence(line, bucc)?))
}

/// Encode the sentences of `text` into `out` chunk by chunk ([`STREAM_CHUNK`]), so that a
/// file of tens of millions of lines is never held in memory: one pass counts and checks the
/// sentences (a `.npy` header needs the count), the second encodes and appends. Standard input
/// (`-`) is held in memory for the two passes (its text, not its vectors). Returns the rows
/// written and the seconds spent encoding.
pub(crate) fn encode_streaming(
    encoder: &dyn SentenceEncoder,
    text: &Path,
    format: TextFormat,
    side: Side,
    (out, fp16): (&Path, bool),
    quiet: bool,
) -> Result<(usize, f64)> {
    use bitext_core::io::raw::RawDtype;
    use bitext_core::io::writer::EmbeddingsWriter;
    // Standard input is read twice too (count, then encode): it is held in memory.
    if bitext_core::io::is_stdio(text) {
        bitext_core::io::stream::hold_stdin()?;
    }
    let mut n = 0usize;
    each_sentence(text, format, |_| {
        n += 1;
        Ok(())
    })?;
    if n == 0 {
        bail!("{}: no sentences", text.display());
    }
    let dim = encoder.dim();
    let mut w = if out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
    {
        EmbeddingsWriter::npy(out, n, dim)?
    } else {
        EmbeddingsWriter::raw(out, dim, if fp16 { RawDtype::F16 } else { RawDtype::F32 })?
    };
    let bar = progress_bar(n, "embedding", quiet);
    let started = std::time::Instant::now();
    let flush = |chunk: &mut Vec<String>, w: &mut EmbeddingsWriter| -> Result<()> {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let done = w.rows();
        let e = encoder
            .encode(side, &refs)
            .map_err(|e| e.shifted(done))
            .with_context(|| format!("embedding {}", text.display()))?;
        w.push(e.view())?;
        bar.set_position(w.rows() as u64);
        chunk.clear();
        Ok(())
    };
    let mut chunk: Vec<String> = Vec::with_capacity(STREAM_CHUNK);
    each_sentence(text, format, |s| {
        chunk.push(s.to_string());
        if chunk.len() == STREAM_CHUNK {
            flush(&mut chunk, &mut w)?;
        }
        Ok(())
    })?;
    if !chunk.is_empty() {
        flush(&mut chunk, &mut w)?;
    }
    let secs = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    // Checks the count of the first pass (a file changed in between is an error).
    Ok((w.finish()?, secs))
}

/// Embed the sentences of `text` with `spec` into `out` (`.npy` by extension, raw f32
/// otherwise), written as `bitext embed` writes them, unless `out` was made earlier by the same
/// spec, for the same side, from the same text: a sidecar `OUT.encoder` records the spec, the
/// side and a hash of the text's bytes. `mine --encoder`'s first step.
pub(crate) fn embed_cached(
    spec: &EncoderSpec,
    text: &Path,
    format: TextFormat,
    side: Side,
    out: &Path,
    quiet: bool,
) -> Result<()> {
    use std::hash::Hasher;
    use std::io::BufRead;
    if bitext_core::io::is_stdio(text) {
        bail!(
            "the text to embed cannot be standard input (-) here: it is read twice (hashed to \
             reuse earlier embeddings, then embedded); give a file"
        );
    }
    if let bitext_core::io::Placement::InPlace(_) = bitext_core::io::placement(out)? {
        bail!(
            "{}: these embeddings are read back (to mine, or to train from), so they must be a \
             file, not a device, FIFO or socket",
            out.display()
        );
    }
    // The text's bytes hashed as they are read, never held whole.
    let mut h = std::hash::DefaultHasher::new();
    let mut r = bitext_core::io::open(text)?;
    loop {
        let buf = r.fill_buf().map_err(|e| bitext_core::Error::io(text, e))?;
        if buf.is_empty() {
            break;
        }
        h.write(buf);
        let n = buf.len();
        r.consume(n);
    }
    let key = format!("{spec}\n{side}\n{:016x}\n", h.finish());
    let sidecar = PathBuf::from(format!("{}.encoder", out.display()));
    if out.is_file() && std::fs::read_to_string(&sidecar).is_ok_and(|k| k == key) {
        eprintln!(
            "{}: reusing {} (made by the same encoder from the same text)",
            text.display(),
            out.display()
        );
        return Ok(());
    }
    check_embeddings_output(out, false)?;
    let (rows, dim, secs) = match spec.reads_input() {
        false => {
            let encoder = crate::build::encoder(spec, None::<&[&str]>)?;
            let (rows, secs) =
                encode_streaming(&*encoder, text, format, side, (out, false), quiet)?;
            (rows, encoder.dim(), secs)
        }
        true => {
            let input = Sentences::read(text, format)?;
            let encoder = spec.build_bow(Some(&input.sentences))?;
            let refs: Vec<&str> = input.sentences.iter().map(String::as_str).collect();
            let bar = progress_bar(input.len(), "embedding", quiet);
            let started = std::time::Instant::now();
            let e = encoder
                .encode_with_progress(side, &refs, &mut |n| bar.set_position(n as u64))
                .with_context(|| format!("embedding {}", text.display()))?;
            bar.finish_and_clear();
            let secs = started.elapsed().as_secs_f64();
            write_embeddings(out, &e, false)?;
            (e.len(), e.dim(), secs)
        }
    };
    let mut f = AtomicFile::create(&sidecar)?;
    f.write_all(key.as_bytes()).map_err(|err| f.err(err))?;
    f.commit()?;
    eprintln!(
        "{}: embedded {rows} sentences ({dim} dimensions) into {} ({:.0} sentences/s)",
        text.display(),
        out.display(),
        rows as f64 / secs.max(1e-9)
    );
    Ok(())
}
