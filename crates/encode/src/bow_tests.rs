//! Tests of the bag-of-words encoder: hand-worked means, TF-IDF weights, the out-of-vocabulary
//! policy and its errors.

use super::*;

fn wv(words: &[&str], rows: &[&[f32]]) -> WordVectors {
    let dim = rows[0].len();
    WordVectors::new(
        words.iter().map(|w| (*w).to_owned()).collect(),
        Embeddings::from_rows(rows.iter(), dim).unwrap(),
    )
    .unwrap()
}

fn vocab() -> (WordVectors, WordVectors) {
    (
        wv(
            &["der", "hund", "bellt"],
            &[&[1.0, 0.0, 0.0], &[0.0, 2.0, 0.0], &[0.0, 0.0, 4.0]],
        ),
        wv(
            &["the", "dog", "barks"],
            &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]],
        ),
    )
}

/// The encoder that `configure` builds over [`vocab`].
fn encoder(configure: impl FnOnce(BowEncoderBuilder) -> BowEncoderBuilder) -> BowEncoder {
    let (de, en) = vocab();
    configure(BowEncoder::builder(de, en)).build().unwrap()
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}

/// Assert that each value of the row `got` is within 1e-6 of `want`'s.
fn assert_close(got: &[f32], want: &[f32]) {
    assert!(close(got, want), "{got:?}");
}

#[test]
fn mean_of_known_words_with_oov_skipped_and_counted() {
    let enc = encoder(|b| b.normalize(false));
    // "Der Hund bellt laut ." → der, hund, bellt known; laut and . are not.
    let (e, cov) = enc
        .encode_with_coverage(Side::Source, &["Der Hund bellt laut .", "hund hund der"])
        .unwrap();
    assert_close(e.row(0), &[1.0 / 3.0, 2.0 / 3.0, 4.0 / 3.0]);
    // Repeated words count: (2·(0,2,0) + (1,0,0)) / 3.
    assert_close(e.row(1), &[1.0 / 3.0, 4.0 / 3.0, 0.0]);
    assert_eq!((cov.tokens, cov.known, cov.no_known_word.len()), (8, 6, 0));
    // Normalised by default; the target side uses the target vocabulary; HTML is unescaped.
    let enc = encoder(|b| b);
    let e = enc.encode(Side::Target, &["&quot;The dog&quot;"]).unwrap();
    let h = 0.5f32.sqrt();
    assert_close(e.row(0), &[h, h, 0.0]);
    assert_eq!(enc.dim(), 3);
}

#[test]
fn lowercasing_can_be_turned_off() {
    let enc = encoder(|b| b.lowercase(false));
    let e = enc.encode(Side::Source, &["Hund hund"]).unwrap();
    assert_close(e.row(0), &[0.0, 1.0, 0.0]);
}

#[test]
fn tfidf_weights_words_by_their_idf() {
    // Reference: "der" in all 3 sentences, "hund" in 1, "bellt" in none.
    let reference = ["der hund", "der", "der"];
    let enc = encoder(|b| b.tfidf(&reference, &["the"]).normalize(false));
    assert_eq!(enc.weighting(), Weighting::TfIdf);
    let idf = |df: f32| (4.0 / (1.0 + df)).ln() + 1.0;
    let (wd, wh, wb) = (idf(3.0), idf(1.0), idf(0.0));
    let e = enc.encode(Side::Source, &["der hund bellt"]).unwrap();
    let z = wd + wh + wb;
    assert_close(e.row(0), &[wd / z, 2.0 * wh / z, 4.0 * wb / z]);
}

#[test]
fn sentences_without_a_known_word_are_errors_or_listed() {
    let enc = encoder(|b| b);
    let sents: Vec<&str> = (0..5000)
        .map(|i| if i == 4321 { "123 !" } else { "hund" })
        .collect();
    let e = enc.encode(Side::Source, &sents).unwrap_err().to_string();
    assert!(
        e.contains("source sentence 4321 has no word in the source vocabulary")
            && e.contains("123 !"),
        "{e}"
    );
    let enc = encoder(|b| b.no_known_word(NoKnownWord::Zero));
    let (m, cov) = enc
        .encode_with_coverage(Side::Source, &["hund", "???", "x y"])
        .unwrap();
    assert_eq!(cov.no_known_word, vec![1, 2]);
    assert_eq!(m.row(1), &[0.0; 3]);
}

