//! Specs given on the command line or in config files: index, scorer, encoder and mining
//! recipes (names or JSON).
#![no_main]

use bitext_encode::EncoderSpec;
use bitext_knn::IndexSpec;
use bitext_mine::{MineSpec, ScorerSpec};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(spec) = s.parse::<IndexSpec>() {
        let _ = spec.check();
    }
    if let Ok(spec) = s.parse::<ScorerSpec>() {
        let _ = spec.to_string().parse::<ScorerSpec>().unwrap();
    }
    let _ = s.parse::<EncoderSpec>();
    if let Ok(m) = serde_json::from_str::<MineSpec>(s) {
        let _ = m.check();
    }
});
