//! Part of evaluations `neural` and `autoencoder`: the MLP similarity of Kim et al. (2019,
//! §3.3) trained on an encoder's sentence vectors (the siamese classifier's or the
//! autoencoder's), with random negatives or the worst-scored (by cosine)
//! lines of a portion of the gettext corpus (§5.2), measured as a filter on newsdev and as a
//! miner on BUCC-style newsdev.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::io::text::EmptyLines;
use bitext::core::{Embeddings, Rng};
use bitext::encode::{SentenceEncoder, Side};
use bitext::eval::noisy::NoisyParallel;
use bitext::eval::prf::best_f1_threshold;
use bitext::similarity::PairScorer;
use bitext_neural::mlp::{
    Mlp, MlpConfig, MlpDescription, MlpScorer, MlpTask, PairSet, cosine_rows, random_negatives,
    worst_of_portion,
};
use bitext_neural::train::{TrainConfig, fit};

use super::Ctx;
use super::neural::{Bucc, greedy_best, out_dir};

/// Vectors of sentences of one side.
fn vectors(enc: &dyn SentenceEncoder, side: Side, s: &[String]) -> Result<Embeddings> {
    let r: Vec<&str> = s.iter().map(String::as_str).collect();
    Ok(enc.encode(side, &r)?)
}

fn rows(e: &Embeddings, idx: &[usize]) -> Result<Embeddings> {
    let mut out = Embeddings::with_capacity(e.dim(), idx.len())?;
    for &i in idx {
        out.push_row(e.row(i))?;
    }
    Ok(out)
}

