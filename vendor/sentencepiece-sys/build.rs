// Build script of bitext's copy of sentencepiece-sys 0.14.0 (see vendor/README.md in bitext).
//
// Upstream's script builds the vendored SentencePiece 0.2.1 (`source/`) with cmake. This one
// compiles the same sources with the `cc` crate, so that building needs only a C++17 compiler:
// the lists below are those of `source/src/CMakeLists.txt` (SPM_SRCS with the builtin
// protobuf-lite and absl, SPM_TRAIN_SRCS) and the flags those of its Release build. It makes the
// two static libraries cmake made, under the same names, in OUT_DIR:
//
// - `libsentencepiece.a`, linked here (with the C wrapper `src/ffi/sentencepiece.cpp`);
// - `libsentencepiece_train.a`, the trainer, only compiled: OUT_DIR is on the link path of every
//   crate that depends on this one, and a crate that calls `SentencePieceTrainer` links it
//   itself (`cargo:rustc-link-lib=static=sentencepiece_train`), as with upstream's cmake build.
//
// The `system` feature (and, without `static`, a SentencePiece that pkg-config finds) links
// the system's library instead, unchanged from upstream.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use cc::Build;

macro_rules! feature(($name:expr) => (env::var(concat!("CARGO_FEATURE_", $name)).is_ok()));

/// `source/third_party/protobuf-lite`: PROTOBUF_LITE_SRCS.
const PROTOBUF_LITE: &[&str] = &[
    "arena.cc",
    "arenastring.cc",
    "bytestream.cc",
    "coded_stream.cc",
    "common.cc",
    "extension_set.cc",
    "generated_enum_util.cc",
    "generated_message_table_driven_lite.cc",
    "generated_message_util.cc",
    "implicit_weak_message.cc",
    "int128.cc",
    "io_win32.cc",
    "message_lite.cc",
    "parse_context.cc",
    "repeated_field.cc",
    "status.cc",
    "statusor.cc",
    "stringpiece.cc",
    "stringprintf.cc",
    "structurally_valid.cc",
    "strutil.cc",
    "time.cc",
    "wire_format_lite.cc",
    "zero_copy_stream.cc",
    "zero_copy_stream_impl.cc",
    "zero_copy_stream_impl_lite.cc",
];

/// `source/src`: the rest of SPM_SRCS (the generated protobuf code of `builtin_pb` included).
const SPM: &[&str] = &[
    "builtin_pb/sentencepiece.pb.cc",
    "builtin_pb/sentencepiece_model.pb.cc",
    "bpe_model.cc",
    "char_model.cc",
    "error.cc",
    "filesystem.cc",
    "model_factory.cc",
    "model_interface.cc",
    "normalizer.cc",
    "sentencepiece_processor.cc",
    "unigram_model.cc",
    "util.cc",
    "word_model.cc",
];

/// `source/src`: SPM_TRAIN_SRCS.
const SPM_TRAIN: &[&str] = &[
    "builder.cc",
    "unicode_script.cc",
    "trainer_factory.cc",
    "trainer_interface.cc",
    "unigram_model_trainer.cc",
    "word_model_trainer.cc",
    "char_model_trainer.cc",
    "bpe_model_trainer.cc",
    "sentencepiece_trainer.cc",
    "pretokenizer_for_training.cc",
];

/// `config.h` from `source/config.h.in`, as cmake's `configure_file` writes it, in a directory
/// of its own under OUT_DIR (returned). INSTALL_DATADIR is where cmake would have installed the
/// data files (`<prefix>/share/sentencepiece`, the prefix being OUT_DIR under the cmake crate);
/// it is read only by builds with DISABLE_EMBEDDED_DATA, which this is not.
fn config_h(source: &Path, out: &Path) -> PathBuf {
    let version = fs::read_to_string(source.join("VERSION.txt")).expect("source/VERSION.txt");
    let datadir = out.join("share").join("sentencepiece");
    let datadir = datadir.to_string_lossy().replace('\\', "\\\\").replace('"', "\\\"");
    let text = fs::read_to_string(source.join("config.h.in"))
        .expect("source/config.h.in")
        .replace("@PROJECT_VERSION@", version.trim())
        .replace("@PROJECT_NAME@", "sentencepiece")
        .replace("@INSTALL_DATADIR@", &datadir);
    let dir = out.join("config");
    fs::create_dir_all(&dir).expect("create OUT_DIR/config");
    fs::write(dir.join("config.h"), text).expect("write config.h");
    dir
}

