//! Sentencepiece `.model` files (serialized `ModelProto`): bitext's proto reader, then the
//! sentencepiece library; a model that loads must encode and decode.
#![no_main]

use bitext_tokenize::{Sentencepiece, Tokenizer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = Sentencepiece::from_bytes(data.to_vec())
        && let Ok(e) = m.encode("Hallo Welt, hello world!")
    {
        let _ = m.decode(&e.ids);
    }
});
