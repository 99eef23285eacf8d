//! Recipes: a command's flags kept as data (`--recipe FILE`).
//!
//! A recipe is a JSON object of the flags of one command, by their long names, optionally
//! grouped into sections of the reader's choosing (`data`, `vocabulary`, `network`, `objective`,
//! `schedule`, `budget`, …; a section is only a heading). `"command"` names the command it is
//! for (`"train siamese"`; then `bitext --recipe FILE` alone runs it), `"about"` is free text:
//!
//! ```json
//! { "command": "train siamese",
//!   "about": "the ranking siamese over fixed subword vectors",
//!   "network": { "preset": "small", "pooling": "max", "bag": true },
//!   "schedule": { "epochs": 50, "lr": 0.001, "plateau": true } }
//! ```
//!
//! The recipe's flags are placed before the command line's; a flag given on the command line
//! replaces the recipe's (and so does one that conflicts with it: `--src-text` on the command
//! line drops the recipe's `tsv`). Values: a string or number is the flag's value; `true` gives
//! a switch, `false` and `null` leave the flag out; an array gives the flag once per item (or
//! joined by the flag's delimiter, for lists such as `--hidden 512,512`). Relative paths are
//! taken from the recipe's directory, and `${NAME}` in a string is the environment variable
//! `NAME` (an error when it is unset). Every key and value is checked by the command's own parser
//! before anything runs, and an error names the recipe, the key and the reason.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Arg, ArgAction, Command, ValueHint};
use serde_json::Value;

/// The flag that names a recipe.
pub(crate) const FLAG: &str = "--recipe";

/// `argv` with `--recipe FILE` replaced by the recipe's flags, placed after the command's name
/// and before the command line's own flags. `argv` unchanged when it names no recipe.
///
/// # Errors
/// A recipe that cannot be read or is not a JSON object; a recipe for another command; a key
/// that is not a flag of the command; a value the command's parser refuses. Each names the
/// recipe file.
pub(crate) fn expand(cli: &Command, argv: Vec<OsString>) -> Result<Vec<OsString>> {
    let Some((at, len, file)) = find_recipe(&argv)? else {
        return Ok(argv);
    };
    let mut rest: Vec<OsString> = argv;
    rest.drain(at..at + len);
    let recipe = read(&file)?;
    let object = recipe
        .as_object()
        .with_context(|| format!("recipe {}: not a JSON object", file.display()))?;
    // The command: the subcommand names at the front of the command line, extended by the
    // recipe's "command" when the command line stops short of it.
    let (mut path, leaf_at) = command_path(cli, &rest);
    if let Some(c) = object.get("command") {
        let words: Vec<&str> = c
            .as_str()
            .with_context(|| format!("recipe {}: \"command\" is not a string", file.display()))?
            .split_whitespace()
            .collect();
        let given: Vec<&str> = path.iter().map(String::as_str).collect();
        if words.len() < given.len() || words[..given.len()] != given[..] {
            bail!(
                "recipe {} is for `bitext {}`, not `bitext {}`",
                file.display(),
                words.join(" "),
                given.join(" ")
            );
        }
        path = words.iter().map(|w| (*w).to_string()).collect();
    }
    let leaf = find_command(cli, &path).with_context(|| {
        format!(
            "recipe {}: `bitext {}` is not a command",
            file.display(),
            path.join(" ")
        )
    })?;
    if leaf.has_subcommands() {
        bail!(
            "recipe {}: `bitext {}` needs a subcommand (say which in the recipe's \"command\" \
             or on the command line)",
            file.display(),
            path.join(" ")
        );
    }
    let user = &rest[leaf_at..];
    let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut tokens = Vec::new();
    for (key, value, section) in entries(object, &file)? {
        let arg = find_arg(leaf, key).with_context(|| {
            format!(
                "recipe {}: `{key}`{} is not a flag of `bitext {}`",
                file.display(),
                section.map_or(String::new(), |s| format!(" (in \"{s}\")")),
                path.join(" ")
            )
        })?;
        if given_on_command_line(leaf, arg, user) {
            continue;
        }
        flag_tokens(arg, value, &base, &mut tokens)
            .with_context(|| format!("recipe {}: `{key}`", file.display()))?;
    }
    check(leaf, &tokens, &file)?;
    let mut out: Vec<OsString> = rest[..leaf_at].to_vec();
    let missing = path.len() - (leaf_at - 1);
    out.extend(path[path.len() - missing..].iter().map(OsString::from));
    out.extend(tokens);
    out.extend(user.iter().cloned());
    Ok(out)
}

