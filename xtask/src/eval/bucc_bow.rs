//! Evaluation `bucc_bow`: margin mining of `dev/bucc-style/de-en.newsdev` with the
//! bag-of-words encoder over `bwe/usem.{de,en}.vec` — best F1 (BUCC protocol: the threshold
//! that maximises F1 over the mined list) for cosine (absolute margin) and ratio margin under
//! each retrieval strategy, plain and TF-IDF weighted means, and the same over the subword
//! vectors `bwe/usem.spm128k.vec` keyed by the pieces of `spm/use-multilingual-v3-128k.model`;
//! then the 1-NN alignment-recovery error on `dev/newstest-dev.en-de` (Kim et al. 2019, §4.1)
//! with cosine and CSLS.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::Embeddings;
use bitext::core::io::text::EmptyLines;
use bitext::core::io::vec::read_vec;
use bitext::encode::{BowEncoder, NoKnownWord, Side};
use bitext::eval::alignment::{AlignmentError, line_parallel_error};
use bitext::eval::bucc::GoldSet;
use bitext::mine::{MineSpec, Miner};
use bitext::similarity::{MarginFunction, MarginSpec};
use bitext::tokenize::{Segmenter, SequenceConfig, TokenizerSpec};

use super::Ctx;
use super::neural_mining::{NEWSDEV, read_newsdev};

/// Neighbourhood size (LASER's default).
const K: usize = 4;

/// The rows of `e` not listed in `skip`, and a map back to the original rows.
fn compact(e: &Embeddings, skip: &[usize]) -> Result<(Embeddings, Vec<usize>)> {
    Ok(e.view().without_rows(skip))
}

/// One encoder's embeddings of both sides, with the rows that had no known word removed.
pub(super) struct Encoded {
    /// Source embeddings of the rows kept.
    pub(super) src: Embeddings,
    /// Target embeddings of the rows kept.
    pub(super) trg: Embeddings,
    /// The original source row of each kept row.
    pub(super) src_rows: Vec<usize>,
    /// The original target row of each kept row.
    pub(super) trg_rows: Vec<usize>,
    dropped: (usize, usize),
    coverage: f64,
}

