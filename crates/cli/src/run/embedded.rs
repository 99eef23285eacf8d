//! Text embedded into a file: streaming, chunk by chunk, for every encoder but the bag of words
//! (`bitext embed`), and reused when the same encoder made it from the same text earlier
//! (`bitext mine --encoder`, the teachers of `bitext train`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use bitext_core::io::AtomicFile;
use bitext_core::io::rejects::{BadLines, Rejected};
use bitext_encode::{EncoderSpec, SentenceEncoder, Side};

use crate::input::{
    Sentences, TextFormat, check_embeddings_output, progress_bar, write_embeddings,
};

/// Sentences per encoder call when streaming: memory holds one chunk of text and its vectors,
/// never the whole input.
const STREAM_CHUNK: usize = 4096;

/// Each sentence of `text` in file order with its line number, checked as [`Sentences::read`]
/// checks them (BUCC: `id<TAB>sentence` with both non-empty and no id twice; plain text: no
/// empty line), errors naming the line; under `bad`, the lines that cannot be read are left
/// out and returned, the same lines as [`Sentences::read_skipping`] leaves out.
fn each_sentence(
    text: &Path,
    format: TextFormat,
    bad: BadLines,
    mut f: impl FnMut(usize, &str) -> Result<()>,
) -> Result<Vec<Rejected>> {
    let bucc = format.is_bucc(text)?;
    let mut r = bitext_core::io::LineReader::open(text)?;
    let mut rejected = Vec::new();
    // The line of each BUCC id.
    let mut ids = std::collections::HashMap::new();
    let mut check = |r: &bitext_core::io::LineReader<_>, l: &str| {
        r.sentence(l, bucc)?;
        let Some((id, _)) = l.split_once('\t').filter(|_| bucc) else {
            return Ok(());
        };
        match ids.entry(id.to_string()) {
            std::collections::hash_map::Entry::Occupied(e) => {
                Err(r.error(format!("duplicate id {id} (first on line {})", e.get())))
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(r.line_number());
                Ok(())
            }
        }
    };
    while r.advance_skipping(bad, &mut rejected, &mut check)? {
        f(r.line_number(), r.sentence(r.line(), bucc)?)?;
    }
    r.some_line("sentences")?;
    Ok(rejected)
}

/// An encoder's error on sentences of `text`: one about a sentence (no known word, no token)
/// names its file and line (`lines`: the line of each sentence encoded) and how to give it a
/// zero row instead; another says which file was being embedded.
pub(crate) fn unencodable(e: bitext_encode::Error, text: &Path, lines: &[usize]) -> anyhow::Error {
    match e.sentence_index().and_then(|i| lines.get(i)) {
        Some(line) => anyhow::anyhow!(
            "{}:{line}: {e} (`\"no_known_word\": \"zero\"` in the encoder spec, or `bitext embed \
             --zero-unknown`, gives it a zero row)",
            bitext_core::io::stream::input_name(text).display()
        ),
        None => anyhow::Error::from(e).context(format!("embedding {}", text.display())),
    }
}

/// What [`encode_streaming`] did.
pub(crate) struct Streamed {
    /// Rows written, one per sentence kept.
    pub(crate) rows: usize,
    /// Seconds spent encoding.
    pub(crate) secs: f64,
    /// The lines left out under `--bad-lines skip`.
    pub(crate) rejected: Vec<Rejected>,
    /// The lines (1-based) whose row is all zeros: sentences with nothing to encode under
    /// `"no_known_word": "zero"`.
    pub(crate) zero_lines: Vec<usize>,
}

