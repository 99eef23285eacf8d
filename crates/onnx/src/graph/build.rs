//! Writers of small ONNX models, field by field: the test graphs (a few nodes each).

use super::*;

/// A `NodeProto` (named after its op and first output); `attrs` from [`attr_bytes`] and
/// [`attr_int`].
pub fn node(
    op: &str,
    domain: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: &[Vec<u8>],
) -> Vec<u8> {
    let mut n = Vec::new();
    for i in inputs {
        put_bytes_field(1, i.as_bytes(), &mut n);
    }
    for o in outputs {
        put_bytes_field(2, o.as_bytes(), &mut n);
    }
    put_bytes_field(3, format!("{op}_{}", outputs[0]).as_bytes(), &mut n);
    put_bytes_field(4, op.as_bytes(), &mut n);
    for a in attrs {
        put_bytes_field(5, a, &mut n);
    }
    if !domain.is_empty() {
        put_bytes_field(7, domain.as_bytes(), &mut n);
    }
    n
}

/// A bytes (`STRING`) attribute.
pub fn attr_bytes(name: &str, s: &[u8]) -> Vec<u8> {
    let mut a = Vec::new();
    put_bytes_field(1, name.as_bytes(), &mut a);
    put_bytes_field(4, s, &mut a);
    put_varint_field(20, 3, &mut a);
    a
}

/// An int attribute.
pub fn attr_int(name: &str, i: i64) -> Vec<u8> {
    let mut a = Vec::new();
    put_bytes_field(1, name.as_bytes(), &mut a);
    put_varint_field(3, i as u64, &mut a);
    put_varint_field(20, 2, &mut a);
    a
}

/// A tensor initializer: `dims`, a [`dtype`], the values as raw little-endian data.
pub fn tensor(name: &str, dims: &[i64], ty: i64, raw: &[u8]) -> Vec<u8> {
    let mut t = Vec::new();
    for &d in dims {
        put_varint_field(1, d as u64, &mut t);
    }
    put_varint_field(2, ty as u64, &mut t);
    put_bytes_field(8, name.as_bytes(), &mut t);
    put_bytes_field(9, raw, &mut t);
    t
}

/// A transformer-style export in miniature: `input_ids`, `attention_mask` (and, with
/// `token_types`, `token_type_ids`), all int64 `[B, L]`, → `last_hidden_state` float
/// `[B, L, dim]` = `table[id] · mask (+ token type)`, with a seeded random `table` of `vocab`
/// rows, returned beside the model so that tests can compute the expected vectors.
#[must_use]
pub fn token_states(vocab: usize, dim: usize, seed: u64, token_types: bool) -> (Vec<u8>, Vec<f32>) {
    let mut rng = bitext_core::Rng::seed(seed);
    let table: Vec<f32> = (0..vocab * dim).map(|_| rng.normal() as f32).collect();
    let raw: Vec<u8> = table.iter().flat_map(|x| x.to_le_bytes()).collect();
    let out = if token_types {
        "masked"
    } else {
        "last_hidden_state"
    };
    let mut nodes = vec![
        node("Gather", "", &["table", "input_ids"], &["emb"], &[]),
        node(
            "Cast",
            "",
            &["attention_mask"],
            &["mask_f"],
            &[attr_int("to", dtype::FLOAT)],
        ),
        node("Unsqueeze", "", &["mask_f", "axes"], &["mask3"], &[]),
        node("Mul", "", &["emb", "mask3"], &[out], &[]),
    ];
    let bl: &[&str] = &["B", "L"];
    let mut inputs = vec![
        ("input_ids", dtype::INT64, bl),
        ("attention_mask", dtype::INT64, bl),
    ];
    if token_types {
        nodes.extend([
            node(
                "Cast",
                "",
                &["token_type_ids"],
                &["types_f"],
                &[attr_int("to", dtype::FLOAT)],
            ),
            node("Unsqueeze", "", &["types_f", "axes"], &["types3"], &[]),
            node(
                "Add",
                "",
                &["masked", "types3"],
                &["last_hidden_state"],
                &[],
            ),
        ]);
        inputs.push(("token_type_ids", dtype::INT64, bl));
    }
    let inits = [
        tensor("table", &[vocab as i64, dim as i64], dtype::FLOAT, &raw),
        tensor("axes", &[1], dtype::INT64, &2i64.to_le_bytes()),
    ];
    let d = dim.to_string();
    let m = model(
        &nodes,
        &inits,
        &inputs,
        &[("last_hidden_state", dtype::FLOAT, &["B", "L", d.as_str()])],
        &[],
    );
    (m, table)
}

