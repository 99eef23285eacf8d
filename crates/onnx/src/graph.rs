//! What bitext reads of an ONNX file itself (ONNX Runtime reads the rest): an in-graph
//! sentencepiece tokenizer, which it cuts off so that the graph starts at the tokenizer's
//! outputs and bitext's own sentencepiece makes the ids.
//!
//! Universal Sentence Encoder Multilingual's ONNX export begins with an onnxruntime-extensions
//! `SentencepieceTokenizer` node (domain `ai.onnx.contrib`): raw strings in, the piece ids of
//! all sentences concatenated (`int32 [T]`) and their ragged row splits (`int64 [N + 1]`) out;
//! its `model` attribute is the sentencepiece model, and its constant inputs say whether BOS and
//! EOS are added. ONNX Runtime runs that node only with the extensions library, which the PyPI
//! wheel ships as a Python module. So the graph is rewritten at the protobuf level: every field
//! is copied as it is, except that the tokenizer node and the string input are dropped, the two
//! outputs become graph inputs, and the custom domain's opset import is dropped.

use std::path::Path;

use bitext_core::io::proto::{
    Fields, ProtoError, Value, put_bytes_field, put_varint_field, utf8, wrong_type,
};
use bitext_core::{Error as CoreError, Location};

/// ONNX `TensorProto.DataType` codes bitext uses.
pub mod dtype {
    /// `FLOAT`.
    pub const FLOAT: i64 = 1;
    /// `INT32`.
    pub const INT32: i64 = 6;
    /// `INT64`.
    pub const INT64: i64 = 7;
    /// `BOOL`.
    pub const BOOL: i64 = 9;
}

/// The op type of the in-graph tokenizer bitext cuts off.
const TOKENIZER_OP: &str = "SentencepieceTokenizer";
/// Its domain.
const CONTRIB: &str = "ai.onnx.contrib";

/// An in-graph sentencepiece tokenizer, cut off the graph.
#[derive(Clone, PartialEq, Eq)]
pub struct InGraphTokenizer {
    /// The sentencepiece model (the node's `model` attribute).
    pub model: Vec<u8>,
    /// Whether BOS is put first.
    pub add_bos: bool,
    /// Whether EOS is put last.
    pub add_eos: bool,
    /// The graph input that now takes the piece ids.
    pub ids: String,
    /// Element type of the ids (`INT32` or `INT64`).
    pub ids_type: i64,
    /// The graph input that now takes the row splits.
    pub splits: String,
    /// Element type of the row splits.
    pub splits_type: i64,
}

impl std::fmt::Debug for InGraphTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InGraphTokenizer")
            .field("model", &format_args!("{} bytes", self.model.len()))
            .field("add_bos", &self.add_bos)
            .field("add_eos", &self.add_eos)
            .field("ids", &self.ids)
            .field("splits", &self.splits)
            .finish()
    }
}

/// A graph as ONNX Runtime is to load it.
#[derive(Debug, Clone)]
pub struct Graph {
    /// The serialized model (rewritten when a tokenizer was cut off).
    pub bytes: Vec<u8>,
    /// The tokenizer cut off, if there was one.
    pub tokenizer: Option<InGraphTokenizer>,
}

/// A node as far as bitext reads it.
#[derive(Default)]
struct Node<'a> {
    inputs: Vec<String>,
    outputs: Vec<String>,
    op_type: String,
    domain: String,
    /// `(name, field value)` of the attributes: `i` as `Varint`, `s` as `Bytes`.
    attributes: Vec<(String, Value<'a>)>,
}

type PResult<T> = std::result::Result<T, ProtoError>;

fn strings(acc: &mut Vec<String>, b: &[u8], at: usize, what: &str) -> PResult<()> {
    acc.push(utf8(b, at, what)?);
    Ok(())
}

