//! fastText's dictionary (`dictionary.cc`): the words and labels of a model, and how a line
//! becomes the input rows whose average is the hidden vector: each word's own row and its
//! character n-grams, hashed (FNV-1a over bytes, with fastText's signed `char`) into buckets,
//! then word n-grams.

use rustc_hash::FxHashMap;

use crate::error::Result;

use super::read::Reader;

/// The end-of-sentence token fastText appends to every line.
pub(super) const EOS: &[u8] = b"</s>";
/// The prefix that makes a token a label (fastText's default `-label`, not stored in files).
pub(super) const LABEL_PREFIX: &str = "__label__";
/// The bytes fastText splits tokens on (`Dictionary::readWord`).
const SEPARATORS: &[u8] = b" \n\r\t\x0b\x0c\0";

/// FNV-1a's offset basis.
const FNV_OFFSET: u32 = 2_166_136_261;

/// One step of fastText's FNV-1a: the byte goes in sign-extended, as `int8_t` (the hash of the
/// released models, whatever the compiler's `char`).
fn fnv_step(h: u32, b: u8) -> u32 {
    (h ^ (b as i8 as i32 as u32)).wrapping_mul(16_777_619)
}

/// fastText's hash of a token (`Dictionary::hash`).
pub(super) fn hash(bytes: &[u8]) -> u32 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| fnv_step(h, b))
}

/// The settings of the model that tokenisation needs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hashing {
    /// Shortest character n-gram.
    pub(super) minn: i32,
    /// Longest character n-gram (0: none).
    pub(super) maxn: i32,
    /// Number of hash buckets.
    pub(super) bucket: i32,
    /// Longest word n-gram (1: words only).
    pub(super) word_ngrams: i32,
}

impl Hashing {
    /// Whether any token can hash into a bucket.
    pub(super) fn hashes(&self) -> bool {
        self.maxn != 0 || self.word_ngrams > 1
    }
}

/// How bucket ids map to rows after pruning (`pruneidx_`).
#[derive(Debug)]
enum Prune {
    /// Not pruned: bucket `b` is row `nwords + b`.
    No,
    /// Pruned: only the buckets in the map have rows.
    Map(FxHashMap<i32, i32>),
}

/// The scratch space of [`Dictionary::line_rows`]: the rows it finds, a token's bytes with
/// its brackets, the tokens' hashes.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// The line's input rows.
    pub(super) rows: Vec<u32>,
    buf: Vec<u8>,
    hashes: Vec<i32>,
}

/// The words and labels of a model.
#[derive(Debug)]
pub(super) struct Dictionary {
    entries: Vec<Box<[u8]>>,
    nwords: usize,
    /// Open addressing over [`hash`], as fastText's `word2int_` (`-1`: empty).
    table: Vec<i32>,
    /// Each word's input rows (itself, then its character n-grams), flattened.
    subwords: Vec<u32>,
    /// Where each word's rows start in `subwords` (`nwords + 1` offsets).
    offsets: Vec<usize>,
    hashing: Hashing,
    prune: Prune,
    labels: Vec<String>,
    label_counts: Vec<i64>,
}

impl Dictionary {
    /// Read the dictionary that follows the header.
    pub(super) fn read(r: &mut Reader<'_>, hashing: Hashing) -> Result<Self> {
        let at = r.pos();
        let size = r.i32("dictionary size")?;
        let nwords = r.i32("word count")?;
        let nlabels = r.i32("label count")?;
        let _ntokens = r.i64("token count")?;
        let prune_at = r.pos();
        let pruneidx_size = r.i64("pruned bucket count")?;
        // Each entry takes at least 10 bytes: a NUL, a count and a type.
        let max = i64::try_from(r.left() / 10).unwrap_or(i64::MAX);
        let size = r.count(at, i64::from(size), 1, max, "dictionary size")?;
        let nwords = r.count(at + 4, i64::from(nwords), 0, size as i64, "word count")?;
        let nlabels = r.count(at + 8, i64::from(nlabels), 1, size as i64, "label count")?;
        if nwords + nlabels != size {
            return Err(r.error_at(
                at,
                format!("{nwords} words and {nlabels} labels make no dictionary of {size}"),
            ));
        }
        let mut entries = Vec::with_capacity(size);
        let mut labels = Vec::with_capacity(nlabels);
        let mut label_counts = Vec::with_capacity(nlabels);
        for i in 0..size {
            let start = r.pos();
            let word = r.word("a dictionary entry")?;
            let count = r.i64("an entry's count")?;
            let kind = r.u8("an entry's type")?;
            let want = u8::from(i >= nwords);
            if kind != want {
                let what = ["a word", "a label"];
                return Err(r.error_at(
                    start,
                    format!(
                        "entry {i} is {} (type {kind}) where {} belongs (the {nwords} words first)",
                        what.get(usize::from(kind)).unwrap_or(&"of no known type"),
                        what[usize::from(want)],
                    ),
                ));
            }
            if i >= nwords {
                let Ok(label) = std::str::from_utf8(word) else {
                    return Err(r.error_at(start, format!("label {} is not UTF-8", i - nwords)));
                };
                labels.push(label.strip_prefix(LABEL_PREFIX).unwrap_or(label).to_owned());
                label_counts.push(count);
            }
            entries.push(Box::from(word));
        }
        let prune = if pruneidx_size < 0 {
            Prune::No
        } else {
            let n = r.count(
                prune_at,
                pruneidx_size,
                0,
                (r.left() / 8) as i64,
                "pruned count",
            )?;
            let mut map = FxHashMap::default();
            map.reserve(n);
            for _ in 0..n {
                let from = r.i32("a pruned bucket")?;
                let to = r.i32("a pruned bucket's row")?;
                map.insert(from, to);
            }
            Prune::Map(map)
        };
        let mut dict = Self {
            entries,
            nwords,
            table: Vec::new(),
            subwords: Vec::new(),
            offsets: Vec::new(),
            hashing,
            prune,
            labels,
            label_counts,
        };
        dict.build_table();
        dict.init_ngrams();
        Ok(dict)
    }

