//! The reference kNN passes the suite it is the oracle of: with itself as the oracle the
//! comparison is trivial, but its input checks, id continuity, refusal to save, progress and
//! thread safety are checked like any backend's.

use bitext_testkit::BruteForce;
use bitext_testkit::knn::Expect;

bitext_testkit::knn_index_suite!(
    brute_force,
    |data, metric| Box::new(BruteForce::over(data.view(), metric).unwrap()),
    Expect::exact().without_save()
);
