//! Training for the evaluations: the committed recipes in `recipes/` run by the `bitext` CLI
//! itself (`bitext train FAMILY --recipe FILE -o DIR`), so that every trained number in
//! docs/eval/ (and so in docs/EVALUATION.md) comes from a file a user can run, through the
//! command a user runs.
//!
//! Two environment variables steer it: `BITEXT_EVAL_RECIPES` a directory of recipes to use
//! instead of `recipes/` (to try a variant without editing the committed ones), and
//! `BITEXT_EVAL_REUSE=1` reuse a model an earlier run trained from the same recipe. The recipes
//! read the shared data through `${BITEXT_DATA}`, set here to the data directory.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext_neural::train::checkpoint::read_json;
use bitext_neural::train::{EpochReport, TrainerState};

use super::Ctx;

/// A model trained (or reused) from a recipe.
pub(super) struct Trained {
    /// The model directory.
    pub(super) dir: PathBuf,
    /// The recipe's file name under `recipes/`.
    pub(super) name: String,
    /// The recipe's text.
    pub(super) text: String,
    /// The recipe, parsed.
    pub(super) json: serde_json::Value,
    /// The command line that trained it (the model directory last).
    pub(super) command: String,
    /// Wall time of the training command; `None` when reused.
    pub(super) seconds: Option<f64>,
    /// When reused: the wall time of the run that trained it, where that run wrote it.
    pub(super) earlier: Option<f64>,
    /// What the CLI reported besides epoch summaries and progress.
    pub(super) notes: Vec<String>,
    /// The trainer's history (`training.json`).
    pub(super) state: TrainerState,
}

/// The directory the recipes are read from.
fn recipes_dir() -> PathBuf {
    std::env::var_os("BITEXT_EVAL_RECIPES")
        .map_or_else(|| crate::project_root().join("recipes"), PathBuf::from)
}

/// Read the recipe `name` (e.g. `siamese-news.json`).
pub(super) fn load(name: &str) -> Result<(PathBuf, String, serde_json::Value)> {
    let path = recipes_dir().join(name);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let json =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    Ok((path, text, json))
}

/// A string value of the recipe (`section.key`), with `${BITEXT_DATA}` made the data directory.
pub(super) fn value(
    ctx: &Ctx,
    json: &serde_json::Value,
    section: &str,
    key: &str,
) -> Option<String> {
    json.get(section)?
        .get(key)?
        .as_str()
        .map(|s| s.replace("${BITEXT_DATA}", &ctx.data.display().to_string()))
}

/// A path of the recipe's data (`data.key`), with `${BITEXT_DATA}` made the data directory.
pub(super) fn data_path(ctx: &Ctx, json: &serde_json::Value, key: &str) -> Result<PathBuf> {
    value(ctx, json, "data", key)
        .map(PathBuf::from)
        .with_context(|| format!("the recipe has no data.{key}"))
}

/// A folder that a script of `recipes/data/` writes from Debian's packages, given to the
/// recipes as `${VAR}`: `$VAR`, else `default` under `BITEXT_EVAL_OUT`.
pub(super) struct DataDir {
    /// The environment variable naming it, and the recipes' placeholder.
    pub(super) var: &'static str,
    /// Its name under `BITEXT_EVAL_OUT` when the variable is unset.
    default: &'static str,
    /// The script of `recipes/data/` that writes it.
    script: &'static str,
    /// What it holds, for the reason a section is skipped.
    what: &'static str,
    /// Files a section needs in it.
    files: &'static [&'static str],
}

/// The game dialogue of `recipes/data/game_dialogue.py`.
pub(super) const DIALOGUE: DataDir = DataDir {
    var: "BITEXT_DIALOGUE",
    default: "dialogue",
    script: "game_dialogue.py",
    what: "game-dialogue bitext",
    files: &["games.en-fr.tsv", "games.en-de.tsv"],
};

/// The everyday text of `recipes/data/everyday_text.py`.
pub(super) const EVERYDAY: DataDir = DataDir {
    var: "BITEXT_EVERYDAY",
    default: "everyday",
    script: "everyday_text.py",
    what: "everyday text",
    files: &["ding.en-de.tsv", "fortunes.en.txt"],
};

/// The catalogue pairs of `recipes/data/multilingual_catalogs.py` (the `multilingual` section
/// checks its dev files itself).
pub(super) const MULTILINGUAL: DataDir = DataDir {
    var: "BITEXT_MULTILINGUAL",
    default: "multilingual",
    script: "multilingual_catalogs.py",
    what: "multilingual catalogue pairs",
    files: &[],
};

impl DataDir {
    /// Where the folder is.
    pub(super) fn path(&self) -> PathBuf {
        std::env::var_os(self.var)
            .map_or_else(|| super::neural::out_dir(self.default), PathBuf::from)
    }

    /// The folder, or why a section that trains from a recipe reading it is skipped.
    pub(super) fn check(&self) -> std::result::Result<PathBuf, String> {
        let dir = self.path();
        if self.files.iter().any(|f| !dir.join(f).is_file()) {
            return Err(format!(
                "no {} in {} (`python3 recipes/data/{} {}` makes it from Debian's packages; {} \
                 names another folder)",
                self.what,
                dir.display(),
                self.script,
                dir.display(),
                self.var
            ));
        }
        Ok(dir)
    }
}

