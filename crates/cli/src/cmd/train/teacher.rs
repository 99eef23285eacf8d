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
    /// The most the teacher's cache may hold, in GiB: once a run has its vectors, the least
    /// recently used lists of earlier runs are removed until the cache fits (the lists the run
    /// uses are kept, even when they alone pass it).
    #[arg(long, value_name = "GIB", default_value_t = 20.0, value_parser = cache_limit,
          allow_hyphen_values = true,
          requires = "teacher")]
    teacher_cache_limit: f64,
}

/// `--teacher-cache-limit`: a finite number of GiB, 0 or more.
fn cache_limit(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(g) if g.is_finite() && g >= 0.0 => Ok(g),
        Ok(_) => Err(format!("{s} GiB: give a size of 0 or more")),
        Err(e) => Err(format!("{s}: not a number of GiB ({e})")),
    }
}

#[cfg(all(feature = "neural", feature = "onnx"))]
pub(super) use vectors::cache_dir;

#[cfg(feature = "neural")]
mod vectors {
    use std::hash::Hasher;
    use std::io::Write;
    use std::path::PathBuf;
    use std::sync::Arc;

    use anyhow::{Context, Result, bail};
    use bitext_core::Embeddings;
    use bitext_core::io::AtomicFile;
    use bitext_encode::{EncoderSpec, Side};
    use bitext_mine::unify::Occurrences;
    use bitext_neural::distill::{Teacher, TeacherRows, TeacherVectors};

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
    mod prune;

