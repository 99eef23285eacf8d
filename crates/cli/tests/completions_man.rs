//! The hidden `bitext completions SHELL` and `bitext man [-o DIR]`: scripts that know the
//! subcommands, roff pages that open with `.TH` and use only man(7) requests, one page per
//! visible subcommand, and outputs written whole into the files named.

mod common;
use common::{bitext, fail, succeed};

/// The requests a clap_mangen page may use (man(7) macros and the two of its preamble).
const REQUESTS: [&str; 14] = [
    "ie", "el", "TH", "SH", "SS", "TP", "IP", "PP", "LP", "P", "RS", "RE", "br", "sp",
];

/// Check that `text` parses as a man(7) page of `name`: the optional `\*(Aq` preamble, then
/// `.TH name 1`, then only known requests (text lines aside), with sections NAME and SYNOPSIS.
fn assert_roff(text: &str, name: &str) {
    let mut lines = text
        .lines()
        .skip_while(|l| l.starts_with(".ie \\n(.g") || l.starts_with(".el .ds Aq"));
    let th = lines.next().unwrap_or_default();
    assert!(
        th.starts_with(&format!(".TH {name} 1 ")),
        "{name}: first request is not .TH: {th:?}\n{text}"
    );
    let mut sections = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(request) = line.strip_prefix('.').or_else(|| line.strip_prefix('\'')) else {
            continue;
        };
        let request = request.split_whitespace().next().unwrap_or_default();
        assert!(
            request.is_empty() || REQUESTS.contains(&request),
            "{name}:{}: unknown request {request:?}: {line}",
            i + 1
        );
        if request == "SH" {
            sections.push(line[4..].trim().to_string());
        }
    }
    for want in ["NAME", "SYNOPSIS"] {
        assert!(
            sections.iter().any(|s| s == want),
            "{name}: no {want}: {sections:?}"
        );
    }
}

#[test]
fn bash_completions_know_the_subcommands() {
    let (out, _) = succeed(bitext().args(["completions", "bash"]));
    assert!(out.contains("_bitext()"), "{out}");
    for sub in ["mine", "filter", "align-docs", "tokenize", "train"] {
        assert!(out.contains(sub), "bash completions lack {sub}");
    }
    // Nested subcommands and flags too.
    assert!(out.contains("--src-embeddings") && out.contains("siamese"));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let (out, _) = succeed(bitext().args(["completions", shell]));
        assert!(out.contains("align-docs"), "{shell}: {out}");
    }
    fail(
        bitext().args(["completions", "tcsh"]),
        "invalid value 'tcsh'",
    );
}

#[test]
fn completions_and_man_stay_out_of_help() {
    let (out, _) = succeed(bitext().arg("--help"));
    assert!(
        !out.contains("completions") && !out.contains("\n  man "),
        "{out}"
    );
    // Still documented when asked for by name.
    let (out, _) = succeed(bitext().args(["man", "--help"]));
    assert!(out.contains("Usage: bitext man"), "{out}");
}

#[test]
fn man_prints_the_top_page_as_roff() {
    let (out, _) = succeed(bitext().arg("man"));
    assert_roff(&out, "bitext");
    assert!(out.contains("align\\-docs"), "{out}");
    assert!(
        !out.contains("completions"),
        "hidden commands get no mention"
    );
}

#[test]
fn man_writes_one_page_per_subcommand() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("man1");
    let (out, _) = succeed(bitext().arg("man").arg("-o").arg(&dir));
    assert!(out.is_empty(), "{out}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for want in [
        "bitext.1",
        "bitext-mine.1",
        "bitext-align-docs.1",
        "bitext-eval-bucc.1",
        "bitext-train.1",
        "bitext-train-mlp.1",
        "bitext-tokenize-encode.1",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }
    // Nothing else: no temporary files, no pages of `help` or of the hidden commands.
    for name in &names {
        assert!(
            name.starts_with("bitext") && name.ends_with(".1"),
            "stray file {name}"
        );
        assert!(
            !["help", "man", "completions"]
                .iter()
                .any(|h| name.contains(&format!("-{h}"))),
            "{name}"
        );
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert_roff(&text, name.strip_suffix(".1").unwrap());
    }
    let mine = std::fs::read_to_string(dir.join("bitext-mine.1")).unwrap();
    assert!(mine.contains("\\-\\-src\\-embeddings"), "{mine}");
    // The top page is what `bitext man` prints.
    let (top, _) = succeed(bitext().arg("man"));
    assert_eq!(std::fs::read_to_string(dir.join("bitext.1")).unwrap(), top);
}

#[test]
fn completions_write_a_file() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("bitext.fish");
    let (out, _) = succeed(bitext().args(["completions", "fish", "-o"]).arg(&path));
    assert!(out.is_empty(), "{out}");
    let (want, _) = succeed(bitext().args(["completions", "fish"]));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
    // A missing directory is an error naming the file; nothing is left behind.
    let bad = d.path().join("missing").join("bitext.bash");
    fail(
        bitext().args(["completions", "bash", "-o"]).arg(&bad),
        "bitext.bash",
    );
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
}
