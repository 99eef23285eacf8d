//! `--init-vectors SPEC` (an ONNX encoder spec; also the aligner's `--bag-vectors`): a
//! student's embedding table taken from its teacher's own input vectors. The spec's `output`
//! names the graph's embedding lookup (an intermediate tensor, one row per piece, e.g. USE-M's
//! `StatefulPartitionedCall/EncoderDNN/EmbeddingLookup/EmbeddingLookupUnique/Reshape_1:0`);
//! every piece of the graph's own sentencepiece model is fed alone
//! ([`bitext_onnx::OnnxEncoder::piece_vectors`]) and the rows are written as a `.vec` keyed by
//! the pieces, once: `pieces-HASH.vec` in the cache (`$XDG_CACHE_HOME/bitext/pieces` or
//! `~/.cache/bitext/pieces`), the hash over the spec and the graph file's bytes.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// `value` itself, or, when it is an ONNX encoder spec (`onnx:FILE`, or the JSON form
/// `{"type": "onnx", …}` that can name the `output`), the cached `.vec` of that graph's piece
/// vectors (computed on first use).
///
/// # Errors
/// A spec that does not parse, is not `onnx:`, names no `output`, or whose graph has no
/// sentencepiece tokenizer inside; as [`bitext_onnx::OnnxEncoder::load`]; a cache that
/// cannot be written.
pub(super) fn resolve(value: &Path, flag: &str, quiet: bool) -> Result<PathBuf> {
    match value.to_str() {
        Some(s) if s.starts_with("onnx:") || s.trim_start().starts_with('{') => {
            table(s, flag, quiet)
        }
        // Checked here, before any tokenizing or training, rather than when the table is read.
        _ if !value.is_file() => bail!("{flag} {}: no such file", value.display()),
        _ => Ok(value.to_path_buf()),
    }
}

#[cfg(feature = "onnx")]
fn table(s: &str, flag: &str, quiet: bool) -> Result<PathBuf> {
    use std::hash::Hasher;

    use anyhow::Context;
    use bitext_core::io::vec::{WordVectors, write_vec};
    use bitext_encode::EncoderSpec;

    let spec: EncoderSpec = s
        .parse()
        .with_context(|| format!("{flag} {s}: not an encoder spec"))?;
    let Some(o) = spec.as_onnx() else {
        bail!("{flag} {s}: expected an onnx: spec");
    };
    if o.output.is_none() {
        bail!(
            "{flag} {s}: name the graph's per-piece tensor (its embedding lookup) as the \
             spec's \"output\", e.g. for USE-M \
             \"StatefulPartitionedCall/EncoderDNN/EmbeddingLookup/EmbeddingLookupUnique/Reshape_1:0\""
        );
    }
    let bytes = std::fs::read(&o.model).map_err(|e| bitext_core::Error::io(&o.model, e))?;
    let mut h = std::hash::DefaultHasher::new();
    h.write(format!("{spec}\n").as_bytes());
    h.write(&bytes);
    drop(bytes);
    let cache = super::teacher::cache_dir("pieces")?;
    std::fs::create_dir_all(&cache).map_err(|e| bitext_core::Error::io(&cache, e))?;
    let out = cache.join(format!("pieces-{:016x}.vec", h.finish()));
    if out.is_file() {
        if !quiet {
            eprintln!(
                "{}: reusing {} (made from the same graph and spec)",
                o.model.display(),
                out.display()
            );
        }
        return Ok(out);
    }
    let started = std::time::Instant::now();
    let enc = bitext_onnx::OnnxEncoder::load(o)?;
    let Some(pieces) = enc.pieces().map(<[String]>::to_vec) else {
        bail!(
            "{}: {flag} onnx: needs a graph with its own sentencepiece tokenizer inside \
             (its pieces key the table)",
            o.model.display()
        );
    };
    let n = u32::try_from(pieces.len()).context("more pieces than u32 ids")?;
    let ids: Vec<u32> = (0..n).collect();
    let bar = crate::input::progress_bar(ids.len(), "piece vectors", quiet);
    let vectors = enc
        .piece_vectors(&ids, &mut |k| bar.set_position(k as u64))
        .with_context(|| format!("{}: the vectors of its pieces", o.model.display()))?;
    bar.finish_and_clear();
    let dim = vectors.dim();
    let wv = WordVectors::new(pieces, vectors)
        .with_context(|| format!("{}: its pieces as .vec words", o.model.display()))?;
    write_vec(&out, &wv)?;
    if !quiet {
        eprintln!(
            "{}: the vectors of its {} pieces ({dim} dimensions) written to {} in {:.0} s",
            o.model.display(),
            wv.len(),
            out.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(out)
}

#[cfg(not(feature = "onnx"))]
fn table(s: &str, flag: &str, _quiet: bool) -> Result<PathBuf> {
    bail!(
        "{flag} {s}: this bitext was built without ONNX support (cargo feature `onnx` \
         of bitext-cli)"
    )
}
