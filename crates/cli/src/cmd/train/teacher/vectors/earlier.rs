//! The teacher's vectors of sentences an earlier run embedded: a run whose sentence list is
//! new (a file added to the training data, a different validation share) looks up each
//! sentence in the cache's earlier lists made by the same teacher on the same side and embeds
//! only the sentences none of them holds. An earlier list is used only when its text still
//! hashes to what its sidecar records and its `.npy` has a row for each of its lines. The
//! `.npy` of a list chosen is held open until its rows are read, so that another run pruning
//! the cache ([`super::prune`]) cannot take it away in between; a list removed before it is
//! opened is passed over.

use std::collections::HashMap;
use std::hash::Hasher;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use bitext_core::Embeddings;
use bitext_core::io::npy::NpyBlockReader;

/// Where the vectors of some of a list's sentences are: rows of earlier `.npy` files.
pub(super) struct Found {
    /// Each earlier file used (open), with its `(row, place in the list)` pairs in row order.
    files: Vec<(NpyBlockReader, Vec<(usize, usize)>)>,
    /// Places in the list of the sentences no earlier file holds, in order.
    pub(super) missing: Vec<usize>,
    /// How many sentences were found.
    pub(super) found: usize,
    /// `(place, first place)` of each sentence the list repeats.
    repeats: Vec<(usize, usize)>,
}

/// The earlier lists of `cache` made by the teacher `spec` (on `side`; any side when `None`:
/// a teacher whose vectors do not depend on it) holding some of `sentences`, or `None` when
/// none holds any. `skip` (the list's own `.npy`, stale) is not looked at. A list whose text
/// or row count disagrees with its sidecar is left out, with a notice unless `quiet`.
pub(super) fn find(
    cache: &Path,
    (spec, side): (&str, Option<&str>),
    sentences: &[String],
    skip: &Path,
    quiet: bool,
) -> Result<Option<Found>> {
    let mut want: HashMap<&str, usize> = HashMap::with_capacity(sentences.len());
    for (i, s) in sentences.iter().enumerate() {
        want.entry(s.as_str()).or_insert(i);
    }
    let mut lists: Vec<PathBuf> = std::fs::read_dir(cache)
        .map_err(|e| bitext_core::Error::io(cache, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("teacher-") && n.ends_with(".npy"))
                && p.as_path() != skip
        })
        .collect();
    lists.sort();
    let mut taken = vec![false; sentences.len()];
    let (mut files, mut found) = (Vec::new(), 0);
    for npy in lists {
        let Ok(key) = std::fs::read_to_string(crate::run::sidecar(&npy)) else {
            continue;
        };
        let Some((read, hash)) = key
            .strip_prefix(spec)
            .and_then(|k| k.strip_prefix('\n'))
            .and_then(|k| k.split_once('\n'))
        else {
            continue;
        };
        if side.is_some_and(|s| s != read) {
            continue;
        }
        let text = npy.with_extension("txt");
        if !text.is_file() {
            continue;
        }
        // Opened first and held: a prune by another run after this cannot remove its rows.
        let reader = match NpyBlockReader::open(&npy) {
            Ok(r) => r,
            Err(_) if !npy.exists() => continue,
            Err(e) => return Err(e.into()),
        };
        let Scan {
            rows,
            lines,
            digest,
        } = match scan(&text, &want, &taken) {
            Ok(s) => s,
            Err(_) if !text.exists() => continue,
            Err(e) => return Err(e),
        };
        let stored = reader.header().rows;
        if hash != format!("{digest:016x}\n") || stored != lines {
            if !quiet {
                eprintln!(
                    "teacher: {} not reused ({} rows for {} lines of {}, or a changed text)",
                    npy.display(),
                    stored,
                    lines,
                    text.display()
                );
            }
            continue;
        }
        if rows.is_empty() {
            continue;
        }
        for &(_, i) in &rows {
            taken[i] = true;
        }
        found += rows.len();
        files.push((reader, rows));
    }
    if found == 0 {
        return Ok(None);
    }
    // A repeated sentence's later places take the vector of its first.
    let (mut missing, mut repeats) = (Vec::new(), Vec::new());
    for (i, s) in sentences.iter().enumerate() {
        match want[s.as_str()] {
            f if f != i => repeats.push((i, f)),
            _ if !taken[i] => missing.push(i),
            _ => {}
        }
    }
    Ok(Some(Found {
        files,
        missing,
        found,
        repeats,
    }))
}

/// What an earlier list holds of the wanted sentences.
struct Scan {
    /// `(row, place)` of each line that is a wanted sentence not yet taken (each place once).
    rows: Vec<(usize, usize)>,
    /// Lines of the list.
    lines: usize,
    /// The hash of the list's bytes, as `embed_cached` computes it.
    digest: u64,
}

