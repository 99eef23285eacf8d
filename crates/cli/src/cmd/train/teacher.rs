//! `--teacher SPEC`: distillation of a text model from a teacher encoder (Reimers & Gurevych
//! 2020; LASER3). The teacher reads one sentence of every training and validation pair
//! (`--teacher-side`); its vectors are computed once for each distinct sentence (a sentence
//! repeated in the pairs, or by `--text-repeat`, is embedded once) through the `embed` path
//! (`embed::embed_cached`: the spec, side and text hashed into a sidecar) and kept in a cache
//! directory, so that a second run with the same teacher and pairs reads them back, and a run
//! with other pairs reads back the vectors of every sentence an earlier run's list holds and
//! has the teacher embed only the rest.

use std::path::PathBuf;

use bitext_encode::EncoderSpec;
use clap::{Args, ValueEnum};

/// Which sentences of the pairs the teacher reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TeacherSide {
    /// The source sentences: both sentences of a pair towards the teacher's vector of the
    /// source one.
    Source,
    /// The target sentences: both towards the teacher's vector of the target one.
    Target,
    /// Both: each sentence towards the teacher's vector of itself (the teacher reads every
    /// sentence; a multilingual teacher's vector of the source sentence is then what the
    /// student's source side reproduces). An aligner refuses it as --teacher-side (one
    /// vector per paired example) but takes it as --distill-side.
    Both,
}

/// Distillation from a teacher encoder.
#[derive(Debug, Args)]
pub(crate) struct TeacherArgs {
    /// Distil from this encoder (a spec as `embed --encoder` takes, e.g. `onnx:FILE`): both
    /// sentences of each pair are trained towards the teacher's vector of its --teacher-side
    /// sentence (an aligner: both sentences of each paired example; needs a student as wide as
    /// the teacher: with --bag, --emb-dim).
    #[arg(long, value_name = "SPEC")]
    teacher: Option<EncoderSpec>,
    /// Train on the distillation loss alone, without the model's own loss (a siamese
    /// network's matching head, an autoencoder's decoder are then not trained; an aligner
    /// always trains its own loss and refuses it).
    #[arg(long, requires = "teacher")]
    distill_only: bool,
    /// Which sentence of a pair the teacher reads (the language it knows best), or `both`:
    /// each sentence towards the teacher's vector of itself.
    #[arg(long, value_enum, default_value_t = TeacherSide::Target, requires = "teacher")]
    teacher_side: TeacherSide,
    /// Weight of the distillation loss (the mean cosine distance to the teacher) added to the
    /// objective's; the ranking loss's gradients are about --scale times larger.
    #[arg(long, value_name = "W", default_value_t = 1.0, requires = "teacher")]
    teacher_weight: f64,
    /// Where the teacher's vectors are cached (default: `$XDG_CACHE_HOME/bitext/teacher`, or
    /// `~/.cache/bitext/teacher`).
    #[arg(long, value_name = "DIR", requires = "teacher")]
    teacher_cache: Option<PathBuf>,
}

#[cfg(all(feature = "neural", feature = "onnx"))]
pub(super) use vectors::cache_dir;

#[cfg(feature = "neural")]
mod vectors {
    use std::hash::Hasher;
    use std::io::Write;
    use std::path::PathBuf;

    use anyhow::{Context, Result, bail};
    use bitext_core::Embeddings;
    use bitext_core::io::AtomicFile;
    use bitext_encode::{EncoderSpec, Side};
    use bitext_neural::distill::{Teacher, TeacherRows};

    use super::{TeacherArgs, TeacherSide};

    impl TeacherArgs {
        /// --distill-only.
        pub(crate) fn alone(&self) -> bool {
            self.distill_only
        }

        /// The flags an aligner student refuses, checked before anything is read or computed
        /// (the library refuses them too, but only once the teacher's vectors exist).
        pub(crate) fn check_for_aligner(&self) -> Result<()> {
            if self.teacher.is_none() {
                return Ok(());
            }
            if self.distill_only {
                bail!(
                    "--distill-only: the aligner trains its word or sentence loss beside the \
                     teacher's and cannot learn from the teacher alone"
                );
            }
            if matches!(self.teacher_side, TeacherSide::Both) {
                bail!(
                    "--teacher-side both: the aligner pulls both sentences of a paired example \
                     towards one teacher vector; give --teacher-side source or target"
                );
            }
            Ok(())
        }
    }
    use bitext_core::io::rejects::BadLines;

