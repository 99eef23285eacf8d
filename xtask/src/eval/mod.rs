//! `cargo xtask eval`: evaluations on real data from `../shared/data`, each recorded in its own
//! file `docs/eval/NAME.md` (the block between its `<!-- eval:NAME -->` markers, replaced on
//! every run, so the file always shows the latest numbers with the command and machine that
//! made them). `docs/EVALUATION.md`, written by hand, gives each capability's headline numbers
//! copied from these records and links to them.

mod aligner;
mod aligner_fix;
mod autoencoder;
mod bucc_bow;
mod calibrate;
mod classifier;
mod clean;
mod data;
mod distill;
mod distill_aligner;
mod distill_mono;
mod docalign;
mod filter;
mod lexical;
mod lid;
mod multilingual;
mod neural;
mod neural_mining;
mod neural_mlp;
mod onnx;
mod recipe;
mod tokenize;
mod word;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::project_root;

/// What a task gets: where the shared data is.
pub(crate) struct Ctx {
    /// `../shared/data` (or `$BITEXT_SHARED/data`).
    pub(crate) data: PathBuf,
}

impl Ctx {
    /// A path under the data directory.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.data.join(rel)
    }

    /// The line-parallel files `{stem}.{a}` and `{stem}.{b}` under the data directory.
    pub(crate) fn parallel(
        &self,
        stem: &str,
        (a, b): (&str, &str),
        empty: bitext::core::io::text::EmptyLines,
    ) -> Result<(Vec<String>, Vec<String>)> {
        let path = |ext: &str| self.path(&format!("{stem}.{ext}"));
        Ok(bitext::core::io::text::read_parallel(
            path(a),
            path(b),
            empty,
        )?)
    }
}

/// An evaluation: returns the Markdown body of its section.
type Task = fn(&Ctx) -> Result<String>;

/// Every task, in the order `cargo xtask eval` runs them.
const TASKS: &[(&str, &str, Task)] = &[
    (
        "data",
        "read every shared data file with bitext-core's readers",
        data::run,
    ),
    (
        "bucc_bow",
        "margin mining of BUCC-style newsdev with the bag-of-words encoder",
        bucc_bow::run,
    ),
    (
        "calibrate",
        "calibration transfer: thresholds for a precision fitted on newsdev, applied to Tatoeba and a noisy set",
        calibrate::run,
    ),
    (
        "lid",
        "language identification: lid.176.ftz read natively, accuracy and speed on Tatoeba and a catalogue dev set, beside the Python tools",
        lid::run,
    ),
    (
        "clean",
        "cleaning a labelled noisy crawl (newstest de-en + noise): the recipe, the bag-of-words cosine, bicleaner-hardrules and opusfilter",
        clean::run,
    ),
    (
        "classifier",
        "a pair classifier trained from clean WMT pairs alone, on the labelled noisy crawl: against each scorer and their sum, per noise kind; calibration; speed",
        classifier::run,
    ),
    (
        "word",
        "word translation de→en: NN, CSLS, GC and the Earth Mover's Distance (Zhang et al.)",
        word::run,
    ),
    (
        "filter",
        "corpus filtering en-de by noise level: TF-IDF EMD (Zhang et al.) and IBM Model 1",
        filter::run,
    ),
    (
        "lexical",
        "IBM Model 1 trained on train/; alignment recovery and noisy-parallel F1 vs Levenshtein, bag of words, siamese",
        lexical::run,
    ),
    (
        "tokenize",
        "sentencepiece models vs spm_encode; joint subword models trained on gettext de+en",
        tokenize::run,
    ),
    (
        "neural",
        "train the siamese BiGRU (30 min), noisy-parallel P/R/F1, BUCC-style F1, Tatoeba, MLP",
        neural::run,
    ),
    (
        "autoencoder",
        "train Kim et al.'s shared-decoder autoencoder (30 min): recovery error, BUCC-style F1, Tatoeba, MLP",
        autoencoder::run,
    ),
    (
        "onnx",
        "a pretrained encoder run by bitext: USE-Multilingual's ONNX graph through ONNX Runtime; newsdev F1, Tatoeba, vectors against usem_onnx.py",
        onnx::run,
    ),
    (
        "distill",
        "students of USE-M: the siamese network and the autoencoder trained towards the teacher's vectors (minutes set by their recipes, 15 each now, + the teacher's vectors once), side by side with the teacher",
        distill::run,
    ),
    (
        "distill-aligner",
        "the word-alignment BiLSTM as a student of USE-M (its word loss beside the teacher's vectors; minutes set by its recipe), side by side with the teacher",
        distill_aligner::run,
    ),
    (
        "distill-mono",
        "a language without parallel data: the siamese student's French from the teacher's vectors of French text alone, against none and against parallel French (3 × 15 min)",
        distill_mono::run,
    ),
    (
        "multilingual",
        "one student for every language of the teacher: the siamese network trained towards USE-M on catalogue pairs in its 15 languages (minutes set by its recipe), 1-NN error per language against the teacher and today's de/fr student",
        multilingual::run,
    ),
    (
        "docalign",
        "sentence alignment inside parallel documents (vecalign's method) on Bleualign's de-fr dev document: strict/lax bead F1, bag of subwords and USE-M",
        docalign::run,
    ),
    (
        "aligner",
        "train the word-alignment BiLSTM on each mix of synthetic negatives: word accuracy (Table 2), fixing, BUCC-style F1, noisy-parallel",
        aligner::run,
    ),
];

