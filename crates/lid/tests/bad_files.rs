//! Bad model files are errors that name the file, the byte offset and the reason, never
//! panics: wrong signatures, truncation anywhere, absurd sizes, NaN, inconsistent parts, and
//! seeded random corruption.

mod common;

use bitext_core::Rng;
use bitext_lid::{FastText, LanguageIdentifier};
use bitext_testkit::fasttext::{Loss, Storage, offsets};
use common::tiny;

const NAME: &str = "bad.ftz";

fn error(bytes: &[u8]) -> String {
    let e = FastText::from_bytes(NAME, bytes).expect_err("a bad file was read");
    let msg = e.to_string();
    assert!(msg.starts_with(NAME), "{msg}");
    msg
}

fn patch(bytes: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + with.len()].copy_from_slice(with);
    b
}

fn i32_at(bytes: &[u8], at: usize, v: i32) -> Vec<u8> {
    patch(bytes, at, &v.to_le_bytes())
}

fn bin() -> Vec<u8> {
    tiny(Loss::HierarchicalSoftmax).to_bin()
}

fn ftz() -> Vec<u8> {
    let m = tiny(Loss::Softmax);
    let input = Storage::Quantized {
        dsub: 2,
        norms: Some(vec![1.0; 10]),
    };
    let output = Storage::Quantized {
        dsub: 2,
        norms: None,
    };
    m.write(&input, &output).unwrap()
}

/// Where the tiny `.bin`'s parts start: (input flag, input matrix, output flag, output matrix).
fn bin_layout(bytes: &[u8]) -> (usize, usize, usize, usize) {
    let output = bytes.len() - (16 + 3 * 3 * 4);
    let input = output - 1 - (16 + 10 * 3 * 4);
    (input - 1, input, output - 1, output)
}

#[test]
fn wrong_signature_or_settings() {
    let b = bin();
    let e = error(&i32_at(&b, offsets::MAGIC, 1234));
    assert!(
        e.contains("byte offset 0") && e.contains("not a fastText model (magic 1234"),
        "{e}"
    );
    for v in [13, 10, -1] {
        let e = error(&i32_at(&b, offsets::VERSION, v));
        assert!(e.contains(&format!("format version {v}")), "{e}");
    }
    let e = error(&i32_at(&b, offsets::MODEL, 1));
    assert!(
        e.contains("cbow") && e.contains("not a supervised one"),
        "{e}"
    );
    let e = error(&i32_at(&b, offsets::LOSS, 7));
    assert!(e.contains("unknown loss 7"), "{e}");
    for dim in [0, -3, i32::MAX] {
        let e = error(&i32_at(&b, offsets::DIM, dim));
        assert!(e.contains(&format!("dim is {dim}")), "{e}");
    }
    let e = error(&i32_at(&b, offsets::BUCKET, -5));
    assert!(e.contains("bucket count -5"), "{e}");
    // Character n-grams but no buckets.
    let mut m = tiny(Loss::Softmax);
    (m.minn, m.maxn, m.bucket) = (2, 3, 0);
    assert!(error(&m.to_bin()).contains("bucket count 0"));
}

#[test]
fn truncated_anywhere() {
    for bytes in [bin(), ftz()] {
        for len in 0..bytes.len() {
            error(&bytes[..len]);
        }
        let e = error(&bytes[..bytes.len() - 3]);
        assert!(e.contains("truncated"), "{e}");
    }
    let e = error(&[]);
    assert!(
        e.contains("byte offset 0") && e.contains("truncated"),
        "{e}"
    );
}

#[test]
fn trailing_bytes() {
    let mut b = bin();
    let len = b.len();
    b.extend_from_slice(&[0, 0]);
    let e = error(&b);
    assert!(
        e.contains(&format!("byte offset {len}")) && e.contains("2 bytes after"),
        "{e}"
    );
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    let b = bin();
    let e = error(&i32_at(&b, offsets::DICT_SIZE, i32::MAX));
    assert!(e.contains("dictionary size is 2147483647"), "{e}");
    let e = error(&i32_at(&b, offsets::DICT_SIZE + 4, 20));
    assert!(e.contains("word count is 20"), "{e}");
    // The pruned count (an i64 after the token count).
    let e = error(&patch(
        &b,
        offsets::DICT_SIZE + 20,
        &(1i64 << 40).to_le_bytes(),
    ));
    assert!(e.contains("pruned count"), "{e}");
    let (_, input, _, output) = bin_layout(&b);
    let e = error(&patch(&b, input, &i64::MAX.to_le_bytes()));
    assert!(e.contains("row count"), "{e}");
    let e = error(&patch(&b, input, &(1i64 << 30).to_le_bytes()));
    assert!(e.contains("truncated"), "{e}");
    let e = error(&patch(&b, input + 8, &7i64.to_le_bytes()));
    assert!(e.contains("7 columns"), "{e}");
    let e = error(&patch(&b, output, &2i64.to_le_bytes()));
    assert!(e.contains("2 rows for 3 labels"), "{e}");
}

