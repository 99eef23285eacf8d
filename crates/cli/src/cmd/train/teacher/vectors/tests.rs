//! Tests of the teacher's vectors: one embedding per distinct sentence, earlier lists
//! reused, the target list sharing the source list's vectors.

use super::*;

/// A bag of words over four words `a b c d` (in a temporary directory) as the teacher.
fn words_teacher() -> (tempfile::TempDir, EncoderSpec) {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("t.vec");
    std::fs::write(&file, "4 3\na 1 0 0\nb 0 1 0\nc 0 0 1\nd 1 1 0\n").unwrap();
    let spec = format!("bow:{}", file.display()).parse().unwrap();
    (d, spec)
}

/// A reader of `spec`'s vectors cached in `cache`, without progress lines.
fn quiet_reader(spec: &EncoderSpec, cache: std::path::PathBuf) -> Reader<'_> {
    Reader {
        spec,
        cache,
        quiet: true,
    }
}

/// Each row gets the vector of its own sentence, repeats included, and the teacher
/// embeds each distinct sentence once.
#[test]
fn repeated_sentences_get_their_own_vectors_from_one_embedding() {
    let (d, spec) = words_teacher();
    let text = ["a b", "c", "a b", "d", "c", "b"].map(String::from);
    let cache = d.path().join("cache");
    let reader = quiet_reader(&spec, cache);
    let all = reader.vectors(Side::Target, &text).unwrap();
    assert_eq!(all.len(), text.len());
    for (i, s) in text.iter().enumerate() {
        let one = reader
            .unique_vectors(Side::Target, std::slice::from_ref(s))
            .unwrap();
        assert_eq!(all.row(i), one.row(0), "row {i}: {s}");
    }
    assert_ne!(all.row(0), all.row(1));
    // The distinct sentences, in first-seen order, are what the teacher read.
    let read: Vec<String> = std::fs::read_dir(&reader.cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(read.contains(&"a b\nc\nd\nb\n".to_string()), "{read:?}");
}

/// The target list laid beside the source list reads the vectors of the sentences
/// both hold from the source's table and keeps only its own others: every sentence
/// still gets its own vector.
#[test]
fn the_target_list_shares_the_vectors_the_source_list_holds() {
    let (d, spec) = words_teacher();
    let reader = quiet_reader(&spec, d.path().join("cache"));
    let src = ["a", "c", "a", "b d"].map(String::from);
    let tgt = ["d", "b d", "c", "d", "a b"].map(String::from);
    let s = reader.vectors(Side::Source, &src).unwrap();
    let t = reader.vectors(Side::Target, &tgt).unwrap();
    assert_eq!((s.table_rows(), t.table_rows()), (3, 4));
    let shared = share(&s, &src, t.clone(), &tgt).unwrap();
    assert!(shared.shares_table(&s) && !t.shares_table(&s));
    // "d" and "a b" are the target's own; "b d" and "c" are read from the source's.
    assert_eq!(shared.table_rows(), 5);
    assert_eq!(shared.expanded().as_slice(), t.expanded().as_slice());
    assert_eq!(shared.index()[1], s.index()[3]);
    assert_eq!(shared.index()[2], s.index()[1]);
}

/// A new list takes the vectors of the sentences earlier lists hold and has the
/// teacher embed only the others; a list whose text changed after it was embedded is
/// not used.
#[test]
fn a_new_list_reuses_earlier_lists_and_embeds_only_new_sentences() {
    let (d, spec) = words_teacher();
    let reader = quiet_reader(&spec, d.path().join("cache"));
    let lists = |r: &Reader<'_>| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&r.cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        v.sort();
        v
    };
    let first = ["a b", "c"].map(String::from);
    reader.unique_vectors(Side::Target, &first).unwrap();
    // Another side is another teacher: nothing of it is reused.
    reader
        .unique_vectors(Side::Source, &["d".to_string()])
        .unwrap();
    let second = ["c", "d", "a b", "c", "b"].map(String::from);
    let got = reader.unique_vectors(Side::Target, &second).unwrap();
    // Embedded anew: only "d" and "b", as one list.
    assert!(lists(&reader).contains(&"d\nb\n".to_string()));
    let fresh = quiet_reader(&spec, d.path().join("fresh"));
    let want = fresh.unique_vectors(Side::Target, &second).unwrap();
    assert_eq!(got.as_slice(), want.as_slice());
    // Read back as made, without the teacher.
    let again = reader.unique_vectors(Side::Target, &second).unwrap();
    assert_eq!(again.as_slice(), want.as_slice());
    // A TF-IDF bag counting its IDF over each list reads nothing of the earlier ones.
    let tfidf: EncoderSpec = format!(
        r#"{{"type": "bow", "vectors": "{}", "weighting": "tf_idf"}}"#,
        d.path().join("t.vec").display()
    )
    .parse()
    .unwrap();
    assert!(!tfidf.encodes_each_alone() && spec.encodes_each_alone());
    let idf = quiet_reader(&tfidf, d.path().join("idf"));
    idf.unique_vectors(Side::Target, &first).unwrap();
    idf.unique_vectors(Side::Target, &second).unwrap();
    assert_eq!(lists(&idf), ["a b\nc\n", "c\nd\na b\nc\nb\n"]);
    // An earlier list whose text no longer hashes to its sidecar's key is left out:
    // the teacher embeds its sentence afresh.
    let stale = quiet_reader(&spec, d.path().join("stale"));
    stale.unique_vectors(Side::Target, &first).unwrap();
    let (text, _) = stale.list(Side::Target, &first).unwrap();
    std::fs::write(&text, "a b\nd\n").unwrap();
    let third = ["c", "b"].map(String::from);
    let got = stale.unique_vectors(Side::Target, &third).unwrap();
    assert_eq!(lists(&stale), ["a b\nd\n", "c\nb\n"]);
    let want = fresh.unique_vectors(Side::Target, &third).unwrap();
    assert_eq!(got.as_slice(), want.as_slice());
}