pub(crate) fn run(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--list") {
        for (name, what, _) in TASKS {
            println!("{name:12} {what}");
        }
        return Ok(());
    }
    for a in args {
        if !TASKS.iter().any(|(n, _, _)| n == a) {
            bail!("unknown evaluation {a:?} (see `cargo xtask eval --list`)");
        }
    }
    let shared = std::env::var_os("BITEXT_SHARED")
        .map_or_else(|| project_root().join("..").join("shared"), PathBuf::from);
    let data = shared.join("data");
    if !data.is_dir() {
        println!(
            "xtask eval: {} not found: the real-data evaluations need ../shared/data \
             (or BITEXT_SHARED); nothing to do.",
            data.display()
        );
        return Ok(());
    }
    let ctx = Ctx { data };
    for (name, what, task) in TASKS {
        if !args.is_empty() && !args.iter().any(|a| a == name) {
            continue;
        }
        eprintln!("== eval {name}: {what}");
        let start = std::time::Instant::now();
        let body = task(&ctx).with_context(|| format!("evaluation {name}"))?;
        let secs = start.elapsed().as_secs_f64();
        let section = format!(
            "Recorded by `cargo xtask eval {name}` on {} ({}), {secs:.0} s.\n\n{}",
            today(),
            machine(),
            body.trim_end()
        );
        record(&record_path(name), name, &section)?;
        println!("{body}");
    }
    Ok(())
}

/// Where the record of the task `name` goes: `docs/eval/NAME.md`.
pub(crate) fn record_path(name: &str) -> PathBuf {
    project_root()
        .join("docs")
        .join("eval")
        .join(format!("{name}.md"))
}

/// The opening of a new record file of the task `name`: a heading, and where the file comes
/// from and what summarises it (`docs/EVALUATION.md`, one directory up).
fn record_header(name: &str) -> String {
    format!(
        "# cargo xtask eval {name}\n\nWritten by `cargo xtask eval {name}`, which replaces the \
         block between the markers below on every run; the headline numbers of every \
         capability, with links to these records, are in [EVALUATION.md](../EVALUATION.md).\n\n"
    )
}

/// Replace the section `name` of the Markdown file `path` (the block between its
/// `<!-- eval:NAME -->` markers), atomically; append it where the file has none, and write a
/// new file (and its directory) with [`record_header`] where there is none.
pub(crate) fn record(path: &Path, name: &str, body: &str) -> Result<()> {
    let begin = format!("<!-- eval:{name} -->");
    let end = format!("<!-- /eval:{name} -->");
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let block = format!("{begin}\n{body}\n{end}");
    let new = match (old.find(&begin), old.find(&end)) {
        (Some(b), Some(e)) if e > b => format!("{}{block}{}", &old[..b], &old[e + end.len()..]),
        _ if old.trim().is_empty() => format!("{}{block}\n", record_header(name)),
        _ => format!("{}\n\n{block}\n", old.trim_end()),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut f = bitext::core::io::AtomicFile::create(path)?;
    std::io::Write::write_all(&mut f, new.as_bytes()).map_err(|e| f.err(e))?;
    f.commit()?;
    Ok(())
}

/// Today's date (UTC) as YYYY-MM-DD.
pub(crate) fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Civil-from-days (H. Hinnant).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A one-line description of this machine: CPU (see [`cpu`]), cores, memory.
pub(crate) fn machine() -> String {
    let cpu = cpu(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let kb: u64 = s.lines().next()?.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!(", {} GiB", kb / (1 << 20)))
        })
        .unwrap_or_default();
    format!("{cpu}, {cores} cores{mem}")
}

/// The vector extensions that bitext's kernels (gemm, the recurrent cells, the kNN and
/// reduced-precision paths) choose between at run time, in the order [`cpu`] names them.
const VECTOR_FLAGS: [&str; 5] = ["fma", "avx2", "avx512f", "avx512_bf16", "avx512_vnni"];

