//! The binary as a user and CI run it: exit codes, the last line, reports,
//! snapshot modes that the environment cannot override, and secrets that
//! never appear in any output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_conformance");
const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/snapshots");
/// The demo fixture's secrets (client secret, the issued token).
const SECRETS: &[&str] = &["demo-secret-7Qx9", "users-token-ada-0001"];

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("conformance-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn conformance(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("NO_COLOR", "1").env_remove("CI");
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
        "INSTA_UPDATE",
        "INSTA_FORCE_PASS",
        "INSTA_FORCE_UPDATE",
        "INSTA_WORKSPACE_ROOT",
        "INSTA_OUTPUT",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn last_line(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or_default().to_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
    }
}

/// The stored snapshots of `dir`, by name (not the `.snap.new` files a
/// failing run leaves beside them).
fn read_all(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "snap"))
        })
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn default_run_passes_and_writes_reports_without_secrets() {
    let dir = scratch("default");
    let junit = dir.join("junit.xml");
    let json = dir.join("report.json");
    let o = conformance(
        &[
            "--embedded",
            "--junit",
            junit.to_str().expect("utf-8"),
            "--json",
            json.to_str().expect("utf-8"),
        ],
        &[("CI", "true")],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    // Checks and snapshot assertions counted apart, in the JSON's numbers.
    let last = last_line(&o);
    let (checks, snapshots) = last.split_once("; ").expect("two parts");
    let json_text = std::fs::read_to_string(&json).expect("json written");
    let summary: serde_json::Value = serde_json::from_str::<serde_json::Value>(&json_text)
        .expect("json parses")["summary"]
        .clone();
    let (c, s) = (&summary["checks"], &summary["snapshots"]);
    assert_eq!(
        checks,
        format!(
            "{} checks: {} passed, 0 failed, 0 skipped, {} not applicable",
            c["total"], c["passed"], c["not_applicable"]
        ),
        "{last}"
    );
    assert_eq!(
        snapshots,
        format!("{} snapshots: {} passed, 0 failed", s["total"], s["passed"]),
        "{last}"
    );
    assert!(c["total"].as_u64().unwrap() > 80 && s["total"].as_u64().unwrap() > 50);
    assert_eq!(
        summary["passed"].as_u64(),
        Some(c["passed"].as_u64().unwrap() + s["passed"].as_u64().unwrap())
    );

    let junit = std::fs::read_to_string(&junit).expect("junit written");
    assert!(
        junit.contains("<testsuites")
            && junit.contains("headers/authorize/x-client-secret/missing")
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
            .expect("json parses");
    assert_eq!(json["summary"]["failed"], 0);

    let mut outputs = vec![
        stdout(&o),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        junit,
        json.to_string(),
    ];
    outputs.extend(read_all(Path::new(SHIPPED)).into_iter().map(|(_, c)| c));
    for secret in SECRETS {
        for text in &outputs {
            assert!(!text.contains(secret), "a secret leaked into an output");
        }
    }
}

#[test]
fn the_environment_cannot_turn_a_changed_snapshot_green() {
    let dir = scratch("force-pass").join("snapshots");
    copy_dir(Path::new(SHIPPED), &dir);
    let file = dir.join("refs__unknown.snap");
    let tampered = std::fs::read_to_string(&file)
        .expect("snapshot")
        .replace("\"status\": false", "\"status\": \"tampered\"");
    std::fs::write(&file, &tampered).expect("write");
    let o = conformance(
        &[
            "--embedded",
            "--snapshots",
            dir.to_str().expect("utf-8"),
            "--only",
            "refs",
        ],
        &[
            ("INSTA_FORCE_PASS", "1"),
            ("INSTA_UPDATE", "always"),
            ("INSTA_FORCE_UPDATE", "1"),
            ("CI", "1"),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("snapshots/refs/unknown"));
    assert!(stdout(&o).contains("tampered"), "the diff is shown");
    assert_eq!(
        std::fs::read_to_string(&file).expect("snapshot"),
        tampered,
        "the stored snapshot was overwritten"
    );
}

#[test]
fn accept_records_and_a_second_run_shows_no_difference() {
    let dir = scratch("accept").join("snapshots");
    let d = dir.to_str().expect("utf-8");
    // In CI, a missing snapshot fails.
    let o = conformance(
        &[
            "--embedded",
            "--snapshots",
            d,
            "--only",
            "headers/letter-case",
        ],
        &[("CI", "1")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("no stored snapshot"));
    // --accept records them, and does not fail on them.
    let o = conformance(
        &["--embedded", "--snapshots", d, "--accept"],
        &[("CI", "1")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let first = read_all(&dir);
    // One snapshot per stored one of the shipped profile: the same checks
    // against the same server.
    let shipped: Vec<String> = read_all(Path::new(SHIPPED))
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let recorded: Vec<String> = first.iter().map(|(name, _)| name.clone()).collect();
    assert_eq!(
        recorded,
        shipped,
        "recorded against shipped snapshots; the run said:\n{}",
        stdout(&o)
    );
    // Recording again changes nothing; checking passes.
    let o = conformance(&["--snapshots", d, "--accept"], &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stdout(&o).contains("updated"), "{}", stdout(&o));
    assert_eq!(
        read_all(&dir),
        first,
        "a second run against the same server differs"
    );
    let o = conformance(&["--embedded", "--snapshots", d], &[("CI", "1")]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // The shipped snapshots are what this run records.
    let shipped = read_all(Path::new(SHIPPED));
    assert_eq!(
        shipped, first,
        "conformance/profiles/snapshots is stale: run `cargo run -p conformance -- --accept`"
    );
}

#[test]
fn selection_by_id_prefix_and_section() {
    let o = conformance(
        &[
            "--no-snapshots",
            "--only",
            "7.1",
            "--skip",
            "errors/400/code",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("errors/400/message") && !out.contains("errors/400/code"));
    assert!(!out.contains("§5 Authentication"));
    let o = conformance(&["--no-snapshots", "--only", "nothing/like/this"], &[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_bad_profile_exits_2_naming_key_and_line() {
    let dir = scratch("bad-profile");
    let file = dir.join("p.yaml");
    std::fs::write(
        &file,
        "base_url: http://127.0.0.1:1\nclient_id: x\nclient_secret: ${CONFORMANCE_TEST_UNSET_VAR}\ncomponents:\n  - {name: a, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11}\n",
    )
    .expect("write");
    let o = conformance(&["--profile", file.to_str().expect("utf-8")], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("p.yaml:3: key `client_secret`") && err.contains("CONFORMANCE_TEST_UNSET_VAR"),
        "{err}"
    );

    std::fs::write(&file, "base_url: http://127.0.0.1:1\nclient_id: x\nclient_secret: y\ncomponents:\n  - name: a\n    tag: a\n    uuid: nope\n").expect("write");
    let o = conformance(&["--profile", file.to_str().expect("utf-8")], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("p.yaml:7: key `components[0].uuid`"), "{err}");
}

#[test]
fn an_unreachable_target_exits_2() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let dir = scratch("unreachable");
    let file = dir.join("p.yaml");
    std::fs::write(
        &file,
        format!("base_url: http://127.0.0.1:{port}\nclient_id: x\nclient_secret: y\ncomponents:\n  - {{name: a, tag: a, uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11}}\n"),
    )
    .expect("write");
    let o = conformance(
        &[
            "--profile",
            file.to_str().expect("utf-8"),
            "--timeout",
            "2s",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be reached"));
}

#[test]
fn the_readme_holds_the_catalogue() {
    let o = conformance(&["list", "--markdown"], &[]);
    assert_eq!(o.status.code(), Some(0));
    let table = stdout(&o);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let start = readme
        .find("<!-- catalogue:start -->")
        .expect("start marker")
        + "<!-- catalogue:start -->".len();
    let end = readme.find("<!-- catalogue:end -->").expect("end marker");
    assert_eq!(
        readme[start..end].trim(),
        table.trim(),
        "the README's catalogue is stale: paste `cargo run -p conformance -- list --markdown` between the markers"
    );
}

/// The numbers before `word` in `text` (`99 checks`, `63 faults`).
fn numbers_before(text: &str, word: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].trim_end_matches(' ');
        let digits: String = before
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !digits.is_empty() {
            out.push(digits.parse().expect("a number"));
        }
        rest = &rest[at + word.len()..];
    }
    out
}

/// The numbers the README states that the tools print: the last line of
/// a run (checks and snapshots), the catalogue's size, `coverage`'s
/// statements, the reference server's faults and legal variants.
#[test]
fn readme_numbers_are_the_tools() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let run = conformance(&["--embedded"], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    let last = last_line(&run);
    assert!(
        readme.contains(&format!("`{last}`")),
        "the README does not quote the run's last line `{last}`"
    );
    let (checks, snapshots) = last.split_once("; ").expect("checks; snapshots");
    let count = |part: &str| part.split(' ').next().unwrap().parse::<usize>().unwrap();
    let (checks, snapshots) = (count(checks), count(snapshots));
    assert_eq!(checks, conformance_suite::checks::catalogue().len());
    for n in numbers_before(&flat, " checks") {
        assert_eq!(
            n, checks,
            "the README says {n} checks; the tool runs {checks}"
        );
    }
    assert!(flat.contains(&format!("{checks} checks and {snapshots} snapshots")));
    // The runner's README quotes the same line, and no other count.
    let runner = std::fs::read_to_string(root.join("conformance/README.md")).expect("README");
    assert!(
        runner.contains(&format!("`{last}`")),
        "conformance/README.md does not quote the run's last line `{last}`"
    );
    let runner_flat = runner.split_whitespace().collect::<Vec<_>>().join(" ");
    for (word, n) in [(" checks", checks), (" snapshots", snapshots)] {
        for s in numbers_before(&runner_flat, word) {
            assert_eq!(
                s, n,
                "conformance/README.md says {s}{word}; the tool has {n}"
            );
        }
    }
    let coverage = stdout(&conformance(&["coverage"], &[]));
    let line = coverage.lines().last().expect("a summary");
    let numbers: Vec<&str> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .collect();
    let [all, enforced, none] = numbers[..] else {
        panic!("coverage's last line: {line}");
    };
    let sentence = format!(
        "{all} statements of requirements in the description: {enforced} enforced by a check, {none} by none"
    );
    assert!(
        flat.contains(&sentence),
        "the README does not say {sentence:?} (coverage: {line})"
    );
    let sentence = format!("{all} statements, {enforced} enforced by a check, {none} by none");
    assert!(
        runner_flat.contains(&sentence),
        "conformance/README.md does not say {sentence:?} (coverage: {line})"
    );
    let faults = reference_server::Fault::ALL.len();
    let variants = reference_server::Variant::ALL.len();
    for phrase in [
        format!("has {faults} faults"),
        format!("Each of its {faults} faults"),
        format!("{variants} legal variants"),
    ] {
        assert!(flat.contains(&phrase), "the README does not say {phrase:?}");
    }
    for (word, n) in [
        ("--list-faults`;", faults),
        (" legal variants", variants),
        ("--list-variants`;", variants),
    ] {
        let stated = if word.starts_with("--") {
            readme
                .split(word)
                .skip(1)
                .map(|r| {
                    r.trim_start()
                        .split(')')
                        .next()
                        .unwrap()
                        .parse::<usize>()
                        .unwrap()
                })
                .collect()
        } else {
            numbers_before(&readme, word)
        };
        assert!(!stated.is_empty(), "the README states no number of{word}");
        for s in stated {
            assert_eq!(s, n, "the README says {s} for `{word}`; the tool has {n}");
        }
    }
}

/// Every test "What the project promises" (`docs/promises.md`, linked from
/// the root README) names exists: a promise never points at a test that
/// was renamed or removed.
#[test]
fn the_readmes_promises_name_tests_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    assert!(
        readme.contains("](docs/promises.md)"),
        "the root README does not link docs/promises.md"
    );
    let section = std::fs::read_to_string(root.join("docs/promises.md")).expect("promises");
    assert!(
        section.starts_with("# What the project promises"),
        "docs/promises.md is not the promises"
    );
    let section = section.as_str();
    let mut sources = String::new();
    for dir in [
        "conformance",
        "conformance/model",
        "conformance/wire",
        "conformance/suite",
        "conformance/report",
        "reference-server",
        "runtime",
        "generator",
        "file-writer",
    ] {
        for (path, text) in files_under(&root.join(dir)) {
            if path.extension().is_some_and(|e| e == "rs") {
                sources.push_str(&text);
            }
        }
    }
    // Test names: lower-case words joined by `_`, perhaps after `module::tests::`.
    let names: Vec<&str> = section
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|quoted| quoted.rsplit("::").next().unwrap_or(quoted))
        .filter(|q| q.matches('_').count() >= 2)
        .filter(|q| q.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    assert!(!names.is_empty(), "the section names no test");
    for name in names {
        assert!(
            sources.contains(&format!("fn {name}(")),
            "docs/promises.md names the test `{name}`, which does not exist"
        );
    }
}

/// Every form a secret can travel in: as written, percent-encoded (path and
/// form style) and JSON-escaped, and the spellings a hostile server echoes
/// ([`spellings`]).
pub(crate) fn forms(secret: &str) -> Vec<String> {
    let json = serde_json::to_string(secret).expect("json");
    let mut all = vec![
        secret.to_owned(),
        percent_encoding::utf8_percent_encode(secret, percent_encoding::NON_ALPHANUMERIC)
            .to_string(),
        form_urlencoded::byte_serialize(secret.as_bytes()).collect(),
        json[1..json.len() - 1].to_owned(),
    ];
    all.extend(spellings(secret).into_iter().map(|(_, s)| s));
    all
}

/// The secret spelt as a reader still reads it, by name: every byte
/// percent-encoded (unreserved ones too) in lower and upper hex, the whole
/// value in upper, lower and flipped letter case, every character as a
/// JSON `\u` escape in lower and upper hex, and a mixture of all of these
/// character by character.
fn spellings(secret: &str) -> Vec<(&'static str, String)> {
    let pct = |upper: bool| -> String {
        secret
            .bytes()
            .map(|b| {
                if upper {
                    format!("%{b:02X}")
                } else {
                    format!("%{b:02x}")
                }
            })
            .collect()
    };
    let unicode = |upper: bool| -> String {
        secret
            .encode_utf16()
            .map(|u| {
                if upper {
                    format!("\\u{u:04X}")
                } else {
                    format!("\\u{u:04x}")
                }
            })
            .collect()
    };
    let flip = |c: char| {
        if c.is_lowercase() {
            c.to_uppercase().collect::<String>()
        } else {
            c.to_lowercase().collect()
        }
    };
    let mixed: String = secret
        .chars()
        .enumerate()
        .map(|(i, c)| match i % 4 {
            0 => format!("%{:02x}", c as u32),
            1 => format!("\\u{:04X}", c as u32),
            2 => flip(c),
            _ => c.to_string(),
        })
        .collect();
    vec![
        ("x-pct-lower", pct(false)),
        ("x-pct-upper", pct(true)),
        ("x-upper", secret.to_uppercase()),
        ("x-lower", secret.to_lowercase()),
        ("x-flipped", secret.chars().map(flip).collect()),
        ("x-unicode-lower", unicode(false)),
        ("x-unicode-upper", unicode(true)),
        ("x-mixed", mixed),
    ]
}

/// Every file under `dir`, recursively, with its text.
fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read dir") {
        let path = e.expect("entry").path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&path).expect("read")).into_owned();
            out.push((path, text));
        }
    }
    out
}

/// A server that echoes the client secret everywhere it can: in the
/// request id, in `X-Project-Uuid`, in a message, percent-encoded and
/// JSON-escaped; and the client secret, the token and the body's password
/// in every one of [`spellings`]: each in a header of its own, each in a
/// field of the body, each `\u` spelling also as JSON text (so that the
/// decoded string holds the secret) and in a JSON string escaped once more
/// (so that the decoded string still holds the escapes).
async fn echoing_server() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buf = [0u8; 8192];
                while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&seen).into_owned();
                let secret = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("x-client-secret")
                            .then(|| v.trim().to_owned())
                    })
                    .unwrap_or_default();
                let encoded = percent_encoding::utf8_percent_encode(
                    &secret,
                    percent_encoding::NON_ALPHANUMERIC,
                );
                let mut body = serde_json::json!({
                    "code": 400,
                    "status": false,
                    "request_id": secret,
                    "message": format!("bad secret {secret} ({encoded})"),
                });
                // The token and the password (from the body) too.
                let header = |name: &str| {
                    head.lines().find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
                    })
                };
                let length: usize = header("content-length")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0)
                    .min(1 << 20);
                let body_start = seen
                    .windows(4)
                    .position(|w| w == b"\r\n\r\n")
                    .map_or(seen.len(), |i| i + 4);
                while seen.len() < body_start + length {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let password = serde_json::from_slice::<serde_json::Value>(&seen[body_start..])
                    .ok()
                    .and_then(|v| v.get("password")?.as_str().map(str::to_owned));
                let mut echoed = vec![("secret", secret.clone())];
                echoed.extend(header("x-auth-token").map(|t| ("token", t)));
                echoed.extend(password.map(|p| ("password", p)));
                let mut extra = String::new();
                let mut raw_escapes = String::new();
                for (kind, value) in &echoed {
                    for (name, spelt) in spellings(value) {
                        let name = format!("{name}-{kind}");
                        body[&name] = spelt.clone().into();
                        extra.push_str(&format!("{name}: {spelt}\r\n"));
                        // Escapes as JSON text, not only inside a decoded string.
                        if name.starts_with("x-unicode") {
                            raw_escapes.push_str(&format!(",\"{name}-raw\":\"{spelt}\""));
                        }
                    }
                }
                let mut body = body.to_string();
                body.insert_str(body.len() - 1, &raw_escapes);
                let escaped = serde_json::to_string(&secret).expect("json");
                let answer = format!(
                    "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nx-project-uuid: {secret}\r\nx-debug: {escaped}\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(answer.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}")
}

