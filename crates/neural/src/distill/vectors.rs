//! [`TeacherVectors`]: the teacher's vectors of a list of sentences, kept once per distinct
//! sentence.

use std::sync::Arc;

use bitext_core::Embeddings;

use crate::error::{Error, Result};

/// The teacher's vectors of a list of sentences (one side of the training pairs): tables of
/// distinct vectors and, for each sentence of the list, its row in them (the rows of the tables
/// counted one after the other). Training lists repeat sentences (a corpus read several times
/// an epoch, a sentence in many pairs, the same sentence on both sides of a text-alone pair),
/// and the lists of the two sides can share their tables ([`TeacherVectors::beside`]; clones
/// share them too), so that a vector is held once however often it is a target.
#[derive(Debug, Clone)]
pub struct TeacherVectors {
    tables: Vec<Arc<Embeddings>>,
    /// The first row of each table, counted over the tables before it.
    starts: Vec<usize>,
    index: Vec<usize>,
}

impl TeacherVectors {
    /// Sentence `k` of the list has row `index[k]` of `table`.
    ///
    /// # Errors
    /// [`Error::Input`] for an index past the table.
    pub fn new(table: Arc<Embeddings>, index: Vec<usize>) -> Result<Self> {
        Self::over(vec![table], index)
    }

    /// Sentence `k` of the list has row `index[k]` of `tables`, their rows counted one after
    /// the other.
    fn over(tables: Vec<Arc<Embeddings>>, index: Vec<usize>) -> Result<Self> {
        let mut starts = Vec::with_capacity(tables.len());
        let mut rows = 0;
        for t in &tables {
            if t.dim() != tables[0].dim() {
                return Err(Error::Input(format!(
                    "teacher vectors of {} and of {} dimensions in one list",
                    tables[0].dim(),
                    t.dim()
                )));
            }
            starts.push(rows);
            rows += t.len();
        }
        if let Some((k, &bad)) = index.iter().enumerate().find(|(_, i)| **i >= rows) {
            return Err(Error::Input(format!(
                "sentence {k} of the teacher's list has vector {bad} of a table of {rows}"
            )));
        }
        Ok(Self {
            tables,
            starts,
            index,
        })
    }

    /// A list that shares this one's tables and adds `more`: its sentence `k` has row
    /// `index[k]` of this list's tables followed by `more` (how the list of one side of the
    /// pairs reads the vectors of the sentences the other side holds too).
    ///
    /// # Errors
    /// [`Error::Input`] for `more` of another width or an index past the tables.
    pub fn beside(&self, more: Embeddings, index: Vec<usize>) -> Result<Self> {
        let mut tables = self.tables.clone();
        if !more.is_empty() {
            tables.push(Arc::new(more));
        }
        Self::over(tables, index)
    }

    /// This list, then `more`'s sentences: the two lists' tables, shared with them.
    ///
    /// # Errors
    /// [`Error::Input`] for lists of different widths.
    pub fn then(&self, more: &Self) -> Result<Self> {
        let rows = self.table_rows();
        let tables = self.tables.iter().chain(&more.tables).cloned().collect();
        let index = self
            .index
            .iter()
            .copied()
            .chain(more.index.iter().map(|&r| rows + r))
            .collect();
        Self::over(tables, index)
    }

    /// The number of sentences of the list.
    #[must_use]
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the list has no sentences.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The vectors' width.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.tables[0].dim()
    }

    /// The number of vectors the tables hold.
    #[must_use]
    pub fn table_rows(&self) -> usize {
        self.tables.iter().map(|t| t.len()).sum()
    }

    /// The vector of sentence `k` of the list.
    ///
    /// # Panics
    /// When `k` is not below [`TeacherVectors::len`].
    #[must_use]
    pub fn row(&self, k: usize) -> &[f32] {
        self.table_row(self.index[k])
    }

    /// Row `r` of the tables, counted one after the other.
    ///
    /// # Panics
    /// When `r` is not below [`TeacherVectors::table_rows`].
    #[must_use]
    pub fn table_row(&self, r: usize) -> &[f32] {
        let t = self.starts.partition_point(|&s| s <= r) - 1;
        self.tables[t].row(r - self.starts[t])
    }

    /// Each sentence's row of the tables.
    #[must_use]
    pub fn index(&self) -> &[usize] {
        &self.index
    }

    /// Whether this list and `other` hold some of their vectors in one table.
    #[must_use]
    pub fn shares_table(&self, other: &Self) -> bool {
        self.tables
            .iter()
            .any(|t| other.tables.iter().any(|o| Arc::ptr_eq(t, o)))
    }

    /// A check that every vector of the list is finite.
    ///
    /// # Errors
    /// [`Error::Input`] naming the first sentence of the list with a non-finite vector.
    pub fn check_finite(&self) -> Result<()> {
        let bad: Vec<bool> = self
            .tables
            .iter()
            .flat_map(|t| (0..t.len()).map(move |r| !t.row(r).iter().all(|x| x.is_finite())))
            .collect();
        if !bad.contains(&true) {
            return Ok(());
        }
        match self.index.iter().position(|&r| bad[r]) {
            Some(k) => Err(Error::Input(format!(
                "the teacher's vector of sentence {k} has a non-finite value"
            ))),
            None => Ok(()),
        }
    }

    /// The list of sentences `keep` of this one, in that order, in the same tables.
    ///
    /// # Errors
    /// [`Error::Input`] for a sentence past the list.
    pub fn keep(self, keep: &[usize]) -> Result<Self> {
        if let Some(&bad) = keep.iter().find(|&&k| k >= self.index.len()) {
            return Err(Error::Input(format!(
                "teacher row {bad} of {} asked for",
                self.index.len()
            )));
        }
        let index = keep.iter().map(|&k| self.index[k]).collect();
        Ok(Self { index, ..self })
    }

    /// One row per sentence of the list, copied out of the tables.
    #[must_use]
    pub fn expanded(&self) -> Embeddings {
        let mut data = Vec::with_capacity(self.len() * self.dim());
        for k in 0..self.len() {
            data.extend_from_slice(self.row(k));
        }
        Embeddings::new(data, self.dim()).expect("whole rows of the tables' width")
    }
}

