//! Support for the fuzz targets: inputs written to a file, for the readers that take a path.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

thread_local! {
    static DIR: RefCell<Option<tempfile::TempDir>> = const { RefCell::new(None) };
}

/// Write `data` to a file named `name` in this process's scratch directory and call `f` with
/// its path (the file is rewritten for every input).
pub fn with_file<T>(name: &str, data: &[u8], f: impl FnOnce(&Path) -> T) -> T {
    let path = scratch(name);
    std::fs::write(&path, data).expect("scratch file");
    f(&path)
}

/// A path in this process's scratch directory.
pub fn scratch(name: &str) -> PathBuf {
    DIR.with(|d| {
        let mut d = d.borrow_mut();
        let dir = d.get_or_insert_with(|| tempfile::tempdir().expect("scratch directory"));
        dir.path().join(name)
    })
}
