//! Where a text model's training pairs come from (`--input`, `--src-text`/`--tgt-text`,
//! `--text-repeat`) and which of them validate (`--valid-src`/`--valid-tgt`, else
//! `--valid-fraction` drawn with `--seed`).

use std::path::PathBuf;

use clap::Args;

use crate::flags::{TextPair, TextPairDocs, TextPairHelp};

/// Where training pairs come from.
#[derive(Debug, Args)]
pub(crate) struct PairArgs {
    /// Training pairs as a TSV (see --src-col, --tgt-col); repeat for several files, also
    /// beside --src-text/--tgt-text (their pairs first, then each TSV's).
    #[arg(long = "input", alias = "tsv", value_name = "FILE")]
    tsv: Vec<PathBuf>,
    #[command(flatten)]
    pub(in crate::cmd::train) cols: crate::input::ColumnArgs,
    #[command(flatten)]
    text: TextPair<Self>,
    /// Show each training pair of --src-text/--tgt-text this many times in every epoch (a
    /// weight for that corpus beside larger --input TSVs; validation pairs are drawn before the
    /// copies are made, so none of them is also trained on).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "src",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    text_repeat: u32,
    /// Skip pairs with an empty side (counted and reported, with their line numbers) instead
    /// of stopping at the first with an error.
    #[arg(long)]
    pub(in crate::cmd::train) skip_empty: bool,
    #[command(flatten)]
    pub(in crate::cmd::train) bad: crate::flags::BadLinesArgs,
}

/// What `--bad-lines` says in the help of the text models' and the MLP's training.
pub(in crate::cmd::train) const BAD_LINES: &str = "A line of an input that cannot be read (not \
    UTF-8; a TSV's line with too few columns or an empty source or target field; an empty \
    line): `error` stops, naming the file, line and reason; `skip` leaves it out, writes it to \
    --rejects (each reason naming its file) and counts it on standard error. Inputs: --input \
    and the other TSVs (--noisy, --distill-input), line-parallel files (--src-text with \
    --tgt-text, --valid-src with --valid-tgt: line i of both is left out together, so that the \
    pairs stay in step), and files of sentences (--mono, --teacher-text)";

impl TextPairHelp for PairArgs {
    const TEXT: TextPairDocs = TextPairDocs {
        src: "Source sentences, one per line (with --tgt-text, line-parallel)",
        tgt: "Target sentences, one per line",
        aliases: [Some("src"), Some("tgt")],
    };
}

/// Held-out pairs for validation (`bitext train siamese`, `autoencoder` and `aligner`).
#[derive(Debug, Args)]
pub(crate) struct ValidArgs {
    /// Held-out source sentences for validation (default: --valid-fraction of the pairs,
    /// drawn with --seed).
    #[arg(long, value_name = "FILE", requires = "valid_tgt")]
    valid_src: Option<PathBuf>,
    /// Held-out target sentences, line-parallel with --valid-src.
    #[arg(long, value_name = "FILE", requires = "valid_src")]
    valid_tgt: Option<PathBuf>,
}

#[cfg(feature = "neural")]
pub(in crate::cmd::train) use reading::Split;

#[cfg(feature = "neural")]
mod reading {
    use anyhow::{Result, bail};
    use bitext_core::Rng;
    use bitext_neural::siamese::split_indices;

    use super::{PairArgs, ValidArgs};
    use crate::cmd::train::CommonArgs;
    use crate::neural::read_pairs;
    use crate::run::RejectSink;

    /// Training source and target sentences, then validation source and target sentences.
    pub(in crate::cmd::train) type Split = (Vec<String>, Vec<String>, Vec<String>, Vec<String>);

    impl PairArgs {
        /// The pairs of --src-text/--tgt-text, then of each --input TSV, each once (under
        /// --bad-lines: the lines left out kept in `rejects`).
        pub(in crate::cmd::train) fn read(
            &self,
            rejects: &mut RejectSink,
        ) -> Result<(Vec<String>, Vec<String>)> {
            self.read_counted(rejects).map(|(s, t, _)| (s, t))
        }

        /// As [`Self::read`], with how many of the pairs (the first) are --src-text/--tgt-text's.
        fn read_counted(
            &self,
            rejects: &mut RejectSink,
        ) -> Result<(Vec<String>, Vec<String>, usize)> {
            let cols = self.cols.zero_based()?;
            let (mut src, mut tgt) = match self.text.paths() {
                Some((s, t)) => {
                    read_pairs(None, cols, (Some(s), Some(t)), self.skip_empty, rejects)?
                }
                _ if self.tsv.is_empty() => {
                    bail!(
                        "give training pairs: --input FILE (a TSV), or --src-text with --tgt-text"
                    )
                }
                _ => (Vec::new(), Vec::new()),
            };
            let text = src.len();
            for f in &self.tsv {
                let (s, t) = read_pairs(Some(f), cols, (None, None), self.skip_empty, rejects)?;
                src.extend(s);
                tgt.extend(t);
            }
            Ok((src, tgt, text))
        }

        /// `--text-repeat` for a command that does not weight its pairs (`train mlp`): an
        /// error unless it is 1.
        pub(in crate::cmd::train) fn refuse_repeat(&self, command: &str) -> Result<()> {
            if self.text_repeat != 1 {
                bail!(
                    "--text-repeat weights the pairs of a text encoder's training; `{command}` \
                     reads each pair once"
                );
            }
            Ok(())
        }

