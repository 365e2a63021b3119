//! A profile at every cap at once (`conformance_model::limits`): accepted,
//! and a run of it (the binary, as CI runs it, against the reference
//! server) stays within the memory the README states. Before the caps, an
//! `enum` of 1,000 values took 500 MiB, 300 declared fields 2.1 GiB, and
//! 3,000 fields or 4,000 values aborted under a 4 GiB limit.
//!
//! Peak memory is the kernel's count for the child (`VmHWM` in
//! `/proc/PID/status`), read until it exits, as `large_answers.rs` does.
//! Linux only: elsewhere the test says it is skipped.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use conformance_model::limits::{
    BODY_BYTES, COMPONENTS, ENUM_VALUES, FIELDS_PER_COMPONENT, FIELDS_PER_PROFILE, PATTERNS,
    SECRET_FIELDS, SNAPSHOT_HEADERS,
};

/// What the README states a run at every cap stays under ("Caps" in
/// conformance/README.md): measured 183 MiB (debug build, 2 cores).
pub const BUDGET_KIB: u64 = 256 * 1024;

/// A string field with a Unicode pattern whose compiled size is near the
/// run's share of the patterns' cap (about 1.9 MiB each, 15 of them).
const UNICODE_PATTERN: &str = r#"^[\\w .'-]{1,32}$"#;

/// The profile with every cap reached at once, against `base_url`: 16
/// components (the reference fixture's Catalog and Café Menü with 32
/// declared fields each, 64 in all; 14 others that require auth), `enum`s
/// of 256 values, 32 patterns, bodies of 4 KiB whose fields are secrets,
/// full `secret_fields` and `snapshot_headers` lists.
pub fn at_caps(base_url: &str) -> String {
    assert_eq!(
        (COMPONENTS, FIELDS_PER_COMPONENT, FIELDS_PER_PROFILE),
        (16, 32, 64)
    );
    assert_eq!((ENUM_VALUES, PATTERNS, BODY_BYTES), (256, 32, 4096));
    let values: Vec<String> = (0..ENUM_VALUES).map(|i| format!("v{i}")).collect();
    let values = format!("[{}]", values.join(", "));
    let secret_fields = |extra: usize| {
        let mut names = vec!["pin".to_owned(), "password".to_owned()];
        names.extend((0..7).map(|i| format!("s{i}")));
        names.extend((0..extra).map(|i| format!("sf{i}")));
        assert_eq!(names.len(), SECRET_FIELDS);
        format!("    secret_fields: [{}]\n", names.join(", "))
    };
    let mut out = format!(
        "base_url: {base_url}\nclient_id: conformance-client\nclient_secret: demo-secret-7Qx9\ncomponents:\n"
    );
    // Catalog: account and pin (the fixture's), 8 enums, 15 Unicode
    // patterns, 7 strings of 560 characters in the body.
    let mut fields = vec![
        r#"account: {type: string, required: true, min_length: 2, max_length: 32, pattern: "^[a-z][a-z0-9-]*$"}"#.to_owned(),
        "pin: {type: integer, required: true, minimum: 0, maximum: 9999, secret: true}".to_owned(),
    ];
    let mut body = vec![
        "\"account\": \"acme\"".to_owned(),
        "\"pin\": 1234".to_owned(),
    ];
    fields.extend(
        (0..8).map(|i| format!("e{i}: {{type: string, max_length: 4096, enum: {values}}}")),
    );
    fields.extend((0..15).map(|i| {
        format!("p{i}: {{type: string, max_length: 4096, pattern: \"{UNICODE_PATTERN}\"}}")
    }));
    for i in 0..7 {
        fields.push(format!("s{i}: {{type: string, max_length: 4096}}"));
        body.push(format!("\"s{i}\": \"{}\"", "x".repeat(560)));
    }
    component(
        &mut out,
        "Catalog",
        "catalog",
        "3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718",
        &secret_fields(55),
    );
    authorize(
        &mut out,
        "8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3",
        &body,
        &fields,
    );
    // Café Menü: table and vip, 8 enums, 16 ASCII patterns, 6 strings.
    let mut fields = vec![
        "table: {type: integer, required: true, minimum: 1, maximum: 99}".to_owned(),
        "vip: {type: boolean}".to_owned(),
    ];
    let mut body = vec!["\"table\": 7".to_owned(), "\"vip\": true".to_owned()];
    fields.extend(
        (8..16).map(|i| format!("e{i}: {{type: string, max_length: 4096, enum: {values}}}")),
    );
    fields.extend(
        (15..31).map(|i| {
            format!("p{i}: {{type: string, max_length: 4096, pattern: \"^[a-z]{{1,8}}$\"}}")
        }),
    );
    for i in 0..6 {
        fields.push(format!("s{i}: {{type: string, max_length: 4096}}"));
        body.push(format!("\"s{i}\": \"{}\"", "y".repeat(660)));
    }
    component(
        &mut out,
        "Café Menü",
        "cafe-menu",
        "9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a",
        &secret_fields(55),
    );
    authorize(
        &mut out,
        "c0ffee00-1234-4abc-8def-0123456789ab",
        &body,
        &fields,
    );
    for i in 0..COMPONENTS - 2 {
        let uuid = format!("00000000-0000-4000-8000-{i:012}");
        component(
            &mut out,
            &format!("Other {i}"),
            &format!("other-{i}"),
            &uuid,
            &secret_fields(55),
        );
        out.push_str(&format!(
            "    requires_auth: true\n    auth_token: token-of-other-{i}-0123456789\n"
        ));
    }
    let headers: Vec<String> = (0..SNAPSHOT_HEADERS).map(|i| format!("x-h{i}")).collect();
    out.push_str(&format!(
        "snapshot_headers: [{}]\nchoices:\n  model_uuid: query\n",
        headers.join(", ")
    ));
    out
}

