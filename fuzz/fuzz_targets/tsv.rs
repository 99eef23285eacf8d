//! Bicleaner-style TSVs (two columns of any line), mined-pair TSVs and line-parallel text.
#![no_main]

use bitext_core::io::LineReader;
use bitext_core::io::text::{EmptyLines, read_lines};
use bitext_core::io::tsv::{BitextTsvReader, read_mined_pairs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (s, t) = match data.first() {
        Some(b) => ((b % 4) as usize, (b / 4 % 4) as usize),
        None => (0, 1),
    };
    if let Ok(r) = BitextTsvReader::new(LineReader::new("fuzz.tsv", data), s, t) {
        for rec in r.empty_fields(EmptyLines::Keep) {
            if rec.is_err() {
                break;
            }
        }
    }
    bitext_fuzz::with_file("pairs.tsv", data, |p| {
        let _ = read_mined_pairs(p);
        let _ = read_lines(p, EmptyLines::Reject);
    });
});