fn read_node(buf: &[u8], base: usize) -> PResult<Node<'_>> {
    let mut n = Node::default();
    let mut f = Fields::new(buf, base);
    while let Some((field, at, v)) = f.next_field()? {
        match (field, v) {
            (1, Value::Bytes(b)) => strings(&mut n.inputs, b, at, "a node input")?,
            (2, Value::Bytes(b)) => strings(&mut n.outputs, b, at, "a node output")?,
            (4, Value::Bytes(b)) => n.op_type = utf8(b, at, "an op type")?,
            (7, Value::Bytes(b)) => n.domain = utf8(b, at, "a domain")?,
            (5, Value::Bytes(b)) => {
                let mut a = Fields::new(b, at);
                let (mut name, mut value) = (String::new(), None);
                while let Some((field, at, v)) = a.next_field()? {
                    match (field, v) {
                        (1, Value::Bytes(b)) => name = utf8(b, at, "an attribute name")?,
                        (3 | 4, v) => value = Some(v),
                        _ => {}
                    }
                }
                if let Some(v) = value {
                    n.attributes.push((name, v));
                }
            }
            (1 | 2 | 4 | 5 | 7, _) => return Err(wrong_type(at, "a NodeProto field")),
            _ => {}
        }
    }
    Ok(n)
}

/// The name of a `TensorProto` or `ValueInfoProto` (field 1 of the latter, 8 of the former).
fn name_of(buf: &[u8], base: usize, field_no: u64) -> PResult<Option<String>> {
    let mut f = Fields::new(buf, base);
    while let Some((field, at, v)) = f.next_field()? {
        if let (n, Value::Bytes(b)) = (field, v)
            && n == field_no
        {
            return Ok(Some(utf8(b, at, "a name")?));
        }
    }
    Ok(None)
}

/// A scalar initializer as an integer (bool, int32, int64; from `raw_data` or the typed
/// fields), or `None` when it is not one of those.
fn scalar(buf: &[u8], base: usize) -> PResult<Option<i64>> {
    let mut f = Fields::new(buf, base);
    let (mut ty, mut raw, mut typed) = (0i64, None, None);
    while let Some((field, _, v)) = f.next_field()? {
        match (field, v) {
            (2, Value::Varint(t)) => ty = t as i64,
            (9, Value::Bytes(b)) => raw = Some(b),
            (5 | 7, Value::Varint(x)) => typed = Some(x as i64),
            (5 | 7, Value::Bytes(b)) => {
                let mut p = Fields::new(b, 0);
                typed = Some(p.varint()? as i64);
            }
            _ => {}
        }
    }
    let from_raw = |b: &[u8]| -> Option<i64> {
        match ty {
            dtype::BOOL => b.first().map(|&x| i64::from(x)),
            dtype::INT32 => Some(i64::from(i32::from_le_bytes(b.get(..4)?.try_into().ok()?))),
            dtype::INT64 => Some(i64::from_le_bytes(b.get(..8)?.try_into().ok()?)),
            _ => None,
        }
    };
    Ok(match raw {
        Some(b) => from_raw(b),
        None if matches!(ty, dtype::BOOL | dtype::INT32 | dtype::INT64) => typed,
        None => None,
    })
}

/// A `ValueInfoProto` of a tensor: dimensions written as numbers are fixed, others symbolic.
fn value_info(name: &str, elem_type: i64, dims: &[&str]) -> Vec<u8> {
    let mut shape = Vec::new();
    for d in dims {
        let mut dim = Vec::new();
        match d.parse::<u64>() {
            Ok(v) => put_varint_field(1, v, &mut dim),
            Err(_) => put_bytes_field(2, d.as_bytes(), &mut dim),
        }
        put_bytes_field(1, &dim, &mut shape);
    }
    let mut tensor = Vec::new();
    put_varint_field(1, elem_type as u64, &mut tensor);
    put_bytes_field(2, &shape, &mut tensor);
    let mut ty = Vec::new();
    put_bytes_field(1, &tensor, &mut ty);
    let mut vi = Vec::new();
    put_bytes_field(1, name.as_bytes(), &mut vi);
    put_bytes_field(2, &ty, &mut vi);
    vi
}

/// Read `path` and cut off its in-graph tokenizer, if it has one.
///
/// # Errors
/// [`CoreError`] naming the file: unreadable, not an ONNX model (with the byte offset), two
/// in-graph tokenizers, a tokenizer whose options cannot be read or that samples or reverses,
/// or another `ai.onnx.contrib` operator (which ONNX Runtime cannot run without the extensions
/// library).
pub fn load(path: &Path) -> Result<Graph, CoreError> {
    let bytes = std::fs::read(path).map_err(|e| CoreError::io(path, e))?;
    cut(bytes).map_err(|e| CoreError::parse(path, Location::Byte(e.offset as u64), e.reason))
}

