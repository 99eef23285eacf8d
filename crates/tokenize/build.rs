//! Build script of `bitext-tokenize`: with the `sentencepiece` feature, compile the C++ shim
//! around SentencePiece's trainer (`cpp/shim.cc`) and link `libsentencepiece_train.a`, which
//! `sentencepiece-sys` (bitext's copy, vendor/sentencepiece-sys) compiles with the `cc` crate,
//! beside its `libsentencepiece.a`, into a directory it already puts on the link path.
//! Without the feature this does nothing: the default build is pure Rust.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "sentencepiece")]
    shim();
}

#[cfg(feature = "sentencepiece")]
fn shim() {
    for f in [
        "cpp/shim.cc",
        "cpp/sentencepiece_trainer.h",
        "cpp/sentencepiece_processor.h",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    let mut build = cc::Build::new();
    build.cpp(true).include("cpp").file("cpp/shim.cc");
    if build.get_compiler().is_like_msvc() {
        build.flag("/std:c++17").flag("/utf-8");
    } else {
        build.flag("-std=c++17");
    }
    build.compile("bitext_spm_shim");
    // After the shim on the link line, before sentencepiece-sys's libsentencepiece.a (which
    // the trainer needs): rustc orders a crate's native libraries before its dependencies'.
    println!("cargo:rustc-link-lib=static=sentencepiece_train");
}
