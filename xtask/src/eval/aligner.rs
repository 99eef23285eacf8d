//! Evaluation `aligner`: the word-alignment BiLSTM of the divergence-detection draft, trained
//! on the WMT sample of the shared de-en training data with synthetic examples, measured as
//! the draft measures it: word-divergence accuracy on a synthetic word-annotated test set from
//! held-out `dev/newstest-dev.en-de` pairs (200 P, 100 U, 100 R, 100 I) for models trained on
//! each combination of negatives (the draft's Table 2); divergence fixing on held-out pairs with
//! an inserted sentence; and sentence-level scores (BUCC-style newsdev F1 from the `wemb`
//! vectors and from `semb` scores, the noisy-parallel protocol).
//!
//! Environment knobs (defaults after the colon): `BITEXT_EVAL_AL_MINUTES` training budget per
//! model: 3, `BITEXT_EVAL_AL_PRESET`: small, `BITEXT_EVAL_AL_PER_KIND` examples of each kind
//! per epoch: 4000, `BITEXT_EVAL_AL_R` aggregation sharpness: 1, `BITEXT_EVAL_AL_SETS` the
//! Table 2 rows: `PU,PR,PI,PUR,PUI,PRI,PURI`, `BITEXT_EVAL_AL_R_SWEEP` other values of r tried
//! on P+U+R+I: `0.25,4` (empty: none), `BITEXT_EVAL_AL_REUSE=1` reuse the models of an earlier
//! run (same names), `BITEXT_EVAL_AL_LONG_MINUTES` one more P+U+R+I model with this budget (a
//! Table 2 row, fixing and `wemb` mining of its own): 0 (none), `BITEXT_EVAL_AL_EMB` embedding
//! width: the preset's (512 keeps the vectors' own width, no projection),
//! `BITEXT_EVAL_AL_FREEZE=1` keep the initialised tables fixed, `BITEXT_EVAL_OUT`: where models
//! go.

use std::cell::OnceCell;
use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::Rng;
use bitext::core::io::text::EmptyLines;
use bitext::encode::Side;
use bitext::lexical::{Ibm1, Ibm1Config, Segmenter, Symmetrization};
use bitext_neural::aligner::{
    AlignerConfig, AlignerModel, AlignerTextTraining, AlignerTrainConfig, Example, Kind, Links,
    Objective, Synthesizer, evaluate, train_aligner,
};
use bitext_neural::backend::{BackendSpec, Threads};
use bitext_neural::pretrained::VectorsInit;
use bitext_neural::text::WordVocabConfig;
use bitext_neural::train::{LrSchedule, OptimizerSpec, TrainConfig};

use super::Ctx;
use super::neural::{
    env, greedy_all_pairs, margin_mining, noisy_table, out_dir, read_bucc, training_text,
};

/// The shared data, split once.
pub(super) struct Data {
    de: Vec<String>,
    en: Vec<String>,
    what: String,
    valid: (Vec<String>, Vec<String>),
    pub(super) test: (Vec<String>, Vec<String>),
}

fn data(ctx: &Ctx) -> Result<Data> {
    let (de, en, what) = if env("BITEXT_EVAL_AL_TRAIN", "wmt".to_string()) == "all" {
        training_text(ctx)?
    } else {
        let (en, de) = ctx.parallel("train/wmt-sample.en-de", ("en", "de"), EmptyLines::Keep)?;
        let what = format!("the {} WMT-sample pairs", de.len());
        (de, en, what)
    };
    let (nen, nde) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    let mut idx: Vec<usize> = (0..nde.len()).collect();
    Rng::seed(14).shuffle(&mut idx);
    let pick = |r: &[usize]| {
        (
            r.iter().map(|&i| nde[i].clone()).collect::<Vec<_>>(),
            r.iter().map(|&i| nen[i].clone()).collect::<Vec<_>>(),
        )
    };
    Ok(Data {
        de,
        en,
        what,
        test: pick(&idx[..500]),
        valid: pick(&idx[500..800]),
    })
}

/// IBM Model 1 trained once on the training pairs' token texts (every model of this
/// evaluation tokenizes the same way), with its alignments of the training and validation
/// pairs.
pub(super) struct Links1 {
    model: OnceCell<Ibm1>,
    links: OnceCell<(Links, Links)>,
}