/// Encode both sides with `enc`, leaving out the sentences with no known word.
pub(super) fn encode(enc: &BowEncoder, src: &[String], trg: &[String]) -> Result<Encoded> {
    let (se, sc) = enc.encode_with_coverage(Side::Source, src)?;
    let (te, tc) = enc.encode_with_coverage(Side::Target, trg)?;
    let (s, src_rows) = compact(&se, &sc.no_known_word)?;
    let (t, trg_rows) = compact(&te, &tc.no_known_word)?;
    Ok(Encoded {
        src: s,
        trg: t,
        src_rows,
        trg_rows,
        dropped: (sc.no_known_word.len(), tc.no_known_word.len()),
        coverage: (sc.known + tc.known) as f64 / (sc.tokens + tc.tokens).max(1) as f64,
    })
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let base = NEWSDEV;
    let (src, trg, gold_file) = read_newsdev(ctx)?;
    let gold = GoldSet::from_bucc(&gold_file)?;
    let t = Instant::now();
    let mean = mean_encoder(ctx)?;
    let tfidf = BowEncoder::builder(
        mean.vectors(Side::Source).clone(),
        mean.vectors(Side::Target).clone(),
    )
    .no_known_word(NoKnownWord::Zero)
    .tfidf(src.sentences(), trg.sentences())
    .build()?;
    let load_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let pieces = pieces_encoder(ctx)?;
    let pieces_tfidf = pieces_builder(ctx)?
        .tfidf(src.sentences(), trg.sentences())
        .build()?;
    let pieces_load_s = t.elapsed().as_secs_f64();

    let mut md = String::new();
    writeln!(
        md,
        "BUCC-style `{base}` ({} de, {} en sentences, {} gold pairs), bag-of-words encoder \
         over `bwe/usem.{{de,en}}.vec` (10,000 words each, 512-d; word vectors loaded in \
         {load_s:.1} s) and over the subword vectors `bwe/usem.spm128k.vec` (42,699 pieces of \
         `spm/use-multilingual-v3-128k.model`, 512-d, one table for both languages; sentences \
         HTML-unescaped, then cut into that model's pieces: `bitext embed --spm`; loaded in \
         {pieces_load_s:.1} s), k = {K}, exact kNN (one pass both ways). Best F1 = the F1-optimal \
         threshold over every pair the strategy mines (BUCC protocol, threshold tuned on this \
         set itself: an oracle, as in LASER's BUCC reports).\n",
        src.len(),
        trg.len(),
        gold.len()
    )?;
    writeln!(
        md,
        "| vectors | weighting | scoring | retrieval | P | R | F1 | threshold | pairs mined |"
    )?;
    writeln!(md, "|---|---|---|---|---|---|---|---|---|")?;
    let mut notes = Vec::new();
    for (vname, wname, enc) in [
        ("words", "mean", &mean),
        ("words", "tf-idf", &tfidf),
        ("pieces", "mean", &pieces),
        ("pieces", "tf-idf", &pieces_tfidf),
    ] {
        let e = encode(enc, src.sentences(), trg.sentences())?;
        notes.push(format!(
            "{vname}, {wname}: {:.1}% of tokens in the vocabulary; {} de and {} en sentences had no \
             known word and were left out (their gold pairs count as missed)",
            100.0 * e.coverage,
            e.dropped.0,
            e.dropped.1
        ));
        for f in [MarginFunction::Absolute, MarginFunction::Ratio] {
            for (r, pairs) in super::mine_every_strategy(&e.src, &e.trg, f, K)? {
                let cands: Vec<(f64, String, String)> = pairs
                    .iter()
                    .map(|p| {
                        (
                            p.score,
                            src.id(e.src_rows[p.src]).to_owned(),
                            trg.id(e.trg_rows[p.tgt]).to_owned(),
                        )
                    })
                    .collect();
                let best = gold
                    .best_threshold(&cands)
                    .with_context(|| format!("{vname} {wname} {} {}", f.name(), r.name()))?;
                let scoring = super::scoring_name(f);
                match best {
                    Some(b) => writeln!(
                        md,
                        "| {vname} | {wname} | {scoring} | {} | {:.3} | {:.3} | **{:.3}** | {:.4} | {} |",
                        r.name(),
                        b.prf.precision,
                        b.prf.recall,
                        b.prf.f1,
                        b.threshold,
                        cands.len()
                    )?,
                    None => writeln!(
                        md,
                        "| {vname} | {wname} | {scoring} | {} | – | – | 0 | – | {} |",
                        r.name(),
                        cands.len()
                    )?,
                }
            }
        }
    }
    writeln!(md)?;
    for n in notes {
        writeln!(md, "- {n}")?;
    }
    writeln!(md)?;
    md.push_str(&alignment_error(
        ctx,
        &[("words, mean", &mean), ("pieces, mean", &pieces)],
    )?);
    Ok(md)
}

/// The subword bag of words over `bwe/usem.spm128k.vec` and the 128k sentencepiece model,
/// before its weighting is chosen.
pub(super) fn pieces_builder(ctx: &Ctx) -> Result<bitext::encode::BowEncoderBuilder> {
    let segment = Segmenter::Pieces {
        tokenizer: TokenizerSpec::Sentencepiece {
            model: ctx.path("spm/use-multilingual-v3-128k.model"),
            sequence: SequenceConfig::default(),
        },
        unescape_html: true,
    }
    .build()?;
    Ok(
        BowEncoder::builder_shared(read_vec(ctx.path("bwe/usem.spm128k.vec"), None)?)
            .segment(segment)
            .no_known_word(NoKnownWord::Zero),
    )
}

/// The mean subword bag of words (see [`pieces_builder`]).
pub(super) fn pieces_encoder(ctx: &Ctx) -> Result<BowEncoder> {
    Ok(pieces_builder(ctx)?.build()?)
}