/// The GraphProto of the ModelProto `bytes` (field 7; the last one given) and its offset.
fn model_graph(bytes: &[u8]) -> PResult<(&[u8], usize)> {
    let mut graph = None;
    let mut m = Fields::new(bytes, 0);
    while let Some((field, at, v)) = m.next_field()? {
        match (field, v) {
            (7, Value::Bytes(g)) => graph = Some((g, at)),
            (7, _) => return Err(wrong_type(at, "the graph")),
            _ => {}
        }
    }
    graph.ok_or_else(|| ProtoError {
        offset: 0,
        reason: "no graph (ModelProto field 7): not an ONNX model".into(),
    })
}

/// [`load`] on bytes in memory; errors carry the byte offset.
///
/// # Errors
/// As [`load`].
pub fn cut(bytes: Vec<u8>) -> PResult<Graph> {
    let err = |offset: usize, reason: String| ProtoError { offset, reason };
    let (g, g_at) = model_graph(&bytes)?;
    // GraphProto: node = 1, initializer = 5, input = 11, value_info = 13.
    let mut tokenizer = None;
    let mut initializers = Vec::new();
    let mut f = Fields::new(g, g_at);
    while let Some((field, at, v)) = f.next_field()? {
        match (field, v) {
            (1, Value::Bytes(b)) => {
                let node = read_node(b, at)?;
                if node.domain == CONTRIB && node.op_type == TOKENIZER_OP {
                    if tokenizer.is_some() {
                        return Err(err(at, format!("two {TOKENIZER_OP} nodes")));
                    }
                    tokenizer = Some((node, at));
                } else if node.domain == CONTRIB {
                    return Err(err(
                        at,
                        format!(
                            "operator {CONTRIB}::{} needs the onnxruntime-extensions library, \
                             which bitext does not load (only an in-graph {TOKENIZER_OP} is \
                             replaced by bitext's own)",
                            node.op_type
                        ),
                    ));
                }
            }
            (5, Value::Bytes(b)) => initializers.push((b, at)),
            _ => {}
        }
    }
    let Some((node, node_at)) = tokenizer else {
        return Ok(Graph {
            bytes,
            tokenizer: None,
        });
    };
    let int_attr = |name: &str, default: i64| match node.attributes.iter().find(|a| a.0 == name) {
        Some((_, Value::Varint(v))) => *v as i64,
        _ => default,
    };
    let model = match node.attributes.iter().find(|a| a.0 == "model") {
        Some((_, Value::Bytes(b))) if !b.is_empty() => b.to_vec(),
        _ => {
            return Err(err(
                node_at,
                format!("the {TOKENIZER_OP} has no model attribute"),
            ));
        }
    };
    if node.outputs.len() != 2 || node.inputs.is_empty() {
        return Err(err(
            node_at,
            format!(
                "the {TOKENIZER_OP} has {} inputs and {} outputs (expected text, options → ids, \
                 row splits)",
                node.inputs.len(),
                node.outputs.len()
            ),
        ));
    }
    // Constant inputs: text, nbest_size, alpha, add_bos, add_eos, reverse.
    let option = |i: usize, default: i64| -> PResult<i64> {
        let Some(name) = node.inputs.get(i).filter(|n| !n.is_empty()) else {
            return Ok(default);
        };
        for &(b, at) in &initializers {
            if name_of(b, at, 8)?.as_deref() == Some(name) {
                return scalar(b, at)?.ok_or_else(|| {
                    err(
                        at,
                        format!("the tokenizer option {name} is not an integer scalar"),
                    )
                });
            }
        }
        Err(err(
            node_at,
            format!("the tokenizer option {name} is not a constant (initializer) of the graph"),
        ))
    };
    if option(1, 0)? > 1 {
        return Err(err(
            node_at,
            "the tokenizer samples (nbest_size > 1)".into(),
        ));
    }
    if option(5, 0)? != 0 {
        return Err(err(node_at, "the tokenizer reverses its pieces".into()));
    }
    let tok = InGraphTokenizer {
        model,
        add_bos: option(3, 0)? != 0,
        add_eos: option(4, 0)? != 0,
        ids: node.outputs[0].clone(),
        ids_type: int_attr("out_type", dtype::INT32),
        splits: node.outputs[1].clone(),
        splits_type: int_attr("Tsplits", dtype::INT64),
    };
    let text = node.inputs[0].clone();

    // The graph again: every field copied, the tokenizer node, the text input and value_info
    // of the two outputs dropped, the two outputs added as inputs.
    let mut new_graph = Vec::with_capacity(g.len());
    let mut f = Fields::new(g, g_at);
    while let Some((field, at, v, raw)) = f.next_raw()? {
        let skip = match (field, v) {
            (1, Value::Bytes(_)) => at == node_at,
            (11, Value::Bytes(b)) => name_of(b, at, 1)?.as_deref() == Some(&text),
            (13, Value::Bytes(b)) => {
                let n = name_of(b, at, 1)?;
                n.as_deref() == Some(&tok.ids) || n.as_deref() == Some(&tok.splits)
            }
            _ => false,
        };
        if !skip {
            new_graph.extend_from_slice(raw);
        }
    }
    put_bytes_field(
        11,
        &value_info(&tok.ids, tok.ids_type, &["pieces"]),
        &mut new_graph,
    );
    put_bytes_field(
        11,
        &value_info(&tok.splits, tok.splits_type, &["sentences_plus_one"]),
        &mut new_graph,
    );
    // The model again: the new graph, and no opset import of the custom domain (8).
    let mut out = Vec::with_capacity(bytes.len());
    let mut m = Fields::new(&bytes, 0);
    while let Some((field, at, v, raw)) = m.next_raw()? {
        match (field, v) {
            (7, _) => put_bytes_field(7, &new_graph, &mut out),
            (8, Value::Bytes(b)) => {
                let mut o = Fields::new(b, at);
                let mut domain = String::new();
                while let Some((n, at, v)) = o.next_field()? {
                    if let (1, Value::Bytes(d)) = (n, v) {
                        domain = utf8(d, at, "a domain")?;
                    }
                }
                if domain != CONTRIB {
                    out.extend_from_slice(raw);
                }
            }
            _ => out.extend_from_slice(raw),
        }
    }
    Ok(Graph {
        bytes: out,
        tokenizer: Some(tok),
    })
}