/// What `text` holds of the sentences `want` maps to their places and not yet `taken`.
fn scan(text: &Path, want: &HashMap<&str, usize>, taken: &[bool]) -> Result<Scan> {
    let mut r = bitext_core::io::open(text)?;
    let mut h = std::hash::DefaultHasher::new();
    let (mut rows, mut seen, mut line, mut buf) = (Vec::new(), vec![], 0usize, Vec::new());
    seen.resize(taken.len(), false);
    loop {
        buf.clear();
        let n = r
            .read_until(b'\n', &mut buf)
            .map_err(|e| bitext_core::Error::io(text, e))?;
        if n == 0 {
            break;
        }
        h.write(&buf);
        let body = buf.strip_suffix(b"\n").unwrap_or(&buf);
        if let Some(&i) = std::str::from_utf8(body).ok().and_then(|s| want.get(s))
            && !taken[i]
            && !seen[i]
        {
            seen[i] = true;
            rows.push((line, i));
        }
        line += 1;
    }
    Ok(Scan {
        rows,
        lines: line,
        digest: h.finish(),
    })
}

impl Found {
    /// The vectors of all `n` sentences of the list: the found ones read from their earlier
    /// files, the missing ones from `rest` (in the order of [`Found::missing`]), and each
    /// repeat copied from the first place of its sentence.
    pub(super) fn assemble(self, n: usize, rest: Option<&Embeddings>) -> Result<Embeddings> {
        let dim = match (self.files.first(), rest) {
            (Some((reader, _)), _) => reader.header().dim,
            (None, Some(r)) => r.dim(),
            (None, None) => bail!("no vectors to assemble"),
        };
        let mut out = Embeddings::zeros(n, dim)?;
        let mut filled = vec![false; n];
        for (mut reader, rows) in self.files {
            let npy = reader.path().to_path_buf();
            if reader.header().dim != dim {
                bail!(
                    "{}: {} dimensions where the other teacher vectors have {dim}",
                    npy.display(),
                    reader.header().dim
                );
            }
            let (mut start, mut next) = (0usize, rows.iter().peekable());
            while next.peek().is_some() {
                let Some(block) = reader.next_block(1 << 14)? else {
                    bail!(
                        "{}: ended before row {}",
                        npy.display(),
                        next.peek().map_or(0, |r| r.0)
                    );
                };
                while let Some(&&(row, i)) = next.peek() {
                    if row >= start + block.len() {
                        break;
                    }
                    out.row_mut(i).copy_from_slice(block.row(row - start));
                    filled[i] = true;
                    next.next();
                }
                start += block.len();
            }
        }
        if let Some(rest) = rest {
            if rest.len() != self.missing.len() || rest.dim() != dim {
                bail!(
                    "{} × {} vectors for {} sentences of {dim} dimensions",
                    rest.len(),
                    rest.dim(),
                    self.missing.len()
                );
            }
            for (k, &i) in self.missing.iter().enumerate() {
                out.row_mut(i).copy_from_slice(rest.row(k));
                filled[i] = true;
            }
        } else if !self.missing.is_empty() {
            bail!("{} sentences have no vector", self.missing.len());
        }
        for &(i, f) in &self.repeats {
            let v = out.row(f).to_vec();
            out.row_mut(i).copy_from_slice(&v);
            filled[i] = true;
        }
        if let Some(i) = filled.iter().position(|&f| !f) {
            bail!("sentence {i} of {n} has no teacher vector");
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitext_encode::{EncoderSpec, Side};

    /// A list made on one side serves the other only for a teacher whose vectors do not depend
    /// on the side.
    #[test]
    fn a_list_of_the_other_side_serves_a_teacher_that_reads_both_alike() {
        let d = tempfile::tempdir().unwrap();
        let spec: EncoderSpec = "onnx:/nowhere/graph.onnx".parse().unwrap();
        assert!(!spec.reads_sides());
        let text = d.path().join("teacher-0000000000000001.txt");
        std::fs::write(&text, "a\nb\n").unwrap();
        let npy = text.with_extension("npy");
        let rows = Embeddings::new(vec![1.0, 0.0, 0.0, 1.0], 2).unwrap();
        bitext_core::io::npy::write_npy(&npy, rows.view()).unwrap();
        let key = crate::run::cache_key(&spec, &text, Side::Source).unwrap();
        crate::run::record_key(&npy, &key).unwrap();
        let want = ["b", "c"].map(String::from);
        let (name, skip) = (spec.to_string(), d.path().join("other.npy"));
        let found = find(d.path(), (&name, None), &want, &skip, true)
            .unwrap()
            .unwrap();
        assert_eq!((found.found, found.missing.clone()), (1, vec![1]));
        let rest = Embeddings::new(vec![0.5, 0.5], 2).unwrap();
        let got = found.assemble(2, Some(&rest)).unwrap();
        assert_eq!(got.as_slice(), &[0.0, 1.0, 0.5, 0.5]);
        // Asked for the other side's lists only, or by another teacher: none.
        let none = |spec: &str, side| find(d.path(), (spec, side), &want, &skip, true).unwrap();
        assert!(none(&name, Some("target")).is_none());
        assert!(none("onnx:/elsewhere.onnx", None).is_none());
    }
}
