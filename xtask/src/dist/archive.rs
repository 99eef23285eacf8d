//! The release archive: the binary built by cargo-zigbuild for an architecture and a glibc,
//! ONNX Runtime beside it, manual pages and completions made by running it, then unpacked and
//! checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, ensure};

use super::ort::onnxruntime;
use super::{Options, Tools, copy, max_glibc, parse_version, version};
use crate::{project_root, run_cmd, run_timed, shown, target_dir};

/// Build the binary with cargo-zigbuild, stage the archive's tree, pack and check it.
pub(super) fn archive(
    tools: &Tools,
    o: &Options,
    dist: &Path,
    times: &mut Vec<(String, f64)>,
) -> Result<PathBuf> {
    let (arch, glibc) = (o.arch, o.glibc.as_str());
    ensure!(
        cfg!(target_os = "linux") && super::Arch::host().is_some(),
        "cargo xtask dist builds on Linux x86-64 or aarch64 only (it runs the binary it built \
         for the manual pages and completions)"
    );
    let build_dir = target_dir().join("dist-build");
    let secs = run_timed(
        tools
            .command(tools.zigbuild())
            .args([
                "zigbuild",
                "--release",
                "-p",
                "bitext-cli",
                "--bin",
                "bitext",
                "--target",
            ])
            .arg(format!("{}.{glibc}", arch.triple()))
            .env("CARGO_TARGET_DIR", &build_dir),
    )?;
    times.push((
        format!("zigbuild bitext ({}, release, glibc {glibc})", arch.shown()),
        secs,
    ));
    let binary = build_dir.join(arch.triple()).join("release/bitext");
    let newest = max_glibc(&binary, arch)?;
    eprintln!("{}: newest glibc symbol GLIBC_{newest}", binary.display());
    ensure!(
        parse_version(&newest) <= parse_version(glibc),
        "{} needs GLIBC_{newest}, newer than the {glibc} asked for",
        binary.display()
    );

    let start = std::time::Instant::now();
    let version = version()?;
    let name = format!("bitext-{version}-{}-linux-gnu", arch.name());
    let stage_root = dist.join("stage");
    let stage = stage_root.join(&name);
    if stage_root.exists() {
        std::fs::remove_dir_all(&stage_root)?;
    }
    copy(&binary, &stage.join("bin/bitext"))?;
    let ort = onnxruntime(arch)?;
    ensure!(
        ort.notices.iter().any(|n| n.ends_with("LICENSE")),
        "no LICENSE beside {}: the archive must carry ONNX Runtime's licence",
        ort.library.display()
    );
    let lib_name = ort.library.file_name().context("library name")?;
    copy(&ort.library, &stage.join("lib").join(lib_name))?;
    for n in &ort.notices {
        copy(
            n,
            &stage
                .join("share/doc/bitext/onnxruntime")
                .join(n.file_name().unwrap()),
        )?;
    }
    for l in ["LICENSE-MIT", "LICENSE-APACHE"] {
        copy(&project_root().join(l), &stage.join(l))?;
    }
    let bin = stage.join("bin/bitext");
    run_cmd(
        arch.command(&bin)
            .args(["man", "-o"])
            .arg(stage.join("share/man/man1")),
    )?;
    for (shell, path) in [
        ("bash", "share/bash-completion/completions/bitext"),
        ("zsh", "share/zsh/site-functions/_bitext"),
        ("fish", "share/fish/vendor_completions.d/bitext.fish"),
    ] {
        let path = stage.join(path);
        std::fs::create_dir_all(path.parent().unwrap())?;
        run_cmd(
            arch.command(&bin)
                .args(["completions", shell, "-o"])
                .arg(path),
        )?;
    }
    let lib_name = lib_name.to_string_lossy();
    std::fs::write(
        stage.join("README.txt"),
        readme(&version, arch, glibc, &lib_name, &ort.tag),
    )?;

    let tarball = dist.join(format!("{name}.tar.gz"));
    if tarball.exists() {
        std::fs::remove_file(&tarball)?;
    }
    run_cmd(
        Command::new("tar")
            .args([
                "--sort=name",
                "--owner=0",
                "--group=0",
                "--numeric-owner",
                "-czf",
            ])
            .arg(&tarball)
            .arg("-C")
            .arg(&stage_root)
            .arg(&name),
    )?;
    std::fs::remove_dir_all(&stage_root)?;
    times.push((
        "stage and pack the archive".into(),
        start.elapsed().as_secs_f64(),
    ));
    let start = std::time::Instant::now();
    check_archive(&tarball, dist, (&name, &lib_name), o)?;
    times.push((
        "unpack and check the archive".into(),
        start.elapsed().as_secs_f64(),
    ));
    Ok(tarball)
}

