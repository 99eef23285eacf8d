//! Text inputs of a plan that embeds before it mines: each side's sentence file cut into
//! byte-range shards at line boundaries (reading only a little at each boundary, never the
//! whole file), and the sentences of one shard read as `bitext embed` reads a whole file; and
//! the cheap identities (path, size, modification time) of inputs and of the files a spec
//! names, which step ids hold.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use bitext_core::io::LineReader;
use bitext_core::io::stream::{Compression, is_stdio};
use serde::{Deserialize, Serialize};

use bitext_encode::EncoderSpec;

use crate::error::{Error, Result};

/// A sentence file to embed and mine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextInput {
    /// The file: one sentence per line, or BUCC `id<TAB>sentence`.
    pub path: PathBuf,
    /// Whether it is BUCC (`None`: BUCC when its first line holds a tab).
    pub bucc: Option<bool>,
}

/// A text side as planned: the file, its layout, its identity, and its shards' byte ranges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedText {
    /// The file.
    pub path: PathBuf,
    /// Whether lines are BUCC `id<TAB>sentence` (resolved when planned).
    pub bucc: bool,
    /// Canonical path, size and modification time.
    pub identity: String,
    /// Byte ranges `[start, end)` of the shards, each starting at a line start.
    pub bytes: Vec<(u64, u64)>,
}

/// What identifies a file's content cheaply: its canonical path, size and modification time.
/// A file changed since a plan was made gets new step ids, so nothing made from the old
/// content is reused.
///
/// # Errors
/// The file cannot be read.
pub(crate) fn identity(path: &Path) -> Result<String> {
    let io = |e| bitext_core::Error::io(path, e);
    let canon = std::fs::canonicalize(path).map_err(io)?;
    let meta = std::fs::metadata(&canon).map_err(io)?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!("{}|{}|{mtime}", canon.display(), meta.len()))
}

/// The encoder's spec and the identity of every file or directory (each file in it) that the
/// spec names, so that a retrained model or changed vectors change the embed steps' ids.
pub(crate) fn encoder_identity(spec: &EncoderSpec) -> Result<String> {
    let json = serde_json::to_value(spec).expect("spec serialises");
    Ok(format!("{json}\n{}", named_files(&json)?))
}

/// The identity of a classifier's directory: every file in it, and every file its description
/// (`classifier.json`) names (a language-identification model, word vectors, a neural model).
pub(crate) fn classifier_identity(dir: &Path) -> Result<String> {
    let path = dir.join("classifier.json");
    let text = std::fs::read(&path).map_err(|e| bitext_core::Error::io(&path, e))?;
    let json: serde_json::Value = serde_json::from_slice(bitext_core::io::strip_bom(&text))
        .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
    let own = serde_json::Value::String(dir.display().to_string());
    Ok(format!("{}\n{}", named_files(&own)?, named_files(&json)?))
}

/// The identity (path, size, modification time) of every file named by a string of `json` (a
/// spec), and of every file in a directory so named, one per line.
pub(crate) fn named_files(json: &serde_json::Value) -> Result<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) -> Result<()> {
        match v {
            serde_json::Value::String(s) => files(Path::new(s), out),
            serde_json::Value::Array(a) => a.iter().try_for_each(|x| walk(x, out)),
            serde_json::Value::Object(o) => o.values().try_for_each(|x| walk(x, out)),
            _ => Ok(()),
        }
    }
    fn files(p: &Path, out: &mut Vec<String>) -> Result<()> {
        if p.is_file() {
            out.push(crate::text::identity(p)?);
        } else if p.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(p)
                .map_err(|e| bitext_core::Error::io(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            for e in entries {
                files(&e, out)?;
            }
        }
        Ok(())
    }
    let mut parts = Vec::new();
    walk(json, &mut parts)?;
    Ok(parts.join("\n"))
}

/// Bytes read at a time while looking for the line start after a boundary.
const SCAN: usize = 1 << 16;

