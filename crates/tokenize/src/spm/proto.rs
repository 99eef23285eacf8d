//! Reading a sentencepiece `.model` file (a serialized `ModelProto`, protobuf wire format) in
//! Rust: the piece table and the few settings bitext reports. The C++ library parses the file
//! again to encode; reading it here first gives precise errors for corrupt files (with the byte
//! offset), id → piece lookups without FFI, and the model's metadata.
//!
//! Only the fields below are read; every other field is skipped by wire type, as protobuf
//! readers do. Field numbers are those of `sentencepiece_model.proto` (SentencePiece 0.2.1).

use std::fmt;

use bitext_core::io::proto::{Fields, ProtoError, Value, utf8, wrong_type};
use serde::{Deserialize, Serialize};

/// What a piece of a sentencepiece model is (`ModelProto.SentencePiece.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PieceType {
    /// An ordinary subword.
    Normal,
    /// The unknown piece (`<unk>`): exactly one per model.
    Unknown,
    /// A control symbol (`<s>`, `</s>`, `<pad>`): never produced from text, dropped by decoding.
    Control,
    /// A user-defined symbol (such as a language tag `<de>`): always one piece when it occurs
    /// in the text.
    UserDefined,
    /// A byte-fallback piece (`<0x41>`).
    Byte,
    /// A piece kept in the table but never used.
    Unused,
}

impl PieceType {
    fn from_proto(v: u64) -> Option<Self> {
        Some(match v {
            1 => PieceType::Normal,
            2 => PieceType::Unknown,
            3 => PieceType::Control,
            4 => PieceType::UserDefined,
            5 => PieceType::Unused,
            6 => PieceType::Byte,
            _ => return None,
        })
    }
}

/// The segmentation algorithm of a sentencepiece model (`TrainerSpec.ModelType`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelType {
    /// Unigram language model (Kudo 2018), sentencepiece's default.
    #[default]
    Unigram,
    /// Byte-pair encoding (Sennrich et al. 2016), as in Kim et al.'s joint BPE.
    Bpe,
    /// Whitespace-separated words.
    Word,
    /// Single characters.
    Char,
}

impl ModelType {
    fn from_proto(v: u64) -> Option<Self> {
        Some(match v {
            1 => ModelType::Unigram,
            2 => ModelType::Bpe,
            3 => ModelType::Word,
            4 => ModelType::Char,
            _ => return None,
        })
    }

    /// The name sentencepiece uses (`unigram`, `bpe`, `word`, `char`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ModelType::Unigram => "unigram",
            ModelType::Bpe => "bpe",
            ModelType::Word => "word",
            ModelType::Char => "char",
        }
    }
}

impl fmt::Display for ModelType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One entry of the piece table.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// The piece's text (`▁` stands for a space).
    pub piece: String,
    /// Its score (log probability for unigram models, merge order for BPE).
    pub score: f32,
    /// What it is.
    pub kind: PieceType,
}

/// What bitext reads from a `.model` file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelProto {
    pub(crate) pieces: Vec<Piece>,
    pub(crate) model_type: ModelType,
    pub(crate) byte_fallback: bool,
    pub(crate) normalizer: String,
}

type Result<T> = std::result::Result<T, ProtoError>;

fn read_piece(buf: &[u8], base: usize) -> Result<Piece> {
    let mut f = Fields::new(buf, base);
    let (mut piece, mut score, mut kind) = (None, 0.0f32, PieceType::Normal);
    while let Some((field, at, v)) = f.next_field()? {
        match (field, v) {
            (1, Value::Bytes(b)) => piece = Some(utf8(b, at, "piece")?),
            (2, Value::Fixed32(bits)) => score = f32::from_bits(bits),
            (3, Value::Varint(t)) => {
                kind = PieceType::from_proto(t).ok_or_else(|| ProtoError {
                    offset: at,
                    reason: format!("unknown piece type {t}"),
                })?;
            }
            (1, _) => return Err(wrong_type(at, "piece")),
            (2, _) => return Err(wrong_type(at, "score")),
            (3, _) => return Err(wrong_type(at, "piece type")),
            _ => {}
        }
    }
    let piece = piece.filter(|p| !p.is_empty()).ok_or_else(|| ProtoError {
        offset: base,
        reason: "a piece without text".into(),
    })?;
    // The library's trie reads pieces as C strings: a NUL would cut one short (an empty key
    // makes it throw and abort the process).
    if piece.contains('\0') {
        return Err(ProtoError {
            offset: base,
            reason: format!("piece {piece:?} holds a NUL character"),
        });
    }
    Ok(Piece { piece, score, kind })
}

