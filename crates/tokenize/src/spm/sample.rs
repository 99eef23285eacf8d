//! Reading, checking, sampling and balancing the training input of [`SubwordTrainer`]: lines
//! are streamed (files through [`LineReader`], so bad UTF-8 is named by file and line), kept in
//! seeded reservoirs of bounded size, balanced across inputs, and returned in input order.

use std::path::{Path, PathBuf};

use bitext_core::io::LineReader;
use bitext_core::{Error as CoreError, Location, Rng};

use super::train::{InputReport, SubwordTrainer};
use crate::error::{Error, Result};

/// Where training sentences come from.
pub(super) enum InputSource<'a, S> {
    /// A text file, one sentence per line.
    File(&'a Path),
    /// Sentences in memory, with a name for errors.
    Memory(&'a str, &'a [S]),
}

/// The sentences chosen for training, and what each input contributed.
pub(super) struct Collected {
    pub(super) sentences: Vec<String>,
    pub(super) inputs: Vec<InputReport>,
}

/// A uniform sample of at most `cap` items of a stream (Vitter's algorithm R), seeded.
struct Reservoir {
    cap: Option<usize>,
    seen: usize,
    items: Vec<(usize, usize, String)>,
    rng: Rng,
}

impl Reservoir {
    fn new(cap: Option<usize>, rng: Rng) -> Self {
        Self {
            cap,
            seen: 0,
            items: Vec::new(),
            rng,
        }
    }

    /// Offer line `line` of input `input`.
    fn offer(&mut self, input: usize, line: usize, text: &str) {
        self.seen += 1;
        match self.cap {
            Some(cap) if self.items.len() >= cap => {
                let j = self.rng.below(self.seen);
                if j < cap {
                    self.items[j] = (input, line, text.to_owned());
                }
            }
            _ => self.items.push((input, line, text.to_owned())),
        }
    }

    /// Keep a uniform subset of `k` items.
    fn shrink(&mut self, k: usize) {
        if self.items.len() > k {
            let mut keep = self.rng.sample_indices(self.items.len(), k);
            keep.sort_unstable();
            let mut old = std::mem::take(&mut self.items);
            self.items = keep
                .into_iter()
                .map(|i| std::mem::take(&mut old[i]))
                .collect();
        }
    }
}

/// Checks one line; `Ok(true)` when it is used, `Ok(false)` when skipped (and counted).
fn admit(
    cfg: &SubwordTrainer,
    report: &mut InputReport,
    text: &str,
    at: impl FnOnce(&str) -> Error,
) -> Result<bool> {
    report.lines += 1;
    if text.trim().is_empty() {
        if !cfg.skip_empty_lines {
            return Err(at(
                "empty line (a training sentence needs text; skip_empty_lines / --skip-empty \
                 skips and counts such lines)",
            ));
        }
        report.empty += 1;
        return Ok(false);
    }
    if text.len() > cfg.max_sentence_bytes {
        report.too_long += 1;
        return Ok(false);
    }
    if text.contains('\u{2585}') {
        report.reserved += 1;
        return Ok(false);
    }
    Ok(true)
}

