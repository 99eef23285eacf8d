//! Properties of the exact backend beyond the shared conformance suite: every kernel, block size
//! and thread count gives bit-identical results; the database is split across threads when
//! queries are few; memory-mapped inputs are searched in place; the index spec.

use bitext_core::{Embeddings, MappedEmbeddings, io::npy};
use bitext_knn::{
    Error, ExactIndex, ExactParams, IndexSpec, Kernel, KnnIndex, Metric, Neighbors, load_index,
};
use bitext_testkit::data::normal;
use bitext_testkit::knn::{KERNELS, runnable};

fn search_with(
    db: &Embeddings,
    q: &Embeddings,
    metric: Metric,
    params: ExactParams,
    threads: usize,
) -> Neighbors {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let index = ExactIndex::over(db.view(), metric)
        .unwrap()
        .with_params(params)
        .unwrap();
    pool.install(|| index.search(q.view(), 7).unwrap())
}

#[test]
fn kernels_blocks_and_threads_give_identical_results() {
    // 5000 rows > two split parts, 70 queries < one default block: the database is split
    // across threads; odd sizes exercise the padded tails of tiles and panels.
    let db = normal(5003, 37, 1);
    let q = normal(70, 37, 2);
    for metric in [Metric::InnerProduct, Metric::L2] {
        let want = search_with(&db, &q, metric, ExactParams::default(), 1);
        for kernel in runnable(&KERNELS) {
            for (query_block, threads) in [(1, 1), (16, 3), (33, 4), (4096, 2)] {
                let got = search_with(
                    &db,
                    &q,
                    metric,
                    ExactParams {
                        query_block,
                        kernel,
                        ..ExactParams::default()
                    },
                    threads,
                );
                assert_eq!(
                    got, want,
                    "{metric:?} {kernel:?} block {query_block} threads {threads}"
                );
            }
        }
    }
}

#[test]
fn mapped_files_are_searched_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tgt.npy");
    let db = normal(300, 16, 3);
    npy::write_npy(&path, db.view()).unwrap();
    let map = MappedEmbeddings::open(&path, None).unwrap();
    let index = ExactIndex::over(map.view(), Metric::L2).unwrap();
    assert!(index.is_borrowed());
    assert!(std::ptr::eq(
        index.vectors().expect("f32 rows").as_slice().as_ptr(),
        map.view().as_slice().as_ptr()
    ));
    let q = normal(20, 16, 4);
    let owned = ExactIndex::from_embeddings(db.clone(), Metric::L2).unwrap();
    assert_eq!(
        index.search(q.view(), 3).unwrap(),
        owned.search(q.view(), 3).unwrap()
    );

    let mut grown = index.clone();
    grown.add(q.view()).unwrap();
    assert!(!grown.is_borrowed() && grown.len() == 320 && index.len() == 300);
}

#[test]
fn l2_distances_are_squared_and_exact_on_integers() {
    let db = Embeddings::from_rows([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]], 2).unwrap();
    let q = Embeddings::from_rows([[3.0, 4.0]], 2).unwrap();
    let nn = ExactIndex::over(db.view(), Metric::L2)
        .unwrap()
        .search(q.view(), 3)
        .unwrap();
    assert_eq!(nn.ids(0), &[1, 2, 0]);
    assert_eq!(nn.scores(0), &[0.0, 13.0, 25.0]);
}

#[test]
fn params_are_checked() {
    let ok = ExactIndex::new(4, Metric::InnerProduct).unwrap();
    let bad = ExactParams {
        query_block: 0,
        ..ExactParams::default()
    };
    assert!(matches!(
        ok.clone().with_params(bad),
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        ExactIndex::new(0, Metric::L2),
        Err(Error::Invalid(_))
    ));
    let empty = ExactIndex::new(4, Metric::L2).unwrap();
    let q = normal(1, 4, 1);
    assert!(matches!(
        empty.search(q.view(), 1),
        Err(Error::KTooLarge { k: 1, len: 0 })
    ));
}