/// Train `family` from the recipe `name` into `dir` (extra command-line flags in `extra`), or
/// reuse the model there when `BITEXT_EVAL_REUSE=1` and it was trained from the same recipe
/// and flags.
pub(super) fn train(
    ctx: &Ctx,
    family: &str,
    name: &str,
    extra: &[String],
    dir: &Path,
) -> Result<Trained> {
    let (path, text, json) = load(name)?;
    let mut args: Vec<OsString> = vec!["train".into(), family.into(), "--recipe".into()];
    args.push(path.clone().into());
    args.extend(extra.iter().map(OsString::from));
    args.extend(["--output".into(), dir.as_os_str().to_owned()]);
    let command = format!(
        "bitext train {family} --recipe recipes/{name}{}{} --output {}",
        if extra.is_empty() { "" } else { " " },
        extra.join(" "),
        dir.display()
    );
    let stamp = format!("{text}\n{command}\n");
    let stamp_file = dir.join("eval-recipe.txt");
    let reuse = std::env::var("BITEXT_EVAL_REUSE").is_ok_and(|v| v == "1");
    let done = |seconds, notes| -> Result<Trained> {
        let doc: serde_json::Value = read_json(&dir.join("training.json"))?;
        let state: TrainerState = serde_json::from_value(doc["state"].clone())
            .with_context(|| format!("{}: no trainer state", dir.display()))?;
        Ok(Trained {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            text: text.clone(),
            json: json.clone(),
            command: command.clone(),
            seconds,
            earlier: None,
            notes,
            state,
        })
    };
    if reuse && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        let notes = std::fs::read_to_string(dir.join("eval-notes.txt")).unwrap_or_default();
        let mut t = done(None, notes.lines().map(str::to_string).collect())?;
        t.earlier = std::fs::read_to_string(dir.join("eval-seconds.txt"))
            .ok()
            .and_then(|s| s.trim().parse().ok());
        return Ok(t);
    }
    let _ = std::fs::remove_dir_all(dir);
    let mut cmd = crate::cargo();
    cmd.args(["run", "--release", "--quiet", "-p", "bitext-cli", "--"])
        .args(&args)
        .env("BITEXT_DATA", &ctx.data)
        .stderr(Stdio::piped());
    for d in [&DIALOGUE, &EVERYDAY, &MULTILINGUAL] {
        cmd.env(d.var, d.path());
    }
    eprintln!("$ {command}");
    let t0 = Instant::now();
    let mut child = cmd.spawn().context("starting cargo run -p bitext-cli")?;
    let mut notes = Vec::new();
    let stderr = child.stderr.take().context("no stderr")?;
    for line in BufReader::new(stderr).lines() {
        let line = line.context("reading the trainer's output")?;
        eprintln!("{line}");
        if !(line.starts_with("epoch ")
            || line.starts_with("saved the best")
            || line.starts_with("stopping:")
            || line.trim().is_empty())
        {
            notes.push(line);
        }
    }
    let status = child.wait()?;
    let seconds = t0.elapsed().as_secs_f64();
    if !status.success() {
        bail!("`{command}` failed ({status})");
    }
    std::fs::write(dir.join("eval-notes.txt"), notes.join("\n"))?;
    std::fs::write(dir.join("eval-seconds.txt"), format!("{seconds:.1}\n"))?;
    std::fs::write(&stamp_file, &stamp)?;
    done(Some(seconds), notes)
}

impl Trained {
    /// The training paragraph of a section: the command, its time, the CLI's notes and the
    /// recipe itself.
    pub(super) fn describe(&self, md: &mut String) -> Result<()> {
        writeln!(
            md,
            "**Training**: `{}` (`BITEXT_DATA` = the shared data), {}.{}\n",
            self.command,
            match self.seconds {
                Some(s) => format!(
                    "**{:.1} min** on {} threads",
                    s / 60.0,
                    bitext_neural::backend::Threads::available()
                ),
                None => format!(
                    "reused from an earlier run of the same recipe (`BITEXT_EVAL_REUSE=1`){}",
                    self.earlier.map_or_else(String::new, |s| format!(
                        ", which trained it in **{:.1} min** on {} threads",
                        s / 60.0,
                        bitext_neural::backend::Threads::available()
                    ))
                ),
            },
            if self.notes.is_empty() {
                String::new()
            } else {
                format!(" The command reported: {}.", self.notes.join("; "))
            }
        )?;
        show(&self.name, &self.text, md)
    }
}

/// The recipe `name` with its `text`, folded, for a record in docs/eval/.
pub(super) fn show(name: &str, text: &str, md: &mut String) -> Result<()> {
    writeln!(
        md,
        "<details><summary>recipes/{name}</summary>\n\n```json\n{}\n```\n\n</details>\n",
        text.trim_end()
    )?;
    Ok(())
}

/// How a network's embedding table was trained, for the descriptions of trained models:
/// `fixed` (frozen) or `trained`.
pub(super) fn fixed_or_trained(frozen: bool) -> &'static str {
    if frozen { "fixed" } else { "trained" }
}

/// The validation metric `key` of epoch `h`, where it was measured.
pub(super) fn valid_metric(h: &EpochReport, key: &str) -> Option<f64> {
    h.valid.as_ref()?.metrics.get(key).copied()
}

/// One row of a training-history table: `| epoch | items | train loss | valid loss | {middle}
/// | items/s | min |`, the epoch marked ` (cut)` when it stopped early, the losses with
/// `digits` decimals (the validation loss NaN where there was none).
pub(super) fn epoch_row(
    md: &mut String,
    h: &EpochReport,
    digits: usize,
    middle: &str,
) -> Result<()> {
    writeln!(
        md,
        "| {}{} | {} | {:.*} | {:.*} | {middle} | {:.0} | {:.1} |",
        h.epoch,
        if h.truncated { " (cut)" } else { "" },
        h.items,
        digits,
        h.train_loss,
        digits,
        h.valid.as_ref().map_or(f64::NAN, |v| v.loss),
        h.items_per_sec,
        h.seconds / 60.0
    )?;
    Ok(())
}
