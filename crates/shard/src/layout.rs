//! [`Layout`]: a side's rows as the mining steps read them. For an embedding file, what the
//! plan recorded; for a text side, what its embed steps recorded (rows, dimension, unit
//! length), the shards' row ranges following one another in file order.

use std::ops::Range;
use std::path::Path;

use crate::error::{Error, Result};
use crate::input::{Format, Input, Mapped};
use crate::plan::{Plan, PlannedSide, Side};

/// The rows of one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Rows (sentences).
    pub rows: usize,
    /// Dimension.
    pub dim: usize,
    /// Whether every row is unit length already (then none is normalised).
    pub unit: bool,
    /// Row ranges `[start, end)` of the query shards.
    pub shards: Vec<(usize, usize)>,
    /// Row ranges of the index shards (faiss mode; the query shards otherwise).
    pub index_shards: Vec<(usize, usize)>,
    /// The files holding the rows, each with its first global row.
    files: Vec<(usize, Input)>,
}

/// A side's files, mapped.
pub(crate) struct Opened {
    parts: Vec<(usize, Mapped)>,
    rows: usize,
}

impl Layout {
    /// Map the side's files.
    ///
    /// # Errors
    /// A file that cannot be mapped, or holds other rows than recorded.
    pub(crate) fn open(&self) -> Result<Opened> {
        let mut parts = Vec::with_capacity(self.files.len());
        for (i, (first, input)) in self.files.iter().enumerate() {
            let m = input.open()?;
            let end = self.files.get(i + 1).map_or(self.rows, |f| f.0);
            if m.len() != end - first || m.dim() != self.dim {
                return Err(Error::Corrupt {
                    path: input.path.clone(),
                    reason: format!(
                        "{} rows of dimension {}, but {} of dimension {} were recorded",
                        m.len(),
                        m.dim(),
                        end - first,
                        self.dim
                    ),
                });
            }
            parts.push((*first, m));
        }
        Ok(Opened {
            parts,
            rows: self.rows,
        })
    }
}

impl Opened {
    /// The file holding the global rows `r` and their range in it (a range never spans two
    /// files: a text side's shards are its files).
    pub(crate) fn locate(&self, r: Range<usize>) -> Result<(&Mapped, Range<usize>)> {
        let i = self
            .parts
            .partition_point(|p| p.0 <= r.start)
            .saturating_sub(1);
        let (first, m) = &self.parts[i];
        if r.end > first + m.len() || r.end > self.rows {
            return Err(Error::Invalid(format!(
                "rows {}..{} span two embedded shards",
                r.start, r.end
            )));
        }
        Ok((m, r.start - first..r.end - first))
    }
}

impl Plan {
    /// The rows of `side`: recorded in the plan for an embedding file; for a text side, read
    /// from its embed steps' completion records in `dir`.
    ///
    /// # Errors
    /// An embed step of the side that has not completed, or whose record is malformed.
    pub fn layout(&self, dir: &Path, side: Side) -> Result<Layout> {
        let (shards, index_shards) = match side {
            Side::Src => (&self.src_shards, &self.src_index_shards),
            Side::Trg => (&self.trg_shards, &self.trg_index_shards),
        };
        let text = match self.side(side) {
            PlannedSide::Embeddings(p) => {
                return Ok(Layout {
                    rows: p.rows,
                    dim: p.dim,
                    unit: p.unit,
                    shards: shards.clone(),
                    index_shards: index_shards.clone(),
                    files: vec![(0, p.input.clone())],
                });
            }
            PlannedSide::Text(t) => t,
        };
        let (mut rows, mut unit, mut dim) = (0, true, None);
        let (mut ranges, mut files) = (Vec::new(), Vec::new());
        for s in 0..text.bytes.len() {
            let step = self.step(&format!("embed-{}-{s}", side.name()))?;
            let e = crate::run::embedded(dir, step)?;
            if dim.is_some_and(|d| d != e.dim) {
                return Err(Error::Invalid(format!(
                    "{} rows have dimension {} where earlier shards have {dim:?}",
                    step.name, e.dim
                )));
            }
            dim = Some(e.dim);
            unit &= e.unit;
            files.push((
                rows,
                Input {
                    path: dir.join(step.output()),
                    format: if self.fp16 {
                        Format::RawF16
                    } else {
                        Format::RawF32
                    },
                    dim: Some(e.dim),
                },
            ));
            ranges.push((rows, rows + e.rows));
            rows += e.rows;
        }
        Ok(Layout {
            rows,
            dim: dim.unwrap_or_default(),
            unit,
            shards: ranges.clone(),
            index_shards: ranges,
            files,
        })
    }

    /// Both sides' layouts, checked against each other: the same dimension, and enough
    /// sentences on each side for the other side's `k`.
    ///
    /// # Errors
    /// As [`Plan::layout`]; dimensions that differ; a side smaller than the other's `k`.
    pub fn layouts(&self, dir: &Path) -> Result<(Layout, Layout)> {
        let (s, t) = (self.layout(dir, Side::Src)?, self.layout(dir, Side::Trg)?);
        if s.dim != t.dim {
            return Err(Error::Invalid(format!(
                "the source rows have dimension {} but the target rows {}",
                s.dim, t.dim
            )));
        }
        let n = self.spec.miner.margin_spec().neighborhood();
        for (l, k, other) in [(&t, n.k_src, "source"), (&s, n.k_trg, "target")] {
            if l.rows < k {
                return Err(Error::Invalid(format!(
                    "the {other} sentences need {k} neighbours but the other side has only {} \
                     sentences",
                    l.rows
                )));
            }
        }
        Ok((s, t))
    }
}