/// The archive's README.txt.
fn readme(version: &str, arch: super::Arch, glibc: &str, lib: &str, ort_tag: &str) -> String {
    let arch = arch.shown();
    format!(
        "bitext {version} for Linux {arch} (glibc {glibc} or newer)

Mining and filtering parallel sentences with bilingual sentence embeddings.
https://github.com/bitext-rs/bitext

bin/bitext                                  the command-line tool (`bitext --help`)
lib/{lib:<40} ONNX Runtime, for pretrained ONNX encoders
                                            (`--encoder onnx:FILE`, `hf:ORG/NAME`); bitext
                                            finds it here by itself. From the onnxruntime
                                            wheel ({ort_tag}: it needs a newer glibc than
                                            bitext); MIT licence and notices in
                                            share/doc/bitext/onnxruntime/
share/man/man1/                             manual pages: bitext.1, bitext-mine.1, ...
share/bash-completion/completions/bitext    bash completions
share/zsh/site-functions/_bitext            zsh completions
share/fish/vendor_completions.d/bitext.fish fish completions
LICENSE-MIT, LICENSE-APACHE                 bitext's licences (MIT or Apache-2.0)

Install: unpack anywhere and put bin/ on PATH, or copy the tree under a prefix such as
~/.local (keep bin/ and lib/ side by side). Manual pages: MANPATH=PREFIX/share/man.
"
    )
}

/// Unpack `tarball` into a scratch directory and check what it holds: the binary's glibc
/// symbols, and that `bin/bitext encoders` finds ONNX Runtime in `../lib` with no
/// environment variable.
fn check_archive(
    tarball: &Path,
    dist: &Path,
    (name, lib): (&str, &str),
    o: &Options,
) -> Result<()> {
    let (arch, glibc) = (o.arch, o.glibc.as_str());
    let scratch = dist.join("check");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    std::fs::create_dir_all(&scratch)?;
    run_cmd(
        Command::new("tar")
            .arg("-xzf")
            .arg(tarball)
            .arg("-C")
            .arg(&scratch),
    )?;
    let top = scratch.join(name);
    let bin = top.join("bin/bitext");
    let newest = max_glibc(&bin, arch)?;
    ensure!(
        parse_version(&newest) <= parse_version(glibc),
        "the archive's bin/bitext needs GLIBC_{newest}"
    );
    let mut encoders = arch.command(&bin);
    encoders.args(["encoders", "--json"]);
    for v in ["BITEXT_ONNXRUNTIME", "ORT_DYLIB_PATH"] {
        encoders.env_remove(v);
    }
    let out = encoders
        .output()
        .with_context(|| format!("running {}", shown(&encoders)))?;
    let text = String::from_utf8_lossy(&out.stdout);
    ensure!(out.status.success(), "{} failed: {text}", shown(&encoders));
    // `runtime.path` (the executable's path is resolved, so compared from the archive's
    // top directory on).
    ensure!(
        text.contains(&format!("/{name}/lib/{lib}\"")),
        "the unpacked bin/bitext does not find ONNX Runtime in ../lib: {text}"
    );
    let pages = std::fs::read_dir(top.join("share/man/man1"))?.count();
    let ort_glibc = max_glibc(&top.join("lib").join(lib), arch)?;
    eprintln!(
        "checked {}: bin/bitext needs GLIBC_{newest} at most (lib/{lib}: GLIBC_{ort_glibc}); \
         `bitext encoders` finds lib/{lib} with no environment variable; {pages} manual pages",
        tarball.display()
    );
    std::fs::remove_dir_all(&scratch)?;
    Ok(())
}
