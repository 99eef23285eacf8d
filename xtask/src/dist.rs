//! `cargo xtask dist`: release artefacts for Linux x86-64 that run on old distributions, in
//! `target/dist/`:
//!
//! - `bitext-VERSION-x86_64-linux-gnu.tar.gz`: the `bitext` binary built in release mode by
//!   cargo-zigbuild against glibc 2.17 (`--target x86_64-unknown-linux-gnu.2.17`; zig links
//!   against that version's symbols, and compiles the C and C++ of xz, zstd and sentencepiece),
//!   ONNX Runtime's library beside it in `lib/` (where the binary looks first, no environment
//!   variable needed), its manual pages and shell completions under `share/`, the licences and
//!   a README;
//! - the Python wheel, built by maturin with zig for `manylinux2014` (glibc 2.17), checked with
//!   `auditwheel show`.
//!
//! The tools live in `~/.cache/bitext/dist-tools` (`$BITEXT_DIST_TOOLS`), installed on first
//! use: a virtual environment with the `ziglang` wheel (zig itself), maturin and auditwheel,
//! and `cargo install cargo-zigbuild --root` there. ONNX Runtime comes from the `onnxruntime`
//! wheel in `~/.cache/bitext/ort-venv` (`$BITEXT_ORT_VENV`, the one `.ci/run` installs; made
//! here when missing), with its MIT licence and third-party notices. The builds use their own
//! target directory, `target/dist-build/`.
//!
//! Checks: the binary requires no glibc symbol newer than asked for (`objdump -T`), and the
//! unpacked archive's `bin/bitext encoders` finds the library in `../lib` with no
//! `BITEXT_ONNXRUNTIME` or `ORT_DYLIB_PATH` set. Each step's wall time is printed at the end.
//!
//! ```text
//! cargo xtask dist [--glibc 2.17] [--no-wheel] [--no-archive]
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

use crate::{cargo, project_root, run_cmd, run_timed, shown, target_dir};

/// The one target built: the archive's name says `x86_64-linux-gnu`.
const TRIPLE: &str = "x86_64-unknown-linux-gnu";
/// The oldest glibc Rust's standard library supports, and the default `--glibc`.
const GLIBC: &str = "2.17";
/// The Python packages of the tools' virtual environment: zig, the wheel builder, the checker.
const PY_TOOLS: [&str; 3] = ["ziglang", "maturin", "auditwheel"];

const USAGE: &str = "\
usage: cargo xtask dist [--glibc X.Y] [--no-wheel] [--no-archive]

Builds into target/dist/ the release archive bitext-VERSION-x86_64-linux-gnu.tar.gz (bitext
linked against glibc X.Y, default 2.17, by cargo-zigbuild; ONNX Runtime in lib/; man pages and
completions) and the Python wheel (maturin --zig, manylinux2014), and checks both.";

/// What to build.
struct Options {
    glibc: String,
    archive: bool,
    wheel: bool,
}

fn options(args: &[String]) -> Result<Option<Options>> {
    let mut o = Options {
        glibc: GLIBC.to_string(),
        archive: true,
        wheel: true,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--glibc" => o.glibc = it.next().context("--glibc needs a version")?.clone(),
            "--no-wheel" => o.wheel = false,
            "--no-archive" => o.archive = false,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    ensure!(
        parse_version(&o.glibc).len() == 2,
        "--glibc {:?}: expected MAJOR.MINOR, e.g. 2.17",
        o.glibc
    );
    Ok(Some(o))
}

/// `cargo xtask dist ARGS`.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let Some(o) = options(args)? else {
        return Ok(());
    };
    let tools = Tools::new();
    let mut times: Vec<(String, f64)> = Vec::new();
    let start = std::time::Instant::now();
    tools.install()?;
    times.push((
        "tools (install when missing)".into(),
        start.elapsed().as_secs_f64(),
    ));
    let dist = target_dir().join("dist");
    std::fs::create_dir_all(&dist).with_context(|| format!("creating {}", dist.display()))?;
    let mut made = Vec::new();
    if o.archive {
        made.push(archive(&tools, &o.glibc, &dist, &mut times)?);
    }
    if o.wheel {
        made.push(wheel(&tools, &dist, &mut times)?);
    }
    eprintln!("\nwall times:");
    for (step, secs) in &times {
        eprintln!("  {step:<40} {secs:>8.1} s");
    }
    for m in made {
        eprintln!("made {}", m.display());
    }
    Ok(())
}

/// The tools' directory and what lives there.
struct Tools {
    root: PathBuf,
}

impl Tools {
    fn new() -> Self {
        let root = std::env::var_os("BITEXT_DIST_TOOLS")
            .filter(|p| !p.is_empty())
            .map_or_else(|| cache_dir().join("dist-tools"), PathBuf::from);
        Self { root }
    }

    fn venv_bin(&self) -> PathBuf {
        self.root.join("venv/bin")
    }

    fn zigbuild(&self) -> PathBuf {
        self.root.join("bin/cargo-zigbuild")
    }

