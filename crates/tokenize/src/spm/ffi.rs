//! The one place with `unsafe` in bitext-tokenize: the call into `cpp/shim.cc`, a C entry point
//! to SentencePiece's C++ trainer (`SentencePieceTrainer::Train` with options as key/value
//! strings, sentences from a `SentenceIterator`, the model serialized in memory).
#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_int, c_uint};
use std::sync::Mutex;

unsafe extern "C" {
    fn bitext_spm_train(
        keys: *const *const c_char,
        values: *const *const c_char,
        nkw: usize,
        sentences: *const *const c_char,
        lens: *const usize,
        n: usize,
        seed: c_uint,
        model: *mut *mut c_char,
        model_len: *mut usize,
        err: *mut c_char,
        errlen: usize,
    ) -> c_int;

    fn bitext_spm_free(model: *mut c_char);
}

/// SentencePiece's trainer keeps process-wide state (log level, random seed, pretokenizer):
/// one training at a time.
static TRAINING: Mutex<()> = Mutex::new(());

/// Train a model with the given options on `sentences`; returns the serialized `ModelProto`
/// or SentencePiece's error message.
///
/// Option keys and values must not contain NUL bytes (they are SentencePiece flag names and
/// numbers or validated symbols, built by the caller).
pub(crate) fn train(
    options: &[(&str, String)],
    sentences: &[&str],
    seed: u32,
) -> Result<Vec<u8>, String> {
    let to_c = |s: &str| CString::new(s).map_err(|_| format!("option {s:?} contains a NUL byte"));
    let keys = options
        .iter()
        .map(|(k, _)| to_c(k))
        .collect::<Result<Vec<_>, _>>()?;
    let values = options
        .iter()
        .map(|(_, v)| to_c(v))
        .collect::<Result<Vec<_>, _>>()?;
    let key_ptrs: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr()).collect();
    let value_ptrs: Vec<*const c_char> = values.iter().map(|v| v.as_ptr()).collect();
    let sentence_ptrs: Vec<*const c_char> = sentences.iter().map(|s| s.as_ptr().cast()).collect();
    let lens: Vec<usize> = sentences.iter().map(|s| s.len()).collect();
    let mut err = vec![0 as c_char; 4096];
    let mut model: *mut c_char = std::ptr::null_mut();
    let mut model_len = 0usize;

    let _guard = TRAINING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: every pointer array has the length passed beside it and outlives the call
    // (`keys`, `values`, `sentences` and the vectors of pointers are alive until the end of
    // this function); the option strings are NUL-terminated `CString`s; sentences are passed
    // as (pointer, length) and only read; `err` is writable for `err.len()` bytes and the shim
    // NUL-terminates what it writes; `model`/`model_len` are valid out-pointers. The shim
    // catches every C++ exception, so none unwinds into Rust.
    let rc = unsafe {
        bitext_spm_train(
            key_ptrs.as_ptr(),
            value_ptrs.as_ptr(),
            key_ptrs.len(),
            sentence_ptrs.as_ptr(),
            lens.as_ptr(),
            lens.len(),
            seed,
            &raw mut model,
            &raw mut model_len,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if rc != 0 {
        // SAFETY: `err` was zero-filled and the shim writes at most `err.len() - 1` bytes and a
        // NUL, so it holds a NUL-terminated string within its bounds.
        let msg = unsafe { CStr::from_ptr(err.as_ptr()) };
        return Err(msg.to_string_lossy().into_owned());
    }
    if model.is_null() {
        return Err("the trainer returned no model".into());
    }
    // SAFETY: on success the shim set `model` to a malloc'd buffer of `model_len` bytes, which
    // we copy and then release exactly once with the shim's matching `free`.
    let bytes = unsafe { std::slice::from_raw_parts(model.cast::<u8>(), model_len) }.to_vec();
    // SAFETY: see above; `model` is not used after this.
    unsafe { bitext_spm_free(model) };
    Ok(bytes)
}