/// Decile-like histogram of scores in `[0, 1]`.
fn histogram(scores: &[f64]) -> String {
    let edges = [0.0, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0001];
    let n = scores.len() as f64;
    edges
        .windows(2)
        .map(|w| {
            let c = scores.iter().filter(|&&s| s >= w[0] && s < w[1]).count();
            format!("{:.0}%", 100.0 * c as f64 / n)
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Rescale cosines to `[0, 1]` as Kim et al.'s Figure 3 does.
fn rescale(v: &[f64]) -> Vec<f64> {
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    v.iter().map(|x| (x - lo) / (hi - lo).max(1e-12)).collect()
}

pub(super) fn run(
    ctx: &Ctx,
    enc: &dyn SentenceEncoder,
    encoder_dir: &std::path::Path,
    bucc: &Bucc,
    md: &mut String,
) -> Result<()> {
    let t0 = Instant::now();
    // Positives: the WMT sample (news-like, clean); the noisy corpus: gettext.
    let (wen, wde) = ctx.parallel("train/wmt-sample.en-de", ("en", "de"), EmptyLines::Keep)?;
    let keep: Vec<usize> = (0..wde.len())
        .filter(|&i| !wde[i].trim().is_empty() && !wen[i].trim().is_empty())
        .collect();
    let pick = |v: &[String]| keep.iter().map(|&i| v[i].clone()).collect::<Vec<String>>();
    let (pde, pen) = (pick(&wde), pick(&wen));
    let (a, b) = (
        vectors(enc, Side::Source, &pde)?,
        vectors(enc, Side::Target, &pen)?,
    );
    let (gde, gen_en) = super::neural::gettext_de_en(ctx)?;
    let (ga, gb) = (
        vectors(enc, Side::Source, &gde)?,
        vectors(enc, Side::Target, &gen_en)?,
    );
    let gcos = cosine_rows(ga.view(), gb.view())?;
    let n_neg = a.len();

    // The filtering test: 1000 newstest-dev pairs, half of the targets replaced.
    let (en, de) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    let n = 1000;
    let test = NoisyParallel::build(n, en.len() - n, 0.5, &mut Rng::seed(2019))?;
    let tgt: Vec<String> = test
        .target_items(&en[..n], &en[n..])?
        .into_iter()
        .cloned()
        .collect();
    let (fa, fb) = (
        vectors(enc, Side::Source, &de[..n])?,
        vectors(enc, Side::Target, &tgt)?,
    );
    let aligned: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
    let labelled = |s: &[f64]| -> Vec<(f64, bool)> {
        s.iter()
            .zip(&aligned)
            .map(|(&x, p)| (x, test.gold().contains(&p.0, &p.1)))
            .collect()
    };
    let cos = cosine_rows(fa.view(), fb.view())?;
    let cos_f1 = best_f1_threshold(&labelled(&cos), test.gold().len())?.context("no gold")?;

    // BUCC candidates: the 10 best targets of each source by cosine.
    let (ba, bb) = (
        vectors(enc, Side::Source, &bucc.de)?,
        vectors(enc, Side::Target, &bucc.en)?,
    );
    let candidates = top_k_cosine(&ba, &bb, 10)?;

    writeln!(
        md,
        "**MLP similarity** (Kim et al. §3.3): two ReLU layers of 512 on `[a; b]` of the \
         encoder's sentence vectors; positives: the {} WMT-sample pairs; as many negatives: \
         random re-pairings of the positives (`re-paired`), random lines of the noisy gettext \
         corpus ({} pairs; `random lines`, §5.2's random negatives), or its worst lines (by \
         cosine of the same vectors) among the top x% of it (§5.2). Adam 1e-3, batches of 200, 10% held out, \
         early stopping. **Filtering**: newstest-dev pairs 1–1000 with half of the English \
         sides replaced (500 parallel), each aligned pair scored; F1 at the best threshold and \
         the share of scores in [0, .01) / [.01, .1) / [.1, .3) / [.3, .5) / [.5, .7) / [.7, .9) \
         / [.9, .99) / [.99, 1]. **Mining**: BUCC-style newsdev, each German sentence's 10 \
         nearest English sentences by cosine scored by the MLP, greedy one-to-one, best \
         threshold. Cosine of the same vectors for comparison: filtering F1 **{:.3}**, \
         distribution (rescaled to [0, 1]) {}.\n",
        a.len(),
        gde.len(),
        cos_f1.prf.f1,
        histogram(&rescale(&cos))
    )?;
    md.push_str(
        "| negatives | valid acc | filtering F1 | score distribution | BUCC F1 |\n\
         |---|---|---|---|---|\n",
    );
    let mut rng = Rng::seed(5);
    for level in [
        "re-paired",
        "random lines",
        "20%",
        "40%",
        "60%",
        "80%",
        "100%",
    ] {
        let (ns, nt) = match level {
            "re-paired" => {
                let p = random_negatives(a.len(), n_neg, &mut rng);
                let (i, j): (Vec<usize>, Vec<usize>) = p.into_iter().unzip();
                (rows(&a, &i)?, rows(&b, &j)?)
            }
            "random lines" => {
                let mut idx: Vec<usize> = (0..ga.len()).collect();
                rng.shuffle(&mut idx);
                idx.truncate(n_neg);
                (rows(&ga, &idx)?, rows(&gb, &idx)?)
            }
            _ => {
                let portion = level.trim_end_matches('%').parse::<f64>()? / 100.0;
                let idx = worst_of_portion(&gcos, portion, n_neg)?;
                (rows(&ga, &idx)?, rows(&gb, &idx)?)
            }
        };
        let set = PairSet::from_sets(a.view(), b.view(), ns.view(), nt.view())?;
        let (tr, va) = set.split(0.1, &mut rng)?;
        let desc = MlpDescription {
            network: MlpConfig::paper(a.dim()),
            encoder: Some(encoder_dir.display().to_string()),
        };
        let mut task = MlpTask::new(desc.clone(), tr, Some(va), 200)?;
        let mut cfg = TrainConfig::new(30, 1e-3, 5);
        cfg.patience = Some(3);
        let device = cfg.backend.autodiff_device()?;
        let model = Mlp::new(&desc.network, 5, &device)?;
        let dir = out_dir(&format!(
            "mlp-{}",
            level.trim_end_matches('%').replace(' ', "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let fitted = fit(&mut task, model, &cfg, &dir, false)?;
        let acc = fitted.state.history[fitted.state.best_epoch - 1]
            .valid
            .as_ref()
            .map_or(f64::NAN, |v| v.metrics["accuracy"]);
        let filter = MlpScorer::new(&fitted.model, fa.clone(), fb.clone())?;
        let s = filter.score(&aligned)?;
        let f1 = best_f1_threshold(&labelled(&s), test.gold().len())?.context("no gold")?;
        let miner = MlpScorer::new(&fitted.model, ba.clone(), bb.clone())?;
        let cs = miner.score(&candidates)?;
        let bucc_f1 = greedy_best(&candidates, &cs, &bucc.gold)?.prf.f1;
        writeln!(
            md,
            "| {level}{} | {acc:.3} | **{:.3}** | {} | {bucc_f1:.3} |",
            if level.ends_with('%') { "-worst" } else { "" },
            f1.prf.f1,
            histogram(&s)
        )?;
    }
    writeln!(md, "\n({:.0} s.)", t0.elapsed().as_secs_f64())?;
    Ok(())
}

/// For each row of `a`, the `k` rows of `b` with the highest cosine (bitext-knn's exact
/// search over the normalised rows; ties to the lower id).
fn top_k_cosine(a: &Embeddings, b: &Embeddings, k: usize) -> Result<Vec<(usize, usize)>> {
    use bitext::knn::{ExactIndex, KnnIndex, Metric};
    use bitext::mine::UnitRows;
    let (a, b) = (
        UnitRows::new(a.view(), "source")?,
        UnitRows::new(b.view(), "target")?,
    );
    let nn = ExactIndex::over(b.view(), Metric::InnerProduct)?
        .search(a.view(), k.min(b.view().len()))?;
    Ok((0..nn.len())
        .flat_map(|i| nn.ids(i).iter().map(move |&j| (i, j)))
        .collect())
}
