//! Choices made by measuring, and where they are kept: [`cpu`] names the machine (an entry
//! measured on another CPU, or with other flags, never matches) and [`TuneCache`] is one JSON
//! file of measurements keyed by what they are valid for
//! (`$XDG_CACHE_HOME/bitext/auto.json`, else `~/.cache/bitext/auto.json`;
//! `BITEXT_AUTO_CACHE=FILE` names another, `BITEXT_AUTO_CACHE=off` keeps none). The exact
//! search's `auto` precision and the ONNX encoder's sessions × threads split keep their
//! measurements here.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// The machine a measurement was made on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cpu {
    /// Architecture, vendor, family / model / stepping and model name where the OS says them.
    pub name: String,
    /// The CPU's flags as the OS lists them (or the features detected at run time).
    pub flags: String,
}

/// This machine's CPU (read once: `/proc/cpuinfo`'s first processor on Linux, else the
/// architecture and the features the standard library detects).
pub fn cpu() -> &'static Cpu {
    static CPU: OnceLock<Cpu> = OnceLock::new();
    CPU.get_or_init(|| {
        let detected = detected_features();
        let arch = std::env::consts::ARCH;
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return Cpu {
                name: arch.to_string(),
                flags: detected,
            };
        };
        let first = info.split("\n\n").next().unwrap_or("");
        let field = |name: &str| {
            first.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == name).then(|| v.trim().to_string())
            })
        };
        let fields = [
            "vendor_id",
            "cpu family",
            "model",
            "stepping",
            "model name",
            "CPU implementer",
            "CPU part",
        ]
        .iter()
        .filter_map(|f| field(f).map(|v| format!("{f}={v}")))
        .collect::<Vec<_>>()
        .join("; ");
        Cpu {
            name: format!("{arch} {fields}").trim().to_string(),
            flags: field("flags")
                .or_else(|| field("Features"))
                .unwrap_or(detected),
        }
    })
}

/// The features of the SIMD kernels, as detected at run time.
fn detected_features() -> String {
    let mut on: Vec<&str> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        for (name, yes) in [
            ("avx2", has!("avx2")),
            ("fma", has!("fma")),
            ("avx512f", has!("avx512f")),
            ("avx512bw", has!("avx512bw")),
            ("avx512bf16", has!("avx512bf16")),
            ("avx512vnni", has!("avx512vnni")),
            ("avxvnni", has!("avxvnni")),
        ] {
            if yes {
                on.push(name);
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::is_aarch64_feature_detected as has;
        for (name, yes) in [("neon", has!("neon")), ("dotprod", has!("dotprod"))] {
            if yes {
                on.push(name);
            }
        }
    }
    on.join(" ")
}

/// One cached measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Entry {
    key: Value,
    value: Value,
    /// When (seconds since the Unix epoch).
    measured_at: u64,
}

/// The cache file's content.
#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    entries: Vec<Entry>,
}

/// The variable that names the cache file (`off`: none).
pub const CACHE_VARIABLE: &str = "BITEXT_AUTO_CACHE";

/// A file of measurements (or none), each under the key of what it is valid for (a key
/// should hold [`cpu`], the version that measured and the sizes the choice depends on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuneCache {
    file: Option<PathBuf>,
}

impl TuneCache {
    /// The cache in `file`.
    #[must_use]
    pub fn at(file: impl Into<PathBuf>) -> Self {
        Self {
            file: Some(file.into()),
        }
    }

    /// No cache: every process measures again.
    #[must_use]
    pub fn off() -> Self {
        Self { file: None }
    }