/// A `cc` build with the include directories, definitions and flags of SentencePiece's cmake
/// build (`source/CMakeLists.txt`, `source/src/CMakeLists.txt`; Release: `-O3 -DNDEBUG`).
fn spm_build(source: &Path, config: &Path) -> Build {
    let mut b = Build::new();
    b.cpp(true)
        .include(source)
        .include(config)
        .include(source.join("third_party/absl"))
        .include(source.join("third_party/protobuf-lite"))
        .include(source.join("src/builtin_pb"))
        .include(source.join("third_party"))
        .define("_USE_INTERNAL_STRING_VIEW", None)
        .define("HAVE_PTHREAD", "1")
        // As the cmake build: its warnings are upstream's to fix, not bitext's to read.
        .warnings(false)
        .cargo_warnings(false);
    // cmake's Release and RelWithDebInfo (any opt-level but 0, under the cmake crate).
    if env::var("OPT_LEVEL").is_ok_and(|l| l != "0") {
        b.define("NDEBUG", None);
    }
    if b.get_compiler().is_like_msvc() {
        for f in [
            "/std:c++17",
            "/wd4018",
            "/wd4514",
            "/wd4267",
            "/wd4244",
            "/wd4305",
            "/Zc:strictStrings",
            "/utf-8",
        ] {
            b.flag(f);
        }
    } else {
        // gnu++17: cmake's CMAKE_CXX_STANDARD 17 with its default CMAKE_CXX_EXTENSIONS.
        b.flag("-std=gnu++17")
            .flag("-pthread")
            .flag("-w")
            .flag("-Wno-sign-compare")
            .flag("-Wno-deprecated-declarations");
        // Source paths out of __FILE__, as cmake does for GCC > 8 and Clang > 10.
        let map = format!("-fmacro-prefix-map={}/=", source.display());
        b.flag_if_supported(map);
    }
    b
}

fn build_sentencepiece(builder: &mut Build) {
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let source = root.join("source");
    let config = config_h(&source, &out);

    let mut lib = spm_build(&source, &config);
    for f in PROTOBUF_LITE {
        lib.file(source.join("third_party/protobuf-lite").join(f));
    }
    for f in SPM {
        lib.file(source.join("src").join(f));
    }
    lib.file(source.join("third_party/absl/flags/flag.cc"));
    // Prints `rustc-link-lib=static=sentencepiece` and puts OUT_DIR on the link path.
    lib.compile("sentencepiece");

    let mut train = spm_build(&source, &config);
    for f in SPM_TRAIN {
        train.file(source.join("src").join(f));
    }
    // Not linked here: see the top of this file.
    train.cargo_metadata(false).compile("sentencepiece_train");

    builder.include(source.join("src"));
}

fn find_sentencepiece(builder: &mut Build) -> bool {
    let lib = match pkg_config::Config::new().probe("sentencepiece") {
        Ok(lib) => lib,
        Err(_) => return false,
    };

    // Add include paths
    for i in &lib.include_paths {
        builder.include(i);
    }

    true
}

fn main() {
    let mut builder = Build::new();

    if feature!("SYSTEM") {
        find_sentencepiece(&mut builder);
    } else if feature!("STATIC") || !find_sentencepiece(&mut builder) {
        build_sentencepiece(&mut builder);
    }

    builder.file("src/ffi/sentencepiece.cpp").cpp(true);

    if builder.get_compiler().is_like_msvc() {
        builder.flag("/std:c++17");
        // same as https://github.com/google/sentencepiece/blob/master/CMakeLists.txt#L82C21-L82C28
        builder.flag("/wd4267");
        builder.flag("/wd4244");
        builder.flag("/wd4305");
        builder.flag("/Zc:strictStrings");
        builder.flag("/utf-8");
    } else {
        builder.flag("-std=c++17");
    }

    builder.compile("sentencepiece_wrap");

    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=source");
    println!("cargo:rerun-if-changed=src/ffi/sentencepiece.cpp");
}
