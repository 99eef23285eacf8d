//! Tests of recipe expansion against a small command tree.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Arg, ArgAction, Command};

use super::expand;

fn cli() -> Command {
    Command::new("bitext").subcommand(
        Command::new("train").subcommand(
            Command::new("siamese")
                .arg(
                    Arg::new("tsv")
                        .long("tsv")
                        .value_parser(clap::value_parser!(PathBuf)),
                )
                .arg(
                    Arg::new("src")
                        .long("src-text")
                        .alias("src")
                        .value_parser(clap::value_parser!(PathBuf))
                        .conflicts_with("tsv"),
                )
                .arg(
                    Arg::new("epochs")
                        .long("epochs")
                        .value_parser(clap::value_parser!(usize)),
                )
                .arg(
                    Arg::new("preset")
                        .long("preset")
                        .value_parser(["paper", "small"]),
                )
                .arg(Arg::new("bag").long("bag").action(ArgAction::SetTrue))
                .arg(
                    Arg::new("hidden")
                        .long("hidden")
                        .value_delimiter(',')
                        .value_parser(clap::value_parser!(usize)),
                )
                .arg(
                    Arg::new("mono")
                        .long("mono")
                        .action(ArgAction::Append)
                        .value_parser(clap::value_parser!(PathBuf)),
                )
                .arg(
                    Arg::new("output")
                        .long("output")
                        .short('o')
                        .required(true)
                        .value_parser(clap::value_parser!(PathBuf)),
                ),
        ),
    )
}

fn args(s: &str) -> Vec<OsString> {
    s.split_whitespace().map(OsString::from).collect()
}

fn strings(v: &[OsString]) -> Vec<String> {
    v.iter().map(|s| s.to_string_lossy().into_owned()).collect()
}

fn recipe(json: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.json");
    std::fs::write(&p, json).unwrap();
    (dir, p)
}

fn run(json: &str, line: &str) -> anyhow::Result<(Vec<String>, PathBuf)> {
    let (dir, p) = recipe(json);
    let line = line.replace("R", &p.display().to_string());
    let out = expand(&cli(), args(&line))?;
    let base = dir.path().to_path_buf();
    Ok((strings(&out), base))
}

#[test]
fn no_recipe_leaves_the_command_line_alone() {
    let a = args("bitext train siamese --epochs 3 -o m");
    assert_eq!(expand(&cli(), a.clone()).unwrap(), a);
}

#[test]
fn sections_flags_and_values_become_tokens_before_the_command_line() {
    let (out, base) = run(
        r#"{"command": "train siamese", "about": "x",
            "network": {"preset": "small", "bag": true, "hidden": [512, 256]},
            "schedule": {"epochs": 50},
            "data": {"tsv": "pairs.tsv", "mono": ["a.txt", "/abs/b.txt"]}}"#,
        "bitext train siamese --recipe R -o m",
    )
    .unwrap();
    let b = |f: &str| base.join(f);
    assert_eq!(out[..3], ["bitext", "train", "siamese"]);
    assert_eq!(out[out.len() - 2..], ["-o", "m"]);
    let m = cli().try_get_matches_from(&out).unwrap();
    let m = m.subcommand_matches("train").unwrap();
    let m = m.subcommand_matches("siamese").unwrap();
    assert_eq!(m.get_one::<String>("preset").unwrap(), "small");
    assert!(m.get_flag("bag"));
    let hidden: Vec<usize> = m.get_many("hidden").unwrap().copied().collect();
    assert_eq!(hidden, [512, 256]);
    assert_eq!(m.get_one::<usize>("epochs"), Some(&50));
    assert_eq!(m.get_one::<PathBuf>("tsv"), Some(&b("pairs.tsv")));
    let mono: Vec<&PathBuf> = m.get_many("mono").unwrap().collect();
    assert_eq!(mono, [&b("a.txt"), &PathBuf::from("/abs/b.txt")]);
}

