//! ONNX Runtime for the archive: the library of the `onnxruntime` wheel, with its licence and
//! notices. For the machine's own architecture it is the wheel installed in
//! `~/.cache/bitext/ort-venv` (`$BITEXT_ORT_VENV`, the one `.ci/run` installs; made here when
//! missing); for another, the wheel of the same version for that platform, downloaded by that
//! environment's pip (`--platform manylinux_2_27_ARCH --platform manylinux_2_28_ARCH`) and
//! unpacked into `~/.cache/bitext/ort-ARCH/`, where a later run finds it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::{Arch, cache_dir};
use crate::run_cmd;

/// The ONNX Runtime of the `onnxruntime` wheel: the library and its licence files.
pub(super) struct Ort {
    pub(super) library: PathBuf,
    pub(super) notices: Vec<PathBuf>,
    /// The wheel's platform tag (`manylinux_2_28_x86_64`): the glibc the library needs.
    pub(super) tag: String,
}

/// The ONNX Runtime for `arch` (see the module's text).
pub(super) fn onnxruntime(arch: Arch) -> Result<Ort> {
    let venv = std::env::var_os("BITEXT_ORT_VENV")
        .filter(|p| !p.is_empty())
        .map_or_else(|| cache_dir().join("ort-venv"), PathBuf::from);
    // The library, and the site-packages it is in.
    let installed = || site_packages(&venv).and_then(|s| Some((read(&s)?, s)));
    let (host, site) = match installed() {
        Some(found) => found,
        None => {
            run_cmd(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
            run_cmd(Command::new(venv.join("bin/python3")).args([
                "-m",
                "pip",
                "install",
                "-q",
                "onnxruntime",
            ]))?;
            installed().with_context(|| {
                format!(
                    "no onnxruntime/capi/libonnxruntime.so.* in {}",
                    venv.display()
                )
            })?
        }
    };
    if Arch::host() == Some(arch) {
        return Ok(host);
    }
    let dir = cache_dir().join(format!("ort-{}", arch.name()));
    if let Some(ort) = read(&dir) {
        return Ok(ort);
    }
    let version = dist_info(&site)
        .and_then(|d| {
            let n = d.file_name()?.to_str()?.to_string();
            Some(
                n.strip_prefix("onnxruntime-")?
                    .strip_suffix(".dist-info")?
                    .to_string(),
            )
        })
        .with_context(|| format!("no onnxruntime-VERSION.dist-info in {}", site.display()))?;
    let wheels = dir.join("wheel");
    let python = venv.join("bin/python3");
    let mut pip = Command::new(&python);
    pip.args([
        "-m",
        "pip",
        "download",
        "-q",
        "--no-deps",
        "--only-binary=:all:",
    ]);
    for glibc in ["2_27", "2_28"] {
        pip.args(["--platform", &format!("manylinux_{glibc}_{}", arch.name())]);
    }
    pip.arg(format!("onnxruntime=={version}"))
        .arg("-d")
        .arg(&wheels);
    run_cmd(&mut pip).with_context(|| {
        format!(
            "downloading the {} onnxruntime {version} wheel",
            arch.shown()
        )
    })?;
    let wheel = named(&wheels, |n| n.ends_with(".whl"))
        .with_context(|| format!("pip put no wheel in {}", wheels.display()))?;
    run_cmd(
        Command::new(&python)
            .args(["-m", "zipfile", "-e"])
            .arg(&wheel)
            .arg(&dir),
    )?;
    read(&dir).with_context(|| {
        format!(
            "no onnxruntime/capi/libonnxruntime.so.* in {} (unpacked from {})",
            dir.display(),
            wheel.display()
        )
    })
}

/// The `site-packages` of the virtual environment `venv` that holds `onnxruntime`.
fn site_packages(venv: &Path) -> Option<PathBuf> {
    std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .map(|py| py.path().join("site-packages"))
        .find(|s| s.join("onnxruntime").is_dir())
}

/// The first entry of `dir` whose name `wanted` accepts.
fn named(dir: &Path, wanted: impl Fn(&str) -> bool) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&wanted))
}

/// The `onnxruntime-VERSION.dist-info` of `site`.
fn dist_info(site: &Path) -> Option<PathBuf> {
    named(site, |n| {
        n.starts_with("onnxruntime-") && n.ends_with(".dist-info")
    })
}

/// The library, notices and platform tag of the `onnxruntime` package in `site` (a
/// `site-packages`, or a wheel unpacked), or `None` when it has no library.
fn read(site: &Path) -> Option<Ort> {
    let pkg = site.join("onnxruntime");
    let library = named(&pkg.join("capi"), |n| n.starts_with("libonnxruntime.so."))?;
    let notices = ["LICENSE", "ThirdPartyNotices.txt"]
        .map(|n| pkg.join(n))
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    let tag = dist_info(site)
        .and_then(|d| {
            let wheel = std::fs::read_to_string(d.join("WHEEL")).ok()?;
            let tag = wheel.lines().find_map(|l| l.strip_prefix("Tag: "))?;
            Some(tag.rsplit('-').next()?.to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    Some(Ort {
        library,
        notices,
        tag,
    })
}