        /// The training pairs and the validation pairs: --valid-src/--valid-tgt when given,
        /// else --valid-fraction of the pairs drawn with --seed; then the training pairs of
        /// --src-text/--tgt-text repeated to --text-repeat. `(train src, train tgt, valid src,
        /// valid tgt)`. Under --bad-lines, the lines left out are kept in `rejects`.
        pub(in crate::cmd::train) fn read_split(
            &self,
            valid: &ValidArgs,
            common: &CommonArgs,
            rejects: &mut RejectSink,
        ) -> Result<Split> {
            let (src, tgt, text) = self.read_counted(rejects)?;
            let (mut split, text) = match (&valid.valid_src, &valid.valid_tgt) {
                (Some(s), Some(t)) => {
                    let (vs, vt) = read_pairs(None, (0, 1), (Some(s), Some(t)), false, rejects)?;
                    ((src, tgt, vs, vt), text)
                }
                _ => split(src, tgt, text, common.valid_fraction, common.seed),
            };
            // The copies of --text-repeat, made after the validation pairs were drawn.
            let extra = self.text_repeat as usize - 1;
            for side in [&mut split.0, &mut split.1] {
                let once = side[..text].to_vec();
                for _ in 0..extra {
                    side.extend_from_slice(&once);
                }
            }
            Ok(split)
        }
    }

    /// `fraction` of the pairs drawn with `seed` for validation, the rest for training (in
    /// their order), and how many of the training pairs are among the `first` pairs.
    fn split(
        src: Vec<String>,
        tgt: Vec<String>,
        first: usize,
        fraction: f64,
        seed: u64,
    ) -> (Split, usize) {
        let (tr, va) = split_indices(src.len(), fraction, &mut Rng::seed(seed));
        let kept = tr.partition_point(|&i| i < first);
        let pick = |v: &[String], i: &[usize]| i.iter().map(|&k| v[k].clone()).collect::<Vec<_>>();
        let split = (
            pick(&src, &tr),
            pick(&tgt, &tr),
            pick(&src, &va),
            pick(&tgt, &va),
        );
        (split, kept)
    }
}

#[cfg(all(test, feature = "neural"))]
mod tests {
    use clap::Parser;

    use super::{PairArgs, ValidArgs};
    use crate::cmd::train::CommonArgs;

    /// The flags that decide a text model's training pairs.
    #[derive(Parser)]
    struct Pairs {
        #[command(flatten)]
        pairs: PairArgs,
        #[command(flatten)]
        valid: ValidArgs,
        #[command(flatten)]
        common: CommonArgs,
    }

    /// Ten line-parallel pairs `sK`/`tK` and twenty TSV pairs `uK`/`vK`, split 80/20 with
    /// `extra` flags.
    fn split(extra: &[&str]) -> super::Split {
        let d = tempfile::tempdir().unwrap();
        let lines = |p: &str, n: usize| (0..n).map(|k| format!("{p}{k}\n")).collect::<String>();
        std::fs::write(d.path().join("s.txt"), lines("s", 10)).unwrap();
        std::fs::write(d.path().join("t.txt"), lines("t", 10)).unwrap();
        let tsv: String = (0..20).map(|k| format!("u{k}\tv{k}\n")).collect();
        std::fs::write(d.path().join("p.tsv"), tsv).unwrap();
        let path = |f: &str| d.path().join(f).display().to_string();
        let mut argv = vec!["t".to_string(), "--src-text".into(), path("s.txt")];
        argv.extend([
            "--tgt-text".into(),
            path("t.txt"),
            "--input".into(),
            path("p.tsv"),
        ]);
        argv.extend(["--valid-fraction", "0.2", "--seed", "5", "-o", "x"].map(String::from));
        argv.extend(extra.iter().map(|s| s.to_string()));
        let p = Pairs::try_parse_from(argv).unwrap();
        let mut rejects = crate::run::RejectSink::new(&p.pairs.bad).unwrap();
        p.pairs
            .read_split(&p.valid, &p.common, &mut rejects)
            .unwrap()
    }

    fn count(v: &[String], s: &str) -> usize {
        v.iter().filter(|x| *x == s).count()
    }

    #[test]
    fn text_repeat_copies_the_line_parallel_training_pairs_after_the_validation_draw() {
        let once = split(&[]);
        let thrice = split(&["--text-repeat", "3"]);
        // The same validation pairs, and none of them trained on.
        assert_eq!((&once.2, &once.3), (&thrice.2, &thrice.3));
        assert_eq!(once.2.len(), 6);
        for v in &thrice.2 {
            assert_eq!(count(&thrice.0, v), 0, "{v} validates and trains");
        }
        let text = once.0.iter().filter(|s| s.starts_with('s')).count();
        assert!(text > 0 && text < 10, "{text}");
        assert_eq!(thrice.0.len(), once.0.len() + 2 * text);
        for (k, s) in once.0.iter().enumerate() {
            let times = if s.starts_with('s') { 3 } else { 1 };
            assert_eq!(count(&thrice.0, s), times, "{s}");
            // Each copy keeps its own target.
            let t = &once.1[k];
            let pairs = thrice
                .0
                .iter()
                .zip(&thrice.1)
                .filter(|(a, b)| *a == s && *b == t);
            assert_eq!(pairs.count(), times, "{s} {t}");
        }
    }

    #[test]
    fn text_repeat_needs_line_parallel_text_and_a_sane_count() {
        let refuse = |argv: &[&str]| Pairs::try_parse_from(argv).err().unwrap().to_string();
        let e = refuse(&["t", "--input", "p.tsv", "--text-repeat", "2", "-o", "x"]);
        assert!(e.contains("--src-text"), "{e}");
        let e = refuse(&[
            "t",
            "--src-text",
            "a",
            "--tgt-text",
            "b",
            "--text-repeat",
            "0",
            "-o",
            "x",
        ]);
        assert!(e.contains("--text-repeat"), "{e}");
    }
}