    /// Make the virtual environment and install what is missing of [`PY_TOOLS`] and
    /// cargo-zigbuild.
    fn install(&self) -> Result<()> {
        let python = self.venv_bin().join("python3");
        if !python.is_file() {
            run_cmd(
                Command::new("python3")
                    .args(["-m", "venv"])
                    .arg(self.root.join("venv")),
            )
            .context("making the tools' virtual environment (Debian: apt install python3-venv)")?;
        }
        let missing: Vec<&str> = PY_TOOLS
            .into_iter()
            .filter(|p| {
                !Command::new(&python)
                    .args(["-m", "pip", "show", "-q", p])
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .collect();
        if !missing.is_empty() {
            run_cmd(
                Command::new(&python)
                    .args(["-m", "pip", "install", "-q"])
                    .args(&missing),
            )?;
        }
        if !self.zigbuild().is_file() {
            run_cmd(
                cargo()
                    .args(["install", "--locked", "cargo-zigbuild", "--root"])
                    .arg(&self.root),
            )?;
        }
        Ok(())
    }

    /// A command run with the tools first on the `PATH` (cargo-zigbuild and maturin find zig
    /// as `python3 -m ziglang`, the virtual environment's `python3`).
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs = [self.venv_bin(), self.root.join("bin")]
            .into_iter()
            .chain(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).expect("PATH entries"));
        cmd
    }
}

/// `~/.cache/bitext`.
fn cache_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
    home.join(".cache/bitext")
}

/// The workspace's version (`[workspace.package]`'s `version`).
fn version() -> Result<String> {
    let text = std::fs::read_to_string(project_root().join("Cargo.toml"))?;
    text.lines()
        .skip_while(|l| l.trim() != "[workspace.package]")
        .skip(1)
        .take_while(|l| !l.trim().starts_with('['))
        .find_map(|l| l.trim().strip_prefix("version = "))
        .map(|v| v.trim_matches('"').to_string())
        .context("no version in [workspace.package] of Cargo.toml")
}

/// `2.17` → `[2, 17]` (an unreadable part ends the list).
fn parse_version(v: &str) -> Vec<u64> {
    v.split('.').map_while(|p| p.parse().ok()).collect()
}

/// The newest `GLIBC_X.Y` symbol version `objdump -T` lists for `binary`.
fn max_glibc(binary: &Path) -> Result<String> {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(binary)
        .output()
        .context("running objdump -T (binutils)")?;
    ensure!(
        out.status.success(),
        "objdump -T {} failed",
        binary.display()
    );
    newest_glibc(&String::from_utf8_lossy(&out.stdout))
        .with_context(|| format!("no GLIBC_ symbol versions in {}", binary.display()))
}

/// The newest `GLIBC_X.Y[.Z]` in an `objdump -T` listing.
fn newest_glibc(listing: &str) -> Option<String> {
    listing
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|w| w.strip_prefix("GLIBC_"))
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        .max_by_key(|v| parse_version(v))
        .map(str::to_string)
}

/// The ONNX Runtime of the `onnxruntime` wheel: the library and its licence files.
struct Ort {
    library: PathBuf,
    notices: Vec<PathBuf>,
    /// The wheel's platform tag (`manylinux_2_28_x86_64`): the glibc the library needs.
    tag: String,
}

