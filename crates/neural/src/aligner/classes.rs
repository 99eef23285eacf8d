//! Word classes that stand in for part-of-speech tags in the replace examples (see
//! [`crate::aligner::synth`]): punctuation, numbers, capitalised words, the most frequent
//! lower-case words of a side (closed-class words, in effect) and the rest.

/// The class a replacement must keep (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordClass {
    /// Only punctuation or symbols.
    Punctuation,
    /// Contains a digit.
    Number,
    /// Starts with an upper-case letter.
    Capitalised,
    /// One of the most frequent lower-case tokens of its side.
    Frequent,
    /// Any other token.
    Other,
}

impl WordClass {
    /// The class of a token's text, before the frequency rule.
    #[must_use]
    pub fn of(token: &str) -> Self {
        let t = token.trim_start_matches('▁');
        if t.chars().any(|c| c.is_numeric()) {
            WordClass::Number
        } else if !t.chars().any(char::is_alphanumeric) {
            WordClass::Punctuation
        } else if t.chars().next().is_some_and(char::is_uppercase) {
            WordClass::Capitalised
        } else {
            WordClass::Other
        }
    }

    /// Classes of every token id of a vocabulary (`pieces[id]`), with the `frequent` most
    /// frequent `Other` ids in `sentences` promoted to [`WordClass::Frequent`].
    #[must_use]
    pub fn table(pieces: &[String], sentences: &[Vec<u32>], frequent: usize) -> Vec<WordClass> {
        let mut classes: Vec<WordClass> = pieces.iter().map(|p| Self::of(p)).collect();
        let mut counts = vec![0usize; pieces.len()];
        for &id in sentences.iter().flatten() {
            if let Some(c) = counts.get_mut(id as usize) {
                *c += 1;
            }
        }
        let mut ids: Vec<usize> = (0..pieces.len())
            .filter(|&i| classes[i] == WordClass::Other && counts[i] > 0)
            .collect();
        ids.sort_by_key(|&i| (std::cmp::Reverse(counts[i]), i));
        for &i in ids.iter().take(frequent) {
            classes[i] = WordClass::Frequent;
        }
        classes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_of_tokens_and_frequent_words() {
        assert_eq!(WordClass::of("."), WordClass::Punctuation);
        assert_eq!(WordClass::of("▁,"), WordClass::Punctuation);
        assert_eq!(WordClass::of("1990"), WordClass::Number);
        assert_eq!(WordClass::of("Haus"), WordClass::Capitalised);
        assert_eq!(WordClass::of("haus"), WordClass::Other);
        let pieces: Vec<String> = ["the", "a", "dog"]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        let t = WordClass::table(&pieces, &[vec![0, 0, 2], vec![0, 1]], 1);
        assert_eq!(t, [WordClass::Frequent, WordClass::Other, WordClass::Other]);
    }
}