#[test]
fn spec_parses_builds_and_loads() {
    let s: IndexSpec = " exact ".parse().unwrap();
    assert_eq!(s, IndexSpec::exact(Metric::InnerProduct));
    assert_eq!(s.to_string(), "exact");
    let j: IndexSpec = r#"{"type":"exact","metric":"l2","query_block":64,"kernel":"portable"}"#
        .parse()
        .unwrap();
    assert_eq!(j.metric(), Metric::L2);
    assert_eq!(
        serde_json::to_string(&IndexSpec::exact(Metric::L2)).unwrap(),
        r#"{"type":"exact","metric":"l2"}"#
    );
    let f: IndexSpec = "IVF1024,Flat".parse().unwrap();
    assert_eq!(f.to_string(), "IVF1024,Flat");
    let f2: IndexSpec =
        r#"{"type":"faiss","factory":"IVF1024,Flat","metric":"inner_product","nprobe":8}"#
            .parse()
            .unwrap();
    assert_eq!(f2, f.clone().with_nprobe(8));
    assert!("".parse::<IndexSpec>().is_err());
    assert!(r#"{"type":"exact","bogus":1}"#.parse::<IndexSpec>().is_err());
    assert!(matches!(
        f.clone().with_nprobe(0).check(),
        Err(Error::Invalid(_))
    ));

    let db = normal(40, 5, 1);
    let index = j.build_over(db.view()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.knn");
    index.save(&path).unwrap();
    let back = j.load(&path).unwrap();
    let q = normal(3, 5, 2);
    assert_eq!(
        back.search(q.view(), 4).unwrap(),
        index.search(q.view(), 4).unwrap()
    );
    let e = IndexSpec::exact(Metric::InnerProduct)
        .load(&path)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("L2") && e.contains("x.knn"), "{e}");
    assert!(f.load(&path).is_err());
    assert_eq!(load_index(&path).unwrap().len(), 40);

    let mut empty = j.build(5).unwrap();
    empty.add(db.view()).unwrap();
    assert_eq!(
        empty.search(q.view(), 4).unwrap(),
        back.search(q.view(), 4).unwrap()
    );
}

#[cfg(not(feature = "faiss"))]
#[test]
fn faiss_specs_say_how_to_get_faiss() {
    let f: IndexSpec = "IVF1024,Flat".parse().unwrap();
    for e in [f.build(8).err().unwrap(), f.check().unwrap_err()] {
        assert!(matches!(e, Error::Unsupported(_)));
        assert!(e.to_string().contains("--features faiss"), "{e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("ivf.faiss");
    std::fs::write(&p, b"IwFl....").unwrap();
    assert!(
        load_index(&p)
            .err()
            .unwrap()
            .to_string()
            .contains("--features faiss")
    );
}

#[test]
fn progress_is_reported_per_query_block_from_any_thread() {
    let db = normal(3000, 8, 1);
    let q = normal(1000, 8, 2);
    let params = ExactParams {
        query_block: 32, // a multiple of every kernel's panel width
        kernel: Kernel::Auto,
        ..ExactParams::default()
    };
    let index = ExactIndex::over(db.view(), Metric::InnerProduct)
        .unwrap()
        .with_params(params)
        .unwrap();
    let want = index.search(q.view(), 3).unwrap();
    // Inside a pool (the calling thread must run tasks itself when it is the only one) and
    // from outside one.
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut seen = Vec::new();
        let got = pool
            .install(|| index.search_with_progress(q.view(), 3, &mut |n| seen.push(n)))
            .unwrap();
        assert_eq!(got, want);
        assert_eq!(
            seen.len(),
            1000usize.div_ceil(32),
            "{threads} threads: {seen:?}"
        );
        assert!(seen.windows(2).all(|w| w[0] < w[1]) && seen.last() == Some(&1000));
    }
}
