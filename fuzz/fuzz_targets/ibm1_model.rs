//! IBM Model 1 directories: a valid model whose header, vocabularies or tables are replaced by
//! the input; a model that loads must score.
#![no_main]

use std::sync::OnceLock;

use bitext_lexical::{Ibm1, Ibm1Config, Segmenter};
use libfuzzer_sys::fuzz_target;

const FILES: [&str; 5] = [
    "ibm1.json",
    "src.vocab",
    "tgt.vocab",
    "src-tgt.ttable",
    "tgt-src.ttable",
];

fn model() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let m = Ibm1::train(
            &Ibm1Config::default(),
            Segmenter::default(),
            &["das Haus", "das Buch", "ein Buch"],
            &["the house", "the book", "a book"],
            &mut |_| {},
        )
        .unwrap();
        m.save(d.path()).unwrap();
        d
    })
    .path()
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let dir = model();
    let file = dir.join(FILES[usize::from(which) % FILES.len()]);
    let good = std::fs::read(&file).unwrap();
    std::fs::write(&file, rest).unwrap();
    if let Ok(m) = Ibm1::load(dir) {
        let s = m.score("das Haus", "the house").unwrap();
        assert!(s.is_finite() && s <= 0.0);
    }
    std::fs::write(&file, good).unwrap();
});
