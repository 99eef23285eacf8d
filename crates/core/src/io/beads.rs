//! Sentence alignments of two documents in vecalign's format: one bead a line,
//! `[0]:[0, 1]` (source sentence 0 aligned to target sentences 0 and 1; 0-based line numbers of
//! the documents), `[]` on a side for a deletion, optionally a third field with the bead's cost
//! (`[3, 4]:[5]:0.213472`).

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

use super::{AtomicFile, LineReader};

/// One bead: the source and target sentences (0-based, ascending) aligned together.
#[derive(Debug, Clone, PartialEq)]
pub struct Bead {
    /// Source sentences.
    pub src: Vec<usize>,
    /// Target sentences.
    pub tgt: Vec<usize>,
    /// The bead's cost, where the file gives one.
    pub cost: Option<f64>,
}

/// Parse `[1, 2]` into its numbers.
fn side(field: &str) -> std::result::Result<Vec<usize>, String> {
    let inner = field
        .trim()
        .strip_prefix('[')
        .and_then(|f| f.strip_suffix(']'))
        .ok_or_else(|| format!("expected a list like [0, 1], found {field:?}"))?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    let ids = inner
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| format!("{:?} is not a sentence number", x.trim()))
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if ids.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!("sentence numbers must ascend: {field:?}"));
    }
    Ok(ids)
}

/// Read a bead file.
///
/// # Errors
/// The file cannot be read; a line that is not `[…]:[…]` or `[…]:[…]:cost` (a number), with
/// numbers that do not ascend, a bead empty on both sides, or a non-finite cost (naming the
/// line); a file without beads.
pub fn read_beads(path: impl AsRef<Path>) -> Result<Vec<Bead>> {
    let mut beads = Vec::new();
    LineReader::open(path)?.each_line("beads", |r, line| -> Result<()> {
        let fields: Vec<&str> = line.split(':').collect();
        if !(2..=3).contains(&fields.len()) {
            return Err(r.error("expected [source]:[target] or [source]:[target]:cost"));
        }
        let src = side(fields[0]).map_err(|e| r.error(e))?;
        let tgt = side(fields[1]).map_err(|e| r.error(e))?;
        if src.is_empty() && tgt.is_empty() {
            return Err(r.error("a bead with no sentence on either side"));
        }
        let cost = match fields.get(2) {
            Some(c) => {
                let c: f64 = c
                    .trim()
                    .parse()
                    .map_err(|_| r.error(format!("cost {c:?} is not a number")))?;
                if !c.is_finite() {
                    return Err(r.error(format!("cost {c} is not finite")));
                }
                Some(c)
            }
            None => None,
        };
        beads.push(Bead { src, tgt, cost });
        Ok(())
    })?;
    Ok(beads)
}

fn list(ids: &[usize]) -> String {
    let ids: Vec<String> = ids.iter().map(usize::to_string).collect();
    format!("[{}]", ids.join(", "))
}

/// One bead as a line of the format (without the line break): `[0]:[0, 1]:0.123456`.
#[must_use]
pub fn format_bead(bead: &Bead) -> String {
    match bead.cost {
        Some(c) => format!("{}:{}:{c:.6}", list(&bead.src), list(&bead.tgt)),
        None => format!("{}:{}", list(&bead.src), list(&bead.tgt)),
    }
}

/// Write beads (atomically; `-` and compression as every text output).
///
/// # Errors
/// As [`AtomicFile::create_text`] and the writes; [`Error::InvalidArgument`] for a non-finite
/// cost.
pub fn write_beads(path: impl AsRef<Path>, beads: &[Bead]) -> Result<()> {
    let mut out = AtomicFile::create_text(path)?;
    for b in beads {
        if b.cost.is_some_and(|c| !c.is_finite()) {
            return Err(Error::InvalidArgument(format!(
                "bead {} has a non-finite cost",
                format_bead(&Bead {
                    cost: None,
                    ..b.clone()
                })
            )));
        }
        writeln!(out, "{}", format_bead(b)).map_err(|e| out.err(e))?;
    }
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beads_round_trip_and_bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.beads");
        let beads = vec![
            Bead {
                src: vec![0],
                tgt: vec![0, 1],
                cost: Some(0.25),
            },
            Bead {
                src: vec![],
                tgt: vec![2],
                cost: None,
            },
            Bead {
                src: vec![1, 2],
                tgt: vec![3],
                cost: Some(1.5),
            },
        ];
        write_beads(&p, &beads).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "[0]:[0, 1]:0.250000\n[]:[2]\n[1, 2]:[3]:1.500000\n"
        );
        assert_eq!(read_beads(&p).unwrap(), beads);
        for (text, want) in [
            ("[0]:[0]\n[1]\n", "a.beads:2: expected [source]:[target]"),
            ("[0]:[x]\n", "a.beads:1: \"x\" is not a sentence number"),
            ("[1, 0]:[0]\n", "a.beads:1: sentence numbers must ascend"),
            ("[]:[]\n", "a.beads:1: a bead with no sentence"),
            ("[0]:[0]:NaN\n", "a.beads:1: cost NaN is not finite"),
            ("0:[0]\n", "a.beads:1: expected a list"),
            ("", "a.beads: file is empty"),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = read_beads(&p).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
