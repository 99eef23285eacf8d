//! What the plans over byte-range shards of one TSV share (the filter plan, the cleaning
//! plan): planning the input, finding a step, running one or all through the one runner, the
//! output of a completed step, and the calibration a writer reads.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::plan::{PLAN_FILE, Step};
use crate::run::{Outcome, RunOptions, is_done, run_generic};
use crate::text::{PlannedText, TextInput};

/// A plan of steps over byte-range shards of one TSV ([`crate::FilterPlan`],
/// [`crate::CleanPlan`]): its steps run one at a time ([`TsvPlan::run_step`], for an engine
/// such as `bitext mine-step`) or all in order ([`TsvPlan::run_all`]), through the one runner.
pub trait TsvPlan {
    /// The kind of plan in errors (`filter`, `cleaning`).
    const NAME: &'static str;
    /// Its step names, for the error of an unknown one.
    const STEP_NAMES: &'static str;

    /// The steps, dependencies first.
    fn steps(&self) -> &[Step];

    /// Compute `step`'s output into `out`.
    ///
    /// # Errors
    /// The step's own: unreadable inputs, a dependency's malformed output.
    fn compute(&self, dir: &Path, step: &Step, out: &Path, opts: &RunOptions) -> Result<()>;

    /// Run the step named `name` unless it is done.
    ///
    /// # Errors
    /// As [`crate::run_step`].
    fn run_step(&self, dir: &Path, name: &str, opts: &RunOptions) -> Result<Outcome>
    where
        Self: Sized,
    {
        let step = self.find(name)?;
        let deps = step
            .deps
            .iter()
            .map(|d| self.find(d))
            .collect::<Result<Vec<_>>>()?;
        run_generic(dir, step, &deps, opts, |out| {
            self.compute(dir, step, out, opts)?;
            Ok(None)
        })
    }

    /// Run every step not done, in order (as [`crate::run_all`]); `progress` gets each
    /// step's name, outcome, and the count done so far and in all.
    ///
    /// # Errors
    /// The first failing step's error.
    fn run_all(
        &self,
        dir: &Path,
        opts: &RunOptions,
        progress: &mut dyn FnMut(&str, Outcome, usize, usize),
    ) -> Result<()>
    where
        Self: Sized,
    {
        let steps = self.steps();
        for (i, s) in steps.iter().enumerate() {
            let o = self.run_step(dir, &s.name, opts)?;
            progress(&s.name, o, i + 1, steps.len());
        }
        Ok(())
    }

    /// The step named `name`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there is none.
    fn find(&self, name: &str) -> Result<&Step> {
        self.steps().iter().find(|s| s.name == name).ok_or_else(|| {
            Error::Invalid(format!(
                "no step {name:?} in the {} plan ({})",
                Self::NAME,
                Self::STEP_NAMES
            ))
        })
    }

    /// The output of the completed step `name`, in `dir`.
    ///
    /// # Errors
    /// No such step, or it has not completed.
    fn done_output(&self, dir: &Path, name: &str) -> Result<PathBuf> {
        let step = self.find(name)?;
        if !is_done(dir, step, true) {
            return Err(Error::Invalid(format!(
                "the plan's {name} step has not completed"
            )));
        }
        Ok(dir.join(step.output()))
    }
}

/// The input of a plan over `shards` byte ranges of the TSV `input`.
///
/// # Errors
/// A shard count of 0 or above [`crate::MAX_SHARDS`]; what [`TextInput::plan`] refuses.
pub(crate) fn plan_input(input: &Path, shards: usize) -> Result<PlannedText> {
    if !(1..=crate::plan::MAX_SHARDS).contains(&shards) {
        return Err(Error::Invalid(format!(
            "the shard count must be in 1..={}, got {shards}",
            crate::plan::MAX_SHARDS
        )));
    }
    TextInput {
        path: input.to_path_buf(),
        bucc: Some(false),
    }
    .plan(shards, "input")
}

/// The id of a plan of `format` (`version`) over `text` and what else identifies it
/// (`parts`: the recipe, the files it names), and the plan already in `work_dir` when it has
/// that id (read as a plan of `kind`).
pub(crate) fn plan_id<P: serde::de::DeserializeOwned>(
    work_dir: &Path,
    (kind, format, version): (&str, &str, u32),
    text: &PlannedText,
    parts: &[&str],
    id_of: impl Fn(&P) -> &str,
) -> (String, Option<P>) {
    let version_text = version.to_string();
    let mut all = vec![format, &version_text, &text.identity];
    all.extend_from_slice(parts);
    let id = crate::plan::hash_hex(&all);
    let old = crate::plan::read_plan_file::<P>(work_dir, kind, format, version)
        .ok()
        .filter(|p| id_of(p) == id);
    (id, old)
}

/// Whether `work_dir`'s plan has the `format` field `format`.
pub(crate) fn has_format(work_dir: &Path, format: &str) -> bool {
    std::fs::read_to_string(work_dir.join(PLAN_FILE))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v["format"] == format)
}

/// The probability function of the calibration file `path`, through the caller's builder.
pub(crate) fn calibration(opts: &RunOptions, path: &Path) -> Result<Box<dyn Fn(f64) -> f64>> {
    let build = opts.calibrations.as_ref().ok_or_else(|| {
        Error::Invalid(format!(
            "{}: a calibration is read by the caller's builder (RunOptions::calibrations)",
            path.display()
        ))
    })?;
    build(path).map_err(Error::Invalid)
}
