//! Tests of filtering: budgets worked by hand, budget properties, and TSV filtering end to end.

use super::*;
use bitext_similarity::Result as SimResult;
use proptest::prelude::*;

/// Scores line `i` by a fixed list.
struct Fixed(Vec<f64>);

impl PairScorer for Fixed {
    fn sizes(&self) -> (usize, usize) {
        (self.0.len(), self.0.len())
    }
    fn score_batch(&self, pairs: &[(usize, usize)]) -> SimResult<Vec<f64>> {
        Ok(pairs.iter().map(|&(i, _)| self.0[i]).collect())
    }
}

#[test]
fn hand_worked_budgets() {
    let scores = [0.2, 0.9, 0.5, 0.7, 0.5];
    let words = [1, 3, 2, 4, 1];
    let lines = select(&scores, None, Some(Budget::Lines { lines: 2 }), None).unwrap();
    assert_eq!(lines.kept, vec![1, 3]);
    // By score: 1 (3 words), 3 (4 → 7), 2 (2 → 9), 4 (1 → 10), 0 (1 → 11).
    let w = |limit| {
        let b = Budget::Words {
            words: limit,
            side: WordSide::Target,
        };
        select(&scores, Some(&words), Some(b), None).unwrap()
    };
    assert_eq!(w(9).kept, vec![1, 3, 2]);
    assert_eq!(w(9).words, 9);
    // 8 words: line 2 would make 9, so the selection stops there (line 4 is not taken out of
    // order).
    assert_eq!(w(8).kept, vec![1, 3]);
    assert_eq!(w(2).kept, Vec::<usize>::new());
    let t = select(&scores, None, None, Some(Threshold::AtLeast { value: 0.5 })).unwrap();
    assert_eq!(t.kept, vec![1, 3, 2, 4]);
    assert_eq!(t.min_score, Some(0.5));
    assert!(select(&[f64::NAN], None, None, None).is_err());
    let b = Budget::Words {
        words: 3,
        side: WordSide::Both,
    };
    assert!(select(&scores, None, Some(b), None).is_err());
    assert!(select(&scores, Some(&[1]), None, None).is_err());
}

proptest! {
    #[test]
    fn budget_keeps_a_best_prefix_and_never_overruns(
        items in proptest::collection::vec((0u8..20, 0usize..6), 0..40), limit in 0usize..60,
    ) {
        let scores: Vec<f64> = items.iter().map(|x| f64::from(x.0)).collect();
        let words: Vec<usize> = items.iter().map(|x| x.1).collect();
        let b = Budget::Words { words: limit, side: WordSide::Target };
        let sel = select(&scores, Some(&words), Some(b), None).unwrap();
        prop_assert!(sel.words <= limit);
        prop_assert_eq!(sel.words, sel.kept.iter().map(|&i| words[i]).sum::<usize>());
        let kept: std::collections::HashSet<_> = sel.kept.iter().copied().collect();
        let min_kept = sel.kept.iter().map(|&i| scores[i]).fold(f64::INFINITY, f64::min);
        for (i, &s) in scores.iter().enumerate() {
            if !kept.contains(&i) {
                prop_assert!(s <= min_kept);
            }
        }
        // Maximal: if something was left out, the best line left out would overrun.
        let mut left: Vec<usize> = (0..scores.len()).filter(|i| !kept.contains(i)).collect();
        left.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        if let Some(&next) = left.first() {
            prop_assert!(sel.words + words[next] > limit);
        }
    }
}

#[test]
fn tsv_filter_writes_kept_lines_verbatim_in_input_order() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in.tsv");
    std::fs::write(
        &input,
        "u1\tein Haus\ta house\nu2\tdie Katze schläft\tthe cat sleeps\nu3\tja\tno way at all\n",
    )
    .unwrap();
    let out = d.path().join("out.tsv");
    let scorer = Fixed(vec![0.5, 0.75, 0.125]);
    let r = TsvFilter::new(1, 2)
        .budget(Budget::Words {
            words: 5,
            side: WordSide::Target,
        })
        .run(&input, &out, &scorer)
        .unwrap();
    assert_eq!(
        (r.lines, r.kept, r.words, r.min_score),
        (3, 2, 5, Some(0.5))
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "u1\tein Haus\ta house\t0.5\nu2\tdie Katze schläft\tthe cat sleeps\t0.75\n"
    );
    // Without a budget: every line, scored, bicleaner-style.
    let r = TsvFilter::new(1, 2)
        .decimals(3)
        .run(&input, &out, &scorer)
        .unwrap();
    assert_eq!(r.kept, 3);
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .ends_with("no way at all\t0.125\n")
    );
    // Line count and scorer disagree; a malformed line is named.
    let e = TsvFilter::new(1, 2)
        .run(&input, &out, &Fixed(vec![0.1]))
        .unwrap_err();
    assert!(
        e.to_string().contains("has 3 lines but the scorer holds 1"),
        "{e}"
    );
    std::fs::write(&input, "u1\tein Haus\ta house\nu2\tnur eins\n").unwrap();
    let e = TsvFilter::new(1, 2).run(&input, &out, &scorer).unwrap_err();
    assert!(e.to_string().contains("in.tsv:2:"), "{e}");
}
