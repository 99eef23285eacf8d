//! Vocabulary files (`bitext_tokenize::vocab::file`).
#![no_main]

use bitext_core::io::LineReader;
use bitext_tokenize::Vocab;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = Vocab::read_from(LineReader::new("fuzz.vocab", data)) {
        let ids = v.encode(&["a", "b", "<unk>"]);
        let _ = v.decode(&ids);
    }
});