/// `bytes` with `tensor` as one more graph output, so that ONNX Runtime returns it: an
/// intermediate tensor such as the token vectors of a graph's embedding lookup
/// ([`crate::OnnxEncoder::piece_vectors`]). Unchanged when `tensor` already is an output.
/// The output is declared as float of unknown shape (ONNX Runtime infers the rest).
///
/// # Errors
/// Not an ONNX model, or no node of the graph produces `tensor`.
pub fn expose(bytes: Vec<u8>, tensor: &str) -> PResult<Vec<u8>> {
    let err = |offset: usize, reason: String| ProtoError { offset, reason };
    let (g, g_at) = model_graph(&bytes)?;
    // GraphProto: node = 1, output = 12.
    let mut produced = false;
    let mut outputs = Vec::new();
    let mut f = Fields::new(g, g_at);
    while let Some((field, at, v)) = f.next_field()? {
        match (field, v) {
            (12, Value::Bytes(b)) => {
                let name = name_of(b, at, 1)?.unwrap_or_default();
                if name == tensor {
                    return Ok(bytes);
                }
                outputs.push(name);
            }
            (1, Value::Bytes(b)) if !produced => {
                produced = read_node(b, at)?.outputs.iter().any(|o| o == tensor);
            }
            _ => {}
        }
    }
    if !produced {
        return Err(err(
            g_at,
            format!(
                "no output {tensor:?}: no node of the graph makes a tensor of that name \
                 (outputs: {})",
                outputs.join(", ")
            ),
        ));
    }
    let mut new_graph = g.to_vec();
    // ValueInfoProto { name, type: TypeProto { tensor_type: { elem_type: FLOAT } } }.
    let mut tensor_type = Vec::new();
    put_varint_field(1, dtype::FLOAT as u64, &mut tensor_type);
    let mut ty = Vec::new();
    put_bytes_field(1, &tensor_type, &mut ty);
    let mut vi = Vec::new();
    put_bytes_field(1, tensor.as_bytes(), &mut vi);
    put_bytes_field(2, &ty, &mut vi);
    put_bytes_field(12, &vi, &mut new_graph);
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut m = Fields::new(&bytes, 0);
    while let Some((field, _, _, raw)) = m.next_raw()? {
        if field == 7 {
            put_bytes_field(7, &new_graph, &mut out);
        } else {
            out.extend_from_slice(raw);
        }
    }
    Ok(out)
}

pub mod build;

#[cfg(test)]
mod tests {
    use super::build::*;
    use super::*;