/// Where `--recipe FILE` (or `--recipe=FILE`) stands: its index, how many tokens, the file.
fn find_recipe(argv: &[OsString]) -> Result<Option<(usize, usize, PathBuf)>> {
    let mut found = None;
    for (i, a) in argv.iter().enumerate().skip(1) {
        let Some(s) = a.to_str() else { continue };
        if s == "--" {
            break;
        }
        let hit = if s == FLAG {
            let file = argv
                .get(i + 1)
                .with_context(|| format!("{FLAG} needs a file"))?;
            Some((i, 2, PathBuf::from(file)))
        } else {
            s.strip_prefix("--recipe=")
                .map(|f| (i, 1, PathBuf::from(f)))
        };
        if let Some(h) = hit {
            if found.is_some() {
                bail!("{FLAG} is given twice (one recipe a command)");
            }
            found = Some(h);
        }
    }
    Ok(found)
}

fn read(file: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("reading the recipe {}", file.display()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_json::from_str(text).with_context(|| format!("recipe {}: not valid JSON", file.display()))
}

/// The subcommand names at the front of `argv` (after the program name) and the index of the
/// first token after them.
fn command_path(cli: &Command, argv: &[OsString]) -> (Vec<String>, usize) {
    let mut cmd = cli;
    let mut path = Vec::new();
    let mut i = 1;
    while let Some(name) = argv.get(i).and_then(|a| a.to_str()) {
        let Some(sub) = cmd.find_subcommand(name) else {
            break;
        };
        path.push(sub.get_name().to_string());
        cmd = sub;
        i += 1;
    }
    (path, i)
}

fn find_command<'a>(cli: &'a Command, path: &[String]) -> Option<&'a Command> {
    path.iter()
        .try_fold(cli, |cmd, name| cmd.find_subcommand(name))
}

/// The recipe's flags: `(key, value, section)`.
fn entries<'a>(
    object: &'a serde_json::Map<String, Value>,
    file: &Path,
) -> Result<Vec<(&'a str, &'a Value, Option<&'a str>)>> {
    let mut out = Vec::new();
    for (key, value) in object {
        match (key.as_str(), value) {
            ("command" | "about", _) => {}
            (section, Value::Object(flags)) => {
                for (k, v) in flags {
                    if v.is_object() {
                        bail!(
                            "recipe {}: \"{section}\".\"{k}\" is an object (sections do not \
                             nest)",
                            file.display()
                        );
                    }
                    out.push((k.as_str(), v, Some(section)));
                }
            }
            (k, v) => out.push((k, v, None)),
        }
    }
    Ok(out)
}

/// The argument whose long name or alias is `key` (never `help`, `version` or `recipe`).
fn find_arg<'a>(cmd: &'a Command, key: &str) -> Option<&'a Arg> {
    if matches!(key, "help" | "version" | "recipe") {
        return None;
    }
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(key) || a.get_all_aliases().is_some_and(|v| v.contains(&key))
    })
}

/// Whether the command line gives `arg`, or an argument that conflicts with it.
fn given_on_command_line(cmd: &Command, arg: &Arg, user: &[OsString]) -> bool {
    let given = |a: &Arg| user.iter().filter_map(|t| t.to_str()).any(|t| names(a, t));
    let conflict = |a: &Arg, b: &Arg| {
        cmd.get_arg_conflicts_with(a)
            .iter()
            .any(|c| c.get_id() == b.get_id())
    };
    given(arg)
        || cmd
            .get_arguments()
            .any(|b| given(b) && (conflict(arg, b) || conflict(b, arg)))
}