/// Find (or install) the `onnxruntime` wheel's library in its virtual environment.
fn onnxruntime() -> Result<Ort> {
    let venv = std::env::var_os("BITEXT_ORT_VENV")
        .filter(|p| !p.is_empty())
        .map_or_else(|| cache_dir().join("ort-venv"), PathBuf::from);
    let find = || -> Option<Ort> {
        let lib = std::fs::read_dir(venv.join("lib"))
            .ok()?
            .flatten()
            .find_map(|py| {
                let pkg = py.path().join("site-packages/onnxruntime");
                pkg.is_dir().then_some(pkg)
            })?;
        let library = std::fs::read_dir(lib.join("capi"))
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libonnxruntime.so."))
            })?;
        let notices = ["LICENSE", "ThirdPartyNotices.txt"]
            .map(|n| lib.join(n))
            .into_iter()
            .filter(|p| p.is_file())
            .collect();
        let tag = std::fs::read_dir(lib.parent()?)
            .ok()?
            .flatten()
            .filter(|e| {
                let n = e.file_name();
                let n = n.to_string_lossy();
                n.starts_with("onnxruntime-") && n.ends_with(".dist-info")
            })
            .find_map(|e| {
                let wheel = std::fs::read_to_string(e.path().join("WHEEL")).ok()?;
                let tag = wheel.lines().find_map(|l| l.strip_prefix("Tag: "))?;
                Some(tag.rsplit('-').next()?.to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        Some(Ort {
            library,
            notices,
            tag,
        })
    };
    if let Some(ort) = find() {
        return Ok(ort);
    }
    run_cmd(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    run_cmd(Command::new(venv.join("bin/python3")).args([
        "-m",
        "pip",
        "install",
        "-q",
        "onnxruntime",
    ]))?;
    find().with_context(|| {
        format!(
            "no onnxruntime/capi/libonnxruntime.so.* in {}",
            venv.display()
        )
    })
}

/// Copy `from` to `to`, making `to`'s directory.
fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

/// Build the binary with cargo-zigbuild, stage the archive's tree, pack and check it.
fn archive(
    tools: &Tools,
    glibc: &str,
    dist: &Path,
    times: &mut Vec<(String, f64)>,
) -> Result<PathBuf> {
    ensure!(
        cfg!(all(target_os = "linux", target_arch = "x86_64")),
        "cargo xtask dist builds on Linux x86-64 only (it runs the binary it built for the \
         manual pages and completions)"
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
            .arg(format!("{TRIPLE}.{glibc}"))
            .env("CARGO_TARGET_DIR", &build_dir),
    )?;
    times.push((format!("zigbuild bitext (release, glibc {glibc})"), secs));
    let binary = build_dir.join(TRIPLE).join("release/bitext");
    let newest = max_glibc(&binary)?;
    eprintln!("{}: newest glibc symbol GLIBC_{newest}", binary.display());
    ensure!(
        parse_version(&newest) <= parse_version(glibc),
        "{} needs GLIBC_{newest}, newer than the {glibc} asked for",
        binary.display()
    );

    let start = std::time::Instant::now();
    let version = version()?;
    let name = format!("bitext-{version}-x86_64-linux-gnu");
    let stage_root = dist.join("stage");
    let stage = stage_root.join(&name);
    if stage_root.exists() {
        std::fs::remove_dir_all(&stage_root)?;
    }
    copy(&binary, &stage.join("bin/bitext"))?;
    let ort = onnxruntime()?;
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
        Command::new(&bin)
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
            Command::new(&bin)
                .args(["completions", shell, "-o"])
                .arg(path),
        )?;
    }
    let lib_name = lib_name.to_string_lossy();
    std::fs::write(
        stage.join("README.txt"),
        readme(&version, glibc, &lib_name, &ort.tag),
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
    check_archive(&tarball, dist, &name, &lib_name, glibc)?;
    times.push((
        "unpack and check the archive".into(),
        start.elapsed().as_secs_f64(),
    ));
    Ok(tarball)
}

/// The archive's README.txt.
fn readme(version: &str, glibc: &str, lib: &str, ort_tag: &str) -> String {
    format!(
        "bitext {version} for Linux x86-64 (glibc {glibc} or newer)

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
fn check_archive(tarball: &Path, dist: &Path, name: &str, lib: &str, glibc: &str) -> Result<()> {
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
    let newest = max_glibc(&bin)?;
    ensure!(
        parse_version(&newest) <= parse_version(glibc),
        "the archive's bin/bitext needs GLIBC_{newest}"
    );
    let mut encoders = Command::new(&bin);
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
    let ort_glibc = max_glibc(&top.join("lib").join(lib))?;
    eprintln!(
        "checked {}: bin/bitext needs GLIBC_{newest} at most (lib/{lib}: GLIBC_{ort_glibc}); \
         `bitext encoders` finds lib/{lib} with no environment variable; {pages} manual pages",
        tarball.display()
    );
    std::fs::remove_dir_all(&scratch)?;
    Ok(())
}

/// Build the wheel with maturin and zig for manylinux2014 into `dist`, then `auditwheel show`.
fn wheel(tools: &Tools, dist: &Path, times: &mut Vec<(String, f64)>) -> Result<PathBuf> {
    for e in std::fs::read_dir(dist)?.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("bitext-") && n.ends_with(".whl") {
            std::fs::remove_file(e.path())?;
        }
    }
    let secs = run_timed(
        tools
            .command(tools.venv_bin().join("maturin"))
            .current_dir(project_root().join("python/bitext"))
            .args([
                "build",
                "--release",
                "--zig",
                "--compatibility",
                "manylinux2014",
            ])
            .args(["--target", TRIPLE, "--out"])
            .arg(dist)
            .env("CARGO_TARGET_DIR", target_dir().join("dist-build/wheel")),
    )?;
    times.push(("maturin build --zig (manylinux2014 wheel)".into(), secs));
    let wheel = std::fs::read_dir(dist)?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with("bitext-") && n.ends_with(".whl")
        })
        .context("maturin made no wheel")?;
    run_cmd(
        tools
            .command(tools.venv_bin().join("auditwheel"))
            .arg("show")
            .arg(&wheel),
    )?;
    Ok(wheel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_glibc_compares_versions_as_numbers() {
        let listing = "0000 DF *UND* 0000 (GLIBC_2.2.5) malloc\n\
                       0000 DF *UND* 0000 (GLIBC_2.14) memcpy\n\
                       0000 DF *UND* 0000  GLIBC_2.3.4 __chk\n\
                       0000 DF *UND* 0000 (GLIBC_PRIVATE) x\n";
        assert_eq!(newest_glibc(listing).as_deref(), Some("2.14"));
        assert_eq!(newest_glibc("nothing"), None);
        assert!(parse_version("2.17") < parse_version("2.28"));
        assert!(parse_version("2.9") < parse_version("2.17"));
    }

    #[test]
    fn version_is_the_workspaces() {
        let v = version().unwrap();
        assert_eq!(parse_version(&v).len(), 3, "{v}");
    }
}
