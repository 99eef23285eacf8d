//! Evaluation `word`: German→English word translation with the bilingual word embeddings of
//! `bwe/usem.{de,en}.vec` (Zhang et al. 2016, "Word Translation"): the 4000 most frequent
//! German words into the 10000 most frequent English words, scored against the Ding lexicon.
//! Nearest neighbour, CSLS and globally corrected retrieval against the Earth Mover's Distance
//! over word frequencies.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::time::Instant;

use anyhow::Result;
use bitext::eval::word::{Lexicon, WordTranslationReport, evaluate_word_translation, read_lexicon};
use bitext::transport::NetworkSimplex;
use bitext::transport::retrieval::{self, Proposals};
use bitext::transport::word::{Vocabulary, emd_translate};

use super::Ctx;

const SOURCE_WORDS: usize = 4000;
const TARGET_WORDS: usize = 10000;

struct Setup<'a> {
    src: &'a Vocabulary,
    tgt: &'a Vocabulary,
    lexicon: &'a Lexicon,
    vocab: HashSet<String>,
}

impl Setup<'_> {
    /// Scores of `proposals` over the source words `range`.
    fn score(
        &self,
        proposals: &Proposals,
        range: std::ops::Range<usize>,
    ) -> Result<WordTranslationReport> {
        let index: HashMap<&str, usize> = self.src.words()[range.clone()]
            .iter()
            .enumerate()
            .map(|(i, w)| (w.as_str(), range.start + i))
            .collect();
        Ok(evaluate_word_translation(
            &self.src.words()[range],
            |w| {
                proposals
                    .get(index[w])
                    .iter()
                    .map(|&(t, _)| self.tgt.words()[t].as_str())
                    .collect::<Vec<_>>()
            },
            self.lexicon,
            &self.vocab,
        )?)
    }

    /// Test words (in the lexicon, covered) whose best proposal is also another test word's
    /// best proposal.
    fn shared_top(&self, proposals: &Proposals) -> (usize, usize) {
        let test: Vec<usize> = (0..self.src.len())
            .filter(|&i| {
                self.lexicon
                    .get(&self.src.words()[i])
                    .is_some_and(|g| g.iter().any(|t| self.vocab.contains(t)))
            })
            .collect();
        let mut count: HashMap<usize, usize> = HashMap::new();
        for &i in &test {
            if let Some(&(t, _)) = proposals.get(i).first() {
                *count.entry(t).or_default() += 1;
            }
        }
        let shared = test
            .iter()
            .filter(|&&i| proposals.get(i).first().is_some_and(|(t, _)| count[t] > 1))
            .count();
        (shared, test.len())
    }
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let de = Vocabulary::load(
        ctx.path("bwe/usem.de.vec"),
        ctx.path("bwe/usem.de.freq"),
        None,
    )?;
    let src = de.head(SOURCE_WORDS);
    let tgt = Vocabulary::load(
        ctx.path("bwe/usem.en.vec"),
        ctx.path("bwe/usem.en.freq"),
        Some(TARGET_WORDS),
    )?;
    let lexicon = read_lexicon(ctx.path("lexicon/ding.de-en.tsv"))?;
    let setup = Setup {
        src: &src,
        tgt: &tgt,
        lexicon: &lexicon,
        vocab: tgt.words().iter().cloned().collect(),
    };
    let mut timings: Vec<(&str, f64)> = Vec::new();
    let mut timed = |name: &'static str, f: &mut dyn FnMut() -> Result<Proposals>| {
        let t = Instant::now();
        let p = f()?;
        timings.push((name, t.elapsed().as_secs_f64()));
        anyhow::Ok(p)
    };
    let nn = timed("NN", &mut || {
        Ok(retrieval::nearest_neighbours(
            src.vectors(),
            tgt.vectors(),
            4,
        )?)
    })?;
    let csls = timed("CSLS", &mut || {
        Ok(retrieval::csls(
            src.vectors(),
            tgt.vectors(),
            de.vectors(),
            10,
            1,
        )?)
    })?;
    let gc0 = timed("GC-0", &mut || {
        Ok(retrieval::globally_corrected(
            src.vectors(),
            tgt.vectors(),
            None,
            1,
        )?)
    })?;
    let extra = de.vectors().slice_rows(SOURCE_WORDS..de.len());
    let gc_extra = timed("GC-6000", &mut || {
        Ok(retrieval::globally_corrected(
            src.vectors(),
            tgt.vectors(),
            Some(extra),
            1,
        )?)
    })?;
    let mut solver = NetworkSimplex::default();
    let t = Instant::now();
    let emd = emd_translate(&src, &tgt, &mut solver)?;
    let emd_secs = t.elapsed().as_secs_f64();
    timings.push(("EMD", emd_secs));
    let emd1 = emd.proposals.top(1);
    // The English counts come from more text than the German ones (the en-fr catalogues too):
    // rescaled to the German mass, every English word's earth must be used.
    let scale = src.freqs().iter().sum::<f64>() / tgt.freqs().iter().sum::<f64>();
    let tgt_scaled = Vocabulary::new(
        tgt.words().to_vec(),
        tgt.freqs().iter().map(|f| f * scale).collect(),
        tgt.vectors().to_owned(),
    )?;
    let t = Instant::now();
    let emd_bal = emd_translate(&src, &tgt_scaled, &mut solver)?;
    timings.push(("EMD (scaled)", t.elapsed().as_secs_f64()));

    let all = 0..src.len();
    let base = setup.score(&nn.top(1), all.clone())?;
    let mut md = String::new();
    writeln!(
        md,
        "German → English, the {SOURCE_WORDS} most frequent German words of `bwe/usem.de.vec` \
         into the {TARGET_WORDS} most frequent English words of `bwe/usem.en.vec` (bilingual \
         512-d embeddings); gold: `lexicon/ding.de-en.tsv`. Of {} source words, {} are out of \
         the lexicon and {} out of coverage (no gold translation among the target words): \
         {} test words, coverage {:.1}%.\n",
        base.source_words,
        base.out_of_lexicon,
        base.out_of_coverage,
        base.instances,
        100.0 * base.coverage
    )?;
    md.push_str("| method | K | P | R | F1 | accuracy |\n|---|---|---|---|---|---|\n");
    let rows: Vec<(String, Proposals)> = vec![
        ("NN".into(), nn.top(1)),
        ("CSLS (k = 10)".into(), csls.clone()),
        ("GC-0".into(), gc0.clone()),
        ("GC-6000".into(), gc_extra.clone()),
        ("EMD, most mass".into(), emd1.clone()),
        ("NN".into(), nn.top(2)),
        ("NN".into(), nn.top(3)),
        ("EMD, all proposals".into(), emd.proposals.clone()),
        ("EMD scaled, most mass".into(), emd_bal.proposals.top(1)),
        (
            "EMD scaled, all proposals".into(),
            emd_bal.proposals.clone(),
        ),
    ];
    for (name, p) in &rows {
        let r = setup.score(p, all.clone())?;
        writeln!(
            md,
            "| {name} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.k,
            100.0 * r.precision,
            100.0 * r.recall,
            100.0 * r.f1,
            100.0 * r.accuracy
        )?;
    }
    md.push_str(
        "\nP/R/F1/accuracy in %, over test words; K = average proposals per test word. \
         \"EMD, most mass\" proposes for each source word the target it receives the most mass \
         from; \"all proposals\" every target with a non-zero plan entry (the number per word \
         comes out of the transport). GC-N: globally corrected retrieval with N additional \
         German words in the pool. \"EMD scaled\": the English frequencies rescaled to \
         the German mass (a balanced problem).\n\n",
    );
    md.push_str("Accuracy (%) at K = 1 by frequency bin of the source word:\n\n");
    md.push_str("| bin | test words | NN | CSLS | GC-0 | EMD |\n|---|---|---|---|---|---|\n");
    for b in 0..SOURCE_WORDS / 1000 {
        let range = b * 1000..(b + 1) * 1000;
        let acc =
            |p: &Proposals| -> Result<f64> { Ok(100.0 * setup.score(p, range.clone())?.accuracy) };
        let n = setup.score(&nn.top(1), range.clone())?.instances;
        writeln!(
            md,
            "| {}–{}K | {n} | {:.1} | {:.1} | {:.1} | {:.1} |",
            b,
            b + 1,
            acc(&nn.top(1))?,
            acc(&csls)?,
            acc(&gc0)?,
            acc(&emd1)?
        )?;
    }
    let (nn_shared, n_test) = setup.shared_top(&nn.top(1));
    let (emd_shared, _) = setup.shared_top(&emd1);
    // EMD proposals by number of gold answers (Zhang et al., Table 4).
    let mut by_answers: HashMap<usize, (usize, usize)> = HashMap::new();
    for (i, w) in src.words().iter().enumerate() {
        if let Some(g) = lexicon.get(w) {
            let answers = g.iter().filter(|t| setup.vocab.contains(*t)).count();
            if answers > 0 {
                let e = by_answers.entry(answers.min(6)).or_default();
                e.0 += 1;
                e.1 += emd.proposals.get(i).len();
            }
        }
    }
    let mut answers: Vec<_> = by_answers.into_iter().collect();
    answers.sort_unstable();
    writeln!(
        md,
        "\nHubness: {nn_shared} of {n_test} test words share their nearest neighbour with \
         another test word; with the EMD's top proposal, {emd_shared}.\n"
    )?;
    md.push_str("EMD proposals per test word by the number of its gold translations among the target words (6 = six or more):\n\n");
    md.push_str("| gold answers | test words | average EMD proposals |\n|---|---|---|\n");
    for (a, (n, p)) in answers {
        writeln!(md, "| {a} | {n} | {:.2} |", p as f64 / n as f64)?;
    }
    let (ms, mt) = (
        src.freqs().iter().sum::<f64>(),
        tgt.freqs().iter().sum::<f64>(),
    );
    writeln!(
        md,
        "\nEMD problem: {} × {} words, frequency masses {ms:.0} (German) and {mt:.0} (English) — \
         the partial form moves all German mass; {} plan entries, {} pivots of the network \
         simplex, distance (Eq. 3) {:.4}; {:.1} s including the {} × {} cost matrix. The \
         balanced (scaled) problem: {} plan entries, {} pivots.",
        src.len(),
        tgt.len(),
        emd.transport.plan.len(),
        emd.transport.iterations,
        emd.transport.distance(),
        emd_secs,
        src.len(),
        tgt.len(),
        emd_bal.transport.plan.len(),
        emd_bal.transport.iterations
    )?;
    let times: Vec<String> = timings
        .iter()
        .map(|(n, s)| format!("{n} {s:.1} s"))
        .collect();
    writeln!(md, "Wall times: {}.", times.join(", "))?;
    Ok(md)
}