/// Each row of `e` its own sentence's vector.
impl From<Embeddings> for TeacherVectors {
    fn from(e: Embeddings) -> Self {
        let index = (0..e.len()).collect();
        Self {
            tables: vec![Arc::new(e)],
            starts: vec![0],
            index,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Arc<Embeddings> {
        Arc::new(Embeddings::from_rows([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], 2).unwrap())
    }

    #[test]
    fn rows_follow_the_index_and_keep_reindexes_without_copying() {
        let t = table();
        let v = TeacherVectors::new(t.clone(), vec![2, 0, 2, 1]).unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v.dim(), 2);
        assert_eq!(v.row(0), &[5.0, 6.0]);
        assert_eq!(v.row(2), &[5.0, 6.0]);
        assert_eq!(
            v.expanded().as_slice(),
            &[5.0, 6.0, 1.0, 2.0, 5.0, 6.0, 3.0, 4.0]
        );
        let w = TeacherVectors::new(t, vec![1]).unwrap();
        assert!(v.shares_table(&w));
        let k = v.clone().keep(&[3, 1]).unwrap();
        assert_eq!(k.expanded().as_slice(), &[3.0, 4.0, 1.0, 2.0]);
        assert!(k.shares_table(&v));
        let e = v.clone().keep(&[4]).unwrap_err().to_string();
        assert!(e.contains("teacher row 4 of 4"), "{e}");
        assert!(v.keep(&[]).unwrap().is_empty());
        let e = TeacherVectors::new(table(), vec![0, 3])
            .unwrap_err()
            .to_string();
        assert!(e.contains("sentence 1") && e.contains("table of 3"), "{e}");
    }

    #[test]
    fn a_list_beside_another_reads_its_tables_then_its_own() {
        let a = TeacherVectors::new(table(), vec![1, 1]).unwrap();
        let more = Embeddings::from_rows([[7.0, 8.0]], 2).unwrap();
        let b = a.beside(more, vec![3, 0, 3]).unwrap();
        assert!(b.shares_table(&a));
        assert_eq!(b.table_rows(), 4);
        assert_eq!(b.expanded().as_slice(), &[7.0, 8.0, 1.0, 2.0, 7.0, 8.0]);
        assert_eq!(b.clone().keep(&[1]).unwrap().row(0), &[1.0, 2.0]);
        let e = a.beside(Embeddings::from_rows([[1.0]], 1).unwrap(), vec![0]);
        assert!(
            e.unwrap_err()
                .to_string()
                .contains("of 2 and of 1 dimensions")
        );
        let e = a.beside(Embeddings::new(vec![], 2).unwrap(), vec![3]);
        assert!(e.unwrap_err().to_string().contains("table of 3"));
    }

    #[test]
    fn a_list_then_another_holds_both_in_their_tables() {
        let a = TeacherVectors::new(table(), vec![2, 0]).unwrap();
        let b = TeacherVectors::from(Embeddings::from_rows([[7.0, 8.0]], 2).unwrap());
        let ab = a.then(&b).unwrap();
        assert!(ab.shares_table(&a) && ab.shares_table(&b));
        assert_eq!(ab.expanded().as_slice(), &[5.0, 6.0, 1.0, 2.0, 7.0, 8.0]);
        let narrow = TeacherVectors::from(Embeddings::from_rows([[1.0]], 1).unwrap());
        assert!(a.then(&narrow).is_err());
    }

    #[test]
    fn from_embeddings_is_one_row_each_and_non_finite_rows_are_named_when_used() {
        let e = Embeddings::from_rows([[1.0, 0.0], [f32::NAN, 1.0]], 2).unwrap();
        let v = TeacherVectors::from(e.clone());
        assert_eq!(v.expanded().as_slice()[..2], [1.0, 0.0]);
        let msg = v.check_finite().unwrap_err().to_string();
        assert!(msg.contains("sentence 1"), "{msg}");
        // A list that never uses the bad row is finite.
        let ok = TeacherVectors::new(Arc::new(e), vec![0, 0]).unwrap();
        assert!(ok.check_finite().is_ok());
        assert!(!v.shares_table(&ok));
    }
}