/// The CPU that a `/proc/cpuinfo` text describes (its first processor): the model name, the
/// family and model numbers where given (one "AMD EPYC" name covers both Zen 3, family 25
/// model 1, and Zen 4, family 25 model 17, whose speeds differ severalfold) and which of
/// [`VECTOR_FLAGS`] it has, e.g. `AMD EPYC (family 25 model 1; fma avx2)`; "unknown CPU"
/// without a model name, and no brackets for what the text does not say.
fn cpu(cpuinfo: &str) -> String {
    let field = |key: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim())
        })
    };
    let name = field("model name").unwrap_or("unknown CPU");
    let mut detail = Vec::new();
    if let (Some(family), Some(model)) = (field("cpu family"), field("model")) {
        detail.push(format!("family {family} model {model}"));
    }
    if let Some(flags) = field("flags") {
        let vector: Vec<&str> = VECTOR_FLAGS
            .into_iter()
            .filter(|f| flags.split_whitespace().any(|h| h == *f))
            .collect();
        detail.push(if vector.is_empty() {
            "no FMA, AVX2 or AVX-512".to_string()
        } else {
            vector.join(" ")
        });
    }
    if detail.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", detail.join("; "))
    }
}

/// Margin mining of two embedding matrices with exact kNN both ways (one pass), `k`
/// neighbours, margin function `f`: each retrieval strategy's scored pairs, in
/// [`bitext::mine::Retrieval::ALL`] order.
pub(super) fn mine_every_strategy(
    src: &bitext::core::Embeddings,
    trg: &bitext::core::Embeddings,
    f: bitext::similarity::MarginFunction,
    k: usize,
) -> Result<Vec<(bitext::mine::Retrieval, Vec<bitext::mine::ScoredPair>)>> {
    use bitext::mine::{MineSpec, Miner, Retrieval};
    let miner = Miner::new(bitext::similarity::MarginSpec::new(f, k));
    let hoods = MineSpec::new(miner).neighbourhoods(src.view(), trg.view(), &mut |_, _, _| {})?;
    let (fwd, bwd) = hoods.candidates()?;
    Retrieval::ALL
        .into_iter()
        .map(|r| Ok((r, miner.retrieval(r).select(&fwd, &bwd)?)))
        .collect()
}

/// How the tables name the margin function `f` of a mining run: `cosine` (the absolute
/// margin) or `ratio margin` (any other, as the tables mine with those two).
pub(super) fn scoring_name(f: bitext::similarity::MarginFunction) -> &'static str {
    if f == bitext::similarity::MarginFunction::Absolute {
        "cosine"
    } else {
        "ratio margin"
    }
}

#[cfg(test)]
mod tests {
    use super::{cpu, record, record_header};

    #[test]
    fn a_record_opens_its_own_file_and_replaces_only_its_block() {
        let dir = std::env::temp_dir().join(format!("xtask-record-{}", std::process::id()));
        let path = dir.join("eval").join("demo.md");
        let _ = std::fs::remove_dir_all(&dir);
        record(&path, "demo", "first").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!(
                "{}<!-- eval:demo -->\nfirst\n<!-- /eval:demo -->\n",
                record_header("demo")
            )
        );
        assert!(text.starts_with("# cargo xtask eval demo\n\n"));
        assert!(text.contains("](../EVALUATION.md)"));
        // Text around the block stays, byte for byte; only the block changes.
        let edited = text.replace("<!-- eval:demo -->", "kept\n<!-- eval:demo -->") + "after\n";
        std::fs::write(&path, &edited).unwrap();
        record(&path, "demo", "second\nline").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            edited.replace("first", "second\nline")
        );
        // Another task's block in the same file is appended, the first one left alone.
        record(&path, "other", "x").unwrap();
        let both = std::fs::read_to_string(&path).unwrap();
        assert!(both.contains("second\nline\n<!-- /eval:demo -->"));
        assert!(both.ends_with("after\n\n<!-- eval:other -->\nx\n<!-- /eval:other -->\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cpu_line_names_family_model_and_vector_flags() {
        let zen3 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n\
                    model name\t: AMD EPYC\nflags\t\t: fpu sse2 fma avx2 f16c\n\n\
                    processor\t: 1\ncpu family\t: 26\nmodel\t\t: 2\n";
        assert_eq!(cpu(zen3), "AMD EPYC (family 25 model 1; fma avx2)");
        let zen4 = "cpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC 9R14\n\
                    flags\t\t: avx512_vnni fma avx512f avx2 avx512_bf16 avx512bw\n";
        assert_eq!(
            cpu(zen4),
            "AMD EPYC 9R14 (family 25 model 17; fma avx2 avx512f avx512_bf16 avx512_vnni)"
        );
        assert_eq!(
            cpu("model name\t: Old\nflags\t: fpu sse2\n"),
            "Old (no FMA, AVX2 or AVX-512)"
        );
        assert_eq!(cpu("processor : 0\nBogoMIPS : 50.00\n"), "unknown CPU");
        assert_eq!(cpu(""), "unknown CPU");
    }
}
