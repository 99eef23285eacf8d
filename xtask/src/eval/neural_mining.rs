//! What the neural evaluations (`neural`, `autoencoder`, `aligner`) measure alike on the
//! BUCC-style newsdev set: reading it, greedy one-to-one extraction and F1 at the best
//! threshold, margin mining of sentence vectors under every retrieval strategy, the bar a
//! model over the subword vectors must clear (the TF-IDF bag of the same vectors), the
//! noisy-parallel protocol with the cosine of an encoder's vectors, and Tatoeba P@1.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use bitext::core::Embeddings;
use bitext::core::io::bucc::{BuccGold, BuccSentences, read_bucc_gold, read_bucc_sentences};
use bitext::core::io::text::EmptyLines;
use bitext::encode::{BowEncoder, SentenceEncoder, Side};
use bitext::eval::bucc::GoldSet;
use bitext::knn::{ExactIndex, KnnIndex, Metric};
use bitext::mine::{ScoredPair, all_pairs, extract, greedy_one_to_one};
use bitext::similarity::PairScorer;
use bitext_neural::spec::CosineScorer;

use super::Ctx;

/// BUCC-style newsdev: sentence vectors of both sides and the gold pairs as indices.
pub(super) struct Bucc {
    pub(super) de: Vec<String>,
    pub(super) en: Vec<String>,
    pub(super) gold: Vec<(usize, usize)>,
}

/// The BUCC-style newsdev set under the data directory: `{NEWSDEV}.de`, `.en` and `.gold`.
pub(super) const NEWSDEV: &str = "dev/bucc-style/de-en.newsdev";

/// The files of BUCC-style newsdev as read: the German and English sentences with their ids,
/// and the gold pairs, whose ids are checked against the sentences.
pub(super) fn read_newsdev(ctx: &Ctx) -> Result<(BuccSentences, BuccSentences, BuccGold)> {
    let path = |ext: &str| ctx.path(&format!("{NEWSDEV}.{ext}"));
    let de = read_bucc_sentences(path("de"))?;
    let en = read_bucc_sentences(path("en"))?;
    let gold = read_bucc_gold(path("gold"))?;
    gold.check_ids(&de, &en)?;
    Ok((de, en, gold))
}

/// BUCC-style newsdev ([`read_newsdev`]) with the gold pairs as row indices.
pub(super) fn read_bucc(ctx: &Ctx) -> Result<Bucc> {
    let (de, en, gold) = read_newsdev(ctx)?;
    let gold = gold.to_indices(&de, &en)?;
    Ok(Bucc {
        de: de.sentences().to_vec(),
        en: en.sentences().to_vec(),
        gold,
    })
}

/// Greedy one-to-one over scored candidate pairs, best score first (Grégoire & Langlais
/// §5.2, `bitext_mine::greedy_one_to_one`), then P/R/F1 against `gold` at the best threshold:
/// with a threshold the greedy pass keeps a prefix of what it keeps without one, so one pass
/// serves every threshold.
pub(super) fn greedy_best(
    cands: &[(usize, usize)],
    scores: &[f64],
    gold: &[(usize, usize)],
) -> Result<bitext::eval::Threshold> {
    let pairs = cands
        .iter()
        .zip(scores)
        .map(|(&(i, j), &s)| ScoredPair::new(s, i, j))
        .collect();
    best_f1(&greedy_one_to_one(pairs)?, gold)?.context("no gold pair was extracted")
}

/// P/R/F1 of `pairs` against `gold` at the F1-optimal threshold (`None` when no gold pair
/// is among them): the eval crate's [`GoldSet::best_threshold`].
pub(super) fn best_f1(
    pairs: &[ScoredPair],
    gold: &[(usize, usize)],
) -> Result<Option<bitext::eval::Threshold>> {
    let gold = GoldSet::new(gold.iter().copied())?;
    let scored: Vec<(f64, usize, usize)> = pairs.iter().map(|p| (p.score, p.src, p.tgt)).collect();
    Ok(gold.best_threshold(&scored)?)
}