    /// The labels without their `__label__` prefix, in the model's order.
    pub(super) fn labels(&self) -> &[String] {
        &self.labels
    }

    /// How often each label was seen in training (hierarchical softmax's tree is built on them).
    pub(super) fn label_counts(&self) -> &[i64] {
        &self.label_counts
    }

    /// Whether the n-gram buckets were pruned (`isPruned`; only quantized models are).
    pub(super) fn is_pruned(&self) -> bool {
        matches!(self.prune, Prune::Map(_))
    }

    /// Number of words (the first input rows).
    pub(super) fn nwords(&self) -> usize {
        self.nwords
    }

    /// The most rows [`Dictionary::line_rows`] can name (one past the largest row): words, then
    /// buckets or the rows pruning kept (an error when a pruned row is negative).
    pub(super) fn rows_needed(&self) -> std::result::Result<usize, String> {
        let bucket = usize::try_from(self.hashing.bucket).unwrap_or(0);
        let extra = match &self.prune {
            Prune::No if self.hashing.hashes() => bucket,
            Prune::No => 0,
            Prune::Map(map) => {
                let mut most = 0;
                for &to in map.values() {
                    let to = usize::try_from(to)
                        .map_err(|_| format!("pruned bucket mapped to row {to}"))?;
                    most = most.max(to + 1);
                }
                most
            }
        };
        Ok(self.nwords + extra)
    }

    fn build_table(&mut self) {
        let n = ((self.entries.len() as f64) / 0.7).ceil() as usize;
        self.table = vec![-1; n.max(1)];
        for i in 0..self.entries.len() {
            let slot = self.find(&self.entries[i], hash(&self.entries[i]));
            self.table[slot] = i as i32;
        }
    }

    /// The slot of `word` in the table, or the empty slot where it would go (`find`).
    fn find(&self, word: &[u8], h: u32) -> usize {
        let n = self.table.len();
        let mut id = h as usize % n;
        while let Ok(e) = usize::try_from(self.table[id]) {
            if *self.entries[e] == *word {
                break;
            }
            id = (id + 1) % n;
        }
        id
    }

    /// The id of `word`, if the dictionary has it.
    fn id(&self, word: &[u8], h: u32) -> Option<usize> {
        usize::try_from(self.table[self.find(word, h)]).ok()
    }

    /// Each word's rows: itself, then the n-grams of `<word>` (none for `</s>`; `initNgrams`).
    fn init_ngrams(&mut self) {
        self.offsets = Vec::with_capacity(self.nwords + 1);
        self.offsets.push(0);
        if self.hashing.maxn <= 0 {
            return;
        }
        let mut buf = Vec::new();
        for i in 0..self.nwords {
            let mut rows = std::mem::take(&mut self.subwords);
            rows.push(i as u32);
            if *self.entries[i] != *EOS {
                self.char_ngrams(&self.entries[i], &mut buf, &mut rows);
            }
            self.subwords = rows;
            self.offsets.push(self.subwords.len());
        }
    }

    /// Push the row of bucket id `id`, if it has one (`pushHash`).
    fn push_hash(&self, rows: &mut Vec<u32>, id: u64) {
        let Some(id) = self.bucket_of(id) else {
            return;
        };
        let row = match &self.prune {
            Prune::No => id,
            Prune::Map(map) => match map.get(&(id as i32)) {
                Some(&to) => to as u32 as usize,
                None => return,
            },
        };
        rows.push((self.nwords + row) as u32);
    }