/// The 1-NN alignment-recovery errors of the mean bag of words on the line-parallel newstest
/// dev set, cosine and CSLS, over the pairs whose both sides have a known word.
pub(super) struct BowRecovery {
    /// Line-parallel pairs in the file.
    pub(super) total: usize,
    /// 0-based pairs kept (both sides have a known word).
    pub(super) kept: Vec<usize>,
    /// `(scoring, error)`.
    pub(super) rows: Vec<(&'static str, AlignmentError)>,
}

/// The mean bag-of-words encoder over `bwe/usem.{de,en}.vec`.
pub(super) fn mean_encoder(ctx: &Ctx) -> Result<BowEncoder> {
    let (de_vec, en_vec) = (ctx.path("bwe/usem.de.vec"), ctx.path("bwe/usem.en.vec"));
    Ok(BowEncoder::from_vec_files(&de_vec, &en_vec, None)?
        .no_known_word(NoKnownWord::Zero)
        .build()?)
}

/// Line-parallel sentences encoded by a bag of words, on the pairs where both sides have a
/// known word (the others cannot be aligned).
pub(super) struct KnownPairs {
    /// Source embeddings of the pairs kept.
    pub(super) src: Embeddings,
    /// Target embeddings of the pairs kept.
    pub(super) trg: Embeddings,
    /// The pairs kept (0-based lines).
    pub(super) kept: Vec<usize>,
    /// The pairs left out (0-based lines, sorted).
    pub(super) skip: Vec<usize>,
}

/// Encode the line-parallel `src` and `trg` with `enc`, keeping the pairs where both sides
/// have a known word.
pub(super) fn known_pairs(enc: &BowEncoder, src: &[String], trg: &[String]) -> Result<KnownPairs> {
    let (x, xc) = enc.encode_with_coverage(Side::Source, src)?;
    let (y, yc) = enc.encode_with_coverage(Side::Target, trg)?;
    // Pairs where either side has no known word cannot be aligned: drop them from both sides.
    let mut skip: Vec<usize> = xc
        .no_known_word
        .iter()
        .chain(&yc.no_known_word)
        .copied()
        .collect();
    skip.sort_unstable();
    skip.dedup();
    let (src, kept) = compact(&x, &skip)?;
    let (trg, _) = compact(&y, &skip)?;
    Ok(KnownPairs {
        src,
        trg,
        kept,
        skip,
    })
}

/// See [`BowRecovery`].
pub(super) fn bow_recovery(ctx: &Ctx, enc: &BowEncoder) -> Result<BowRecovery> {
    let (en, de) = ctx.parallel("dev/newstest-dev.en-de", ("en", "de"), EmptyLines::Reject)?;
    // German is the source side of the encoder.
    let known = known_pairs(enc, &de, &en)?;
    Ok(BowRecovery {
        total: de.len(),
        rows: recovery_errors(&known.src, &known.trg)?,
        kept: known.kept,
    })
}

/// 1-NN alignment-recovery error of line-parallel vectors (Kim et al. §4.1), by cosine and by
/// CSLS (k = 4): each row retrieves its best match on the other side (both sides normalised by
/// the mining recipe); an error is a miss of its own line.
pub(super) fn recovery_errors(
    x: &Embeddings,
    y: &Embeddings,
) -> Result<Vec<(&'static str, AlignmentError)>> {
    let mut rows = Vec::new();
    for (name, f) in [
        ("cosine", MarginFunction::Absolute),
        ("CSLS (k = 4)", MarginFunction::Csls),
    ] {
        let spec = MineSpec::new(Miner::new(MarginSpec::new(f, K)));
        let hoods = spec.neighbourhoods(x.view(), y.view(), &mut |_, _, _| {})?;
        let (fwd, bwd) = hoods.candidates()?;
        let f1: Vec<usize> = fwd.best().iter().map(|b| b.0).collect();
        let b1: Vec<usize> = bwd.best().iter().map(|b| b.0).collect();
        rows.push((name, line_parallel_error(&f1, &b1)?));
    }
    Ok(rows)
}

/// 1-NN alignment-recovery error on the line-parallel newstest dev set, cosine and CSLS, for
/// each encoder.
fn alignment_error(ctx: &Ctx, encoders: &[(&str, &BowEncoder)]) -> Result<String> {
    let mut md = String::from(
        "1-NN alignment-recovery error on `dev/newstest-dev.en-de`, bags of words (Kim et al. \
         2019, §4.1: retrieve each sentence's best match on the other side; an error is a \
         miss of its own translation; pairs with no known word on a side are left out):\n\n\
         | vectors | scoring | pairs | de→en | en→de | mean |\n|---|---|---|---|---|---|\n",
    );
    for (vname, enc) in encoders {
        let r = bow_recovery(ctx, enc)?;
        for (name, err) in &r.rows {
            writeln!(
                md,
                "| {vname} | {name} | {} of {} | {:.2}% | {:.2}% | {:.2}% |",
                r.kept.len(),
                r.total,
                100.0 * err.src_to_tgt,
                100.0 * err.tgt_to_src,
                100.0 * err.mean
            )?;
        }
    }
    Ok(md)
}