/// The offset of the first line start at or after `at` (`at` itself when the byte before it
/// is a line break), or the file's size.
fn line_start_from(f: &mut std::fs::File, path: &Path, at: u64, size: u64) -> Result<u64> {
    if at == 0 || at >= size {
        return Ok(at.min(size));
    }
    let io = |e| bitext_core::Error::io(path, e);
    f.seek(SeekFrom::Start(at - 1)).map_err(io)?;
    let mut buf = vec![0u8; SCAN];
    let mut pos = at - 1;
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            return Ok(size);
        }
        if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
}

impl TextInput {
    /// Plan this file in `shards` byte ranges of about equal size, each moved forward to a
    /// line start and at least one line past the one before (only a window at each boundary
    /// is read).
    ///
    /// # Errors
    /// Standard input or a compressed file (byte offsets need the plain file); an empty or
    /// unreadable file; a shard left without a line (more shards than the file has lines, or
    /// lines much longer than a shard).
    pub(crate) fn plan(&self, shards: usize, side: &str) -> Result<PlannedText> {
        let path = &self.path;
        if is_stdio(path) || Compression::of(path) != Compression::None {
            return Err(Error::Invalid(format!(
                "{}: a sharded plan cuts the {side} text by byte offsets and needs a plain \
                 file, not standard input or a compressed one (decompress it first)",
                path.display()
            )));
        }
        let identity = identity(path)?;
        let io = |e| bitext_core::Error::io(path, e);
        let mut f = std::fs::File::open(path).map_err(io)?;
        let size = f.metadata().map_err(io)?.len();
        if size == 0 {
            return Err(Error::Invalid(format!(
                "{}: file is empty: no sentences",
                path.display()
            )));
        }
        let mut starts: Vec<u64> = Vec::with_capacity(shards + 1);
        if size <= shards as u64 * SCAN as u64 {
            // A small file (at most a scan window per shard): read, and cut by line count.
            let data = std::fs::read(path).map_err(io)?;
            let lines: Vec<u64> = std::iter::once(0)
                .chain(
                    data.iter()
                        .enumerate()
                        .filter(|b| *b.1 == b'\n')
                        .map(|b| b.0 as u64 + 1),
                )
                .filter(|&at| at < size)
                .collect();
            if lines.len() < shards {
                return Err(Error::Invalid(format!(
                    "{}: {shards} shards but the file has {} lines",
                    path.display(),
                    lines.len()
                )));
            }
            starts.extend(
                crate::sharding::cut(lines.len(), shards)
                    .iter()
                    .map(|r| lines[r.0]),
            );
        }
        for s in (starts.len() as u64)..shards as u64 {
            let at = (u128::from(size) * u128::from(s) / shards as u128) as u64;
            let mut start = line_start_from(&mut f, path, at, size)?;
            // Long lines can pull a boundary onto the previous one: every shard starts at least
            // one line after the one before it.
            if let Some(&prev) = starts.last()
                && start <= prev
            {
                start = line_start_from(&mut f, path, prev + 1, size)?;
            }
            starts.push(start);
        }
        starts.push(size);
        let bytes: Vec<(u64, u64)> = starts.windows(2).map(|w| (w[0], w[1])).collect();
        if let Some(s) = bytes.iter().position(|r| r.0 == r.1) {
            return Err(Error::Invalid(format!(
                "{}: {shards} shards leave shard {s} without a line (the file has fewer lines \
                 than shards)",
                path.display()
            )));
        }
        let bucc = match self.bucc {
            Some(b) => b,
            None => bitext_core::io::stream::first_line(path)?.is_some_and(|l| l.contains('\t')),
        };
        Ok(PlannedText {
            path: path.clone(),
            bucc,
            identity,
            bytes,
        })
    }
}

impl PlannedText {
    /// Call `f` with each sentence of shard `s`, in file order, checked as `bitext embed`
    /// checks a whole file (an error names the file, the shard and its first byte, and the
    /// line counted from there).
    ///
    /// # Errors
    /// The file changed since it was planned; unreadable or malformed lines; `f`'s errors.
    pub(crate) fn each_sentence(
        &self,
        s: usize,
        mut f: impl FnMut(&str) -> Result<()>,
    ) -> Result<()> {
        let mut r = self.shard_reader(s)?;
        while r.advance()? {
            let sentence = r.sentence(r.line(), self.bucc)?;
            f(sentence)?;
        }
        Ok(())
    }