/// Read every input, check its lines, sample and balance.
pub(super) fn collect<S: AsRef<str>>(
    cfg: &SubwordTrainer,
    sources: &[InputSource<'_, S>],
) -> Result<Collected> {
    let n = sources.len();
    let root = Rng::seed(cfg.seed);
    let per_input = if cfg.balance {
        match cfg.max_sentences {
            Some(m) if m < n => {
                return Err(Error::InvalidArgument(format!(
                    "max_sentences {m} is less than one sentence per input ({n} inputs)"
                )));
            }
            m => m.map(|m| m / n),
        }
    } else {
        None
    };
    let mut pools: Vec<Reservoir> = if cfg.balance {
        (0..n)
            .map(|i| Reservoir::new(per_input, root.fork(i as u64)))
            .collect()
    } else {
        vec![Reservoir::new(cfg.max_sentences, root.fork(0))]
    };
    let mut inputs = Vec::with_capacity(n);
    for (i, source) in sources.iter().enumerate() {
        let pool = if cfg.balance { i } else { 0 };
        let pool = &mut pools[pool];
        let mut report = InputReport {
            name: String::new(),
            lines: 0,
            empty: 0,
            too_long: 0,
            reserved: 0,
            used: 0,
        };
        match source {
            InputSource::File(path) => {
                report.name = path.display().to_string();
                let mut r = LineReader::open(path)?;
                while r.advance()? {
                    if admit(cfg, &mut report, r.line(), |m| r.error(m).into())? {
                        pool.offer(i, r.line_number(), r.line());
                    }
                }
            }
            InputSource::Memory(name, lines) => {
                report.name = (*name).to_string();
                for (k, line) in lines.iter().enumerate() {
                    let at = |m: &str| {
                        CoreError::parse(PathBuf::from(*name), Location::Line(k + 1), m).into()
                    };
                    if admit(cfg, &mut report, line.as_ref(), at)? {
                        pool.offer(i, k + 1, line.as_ref());
                    }
                }
            }
        }
        if report.lines == 0 {
            return Err(CoreError::parse(
                PathBuf::from(&report.name),
                Location::File,
                "no lines: an empty training input",
            )
            .into());
        }
        inputs.push(report);
    }
    if cfg.balance {
        let k = pools.iter().map(|p| p.items.len()).min().unwrap_or(0);
        for p in &mut pools {
            p.shrink(k);
        }
    }
    let mut items: Vec<(usize, usize, String)> = pools.into_iter().flat_map(|p| p.items).collect();
    items.sort_unstable_by_key(|&(input, line, _)| (input, line));
    for &(input, _, _) in &items {
        inputs[input].used += 1;
    }
    Ok(Collected {
        sentences: items.into_iter().map(|(_, _, s)| s).collect(),
        inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect_mem(cfg: &SubwordTrainer, corpora: &[(&str, &[String])]) -> Result<Collected> {
        let sources: Vec<InputSource<'_, String>> = corpora
            .iter()
            .map(|&(n, l)| InputSource::Memory(n, l))
            .collect();
        collect(cfg, &sources)
    }

    fn lines(prefix: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{prefix} {i}")).collect()
    }

    #[test]
    fn everything_in_input_order_without_limits() {
        let (a, b) = (lines("a", 5), lines("b", 3));
        let c = collect_mem(&SubwordTrainer::new(), &[("a", &a), ("b", &b)]).unwrap();
        let want: Vec<String> = a.iter().chain(&b).cloned().collect();
        assert_eq!(c.sentences, want);
        assert_eq!((c.inputs[0].used, c.inputs[1].used), (5, 3));
    }

    #[test]
    fn balance_takes_the_smaller_side_and_max_sentences_caps_it() {
        let (a, b) = (lines("a", 1000), lines("b", 30));
        let cfg = SubwordTrainer::new().balance(true);
        let c = collect_mem(&cfg, &[("a", &a), ("b", &b)]).unwrap();
        assert_eq!((c.inputs[0].used, c.inputs[1].used), (30, 30));
        // Sampled lines keep their order and come from their input.
        let ia: Vec<usize> = c.sentences[..30]
            .iter()
            .map(|s| s[2..].parse().unwrap())
            .collect();
        assert!(ia.windows(2).all(|w| w[0] < w[1]), "{ia:?}");
        assert!(c.sentences[30..].iter().all(|s| s.starts_with("b ")));
        let c = collect_mem(
            &cfg.clone().max_sentences(Some(20)),
            &[("a", &a), ("b", &b)],
        )
        .unwrap();
        assert_eq!((c.inputs[0].used, c.inputs[1].used), (10, 10));
        assert!(collect_mem(&cfg.max_sentences(Some(1)), &[("a", &a), ("b", &b)]).is_err());
    }

    #[test]
    fn sampling_is_seeded_and_uniform_enough() {
        let a = lines("a", 2000);
        let cfg = SubwordTrainer::new().max_sentences(Some(500)).seed(3);
        let x = collect_mem(&cfg, &[("a", &a)]).unwrap().sentences;
        let y = collect_mem(&cfg, &[("a", &a)]).unwrap().sentences;
        let z = collect_mem(&cfg.seed(4), &[("a", &a)]).unwrap().sentences;
        assert_eq!(x, y);
        assert_ne!(x, z);
        assert_eq!(x.len(), 500);
        // A quarter is kept: each half of the input gives about half of the sample.
        let first_half = x
            .iter()
            .filter(|s| s[2..].parse::<usize>().unwrap() < 1000)
            .count();
        assert!((200..300).contains(&first_half), "{first_half}");
    }

    #[test]
    fn bad_lines_are_errors_or_counted() {
        let a: Vec<String> = ["ok", "", "fine"].map(String::from).to_vec();
        let e = collect_mem(&SubwordTrainer::new(), &[("de", &a)])
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("de:2: empty line"), "{e}");
        let b: Vec<String> = ["ok", "  ", "x ▅ y", &"z".repeat(50)]
            .map(String::from)
            .to_vec();
        let cfg = SubwordTrainer::new()
            .skip_empty_lines(true)
            .max_sentence_bytes(40);
        let c = collect_mem(&cfg, &[("en", &b)]).unwrap();
        let r = &c.inputs[0];
        assert_eq!(
            (r.lines, r.empty, r.reserved, r.too_long, r.used),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(c.sentences, ["ok"]);
        let none: Vec<String> = Vec::new();
        let e = collect_mem(&cfg, &[("x", &none)])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("x: no lines"), "{e}");
    }
}
