//! The gate against `stub-server`: the interface written on the router
//! `generator --server` made from `spec/openapi.yaml` and the bindings'
//! rules (`bindings/src/rules.rs`), with in-memory data. As the independent
//! servers' tests run theirs, the conformance binary records snapshots with
//! `--accept`, then runs again with `CI=true` against them; a correct server
//! passes both (exit 0) with no check failed.
//!
//! The stub is served in-process (its library's `router()`) on an
//! ephemeral port of 127.0.0.1; its binary's `--port 0` and first line are
//! held by `stub-server/tests/listening.rs`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A hang guard, not a speed test.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// The stub on a thread of its own, on an ephemeral port; its base URL.
fn serve_stub() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("an ephemeral port");
            let address = listener.local_addr().expect("its address");
            tx.send(format!("http://{address}"))
                .expect("the test waits");
            let _ = stub_server::serve(listener, std::future::pending()).await;
        });
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the stub listens")
}

/// One run of the conformance binary: whether it exited 0, and its output.
fn conformance(url: &str, snapshots: &Path, ci: bool) -> (bool, String) {
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/stub-server.yaml");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conformance"));
    cmd.arg("--profile")
        .arg(&profile)
        .arg("--snapshots")
        .arg(snapshots)
        .args(["--deadline", "240s"])
        .env("STUB_SERVER_URL", url)
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if ci {
        cmd.env("CI", "true");
    } else {
        cmd.arg("--accept");
    }
    let child = cmd.spawn().expect("start the conformance binary");
    let started = Instant::now();
    let output = child
        .wait_with_output()
        .expect("wait for the conformance binary");
    assert!(started.elapsed() < RUN_LIMIT * 2, "the run took too long");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// A fresh folder for the run's snapshots, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_stub_on_the_generated_router_passes_the_whole_gate() {
    let url = serve_stub();
    let dir = TempDir(
        std::env::temp_dir().join(format!("conformance-stub-server-{}", std::process::id())),
    );
    std::fs::create_dir_all(&dir.0).expect("a temporary folder");
    let (accepted, output) = conformance(&url, &dir.0, false);
    assert!(accepted, "--accept failed:\n{output}");
    assert!(output.contains(" 0 failed, 0 skipped"), "{output}");
    let (passed, output) = conformance(&url, &dir.0, true);
    assert!(passed, "CI=true failed:\n{output}");
    assert!(
        output.contains(" 0 failed, 0 skipped")
            && output.contains("snapshots: 79 passed, 0 failed"),
        "{output}"
    );
    // Nothing the runner wrote holds the profile's secrets or a token the
    // stub issued.
    let mut files = 0;
    for text in texts(&dir.0) {
        files += 1;
        for secret in [
            "stub-secret-Vb3k",
            "users-token-stub-0001",
            "stub-horse-battery",
            "stub-issued-",
        ] {
            assert!(!text.contains(secret), "a snapshot holds {secret}");
        }
    }
    assert!(files >= 79, "{files} snapshot files");
}

/// The text of every file under `dir`.
fn texts(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(texts(&path));
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            out.push(text);
        }
    }
    out
}
