//! Tidy: the CLI's commands share through modules, not through each other. A file of
//! `crates/cli/src/cmd/X.rs` or `cmd/X/…` names no other command's module (`crate::cmd::Y`,
//! or `super::Y` from `cmd/X.rs`); what two commands share lives in `crate::flags` (argument
//! groups), `crate::run` (runners), `crate::build` (specs) or `crate::input`.

use std::path::Path;

use super::code_of;
use crate::project_root;

/// The command a file of `cmd/` belongs to (`cmd/mine.rs` and `cmd/mine/…` are `mine`), and
/// whether it is the command's top file (where `super::` is `cmd`).
fn command_of(rel: &Path) -> Option<(String, bool)> {
    let mut parts = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    let first = parts.next()?;
    let rest: Vec<String> = parts.collect();
    if rest.is_empty() {
        let name = first.strip_suffix(".rs")?;
        (name != "mod").then(|| (name.to_string(), true))
    } else {
        Some((first, false))
    }
}

/// The other commands a line of `command`'s file names.
fn names_other_command(code: &str, command: &str, top: bool, commands: &[String]) -> Vec<String> {
    commands
        .iter()
        .filter(|other| *other != command)
        .filter(|other| {
            let full = format!("crate::cmd::{other}");
            let via_super = format!("super::{other}");
            let named = |p: &str| {
                code.match_indices(p).any(|(at, _)| {
                    let after = &code[at + p.len()..];
                    !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            };
            named(&full) || (top && named(&via_super))
        })
        .cloned()
        .collect()
}

#[test]
fn commands_import_no_other_command() {
    let root = project_root();
    let cmd = root.join("crates/cli/src/cmd");
    let mut commands: Vec<String> = std::fs::read_dir(&cmd)
        .unwrap()
        .flatten()
        .filter_map(|e| command_of(Path::new(&e.file_name())).map(|c| c.0))
        .collect();
    commands.sort();
    commands.dedup();
    assert!(
        commands.len() > 10,
        "found {commands:?} under {}",
        cmd.display()
    );
    let mut files = Vec::new();
    super::rust_files(&cmd, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&cmd).unwrap();
        let Some((command, top)) = command_of(rel) else {
            continue;
        };
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            for other in names_other_command(&code_of(line), &command, top, &commands) {
                bad.push(format!(
                    "crates/cli/src/cmd/{}:{}: the command `{command}` uses the command \
                     `{other}`: move what they share to crate::flags, crate::run or \
                     crate::input",
                    rel.display(),
                    i + 1
                ));
            }
        }
    }
    assert!(bad.is_empty(), "commands:\n{}", bad.join("\n"));
}

#[test]
fn command_detection_reads_paths_and_names() {
    assert_eq!(
        command_of(Path::new("mine.rs")),
        Some(("mine".to_string(), true))
    );
    assert_eq!(
        command_of(Path::new("mine/sharded.rs")),
        Some(("mine".to_string(), false))
    );
    assert_eq!(command_of(Path::new("mod.rs")), None);
    let commands = [
        "mine".to_string(),
        "mine_step".to_string(),
        "score".to_string(),
    ];
    assert_eq!(
        names_other_command("use crate::cmd::score::read;", "mine", true, &commands),
        ["score"]
    );
    assert_eq!(
        names_other_command("super::score::run(a)", "mine", true, &commands),
        ["score"]
    );
    // From a command's own subdirectory, `super::` is the command itself.
    assert!(names_other_command("super::score::run(a)", "mine", false, &commands).is_empty());
    // A longer name is another module, and a command may name itself.
    assert!(
        names_other_command("crate::cmd::mine_step::x", "mine_step", true, &commands).is_empty()
    );
    assert!(names_other_command("crate::cmd::mine::x", "mine", true, &commands).is_empty());
}