/// Parse a serialized `ModelProto`.
pub(crate) fn parse(buf: &[u8]) -> Result<ModelProto> {
    if buf.is_empty() {
        return Err(ProtoError {
            offset: 0,
            reason: "empty file: not a sentencepiece model".into(),
        });
    }
    let mut model = ModelProto {
        pieces: Vec::new(),
        model_type: ModelType::Unigram,
        byte_fallback: false,
        normalizer: String::new(),
    };
    let mut f = Fields::new(buf, 0);
    while let Some((field, at, v)) = f.next_field()? {
        match (field, v) {
            (1, Value::Bytes(b)) => model.pieces.push(read_piece(b, at)?),
            (2, Value::Bytes(b)) => read_trainer_spec(b, at, &mut model)?,
            (3, Value::Bytes(b)) => {
                let mut n = Fields::new(b, at);
                while let Some((field, at, v)) = n.next_field()? {
                    if let (1, Value::Bytes(name)) = (field, v) {
                        model.normalizer = utf8(name, at, "normalizer name")?;
                    }
                }
            }
            (1..=5, _) => return Err(wrong_type(at, "a ModelProto field")),
            _ => {}
        }
    }
    if model.pieces.is_empty() {
        return Err(ProtoError {
            offset: 0,
            reason: "no pieces: not a sentencepiece model".into(),
        });
    }
    let unknown = model
        .pieces
        .iter()
        .filter(|p| p.kind == PieceType::Unknown)
        .count();
    if unknown != 1 {
        return Err(ProtoError {
            offset: 0,
            reason: format!("{unknown} unknown pieces (a sentencepiece model has exactly one)"),
        });
    }
    Ok(model)
}

