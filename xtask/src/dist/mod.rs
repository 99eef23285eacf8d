//! `cargo xtask dist`: release artefacts for Linux x86-64 and aarch64 that run on old
//! distributions, in `target/dist/`:
//!
//! - `bitext-VERSION-ARCH-linux-gnu.tar.gz`: the `bitext` binary built in release mode by
//!   cargo-zigbuild against glibc 2.17 (`--target x86_64-unknown-linux-gnu.2.17`, or
//!   `aarch64-…` with `--arch aarch64`; zig links against that version's symbols, and compiles
//!   the C and C++ of xz, zstd and sentencepiece for the target), ONNX Runtime's library
//!   beside it in `lib/` (where the binary looks first, no environment variable needed), its
//!   manual pages and shell completions under `share/`, the licences and a README;
//! - the Python wheel, built by maturin with zig for `manylinux2014` (glibc 2.17) of the same
//!   architecture, checked with `auditwheel show`.
//!
//! The tools live in `~/.cache/bitext/dist-tools` (`$BITEXT_DIST_TOOLS`), installed on first
//! use: a virtual environment with the `ziglang` wheel (zig itself), maturin and auditwheel,
//! and `cargo install cargo-zigbuild --root` there. ONNX Runtime comes from the `onnxruntime`
//! wheel ([`ort`]), with its MIT licence and third-party notices. The builds use their own
//! target directory, `target/dist-build/`.
//!
//! Checks: the binary requires no glibc symbol newer than asked for (`objdump -T`; for
//! aarch64 `aarch64-linux-gnu-objdump`), and the unpacked archive's `bin/bitext encoders`
//! finds the library in `../lib` with no `BITEXT_ONNXRUNTIME` or `ORT_DYLIB_PATH` set. A
//! binary of the other architecture runs under `qemu-aarch64` with Debian's aarch64 C
//! libraries (`apt install qemu-user binutils-aarch64-linux-gnu libstdc++6-arm64-cross`), for
//! the manual pages and completions too. Each step's wall time is printed at the end.
//!
//! ```text
//! cargo xtask dist [--arch x86_64|aarch64] [--glibc 2.17] [--no-wheel] [--no-archive]
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

use crate::{cargo, project_root, run_cmd, run_timed, target_dir};

mod archive;
mod ort;

/// The architectures built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arch {
    X86_64,
    Aarch64,
}

impl Arch {
    /// `--arch`'s value.
    fn parse(s: &str) -> Result<Self> {
        match s {
            "x86_64" | "x86-64" | "amd64" => Ok(Self::X86_64),
            "aarch64" | "arm64" => Ok(Self::Aarch64),
            other => bail!("--arch {other:?}: give x86_64 or aarch64"),
        }
    }

    /// The machine this runs on.
    fn host() -> Option<Self> {
        match std::env::consts::ARCH {
            "x86_64" => Some(Self::X86_64),
            "aarch64" => Some(Self::Aarch64),
            _ => None,
        }
    }

    /// `x86_64` or `aarch64`: the first part of the target triple and of the archive's name.
    fn name(self) -> &'static str {
        match self {
            Self::X86_64 => "x86_64",
            Self::Aarch64 => "aarch64",
        }
    }

    /// The Rust target triple.
    fn triple(self) -> String {
        format!("{}-unknown-linux-gnu", self.name())
    }

    /// The name people read: `x86-64`, `aarch64`.
    fn shown(self) -> &'static str {
        match self {
            Self::X86_64 => "x86-64",
            Self::Aarch64 => "aarch64",
        }
    }

    /// The `objdump` that reads this architecture's binaries.
    fn objdump(self) -> String {
        if Self::host() == Some(self) {
            "objdump".into()
        } else {
            format!("{}-linux-gnu-objdump", self.name())
        }
    }

    /// A command running `program`, a binary of this architecture: itself on such a machine,
    /// under `qemu-ARCH` with Debian's C libraries of the architecture (`/usr/ARCH-linux-gnu`)
    /// on another.
    fn command(self, program: &Path) -> Command {
        if Self::host() == Some(self) {
            return Command::new(program);
        }
        let mut c = Command::new(format!("qemu-{}", self.name()));
        c.arg("-L")
            .arg(format!("/usr/{}-linux-gnu", self.name()))
            .arg(program);
        c
    }
}
/// The oldest glibc Rust's standard library supports, and the default `--glibc`.
const GLIBC: &str = "2.17";
/// The Python packages of the tools' virtual environment: zig, the wheel builder, the checker.
const PY_TOOLS: [&str; 3] = ["ziglang", "maturin", "auditwheel"];

