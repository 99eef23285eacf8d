//! EMD reference-case files (one JSON problem a line), checked into problems and solved.
#![no_main]

use bitext_core::io::LineReader;
use bitext_transport::cases::parse_cases;
use bitext_transport::{NetworkSimplex, TransportSolver};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(cases) = parse_cases(LineReader::new("fuzz.jsonl", data)) else {
        return;
    };
    let mut solver = NetworkSimplex::default();
    for (_, c) in cases
        .iter()
        .filter(|(_, c)| c.n.saturating_mul(c.m) <= 4096)
    {
        if let Ok(p) = c.problem()
            && let Ok(t) = solver.solve(&p)
        {
            assert!(t.cost.is_finite());
        }
    }
});
