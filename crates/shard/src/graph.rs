//! The steps of a plan and their content addresses (see [`crate::plan`] for what each does).
//! A step's id hashes its name, what it does (`own`) and its dependencies' ids, so a change to
//! an input, the encoder or the recipe changes the ids of exactly the steps that depend on it.

use crate::plan::{Plan, PlannedSide, Side, Step, StepKind, hash_hex};

/// Steps in the making: each added after its dependencies.
#[derive(Default)]
pub(crate) struct Graph(Vec<Step>);

impl Graph {
    /// The steps, dependencies first.
    pub(crate) fn into_steps(self) -> Vec<Step> {
        self.0
    }

    fn id_of(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.id.as_str())
            .expect("dependencies come first")
    }

    /// Add a step after its dependencies `deps`; `own` says what it does.
    pub(crate) fn add(&mut self, name: String, kind: StepKind, deps: Vec<String>, own: String) {
        let mut parts = vec![name.clone(), own];
        parts.extend(deps.iter().map(|d| self.id_of(d).to_string()));
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        let id = hash_hex(&refs);
        self.0.push(Step {
            name,
            kind,
            deps,
            id,
        });
    }
}

/// Every embed step of the plan. The first steps that read rows depend on all of them: a
/// shard's global row numbers follow from the rows of the shards before it, and the checks of
/// both sides (dimension, enough rows for `k`) read every embed step's record.
fn embeds(plan: &Plan) -> Vec<String> {
    [Side::Src, Side::Trg]
        .into_iter()
        .filter(|&side| matches!(plan.side(side), PlannedSide::Text(_)))
        .flat_map(|side| (0..plan.shards).map(move |s| format!("embed-{}-{s}", side.name())))
        .collect()
}

/// What identifies the rows of shard `s` (range `r`) of `side`: the file's identity and the
/// range for embeddings; for text, the embed step (a dependency) says it all.
fn side_key(plan: &Plan, side: Side, s: usize, r: Option<(usize, usize)>) -> String {
    match (plan.side(side), r) {
        (PlannedSide::Embeddings(p), Some(r)) => {
            format!("{}|{}|{}|{}", p.identity, p.unit, r.0, r.1)
        }
        _ => format!("embedded|{s}"),
    }
}

/// The ranges of `side`'s shards, `None` per shard where they are known only once embedded.
fn ranges(plan: &Plan, side: Side, index: bool) -> Vec<Option<(usize, usize)>> {
    let r = match (side, index) {
        (Side::Src, false) => &plan.src_shards,
        (Side::Trg, false) => &plan.trg_shards,
        (Side::Src, true) => &plan.src_index_shards,
        (Side::Trg, true) => &plan.trg_index_shards,
    };
    if r.is_empty() {
        vec![None; plan.shards]
    } else {
        r.iter().copied().map(Some).collect()
    }
}