#[test]
fn secrets_from_the_environment_never_appear_in_any_output() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(reference_server::Server::start(
            reference_server::ServerOptions::default(),
        ))
        .expect("reference server");
    let echo = rt.block_on(echoing_server());
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/profiles/reference.yaml"
    ))
    .expect("profile");
    let profile = shipped
        .replace(
            "client_secret: demo-secret-7Qx9",
            "client_secret: ${CLIENT_SECRET}",
        )
        .replace(
            "auth_token: users-token-ada-0001",
            "auth_token: ${USERS_TOKEN}",
        )
        .replace("password: correct-horse", "password: \"${ADA_PASSWORD}\"");
    // The reference server holds the fixture's values; the echoing server
    // takes any, so its secret has characters that encodings change.
    let runs = [
        ("reference", server.base_url(), "demo-secret-7Qx9"),
        ("echo", echo, "Zx9/\"q\" +&=%k"),
    ];
    let mut previous: Option<String> = None;
    for (name, url, client_secret) in runs {
        let dir = scratch(&format!("env-secrets-{name}"));
        let profile_path = dir.join("profile.yaml");
        std::fs::write(
            &profile_path,
            profile.replace(
                "base_url: http://127.0.0.1:8080",
                &format!("base_url: {url}"),
            ),
        )
        .expect("write profile");
        let secrets = [
            client_secret,
            "users-token-ada-0001",
            "correct-horse",
            "gw-s3cret-value",
        ];
        let json = dir.join("report.json");
        let junit = dir.join("junit.xml");
        let sarif = dir.join("report.sarif");
        let html = dir.join("report.html");
        let baseline = dir.join("known-failures.yaml");
        let out = conformance(
            &[
                "--profile",
                profile_path.to_str().expect("utf-8"),
                "--accept",
                "--json",
                json.to_str().expect("utf-8"),
                "--junit",
                junit.to_str().expect("utf-8"),
                "--sarif",
                sarif.to_str().expect("utf-8"),
                "--html",
                html.to_str().expect("utf-8"),
                "--write-baseline",
                baseline.to_str().expect("utf-8"),
                "--header",
                "X-Gateway-Key: gw-s3cret-value",
            ],
            &[
                ("CLIENT_SECRET", client_secret),
                ("USERS_TOKEN", secrets[1]),
                ("ADA_PASSWORD", secrets[2]),
            ],
        );
        assert!(
            out.status.code() == Some(0) || out.status.code() == Some(1),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            [&json, &junit, &sarif, &html, &baseline]
                .iter()
                .all(|f| f.exists()),
            "{name}: reports written"
        );
        // What a diff prints, as text and Markdown: from the run before
        // (the echoing server's run regresses, with what it echoed).
        let json_path = json.to_str().expect("utf-8").to_owned();
        let before = previous
            .replace(json_path.clone())
            .unwrap_or(json_path.clone());
        let diffs = [
            conformance(&["diff", &before, &json_path], &[]),
            conformance(&["diff", "--markdown", &before, &json_path], &[]),
        ];
        if name == "echo" {
            assert_eq!(diffs[0].status.code(), Some(1), "{}", stdout(&diffs[0]));
        }
        let mut outputs = files_under(&dir);
        outputs.retain(|(path, _)| *path != profile_path);
        assert!(
            outputs.len() > 10,
            "{name}: snapshots, reports: {}",
            outputs.len()
        );
        outputs.push((dir.join("<stdout>"), stdout(&out)));
        outputs.push((
            dir.join("<stderr>"),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
        for (i, d) in diffs.iter().enumerate() {
            outputs.push((dir.join(format!("<diff {i}>")), stdout(d)));
        }
        for secret in secrets {
            for form in forms(secret) {
                for (path, text) in &outputs {
                    assert!(
                        !text.contains(&form),
                        "{name}: {} holds a secret (as `{form}`)",
                        path.display()
                    );
                }
            }
        }
        if name == "echo" {
            // The echoed values were seen, and shown redacted; reproductions
            // send the gateway header as a variable.
            assert!(stdout(&out).contains("[redacted]"), "{name}");
            for kind in ["secret", "token", "password"] {
                let echoed = format!("\"x-mixed-{kind}\": \"[redacted]\"");
                assert!(
                    outputs.iter().any(|(_, text)| text.contains(&echoed)),
                    "{name}: the {kind} was echoed, and recorded redacted"
                );
            }
            assert!(
                stdout(&out).contains(r#"-H 'x-gateway-key: '"${HEADER_X_GATEWAY_KEY}""#),
                "{name}: no gateway header in the reproductions"
            );
        }
    }
    rt.block_on(server.shutdown());
}

#[test]
fn check_profile_says_what_cannot_run_and_what_to_add() {
    let dir = scratch("check-profile");
    let partial = dir.join("partial.yaml");
    std::fs::write(
        &partial,
        "base_url: https://staging.example.com\nclient_id: ${CID}\nclient_secret: ${S}\ncomponents:\n  - name: Catalog\n    tag: catalog\n    uuid: 3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718\n",
    )
    .expect("write");
    let out = conformance(
        &["check-profile", partial.to_str().expect("utf-8")],
        &[("S", "s3cret-value"), ("CID", "client-1d-from-env")],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("Cannot run: no component in the profile has an `authorize` section"));
    assert!(text.contains("To run them, add `authorize:"), "{text}");
    assert!(!text.contains("s3cret-value"));
    // A client id read from the environment is shown as its variable, as
    // the run shows it.
    assert!(!text.contains("client-1d-from-env"), "{text}");
    assert!(text.contains("(client `${CID}`"), "{text}");
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/profiles/reference.yaml");
    let out = conformance(&["check-profile", shipped], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("Every selected MUST check can run."));
}

#[test]
fn the_ci_example_installs_a_pinned_runner_and_uses_real_flags() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let read = |path: &str| {
        std::fs::read_to_string(format!("{root}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let text = read("docs/ci-example.yml");
    let yaml: serde_yaml::Value = serde_yaml::from_str(&text).expect("valid YAML");
    let steps = yaml["jobs"]["conformance"]["steps"]
        .as_sequence()
        .expect("steps");
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(
        !runs
            .iter()
            .any(|r| r.contains("cargo ") || r.contains("-p conformance")),
        "the server's repository has no copy of this workspace, and the runner is not compiled"
    );

    // The gate is this repository's action, pinned to a release tag, with
    // the same version as its input.
    let gate = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("/component-auth-conformance@"))
        })
        .expect("a step uses the action");
    let pinned = gate["uses"].as_str().unwrap().rsplit('@').next().unwrap();
    let is_tag = |v: &str| {
        v.strip_prefix('v').is_some_and(|rest| {
            rest.split('.').count() == 3 && rest.split('.').all(|n| n.parse::<u32>().is_ok())
        })
    };
    assert!(
        is_tag(pinned),
        "the action is pinned to a release tag: {pinned}"
    );
    assert_eq!(gate["with"]["version"].as_str(), Some(pinned));

    // Every input given is one the action declares; the profile is given.
    let action: serde_yaml::Value = serde_yaml::from_str(&read("action.yml")).expect("action.yml");
    let inputs = action["inputs"].as_mapping().expect("inputs");
    let given = gate["with"].as_mapping().expect("with");
    for key in given.keys() {
        assert!(
            inputs.contains_key(key),
            "{key:?} is not an input of action.yml"
        );
    }
    assert!(
        given.contains_key("profile"),
        "the example names its profile"
    );

    // The flags the action's gate step passes are flags of conformance, and
    // its check-profile takes the profile as it is written.
    let help = stdout(&conformance(&["--help"], &[]));
    let script = read(".github/action/run.sh");
    let flags: Vec<&str> = script
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .collect();
    for flag in [
        "--profile",
        "--baseline",
        "--junit",
        "--sarif",
        "--html",
        "--strict",
    ] {
        assert!(flags.contains(&flag), "run.sh passes no {flag}");
    }
    for flag in flags {
        assert!(help.contains(flag), "{flag} is not a flag of conformance");
    }
    assert!(script.contains(r#"conformance check-profile --profile "$profile""#));
    let check = conformance(&["check-profile", "--help"], &[]);
    assert!(
        stdout(&check).contains("--profile <FILE>"),
        "check-profile takes the profile"
    );
}

/// A forwarding HTTP proxy that stands in front of `upstream` whatever host
/// a request names (as a gateway would): counts the requests it carries,
/// sends each upstream in origin form, and copies the answer back.
async fn counting_proxy(
    upstream: std::net::SocketAddr,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::Ordering;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match client.read(&mut byte).await {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let text = String::from_utf8_lossy(&head).into_owned();
                let mut parts = text.splitn(3, ' ');
                let (method, uri, rest) = (
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                );
                let Some(after) = uri.strip_prefix("http://") else {
                    return;
                };
                let path = &after[after.find('/').unwrap_or(after.len())..];
                seen.fetch_add(1, Ordering::SeqCst);
                let Ok(mut upstream) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                let rewritten = format!("{method} {path} {rest}");
                if upstream.write_all(rewritten.as_bytes()).await.is_err() {
                    return;
                }
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    (format!("http://{addr}"), count)
}

#[test]
fn the_proxy_variables_are_honoured() {
    use std::sync::atomic::Ordering;
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(reference_server::Server::start(
            reference_server::ServerOptions::default(),
        ))
        .expect("reference server");
    let (proxy, carried) = rt.block_on(counting_proxy(server.addr()));
    let dir = scratch("proxy");
    let profile = dir.join("profile.yaml");
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/profiles/reference.yaml"
    ))
    .expect("profile");
    std::fs::write(
        &profile,
        // A host that only the proxy reaches (a loopback target is always
        // connected to directly).
        shipped.replace(
            "base_url: http://127.0.0.1:8080",
            "base_url: http://staging.conformance.invalid",
        ),
    )
    .expect("write");
    let args = [
        "--profile",
        profile.to_str().expect("utf-8"),
        "--no-snapshots",
        "--only",
        "headers/auth-claims",
    ];
    let out = conformance(&args, &[("HTTP_PROXY", &proxy), ("NO_PROXY", "")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let through = carried.load(Ordering::SeqCst);
    assert!(through >= 7, "the proxy carried {through} requests");
    // NO_PROXY names the host: no request goes through the proxy, and the
    // host itself does not resolve, so the target cannot be reached (exit 2).
    let out = conformance(
        &args,
        &[
            ("HTTP_PROXY", &proxy),
            ("NO_PROXY", "staging.conformance.invalid"),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert_eq!(
        carried.load(Ordering::SeqCst),
        through,
        "NO_PROXY was not honoured"
    );
    // A loopback target is connected to directly, proxy or not.
    let direct = dir.join("direct.yaml");
    std::fs::write(
        &direct,
        shipped.replace(
            "base_url: http://127.0.0.1:8080",
            &format!("base_url: {}", server.base_url()),
        ),
    )
    .expect("write");
    let mut direct_args = args;
    direct_args[1] = direct.to_str().expect("utf-8");
    let out = conformance(&direct_args, &[("HTTP_PROXY", &proxy)]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        carried.load(Ordering::SeqCst),
        through,
        "loopback went through the proxy"
    );
    rt.block_on(server.shutdown());
}

/// The reproduction of the first failure in `out` whose line holds `label`:
/// from `reproduce: ` to its `curl` line, prelude included.
fn reproduction(out: &str, label: &str) -> String {
    let start = out
        .find(label)
        .unwrap_or_else(|| panic!("no `{label}` in:\n{out}"));
    let rest = &out[start..];
    let at = rest.find("reproduce: ").expect("a reproduction") + "reproduce: ".len();
    let mut lines = Vec::new();
    for line in rest[at..].lines() {
        lines.push(line.trim_start());
        if line.trim_start().starts_with("curl ") {
            break;
        }
    }
    lines.join("\n")
}

/// Runs `script` in `sh` with only `env` (and PATH) set; its stdout.
fn sh(script: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).env_clear();
    cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("sh runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A reproduction pastes into the user's own shell: it names the profile's
/// own variables, obtains a token the run had issued, and shows a port read
/// from `${PORT}` as the port it is. Run against a server that accepts a
/// token of another component, the pasted commands get the same 200.
#[test]
fn a_reproduction_runs_as_pasted_with_the_profiles_own_variables() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(reference_server::Server::start(
            reference_server::ServerOptions {
                fault: Some(reference_server::Fault::TokenCrossesComponents),
                ..Default::default()
            },
        ))
        .expect("reference server");
    let port = server.addr().port().to_string();
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/profiles/reference.yaml"
    ))
    .expect("profile");
    // Every secret from the environment, under the user's names.
    let profile = shipped
        .replace(
            "base_url: http://127.0.0.1:8080",
            "base_url: http://127.0.0.1:${PORT}",
        )
        .replace(
            "client_secret: demo-secret-7Qx9",
            "client_secret: ${SECRET}",
        )
        .replace(
            "auth_token: users-token-ada-0001",
            "auth_token: ${ADA_TOKEN}",
        )
        .replace("password: correct-horse", "password: \"${ADA_PASSWORD}\"")
        .replace("pin: 1234 }", "pin: \"${PIN:json}\" }");
    let env = [
        ("PORT", port.as_str()),
        ("SECRET", "demo-secret-7Qx9"),
        ("ADA_TOKEN", "users-token-ada-0001"),
        ("ADA_PASSWORD", "correct-horse"),
        ("PIN", "1234"),
        ("INVENTORY_TOKEN", "catalog-token-acme-0001"),
    ];
    let with_catalog_token = profile.replace(
        "    requires_auth: false\n    authorize:\n      model_uuid: 8a9b",
        "    requires_auth: false\n    auth_token: ${INVENTORY_TOKEN}\n    authorize:\n      model_uuid: 8a9b",
    );
    assert_ne!(with_catalog_token, profile);
    let label = "GET Users: X-Auth-Token of another component";
    let curl_runs = Command::new("curl").arg("--version").output().is_ok();
    for (name, text) in [("issued", &profile), ("profile", &with_catalog_token)] {
        let dir = scratch(&format!("reproduce-{name}"));
        let path = dir.join("profile.yaml");
        std::fs::write(&path, text).expect("write profile");
        let out = conformance(
            &[
                "--profile",
                path.to_str().expect("utf-8"),
                "--only",
                "near-miss/x-auth-token",
            ],
            &env,
        );
        let shown = stdout(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {shown}");
        let repro = reproduction(&shown, label);
        assert!(
            repro.contains(&format!(
                "'http://127.0.0.1:{port}/v2/api/component/Users/auth'"
            )),
            "{name}: the port is shown: {repro}"
        );
        for var in ["SECRET", "ADA_PASSWORD"] {
            assert!(
                repro.contains(&format!("${{{var}}}")),
                "{name}: {var}: {repro}"
            );
        }
        assert!(
            !repro.contains("AUTH_TOKEN_") && !repro.contains("CLIENT_SECRET"),
            "{name}: a variable the profile does not name: {repro}"
        );
        if name == "issued" {
            assert!(
                repro.starts_with("# ISSUED_TOKEN_CATALOG: the token an Authorize of Catalog issues\nISSUED_TOKEN_CATALOG=\"$(curl -sS -X POST "),
                "{repro}"
            );
            assert!(repro.contains("${PIN}"), "{repro}");
            assert!(
                repro.contains("\"x-auth-token: ${ISSUED_TOKEN_CATALOG}\""),
                "{repro}"
            );
        } else {
            assert!(
                repro.contains("\"x-auth-token: ${INVENTORY_TOKEN}\""),
                "{repro}"
            );
        }
        // Pasted into a shell that has the user's variables, it gets what
        // the run got.
        if curl_runs {
            let answer = sh(&repro, &env);
            assert!(
                answer.contains("\"code\":200") && answer.contains("\"name\":\"Users\""),
                "{name}: the pasted reproduction answered {answer:?}:\n{repro}"
            );
        }
    }
    rt.block_on(server.shutdown());
}

/// The value `key` (as a report's `export` line names it) holds in the
/// profile `yaml`: `client_secret`, `components[0].auth_token`,
/// `components[1].authorize.valid_body.pin`, `base_url (its password)`.
fn value_at(yaml: &serde_yaml::Value, key: &str) -> String {
    if key == "base_url (its password)" {
        let url = reqwest::Url::parse(yaml["base_url"].as_str().expect("base_url")).expect("url");
        return url.password().expect("a password").to_owned();
    }
    let mut at = yaml;
    for part in key.split('.') {
        at = match part.split_once('[') {
            Some((name, index)) => {
                &at[name][index.trim_end_matches(']').parse::<usize>().expect("index")]
            }
            None => &at[part],
        };
    }
    match at {
        serde_yaml::Value::String(s) => s.clone(),
        serde_yaml::Value::Number(n) => n.to_string(),
        other => panic!("{key}: {other:?}"),
    }
}

/// Every kind of secret a profile may write out itself (the client secret,
/// a component's token, a string and a number among the body fields, the
/// password in `base_url`) becomes a variable in the reproductions, and the
/// report prints the `export` line for each with the key that holds its
/// value, never the value. Defined from the keys the report names, every
/// reproduction pasted into `sh -u` (an undefined variable is an error)
/// gets the status the run got.
#[test]
fn every_variable_a_reproduction_reads_is_defined_or_named() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(reference_server::Server::start(
            reference_server::ServerOptions {
                fault: Some(reference_server::Fault::SuccessBodyNotJson),
                ..Default::default()
            },
        ))
        .expect("reference server");
    let port = server.addr().port();
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/profiles/reference.yaml"
    ))
    .expect("profile");
    let text = shipped.replace(
        "base_url: http://127.0.0.1:8080",
        &format!("base_url: http://gateway:gw-pass-5521@127.0.0.1:{port}"),
    );
    let dir = scratch("defined");
    let path = dir.join("profile.yaml");
    std::fs::write(&path, &text).expect("write profile");
    let yaml: serde_yaml::Value = serde_yaml::from_str(&text).expect("yaml");
    let out = conformance(
        &[
            "--profile",
            path.to_str().expect("utf-8"),
            "--no-snapshots",
            "--only",
            "responses/json",
        ],
        &[],
    );
    let shown = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    for secret in [
        "demo-secret-7Qx9",
        "users-token-ada-0001",
        "correct-horse",
        "gw-pass-5521",
    ] {
        assert!(!shown.contains(secret), "a secret is printed:\n{shown}");
    }
    // The export lines: variable, and the key that holds its value.
    let mut env: Vec<(String, String)> = Vec::new();
    let file = format!(" in {}", path.display());
    for line in shown
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("export "))
    {
        let (variable, rest) = line.split_once("=...   # the value of `").expect(line);
        let (key, tail) = rest.split_once('`').expect(line);
        assert_eq!(tail, file, "{line}");
        env.push((variable.to_owned(), value_at(&yaml, key)));
    }
    let names: Vec<&str> = env.iter().map(|(v, _)| v.as_str()).collect();
    for kind in [
        "CLIENT_SECRET",
        "AUTH_TOKEN_USERS",
        "PASSWORD_USERS",
        "PIN_CATALOG",
        "BASE_URL_PASSWORD",
    ] {
        assert!(names.contains(&kind), "no export line for {kind}:\n{shown}");
    }
    // Every reproduction, with the status its answer line names.
    let lines: Vec<&str> = shown.lines().collect();
    let mut pasted = 0;
    let curl_runs = Command::new("curl").arg("--version").output().is_ok();
    for (i, line) in lines.iter().enumerate() {
        let Some(command) = line.trim_start().strip_prefix("reproduce: ") else {
            continue;
        };
        assert!(command.starts_with("curl "), "{command}");
        for var in command.split("${").skip(1) {
            let var = var.split('}').next().expect("a name");
            assert!(
                names.contains(&var),
                "`{var}` is neither the profile's nor defined by an export line: {command}"
            );
        }
        let status = lines[i - 1]
            .split("HTTP ")
            .nth(1)
            .map(|s| &s[..3])
            .expect("the answer's status");
        if curl_runs {
            let script = format!("{command} -o /dev/null -w '%{{http_code}}'");
            let env: Vec<(&str, &str)> =
                env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let got = sh(&format!("set -u\n{script}"), &env);
            assert_eq!(got, status, "pasted, it answered {got:?}:\n{command}");
        }
        pasted += 1;
    }
    assert!(pasted >= 4, "{shown}");
    rt.block_on(server.shutdown());
}

/// An empty header is reproduced as curl sends one (`-H 'Name;'`; given
/// as `Name: ` curl drops it): pasted against a server that takes an empty
/// X-Project-Env for an absent one, it gets the 200 the run got.
#[test]
fn a_reproduction_sends_an_empty_header_as_empty() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(reference_server::Server::start(
            reference_server::ServerOptions {
                fault: Some(reference_server::Fault::ProjectEnvEmptyAsAbsent),
                ..Default::default()
            },
        ))
        .expect("reference server");
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/profiles/reference.yaml"
    ))
    .expect("profile");
    let profile = shipped.replace(
        "base_url: http://127.0.0.1:8080",
        &format!("base_url: {}", server.base_url()),
    );
    let dir = scratch("reproduce-empty-header");
    let path = dir.join("profile.yaml");
    std::fs::write(&path, profile).expect("write profile");
    let out = conformance(
        &[
            "--profile",
            path.to_str().expect("utf-8"),
            "--only",
            "near-miss/x-project-env",
        ],
        &[],
    );
    let shown = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    let repro = reproduction(&shown, "X-Project-Env `` (empty)");
    assert!(repro.contains(" -H 'x-project-env;'"), "{repro}");
    if Command::new("curl").arg("--version").output().is_ok() {
        let answer = sh(
            &repro,
            &[
                ("CLIENT_SECRET", "demo-secret-7Qx9"),
                ("AUTH_TOKEN_USERS", "users-token-ada-0001"),
                ("PASSWORD_USERS", "correct-horse"),
            ],
        );
        assert!(answer.contains("\"code\":200"), "{answer:?}:\n{repro}");
    }
    rt.block_on(server.shutdown());
}