    /// The lines of shard `s` (named in errors by the file, the shard and its first byte, line
    /// numbers counted from there).
    ///
    /// # Errors
    /// The file changed since it was planned, or cannot be opened.
    pub(crate) fn shard_reader(
        &self,
        s: usize,
    ) -> Result<LineReader<BufReader<std::io::Take<std::fs::File>>>> {
        let path = &self.path;
        if identity(path)? != self.identity {
            return Err(Error::Invalid(format!(
                "{} changed since the plan was made (size or modification time): plan again \
                 (rerun `bitext mine`), so that nothing made from the old text is used",
                path.display()
            )));
        }
        let (start, end) = self.bytes[s];
        let io = |e| bitext_core::Error::io(path, e);
        let mut file = std::fs::File::open(path).map_err(io)?;
        file.seek(SeekFrom::Start(start)).map_err(io)?;
        let reader = BufReader::with_capacity(1 << 16, file.take(end - start));
        let name = format!("{} (shard {s}, from byte {start})", path.display());
        let r = LineReader::new(name, reader);
        Ok(if start > 0 { r.mid_file() } else { r })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentences(p: &PlannedText) -> Vec<String> {
        let mut all = Vec::new();
        for s in 0..p.bytes.len() {
            p.each_sentence(s, |x| {
                all.push(x.to_string());
                Ok(())
            })
            .unwrap();
        }
        all
    }

    #[test]
    fn byte_shards_cover_every_line_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        let lines: Vec<String> = (0..23)
            .map(|i| format!("line {i} {}", "x".repeat(i % 7)))
            .collect();
        std::fs::write(&path, format!("\u{feff}{}\r\n", lines.join("\r\n"))).unwrap();
        let input = TextInput {
            path: path.clone(),
            bucc: None,
        };
        for shards in [1, 2, 3, 7, 23] {
            let p = input.plan(shards, "source").unwrap();
            assert_eq!(p.bytes.len(), shards);
            assert!(!p.bucc);
            assert_eq!(sentences(&p), lines, "{shards} shards");
        }
        let e = input.plan(24, "source").unwrap_err().to_string();
        assert!(e.contains("24 shards but the file has 23 lines"), "{e}");
        // A file larger than a scan window per shard is cut by bytes, at line starts.
        let long: Vec<String> = (0..40)
            .map(|i| format!("{i} {}", "y".repeat(3000 + i * 97)))
            .collect();
        std::fs::write(&path, long.join("\n")).unwrap();
        for shards in [1, 2, 3] {
            let p = input.plan(shards, "source").unwrap();
            assert_eq!(sentences(&p), long, "{shards} shards");
        }
    }

    #[test]
    fn a_changed_file_or_an_empty_line_is_an_error_naming_the_shard() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tsv");
        std::fs::write(&path, "a\tone\nb\ttwo\nc\t\nd\tfour\n").unwrap();
        let p = TextInput {
            path: path.clone(),
            bucc: None,
        }
        .plan(2, "target")
        .unwrap();
        assert!(p.bucc);
        let e = p.each_sentence(1, |_| Ok(())).unwrap_err().to_string();
        assert!(
            e.contains("shard 1, from byte") && e.contains("empty id or sentence"),
            "{e}"
        );
        std::fs::write(&path, "a\tone\nb\ttwo\nc\tthree\nd\tfour\n").unwrap();
        let e = p.each_sentence(0, |_| Ok(())).unwrap_err().to_string();
        assert!(e.contains("changed since the plan"), "{e}");
        let gz = TextInput {
            path: dir.path().join("t.txt.gz"),
            bucc: None,
        };
        assert!(
            gz.plan(1, "source")
                .unwrap_err()
                .to_string()
                .contains("plain file")
        );
    }
}
