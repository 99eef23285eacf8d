//! `hub::download` against a hub on 127.0.0.1 (a `TcpListener` in a thread answering what
//! hf-hub asks: `GET /api/models/{repo}/revision/{rev}` and `GET
//! /{repo}/resolve/{rev}/{file}` with `Range`, answered with `x-repo-commit`, `etag` and
//! `Content-Range`): a whole download, and broken ones (a body cut short, a 500) that leave
//! nothing a later resolution takes as complete, then resume.
#![cfg(feature = "hub")]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use bitext_encode::Pooling;
use bitext_onnx::hub::{Fetch, HubName, download, list, resolve};

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const REPO: &str = "org/tiny";

/// What the server does wrong for a file's body (not for hf-hub's `bytes=0-0` probe).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Half the body, then the connection closed.
    Cut,
    /// `500 Internal Server Error`.
    Status500,
    /// The whole body with one byte changed (the ETag still the true body's hash).
    Corrupt,
}

/// A hub serving one repository.
struct Hub {
    endpoint: String,
    files: Arc<Vec<(String, Vec<u8>)>>,
    faults: Arc<Mutex<HashMap<String, Fault>>>,
    /// `path range` of each request.
    log: Arc<Mutex<Vec<String>>>,
}

/// The tiny model's files: a sentence-transformers export with CLS pooling.
fn tiny() -> Vec<(String, Vec<u8>)> {
    let graph: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 251) as u8).collect();
    [
        ("config.json", br#"{"hidden_size": 8}"#.to_vec()),
        (
            "modules.json",
            br#"[{"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                 {"path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]"#
                .to_vec(),
        ),
        (
            "1_Pooling/config.json",
            br#"{"pooling_mode_cls_token": true}"#.to_vec(),
        ),
        ("tokenizer.json", b"{}".to_vec()),
        ("onnx/model.onnx", graph),
        ("pytorch_model.bin", b"not fetched".to_vec()),
    ]
    .into_iter()
    .map(|(n, b)| (n.to_string(), b))
    .collect()
}

impl Hub {
    fn start(files: Vec<(String, Vec<u8>)>) -> Hub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let hub = Hub {
            endpoint,
            files: Arc::new(files),
            faults: Arc::default(),
            log: Arc::default(),
        };
        let (files, faults, log) = (hub.files.clone(), hub.faults.clone(), hub.log.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (files, faults, log) = (files.clone(), faults.clone(), log.clone());
                std::thread::spawn(move || answer(stream, &files, &faults, &log));
            }
        });
        hub
    }

    fn fault(&self, file: &str, fault: Option<Fault>) {
        let mut f = self.faults.lock().unwrap();
        match fault {
            Some(x) => f.insert(file.to_string(), x),
            None => f.remove(file),
        };
    }

    fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    fn fetch(&self) -> Fetch {
        Fetch::new(self.endpoint.clone())
    }
}

