//! Distillation from a teacher encoder (Reimers & Gurevych 2020, "Making Monolingual Sentence
//! Embeddings Multilingual"; LASER3's teacher–student training): the student's vector of each
//! sentence of a training pair is pulled towards the teacher's vector of one sentence of that
//! pair (in the recipes, the English one), so that a sentence and its translation both land on
//! the teacher's vector of it.
//!
//! The teacher is any `bitext_encode::SentenceEncoder` (a pretrained ONNX encoder through
//! bitext-onnx, in the recipes); this crate never runs it: the caller encodes the teacher's
//! side of the training and validation pairs once and hands the rows over as a [`Teacher`]
//! (the CLI caches them on disk). With [`Teacher::source`] each sentence is pulled towards the
//! teacher's vector of itself instead (the teacher then also reads the source sentences): a
//! multilingual teacher's vector of a French sentence is what the student's French should
//! reproduce, a function of that very sentence, where the vector of its English translation
//! is the target of another input. The loss is the cosine distance `1 − cos(student, teacher)`,
//! averaged over the batch's sentences of both sides: mining compares vectors by cosine, so
//! their lengths are left free (Reimers & Gurevych's MSE ties them to the teacher's).

use bitext_core::Embeddings;
use burn::tensor::Tensor;

use crate::encoding::unit_rows;
use crate::error::{Error, Result};
use crate::init::float2;
use crate::train::Validation;

mod span;
mod vectors;

pub use span::{span_pairs, spans};
pub use vectors::TeacherVectors;

/// The teacher's sentence vectors of a training job: row `k` of [`Teacher::train`] is the
/// vector both sentences of training pair `k` are pulled towards (the target sentence only,
/// with [`Teacher::source`]).
#[derive(Debug, Clone)]
pub struct Teacher {
    /// One vector per training pair, in the order of the pairs handed to the training (held
    /// once per distinct sentence, in a table [`Teacher::source`]'s may share).
    pub train: TeacherVectors,
    /// One row per validation pair, when the job has validation pairs (the validation then
    /// reports the distance to them, and with [`Teacher::alone`] judges epochs by it).
    pub valid: Option<Embeddings>,
    /// The teacher's vectors of the source sentences themselves, which the source sentence
    /// of each pair is pulled towards instead of [`Teacher::train`]'s row (the CLI's
    /// `--teacher-side both`); `None`: both sentences towards `train`.
    pub source: Option<TeacherRows>,
    /// The weight of the distillation loss added to the family's own loss.
    pub weight: f64,
    /// Train on the distillation loss alone, without the family's own loss.
    pub alone: bool,
}

/// The teacher's vectors of one side of the training and validation pairs (see
/// [`Teacher::source`]).
#[derive(Debug, Clone)]
pub struct TeacherRows {
    /// One vector per training pair.
    pub train: TeacherVectors,
    /// One row per validation pair, when the job has validation pairs.
    pub valid: Option<Embeddings>,
}

/// A check that the teacher has `rows` vectors for `pairs` pairs of the kind `what`.
fn count(what: &str, rows: usize, pairs: usize) -> Result<()> {
    if rows == pairs {
        Ok(())
    } else {
        Err(Error::Input(format!(
            "{rows} teacher vectors for {pairs} {what} pairs"
        )))
    }
}

