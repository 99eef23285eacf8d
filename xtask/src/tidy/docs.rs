//! Tidy: the project's documents are references, read whole (issue 71). README.md,
//! ARCHITECTURE.md, docs/EVALUATION.md and docs/BENCHMARKS.md stay within their word limits;
//! the tables of README.md and ARCHITECTURE.md stay short summaries with links; every relative
//! link of README.md, ARCHITECTURE.md and `docs/**/*.md` reaches a file, and those of README.md
//! and ARCHITECTURE.md reach a heading.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::project_root;

/// Most words each document may hold, counted as `wc -w` counts them (runs of non-whitespace).
/// A document over its limit is cut, not raised: the detail goes to a crate's docs, to
/// `docs/notes/`, or is dropped (git keeps the history).
const WORD_LIMITS: &[(&str, usize)] = &[
    ("README.md", 1_300),
    ("ARCHITECTURE.md", 3_000),
    ("docs/EVALUATION.md", 8_000),
    ("docs/BENCHMARKS.md", 8_000),
];

/// The words of a text as `wc -w` counts them: runs of characters other than whitespace.
fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Guards the word limits of issue 71 ([`WORD_LIMITS`]): a reader takes in the README and
/// ARCHITECTURE.md at one sitting, and the records of docs/ stay a reference, not a diary.
#[test]
fn docs_stay_within_their_word_limits() {
    let root = project_root();
    let mut bad = Vec::new();
    for (doc, limit) in WORD_LIMITS {
        let text = std::fs::read_to_string(root.join(doc))
            .unwrap_or_else(|e| panic!("{doc}: cannot read it: {e}"));
        let words = word_count(&text);
        if words > *limit {
            bad.push(format!(
                "{doc}: {words} words (limit {limit}; `wc -w {doc}`): cut it, moving detail \
                 to a crate's docs or docs/notes/"
            ));
        }
    }
    assert!(bad.is_empty(), "doc sizes:\n{}", bad.join("\n"));
}

/// The documents whose tables must stay short, and whose links must reach headings too: a table
/// row is a summary with a link, and the detail lives in `docs/` or in a crate's docs, where it
/// is recorded once and does not drift.
const SHORT_TABLE_DOCS: &[&str] = &["README.md", "ARCHITECTURE.md"];

/// Most words a table cell of [`SHORT_TABLE_DOCS`] may hold.
const MAX_CELL_WORDS: usize = 40;

/// The lines of a markdown text outside fenced code blocks, numbered from 1.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut in_fence = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            out.push((i + 1, line));
        }
    }
    out
}

/// The cells of a markdown table row (`| a | b \| c |`: an escaped pipe stays in its cell), or
/// `None` for a line that is not a table row.
fn table_cells(line: &str) -> Option<Vec<String>> {
    let row = line.trim().strip_prefix('|')?;
    let mut cells = vec![String::new()];
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            _ => cells.last_mut().unwrap().push(c),
        }
    }
    if cells.last().is_some_and(|c| c.trim().is_empty()) {
        cells.pop();
    }
    Some(cells)
}