fn component(out: &mut String, name: &str, tag: &str, uuid: &str, secret_fields: &str) {
    out.push_str(&format!(
        "  - name: \"{name}\"\n    tag: {tag}\n    uuid: {uuid}\n{secret_fields}"
    ));
}

fn authorize(out: &mut String, model: &str, body: &[String], fields: &[String]) {
    out.push_str(&format!(
        "    authorize:\n      model_uuid: {model}\n      valid_body: {{{}}}\n    fields:\n",
        body.join(", ")
    ));
    for f in fields {
        out.push_str(&format!("      {f}\n"));
    }
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "conformance-caps-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The `VmHWM:` line of a `/proc/PID/status`, in KiB.
fn vm_hwm_kib(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_profile_at_every_cap_runs_within_the_stated_memory() {
    if !std::path::Path::new("/proc/self/status").exists() {
        println!("SKIPPED caps: no /proc to read a child's peak memory from");
        return;
    }
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(reference_server::Server::start(
            reference_server::ServerOptions::default(),
        ))
        .expect("reference server");
    let dir = scratch();
    let profile = dir.join("caps.yaml");
    std::fs::write(&profile, at_caps(&server.base_url())).expect("write profile");
    let accepted = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["check-profile", "--profile"])
        .arg(&profile)
        .output()
        .expect("check-profile");
    assert!(
        matches!(accepted.status.code(), Some(0 | 1)),
        "check-profile refused the profile at the caps: {}",
        String::from_utf8_lossy(&accepted.stderr)
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .arg("--profile")
        .arg(&profile)
        .arg("--no-snapshots")
        .env_remove("CI")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(dir.join("stderr")).expect("stderr file"))
        .spawn()
        .expect("start conformance");
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        if let Some(kib) = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| vm_hwm_kib(&s))
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = std::fs::read_to_string(dir.join("stdout")).unwrap_or_default();
    let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
    // The run judges (the profile declares fields the fixture lacks, so
    // checks fail: exit 1); it is not refused, killed or aborted.
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{status:?}\n{stderr}\n{}",
        stdout.lines().last().unwrap_or_default()
    );
    assert!(stdout.contains(" checks: "), "no summary: {stdout}");
    println!("a run at every cap: peak {} MiB", peak_kib / 1024);
    assert!(
        peak_kib < BUDGET_KIB,
        "a run at every cap took {peak_kib} KiB, over the README's {BUDGET_KIB} KiB"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