impl Teacher {
    /// Check the teacher against a job of `train` pairs, `valid` validation pairs and student
    /// vectors of `dim` dimensions.
    ///
    /// # Errors
    /// [`Error::Config`] for another dimension or a negative or non-finite weight;
    /// [`Error::Input`] for another number of rows, a non-finite value, or no rows of the
    /// validation pairs when there are some.
    pub fn check(&self, train: usize, valid: Option<usize>, dim: usize) -> Result<()> {
        if !(self.weight.is_finite() && self.weight >= 0.0) {
            return Err(Error::Config(format!(
                "the distillation weight must be finite and at least 0, not {}",
                self.weight
            )));
        }
        let sides = std::iter::once(("", &self.train, &self.valid)).chain(
            self.source
                .as_ref()
                .map(|s| (" source", &s.train, &s.valid)),
        );
        for (side, t, v) in sides {
            if t.dim() != dim {
                return Err(Error::Config(format!(
                    "the teacher's{side} vectors have {} dimensions but the student's {dim}: the \
                     student must have the teacher's width (e.g. an embedding size equal to it \
                     with a bag of words)",
                    t.dim()
                )));
            }
            count(&format!("training{side}"), t.len(), train)?;
            t.check_finite()?;
            if valid.is_some() && v.is_none() {
                return Err(Error::Input(format!(
                    "the teacher has no{side} vectors of the validation pairs"
                )));
            }
            if let (Some(v), Some(n)) = (v, valid) {
                if v.dim() != dim {
                    return Err(Error::Config(format!(
                        "the teacher's{side} validation vectors have {} dimensions, not {dim}",
                        v.dim()
                    )));
                }
                count(&format!("validation{side}"), v.len(), n)?;
                v.check_finite().map_err(Error::Core)?;
            }
        }
        Ok(())
    }

    /// The rows of the pairs a text training kept: `train` is `(pairs given, indices kept)`,
    /// `valid` the same for the validation pairs. Checks that the teacher has a row for every
    /// pair given, then [`Teacher::keep`]s the kept ones.
    ///
    /// # Errors
    /// [`Error::Input`] for another number of rows than pairs given.
    pub fn for_kept(
        self,
        train: (usize, &[usize]),
        valid: Option<(usize, &[usize])>,
    ) -> Result<Self> {
        count("training", self.train.len(), train.0)?;
        if let (Some(tv), Some((n, _))) = (&self.valid, valid) {
            count("validation", tv.len(), n)?;
        }
        if let Some(s) = &self.source {
            count("training source", s.train.len(), train.0)?;
            if let (Some(sv), Some((n, _))) = (&s.valid, valid) {
                count("validation source", sv.len(), n)?;
            }
        }
        self.keep(train.1, valid.map(|v| v.1))
    }

    /// The same teacher with only the training rows `train` and validation rows `valid` kept
    /// (the pairs that survived tokenization), in that order. The training vectors stay in
    /// their table ([`TeacherVectors::keep`]); validation rows in ascending order are moved
    /// down within their matrix, rows in another order copied into a new one.
    ///
    /// # Errors
    /// [`Error::Input`] for an index out of range.
    pub fn keep(self, train: &[usize], valid: Option<&[usize]>) -> Result<Self> {
        let pick = |e: Embeddings, idx: &[usize]| -> Result<Embeddings> {
            if let Some(&bad) = idx.iter().find(|&&i| i >= e.len()) {
                return Err(Error::Input(format!(
                    "teacher row {bad} of {} asked for",
                    e.len()
                )));
            }
            if !idx.windows(2).all(|w| w[0] < w[1]) {
                return Embeddings::from_rows(idx.iter().map(|&i| e.row(i)), e.dim())
                    .map_err(Error::Core);
            }
            // Ascending rows (as tokenization keeps them): each moves down in place, never
            // onto a row still to be read.
            let dim = e.dim();
            let mut data = e.into_vec();
            for (k, &i) in idx.iter().enumerate().filter(|(k, i)| k != *i) {
                data.copy_within(i * dim..(i + 1) * dim, k * dim);
            }
            data.truncate(idx.len() * dim);
            data.shrink_to_fit();
            Embeddings::new(data, dim).map_err(Error::Core)
        };
        let valid_of = |v: Option<Embeddings>| -> Result<Option<Embeddings>> {
            Ok(match (v, valid) {
                (Some(v), Some(idx)) => Some(pick(v, idx)?),
                (v, None) => v,
                (None, Some(_)) => None,
            })
        };
        Ok(Self {
            train: self.train.keep(train)?,
            valid: valid_of(self.valid)?,
            source: match self.source {
                Some(s) => Some(TeacherRows {
                    train: s.train.keep(train)?,
                    valid: valid_of(s.valid)?,
                }),
                None => None,
            },
            weight: self.weight,
            alone: self.alone,
        })
    }

