//! Plans: reused when nothing changed (no second pass over the inputs), remade with new step
//! ids when an input changes; bad inputs are refused naming the file and the global row.

use std::path::Path;

use bitext_core::io::raw::{RawDtype, write_raw};
use bitext_core::{Embeddings, Rng};
use bitext_mine::{MineSpec, Miner};
use bitext_shard::{Format, Input, Plan, RunOptions, mined_pairs, run_all};
use bitext_similarity::{MarginFunction, MarginSpec};

fn write(path: &Path, n: usize, seed: u64) {
    let mut rng = Rng::seed(seed);
    let e = Embeddings::new((0..n * 8).map(|_| rng.normal() as f32).collect(), 8).unwrap();
    write_raw(path, e.view(), RawDtype::F32).unwrap();
}

fn input(path: &Path) -> Input {
    Input {
        path: path.to_path_buf(),
        format: Format::RawF32,
        dim: Some(8),
    }
}

fn spec() -> MineSpec {
    MineSpec::new(Miner::new(MarginSpec::new(MarginFunction::Ratio, 3)))
}

#[test]
fn plans_are_reused_until_an_input_changes() {
    let d = tempfile::tempdir().unwrap();
    let (x, y, w) = (d.path().join("x"), d.path().join("y"), d.path().join("w"));
    write(&x, 50, 1);
    write(&y, 40, 2);
    let p1 = Plan::make(&w, &input(&x), &input(&y), &spec(), 3).unwrap();
    let written = std::fs::metadata(w.join("plan.json"))
        .unwrap()
        .modified()
        .unwrap();
    let p2 = Plan::make(&w, &input(&x), &input(&y), &spec(), 3).unwrap();
    assert_eq!(p1, p2);
    let again = std::fs::metadata(w.join("plan.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(written, again, "a reused plan is not rewritten");
    run_all(&p1, &w, &RunOptions::default(), &mut |_, _, _, _| {}).unwrap();
    let pairs = mined_pairs(&p1, &w).unwrap();
    assert!(!pairs.is_empty());
    // New content (and size): a new plan, and every step id changes.
    write(&y, 41, 3);
    let p3 = Plan::make(&w, &input(&x), &input(&y), &spec(), 3).unwrap();
    assert_ne!(p3.id, p1.id);
    assert!(p3.steps.iter().zip(&p1.steps).all(|(a, b)| a.id != b.id));
    assert_eq!(p3.layout(&w, bitext_shard::Side::Trg).unwrap().rows, 41);
}

#[test]
fn bad_inputs_name_the_file_and_the_global_row() {
    let d = tempfile::tempdir().unwrap();
    let (x, y, w) = (d.path().join("x"), d.path().join("y"), d.path().join("w"));
    write(&x, 30, 1);
    let mut rng = Rng::seed(4);
    let mut e = Embeddings::new((0..30 * 8).map(|_| rng.normal() as f32).collect(), 8).unwrap();
    e.row_mut(23).fill(0.0);
    write_raw(&y, e.view(), RawDtype::F32).unwrap();
    let err = Plan::make(&w, &input(&x), &input(&y), &spec(), 4)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("row 23") && err.contains(&*y.to_string_lossy()),
        "{err}"
    );
    std::fs::write(&y, [0u8; 30]).unwrap();
    let err = Plan::make(&w, &input(&x), &input(&y), &spec(), 2)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a multiple"), "{err}");
    assert!(!w.join("plan.json").exists());
}
