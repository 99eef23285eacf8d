//! What each step computes (see [`crate::plan`]). Every step reads only its dependencies'
//! outputs and the inputs' rows of its shards, and returns its output's arrays; the runner
//! writes them.

use std::path::Path;

use bitext_knn::{KnnIndex, Neighbors};
use bitext_mine::{ScoredCandidates, ScoredPair};
use bitext_similarity::{Margin, neighbourhood_means};

use crate::arrays::{self, Array};
use crate::error::{Error, Result};
use crate::input::{database, gather, queries};
use crate::layout::Layout;
use crate::plan::{Plan, Side, Step, StepKind};

/// Rows added to a faiss index at a time by an `add` step.
const ADD_BLOCK: usize = 1 << 16;

/// A step's output: its kind, shape and arrays.
pub(crate) struct Output {
    pub(crate) kind: &'static str,
    pub(crate) shape: Vec<usize>,
    pub(crate) arrays: Vec<Array>,
}

/// The output file of the step named `name`.
fn output_of(plan: &Plan, dir: &Path, name: &str) -> Result<std::path::PathBuf> {
    Ok(dir.join(plan.step(name)?.output()))
}

/// A lists output (`rows × k` global ids and scores).
fn lists_output(nb: &Neighbors) -> Output {
    Output {
        kind: "lists",
        shape: vec![nb.len(), nb.k()],
        arrays: vec![
            Array::u64s(nb.all_ids().iter().map(|&x| x as u64)),
            Array::f32s(nb.all_scores()),
        ],
    }
}

/// A plan, its work directory and both sides' rows: what every mining step reads.
pub(crate) struct Ctx<'a> {
    plan: &'a Plan,
    dir: &'a Path,
    src: Layout,
    trg: Layout,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(plan: &'a Plan, dir: &'a Path) -> Result<Self> {
        let (src, trg) = plan.layouts(dir)?;
        Ok(Ctx {
            plan,
            dir,
            src,
            trg,
        })
    }

    fn side(&self, side: Side) -> &Layout {
        match side {
            Side::Src => &self.src,
            Side::Trg => &self.trg,
        }
    }
}

/// Run `step` of `plan` in `dir`, writing its output to `out` (atomically).
pub(crate) fn compute(plan: &Plan, dir: &Path, step: &Step, out: &Path) -> Result<()> {
    let c = &Ctx::new(plan, dir)?;
    let o = match step.kind {
        StepKind::TrainIndex { side } => return train_index(c, side, out),
        StepKind::Add { side, shard } => return add(c, side, shard, out),
        StepKind::SearchIndexes { side, shard } => search_indexes(c, side, shard)?,
        StepKind::Knn { src, trg } => knn(c, src, trg)?,
        StepKind::MergeKnn { side, shard } => merge_knn(c, side, shard)?,
        StepKind::Means { side } => means(c, side)?,
        StepKind::Score { side, shard } => score(c, side, shard)?,
        StepKind::Retrieve => retrieve(c)?,
        StepKind::Merge | StepKind::Embed { .. } | StepKind::Dedup { .. } => {
            return Err(Error::Invalid(
                "merge, embed and dedup steps are run by run_step".into(),
            ));
        }
        StepKind::ScoreLines { .. } | StepKind::Select | StepKind::WriteKept => {
            return Err(Error::Invalid(
                "a filter plan's step in a mining plan".into(),
            ));
        }
        StepKind::CountSides { .. }
        | StepKind::Repeats { .. }
        | StepKind::Judge { .. }
        | StepKind::DedupKeys { .. }
        | StepKind::WriteCleaned
        | StepKind::WriteRemoved => {
            return Err(Error::Invalid(
                "a cleaning plan's step in a mining plan".into(),
            ));
        }
    };
    arrays::write(out, o.kind, o.shape, &o.arrays)
}

/// Save an index to `out` (every `KnnIndex::save` writes atomically, through bitext-core's one
/// writer).
fn save_index(index: &dyn KnnIndex, out: &Path) -> Result<()> {
    index.save(out)?;
    Ok(())
}