    /// The training rows `rows` as a `[rows.len(), dim]` tensor on `like`'s device: the
    /// vectors the target sentences of those pairs are pulled towards.
    pub(crate) fn rows(&self, rows: impl Iterator<Item = usize>, like: &Tensor<2>) -> Tensor<2> {
        gather(&self.train, rows, like)
    }

    /// The vectors the source sentences of pairs `rows` are pulled towards: the teacher's
    /// vectors of those sentences with [`Teacher::source`], else [`Teacher::rows`].
    pub(crate) fn source_rows(
        &self,
        rows: impl Iterator<Item = usize>,
        like: &Tensor<2>,
    ) -> Tensor<2> {
        gather(
            self.source.as_ref().map_or(&self.train, |s| &s.train),
            rows,
            like,
        )
    }

    /// The validation vectors of (source, target) sentences, when the job has some.
    #[must_use]
    pub fn valid_sides(&self) -> Option<(&Embeddings, &Embeddings)> {
        let t = self.valid.as_ref()?;
        match &self.source {
            Some(s) => Some((s.valid.as_ref()?, t)),
            None => Some((t, t)),
        }
    }
}

impl Teacher {
    /// The distillation loss `[1]` of a batch's vectors `a` (source sentences, of pairs
    /// `src`) and `b` (target sentences, of pairs `tgt`): the mean of their cosine distances
    /// to the rows they are pulled towards ([`Teacher::source_rows`], [`Teacher::rows`]).
    pub(crate) fn pull(
        &self,
        (a, src): (Tensor<2>, impl Iterator<Item = usize>),
        (b, tgt): (Tensor<2>, impl Iterator<Item = usize>),
    ) -> Tensor<1> {
        let (ta, tb) = (self.source_rows(src, &a), self.rows(tgt, &b));
        (cosine_distance(a, ta) + cosine_distance(b, tb)).div_scalar(2.0)
    }

    /// A validation of the family's own loss `v` judged with the teacher too: the mean
    /// cosines `(src, tgt)` of the validation vectors with the teacher's reported (`teacher cos
    /// src`, `teacher cos tgt`), and the loss the distance `1 − (src + tgt) / 2` alone
    /// ([`Teacher::alone`]) or the family's plus [`Teacher::weight`] times it.
    pub(crate) fn judge(&self, v: &mut Validation, (src, tgt): (f64, f64)) {
        v.metrics.insert("teacher cos src".into(), src);
        v.metrics.insert("teacher cos tgt".into(), tgt);
        let distance = 1.0 - (src + tgt) / 2.0;
        v.loss = if self.alone {
            distance
        } else {
            v.loss + self.weight * distance
        };
    }
}

/// A training task that distils from a [`Teacher`]: the one `with_teacher` of the families'
/// tasks, which say which pairs the teacher's rows are of and what else they refuse.
pub trait Distilled: Sized {
    /// The training pairs the teacher has a row for each of, and the validation pairs (when
    /// the task validates on pairs of its own).
    fn teacher_pairs(&self) -> (usize, Option<usize>);

    /// Where the task keeps its teacher.
    fn teacher_mut(&mut self) -> &mut Option<Teacher>;

    /// Whether the task can learn from `teacher` at all (e.g. alone, without its own loss).
    ///
    /// # Errors
    /// [`Error::Config`] saying why not.
    fn accepts(&self, _teacher: &Teacher) -> Result<()> {
        Ok(())
    }

