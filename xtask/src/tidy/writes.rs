//! Tidy: outputs reach their files only through bitext-core's one writer. A rename onto a
//! device, FIFO or link replaces it with a regular file (`-o /dev/null` as root once turned
//! `/dev/null` into one), so no code but the writer renames into a path.

use std::path::{Path, PathBuf};

use super::{all_sources, code_of};
use crate::project_root;

/// The one file that may rename into an output path: bitext-core's one writer, which renames
/// only onto regular files and missing paths (a device, FIFO or link replaced by a rename is
/// the `-o /dev/null` bug).
const RENAMING_FILE: &str = "crates/core/src/io/output.rs";

/// Whether a line of Rust renames a file (`fs::rename`, tempfile's `persist`).
fn renames_rust(line: &str) -> bool {
    let code = code_of(line).replace(' ', "");
    code.contains("rename(") && !code.contains("fnrename(")
        || code.contains(".persist(")
        || code.contains(".persist_noclobber(")
}

/// Whether a line of Python renames a file.
fn renames_python(line: &str) -> bool {
    let code = line.split('#').next().unwrap_or_default();
    ["os.rename(", "os.replace(", "shutil.move("]
        .iter()
        .any(|c| code.contains(c))
}

fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                python_files(&p, out);
            }
        } else if name.ends_with(".py") {
            out.push(p);
        }
    }
}

#[test]
fn outputs_are_renamed_into_place_only_by_the_one_writer() {
    let root = project_root();
    let mut files = all_sources();
    for dir in ["python", "recipes"] {
        python_files(&root.join(dir), &mut files);
    }
    let mut bad = Vec::new();
    for f in files {
        let rel = super::relative(&f);
        if rel == RENAMING_FILE {
            continue;
        }
        let python = rel.ends_with(".py");
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            if if python {
                renames_python(line)
            } else {
                renames_rust(line)
            } {
                bad.push(format!(
                    "{rel}:{}: renames a file: write outputs through \
                     bitext_core::io::AtomicFile or TempPath ({RENAMING_FILE}), which write \
                     devices, FIFOs and links in place",
                    i + 1
                ));
            }
        }
    }
    assert!(bad.is_empty(), "renames:\n{}", bad.join("\n"));
}

#[test]
fn rename_detection_skips_comments_and_strings() {
    assert!(renames_rust("    std::fs::rename(&tmp, path)?;"));
    assert!(renames_rust("fs::rename (a, b)"));
    assert!(renames_rust("let f = tmp.persist(&dest)?;"));
    assert!(!renames_rust("// then fs::rename(tmp, dest)"));
    assert!(!renames_rust("let s = \"fs::rename(a, b)\";"));
    assert!(!renames_rust("#[serde(rename_all = \"snake_case\")]"));
    assert!(!renames_rust("#[serde(rename = \"siamese\")]"));
    assert!(renames_python("os.replace(tmp, path)"));
    assert!(!renames_python("# os.replace(tmp, path)"));
    assert!(!renames_python("name.replace('_', '-')"));
}