/// The spec's index trained on a seeded sample of `side` (`train_size` rows, or all; the rows
/// normalised as the search sees them), saved empty.
fn train_index(c: &Ctx<'_>, side: Side, out: &Path) -> Result<()> {
    let p = c.side(side);
    let m = p.open()?;
    let mut index = c.plan.spec.index.build(p.dim)?;
    if index.needs_training() {
        let rows = c
            .plan
            .spec
            .index
            .training_rows(p.rows)
            .unwrap_or_else(|| (0..p.rows).collect());
        index.train(gather(&m, p.dim, &rows, p.unit)?.view())?;
    }
    save_index(&*index, out)
}

/// The trained index of `side` filled with shard `s` (ids local to the shard).
fn add(c: &Ctx<'_>, side: Side, s: usize, out: &Path) -> Result<()> {
    let p = c.side(side);
    let trained = output_of(c.plan, c.dir, &format!("train-index-{}", side.name()))?;
    let mut index = c.plan.spec.index.load(&trained)?;
    let (r, m) = (p.index_shards[s], p.open()?);
    // A block at a time (faiss numbers added vectors on), so that the step holds one block of
    // f32 rows besides the index, however large the shard.
    for a in (r.0..r.1).step_by(ADD_BLOCK) {
        let (file, local) = m.locate(a..(a + ADD_BLOCK).min(r.1))?;
        let rows = queries(file, local, p.unit)?;
        index.add(rows.view())?;
    }
    save_index(&*index, out)
}

fn partial_output(
    f: &Neighbors,
    b: &Neighbors,
    rs: (usize, usize),
    rt: (usize, usize),
    kf: usize,
    kb: usize,
) -> Output {
    let shift = |nb: &Neighbors, by: usize| -> Vec<u64> {
        nb.all_ids().iter().map(|&x| (x + by) as u64).collect()
    };
    Output {
        kind: "knn",
        shape: vec![rs.1 - rs.0, kf, rt.1 - rt.0, kb],
        arrays: vec![
            Array::u64s(shift(f, rt.0)),
            Array::f32s(f.all_scores()),
            Array::u64s(shift(b, rs.0)),
            Array::f32s(b.all_scores()),
        ],
    }
}

/// Both-ways exact search of source shard `i` against target shard `j`: partial lists with
/// global ids (`min(k, shard size)` per sentence).
fn knn(c: &Ctx<'_>, i: usize, j: usize) -> Result<Output> {
    let (rs, rt) = (c.src.shards[i], c.trg.shards[j]);
    let (os, ot) = (c.src.open()?, c.trg.open()?);
    let ((ms, ls), (mt, lt)) = (os.locate(rs.0..rs.1)?, ot.locate(rt.0..rt.1)?);
    let params = c
        .plan
        .spec
        .index
        .exact_search()
        .ok_or_else(|| Error::Invalid("the plan's index is not exact".into()))?
        .params;
    let q = queries(ms, ls, c.src.unit)?;
    let mut owned = None;
    let index = database(mt, lt, c.trg.unit, params, &mut owned)?;
    let n = c.plan.spec.miner.margin_spec().neighborhood();
    let (kf, kb) = (n.k_src.min(rt.1 - rt.0), n.k_trg.min(rs.1 - rs.0));
    let (f, b) = index.search_both_certified(q.view(), kf, kb, &mut |_| {})?;
    Ok(partial_output(&f.neighbors, &b.neighbors, rs, rt, kf, kb))
}

/// The partial lists of shard `s` of `side` from every shard of the other side, merged into the
/// exact global top-k.
fn merge_knn(c: &Ctx<'_>, side: Side, s: usize) -> Result<Output> {
    let (plan, dir) = (c.plan, c.dir);
    let n = plan.spec.miner.margin_spec().neighborhood();
    let (k, rows, other) = match side {
        Side::Src => (n.k_src, c.src.shards[s], c.trg.rows),
        Side::Trg => (n.k_trg, c.trg.shards[s], c.src.rows),
    };
    let mut parts = Vec::with_capacity(plan.shards);
    for o in 0..plan.shards {
        let name = match side {
            Side::Src => format!("knn-{s}-{o}"),
            Side::Trg => format!("knn-{o}-{s}"),
        };
        let path = output_of(plan, dir, &name)?;
        let r = arrays::read(&path, "knn", &[8, 4, 8, 4])?;
        let (a, sh) = match side {
            Side::Src => (0, (r.header.shape[0], r.header.shape[1])),
            Side::Trg => (2, (r.header.shape[2], r.header.shape[3])),
        };
        let corrupt = |why: String| Error::Corrupt {
            path: path.clone(),
            reason: format!("partial lists of shard {s} of {}: {why}", side.name()),
        };
        let nb = Neighbors::new(sh.1, r.usizes(a, &path, other)?, r.f32s(a + 1))
            .map_err(|e| corrupt(e.to_string()))?;
        if nb.len() != rows.1 - rows.0 {
            return Err(corrupt(format!("{} lists", nb.len())));
        }
        parts.push(nb);
    }
    let parts: Vec<(&Neighbors, usize)> = parts.iter().map(|p| (p, 0)).collect();
    Ok(lists_output(&Neighbors::merge(&parts, k)?))
}