    /// The cache the environment says: `BITEXT_AUTO_CACHE` (a file, or `off`), else
    /// `$XDG_CACHE_HOME/bitext/auto.json`, else `$HOME/.cache/bitext/auto.json`, else none.
    #[must_use]
    pub fn from_env() -> Self {
        let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty());
        if let Some(v) = var(CACHE_VARIABLE) {
            return if v == "off" { Self::off() } else { Self::at(v) };
        }
        let base = match (var("XDG_CACHE_HOME"), var("HOME")) {
            (Some(x), _) => PathBuf::from(x),
            (_, Some(h)) => PathBuf::from(h).join(".cache"),
            _ => return Self::off(),
        };
        Self::at(base.join("bitext").join("auto.json"))
    }

    /// The file, if any.
    #[must_use]
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// All entries (none when there is no file or it cannot be read: a cache that cannot be
    /// read is measured again and rewritten).
    fn entries(&self) -> Vec<Entry> {
        let Some(path) = &self.file else {
            return Vec::new();
        };
        let Ok(text) = std::fs::read_to_string(path) else {
            return Vec::new();
        };
        serde_json::from_str::<CacheFile>(&text)
            .map(|f| f.entries)
            .unwrap_or_default()
    }

    /// The value kept under `key`, if the file has one that reads as a `V`.
    #[must_use]
    pub fn get<K: Serialize, V: DeserializeOwned>(&self, key: &K) -> Option<V> {
        let key = serde_json::to_value(key).ok()?;
        let e = self.entries().into_iter().find(|e| e.key == key)?;
        serde_json::from_value(e.value).ok()
    }

    /// Keep `value` under `key` (replacing what the key held), writing the file through a
    /// temporary file renamed into place.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when its directory cannot be made or it cannot be
    /// written; [`Error::InvalidArgument`] for a key or value that is not JSON.
    pub fn put<K: Serialize, V: Serialize>(&self, key: &K, value: &V) -> Result<()> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let json = |e: serde_json::Error| {
            Error::InvalidArgument(format!("{}: a measurement as JSON: {e}", path.display()))
        };
        let key = serde_json::to_value(key).map_err(json)?;
        let value = serde_json::to_value(value).map_err(json)?;
        let mut entries = self.entries();
        entries.retain(|e| e.key != key);
        entries.push(Entry {
            key,
            value,
            measured_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        });
        let text = serde_json::to_string_pretty(&CacheFile { entries }).map_err(json)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(path, e))?;
        }
        let mut out = crate::io::AtomicFile::create(path)?;
        out.write_all(text.as_bytes()).map_err(|e| out.err(e))?;
        out.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Key {
        cpu: Cpu,
        dim: usize,
    }

    #[test]
    fn values_are_kept_by_key_and_a_broken_file_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TuneCache::at(dir.path().join("sub/auto.json"));
        let key = Key {
            cpu: cpu().clone(),
            dim: 64,
        };
        assert!(!key.cpu.name.is_empty());
        assert_eq!(cache.get::<_, f64>(&key), None);
        cache.put(&key, &1.5).unwrap();
        assert_eq!(cache.get::<_, f64>(&key), Some(1.5));
        // Another CPU, other flags or another size do not match.
        let others = [
            Key {
                cpu: Cpu {
                    name: format!("{} (another)", key.cpu.name),
                    ..key.cpu.clone()
                },
                dim: 64,
            },
            Key {
                cpu: Cpu {
                    flags: format!("{} amx_tile", key.cpu.flags),
                    ..key.cpu.clone()
                },
                dim: 64,
            },
            Key {
                cpu: key.cpu.clone(),
                dim: 65,
            },
        ];
        for other in &others {
            assert_eq!(cache.get::<_, f64>(other), None, "{other:?}");
        }
        // A second key beside the first; the same key replaced; a value of another type is
        // no value.
        cache.put(&others[2], &2.0).unwrap();
        cache.put(&key, &3.0).unwrap();
        assert_eq!(cache.get::<_, f64>(&key), Some(3.0));
        assert_eq!(cache.get::<_, f64>(&others[2]), Some(2.0));
        assert_eq!(cache.get::<_, String>(&key), None);
        // A file that is not a cache reads as empty and is rewritten whole.
        let file = cache.file().unwrap().to_path_buf();
        std::fs::write(&file, b"\xef\xbb\xbfnot json").unwrap();
        assert_eq!(cache.get::<_, f64>(&key), None);
        cache.put(&key, &4.0).unwrap();
        assert_eq!(cache.get::<_, f64>(&key), Some(4.0));
        // No cache: nothing kept, nothing fails.
        TuneCache::off().put(&key, &5.0).unwrap();
        assert_eq!(TuneCache::off().get::<_, f64>(&key), None);
        // A cache that cannot be written is an error naming it.
        let blocked = TuneCache::at(file.join("below-a-file.json"));
        let err = blocked.put(&key, &1.0).unwrap_err().to_string();
        assert!(err.contains("below-a-file.json"), "{err}");
    }
}