#[test]
fn nan_and_flags() {
    let b = bin();
    let (flag_in, input, flag_out, _) = bin_layout(&b);
    let at = input + 16 + 8;
    let e = error(&patch(&b, at, &f32::NAN.to_le_bytes()));
    assert!(
        e.contains(&format!("byte offset {at}")) && e.contains("NaN is not finite"),
        "{e}"
    );
    let e = error(&patch(&b, at, &f32::INFINITY.to_le_bytes()));
    assert!(e.contains("inf is not finite"), "{e}");
    let e = error(&patch(&b, flag_in, &[2]));
    assert!(
        e.contains("quantized-input flag is 2, not a boolean"),
        "{e}"
    );
    let e = error(&patch(&b, flag_out, &[7]));
    assert!(e.contains("quantized-output flag is 7"), "{e}");
}

#[test]
fn inconsistent_dictionaries() {
    let b = bin();
    // The first entry, `</s>`, made a label: words must come first.
    let first = offsets::DICT_SIZE + 28;
    let e = error(&patch(&b, first + 5 + 8, &[1]));
    assert!(e.contains("entry 0 is a label"), "{e}");
    let e = error(&patch(&b, first + 5 + 8, &[9]));
    assert!(e.contains("of no known type"), "{e}");
    let mut m = tiny(Loss::Softmax);
    m.labels[1].0 = "__label__\u{e9}n".into();
    let mut bytes = m.to_bin();
    let at = bytes.windows(2).position(|w| w == [0xc3, 0xa9]).unwrap();
    bytes[at] = 0xff;
    assert!(error(&bytes).contains("label 1 is not UTF-8"));
    // A pruned dictionary needs a quantized input, and its rows must exist.
    let mut m = tiny(Loss::Softmax);
    (m.minn, m.maxn, m.bucket) = (2, 3, 100);
    m.pruned = Some(vec![(5, 0)]);
    m.input.extend_from_slice(&[0.5; 3]);
    assert!(error(&m.to_bin()).contains("pruned dictionary with a dense input"));
    let q = Storage::Quantized {
        dsub: 3,
        norms: None,
    };
    FastText::from_bytes(NAME, &m.write(&q, &Storage::Dense).unwrap()).unwrap();
    m.pruned = Some(vec![(5, 0), (6, 4)]);
    let e = error(&m.write(&q, &Storage::Dense).unwrap());
    assert!(e.contains("11 rows, the dictionary needs 15"), "{e}");
    m.pruned = Some(vec![(5, -2)]);
    let e = error(&m.write(&q, &Storage::Dense).unwrap());
    assert!(e.contains("row -2"), "{e}");
}

#[test]
fn inconsistent_quantizers() {
    let b = ftz();
    // After the dictionary (as in the `.bin`): the quantized flag, qnorm, the shape, the code
    // size, 20 codes (10 rows × 2 blocks: 3 columns in sub-vectors of 2), the quantizer.
    let start = bin_layout(&bin()).0;
    let pq = start + 1 + 1 + 16 + 4 + 20;
    let e = error(&i32_at(&b, pq + 8, 0));
    assert!(e.contains("sub-vector size 0"), "{e}");
    let e = error(&i32_at(&b, pq + 4, 3));
    assert!(e.contains("3 sub-quantizers of 2"), "{e}");
    let e = error(&i32_at(&b, pq - 4 - 20, 21));
    assert!(e.contains("21 codes for 10 rows"), "{e}");
}

#[test]
fn random_corruption_never_panics() {
    let clean = [bin(), ftz()];
    let mut rng = Rng::seed(17);
    for round in 0..3000 {
        let mut b = clean[round % 2].clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(b.len());
            b[at] = rng.next_u64() as u8;
        }
        if let Ok(lid) = FastText::from_bytes(NAME, &b) {
            for text in ["der die", "", "Quokka straße"] {
                let g = lid.predict(text, 5);
                assert!(
                    g.iter().all(|g| (0.0..=1.0).contains(&g.probability)),
                    "{g:?}"
                );
            }
        }
    }
}
