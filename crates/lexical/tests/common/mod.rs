//! Helpers shared by this crate's integration tests.

use bitext_lexical::{Ibm1, Ibm1Config, Segmenter};
use bitext_testkit::data::parallel_text;

/// IBM Model 1 with the default configuration, trained on `pairs` of the testkit's parallel
/// text drawn with `seed`.
pub(crate) fn trained_ibm1(pairs: usize, seed: u64) -> Ibm1 {
    let (src, tgt) = parallel_text(pairs, seed);
    Ibm1::train(
        &Ibm1Config::default(),
        Segmenter::default(),
        &src,
        &tgt,
        &mut |_| {},
    )
    .unwrap()
}