impl Links1 {
    fn ibm1(&self, src: &[Vec<String>], tgt: &[Vec<String>]) -> Result<&Ibm1, String> {
        if self.model.get().is_none() {
            let m = Ibm1::train_tokens(
                &Ibm1Config::default(),
                Segmenter::default(),
                src,
                tgt,
                &mut |_| {},
            )
            .map_err(|e| e.to_string())?;
            let _ = self.model.set(m);
        }
        Ok(self.model.get().expect("just set"))
    }

    pub(super) fn align(m: &Ibm1, src: &[Vec<String>], tgt: &[Vec<String>]) -> Links {
        m.align_all_tokens(src, tgt, Symmetrization::GrowDiagFinalAnd)
    }
}

struct Setup {
    minutes: f64,
    preset: String,
    per_kind: usize,
    r: f64,
    /// Embedding width instead of the preset's (512: the vectors' own, no projection).
    emb: Option<usize>,
    /// Keep the initialised tables fixed.
    freeze: bool,
}

impl Setup {
    /// The preset's network with this setup's overrides.
    fn network(&self) -> Result<AlignerConfig> {
        let mut network = AlignerConfig::preset(&self.preset, 1)?;
        network.r = self.r;
        if let Some(e) = self.emb {
            network.emb_dim = e;
        }
        network.frozen_embeddings = self.freeze;
        Ok(network)
    }

    /// What the model names say beyond the defaults.
    fn tag(&self) -> String {
        let mut t = String::new();
        if let Some(e) = self.emb {
            t += &format!("-e{e}");
        }
        if self.freeze {
            t += "-frozen";
        }
        t
    }
}