    /// Distil from `teacher` ([`crate::distill`]): the task's sentence vectors of its pairs
    /// are pulled towards the teacher's rows of them, the distance added to the task's loss
    /// (times [`Teacher::weight`]) or alone ([`Teacher::alone`]), and validation reports the
    /// mean cosines of each side's vectors with the teacher's (`teacher cos src`, `teacher cos
    /// tgt`) and adds the weighted distance to its loss (or is that distance, alone). What
    /// each task pulls: its type's docs.
    ///
    /// # Errors
    /// As [`Distilled::accepts`]; as [`Teacher::check`] against the task's pairs and `dim`,
    /// the network's vector size.
    fn with_teacher(mut self, teacher: Teacher, dim: usize) -> Result<Self> {
        self.accepts(&teacher)?;
        let (train, valid) = self.teacher_pairs();
        teacher.check(train, valid, dim)?;
        *self.teacher_mut() = Some(teacher);
        Ok(self)
    }

    /// [`Distilled::with_teacher`] when there is a teacher, else the task unchanged.
    ///
    /// # Errors
    /// As [`Distilled::with_teacher`].
    fn taught(self, teacher: Option<Teacher>, dim: usize) -> Result<Self> {
        match teacher {
            Some(t) => self.with_teacher(t, dim),
            None => Ok(self),
        }
    }
}

/// Vectors one can gather rows of: a matrix, or a [`TeacherVectors`] list.
pub(crate) trait Rows {
    /// The vectors' width.
    fn width(&self) -> usize;
    /// Row `k`.
    fn vector(&self, k: usize) -> &[f32];
}

impl Rows for Embeddings {
    fn width(&self) -> usize {
        self.dim()
    }
    fn vector(&self, k: usize) -> &[f32] {
        self.row(k)
    }
}

impl Rows for TeacherVectors {
    fn width(&self) -> usize {
        self.dim()
    }
    fn vector(&self, k: usize) -> &[f32] {
        self.row(k)
    }
}

/// Rows `rows` of `e` as a `[rows.len(), dim]` tensor on `like`'s device.
pub(crate) fn gather(
    e: &impl Rows,
    rows: impl Iterator<Item = usize>,
    like: &Tensor<2>,
) -> Tensor<2> {
    let dim = e.width();
    let mut data = Vec::new();
    let mut n = 0;
    for r in rows {
        data.extend_from_slice(e.vector(r));
        n += 1;
    }
    float2(data, [n, dim], &like.device())
}

/// The distillation loss `[1]`: the mean over rows of `1 − cos(student_i, teacher_i)`.
pub(crate) fn cosine_distance(student: Tensor<2>, teacher: Tensor<2>) -> Tensor<1> {
    let cos = (unit_rows(student) * unit_rows(teacher)).sum_dim(1);
    let [n, _] = cos.dims();
    cos.reshape([n]).mean().neg().add_scalar(1.0)
}