    impl TeacherArgs {
        /// The teacher's vectors of `split`'s pairs (training, then validation when it has
        /// any), or `None` without --teacher. With `--teacher-side both` the two sides'
        /// training lists share the vectors of the sentences both hold ([`Reader::both`]).
        pub(crate) fn teacher(&self, split: &Split, quiet: bool) -> Result<Option<Teacher>> {
            let Some(reader) = self.reader(quiet)? else {
                return Ok(None);
            };
            let (ts, tt, vs, vt) = split;
            let valid = |side: Side, valid: &[String]| -> Result<Option<Embeddings>> {
                if valid.is_empty() {
                    return Ok(None);
                }
                let v = reader.vectors(side, valid).with_context(|| {
                    format!("the teacher's vectors of the validation {side} sentences")
                })?;
                Ok(Some(v.expanded()))
            };
            let train = |side: Side, train: &[String]| {
                reader.vectors(side, train).with_context(|| {
                    format!("the teacher's vectors of the training {side} sentences")
                })
            };
            let (main, source) = match self.teacher_side {
                TeacherSide::Source => ((train(Side::Source, ts)?, valid(Side::Source, vs)?), None),
                TeacherSide::Target => ((train(Side::Target, tt)?, valid(Side::Target, vt)?), None),
                TeacherSide::Both => {
                    let (s, t) = reader.both(ts, tt).context(
                        "the teacher's vectors of the training source and target sentences",
                    )?;
                    let source = TeacherRows {
                        train: s,
                        valid: valid(Side::Source, vs)?,
                    };
                    ((t, valid(Side::Target, vt)?), Some(source))
                }
            };
            let (train, valid) = main;
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
                    let (s, t) = reader.both(src, tgt).context(
                        "the teacher's vectors of the distillation pairs' source and target \
                         sentences",
                    )?;
                    DistillRows::Sides(s, t)
                }
                TeacherSide::Source => DistillRows::Shared(one(Side::Source, src)?),
                TeacherSide::Target => DistillRows::Shared(one(Side::Target, tgt)?),
            }))
        }
    }

    /// The teacher's vectors distillation pairs are pulled towards: one list per side, or one
    /// list for both sides.
    pub(crate) enum DistillRows {
        /// The source sentences' vectors, then the target sentences'.
        Sides(TeacherVectors, TeacherVectors),
        /// The vectors of one side, for the sentences of both.
        Shared(TeacherVectors),
    }

    impl DistillRows {
        /// The vectors of the source sentences and of the target sentences.
        pub(crate) fn sides(&self) -> (&TeacherVectors, &TeacherVectors) {
            match self {
                Self::Sides(s, t) => (s, t),
                Self::Shared(v) => (v, v),
            }
        }

        /// These pairs' vectors, then `more`'s: one list per side, sharing the tables.
        pub(crate) fn then(&self, more: &Self) -> Result<Self> {
            let ((s, t), (ms, mt)) = (self.sides(), more.sides());
            Ok(Self::Sides(s.then(ms)?, t.then(mt)?))
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
        /// The teacher's vectors of `sentences` (read on `side`), one per sentence: each
        /// distinct sentence is embedded once ([`Self::unique_vectors`]) and its repeats index
        /// that vector.
        fn vectors(&self, side: Side, sentences: &[String]) -> Result<TeacherVectors> {
            let mut seen = Occurrences::new();
            let mut unique = Vec::new();
            // Each sentence's place among the distinct ones.
            let mut slot = Vec::with_capacity(sentences.len());
            for s in sentences {
                let (row, first) = seen.push(s);
                if row == first {
                    slot.push(unique.len());
                    unique.push(row as usize);
                } else {
                    slot.push(slot[first as usize]);
                }
            }
            let once = if unique.len() == sentences.len() {
                self.unique_vectors(side, sentences)?
            } else {
                if !self.quiet {
                    eprintln!(
                        "teacher: {} distinct sentences of {} ({} repeat an earlier one)",
                        unique.len(),
                        sentences.len(),
                        sentences.len() - unique.len()
                    );
                }
                let text: Vec<String> = unique.iter().map(|&i| sentences[i].clone()).collect();
                self.unique_vectors(side, &text)?
            };
            Ok(TeacherVectors::new(Arc::new(once), slot)?)
        }

        /// The teacher's vectors of the source sentences `src` and of the target sentences
        /// `tgt`, as [`Self::vectors`] makes each. When a sentence's vector depends neither on
        /// the side it is read as nor on the other sentences of its list (an ONNX graph), the
        /// target list keeps only the vectors of the sentences the source list lacks and reads
        /// the others from the source list's table: the text-alone and span pairs, which are
        /// the same sentence on both sides, are held once.
        fn both(&self, src: &[String], tgt: &[String]) -> Result<(TeacherVectors, TeacherVectors)> {
            let s = self.vectors(Side::Source, src)?;
            let t = self.vectors(Side::Target, tgt)?;
            if self.spec.reads_sides() || !self.spec.encodes_each_alone() {
                return Ok((s, t));
            }
            let distinct = t.table_rows();
            let t = share(&s, src, t, tgt)?;
            if !self.quiet {
                eprintln!(
                    "teacher: {} of the target side's {distinct} distinct sentences are on the \
                     source side too, their vectors held once",
                    distinct + s.table_rows() - t.table_rows()
                );
            }
            Ok((s, t))
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
                    prune::used(&out)?;
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
            prune::used(&out)?;
            Ok(e)
        }
    }

    impl TeacherArgs {
        /// Hold the teacher's cache to --teacher-cache-limit ([`prune`]): the least recently
        /// used lists that this run has not used (marked by [`prune::used`] as each is made or
        /// reused) are removed until it fits, saying so unless `quiet`; a file that cannot be
        /// removed is a warning, not an error. Called once a run has all its teacher vectors;
        /// nothing without --teacher or a cache directory.
        pub(crate) fn hold_cache(&self, quiet: bool) -> Result<()> {
            let Some(reader) = self.reader(quiet)? else {
                return Ok(());
            };
            if !reader.cache.is_dir() {
                return Ok(());
            }
            // A whole number of bytes; sizes past u64 (no disk holds them) saturate.
            let limit = (self.teacher_cache_limit * prune::GIB) as u64;
            // A cache this run cannot prune (read-only, shared) does not stop the training:
            // it is said, whatever `quiet`.
            match prune::prune(&reader.cache, limit) {
                Ok(done) => {
                    if let Some(line) = done.report(&reader.cache, limit)
                        && !quiet
                    {
                        eprintln!("{line}");
                    }
                }
                Err(e) => eprintln!(
                    "warning: teacher: the cache {} was not held to its limit \
                     (--teacher-cache-limit): {e:#}",
                    reader.cache.display()
                ),
            }
            Ok(())
        }
    }

    /// The list `t` of the sentences `tgt` laid beside `s`, the list of `src`: a sentence of
    /// `tgt` that `src` holds reads `s`'s vector of it, and only the vectors of the others are
    /// kept from `t` (for a teacher whose vector of a sentence is the same in either list).
    fn share(
        s: &TeacherVectors,
        src: &[String],
        t: TeacherVectors,
        tgt: &[String],
    ) -> Result<TeacherVectors> {
        let mut seen = Occurrences::new();
        for x in src {
            seen.push(x);
        }
        // Where each of `t`'s table rows goes: to `s`'s row of the same sentence, or to one of
        // the rows kept from `t` (`own`), which follow `s`'s tables.
        let mut place = vec![usize::MAX; t.table_rows()];
        let mut own = Vec::new();
        let mut index = Vec::with_capacity(tgt.len());
        for (k, x) in tgt.iter().enumerate() {
            let r = t.index()[k];
            if place[r] == usize::MAX {
                let (_, first) = seen.push(x);
                let first = usize::try_from(first)?;
                place[r] = if first < src.len() {
                    s.index()[first]
                } else {
                    own.push(r);
                    s.table_rows() + own.len() - 1
                };
            }
            index.push(place[r]);
        }
        let own = Embeddings::from_rows(own.iter().map(|&r| t.table_row(r)), t.dim())?;
        drop(t);
        Ok(s.beside(own, index)?)
    }

    #[cfg(test)]
    mod tests;
}