/// Faiss mode: shard `s` of `side` searched in every shard index of the other side in turn (one
/// in memory at a time), the lists merged as they come into the `k` best (global ids).
fn search_indexes(c: &Ctx<'_>, side: Side, s: usize) -> Result<Output> {
    let (plan, dir) = (c.plan, c.dir);
    let n = plan.spec.miner.margin_spec().neighborhood();
    let p = c.side(side);
    let (other, k) = match side {
        Side::Src => (Side::Trg, n.k_src),
        Side::Trg => (Side::Src, n.k_trg),
    };
    let other_ranges = &c.side(other).index_shards;
    let r = p.shards[s];
    let opened = p.open()?;
    let (file, local) = opened.locate(r.0..r.1)?;
    let q = queries(file, local, p.unit)?;
    let mut best: Option<Neighbors> = None;
    for (o, &ro) in other_ranges.iter().enumerate() {
        let path = output_of(plan, dir, &format!("add-{}-{o}", other.name()))?;
        let index = plan.spec.index.load(&path)?;
        let nb = index.search(q.view(), k.min(ro.1 - ro.0))?;
        // The best `k` so far (fewer while the shards seen hold fewer rows).
        best = Some(match best {
            None => Neighbors::merge(&[(&nb, ro.0)], nb.k())?,
            Some(b) => Neighbors::merge(&[(&b, 0), (&nb, ro.0)], k.min(b.k() + nb.k()))?,
        });
    }
    let best = best.ok_or_else(|| Error::Invalid("no index shard to search".into()))?;
    if best.k() < k {
        return Err(Error::Invalid(format!(
            "fewer than {k} candidates were found"
        )));
    }
    Ok(lists_output(&best))
}

/// The merged lists of shard `s` of `side`.
fn read_lists(c: &Ctx<'_>, side: Side, s: usize) -> Result<Neighbors> {
    let path = output_of(c.plan, c.dir, &format!("merge-knn-{}-{s}", side.name()))?;
    let r = arrays::read(&path, "lists", &[8, 4])?;
    let other = match side {
        Side::Src => c.trg.rows,
        Side::Trg => c.src.rows,
    };
    Neighbors::new(r.header.shape[1], r.usizes(0, &path, other)?, r.f32s(1)).map_err(|e| {
        Error::Corrupt {
            path,
            reason: format!("malformed lists: {e}"),
        }
    })
}

/// The merged lists of every sentence of `side` of a plan whose `merge-knn` steps are done
/// (the global neighbour lists, as single-process search returns them in exact mode).
pub(crate) fn side_neighbors(plan: &Plan, dir: &Path, side: Side) -> Result<Neighbors> {
    let c = &Ctx::new(plan, dir)?;
    let (mut ids, mut scores, mut k) = (Vec::new(), Vec::new(), 0);
    for s in 0..plan.shards {
        let l = read_lists(c, side, s)?;
        k = l.k();
        ids.extend_from_slice(l.all_ids());
        scores.extend_from_slice(l.all_scores());
    }
    Ok(Neighbors::new(k, ids, scores)?)
}

/// The kNN means of every sentence of `side`, shard after shard.
fn means(c: &Ctx<'_>, side: Side) -> Result<Output> {
    let plan = c.plan;
    let n = plan.spec.miner.margin_spec().neighborhood();
    let (k, what) = match side {
        Side::Src => (n.k_src, "forward"),
        Side::Trg => (n.k_trg, "backward"),
    };
    let mut all = Vec::new();
    for s in 0..plan.shards {
        all.extend(neighbourhood_means(&read_lists(c, side, s)?, k, what)?);
    }
    Ok(Output {
        kind: "means",
        shape: vec![all.len()],
        arrays: vec![Array::f64s(&all)],
    })
}

