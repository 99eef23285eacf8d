//! `--recipe FILE`: a command's flags from JSON give the same output as the same flags on the
//! command line; flags on the command line win; relative paths are the recipe's; bad recipes
//! fail before any work, naming the recipe and the key.

use bitext_core::{Embeddings, Rng};

mod common;
use common::{bitext, cli, fail, succeed, write, write_raw};

const D: usize = 8;

fn data(dir: &std::path::Path) {
    let mut rng = Rng::seed(4);
    let mut row = || (0..D).map(|_| rng.normal() as f32).collect::<Vec<_>>();
    let x: Vec<Vec<f32>> = (0..12).map(|_| row()).collect();
    let y: Vec<Vec<f32>> = x
        .iter()
        .rev()
        .map(|r| r.iter().map(|v| v + 0.1).collect())
        .collect();
    write_raw(dir, "x.f32", &Embeddings::from_rows(x, D).unwrap());
    write_raw(dir, "y.f32", &Embeddings::from_rows(y, D).unwrap());
}

#[test]
fn a_recipe_mines_what_its_flags_mine() {
    let d = tempfile::tempdir().unwrap();
    let data_dir = d.path().join("data");
    std::fs::create_dir(&data_dir).unwrap();
    data(&data_dir);
    // The recipe sits beside the data: its relative paths are taken from its directory.
    let recipe = write(
        &data_dir,
        "mine.json",
        r#"{"command": "mine", "about": "test",
            "input": {"src-embeddings": "x.f32", "tgt-embeddings": "y.f32", "dim": 8},
            "search": {"neighborhood": 2, "margin": "ratio", "retrieval": "intersect"},
            "quiet": true}"#,
    );
    let plain = |k: &str| {
        succeed(&mut cli![
            "mine",
            "-q",
            "--dim",
            "8",
            "--src-embeddings",
            data_dir.join("x.f32"),
            "--tgt-embeddings",
            data_dir.join("y.f32"),
            "-k",
            k,
            "--retrieval",
            "intersect",
            "-o",
            "-"
        ])
        .0
    };
    let (out, _) = succeed(&mut cli!["--recipe", &recipe, "-o", "-"]);
    assert_eq!(out, plain("2"));
    assert_eq!(out.lines().count(), 12, "{out}");
    // The command line wins (`-k` is `--neighborhood`), and the command may be named too.
    let (out3, _) = succeed(&mut cli!["mine", "--recipe", &recipe, "-k", "3", "-o", "-"]);
    assert_eq!(out3, plain("3"));
    assert_ne!(out3, out);
}

#[test]
fn bad_recipes_fail_before_any_work_naming_the_recipe() {
    let d = tempfile::tempdir().unwrap();
    data(d.path());
    let out = d.path().join("pairs.tsv");
    for (json, want) in [
        (
            r#"{"command": "mine", "neighbourhood": 2}"#,
            "`neighbourhood` is not a flag of `bitext mine`",
        ),
        (
            r#"{"command": "mine", "margin": "huge"}"#,
            "invalid value 'huge'",
        ),
        (
            r#"{"command": "train siamese", "epochs": 1}"#,
            "is for `bitext train siamese`, not `bitext mine`",
        ),
        ("{", "not valid JSON"),
    ] {
        let r = write(d.path(), "r.json", json);
        let err = fail(&mut cli!["mine", "--recipe", &r, "-o", &out], want);
        assert!(err.contains("r.json"), "{err}");
        assert!(!out.exists());
    }
    let err = fail(
        &mut cli!["mine", "--recipe", d.path().join("none.json")],
        "none.json",
    );
    assert!(err.contains("reading the recipe"), "{err}");
}

#[test]
fn every_committed_recipe_parses_as_its_command() {
    // `--help` after the recipe: the recipe is expanded and checked, then clap prints help.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recipes");
    let mut n = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let out = bitext()
                .env("BITEXT_DATA", "/data")
                .env("USEM_ONNX", "/usem.onnx")
                .env("BITEXT_DIALOGUE", "/dialogue")
                .env("BITEXT_MULTILINGUAL", "/multilingual")
                .env("BITEXT_EVERYDAY", "/everyday")
                .arg("--recipe")
                .arg(&path)
                .arg("--help")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{}: {err}", path.display());
            n += 1;
        }
    }
    assert!(n >= 5, "{n} recipes in {}", root.display());
}
