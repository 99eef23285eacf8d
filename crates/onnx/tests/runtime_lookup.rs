//! Where the ONNX Runtime library is found (`find_runtime`): the spec's path, then beside the
//! executable (its directory, then `../lib`), then the environment variables. Fake library
//! files in temporary directories and an injected executable path and environment: nothing
//! is loaded.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use bitext_onnx::{LIBRARY_NAME, RUNTIME_VARS, find_runtime};

/// A library file name of version `v` (`libonnxruntime.so.1.17.0`, macOS
/// `libonnxruntime.1.17.0.dylib`).
fn versioned(v: &str) -> String {
    if cfg!(target_os = "macos") {
        format!("libonnxruntime.{v}.dylib")
    } else {
        format!("{LIBRARY_NAME}.{v}")
    }
}

/// A fake file at `dir/name`.
fn touch(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, b"not a library").unwrap();
    p
}

/// An environment of `vars`.
fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let vars: Vec<(String, OsString)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
}

/// A release layout in a temporary directory: `bin/bitext` (the executable's path; the file
/// need not exist) and `lib/`.
fn layout() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let bin = d.path().join("bin");
    let lib = d.path().join("lib");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("bitext");
    (d, exe, bin, lib)
}

#[test]
fn the_spec_path_comes_first() {
    let (_d, exe, bin, _) = layout();
    touch(&bin, LIBRARY_NAME);
    let e = env(&[(RUNTIME_VARS[0], "/from/env.so")]);
    let got = find_runtime(Some(Path::new("/spec/lib.so")), Some(&exe), e).unwrap();
    assert_eq!(got, Path::new("/spec/lib.so"));
}

#[test]
fn a_library_beside_the_binary_comes_before_the_environment() {
    let (_d, exe, bin, _) = layout();
    let lib = touch(&bin, LIBRARY_NAME);
    let e = env(&[(RUNTIME_VARS[0], "/a.so"), (RUNTIME_VARS[1], "/b.so")]);
    assert_eq!(find_runtime(None, Some(&exe), e).unwrap(), lib);
}

#[test]
#[cfg(not(windows))]
fn a_release_archive_lib_directory_is_found() {
    let (_d, exe, _, lib) = layout();
    let want = touch(&lib, &versioned("1.20.1"));
    assert_eq!(find_runtime(None, Some(&exe), env(&[])).unwrap(), want);
    // The executable's own directory comes before ../lib.
    let (_d2, exe2, bin2, lib2) = layout();
    touch(&lib2, LIBRARY_NAME);
    let near = touch(&bin2, &versioned("1.17.0"));
    assert_eq!(find_runtime(None, Some(&exe2), env(&[])).unwrap(), near);
}

#[test]
#[cfg(not(windows))]
fn the_unversioned_name_then_the_highest_version_is_taken() {
    let (_d, exe, bin, _) = layout();
    touch(&bin, &versioned("1.9.0"));
    let high = touch(&bin, &versioned("1.17.0"));
    // Numeric order, not the text's ("1.9.0" > "1.17.0" as text).
    assert_eq!(find_runtime(None, Some(&exe), env(&[])).unwrap(), high);
    let plain = touch(&bin, LIBRARY_NAME);
    assert_eq!(find_runtime(None, Some(&exe), env(&[])).unwrap(), plain);
}

#[test]
fn other_files_beside_the_binary_are_not_the_library() {
    let (_d, exe, bin, lib) = layout();
    touch(&bin, "libonnxruntime_providers_shared.so");
    touch(&bin, &format!("{LIBRARY_NAME}.bak"));
    touch(&bin, "bitext");
    // A directory with the library's name is not it.
    std::fs::create_dir_all(lib.join(LIBRARY_NAME)).unwrap();
    let e = env(&[(RUNTIME_VARS[1], "/from/env.so")]);
    assert_eq!(
        find_runtime(None, Some(&exe), e).unwrap(),
        Path::new("/from/env.so")
    );
}

#[test]
fn the_variables_are_read_in_order_and_empty_ones_skipped() {
    let (_d, exe, _, _) = layout();
    let both = env(&[
        (RUNTIME_VARS[1], "/second.so"),
        (RUNTIME_VARS[0], "/first.so"),
    ]);
    assert_eq!(
        find_runtime(None, Some(&exe), both).unwrap(),
        Path::new("/first.so")
    );
    let empty_first = env(&[(RUNTIME_VARS[0], ""), (RUNTIME_VARS[1], "/second.so")]);
    assert_eq!(
        find_runtime(None, Some(&exe), empty_first).unwrap(),
        Path::new("/second.so")
    );
    // Without an executable path, the variables still count.
    let one = env(&[(RUNTIME_VARS[1], "/second.so")]);
    assert_eq!(
        find_runtime(None, None, one).unwrap(),
        Path::new("/second.so")
    );
}

#[test]
fn nothing_found_is_an_error_listing_what_was_tried() {
    let (_d, exe, bin, lib) = layout();
    let e = find_runtime(None, Some(&exe), env(&[(RUNTIME_VARS[0], "")]))
        .unwrap_err()
        .to_string();
    for want in [
        "no ONNX Runtime library",
        "\"runtime\"",
        &bin.display().to_string(),
        &lib.display().to_string(),
        RUNTIME_VARS[0],
        RUNTIME_VARS[1],
        "pip install onnxruntime",
    ] {
        assert!(e.contains(want), "{want:?} not in: {e}");
    }
    let e = find_runtime(None, None, env(&[])).unwrap_err().to_string();
    assert!(e.contains("directory is unknown"), "{e}");
}