/// The mean cosine of the rows of `student` with the rows of `teacher` (host vectors; rows of
/// zero length count as cosine 0).
#[must_use]
pub fn mean_cosine(student: &Embeddings, teacher: &Embeddings) -> f64 {
    let n = student.len().min(teacher.len());
    if n == 0 {
        return 0.0;
    }
    let sum: f64 = (0..n)
        .map(|i| f64::from(bitext_similarity::cosine(student.row(i), teacher.row(i))))
        .sum();
    sum / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::to_host1;
    use burn::tensor::Device;

    #[test]
    fn cosine_distance_is_zero_on_the_teacher_and_ignores_length() {
        let d = Device::flex();
        let t = float2(vec![1.0, 0.0, 0.6, 0.8], [2, 2], &d);
        let s = float2(vec![3.0, 0.0, 1.2, 1.6], [2, 2], &d);
        let l = to_host1(cosine_distance(s, t.clone())).unwrap()[0];
        assert!(l.abs() < 1e-6, "{l}");
        // Orthogonal rows: distance 1; opposite: 2; mean (1 + 2) / 2.
        let s = float2(vec![0.0, 5.0, -0.6, -0.8], [2, 2], &d);
        let l = to_host1(cosine_distance(s, t)).unwrap()[0];
        assert!((l - 1.5).abs() < 1e-5, "{l}");
    }

    fn rows(rows: usize, dim: usize) -> Embeddings {
        let data = (0..rows * dim).map(|i| i as f32 + 1.0).collect();
        Embeddings::new(data, dim).unwrap()
    }

    fn teacher(rows: usize, dim: usize) -> Teacher {
        Teacher {
            train: self::rows(rows, dim).into(),
            valid: None,
            source: None,
            weight: 1.0,
            alone: false,
        }
    }

    #[test]
    fn check_names_the_mismatch() {
        let t = teacher(3, 4);
        assert!(t.check(3, None, 4).is_ok());
        let e = t.check(3, None, 8).unwrap_err().to_string();
        assert!(e.contains("4 dimensions but the student's 8"), "{e}");
        let e = t.check(5, None, 4).unwrap_err().to_string();
        assert!(e.contains("3 teacher vectors for 5 training pairs"), "{e}");
        let mut nan = rows(2, 2);
        nan.row_mut(1)[0] = f32::NAN;
        let nan = Teacher {
            train: nan.into(),
            ..teacher(2, 2)
        };
        assert!(nan.check(2, None, 2).is_err());
        let bad = Teacher {
            weight: -1.0,
            ..teacher(2, 2)
        };
        assert!(bad.check(2, None, 2).is_err());
        // The source side's vectors are checked as the target's.
        let with_source = |rows: usize, valid: Option<Embeddings>| Teacher {
            source: Some(TeacherRows {
                train: teacher(rows, 4).train,
                valid,
            }),
            valid: Some(self::rows(2, 4)),
            ..teacher(3, 4)
        };
        assert!(
            with_source(3, Some(rows(2, 4)))
                .check(3, Some(2), 4)
                .is_ok()
        );
        let e = with_source(4, Some(rows(2, 4)))
            .check(3, Some(2), 4)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("4 teacher vectors for 3 training source pairs"),
            "{e}"
        );
        let e = with_source(3, None)
            .check(3, Some(2), 4)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no source vectors of the validation pairs"),
            "{e}"
        );
    }

    #[test]
    fn keep_selects_rows_in_order() {
        let t = teacher(4, 2);
        let k = t.clone().keep(&[3, 1], None).unwrap();
        assert_eq!(k.train.expanded().as_slice(), &[7.0, 8.0, 3.0, 4.0]);
        assert!(k.source.is_none());
        let mut both = teacher(4, 2);
        let mut src = rows(4, 2);
        src.row_mut(3)[0] = -1.0;
        both.source = Some(TeacherRows {
            train: src.into(),
            valid: None,
        });
        let kb = both.keep(&[3, 1], None).unwrap();
        assert_eq!(
            kb.source.unwrap().train.expanded().as_slice(),
            &[-1.0, 8.0, 3.0, 4.0]
        );
        assert!(t.clone().keep(&[4], None).is_err());
        // Every row in order: the same vectors, in the same table.
        let same = t.clone().keep(&[0, 1, 2, 3], None).unwrap();
        assert_eq!(
            same.train.expanded().as_slice(),
            t.train.expanded().as_slice()
        );
        let k = t.clone().keep(&[0, 2, 3], None).unwrap();
        assert_eq!(
            k.train.expanded().as_slice(),
            &[1.0, 2.0, 5.0, 6.0, 7.0, 8.0]
        );
        assert!(k.train.shares_table(&t.train));
        assert_eq!(t.clone().keep(&[], None).unwrap().train.len(), 0);
        let kept = k.train.expanded();
        let m = mean_cosine(&kept, &kept);
        assert!((m - 1.0).abs() < 1e-9);
    }
}
