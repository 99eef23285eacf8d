//! BUCC sentence files (`id<TAB>sentence`) and gold files (`src-id<TAB>tgt-id`), and the id
//! checks between them.
#![no_main]

use bitext_core::io::LineReader;
use bitext_core::io::bucc::{parse_bucc_sentences, read_bucc_gold};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let sentences = parse_bucc_sentences(LineReader::new("fuzz.txt", data));
    let gold = bitext_fuzz::with_file("gold", data, |p| read_bucc_gold(p));
    if let (Ok(s), Ok(g)) = (sentences, gold) {
        let _ = g.check_ids(&s, &s);
        let _ = g.to_indices(&s, &s);
    }
});