fn read_trainer_spec(buf: &[u8], base: usize, model: &mut ModelProto) -> Result<()> {
    let mut f = Fields::new(buf, base);
    while let Some((field, at, v)) = f.next_field()? {
        match (field, v) {
            (3, Value::Varint(t)) => {
                model.model_type = ModelType::from_proto(t).ok_or_else(|| ProtoError {
                    offset: at,
                    reason: format!("unknown model type {t}"),
                })?;
            }
            (35, Value::Varint(b)) => model.byte_fallback = b != 0,
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Protobuf encoding helpers for hand-built models.
    pub(crate) use bitext_core::io::proto::{put_bytes_field as bytes_field, put_varint as varint};

    pub(crate) fn piece(text: &str, score: f32, kind: u64) -> Vec<u8> {
        let mut p = Vec::new();
        bytes_field(1, text.as_bytes(), &mut p);
        varint(2 << 3 | 5, &mut p);
        p.extend_from_slice(&score.to_le_bytes());
        varint(3 << 3, &mut p);
        varint(kind, &mut p);
        p
    }

    fn model(pieces: &[Vec<u8>], model_type: u64) -> Vec<u8> {
        let mut m = Vec::new();
        for p in pieces {
            bytes_field(1, p, &mut m);
        }
        let mut spec = Vec::new();
        varint(3 << 3, &mut spec);
        varint(model_type, &mut spec);
        varint(35 << 3, &mut spec);
        varint(1, &mut spec);
        bytes_field(2, &spec, &mut m);
        let mut norm = Vec::new();
        bytes_field(1, b"identity", &mut norm);
        bytes_field(3, &norm, &mut m);
        // An unknown field (a fixed64 numbered 99) is skipped.
        varint(99 << 3 | 1, &mut m);
        m.extend_from_slice(&[0; 8]);
        m
    }

    #[test]
    fn reads_pieces_types_and_settings() {
        let m = model(
            &[
                piece("<unk>", 0.0, 2),
                piece("<s>", 0.0, 3),
                piece("▁a", -1.5, 1),
            ],
            2,
        );
        let p = parse(&m).unwrap();
        assert_eq!(p.pieces.len(), 3);
        assert_eq!(p.pieces[2].piece, "▁a");
        assert!((p.pieces[2].score + 1.5).abs() < 1e-6);
        assert_eq!(p.pieces[0].kind, PieceType::Unknown);
        assert_eq!(p.pieces[1].kind, PieceType::Control);
        assert_eq!(p.model_type, ModelType::Bpe);
        assert!(p.byte_fallback);
        assert_eq!(p.normalizer, "identity");
    }

    /// Found by fuzzing: a model whose unknown piece is not called `<unk>` (and which has a
    /// normal piece `<unk>`) made the sentencepiece crate's `unk_id` assert; bitext reads the
    /// unknown piece from the model instead.
    #[test]
    fn an_unknown_piece_by_another_name_loads() {
        use crate::Tokenizer;
        // The fuzzer's input: `<ulk>` is the unknown piece, the trainer spec's unk_id is 1.
        let parts: [&[u8]; 12] = [
            b"\x0a\x0e\x0a\x05\x3c\x70\x61\x64\x3e\x15\x00\x00\x00\x00\x18\x03",
            b"\x0a\x0e\x0a\x05\x3c\x75\x6c\x6b\x3e\x15\x00\x00\x00\x00\x18\x02",
            b"\x0a\x0c\x0a\x03\x3c\x73\x3e\x15\x00\x00\x00\x00\x18\x03\x0a\x0d",
            b"\x0a\x04\x3c\x2f\x73\x3e\x15\x00\x00\x00\x00\x18\x03\x0a\x0b\x0a",
            b"\x04\xe2\x96\x81\x64\x15\x00\x00\x00\x80\x0a\x09\x0a\x02\x64\x21",
            b"\x15\x00\x00\x80\xbf\x0a\x09\x0a\x02\x69\x73\x15\x00\x00\x40\xc0",
            b"\x0a\x0c\x0a\x05\x3c\x75\x6e\x6b\x3e\x15\x00\x00\x80\xc0\x0a\x09",
            b"\x0a\x02\x61\x74\x15\x00\x00\x0c\xc2\x12\x2d\x18\x02\x20\x28\x55",
            b"\x3b\xdf\x7f\x3f\x58\x00\x80\x01\x01\x90\x01\xe0\x20\x98\x01\x00",
            b"\xa0\x01\x10\xc8\x01\x00\x88\x02\x01\x98\x02\x00\xc0\x02\x01\xc8",
            b"\x02\x02\xd0\x02\x03\xd8\x02\x00\x1a\x0c\x0a\x08\x69\x64\x65\x6e",
            b"\x74\x69\x74\x79\x12\x00",
        ];
        let sp = super::super::Sentencepiece::from_bytes(parts.concat()).unwrap();
        assert_eq!(sp.special_ids().unk, Some(1));
        assert!(sp.encode("hello").is_ok());
    }

    /// Found by fuzzing: a piece "\0" made the library's trie throw (and abort the process).
    #[test]
    fn pieces_with_a_nul_are_rejected() {
        let m = model(&[piece("<unk>", 0.0, 2), piece("\0", 0.0, 1)], 1);
        let e = parse(&m).unwrap_err();
        assert!(e.reason.contains("NUL"), "{}", e.reason);
    }

    #[test]
    fn corrupt_models_are_rejected_with_an_offset() {
        let good = model(&[piece("<unk>", 0.0, 2), piece("a", -1.0, 1)], 1);
        for cut in [1, 5, good.len() - 3] {
            let e = parse(&good[..cut]).unwrap_err();
            assert!(e.reason.contains("truncated"), "{cut}: {e:?}");
            assert!(e.offset <= cut, "{cut}: {e:?}");
        }
        assert!(parse(b"").unwrap_err().reason.contains("empty"));
        // Text is not a model: 'h' = field 13, wire type 0, then 'l' = wire type 4 (a group).
        let e = parse(b"hello world\n").unwrap_err();
        assert!(e.reason.contains("wire type"), "{e:?}");
        let no_unk = model(&[piece("a", -1.0, 1)], 1);
        assert!(
            parse(&no_unk)
                .unwrap_err()
                .reason
                .contains("0 unknown pieces")
        );
        let bad_type = model(&[piece("<unk>", 0.0, 2), piece("a", -1.0, 9)], 1);
        assert!(
            parse(&bad_type)
                .unwrap_err()
                .reason
                .contains("piece type 9")
        );
        let mut bad_utf8 = piece("<unk>", 0.0, 2);
        bad_utf8[2] = 0xff;
        assert!(
            parse(&model(&[bad_utf8], 1))
                .unwrap_err()
                .reason
                .contains("UTF-8")
        );
    }
}