    use crate::cmd::train::pairs::Split;
    use crate::input::TextFormat;
    use crate::run::{cache_key, embed_cached, made_under, record_key};

    mod earlier;

    impl TeacherArgs {
        /// The teacher's vectors of `split`'s pairs (training, then validation when it has
        /// any), or `None` without --teacher.
        pub(crate) fn teacher(&self, split: &Split, quiet: bool) -> Result<Option<Teacher>> {
            let Some(reader) = self.reader(quiet)? else {
                return Ok(None);
            };
            let (ts, tt, vs, vt) = split;
            let rows = |side: Side, train: &[String], valid: &[String]| -> Result<TeacherRows> {
                let what = match side {
                    Side::Source => "source sentences",
                    Side::Target => "target sentences",
                };
                let train = reader
                    .vectors(side, train)
                    .with_context(|| format!("the teacher's vectors of the training {what}"))?;
                let valid = if valid.is_empty() {
                    None
                } else {
                    Some(reader.vectors(side, valid).with_context(|| {
                        format!("the teacher's vectors of the validation {what}")
                    })?)
                };
                Ok(TeacherRows { train, valid })
            };
            let (main, source) = match self.teacher_side {
                TeacherSide::Source => (rows(Side::Source, ts, vs)?, None),
                TeacherSide::Target => (rows(Side::Target, tt, vt)?, None),
                TeacherSide::Both => (
                    rows(Side::Target, tt, vt)?,
                    Some(rows(Side::Source, ts, vs)?),
                ),
            };
            let TeacherRows { train, valid } = main;
            Ok(Some(Teacher {
                train,
                valid,
                source,
                weight: self.teacher_weight,
                alone: self.distill_only,
            }))
        }
    }

    impl TeacherArgs {
        /// The teacher's vectors the source and the target sentences of pairs `(src, tgt)`
        /// are pulled towards, under `side` (`both`: each sentence's own), or `None` without
        /// --teacher or pairs.
        pub(crate) fn distill_rows(
            &self,
            src: &[String],
            tgt: &[String],
            side: TeacherSide,
            quiet: bool,
        ) -> Result<Option<DistillRows>> {
            if src.is_empty() {
                return Ok(None);
            }
            let Some(reader) = self.reader(quiet)? else {
                return Ok(None);
            };
            let one = |s: Side, text: &[String]| {
                reader.vectors(s, text).with_context(|| {
                    format!("the teacher's vectors of the distillation pairs' {s} sentences")
                })
            };
            Ok(Some(match side {
                TeacherSide::Both => {
                    DistillRows::Sides(one(Side::Source, src)?, one(Side::Target, tgt)?)
                }
                TeacherSide::Source => DistillRows::Shared(one(Side::Source, src)?),
                TeacherSide::Target => DistillRows::Shared(one(Side::Target, tgt)?),
            }))
        }
    }

    /// The teacher's vectors distillation pairs are pulled towards: one set per side, or one
    /// set for both sides (kept once).
    pub(crate) enum DistillRows {
        /// The source sentences' vectors, then the target sentences'.
        Sides(Embeddings, Embeddings),
        /// The vectors of one side, for the sentences of both.
        Shared(Embeddings),
    }

    impl DistillRows {
        /// The rows of the source sentences and of the target sentences.
        pub(crate) fn sides(&self) -> (&Embeddings, &Embeddings) {
            match self {
                Self::Sides(s, t) => (s, t),
                Self::Shared(v) => (v, v),
            }
        }

        /// These rows, then `more`'s: one set per side.
        pub(crate) fn then(self, more: &Self) -> Result<Self> {
            let (mut s, mut t) = match self {
                Self::Sides(s, t) => (s, t),
                Self::Shared(v) => (v.clone(), v),
            };
            let (ms, mt) = more.sides();
            s.extend_from_view(ms.view())?;
            t.extend_from_view(mt.view())?;
            Ok(Self::Sides(s, t))
        }
    }