/// USE-M's in-graph tokenizer: an onnxruntime-extensions `SentencepieceTokenizer` carrying
/// `spm`, strings `inputs` and the option initializers `nbest`, `alpha`, `bos`, `eos`, `rev`
/// → `ids` (int32) and `splits` (`splits_type`).
#[must_use]
pub fn tokenizer_node(spm: &[u8], splits_type: i64) -> Vec<u8> {
    node(
        TOKENIZER_OP,
        CONTRIB,
        &["inputs", "nbest", "alpha", "bos", "eos", "rev"],
        &["ids", "splits"],
        &[
            attr_bytes("model", spm),
            attr_int("out_type", dtype::INT32),
            attr_int("Tsplits", splits_type),
        ],
    )
}

/// USE-M's layout with an embedding lookup in miniature: strings → an onnxruntime-extensions
/// `SentencepieceTokenizer` carrying `spm` (no BOS or EOS) → ids → `Gather(table, ids)` =
/// `emb` `[pieces, dim]`, an intermediate tensor, not a graph output → `outputs` = its sum.
/// The seeded random `table` of `vocab` rows is returned beside the model.
#[must_use]
pub fn piece_lookup(spm: &[u8], vocab: usize, dim: usize, seed: u64) -> (Vec<u8>, Vec<f32>) {
    let mut rng = bitext_core::Rng::seed(seed);
    let table: Vec<f32> = (0..vocab * dim).map(|_| rng.normal() as f32).collect();
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let nodes = [
        tokenizer_node(spm, dtype::INT64),
        node("Gather", "", &["table", "ids"], &["emb"], &[]),
        node(
            "ReduceSum",
            "",
            &["emb"],
            &["outputs"],
            &[attr_int("keepdims", 0)],
        ),
        node(
            "Cast",
            "",
            &["splits"],
            &["splits_f"],
            &[attr_int("to", dtype::FLOAT)],
        ),
        node(
            "ReduceSum",
            "",
            &["splits_f"],
            &["total"],
            &[attr_int("keepdims", 0)],
        ),
    ];
    let inits = [
        tensor("nbest", &[], dtype::INT64, &0i64.to_le_bytes()),
        tensor("alpha", &[], dtype::FLOAT, &1f32.to_le_bytes()),
        tensor("bos", &[], dtype::BOOL, &[0]),
        tensor("eos", &[], dtype::BOOL, &[0]),
        tensor("rev", &[], dtype::BOOL, &[0]),
        tensor(
            "table",
            &[vocab as i64, dim as i64],
            dtype::FLOAT,
            &f32s(&table),
        ),
    ];
    let m = model(
        &nodes,
        &inits,
        &[("inputs", 8, &["N"])],
        &[("outputs", dtype::FLOAT, &[]), ("total", dtype::FLOAT, &[])],
        &[CONTRIB],
    );
    (m, table)
}

/// A model: IR version 8, opset 13 (and `extra_domains` at version 1), the nodes in order;
/// inputs and outputs as `(name, dtype, dims)` with symbolic dimensions named or fixed
/// ones written as numbers.
pub fn model(
    nodes: &[Vec<u8>],
    initializers: &[Vec<u8>],
    inputs: &[(&str, i64, &[&str])],
    outputs: &[(&str, i64, &[&str])],
    extra_domains: &[&str],
) -> Vec<u8> {
    let mut g = Vec::new();
    for n in nodes {
        put_bytes_field(1, n, &mut g);
    }
    put_bytes_field(2, b"test", &mut g);
    for t in initializers {
        put_bytes_field(5, t, &mut g);
    }
    for (name, ty, dims) in inputs {
        put_bytes_field(11, &value_info(name, *ty, dims), &mut g);
    }
    for (name, ty, dims) in outputs {
        put_bytes_field(12, &value_info(name, *ty, dims), &mut g);
    }
    let mut m = Vec::new();
    put_varint_field(1, 8, &mut m);
    put_bytes_field(2, b"bitext-tests", &mut m);
    put_bytes_field(7, &g, &mut m);
    let mut opset = Vec::new();
    put_varint_field(2, 13, &mut opset);
    put_bytes_field(8, &opset, &mut m);
    for d in extra_domains {
        let mut o = Vec::new();
        put_bytes_field(1, d.as_bytes(), &mut o);
        put_varint_field(2, 1, &mut o);
        put_bytes_field(8, &o, &mut m);
    }
    m
}