#[test]
fn vocabularies_of_different_dimensions_are_rejected() {
    let (de, _) = vocab();
    let en = wv(&["dog"], &[&[1.0, 0.0]]);
    let e = BowEncoder::builder(de, en).build().unwrap_err().to_string();
    assert!(e.contains("dimension 3 but the target ones 2"), "{e}");
}

#[test]
fn errors_past_the_first_batch_name_the_position_among_all_sentences() {
    let enc = encoder(|b| b);
    let mut sentences = vec!["der hund"; 5000];
    sentences[4500] = "unbekannt";
    let err = enc
        .encode_with_progress(Side::Source, &sentences, &mut |_| {})
        .unwrap_err();
    assert!(
        matches!(err, Error::NoKnownWord { index: 4500, .. }),
        "{err:?}"
    );
}

/// A tokenizer that cuts each space-separated word into pieces of two characters, the first
/// marked with `▁` as sentencepiece marks word starts.
struct Pairs;

impl bitext_tokenize::Tokenizer for Pairs {
    fn encode(&self, text: &str) -> bitext_tokenize::Result<bitext_tokenize::Encoding> {
        let mut pieces = Vec::new();
        for w in text.split_whitespace() {
            let chars: Vec<char> = w.chars().collect();
            for (i, c) in chars.chunks(2).enumerate() {
                let p: String = c.iter().collect();
                pieces.push(if i == 0 { format!("▁{p}") } else { p });
            }
        }
        Ok(bitext_tokenize::Encoding {
            ids: vec![0; pieces.len()],
            pieces,
        })
    }

    fn decode(&self, _: &[u32]) -> bitext_tokenize::Result<String> {
        Ok(String::new())
    }

    fn vocab_size(&self) -> usize {
        1
    }

    fn token_to_id(&self, _: &str) -> Option<u32> {
        None
    }
}

#[test]
fn pieces_of_a_tokenizer_are_looked_up_after_unescaping() {
    let pieces = wv(
        &["▁Hu", "nd", "▁&", "▁Ka"],
        &[
            &[1.0, 0.0, 0.0],
            &[0.0, 1.0, 0.0],
            &[0.0, 0.0, 1.0],
            &[2.0, 0.0, 0.0],
        ],
    );
    let segment = Segment::Pieces {
        tokenizer: std::sync::Arc::new(Pairs),
        unescape_html: true,
    };
    let enc = BowEncoder::builder_shared(pieces)
        .segment(segment.clone())
        .normalize(false)
        .build()
        .unwrap();
    // "Hund &amp; Katze" → ▁Hu nd ▁& ▁Ka tz e: four known, `tz` and `e` unknown; case kept.
    let (e, cov) = enc
        .encode_with_coverage(Side::Target, &["Hund &amp; Katze"])
        .unwrap();
    assert_eq!((cov.tokens, cov.known), (6, 4));
    assert_close(e.row(0), &[0.75, 0.25, 0.25]);
    // TF-IDF over pieces: `▁Hu` in both reference sentences weighs 1, `nd` (one) more.
    let tfidf = BowEncoder::builder_shared(enc.vectors(Side::Source).clone())
        .segment(segment)
        .normalize(false)
        .tfidf(&["Hund", "Hu"], &["Hund", "Hu"])
        .build()
        .unwrap();
    let e = tfidf.encode(Side::Source, &["Hund"]).unwrap();
    let w = (3.0f64 / 2.0).ln() + 1.0;
    let want = [(1.0 / (1.0 + w)) as f32, (w / (1.0 + w)) as f32, 0.0];
    assert!(close(e.row(0), &want), "{:?} vs {want:?}", e.row(0));
}