    impl TeacherArgs {
        /// What reads the teacher's vectors (`None` without --teacher), with its cache:
        /// --teacher-cache, else `$XDG_CACHE_HOME/bitext/teacher`, else
        /// `$HOME/.cache/bitext/teacher`.
        fn reader(&self, quiet: bool) -> Result<Option<Reader<'_>>> {
            let Some(spec) = &self.teacher else {
                return Ok(None);
            };
            let cache = match &self.teacher_cache {
                Some(d) => d.clone(),
                None => cache_dir("teacher")?,
            };
            Ok(Some(Reader { spec, cache, quiet }))
        }
    }

    /// The teacher, the directory its vectors are cached in, and whether its progress is
    /// kept off standard error.
    struct Reader<'a> {
        spec: &'a EncoderSpec,
        cache: PathBuf,
        quiet: bool,
    }

    /// `$XDG_CACHE_HOME/bitext/WHAT`, else `$HOME/.cache/bitext/WHAT`.
    pub(in crate::cmd::train) fn cache_dir(what: &str) -> Result<PathBuf> {
        let base = match (std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME")) {
            (Some(x), _) if !x.is_empty() => PathBuf::from(x),
            (_, Some(h)) if !h.is_empty() => PathBuf::from(h).join(".cache"),
            _ => bail!(
                "neither XDG_CACHE_HOME nor HOME is set: there is no cache directory for {what} \
                 (give --teacher-cache DIR for the teacher's vectors)"
            ),
        };
        Ok(base.join("bitext").join(what))
    }

    impl Reader<'_> {
        /// The teacher's vectors of `sentences` (read on `side`), one row each: each distinct
        /// sentence is embedded once ([`Self::unique_vectors`]) and its vector copied to its repeats.
        fn vectors(&self, side: Side, sentences: &[String]) -> Result<Embeddings> {
            let (dups, occurrences) = bitext_mine::unify::repeats(sentences);
            if dups.is_empty() {
                return self.unique_vectors(side, sentences);
            }
            // Each row's distinct sentence: its place among the first occurrences.
            let mut slot = vec![usize::MAX; sentences.len()];
            let mut unique = Vec::with_capacity(sentences.len() - dups.len());
            for (i, s) in sentences.iter().enumerate() {
                if dups.binary_search(&i).is_err() {
                    slot[i] = unique.len();
                    unique.push(s.clone());
                }
            }
            for (first, rows) in &occurrences {
                for &r in rows {
                    slot[r] = slot[*first];
                }
            }
            if !self.quiet {
                eprintln!(
                    "teacher: {} distinct sentences of {} ({} repeat an earlier one)",
                    unique.len(),
                    sentences.len(),
                    dups.len()
                );
            }
            let once = self.unique_vectors(side, &unique)?;
            Ok(Embeddings::from_rows(
                slot.iter().map(|&k| once.row(k)),
                once.dim(),
            )?)
        }

        /// The teacher's vectors of `sentences` (read on `side`): `teacher-HASH.npy` in `cache`,
        /// made from `teacher-HASH.txt` (the sentences, one a line) by `embed_cached` unless an
        /// earlier run made it from the same text with the same spec. A new list takes the
        /// vectors of the sentences earlier lists hold from their files ([`earlier::find`]:
        /// lists of either side for a teacher whose vectors do not depend on it) and has the
        /// teacher embed only the others.
        fn unique_vectors(&self, side: Side, sentences: &[String]) -> Result<Embeddings> {
            let (text, out) = self.list(side, sentences)?;
            let key = cache_key(self.spec, &text, side)?;
            // A teacher whose vectors depend on the whole list (a TF-IDF bag counting its IDF
            // over it) embeds each list whole.
            if !made_under(&out, &key) && self.spec.encodes_each_alone() {
                let spec = self.spec.to_string();
                let read = side.to_string();
                let sided = self.spec.reads_sides().then_some(read.as_str());
                if let Some(found) =
                    earlier::find(&self.cache, (&spec, sided), sentences, &out, self.quiet)?
                {
                    let rest: Vec<String> = found
                        .missing
                        .iter()
                        .map(|&i| sentences[i].clone())
                        .collect();
                    if !self.quiet {
                        eprintln!(
                            "teacher: {} of {} sentences' vectors read from earlier runs' \
                             lists, {} to embed",
                            found.found,
                            sentences.len(),
                            rest.len()
                        );
                    }
                    let rest = match rest.is_empty() {
                        true => None,
                        false => Some(self.embedded(side, &rest)?),
                    };
                    let e = found.assemble(sentences.len(), rest.as_ref())?;
                    e.check_finite()
                        .with_context(|| format!("{}: the teacher's vectors", out.display()))?;
                    bitext_core::io::npy::write_npy(&out, e.view())?;
                    record_key(&out, &key)?;
                    // What was just written: not read back.
                    return Ok(e);
                }
            }
            self.embedded(side, sentences)
        }

        /// `teacher-HASH.txt` in the cache, holding `sentences` (written unless there), and
        /// the `.npy` their vectors go to; HASH is of the teacher's spec, `side` and the
        /// sentences.
        fn list(&self, side: Side, sentences: &[String]) -> Result<(PathBuf, PathBuf)> {
            let (spec, cache) = (self.spec, self.cache.as_path());
            std::fs::create_dir_all(cache).map_err(|e| bitext_core::Error::io(cache, e))?;
            let mut h = std::hash::DefaultHasher::new();
            h.write(format!("{spec}\n{side}\n").as_bytes());
            for s in sentences {
                if s.contains('\n') || s.contains('\r') {
                    bail!("a sentence for the teacher holds a line break: {s:?}");
                }
                h.write(s.as_bytes());
                h.write_u8(b'\n');
            }
            let stem = cache.join(format!("teacher-{:016x}", h.finish()));
            let text = stem.with_extension("txt");
            if !text.is_file() {
                let mut f = AtomicFile::create(&text)?;
                for s in sentences {
                    writeln!(f, "{s}").map_err(|e| bitext_core::Error::io(&text, e))?;
                }
                f.commit()?;
            }
            Ok((text, stem.with_extension("npy")))
        }

        /// The teacher's vectors of `sentences` through `embed_cached` (reused when made from
        /// the same list before), checked.
        fn embedded(&self, side: Side, sentences: &[String]) -> Result<Embeddings> {
            let (text, out) = self.list(side, sentences)?;
            let (text, bad) = ((text.as_path(), TextFormat::Plain), BadLines::Error);
            embed_cached(self.spec, text, side, &out, self.quiet, bad)?;
            let e = bitext_core::io::npy::read_npy(&out)?;
            if e.len() != sentences.len() {
                bail!(
                    "{}: {} teacher vectors for {} sentences (remove it to recompute)",
                    out.display(),
                    e.len(),
                    sentences.len()
                );
            }
            e.check_finite()
                .with_context(|| format!("{}: the teacher's vectors", out.display()))?;
            Ok(e)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Each row gets the vector of its own sentence, repeats included, and the teacher
        /// embeds each distinct sentence once.
        #[test]
        fn repeated_sentences_get_their_own_vectors_from_one_embedding() {
            let d = tempfile::tempdir().unwrap();
            let mut vec = String::from("4 3\n");
            for row in ["a 1 0 0", "b 0 1 0", "c 0 0 1", "d 1 1 0"] {
                vec.push_str(row);
                vec.push('\n');
            }
            let file = d.path().join("t.vec");
            std::fs::write(&file, vec).unwrap();
            let spec: EncoderSpec = format!("bow:{}", file.display()).parse().unwrap();
            let text = ["a b", "c", "a b", "d", "c", "b"].map(String::from);
            let cache = d.path().join("cache");
            let reader = Reader {
                spec: &spec,
                cache,
                quiet: true,
            };
            let all = reader.vectors(Side::Target, &text).unwrap();
            assert_eq!(all.len(), text.len());
            for (i, s) in text.iter().enumerate() {
                let one = reader
                    .unique_vectors(Side::Target, std::slice::from_ref(s))
                    .unwrap();
                assert_eq!(all.row(i), one.row(0), "row {i}: {s}");
            }
            assert_ne!(all.row(0), all.row(1));
            // The distinct sentences, in first-seen order, are what the teacher read.
            let read: Vec<String> = std::fs::read_dir(&reader.cache)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .map(|p| std::fs::read_to_string(p).unwrap())
                .collect();
            assert!(read.contains(&"a b\nc\nd\nb\n".to_string()), "{read:?}");
        }

        /// A new list takes the vectors of the sentences earlier lists hold and has the
        /// teacher embed only the others; a list whose text changed after it was embedded is
        /// not used.
        #[test]
        fn a_new_list_reuses_earlier_lists_and_embeds_only_new_sentences() {
            let d = tempfile::tempdir().unwrap();
            let file = d.path().join("t.vec");
            std::fs::write(&file, "4 3\na 1 0 0\nb 0 1 0\nc 0 0 1\nd 1 1 0\n").unwrap();
            let spec: EncoderSpec = format!("bow:{}", file.display()).parse().unwrap();
            let reader = Reader {
                spec: &spec,
                cache: d.path().join("cache"),
                quiet: true,
            };
            let lists = |r: &Reader<'_>| -> Vec<String> {
                let mut v: Vec<String> = std::fs::read_dir(&r.cache)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                    .map(|p| std::fs::read_to_string(p).unwrap())
                    .collect();
                v.sort();
                v
            };
            let first = ["a b", "c"].map(String::from);
            reader.unique_vectors(Side::Target, &first).unwrap();
            // Another side is another teacher: nothing of it is reused.
            reader
                .unique_vectors(Side::Source, &["d".to_string()])
                .unwrap();
            let second = ["c", "d", "a b", "c", "b"].map(String::from);
            let got = reader.unique_vectors(Side::Target, &second).unwrap();
            // Embedded anew: only "d" and "b", as one list.
            assert!(lists(&reader).contains(&"d\nb\n".to_string()));
            let fresh = Reader {
                spec: &spec,
                cache: d.path().join("fresh"),
                quiet: true,
            };
            let want = fresh.unique_vectors(Side::Target, &second).unwrap();
            assert_eq!(got.as_slice(), want.as_slice());
            // Read back as made, without the teacher.
            let again = reader.unique_vectors(Side::Target, &second).unwrap();
            assert_eq!(again.as_slice(), want.as_slice());
            // A TF-IDF bag counting its IDF over each list reads nothing of the earlier ones.
            let tfidf: EncoderSpec = format!(
                r#"{{"type": "bow", "vectors": "{}", "weighting": "tf_idf"}}"#,
                file.display()
            )
            .parse()
            .unwrap();
            assert!(!tfidf.encodes_each_alone() && spec.encodes_each_alone());
            let idf = Reader {
                spec: &tfidf,
                cache: d.path().join("idf"),
                quiet: true,
            };
            idf.unique_vectors(Side::Target, &first).unwrap();
            idf.unique_vectors(Side::Target, &second).unwrap();
            assert_eq!(lists(&idf), ["a b\nc\n", "c\nd\na b\nc\nb\n"]);
            // An earlier list whose text no longer hashes to its sidecar's key is left out:
            // the teacher embeds its sentence afresh.
            let stale = Reader {
                spec: &spec,
                cache: d.path().join("stale"),
                quiet: true,
            };
            stale.unique_vectors(Side::Target, &first).unwrap();
            let (text, _) = stale.list(Side::Target, &first).unwrap();
            std::fs::write(&text, "a b\nd\n").unwrap();
            let third = ["c", "b"].map(String::from);
            let got = stale.unique_vectors(Side::Target, &third).unwrap();
            assert_eq!(lists(&stale), ["a b\nd\n", "c\nb\n"]);
            let want = fresh.unique_vectors(Side::Target, &third).unwrap();
            assert_eq!(got.as_slice(), want.as_slice());
        }
    }
}