    fn usem_like(spm: &[u8], add_eos: u8, reverse: u8) -> Vec<u8> {
        let tok = tokenizer_node(spm, dtype::INT64);
        let cast = node("Cast", "", &["ids"], &["ids64"], &[attr_int("to", 7)]);
        let size = node("Size", "", &["splits"], &["outputs"], &[]);
        let inits = [
            tensor("nbest", &[], dtype::INT64, &0i64.to_le_bytes()),
            tensor("alpha", &[], dtype::FLOAT, &1f32.to_le_bytes()),
            tensor("bos", &[], dtype::BOOL, &[1]),
            tensor("eos", &[], dtype::BOOL, &[add_eos]),
            tensor("rev", &[], dtype::BOOL, &[reverse]),
        ];
        model(
            &[tok, cast, size],
            &inits,
            &[("inputs", 8, &["N"])],
            &[("outputs", dtype::INT64, &[])],
            &[CONTRIB],
        )
    }

    #[test]
    fn the_tokenizer_is_cut_off_with_its_options() {
        let g = cut(usem_like(b"spm-bytes", 1, 0)).unwrap();
        let t = g.tokenizer.clone().unwrap();
        assert_eq!(t.model, b"spm-bytes");
        assert!(t.add_bos && t.add_eos);
        assert_eq!((t.ids.as_str(), t.splits.as_str()), ("ids", "splits"));
        assert_eq!((t.ids_type, t.splits_type), (dtype::INT32, dtype::INT64));
        // The rewritten graph has no tokenizer and no custom domain, and cuts again to itself.
        let again = cut(g.bytes.clone()).unwrap();
        assert!(again.tokenizer.is_none());
        assert_eq!(again.bytes, g.bytes);
        let text = String::from_utf8_lossy(&g.bytes);
        assert!(!text.contains(TOKENIZER_OP) && !text.contains(CONTRIB));
        assert!(text.contains("Cast") && text.contains("Size"));
        let t2 = cut(usem_like(b"m", 0, 0)).unwrap().tokenizer.unwrap();
        assert!(t2.add_bos && !t2.add_eos);
    }

    #[test]
    fn an_intermediate_tensor_is_exposed_once_and_a_missing_one_named() {
        let g = usem_like(b"m", 1, 0);
        // Already an output: the bytes unchanged.
        assert_eq!(expose(g.clone(), "outputs").unwrap(), g);
        // Made by a node: one more graph output (field 12), which exposing again keeps.
        let once = expose(g.clone(), "ids64").unwrap();
        assert!(once.len() > g.len());
        assert_eq!(expose(once.clone(), "ids64").unwrap(), once);
        let cut_once = cut(once).unwrap();
        assert!(String::from_utf8_lossy(&cut_once.bytes).contains("ids64"));
        // Made by no node: named with the graph's outputs.
        let e = expose(g, "pooled").unwrap_err();
        assert!(
            e.reason.contains("\"pooled\"") && e.reason.contains("outputs: outputs"),
            "{e:?}"
        );
        assert!(expose(b"\x0a\x03abc".to_vec(), "x").is_err());
    }

    #[test]
    fn graphs_it_cannot_run_are_refused_with_a_reason() {
        let e = cut(usem_like(b"m", 1, 1)).unwrap_err();
        assert!(e.reason.contains("reverses"), "{e:?}");
        let other = node("StringRegexReplace", CONTRIB, &["inputs"], &["o"], &[]);
        let e = cut(model(
            &[other],
            &[],
            &[("inputs", 8, &["N"])],
            &[],
            &[CONTRIB],
        ))
        .unwrap_err();
        assert!(e.reason.contains("StringRegexReplace"), "{e:?}");
        let e = cut(b"\x0a\x03abc".to_vec()).unwrap_err();
        assert!(e.reason.contains("not an ONNX model"), "{e:?}");
        let mut truncated = usem_like(b"m", 1, 0);
        truncated.truncate(truncated.len() - 3);
        assert!(cut(truncated).is_err());
        // A graph without a tokenizer is left as it is.
        let plain = model(
            &[node("Identity", "", &["x"], &["y"], &[])],
            &[],
            &[("x", dtype::FLOAT, &["N"])],
            &[("y", dtype::FLOAT, &["N"])],
            &[],
        );
        let g = cut(plain.clone()).unwrap();
        assert!(g.tokenizer.is_none() && g.bytes == plain);
    }
}
