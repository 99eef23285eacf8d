//! The shared [`LanguageIdentifier`](bitext_lid::LanguageIdentifier) conformance suite
//! (`bitext_testkit::lid_suite!`) for [`FastText`](bitext_lid::FastText): the tiny model of
//! `common` with each output layer, dense (`.bin`) and product-quantized (`.ftz`).

mod common;

use bitext_testkit::fasttext::Loss;
use bitext_testkit::lid::Expect;
use bitext_testkit::lid_suite;
use common::{SENTENCES, tiny_bin, tiny_ftz};

const EXPECT: Expect = Expect::identifies(SENTENCES);

lid_suite!(softmax_bin, tiny_bin(Loss::Softmax), EXPECT);
lid_suite!(
    hierarchical_bin,
    tiny_bin(Loss::HierarchicalSoftmax),
    EXPECT
);
lid_suite!(one_vs_all_bin, tiny_bin(Loss::OneVsAll), EXPECT);
lid_suite!(
    negative_sampling_bin,
    tiny_bin(Loss::NegativeSampling),
    EXPECT
);
lid_suite!(softmax_ftz, tiny_ftz(Loss::Softmax, 2, false), EXPECT);
lid_suite!(
    hierarchical_ftz_qout,
    tiny_ftz(Loss::HierarchicalSoftmax, 1, true),
    EXPECT
);
