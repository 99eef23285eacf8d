//! The calibration file: JSON with the format's name and version, the method, the sample
//! sizes, the isotonic blocks and the threshold table, written atomically and checked when
//! read (every error names the file).

use std::io::Write as _;
use std::path::Path;

use bitext_core::io::{AtomicFile, strip_bom};
use bitext_core::{Error as CoreError, Location};

use super::{Calibration, Cut, FORMAT, Target, VERSION};
use crate::error::Result;

impl Calibration {
    /// The calibration as pretty-printed JSON.
    ///
    /// # Errors
    /// Never in practice (every field is serialisable).
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| {
            crate::Error::Invalid(format!("cannot write the calibration as JSON: {e}"))
        })
    }

    /// Write the calibration to `path` as JSON (atomically: a failed run leaves no file).
    ///
    /// # Errors
    /// I/O errors naming `path`.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let json = self.to_json()?;
        let mut out = AtomicFile::create(path.as_ref())?;
        out.write_all(json.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .map_err(|e| out.err(e))?;
        Ok(out.commit()?)
    }

    /// Read and check a calibration file.
    ///
    /// # Errors
    /// [`crate::Error::Core`] naming `path`: I/O errors, JSON errors (with their line), another
    /// format or version, and the checks of [`Calibration::from_json`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| CoreError::io(path, e))?;
        Self::from_json(path, strip_bom(&bytes))
    }

    /// Parse and check a calibration from JSON bytes; `path` names it in errors. The checks:
    /// the format and version; blocks non-empty, finite, ascending and disjoint, with counts
    /// that add up to the sample sizes and probabilities (`positives / count`) in `[0, 1]` that
    /// strictly increase (monotone); thresholds finite and every precision, recall and interval
    /// bound in `[0, 1]`.
    ///
    /// # Errors
    /// [`crate::Error::Core`] with a [`CoreError::Parse`] naming `path` and the problem.
    pub fn from_json(path: &Path, bytes: &[u8]) -> Result<Self> {
        let bad = |at: Location, reason: String| CoreError::parse(path, at, reason);
        // Check the format before the fields, so that another JSON file says what it is not.
        let value: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| bad(Location::Line(e.line()), format!("not valid JSON: {e}")))?;
        let format = value.get("format").and_then(|v| v.as_str());
        if format != Some(FORMAT) {
            return Err(bad(
                Location::File,
                format!("not a calibration file (\"format\" is {format:?}, expected {FORMAT:?})"),
            )
            .into());
        }
        let version = value.get("version").and_then(serde_json::Value::as_u64);
        if version != Some(u64::from(VERSION)) {
            return Err(bad(
                Location::File,
                format!(
                    "calibration file version {}: this bitext reads version {VERSION}",
                    version.map_or_else(|| "missing".to_string(), |v| v.to_string())
                ),
            )
            .into());
        }
        let cal: Self = serde_json::from_value(value)
            .map_err(|e| bad(Location::File, format!("invalid calibration: {e}")))?;
        cal.check().map_err(|reason| bad(Location::File, reason))?;
        Ok(cal)
    }

    /// The consistency checks of a loaded calibration, as the reason for the first failure.
    fn check(&self) -> std::result::Result<(), String> {
        if self.method != "isotonic" {
            return Err(format!(
                "unknown method {:?} (expected \"isotonic\")",
                self.method
            ));
        }
        if self.interval != "wilson" {
            return Err(format!(
                "unknown interval {:?} (expected \"wilson\")",
                self.interval
            ));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(format!("confidence {} is not in (0, 1)", self.confidence));
        }
        if self.blocks.is_empty() {
            return Err("no blocks".into());
        }
        let (mut pairs, mut positives) = (0usize, 0usize);
        let mut prev: Option<&super::Block> = None;
        for (i, b) in self.blocks.iter().enumerate() {
            let at = format!("block {i}");
            if !(b.lo.is_finite() && b.hi.is_finite() && b.lo <= b.hi) {
                return Err(format!(
                    "{at}: scores [{}, {}] are not a finite range",
                    b.lo, b.hi
                ));
            }
            if b.count == 0 || b.positives > b.count {
                return Err(format!(
                    "{at}: {} positives of {} pairs",
                    b.positives, b.count
                ));
            }
            let p = b.positives as f64 / b.count as f64;
            if !((0.0..=1.0).contains(&b.probability) && (b.probability - p).abs() <= 1e-9) {
                return Err(format!(
                    "{at}: probability {} is not positives / count = {p}",
                    b.probability
                ));
            }
            if let Some(a) = prev {
                if a.hi >= b.lo {
                    return Err(format!(
                        "{at}: starts at {} inside the block before it",
                        b.lo
                    ));
                }
                if a.probability >= b.probability {
                    return Err(format!(
                        "{at}: probability {} does not increase (not monotone)",
                        b.probability
                    ));
                }
            }
            pairs = pairs.saturating_add(b.count);
            positives = positives.saturating_add(b.positives);
            prev = Some(b);
        }
        let s = self.samples;
        if (pairs, positives) != (s.pairs, s.positives) || s.relevant < s.positives {
            return Err(format!(
                "the blocks hold {pairs} pairs ({positives} parallel), the samples say {} ({} \
                 parallel, {} relevant)",
                s.pairs, s.positives, s.relevant
            ));
        }
        for (i, c) in self.thresholds.iter().enumerate() {
            check_cut(c).map_err(|r| format!("threshold {i} ({}): {r}", c.target))?;
        }
        Ok(())
    }
}

/// A threshold row's values are finite and its proportions in `[0, 1]`.
fn check_cut(c: &Cut) -> std::result::Result<(), String> {
    if let Target::Precision(v) | Target::Recall(v) = c.target
        && !(v > 0.0 && v <= 1.0)
    {
        return Err("target is not in (0, 1]".into());
    }
    if !c.threshold.is_finite() {
        return Err(format!("threshold {} is not finite", c.threshold));
    }
    let unit = |x: f64| (0.0..=1.0).contains(&x);
    let p = &c.prf;
    let (pi, ri) = (&c.precision_interval, &c.recall_interval);
    if ![p.precision, p.recall, p.f1, pi.lo, pi.hi, ri.lo, ri.hi]
        .into_iter()
        .all(unit)
        || pi.lo > pi.hi
        || ri.lo > ri.hi
    {
        return Err("a precision, recall or interval bound is not in [0, 1]".into());
    }
    if p.true_positives > p.predicted || p.true_positives > p.relevant {
        return Err("more true positives than pairs kept or relevant".into());
    }
    Ok(())
}