/// Every `de × en` pair of `bucc` scored by `scorer`, greedy one-to-one over those scoring at
/// least `floor`, P/R/F1 at the F1-optimal threshold.
pub(super) fn greedy_all_pairs(
    bucc: &Bucc,
    scorer: &dyn bitext::similarity::PairScorer,
    floor: f64,
) -> Result<bitext::eval::Threshold> {
    let kept = extract(scorer, all_pairs(bucc.de.len(), bucc.en.len()), floor)?;
    best_f1(&kept, &bucc.gold)?.context("no gold pair was extracted")
}

/// (b), second half: the encoder's sentence vectors mined like any embeddings (bitext-mine,
/// exact kNN both ways, k = 4), cosine vs ratio margin under each retrieval strategy, best F1.
pub(super) fn margin_mining(
    bucc: &Bucc,
    de: &Embeddings,
    en: &Embeddings,
    md: &mut String,
) -> Result<()> {
    use bitext::similarity::MarginFunction;
    const K: usize = 4;
    writeln!(
        md,
        "The encoder's sentence vectors mined as \
         embeddings: exact kNN both ways, k = {K}, best F1 over each strategy's scored pairs \
         (the threshold is tuned on this set, as above):\n"
    )?;
    writeln!(md, "| scoring | fwd | bwd | intersect | max |")?;
    writeln!(md, "|---|---|---|---|---|")?;
    let mut notes = String::new();
    for f in [MarginFunction::Absolute, MarginFunction::Ratio] {
        let mut row = format!("| {} |", super::scoring_name(f));
        match super::mine_every_strategy(de, en, f, K) {
            Ok(strategies) => {
                for (_, pairs) in strategies {
                    match best_f1(&pairs, &bucc.gold)? {
                        Some(b) => write!(row, " {:.3} |", b.prf.f1)?,
                        None => row.push_str(" 0 |"),
                    }
                }
            }
            // The ratio margin is undefined where a neighbourhood's mean cosine is not
            // positive: say so instead of a number.
            Err(e) => {
                row.push_str(" – | – | – | – |");
                writeln!(notes, "{f:?}: {e:#}")?;
            }
        }
        writeln!(md, "{row}")?;
    }
    if !notes.is_empty() {
        writeln!(md, "\nNot defined for these vectors: {}", notes.trim())?;
    }
    writeln!(md)?;
    Ok(())
}

/// The bar for a model whose table starts from the subword vectors: the TF-IDF bag of words
/// over the same vectors and pieces (`bucc_bow`'s encoder), with IDF over the evaluated
/// sentences themselves (as the `bucc_bow` section) and over the training sentences (the
/// weights a network with a bag of words starts from), mined and recovered like the model.
pub(super) fn pieces_bow_bar(
    ctx: &Ctx,
    bucc: &Bucc,
    (tde, ten): (&[String], &[String]),
    md: &mut String,
) -> Result<()> {
    use bitext::similarity::MarginFunction;
    let (en, de) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    writeln!(
        md,
        "**The bar: the TF-IDF bag of words over the same vectors** (`bwe/usem.spm128k.vec` \
         over the 128k model's pieces, HTML-unescaped; `bucc_bow`'s encoder), IDF over the \
         evaluated sentences (the `bucc_bow` section's 0.765) or over this run's training \
         sentences (what a network with a bag of words starts from). Newsdev best F1, ratio \
         margin (k = 4), fwd / bwd / intersect / max; recovery error on \
         `dev/newstest-dev.en-de` (the recovery protocol above).\n\n\
         | IDF over | newsdev F1, ratio margin | recovery, cosine | recovery, CSLS |\n\
         |---|---|---|---|"
    )?;
    let on_evaluated = |src: &[String], tgt: &[String]| -> Result<BowEncoder> {
        Ok(super::bucc_bow::pieces_builder(ctx)?
            .tfidf(src, tgt)
            .build()?)
    };
    let on_training = on_evaluated(tde, ten)?;
    for (name, newsdev, recovery) in [
        (
            "evaluated sentences",
            &on_evaluated(&bucc.de, &bucc.en)?,
            &on_evaluated(&de, &en)?,
        ),
        ("training sentences", &on_training, &on_training),
    ] {
        let x = super::bucc_bow::encode(newsdev, &bucc.de, &bucc.en)?;
        let mut f1s = Vec::new();
        for (_, pairs) in super::mine_every_strategy(&x.src, &x.trg, MarginFunction::Ratio, 4)? {
            let pairs: Vec<ScoredPair> = pairs
                .into_iter()
                .map(|p| ScoredPair::new(p.score, x.src_rows[p.src], x.trg_rows[p.tgt]))
                .collect();
            f1s.push(best_f1(&pairs, &bucc.gold)?.map_or(0.0, |b| b.prf.f1));
        }
        let y = super::bucc_bow::encode(recovery, &de, &en)?;
        anyhow::ensure!(
            y.src.len() == de.len() && y.trg.len() == en.len(),
            "a newstest sentence without a known piece"
        );
        let rows = super::bucc_bow::recovery_errors(&y.src, &y.trg)?;
        writeln!(
            md,
            "| {name} | {:.3} / {:.3} / {:.3} / **{:.3}** | {:.2}% | {:.2}% |",
            f1s[0],
            f1s[1],
            f1s[2],
            f1s[3],
            100.0 * rows[0].1.mean,
            100.0 * rows[1].1.mean
        )?;
    }
    md.push('\n');
    Ok(())
}