/// Train one model on `kinds` with `objective`; returns it and a line for the report.
fn train_one(
    ctx: &Ctx,
    d: &Data,
    l: &Links1,
    s: &Setup,
    kinds: &[Kind],
    objective: Objective,
) -> Result<(AlignerModel, String)> {
    let name = format!(
        "aligner-{}-{objective:?}-r{}-m{}{}",
        Kind::set_name(kinds),
        s.r,
        s.minutes,
        s.tag()
    )
    .to_lowercase();
    let dir = out_dir(&name);
    let line_file = dir.join("eval-line.txt");
    if env("BITEXT_EVAL_AL_REUSE", 0u8) == 1
        && dir.join("weights.bpk").exists()
        && let Ok(line) = std::fs::read_to_string(&line_file)
    {
        let model = AlignerModel::load(&dir, BackendSpec::Flex)?;
        return Ok((
            model,
            format!("{} (reused, `BITEXT_EVAL_AL_REUSE=1`)", line.trim()),
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut network = s.network()?;
    network.objective = objective;
    let mut train = AlignerTrainConfig::paper(17);
    train.train = TrainConfig {
        optimizer: OptimizerSpec::adam(1e-3),
        schedule: LrSchedule::Plateau { factor: 0.8 },
        clip_norm: Some(5.0),
        time_limit_secs: Some(s.minutes * 60.0),
        progress: true,
        threads: Threads(0),
        ..TrainConfig::new(100, 1e-3, 17)
    };
    let links = |train: (&[Vec<String>], &[Vec<String>]),
                 valid: (&[Vec<String>], &[Vec<String>])|
     -> std::result::Result<(Links, Links), String> {
        if let Some(v) = l.links.get() {
            return Ok(v.clone());
        }
        let m = l.ibm1(train.0, train.1)?;
        let v = (
            Links1::align(m, train.0, train.1),
            Links1::align(m, valid.0, valid.1),
        );
        let _ = l.links.set(v.clone());
        Ok(v)
    };
    let job = AlignerTextTraining {
        src: &d.de,
        tgt: &d.en,
        valid: Some((&d.valid.0, &d.valid.1)),
        network,
        train,
        kinds: kinds.to_vec(),
        per_kind: s.per_kind,
        vocab: WordVocabConfig {
            joint: false,
            min_count: 2,
            max_size: Some(30_000),
            ..WordVocabConfig::default()
        },
        spm: None,
        init: Some(VectorsInit {
            source: ctx.path("bwe/usem.de.vec"),
            target: Some(ctx.path("bwe/usem.en.vec")),
            max_words: None,
        }),
        max_len: Some(60),
        links: &links,
    };
    let t0 = Instant::now();
    let trained = train_aligner(&job, &dir, false).with_context(|| format!("training {name}"))?;
    let h = &trained.fitted.state.history;
    let last = h.last().context("no epoch")?;
    let line = format!(
        "{} epochs, {:.0} examples/s, {:.1} min; validation word accuracy {:.3} (best epoch {})",
        h.len(),
        last.items_per_sec,
        t0.elapsed().as_secs_f64() / 60.0,
        h[trained
            .fitted
            .state
            .best_epoch
            .saturating_sub(1)
            .min(h.len() - 1)]
        .valid
        .as_ref()
        .and_then(|v| v.metrics.get("word_accuracy"))
        .copied()
        .unwrap_or(f64::NAN),
        trained.fitted.state.best_epoch
    );
    std::fs::write(&line_file, &line)
        .with_context(|| format!("writing {}", line_file.display()))?;
    Ok((AlignerModel::load(&dir, BackendSpec::Flex)?, line))
}

/// The IBM-1 model of the training pairs in `model`'s tokens (trained here when every model
/// was reused).
pub(super) fn ibm1<'a>(model: &AlignerModel, d: &Data, l: &'a Links1) -> Result<&'a Ibm1> {
    if l.model.get().is_none() {
        let pieces = |side: Side, text: &[String]| -> Result<Vec<Vec<String>>> {
            let refs: Vec<&str> = text.iter().map(String::as_str).collect();
            let enc = model.text().tokenizer(side).encode_batch(&refs)?;
            Ok(enc.into_iter().map(|e| e.pieces).collect())
        };
        let (s, t) = (pieces(Side::Source, &d.de)?, pieces(Side::Target, &d.en)?);
        // Pairs with an empty side are dropped, as training drops them.
        let (s, t): (Vec<_>, Vec<_>) = s
            .into_iter()
            .zip(t)
            .filter(|(a, b)| !a.is_empty() && !b.is_empty())
            .unzip();
        l.ibm1(&s, &t).map_err(anyhow::Error::msg)?;
    }
    l.model.get().context("IBM-1 not trained")
}

/// The test examples: 200 paired, 100 of each negative kind, from the held-out test pairs.
fn test_examples(model: &AlignerModel, d: &Data, l: &Links1) -> Result<Vec<Example>> {
    let m = ibm1(model, d, l)?;
    let s: Vec<&str> = d.test.0.iter().map(String::as_str).collect();
    let t: Vec<&str> = d.test.1.iter().map(String::as_str).collect();
    let corpus = model.corpus(&s, &t, &|a, b| Ok(Links1::align(m, a, b)))?;
    let g = Synthesizer::new(&corpus)?;
    let mut rng = Rng::seed(2019);
    let mut out = Vec::new();
    for (kind, n) in [
        (Kind::Paired, 200),
        (Kind::Unpaired, 100),
        (Kind::Replace, 100),
        (Kind::Insert, 100),
    ] {
        for _ in 0..n {
            out.push(g.draw(kind, &mut rng)?);
        }
    }
    Ok(out)
}

/// One row of the word-accuracy table: `model` on the test examples.
fn table_row(
    model: &AlignerModel,
    d: &Data,
    l: &Links1,
    name: &str,
    rows: &mut String,
) -> Result<()> {
    let test = test_examples(model, d, l)?;
    let (_, acc) = evaluate(model.model(), &test, &batches(test.len()))?;
    let cell = |k| acc.kind(k).map_or("–".to_string(), |a| format!("{a:.3}"));
    writeln!(
        rows,
        "| {name} | {} | {} | {} | {} | **{:.3}** |",
        cell(Kind::Paired),
        cell(Kind::Unpaired),
        cell(Kind::Replace),
        cell(Kind::Insert),
        acc.overall()
    )?;
    Ok(())
}

fn batches(n: usize) -> Vec<Vec<usize>> {
    (0..n)
        .collect::<Vec<_>>()
        .chunks(32)
        .map(<[usize]>::to_vec)
        .collect()
}

/// Sentence level: `wemb` vectors mined with margins, `semb` scores with greedy one-to-one,
/// the noisy-parallel protocol with both.
fn sentences(
    ctx: &Ctx,
    wemb_model: &AlignerModel,
    semb_model: &AlignerModel,
    md: &mut String,
) -> Result<()> {
    let b = read_bucc(ctx)?;
    let d: Vec<&str> = b.de.iter().map(String::as_str).collect();
    let e: Vec<&str> = b.en.iter().map(String::as_str).collect();
    let de = wemb_model.vectors(Side::Source, &d)?;
    let en = wemb_model.vectors(Side::Target, &e)?;
    md.push_str("**BUCC-style newsdev, `wemb` vectors** (1800 de × 1800 en, 600 gold pairs): ");
    margin_mining(&b, &de, &en, md)?;
    let t0 = Instant::now();
    let scorer = semb_model.scorer(&d, &e, true)?;
    let result = match greedy_all_pairs(&b, scorer.as_ref(), f64::NEG_INFINITY) {
        Ok(best) => format!(
            "best threshold {:.3}: P {:.3} R {:.3} **F1 {:.3}**",
            best.threshold, best.prf.precision, best.prf.recall, best.prf.f1
        ),
        Err(e) => format!("**F1 0** ({e:#})"),
    };
    writeln!(
        md,
        "**BUCC-style newsdev, `semb`**: `h_sim` on all {} pairs, greedy one-to-one, \
         {result} ({:.0} s).\n",
        d.len() * e.len(),
        t0.elapsed().as_secs_f64()
    )?;
    for (m, semb, what) in [
        (wemb_model, false, "`wemb` cosine"),
        (semb_model, true, "`semb` score"),
    ] {
        writeln!(
            md,
            "**Noisy-parallel protocol, {what}**: the first 1000 pairs of \
             `dev/newstest-dev.en-de` (de → en), a ratio of the English sides replaced by \
             sentences of pairs 1001–3000, every pair scored, P/R/F1 at the best threshold.\n"
        )?;
        noisy_table(ctx, &|s, t| Ok(m.scorer(s, t, semb)?), md)?;
    }
    Ok(())
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let s = Setup {
        minutes: env("BITEXT_EVAL_AL_MINUTES", 3.0),
        preset: env("BITEXT_EVAL_AL_PRESET", "small".to_string()),
        per_kind: env("BITEXT_EVAL_AL_PER_KIND", 4000),
        r: env("BITEXT_EVAL_AL_R", 1.0),
        emb: std::env::var("BITEXT_EVAL_AL_EMB")
            .ok()
            .map(|v| v.parse())
            .transpose()
            .context("BITEXT_EVAL_AL_EMB")?,
        freeze: env("BITEXT_EVAL_AL_FREEZE", 0u8) == 1,
    };
    let sets: String = env(
        "BITEXT_EVAL_AL_SETS",
        "PU,PR,PI,PUR,PUI,PRI,PURI".to_string(),
    );
    let d = data(ctx)?;
    let l = Links1 {
        model: OnceCell::new(),
        links: OnceCell::new(),
    };
    let net = s.network()?;
    let mut md = String::new();
    writeln!(
        md,
        "**Training** (every model): {} (German source, English target); 300 held-out \
         newstest-dev pairs for validation, 500 others for the test set (disjoint). Joint-free \
         lowercased word vocabularies (min count 2, ≤ 30,000 each), tables initialised from \
         `bwe/usem.{{de,en}}.vec` ({}) and {}. Preset `{}`: embeddings {}, LSTM {} \
         per direction, r = {}; {} examples of each kind per epoch (the draft: as many paired \
         examples as of each other kind), batches of ≤ 32 examples, Adam 1e-3 (× 0.8 when the \
         validation loss worsens), global-norm clipping at 5, {} min per model on {} threads. \
         Replace examples use the symmetrised (grow-diag-final-and) IBM-1 alignments of \
         `bitext-lexical` trained on the training pairs.\n",
        d.what,
        if net.emb_dim < 512 {
            format!("PCA to {}", net.emb_dim)
        } else {
            "at their 512 dimensions".to_string()
        },
        if net.frozen_embeddings {
            "kept fixed (`BITEXT_EVAL_AL_FREEZE=1`)"
        } else {
            "trained"
        },
        s.preset,
        net.emb_dim,
        net.hidden,
        s.r,
        s.per_kind,
        s.minutes,
        Threads::available()
    )?;
    let mut rows = String::new();
    let mut log = String::new();
    let mut puri = None;
    for set in sets.split(',') {
        let kinds = Kind::parse_set(set)?;
        let (model, line) = train_one(ctx, &d, &l, &s, &kinds, Objective::Words)?;
        table_row(&model, &d, &l, &Kind::set_name(&kinds), &mut rows)?;
        writeln!(log, "- {}: {line}", Kind::set_name(&kinds))?;
        if Kind::set_name(&kinds) == "PURI" {
            puri = Some(model);
        }
    }
    // A longer run of the P+U+R+I model: does quality grow with training?
    let long: f64 = env("BITEXT_EVAL_AL_LONG_MINUTES", 0.0);
    let mut long_model = None;
    if long > 0.0 {
        let sl = Setup {
            minutes: long,
            preset: s.preset.clone(),
            ..s
        };
        let (model, line) = train_one(
            ctx,
            &d,
            &l,
            &sl,
            &Kind::parse_set("PURI")?,
            Objective::Words,
        )?;
        let name = format!("PURI, {long} min");
        table_row(&model, &d, &l, &name, &mut rows)?;
        writeln!(log, "- {name}: {line}")?;
        long_model = Some((name, model));
    }
    writeln!(
        md,
        "**Word-divergence accuracy** (the draft's Table 2; its P+U+R+I model reaches 0.942 \
         overall on OpenSubtitles en-fr): 500 synthetic examples from the held-out test pairs \
         (200 P, 100 U, 100 R, 100 I, seeded), a word predicted divergent when its aggregate \
         `aggr` is negative; accuracy over the words of each column's examples, both sides.\n\n\
         | trained on | P | U | R | I | PURI |\n|---|---|---|---|---|---|\n{rows}\nTraining:\n\n{log}"
    )?;
    // The aggregation's sharpness: P+U+R+I models at other values of r, same budget.
    let sweep: String = env("BITEXT_EVAL_AL_R_SWEEP", "0.25,4".to_string());
    if !sweep.is_empty() {
        let mut rows = String::new();
        for r in sweep.split(',') {
            let r: f64 = r
                .parse()
                .with_context(|| format!("BITEXT_EVAL_AL_R_SWEEP: {r:?}"))?;
            let sr = Setup {
                r,
                preset: s.preset.clone(),
                ..s
            };
            let (model, line) = train_one(
                ctx,
                &d,
                &l,
                &sr,
                &Kind::parse_set("PURI")?,
                Objective::Words,
            )?;
            let test = test_examples(&model, &d, &l)?;
            let (_, acc) = evaluate(model.model(), &test, &batches(test.len()))?;
            writeln!(rows, "| {r} | {:.3} | {line} |", acc.overall())?;
        }
        writeln!(
            md,
            "**The aggregation's sharpness r** (P+U+R+I, word loss, same budget; the table \
             above uses r = {}):\n\n| r | test word accuracy (PURI) | training |\n|---|---|---|\n{rows}",
            s.r
        )?;
    }
    if let Some(m) = &puri {
        super::aligner_fix::fixing(m, &d, &l, &mut md)?;
    }
    if let Some((name, m)) = &long_model {
        writeln!(md, "With the {name} model:\n")?;
        super::aligner_fix::fixing(m, &d, &l, &mut md)?;
    }
    let (semb, line) = train_one(
        ctx,
        &d,
        &l,
        &s,
        &Kind::parse_set("PURI")?,
        Objective::Sentence,
    )?;
    writeln!(
        md,
        "**Sentence level.** `wemb`: the P+U+R+I model of the table (word loss). `semb`: a \
         separate network on the same encoders trained on the sentence loss alone (eq. 5, as \
         the draft compares them), P+U+R+I, same budget: {line}.\n"
    )?;
    let wemb = puri
        .as_ref()
        .context("the sentence level needs the PURI row")?;
    sentences(ctx, wemb, &semb, &mut md)?;
    if let Some((name, m)) = &long_model {
        let b = read_bucc(ctx)?;
        let dd: Vec<&str> = b.de.iter().map(String::as_str).collect();
        let ee: Vec<&str> = b.en.iter().map(String::as_str).collect();
        let (x, y) = (m.vectors(Side::Source, &dd)?, m.vectors(Side::Target, &ee)?);
        write!(
            md,
            "**BUCC-style newsdev, `wemb` vectors of the {name} model**: "
        )?;
        margin_mining(&b, &x, &y, &mut md)?;
    }
    Ok(md)
}
