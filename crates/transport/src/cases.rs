//! Reference transport problems with known optima, one JSON object a line (the format of
//! `../shared/data/emd/pot-emd-cases.jsonl`: `{"id", "kind", "n", "m", "a": [n], "b": [m],
//! "cost": [n*m] (row-major), "optimum"}`), read and checked into [`Problem`]s.

use std::io::BufRead;
use std::path::Path;

use bitext_core::io::LineReader;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::problem::{CostMatrix, Problem};

/// One problem of a cases file, as read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EmdCase {
    /// What kind of problem (groups cases in reports).
    #[serde(default)]
    pub kind: Option<String>,
    /// Number of sources.
    pub n: usize,
    /// Number of targets.
    pub m: usize,
    /// Source weights.
    pub a: Vec<f64>,
    /// Target weights.
    pub b: Vec<f64>,
    /// Costs, row-major `n × m`.
    pub cost: Vec<f64>,
    /// The optimal cost.
    pub optimum: f64,
}

impl EmdCase {
    /// The case as a checked transport problem.
    ///
    /// # Errors
    /// As [`CostMatrix::new`] and [`Problem::new`] (sizes, negative or non-finite weights,
    /// non-finite costs, unbalanced masses).
    pub fn problem(&self) -> Result<Problem<'_>> {
        Problem::new(
            &self.a,
            &self.b,
            CostMatrix::new(&self.cost, self.n, self.m)?,
        )
    }
}

/// Read a cases file: one case a line (blank lines skipped), each with its 1-based line.
///
/// # Errors
/// A missing or unreadable file, invalid UTF-8, a line that is not a case, a non-finite
/// optimum (naming the file and line); a file without any case.
pub fn read_cases(path: impl AsRef<Path>) -> Result<Vec<(usize, EmdCase)>> {
    parse_cases(LineReader::open(path)?)
}

/// [`read_cases`] from a [`LineReader`] (its name is used in errors).
///
/// # Errors
/// As [`read_cases`].
pub fn parse_cases<R: BufRead>(mut r: LineReader<R>) -> Result<Vec<(usize, EmdCase)>> {
    let mut cases = Vec::new();
    while r.advance()? {
        if r.line().trim().is_empty() {
            continue;
        }
        let c: EmdCase =
            serde_json::from_str(r.line()).map_err(|e| r.error(format!("not a case: {e}")))?;
        if !c.optimum.is_finite() {
            return Err(r.error("the optimum is not a finite number").into());
        }
        cases.push((r.line_number(), c));
    }
    if cases.is_empty() {
        return Err(Error::Core(bitext_core::Error::parse(
            r.path(),
            bitext_core::Location::File,
            "no cases",
        )));
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cases_and_names_bad_lines() {
        let text = "{\"n\":1,\"m\":1,\"a\":[1],\"b\":[1],\"cost\":[2.5],\"optimum\":2.5}\n\n";
        let cases = parse_cases(LineReader::new("c.jsonl", text.as_bytes())).unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].0, 1);
        assert!(cases[0].1.problem().is_ok());
        let bad = "{\"n\":1}\n";
        let e = parse_cases(LineReader::new("c.jsonl", bad.as_bytes())).unwrap_err();
        assert!(e.to_string().contains("c.jsonl:1: not a case"), "{e}");
        let e = parse_cases(LineReader::new("c.jsonl", &b"\n"[..])).unwrap_err();
        assert!(e.to_string().contains("no cases"), "{e}");
        let wrong = "{\"n\":2,\"m\":1,\"a\":[1],\"b\":[1],\"cost\":[2.5],\"optimum\":2.5}\n";
        let c = parse_cases(LineReader::new("c.jsonl", wrong.as_bytes())).unwrap();
        assert!(c[0].1.problem().is_err());
    }
}