/// Guards the tables of [`SHORT_TABLE_DOCS`]: a cell of at most [`MAX_CELL_WORDS`] words is a
/// summary with a link; the detail lives once, in docs/ or in a crate's docs.
#[test]
fn doc_table_cells_stay_short() {
    let root = project_root();
    let mut bad = Vec::new();
    for doc in SHORT_TABLE_DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for (n, line) in prose_lines(&text) {
            for cell in table_cells(line).into_iter().flatten() {
                let words = cell.split_whitespace().count();
                if words > MAX_CELL_WORDS {
                    let start: Vec<&str> = cell.split_whitespace().take(8).collect();
                    bad.push(format!(
                        "{doc}:{n}: a table cell of {words} words (limit {MAX_CELL_WORDS}): \"{} …\" \
                         (keep the cell short and move the detail to docs/ or the crate's docs)",
                        start.join(" ")
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "doc tables:\n{}", bad.join("\n"));
}

/// The anchor GitHub gives a heading: lowercased, spaces turned into hyphens, every other
/// character but letters, digits, `-` and `_` dropped (backticks, slashes, `+`, `'`, …).
fn heading_anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a markdown text's headings, a repeated one numbered as GitHub numbers it
/// (`x`, `x-1`, `x-2`).
fn heading_anchors(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = heading_anchor(&line[hashes..]);
        let n = seen.entry(base.clone()).or_default();
        out.push(if *n == 0 { base } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

/// The targets of a markdown line's inline links, `[text](target)`.
fn link_targets(line: &str) -> Vec<&str> {
    line.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &line[i + 2..];
            rest.find(')').map(|end| &rest[..end])
        })
        .collect()
}

/// The Markdown files under `dir`, recursively.
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// The documents whose links are checked: README.md, ARCHITECTURE.md and every `.md` file under
/// docs/, as paths relative to the root.
fn linked_docs() -> Vec<String> {
    let root = project_root();
    let mut files = Vec::new();
    markdown_files(&root.join("docs"), &mut files);
    let mut docs: Vec<String> = files.iter().map(|f| super::relative(f)).collect();
    docs.sort();
    let mut out: Vec<String> = SHORT_TABLE_DOCS.iter().map(|d| d.to_string()).collect();
    out.extend(docs);
    out
}

/// A link target's file part (before `#`), or `None` for a link that leaves the repository
/// (`https://…`, `mailto:`) or stays in the document (`#anchor`).
fn relative_file(target: &str) -> Option<&str> {
    let file = target.split('#').next().unwrap_or_default();
    let external = target.contains("://") || target.starts_with("mailto:");
    (!external && !file.is_empty()).then_some(file)
}

/// Guards the links of README.md, ARCHITECTURE.md and `docs/**/*.md`: a relative link (a file,
/// with or without `#anchor`; resolved from the linking document's directory, as GitHub does)
/// names a file or directory that exists, so that a moved or deleted file fails here instead of
/// leaving a dead link. Web links and links inside the document are not checked here.
#[test]
fn doc_links_reach_existing_files() {
    let root = project_root();
    let docs = linked_docs();
    assert!(docs.len() > 4, "found too few documents: {docs:?}");
    let mut bad = Vec::new();
    for doc in &docs {
        let path = root.join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        let dir = path.parent().unwrap();
        for (n, line) in prose_lines(&text) {
            for target in link_targets(line) {
                let Some(file) = relative_file(target) else {
                    continue;
                };
                if !dir.join(file).exists() {
                    bad.push(format!("{doc}:{n}: link to {target}: no file {file}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "doc links:\n{}", bad.join("\n"));
}

/// Guards the anchors of README.md's and ARCHITECTURE.md's links (`file#anchor`, `#anchor`): a
/// heading of the linked file has that anchor, as GitHub makes them, so that a renamed section
/// of docs/ fails here instead of sending a reader to the top of a long page.
#[test]
fn doc_link_anchors_reach_headings() {
    let root = project_root();
    let mut bad = Vec::new();
    for doc in SHORT_TABLE_DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for (n, line) in prose_lines(&text) {
            for target in link_targets(line) {
                let Some((file, anchor)) = target.split_once('#') else {
                    continue;
                };
                if target.contains("://") {
                    continue;
                }
                let path = if file.is_empty() {
                    root.join(doc)
                } else {
                    root.join(file)
                };
                // A missing file is `doc_links_reach_existing_files`' report.
                let Ok(linked) = std::fs::read_to_string(&path) else {
                    continue;
                };
                if !heading_anchors(&linked).iter().any(|a| a == anchor) {
                    bad.push(format!(
                        "{doc}:{n}: link to {target}: no heading of {} has the anchor #{anchor}",
                        path.strip_prefix(&root).unwrap_or(&path).display()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "doc anchors:\n{}", bad.join("\n"));
}

/// Guards the helpers above: table cells, GitHub's heading anchors, link targets, word counts.
#[test]
fn doc_helpers_read_tables_headings_and_links() {
    assert_eq!(
        table_cells("| a b | `x\\|y` z |").unwrap(),
        vec![" a b ".to_string(), " `x|y` z ".to_string()]
    );
    assert_eq!(table_cells("no table"), None);
    assert_eq!(
        heading_anchor(" Sentencepiece encoding (feature `sentencepiece`)"),
        "sentencepiece-encoding-feature-sentencepiece"
    );
    assert_eq!(heading_anchor(" crates/core"), "cratescore");
    assert_eq!(
        heading_anchor(" Earth Mover's Distance"),
        "earth-movers-distance"
    );
    assert_eq!(
        heading_anchors("# A\n```\n# not a heading\n```\n## A\n#nope\n"),
        vec!["a", "a-1"]
    );
    assert_eq!(
        link_targets("see [x](docs/A.md#b) and [y](#c), not [z]"),
        vec!["docs/A.md#b", "#c"]
    );
    assert_eq!(word_count("  two words\n\n| a | b |\n"), 7);
    assert_eq!(relative_file("docs/A.md#b"), Some("docs/A.md"));
    assert_eq!(
        relative_file("../ARCHITECTURE.md"),
        Some("../ARCHITECTURE.md")
    );
    assert_eq!(relative_file("#c"), None);
    assert_eq!(relative_file("https://example.org/a.md"), None);
}

/// The decimal numbers of a text (`0.765`, `62.44`; a digit run with a point and more digits),
/// as written.
fn decimals(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_digit() {
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            out.push(&text[i..j]);
        }
        i = j.max(i + 1);
    }
    out
}

/// Guards "every number kept in the docs links to the command that produced it" for
/// docs/EVALUATION.md, which is written by hand from the records of `cargo xtask eval`: every
/// decimal number of a `##` section occurs in a record (`eval/TASK.md`) that the section links,
/// so a number copied wrong, or left behind when a task is run again and its record changes,
/// fails here.
#[test]
fn evaluation_numbers_come_from_the_records_they_link() {
    let root = project_root();
    let doc = root.join("docs/EVALUATION.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    let mut bad = Vec::new();
    let mut sections = 0;
    for section in text.split("\n## ").skip(1) {
        let title = section.lines().next().unwrap_or_default();
        let records: String = link_targets(section)
            .into_iter()
            .filter_map(relative_file)
            .filter(|f| f.starts_with("eval/"))
            .map(|f| std::fs::read_to_string(root.join("docs").join(f)).unwrap_or_default())
            .collect();
        sections += 1;
        for n in decimals(section) {
            if !contains_number(&records, n) {
                bad.push(format!("## {title}: {n} is in no record the section links"));
            }
        }
    }
    assert!(
        sections >= 10,
        "found {sections} sections in {}",
        doc.display()
    );
    assert!(bad.is_empty(), "docs/EVALUATION.md:\n{}", bad.join("\n"));
}

/// Whether `text` holds the number `n` as a whole number (`0.76` is not in `0.765` or `10.76`).
fn contains_number(text: &str, n: &str) -> bool {
    text.match_indices(n).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + n.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
            && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

#[test]
fn decimals_are_read_as_written() {
    assert!(contains_number("F1 0.765 and 2.5", "0.765"));
    assert!(contains_number("0.765.", "0.765"));
    assert!(!contains_number("0.7651 10.765", "0.765"));
    assert_eq!(
        decimals("F1 0.765, 62.44% at k = 4, v1.2 and 3. 10.5×"),
        ["0.765", "62.44", "10.5"]
    );
}
