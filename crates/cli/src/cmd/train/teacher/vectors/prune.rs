//! The teacher's cache kept under a size (`--teacher-cache-limit`): every list a run makes or
//! reuses is marked used (its files' modification time set to now), and when the cache's lists
//! together pass the limit, the least recently used lists of other runs are removed until they
//! fit. The lists this process uses are never removed, even when they alone pass the limit.
//!
//! A list is the files `teacher-HASH.txt`, `teacher-HASH.npy` and `teacher-HASH.npy.encoder`
//! (HASH sixteen hexadecimal digits); nothing else in the directory is looked at or counted.
//! Another run reading an earlier list while this one removes it is not disturbed: it holds the
//! list's files open from the moment it chooses them ([`super::earlier::find`]). A list that
//! has its text but not yet its vectors, written within the last day, is another run's list in
//! the making and is left alone.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, FileTimes};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use anyhow::Result;

/// The stems (`DIR/teacher-HASH`) of the lists this process has made or reused.
static USED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Bytes in a GiB, the unit of `--teacher-cache-limit`.
pub(crate) const GIB: f64 = (1u64 << 30) as f64;

/// The stem of the list whose vectors are `npy` (`DIR/teacher-HASH.npy`).
fn stem(npy: &Path) -> PathBuf {
    npy.with_extension("")
}

/// Mark the list whose vectors are `npy` as used by this process: its files' modification
/// time is set to now (what the least-recently-used order reads) and no prune of this process
/// removes it.
pub(super) fn used(npy: &Path) -> Result<()> {
    let now = SystemTime::now();
    for f in files(&stem(npy)) {
        // A list may lack a file (a `.txt` whose vectors were never made): nothing to mark.
        let Ok(file) = File::options().write(true).open(&f) else {
            continue;
        };
        file.set_times(FileTimes::new().set_modified(now))
            .map_err(|e| bitext_core::Error::io(&f, e))?;
    }
    let mut used = USED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let s = stem(npy);
    if !used.contains(&s) {
        used.push(s);
    }
    Ok(())
}

/// The files of the list `stem`: its text, its vectors and their sidecar.
fn files(stem: &Path) -> [PathBuf; 3] {
    let s = stem.display();
    [
        PathBuf::from(format!("{s}.txt")),
        PathBuf::from(format!("{s}.npy")),
        PathBuf::from(format!("{s}.npy.encoder")),
    ]
}

/// A list of the cache: its bytes, when it was last used, and whether it has its vectors.
#[derive(Debug, Default)]
struct List {
    bytes: u64,
    used: Option<SystemTime>,
    vectors: bool,
}

/// How long a list without its vectors is taken for another run's list in the making.
const MAKING: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

impl List {
    /// Whether another run may be making this list now: its text is there, its vectors are not,
    /// and it was written within [`MAKING`].
    fn in_the_making(&self, now: SystemTime) -> bool {
        !self.vectors
            && self
                .used
                .is_some_and(|t| now.duration_since(t).map_or(true, |age| age < MAKING))
    }
}

/// What a prune did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Pruned {
    /// The lists' bytes before.
    pub(crate) before: u64,
    /// Lists removed, and their bytes.
    pub(crate) removed: (usize, u64),
    /// The bytes of the lists this process uses, kept whatever the limit.
    pub(crate) kept_in_use: u64,
}

/// The lists of `cache` by stem. A name is a list's file when it is `teacher-`, sixteen
/// hexadecimal digits and `.txt`, `.npy` or `.npy.encoder`.
fn lists(cache: &Path) -> Result<BTreeMap<PathBuf, List>> {
    let mut out: BTreeMap<PathBuf, List> = BTreeMap::new();
    let dir = std::fs::read_dir(cache).map_err(|e| bitext_core::Error::io(cache, e))?;
    for entry in dir {
        let entry = entry.map_err(|e| bitext_core::Error::io(cache, e))?;
        let name = entry.file_name();
        let Some(hash) = name.to_str().and_then(|n| n.strip_prefix("teacher-")) else {
            continue;
        };
        let Some((hex, ext)) = hash.split_at_checked(16) else {
            continue;
        };
        if !hex.bytes().all(|b| b.is_ascii_hexdigit())
            || !matches!(ext, ".txt" | ".npy" | ".npy.encoder")
        {
            continue;
        }
        // A file removed since the directory was read (another run's prune) is not counted.
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let list = out.entry(cache.join(format!("teacher-{hex}"))).or_default();
        list.bytes += meta.len();
        list.vectors |= ext == ".npy";
        let modified = meta.modified().ok();
        list.used = list.used.max(modified);
    }
    Ok(out)
}