/// The steps of `plan`, dependencies first, with their ids.
pub(crate) fn steps_of(plan: &Plan) -> Vec<Step> {
    let spec = &plan.spec;
    let index = serde_json::to_string(&spec.index).expect("serialises");
    let margin = serde_json::to_string(spec.miner.margin_spec()).expect("serialises");
    let miner = serde_json::to_string(&spec.miner).expect("serialises");
    let mut g = Graph(Vec::new());
    for side in [Side::Src, Side::Trg] {
        if let PlannedSide::Text(t) = plan.side(side) {
            let dedup = format!("dedup-{}", side.name());
            if plan.unify {
                let own = format!("{}|{}", t.identity, t.bucc);
                g.add(dedup.clone(), StepKind::Dedup { side }, vec![], own);
            }
            let encoder = plan.encoder_identity.as_deref().unwrap_or_default();
            for (s, &(a, b)) in t.bytes.iter().enumerate() {
                let own = format!("{encoder}|{}|{}|{a}|{b}|{}", t.identity, t.bucc, plan.fp16);
                let kind = StepKind::Embed { side, shard: s };
                let deps = if plan.unify {
                    vec![dedup.clone()]
                } else {
                    vec![]
                };
                g.add(format!("embed-{}-{s}", side.name()), kind, deps, own);
            }
        }
    }
    let k = spec.miner.margin_spec().neighborhood();
    let faiss = spec.index.is_faiss();
    if faiss {
        for side in [Side::Src, Side::Trg] {
            let own = match plan.side(side) {
                PlannedSide::Embeddings(p) => {
                    format!("{index}|{}|{}|{}", p.identity, p.unit, p.rows)
                }
                PlannedSide::Text(_) => format!("{index}|embedded"),
            };
            let train = format!("train-index-{}", side.name());
            g.add(
                train.clone(),
                StepKind::TrainIndex { side },
                embeds(plan),
                own,
            );
            for (s, r) in ranges(plan, side, true).into_iter().enumerate() {
                let name = format!("add-{}-{s}", side.name());
                let kind = StepKind::Add { side, shard: s };
                g.add(name, kind, vec![train.clone()], side_key(plan, side, s, r));
            }
        }
    }
    if !faiss {
        let (rs, rt) = (
            ranges(plan, Side::Src, false),
            ranges(plan, Side::Trg, false),
        );
        for (i, &ri) in rs.iter().enumerate() {
            for (j, &rj) in rt.iter().enumerate() {
                let own = format!(
                    "{}|{}|{index}|{}|{}",
                    side_key(plan, Side::Src, i, ri),
                    side_key(plan, Side::Trg, j, rj),
                    k.k_src,
                    k.k_trg
                );
                let kind = StepKind::Knn { src: i, trg: j };
                g.add(format!("knn-{i}-{j}"), kind, embeds(plan), own);
            }
        }
    }
    for side in [Side::Src, Side::Trg] {
        for (s, range) in ranges(plan, side, false).into_iter().enumerate() {
            let name = format!("merge-knn-{}-{s}", side.name());
            let own = format!("{}|{}", k.k_src, k.k_trg);
            if faiss {
                let other = match side {
                    Side::Src => "trg",
                    Side::Trg => "src",
                };
                let deps = (0..plan.index_shards)
                    .map(|o| format!("add-{other}-{o}"))
                    .collect();
                let own = format!("{own}|{}", side_key(plan, side, s, range));
                let kind = StepKind::SearchIndexes { side, shard: s };
                g.add(name, kind, deps, own);
                continue;
            }
            let deps = (0..plan.shards)
                .map(|o| match side {
                    Side::Src => format!("knn-{s}-{o}"),
                    Side::Trg => format!("knn-{o}-{s}"),
                })
                .collect();
            g.add(name, StepKind::MergeKnn { side, shard: s }, deps, own);
        }
    }
    for side in [Side::Src, Side::Trg] {
        let deps = (0..plan.shards)
            .map(|s| format!("merge-knn-{}-{s}", side.name()))
            .collect();
        let name = format!("means-{}", side.name());
        g.add(name, StepKind::Means { side }, deps, margin.clone());
    }
    for side in [Side::Src, Side::Trg] {
        for s in 0..plan.shards {
            let deps = vec![
                format!("merge-knn-{}-{s}", side.name()),
                "means-src".into(),
                "means-trg".into(),
            ];
            let name = format!("score-{}-{s}", side.name());
            let kind = StepKind::Score { side, shard: s };
            g.add(name, kind, deps, margin.clone());
        }
    }
    let deps = [Side::Src, Side::Trg]
        .iter()
        .flat_map(|side| (0..plan.shards).map(move |s| format!("score-{}-{s}", side.name())))
        .collect();
    g.add("retrieve".into(), StepKind::Retrieve, deps, miner);
    let deps = vec!["retrieve".into()];
    g.add("merge".into(), StepKind::Merge, deps, String::new());
    g.0
}