/// Answer one request (`Connection: close`).
fn answer(
    mut s: TcpStream,
    files: &[(String, Vec<u8>)],
    faults: &Mutex<HashMap<String, Fault>>,
    log: &Mutex<Vec<String>>,
) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("")
        .to_string();
    let range = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("range"))
        .map(|(_, v)| v.trim().to_string());
    log.lock()
        .unwrap()
        .push(format!("{path} {}", range.as_deref().unwrap_or("-")));
    let reply = |s: &mut TcpStream, status: &str, headers: &[(&str, String)], body: &[u8]| {
        let mut out = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
        for (k, v) in headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let _ = s.write_all(out.as_bytes());
        let _ = s.write_all(body);
    };
    let revision_ok = |r: &str| r == "main" || r == COMMIT;
    let api = format!("/api/models/{REPO}/revision/");
    if let Some(rev) = path.strip_prefix(&api) {
        if !revision_ok(rev) {
            return reply(&mut s, "404 Not Found", &[], b"{}");
        }
        let siblings: Vec<String> = files
            .iter()
            .map(|(n, _)| format!(r#"{{"rfilename": "{n}"}}"#))
            .collect();
        let body = format!(
            r#"{{"sha": "{COMMIT}", "siblings": [{}]}}"#,
            siblings.join(",")
        );
        return reply(&mut s, "200 OK", &[], body.as_bytes());
    }
    let resolve = format!("/{REPO}/resolve/");
    let Some((rev, file)) = path.strip_prefix(&resolve).and_then(|r| r.split_once('/')) else {
        return reply(&mut s, "404 Not Found", &[], b"");
    };
    let Some((_, body)) = files.iter().find(|(n, _)| n == file) else {
        return reply(&mut s, "404 Not Found", &[], b"");
    };
    if !revision_ok(rev) {
        return reply(&mut s, "404 Not Found", &[], b"");
    }
    let probe = range.as_deref() == Some("bytes=0-0");
    let fault = faults.lock().unwrap().get(file).copied().filter(|_| !probe);
    if fault == Some(Fault::Status500) {
        return reply(&mut s, "500 Internal Server Error", &[], b"broken");
    }
    let n = body.len();
    let (from, to) = match range.as_deref().and_then(|r| r.strip_prefix("bytes=")) {
        Some(r) => {
            let (a, b) = r.split_once('-').unwrap();
            let a: usize = a.parse().unwrap();
            (
                a,
                if b.is_empty() {
                    n - 1
                } else {
                    b.parse().unwrap()
                },
            )
        }
        None => (0, n - 1),
    };
    let etag = hub_etag(file, body);
    let headers = [
        ("x-repo-commit", COMMIT.to_string()),
        ("ETag", format!("\"{etag}\"")),
        ("Content-Range", format!("bytes {from}-{to}/{n}")),
    ];
    let mut changed = body.clone();
    if fault == Some(Fault::Corrupt) {
        changed[n / 2] ^= 0x20;
    }
    let part = &changed[from..=to];
    if fault == Some(Fault::Cut) {
        let mut out = "HTTP/1.1 206 Partial Content\r\nConnection: close\r\n".to_string();
        for (k, v) in &headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str(&format!("Content-Length: {}\r\n\r\n", part.len()));
        let _ = s.write_all(out.as_bytes());
        let _ = s.write_all(&part[..part.len() / 2]);
        let _ = s.flush();
        return;
    }
    reply(&mut s, "206 Partial Content", &headers, part);
}

/// The hub's ETag of `file`: an LFS file's (the graph's) is the SHA-256 of its bytes, a small
/// file's the SHA-1 of its git blob.
fn hub_etag(file: &str, body: &[u8]) -> String {
    use sha1::Digest as _;
    let hex = |d: &[u8]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    if file.ends_with(".onnx") {
        hex(&sha2::Sha256::digest(body))
    } else {
        let mut h = sha1::Sha1::new();
        h.update(format!("blob {}\0", body.len()).as_bytes());
        h.update(body);
        hex(&h.finalize())
    }
}

fn name(s: &str) -> HubName {
    HubName::parse(s).unwrap()
}

/// Every file under `dir` whose name is `file_name` and that reads as a file.
fn files_named(dir: &Path, file_name: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_named(&p, file_name));
        } else if e.file_name() == file_name && p.is_file() {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_download_fills_the_cache_in_the_hubs_layout() {
    let hub = Hub::start(tiny());
    let d = tempfile::tempdir().unwrap();
    let m = download(d.path(), &name(REPO), &hub.fetch()).unwrap();
    assert_eq!(m.commit, COMMIT);
    assert_eq!(
        (m.pooling, m.normalize, m.dim),
        (Pooling::Cls, true, Some(8))
    );
    assert_eq!(std::fs::read(&m.graph).unwrap(), tiny()[4].1);
    let refs = d.path().join("models--org--tiny/refs/main");
    assert_eq!(std::fs::read_to_string(refs).unwrap(), COMMIT);
    // Resolved without the network afterwards, by name and by commit; listed once.
    assert_eq!(resolve(d.path(), &name(REPO)).unwrap(), m);
    assert!(resolve(d.path(), &name(&format!("{REPO}@{COMMIT}"))).is_ok());
    let l = list(d.path());
    assert_eq!(l.len(), 1, "{l:?}");
    assert!(l[0].model.is_ok());
    // The files pinned to the commit; the weights the graph does not need not fetched.
    let log = hub.requests();
    assert!(
        log.iter()
            .any(|r| r.starts_with(&format!("/api/models/{REPO}/revision/main")))
    );
    let graph = format!("/{REPO}/resolve/{COMMIT}/onnx/model.onnx");
    assert!(log.iter().any(|r| r.starts_with(&graph)), "{log:?}");
    assert!(
        !log.iter().any(|r| r.contains("pytorch_model.bin")),
        "{log:?}"
    );
    // A model in the cache is not fetched again.
    let before = hub.requests().len();
    download(d.path(), &name(REPO), &hub.fetch()).unwrap();
    assert_eq!(hub.requests().len(), before);
}

#[test]
fn a_body_cut_short_leaves_nothing_complete_and_the_next_try_resumes() {
    let hub = Hub::start(tiny());
    hub.fault("onnx/model.onnx", Some(Fault::Cut));
    let d = tempfile::tempdir().unwrap();
    let e = download(d.path(), &name(REPO), &hub.fetch())
        .unwrap_err()
        .to_string();
    assert!(e.contains("downloading onnx/model.onnx"), "{e}");
    let e = resolve(d.path(), &name(REPO)).unwrap_err().to_string();
    assert!(e.contains("not in the Hugging Face cache"), "{e}");
    let e = resolve(d.path(), &name(&format!("{REPO}@{COMMIT}")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no ONNX graph"), "{e}");
    assert!(list(d.path()).is_empty());
    assert!(files_named(d.path(), "model.onnx").is_empty());

    hub.fault("onnx/model.onnx", None);
    let m = download(d.path(), &name(REPO), &hub.fetch()).unwrap();
    assert_eq!(std::fs::read(&m.graph).unwrap(), tiny()[4].1);
    // The second try asked for the rest of the body only.
    let graph = format!("/{REPO}/resolve/{COMMIT}/onnx/model.onnx bytes=");
    let resumed = hub
        .requests()
        .iter()
        .filter_map(|r| r.strip_prefix(&graph).map(str::to_string))
        .any(|r| r != "0-0" && r != "0-");
    assert!(resumed, "{:?}", hub.requests());
}

/// Neither the name nor its commit resolves in the cache at `root`, and nothing is listed,
/// after a download of `file` failed.
fn nothing_resolves(root: &Path, file: &str) {
    assert!(resolve(root, &name(REPO)).is_err(), "{file}");
    assert!(
        resolve(root, &name(&format!("{REPO}@{COMMIT}"))).is_err(),
        "{file}"
    );
    assert!(list(root).is_empty(), "{file}");
}

#[test]
fn a_server_error_leaves_nothing_complete() {
    for file in ["onnx/model.onnx", "tokenizer.json", "1_Pooling/config.json"] {
        let hub = Hub::start(tiny());
        hub.fault(file, Some(Fault::Status500));
        let d = tempfile::tempdir().unwrap();
        let e = download(d.path(), &name(REPO), &hub.fetch())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("downloading {file}")) && e.contains("500"),
            "{e}"
        );
        nothing_resolves(d.path(), file);
        hub.fault(file, None);
        assert!(download(d.path(), &name(REPO), &hub.fetch()).is_ok());
    }
}

#[test]
fn a_body_that_does_not_hash_to_its_etag_is_removed_and_fetched_again() {
    for (file, hash) in [
        ("onnx/model.onnx", "SHA-256"),
        ("tokenizer.json", "git blob SHA-1"),
    ] {
        let hub = Hub::start(tiny());
        hub.fault(file, Some(Fault::Corrupt));
        let d = tempfile::tempdir().unwrap();
        let e = download(d.path(), &name(REPO), &hub.fetch())
            .unwrap_err()
            .to_string();
        let etag = hub_etag(file, &tiny().iter().find(|f| f.0 == file).unwrap().1);
        assert!(
            e.contains(file) && e.contains(hash) && e.contains(&etag),
            "{e}"
        );
        nothing_resolves(d.path(), file);
        let leaf = file.rsplit('/').next().unwrap();
        assert!(files_named(d.path(), leaf).is_empty(), "{file}");
        assert!(files_named(d.path(), &etag).is_empty(), "{file}");
        hub.fault(file, None);
        let m = download(d.path(), &name(REPO), &hub.fetch()).unwrap();
        assert_eq!(std::fs::read(&m.graph).unwrap(), tiny()[4].1);
    }
}

#[test]
fn a_repository_without_what_bitext_needs_is_refused_before_fetching() {
    let no_tok: Vec<_> = tiny()
        .into_iter()
        .filter(|f| f.0 != "tokenizer.json")
        .collect();
    let hub = Hub::start(no_tok);
    let d = tempfile::tempdir().unwrap();
    let e = download(d.path(), &name(REPO), &hub.fetch())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no tokenizer.json"), "{e}");
    assert!(!hub.requests().iter().any(|r| r.contains("/resolve/")));
    // An unknown revision or a hub that is not there: errors naming the model.
    let e = download(d.path(), &name(&format!("{REPO}@nope")), &hub.fetch()).unwrap_err();
    assert!(e.to_string().contains("cannot list"), "{e}");
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let gone = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let e = download(d.path(), &name(REPO), &Fetch::new(gone)).unwrap_err();
    assert!(e.to_string().contains("hf:org/tiny"), "{e}");
}