/// Encode the sentences of `text` into `out` chunk by chunk ([`STREAM_CHUNK`]), so that a
/// file of tens of millions of lines is never held in memory: one pass counts and checks the
/// sentences (a `.npy` header needs the count), the second encodes and appends. Standard input
/// (`-`) is held in memory for the two passes (its text, not its vectors). Under `bad`, the
/// lines that cannot be read are left out (one row per line kept).
pub(crate) fn encode_streaming(
    encoder: &dyn SentenceEncoder,
    text: &Path,
    format: TextFormat,
    side: Side,
    (out, fp16): (&Path, bool),
    quiet: bool,
    bad: BadLines,
) -> Result<Streamed> {
    use bitext_core::io::raw::RawDtype;
    use bitext_core::io::writer::EmbeddingsWriter;
    // Standard input is read twice too (count, then encode): it is held in memory.
    if bitext_core::io::is_stdio(text) {
        bitext_core::io::stream::hold_stdin()?;
    }
    let mut n = 0usize;
    let rejected = each_sentence(text, format, bad, |_, _| {
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
    let mut zero_lines = Vec::new();
    let mut flush = |chunk: &mut Vec<(usize, String)>, w: &mut EmbeddingsWriter| -> Result<()> {
        let refs: Vec<&str> = chunk.iter().map(|(_, s)| s.as_str()).collect();
        let lines: Vec<usize> = chunk.iter().map(|(l, _)| *l).collect();
        let e = encoder
            .encode(side, &refs)
            .map_err(|e| unencodable(e, text, &lines))?;
        let zero = |r: &[f32]| r.iter().all(|&x| x == 0.0);
        zero_lines.extend(
            e.rows()
                .zip(&lines)
                .filter(|(r, _)| zero(r))
                .map(|(_, l)| *l),
        );
        w.push(e.view())?;
        bar.set_position(w.rows() as u64);
        chunk.clear();
        Ok(())
    };
    let mut chunk: Vec<(usize, String)> = Vec::with_capacity(STREAM_CHUNK);
    each_sentence(text, format, bad, |line, s| {
        chunk.push((line, s.to_string()));
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
    Ok(Streamed {
        // Checks the count of the first pass (a file changed in between is an error).
        rows: w.finish()?,
        secs,
        rejected,
        zero_lines,
    })
}

/// What [`embed_cached`] records beside embeddings it made from `text`: the spec, the side and a
/// hash of the text's bytes (read as they stream, never held whole), one a line.
pub(crate) fn cache_key(spec: &EncoderSpec, text: &Path, side: Side) -> Result<String> {
    use std::hash::Hasher;
    use std::io::BufRead;
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
    Ok(format!("{spec}\n{side}\n{:016x}\n", h.finish()))
}

/// The sidecar of embeddings `out`: `OUT.encoder`, holding the [`cache_key`] they were made
/// under.
pub(crate) fn sidecar(out: &Path) -> PathBuf {
    PathBuf::from(format!("{}.encoder", out.display()))
}

/// Whether `out` is there and was made under `key`.
pub(crate) fn made_under(out: &Path, key: &str) -> bool {
    out.is_file() && std::fs::read_to_string(sidecar(out)).is_ok_and(|k| k == key)
}

/// Record that `out` was made under `key` (its sidecar, written atomically).
pub(crate) fn record_key(out: &Path, key: &str) -> Result<()> {
    let path = sidecar(out);
    let mut f = AtomicFile::create(&path)?;
    f.write_all(key.as_bytes()).map_err(|err| f.err(err))?;
    f.commit()?;
    Ok(())
}

/// Embed the sentences of `text` with `spec` into `out` (`.npy` by extension, raw f32
/// otherwise), written as `bitext embed` writes them, unless `out` was made earlier by the same
/// spec, for the same side, from the same text: a sidecar `OUT.encoder` records the spec, the
/// side and a hash of the text's bytes. `mine --encoder`'s first step. Under `bad`, the lines
/// that cannot be read are left out, as [`Sentences::read_skipping`] leaves them out (the
/// caller, which reads the text for its labels, keeps them).
pub(crate) fn embed_cached(
    spec: &EncoderSpec,
    (text, format): (&Path, TextFormat),
    side: Side,
    out: &Path,
    quiet: bool,
    bad: BadLines,
) -> Result<()> {
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
    let key = cache_key(spec, text, side)?;
    if made_under(out, &key) {
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
            let done = encode_streaming(&*encoder, text, format, side, (out, false), quiet, bad)?;
            (done.rows, encoder.dim(), done.secs)
        }
        true => {
            let (input, _) = Sentences::read_skipping(text, format, bad)?;
            let encoder = spec.build_bow(Some(&input.sentences))?;
            let refs: Vec<&str> = input.sentences.iter().map(String::as_str).collect();
            let bar = progress_bar(input.len(), "embedding", quiet);
            let started = std::time::Instant::now();
            let e = encoder
                .encode_with_progress(side, &refs, &mut |n| bar.set_position(n as u64))
                .map_err(|e| unencodable(e, text, &input.lines))?;
            bar.finish_and_clear();
            let secs = started.elapsed().as_secs_f64();
            write_embeddings(out, &e, false)?;
            (e.len(), e.dim(), secs)
        }
    };
    record_key(out, &key)?;
    eprintln!(
        "{}: embedded {rows} sentences ({dim} dimensions) into {} ({:.0} sentences/s)",
        text.display(),
        out.display(),
        rows as f64 / secs.max(1e-9)
    );
    Ok(())
}