/// Remove the least recently used lists of `cache` that this process does not use until the
/// lists together hold at most `limit` bytes. A list whose files cannot be removed is an error
/// naming the file.
pub(crate) fn prune(cache: &Path, limit: u64) -> Result<Pruned> {
    let lists = lists(cache)?;
    let before: u64 = lists.values().map(|l| l.bytes).sum();
    let mut done = Pruned {
        before,
        ..Pruned::default()
    };
    if before <= limit {
        return Ok(done);
    }
    let in_use: HashSet<PathBuf> = USED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .cloned()
        .collect();
    let now = SystemTime::now();
    let mut others: Vec<(&PathBuf, &List)> = Vec::new();
    for (stem, list) in &lists {
        if in_use.contains(stem) {
            done.kept_in_use += list.bytes;
        } else if !list.in_the_making(now) {
            others.push((stem, list));
        }
    }
    // Least recently used first; a list of unknown time (no file's time readable) first of all.
    others.sort_by(|(a, la), (b, lb)| (la.used, a).cmp(&(lb.used, b)));
    let mut total = before;
    for (stem, list) in others {
        if total <= limit {
            break;
        }
        for f in files(stem) {
            match std::fs::remove_file(&f) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(bitext_core::Error::io(&f, e).into()),
            }
        }
        total -= list.bytes;
        done.removed.0 += 1;
        done.removed.1 += list.bytes;
    }
    Ok(done)
}

impl Pruned {
    /// A line saying what was removed from `cache` under `limit` bytes, or `None` when nothing
    /// was and the cache fits.
    pub(crate) fn report(&self, cache: &Path, limit: u64) -> Option<String> {
        let gib = |b: u64| b as f64 / GIB;
        let over = self.before > limit;
        if !over {
            return None;
        }
        let mut line = format!(
            "teacher: the cache {} held {:.1} GiB, over its limit of {:.1} GiB \
             (--teacher-cache-limit): removed {} earlier lists ({:.1} GiB), least recently \
             used first",
            cache.display(),
            gib(self.before),
            gib(limit),
            self.removed.0,
            gib(self.removed.1)
        );
        if self.before - self.removed.1 > limit {
            line.push_str(&format!(
                "; the lists this run uses ({:.1} GiB) are kept though they pass it",
                gib(self.kept_in_use)
            ));
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A list `hex` of `bytes` bytes (text and vectors) in `dir`, last used `age` seconds ago.
    fn list(dir: &Path, hex: &str, bytes: usize, age: u64) -> PathBuf {
        let stem = dir.join(format!("teacher-{hex}"));
        let [txt, npy, key] = files(&stem);
        std::fs::write(&txt, vec![b'a'; bytes / 2]).unwrap();
        std::fs::write(&npy, vec![0u8; bytes - bytes / 2]).unwrap();
        std::fs::write(&key, b"").unwrap();
        let when = SystemTime::now() - Duration::from_secs(age);
        for f in [&txt, &npy, &key] {
            let file = File::options().write(true).open(f).unwrap();
            file.set_times(FileTimes::new().set_modified(when)).unwrap();
        }
        npy
    }

    fn left(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    /// Over the limit, the least recently used lists go first, whole, until the rest fit;
    /// a file that is not a list's is neither counted nor removed; a reused list is marked
    /// used and kept even when it alone passes the limit.
    #[test]
    fn the_least_recently_used_lists_go_first_and_this_runs_stay() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        let old = list(dir, "00000000000000aa", 1000, 300);
        list(dir, "00000000000000bb", 1000, 200);
        let newer = list(dir, "00000000000000cc", 1000, 100);
        std::fs::write(dir.join("notes.txt"), vec![b'x'; 5000]).unwrap();
        // Another run's list in the making: text only, written now; counted, never removed.
        let making = dir.join("teacher-00000000000000dd.txt");
        std::fs::write(&making, b"").unwrap();
        std::fs::write(dir.join("teacher-xyz.npy"), vec![b'x'; 5000]).unwrap();
        // Under the limit: nothing is removed, and nothing said.
        let kept = prune(dir, 3000).unwrap();
        assert_eq!((kept.before, kept.removed), (3000, (0, 0)));
        assert_eq!(kept.report(dir, 3000), None);
        // The oldest list is marked used by this process: now the newest, and kept.
        used(&old).unwrap();
        let p = prune(dir, 2000).unwrap();
        assert_eq!(p.removed, (1, 1000));
        assert!(
            p.report(dir, 2000)
                .unwrap()
                .contains("removed 1 earlier lists")
        );
        let names = left(dir);
        assert!(!names.iter().any(|n| n.contains("bb")), "{names:?}");
        assert!(names.contains(&"teacher-00000000000000cc.npy".to_string()));
        assert!(names.contains(&"notes.txt".to_string()));
        assert!(names.contains(&"teacher-xyz.npy".to_string()));
        // A limit below this run's own list: every other list goes, its own stays.
        let p = prune(dir, 10).unwrap();
        assert_eq!((p.removed, p.kept_in_use), ((1, 1000), 1000));
        assert!(
            p.report(dir, 10)
                .unwrap()
                .contains("are kept though they pass it")
        );
        assert!(!newer.exists());
        assert!(old.exists() && old.with_extension("txt").exists());
        assert!(making.exists());
    }
}