fn read_means(c: &Ctx<'_>, side: Side) -> Result<Vec<f64>> {
    let rows = c.side(side).rows;
    let path = output_of(c.plan, c.dir, &format!("means-{}", side.name()))?;
    let m = arrays::read(&path, "means", &[8])?.f64s(0);
    if m.len() != rows {
        return Err(Error::Corrupt {
            path,
            reason: format!("{} means for {rows} sentences", m.len()),
        });
    }
    Ok(m)
}

/// Margin scores of the candidates of shard `s` of `side` (as the single-process miner scores
/// them: `Margin::score` of the global ids and the search's similarity).
fn score(c: &Ctx<'_>, side: Side, s: usize) -> Result<Output> {
    let margin = Margin::from_means(
        c.plan.spec.miner.margin_spec(),
        read_means(c, Side::Src)?,
        read_means(c, Side::Trg)?,
    )?;
    let l = read_lists(c, side, s)?;
    let first = c.side(side).shards[s].0;
    let (ids, k) = (l.all_ids(), l.k());
    let mut scores = Vec::with_capacity(ids.len());
    for (p, (&id, &sim)) in ids.iter().zip(l.all_scores()).enumerate() {
        let row = first + p / k;
        let (a, b) = match side {
            Side::Src => (row, id),
            Side::Trg => (id, row),
        };
        scores.push(margin.score(a, b, f64::from(sim))?);
    }
    Ok(Output {
        kind: "scored",
        shape: vec![l.len(), k],
        arrays: vec![
            Array::u64s(ids.iter().map(|&x| x as u64)),
            Array::f64s(&scores),
        ],
    })
}

/// All scored candidates of `side`, in row order.
fn read_scored(c: &Ctx<'_>, side: Side) -> Result<ScoredCandidates> {
    let n = c.plan.spec.miner.margin_spec().neighborhood();
    let (k, other) = match side {
        Side::Src => (n.k_src, c.trg.rows),
        Side::Trg => (n.k_trg, c.src.rows),
    };
    let (mut ids, mut scores) = (Vec::new(), Vec::new());
    for s in 0..c.plan.shards {
        let path = output_of(c.plan, c.dir, &format!("score-{}-{s}", side.name()))?;
        let r = arrays::read(&path, "scored", &[8, 8])?;
        ids.extend(r.usizes(0, &path, other)?);
        scores.extend(r.f64s(1));
    }
    Ok(ScoredCandidates::new(k, ids, scores)?)
}

/// Retrieval, threshold, one-to-one and top-N over every shard's candidates: the miner's own
/// `select`, so the pairs are the single-process run's.
fn retrieve(c: &Ctx<'_>) -> Result<Output> {
    let fwd = read_scored(c, Side::Src)?;
    let bwd = read_scored(c, Side::Trg)?;
    let pairs = c.plan.spec.miner.select(&fwd, &bwd)?;
    Ok(Output {
        kind: "pairs",
        shape: vec![pairs.len()],
        arrays: vec![
            Array::f64s(&pairs.iter().map(|p| p.score).collect::<Vec<_>>()),
            Array::u64s(pairs.iter().map(|p| p.src as u64)),
            Array::u64s(pairs.iter().map(|p| p.tgt as u64)),
        ],
    })
}

/// The pairs of the `retrieve` step, deduplicated (the first of each (source, target)).
pub(crate) fn read_pairs(plan: &Plan, dir: &Path) -> Result<Vec<ScoredPair>> {
    let c = Ctx::new(plan, dir)?;
    let path = output_of(plan, dir, "retrieve")?;
    let r = arrays::read(&path, "pairs", &[8, 8, 8])?;
    let scores = r.f64s(0);
    let src = r.usizes(1, &path, c.src.rows)?;
    let tgt = r.usizes(2, &path, c.trg.rows)?;
    let mut seen = std::collections::HashSet::new();
    Ok(scores
        .into_iter()
        .zip(src.into_iter().zip(tgt))
        .filter(|&(_, st)| seen.insert(st))
        .map(|(s, (a, b))| ScoredPair::new(s, a, b))
        .collect())
}