#[test]
fn an_inline_json_spec_in_a_path_flag_is_not_made_a_path() {
    let (out, base) = run(
        r#"{"data": {"tsv": "{\"type\": \"onnx\", \"model\": \"m.onnx\"}", "mono": ["a.txt"]}}"#,
        "bitext train siamese --recipe R -o m",
    )
    .unwrap();
    let m = cli().try_get_matches_from(&out).unwrap();
    let m = m.subcommand_matches("train").unwrap();
    let m = m.subcommand_matches("siamese").unwrap();
    assert_eq!(
        m.get_one::<PathBuf>("tsv"),
        Some(&PathBuf::from(r#"{"type": "onnx", "model": "m.onnx"}"#))
    );
    let mono: Vec<&PathBuf> = m.get_many("mono").unwrap().collect();
    assert_eq!(mono, [&base.join("a.txt")]);
}

#[test]
fn the_command_line_wins_over_the_recipe_and_its_conflicts() {
    let (out, _) = run(
        r#"{"epochs": 50, "tsv": "p.tsv", "bag": false}"#,
        "bitext train siamese --recipe=R --epochs=2 --src x -o m",
    )
    .unwrap();
    assert_eq!(
        out,
        [
            "bitext",
            "train",
            "siamese",
            "--epochs=2",
            "--src",
            "x",
            "-o",
            "m"
        ]
    );
}

#[test]
fn the_recipe_names_the_command() {
    let (out, _) = run(
        r#"{"command": "train siamese", "epochs": 1}"#,
        "bitext --recipe R -o m",
    )
    .unwrap();
    assert_eq!(
        out,
        ["bitext", "train", "siamese", "--epochs", "1", "-o", "m"]
    );
    let (out, _) = run(
        r#"{"command": "train siamese", "epochs": 1}"#,
        "bitext train --recipe R",
    )
    .unwrap();
    assert_eq!(out, ["bitext", "train", "siamese", "--epochs", "1"]);
}

#[test]
fn environment_variables_expand() {
    let home = std::env::var("HOME").unwrap_or_default();
    if home.is_empty() || !home.starts_with('/') {
        return;
    }
    let (out, _) = run(
        r#"{"tsv": "${HOME}/p.tsv"}"#,
        "bitext train siamese --recipe R",
    )
    .unwrap();
    assert_eq!(out[4], format!("{home}/p.tsv"));
    let e = run(
        r#"{"tsv": "${BITEXT_NO_SUCH_VARIABLE_SET}/p"}"#,
        "bitext train siamese --recipe R",
    )
    .unwrap_err();
    assert!(
        format!("{e:#}").contains("BITEXT_NO_SUCH_VARIABLE_SET is not set"),
        "{e:#}"
    );
}

#[test]
fn bad_recipes_are_named_with_the_reason() {
    let cases = [
        (
            r#"{"epoch": 3}"#,
            "`epoch` is not a flag of `bitext train siamese`",
        ),
        (
            r#"{"network": {"presets": "x"}}"#,
            "`presets` (in \"network\") is not a flag",
        ),
        (r#"{"preset": "huge"}"#, "invalid value 'huge'"),
        (r#"{"epochs": "many"}"#, "invalid value 'many'"),
        (r#"{"bag": 1}"#, "is a switch"),
        (r#"{"tsv": "a", "src-text": "b"}"#, "cannot be used with"),
        (
            r#"{"command": "train aligner"}"#,
            "is for `bitext train aligner`",
        ),
        (r#"{"a": {"b": {"c": 1}}}"#, "sections do not nest"),
        ("[1, 2]", "not a JSON object"),
        ("{\"epochs\": ", "not valid JSON"),
        (r#"{"help": true}"#, "`help` is not a flag"),
    ];
    for (json, want) in cases {
        let e = run(json, "bitext train siamese --recipe R").unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("r.json"), "{json}: {msg}");
        assert!(msg.contains(want), "{json}: {msg}");
    }
    let e = expand(
        &cli(),
        args("bitext train siamese --recipe /no/such/recipe.json"),
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("/no/such/recipe.json"), "{e:#}");
    let e = expand(&cli(), args("bitext train siamese --recipe")).unwrap_err();
    assert!(format!("{e:#}").contains("needs a file"), "{e:#}");
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let (out, _) = run("\u{feff}{\"epochs\": 4}", "bitext train siamese --recipe R").unwrap();
    assert_eq!(out, ["bitext", "train", "siamese", "--epochs", "4"]);
}

#[test]
fn two_recipes_are_refused() {
    let e = expand(&cli(), args("bitext train siamese --recipe a --recipe b")).unwrap_err();
    assert!(format!("{e:#}").contains("twice"), "{e:#}");
}