/// Under CI a run names its target: a forgotten `--profile` is refused
/// (exit 2, one line naming both ways out), for a run and for `choices`,
/// and nothing is tested; `--embedded` says the built-in server is meant,
/// and the report's first line says so.
#[test]
fn under_ci_a_run_without_a_profile_is_refused_not_green() {
    for args in [&["--no-snapshots"][..], &["choices"][..]] {
        let o = conformance(args, &[("CI", "true")]);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("--profile FILE") && err.contains("--embedded"),
            "{err}"
        );
        assert!(stdout(&o).is_empty(), "{args:?} printed a run");
    }
    let o = conformance(
        &["--embedded", "--no-snapshots", "--only", "refs"],
        &[("CI", "true")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Conformance of the embedded reference server, http://127.0.0.1:"),
        "{first}"
    );
    let o = conformance(&["--embedded", "--profile", "x.yaml"], &[]);
    assert_eq!(o.status.code(), Some(2), "both --embedded and --profile");
}

/// A run in which no MUST check was judged proves nothing a gate needs:
/// not green, and it says why.
#[test]
fn a_run_that_judged_no_must_check_is_not_green() {
    let o = conformance(
        &["--no-snapshots", "--only", "http/method-not-allowed"],
        &[],
    );
    let out = stdout(&o);
    assert!(
        out.contains("PASS  SHOULD http/method-not-allowed"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("No MUST check ran"), "{out}");
}

/// A report meant to be shared (`diff --markdown` for a PR comment, the
/// JSON it reads) holds no absolute path of the machine it ran on: a
/// snapshot outside the current folder is named by its folder and file.
#[test]
fn diff_markdown_holds_no_absolute_path() {
    let dir = std::env::temp_dir().join(format!("conformance-shared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let snaps = dir.join("snaps");
    std::fs::create_dir_all(&snaps).expect("mkdir");
    let (good, bad) = (dir.join("good.json"), dir.join("bad.json"));
    let passed = conformance(&["--embedded", "--json", good.to_str().unwrap()], &[]);
    assert_eq!(passed.status.code(), Some(0), "{}", stdout(&passed));
    let failed = conformance(
        &[
            "--embedded",
            "--snapshots",
            snaps.to_str().unwrap(),
            "--json",
            bad.to_str().unwrap(),
        ],
        &[("CI", "true")],
    );
    assert_eq!(failed.status.code(), Some(1), "{}", stdout(&failed));
    let diff = conformance(
        &[
            "diff",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
            "--markdown",
        ],
        &[],
    );
    let markdown = stdout(&diff);
    assert!(markdown.contains("snaps/"), "{markdown}");
    let absolute = dir.display().to_string();
    assert!(!markdown.contains(&absolute), "{markdown}");
    let json = std::fs::read_to_string(&bad).expect("report");
    assert!(
        !json.contains(&absolute),
        "the JSON report holds {absolute}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One version string everywhere a user copies it from: the READMEs, the
/// action and its installer, the CI example `init` writes the workflow
/// from, and the crates the release names by their version (a pinned
/// third-party action's `# vX.Y.Z` comment is its own version, not ours).
#[test]
fn one_version_everywhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(conformance::init::VERSION_TAG, tag);
    let version = stdout(&conformance(&["--version"], &[]));
    assert_eq!(
        version.trim(),
        format!("conformance {}", env!("CARGO_PKG_VERSION"))
    );
    for file in [
        "README.md",
        "conformance/README.md",
        "action.yml",
        ".github/action/install.sh",
        "docs/ci-example.yml",
    ] {
        let text = std::fs::read_to_string(root.join(file)).expect(file);
        for line in text.lines() {
            let ours = line.split(" # v").next().unwrap_or(line);
            let mut rest = ours;
            while let Some(at) = rest.find('v') {
                let after = &rest[at + 1..];
                let candidate: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let semver = candidate.split('.').filter(|p| !p.is_empty()).count() == 3
                    && rest[..at]
                        .chars()
                        .last()
                        .is_none_or(|c| !c.is_ascii_alphanumeric());
                if semver {
                    assert_eq!(
                        format!("v{}", candidate.trim_end_matches('.')),
                        tag,
                        "{file}: {line}"
                    );
                }
                rest = after;
            }
        }
    }
    for krate in ["conformance/report", "reference-server"] {
        let manifest = std::fs::read_to_string(root.join(krate).join("Cargo.toml")).expect(krate);
        assert!(
            manifest.contains(&format!("\nversion = \"{}\"\n", env!("CARGO_PKG_VERSION"))),
            "{krate}'s version is not conformance's (the release checks both against the tag)"
        );
    }
}

/// `--profile` is each subcommand's own (a run's option before a
/// subcommand is refused, not silently ignored).
#[test]
fn profile_is_each_subcommands_own() {
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/reference.yaml");
    let profile = profile.to_str().unwrap();
    let before = conformance(&["--profile", profile, "check-profile"], &[]);
    let after = conformance(&["check-profile", "--profile", profile], &[]);
    assert_eq!(before.status.code(), Some(2), "{}", stdout(&before));
    assert_eq!(after.status.code(), Some(0), "{}", stdout(&after));
    // init and choices take the connection flags runs take.
    let o = conformance(
        &[
            "choices",
            "--profile",
            profile,
            "--ca-cert",
            "/nonexistent/ca.pem",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("/nonexistent/ca.pem"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for sub in ["init", "choices"] {
        let help = stdout(&conformance(&[sub, "--help"], &[]));
        for flag in ["--ca-cert", "--client-cert", "--client-key", "--header"] {
            assert!(help.contains(flag), "{sub} --help lacks {flag}");
        }
    }
}

/// The defaults the help and the README's option table state are the ones
/// a run uses (`--retries` said 2 in both while the runner re-sent 8 times).
#[test]
fn stated_defaults_are_the_runners() {
    let limits = conformance_wire::transport::Limits::default();
    let help = stdout(&conformance(&["--help"], &[]));
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    for (flag, value) in [
        ("--retries", limits.retries.to_string()),
        ("--concurrency", limits.concurrency.to_string()),
        ("--timeout", format!("{}s", limits.timeout.as_secs())),
    ] {
        let said = help
            .split(&format!("      {flag} <"))
            .nth(1)
            .and_then(|rest| rest.split("(default ").nth(1))
            .and_then(|rest| rest.split([';', ')', ',']).next())
            .unwrap_or_else(|| panic!("`--help` states no default for {flag}"));
        assert_eq!(said.trim(), value, "`--help`'s default for {flag}");
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{flag} ")))
            .unwrap_or_else(|| panic!("conformance/README.md has no row for {flag}"));
        let cell = row.trim_end_matches('|').rsplit('|').next().unwrap_or("");
        assert_eq!(
            cell.trim(),
            value,
            "conformance/README.md's default for {flag}"
        );
    }
}

/// A closed standard output (`conformance ... | head -1`, a CI step that
/// stopped reading) is no panic: the run still writes its reports and
/// exits with its verdict.
#[test]
fn a_closed_stdout_is_no_panic_and_the_verdict_stands() {
    let dir = scratch("closed-stdout");
    let json = dir.join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["--embedded", "--no-snapshots", "--only", "refs", "--json"])
        .arg(&json)
        .env_remove("CI")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("conformance");
    // The reading end closed before the run prints anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("exit");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report = std::fs::read_to_string(&json).expect("the JSON report is written");
    assert!(report.contains("refs/by-name"), "{report}");
}