/// The noisy-parallel protocol of the `neural` and `aligner` sections with the cosine of
/// `enc`'s vectors, under the heading `label`.
pub(super) fn noisy_cosine(
    ctx: &Ctx,
    enc: &dyn SentenceEncoder,
    label: &str,
    md: &mut String,
) -> Result<()> {
    writeln!(
        md,
        "**{label}Noisy-parallel protocol** (as in the `neural` and `aligner` sections): the \
         first 1000 pairs of `dev/newstest-dev.en-de` (de → en), a ratio of the English sides \
         replaced by sentences of pairs 1001–3000, the cosine of the vectors on all 1000 × 1000 \
         pairs, P/R/F1 at the F1-optimal threshold.\n"
    )?;
    let scorer = |s: &[&str], t: &[&str]| -> Result<Box<dyn PairScorer>> {
        let (a, b) = (enc.encode(Side::Source, s)?, enc.encode(Side::Target, t)?);
        Ok(Box::new(CosineScorer::new(a, b)?))
    };
    super::neural::noisy_table(ctx, &scorer, md)
}

/// For each row of `a`, the row of `b` with the largest cosine (ties to the lower row), by
/// bitext-knn's exact index.
pub(super) fn nearest(a: &Embeddings, b: &Embeddings) -> Result<Vec<usize>> {
    let (mut a, mut b) = (a.clone(), b.clone());
    a.normalize_l2();
    b.normalize_l2();
    let index = ExactIndex::over(b.view(), Metric::InnerProduct)?;
    Ok(index.search(a.view(), 1)?.all_ids().to_vec())
}

/// The share of rows `i` whose pick `nn[i]` is `i` (P@1 of line-parallel sets).
pub(super) fn own_share(nn: &[usize]) -> f64 {
    nn.iter().enumerate().filter(|(i, j)| i == *j).count() as f64 / nn.len() as f64
}

/// P@1 both ways of line-parallel sentence vectors by cosine: `(a → b, b → a)`.
pub(super) fn p_at_1(a: &Embeddings, b: &Embeddings) -> Result<(f64, f64)> {
    Ok((own_share(&nearest(a, b)?), own_share(&nearest(b, a)?)))
}

/// Tatoeba fr-en P@1 `(fr → en, en → fr)` of a de-en encoder whose tokenizer and vectors cover
/// French (the multilingual pieces): French through the source side, zero-shot.
pub(super) fn tatoeba_fr_en(ctx: &Ctx, enc: &dyn SentenceEncoder) -> Result<(f64, f64)> {
    let (fr, en) = ctx.parallel(
        "dev/tatoeba/tatoeba.fra-eng",
        ("fra", "eng"),
        EmptyLines::Reject,
    )?;
    let (fr, en): (Vec<&str>, Vec<&str>) = (
        fr.iter().map(String::as_str).collect(),
        en.iter().map(String::as_str).collect(),
    );
    let x = enc.encode(Side::Source, &fr)?;
    let y = enc.encode(Side::Target, &en)?;
    p_at_1(&x, &y)
}