    /// `h % bucket` (no bucket: none); in 32 bits when both fit, as a character n-gram's
    /// hash always does (the same remainder, a cheaper division).
    fn bucket_of(&self, h: u64) -> Option<usize> {
        let bucket = u32::try_from(self.hashing.bucket).ok().filter(|&b| b > 0)?;
        Some(match u32::try_from(h) {
            Ok(h) => (h % bucket) as usize,
            Err(_) => (h % u64::from(bucket)) as usize,
        })
    }

    /// Push the rows of the character n-grams of `<token>` (`computeSubwords`): n-grams of
    /// `minn` to `maxn` characters (UTF-8 sequences), except the bare `<` and `>`.
    fn char_ngrams(&self, token: &[u8], buf: &mut Vec<u8>, rows: &mut Vec<u32>) {
        buf.clear();
        buf.push(b'<');
        buf.extend_from_slice(token);
        buf.push(b'>');
        let word = &buf[..];
        let len = word.len();
        // fastText compares `size_t n` with the `int` settings: a negative one wraps.
        let (minn, maxn) = (self.hashing.minn as usize, self.hashing.maxn as usize);
        let continuation = |b: u8| b & 0xC0 == 0x80;
        for i in 0..len {
            if continuation(word[i]) {
                continue;
            }
            let (mut h, mut j, mut n) = (FNV_OFFSET, i, 1usize);
            while j < len && n <= maxn {
                h = fnv_step(h, word[j]);
                j += 1;
                while j < len && continuation(word[j]) {
                    h = fnv_step(h, word[j]);
                    j += 1;
                }
                if n >= minn && !(n == 1 && (i == 0 || j == len)) {
                    self.push_hash(rows, u64::from(h));
                }
                n += 1;
            }
        }
    }

    /// The input rows of one line (`Dictionary::getLine` on the line and its newline): tokens
    /// split on fastText's separators, then `</s>`; each word's rows, an unknown word's
    /// character n-grams, tokens that look like labels skipped; reading stops after a `</s>`;
    /// word n-grams last. `buf` is scratch space.
    pub(super) fn line_rows(&self, text: &str, scratch: &mut Scratch) {
        let Scratch { rows, buf, hashes } = scratch;
        rows.clear();
        hashes.clear();
        let tokens = text
            .as_bytes()
            .split(|b| SEPARATORS.contains(b))
            .filter(|t| !t.is_empty())
            .chain(std::iter::once(EOS));
        for token in tokens {
            let h = hash(token);
            let wid = self.id(token, h);
            let is_word = match wid {
                Some(id) => id < self.nwords,
                None => !token.starts_with(LABEL_PREFIX.as_bytes()),
            };
            if is_word {
                match wid {
                    None if token != EOS => self.char_ngrams(token, buf, rows),
                    None => {}
                    Some(id) if self.hashing.maxn <= 0 => rows.push(id as u32),
                    Some(id) => {
                        rows.extend_from_slice(
                            &self.subwords[self.offsets[id]..self.offsets[id + 1]],
                        );
                    }
                }
                hashes.push(h as i32);
            }
            if token == EOS {
                break;
            }
        }
        self.word_ngrams(hashes, rows);
    }

    /// Push the rows of the word n-grams of 2 to `wordNgrams` words (`addWordNgrams`; the
    /// hashes go in sign-extended, as fastText's `int32_t` to `uint64_t`).
    fn word_ngrams(&self, hashes: &[i32], rows: &mut Vec<u32>) {
        let n = usize::try_from(self.hashing.word_ngrams).unwrap_or(0);
        for i in 0..hashes.len() {
            let mut h = hashes[i] as i64 as u64;
            for &next in hashes.iter().take(i.saturating_add(n)).skip(i + 1) {
                h = h.wrapping_mul(116_049_371).wrapping_add(next as i64 as u64);
                self.push_hash(rows, h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_fnv1a_with_signed_bytes() {
        // FNV-1a's published test vectors for ASCII, where signed and unsigned agree.
        assert_eq!(hash(b""), 0x811c_9dc5);
        assert_eq!(hash(b"a"), 0xe40c_292c);
        assert_eq!(hash(b"foobar"), 0xbf9c_f968);
        // Bytes from 0x80 go in as 0xffffff80 and up: "é" (c3 a9) differs from FNV-1a's.
        let unsigned = [0xc3u8, 0xa9].iter().fold(FNV_OFFSET, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(16_777_619)
        });
        assert_ne!(hash("é".as_bytes()), unsigned);
        let by_hand = ((FNV_OFFSET ^ 0xffff_ffc3).wrapping_mul(16_777_619) ^ 0xffff_ffa9)
            .wrapping_mul(16_777_619);
        assert_eq!(hash("é".as_bytes()), by_hand);
    }
}