/// Whether the command-line token `t` names `arg` (`--long`, `--long=v`, an alias, `-s`).
fn names(arg: &Arg, t: &str) -> bool {
    if let Some(long) = t.strip_prefix("--") {
        let long = long.split_once('=').map_or(long, |(l, _)| l);
        arg.get_long() == Some(long) || arg.get_all_aliases().is_some_and(|v| v.contains(&long))
    } else if let Some(short) = t.strip_prefix('-') {
        let c = short.chars().next();
        c.is_some()
            && (arg.get_short() == c
                || arg
                    .get_all_short_aliases()
                    .is_some_and(|v| c.is_some_and(|c| v.contains(&c))))
    } else {
        false
    }
}

/// The command-line tokens of `arg` set to `value`.
fn flag_tokens(arg: &Arg, value: &Value, base: &Path, out: &mut Vec<OsString>) -> Result<()> {
    let long = format!("--{}", arg.get_long().context("the flag has no long name")?);
    let switch = matches!(
        arg.get_action(),
        ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count
    );
    let one = |v: &Value| -> Result<OsString> {
        match v {
            Value::String(s) => Ok(text_value(arg, s, base)?),
            Value::Number(n) => Ok(n.to_string().into()),
            Value::Bool(b) => Ok(b.to_string().into()),
            _ => bail!("expected a string, number or boolean, got {v}"),
        }
    };
    match value {
        Value::Null | Value::Bool(false) if switch => {}
        Value::Bool(true) if switch => out.push(long.into()),
        _ if switch => bail!("is a switch: give true or false, not {value}"),
        Value::Null => {}
        Value::Array(items) => match arg.get_value_delimiter() {
            Some(d) => {
                let parts = items.iter().map(one).collect::<Result<Vec<_>>>()?;
                out.push(long.into());
                out.push(parts.join(OsStr::new(&d.to_string())));
            }
            None => {
                for v in items {
                    out.push(long.clone().into());
                    out.push(one(v)?);
                }
            }
        },
        v => {
            out.push(long.into());
            out.push(one(v)?);
        }
    }
    Ok(())
}

/// A string value: `${NAME}` replaced by the environment, then a relative path made relative
/// to the recipe's directory (paths only; `-` is standard input or output, and a value that
/// begins with `{` is an inline JSON spec, such as an encoder spec given to
/// `--init-vectors`, not a path).
fn text_value(arg: &Arg, s: &str, base: &Path) -> Result<OsString> {
    let s = expand_env(s)?;
    let path_like = matches!(
        arg.get_value_hint(),
        ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath
    );
    let p = Path::new(&s);
    if path_like && s != "-" && !s.trim_start().starts_with('{') && p.is_relative() {
        Ok(base.join(p).into_os_string())
    } else {
        Ok(s.into())
    }
}

/// `s` with every `${NAME}` replaced by the environment variable `NAME`.
fn expand_env(s: &str) -> Result<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let end = tail
            .find('}')
            .with_context(|| format!("{s:?}: `${{` without its `}}`"))?;
        let name = &tail[..end];
        let v = std::env::var(name)
            .with_context(|| format!("{s:?}: the environment variable {name} is not set"))?;
        out.push_str(&v);
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Parse the recipe's tokens alone with `cmd`'s parser (no argument required), so that a bad
/// key or value is reported against the recipe before anything runs.
fn check(cmd: &Command, tokens: &[OsString], file: &Path) -> Result<()> {
    let relaxed = cmd
        .clone()
        .mut_args(|a| a.required(false))
        .no_binary_name(true);
    match relaxed.try_get_matches_from(tokens) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument => Ok(()),
        Err(e) => {
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or_default();
            bail!(
                "recipe {}: {}",
                file.display(),
                first.trim_start_matches("error: ")
            )
        }
    }
}

#[cfg(test)]
#[path = "recipe_tests.rs"]
mod tests;