const USAGE: &str = "\
usage: cargo xtask dist [--arch x86_64|aarch64] [--glibc X.Y] [--no-wheel] [--no-archive]

Builds into target/dist/ the release archive bitext-VERSION-ARCH-linux-gnu.tar.gz (bitext
linked against glibc X.Y, default 2.17, by cargo-zigbuild; ONNX Runtime in lib/; man pages and
completions) and the Python wheel (maturin --zig, manylinux2014), and checks both. --arch:
the architecture built for (default x86_64); aarch64 on an x86-64 machine runs its binary
under qemu-aarch64.";

/// What to build.
struct Options {
    arch: Arch,
    glibc: String,
    archive: bool,
    wheel: bool,
}

fn options(args: &[String]) -> Result<Option<Options>> {
    let mut o = Options {
        arch: Arch::X86_64,
        glibc: GLIBC.to_string(),
        archive: true,
        wheel: true,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--arch" => o.arch = Arch::parse(it.next().context("--arch needs x86_64 or aarch64")?)?,
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
        made.push(archive::archive(&tools, &o, &dist, &mut times)?);
    }
    if o.wheel {
        made.push(wheel(&tools, o.arch, &dist, &mut times)?);
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

/// The newest `GLIBC_X.Y` symbol version `objdump -T` lists for `binary`, of `arch`.
fn max_glibc(binary: &Path, arch: Arch) -> Result<String> {
    let objdump = arch.objdump();
    let out = Command::new(&objdump)
        .arg("-T")
        .arg(binary)
        .output()
        .with_context(|| format!("running {objdump} -T (binutils)"))?;
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

/// Copy `from` to `to`, making `to`'s directory.
fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

/// Build the wheel for `arch` with maturin and zig for manylinux2014 into `dist`, then
/// `auditwheel show`.
fn wheel(
    tools: &Tools,
    arch: Arch,
    dist: &Path,
    times: &mut Vec<(String, f64)>,
) -> Result<PathBuf> {
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
            .args(["--target", &arch.triple(), "--out"])
            .arg(dist)
            .env("CARGO_TARGET_DIR", target_dir().join("dist-build/wheel")),
    )?;
    times.push((
        format!("maturin build --zig (manylinux2014 {} wheel)", arch.shown()),
        secs,
    ));
    let wheel = std::fs::read_dir(dist)?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with("bitext-") && n.ends_with(".whl") && n.contains(arch.name())
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
    fn arch_names_its_triple_and_tools() {
        let a = Arch::parse("arm64").unwrap();
        assert_eq!(
            (a, a.triple()),
            (Arch::Aarch64, "aarch64-unknown-linux-gnu".into())
        );
        assert_eq!(Arch::parse("amd64").unwrap().name(), "x86_64");
        assert!(Arch::parse("riscv64").is_err());
        // On an x86-64 machine the aarch64 binary runs under qemu with the cross libraries.
        if Arch::host() == Some(Arch::X86_64) {
            assert_eq!(Arch::Aarch64.objdump(), "aarch64-linux-gnu-objdump");
            let c = Arch::Aarch64.command(Path::new("/x/bitext"));
            assert_eq!(c.get_program(), "qemu-aarch64");
            let args: Vec<_> = c.get_args().collect();
            assert_eq!(args, ["-L", "/usr/aarch64-linux-gnu", "/x/bitext"]);
            assert_eq!(Arch::X86_64.command(Path::new("b")).get_program(), "b");
        }
    }

    #[test]
    fn version_is_the_workspaces() {
        let v = version().unwrap();
        assert_eq!(parse_version(&v).len(), 3, "{v}");
    }
}
