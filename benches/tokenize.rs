//! Tokenization speed: the word tokenizer, vocabulary counting and word-level encoding on a
//! generated corpus of German/English-like Moses-style sentences (seeded, built outside the
//! timed closures). Throughput is in tokens per second.

use std::hint::black_box;

use bitext::core::Rng;
use bitext::tokenize::{
    SequenceConfig, TokenCounter, Tokenizer, VocabBuilder, WordLevel, WordTokenizer,
    set_parallelism,
};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const WORDS: &[&str] = &[
    "der",
    "die",
    "das",
    "und",
    "Hund",
    "Katze",
    "Parlament",
    "Wirtschaft",
    "wuchs",
    "Prozent",
    "schläft",
    "Straße",
    "über",
    "Fußball-EM",
    "the",
    "of",
    "and",
    "dog",
    "Parliament",
    "growth",
    "economy",
    "don't",
    "it",
    "'s",
    "l'homme",
    "Größe",
    "Zürich",
    "Ærø",
    "naïve",
    "café",
    "Quartal",
    "Regierung",
    "government",
    "European",
    "Kommission",
    "z.B.",
    "Mr.",
    "U.S.",
];
const PUNCT: &[&str] = &[
    ",", ".", "&quot;", "&apos;", "(", ")", ":", "-", "&amp;", "?", "%",
];
const NUMBERS: &[&str] = &["3.5", "1,000", "2019", "0,5", "13.", "-5", "1.000.000"];

/// `n` sentences of 5–40 tokens: mostly words, some punctuation, entities and numbers.
fn corpus(n: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = 5 + rng.below(36);
            let mut s = String::new();
            for i in 0..len {
                if i > 0 {
                    s.push(' ');
                }
                let r = rng.next_f64();
                let pool = if r < 0.8 {
                    WORDS
                } else if r < 0.95 {
                    PUNCT
                } else {
                    NUMBERS
                };
                s.push_str(rng.choose(pool).copied().unwrap_or("x"));
            }
            s.push_str(" .");
            s
        })
        .collect()
}

fn bench_tokenize(c: &mut Criterion) {
    let n = 20_000;
    let texts = corpus(n, 7);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let words = WordTokenizer::default();
    let tokens: u64 = texts.iter().map(|t| words.count(t) as u64).sum();
    let bytes: usize = texts.iter().map(String::len).sum();
    eprintln!("corpus: {n} sentences, {tokens} tokens, {bytes} bytes");

    let mut g = c.benchmark_group("tokenize");
    g.throughput(Throughput::Elements(tokens));
    g.sample_size(20);
    for lowercase in [false, true] {
        let words = WordTokenizer::builder().lowercase(lowercase).build();
        g.bench_function(
            BenchmarkId::new(
                "word/for_each_token",
                format!("n={n}/lowercase={lowercase}"),
            ),
            |b| {
                b.iter(|| {
                    let mut k = 0usize;
                    for t in &refs {
                        words.for_each_token(t, |tok| k += tok.len());
                    }
                    black_box(k)
                });
            },
        );
    }
    g.bench_function(
        BenchmarkId::new("word/tokenize_vec", format!("n={n}")),
        |b| {
            b.iter(|| {
                let mut k = 0usize;
                for t in &refs {
                    k += words.tokenize(t).len();
                }
                black_box(k)
            });
        },
    );

    let counts = TokenCounter::from_texts(&words, &refs);
    let vocab = VocabBuilder::new()
        .lang_tags(["de", "en"])
        .build(&counts)
        .unwrap();
    let seq = SequenceConfig {
        add_bos: true,
        add_eos: true,
        max_len: Some(80),
    };
    let tok = WordLevel::new(words, vocab, seq).unwrap();
    for (par, name) in [(false, "1-thread"), (true, "all-cores")] {
        g.bench_function(
            BenchmarkId::new("count/from_texts", format!("n={n}/{name}")),
            |b| {
                set_parallelism(par);
                b.iter(|| black_box(TokenCounter::from_texts(&words, &refs).len()));
            },
        );
        g.bench_function(
            BenchmarkId::new("word_level/encode_batch_ids", format!("n={n}/{name}")),
            |b| {
                set_parallelism(par);
                b.iter(|| black_box(tok.encode_batch_ids(&refs).unwrap().len()));
            },
        );
    }
    set_parallelism(true);
    g.finish();
}

criterion_group!(benches, bench_tokenize);
criterion_main!(benches);
