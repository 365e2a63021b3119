//! Broken fixtures are refused with the file, the line and the key.

use reference_server::{Fixture, FixtureError};

const DEFAULT: &str = include_str!("../../fixtures/default.yaml");

/// The default fixture with one piece replaced (which must be there).
fn broken(from: &str, to: &str) -> String {
    assert!(
        DEFAULT.contains(from),
        "{from:?} is not in the default fixture"
    );
    DEFAULT.replacen(from, to, 1)
}

/// The 1-based line of the first line containing `needle` in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or(0, |i| i + 1)
}

fn refuse(text: &str) -> (usize, String, String) {
    match Fixture::from_yaml_str(text, "broken.yaml") {
        Ok(_) => panic!("a broken fixture was accepted"),
        Err(FixtureError::Invalid {
            file,
            line,
            key,
            message,
        }) => {
            assert_eq!(file, "broken.yaml");
            (line, key, message)
        }
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[test]
fn shape_errors_name_line_and_key() {
    let cases = [
        // (replace, with, key, text on the reported line)
        (
            "uuid: 3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718",
            "uuid: not-a-uuid",
            "components[1].uuid",
            "not-a-uuid",
        ),
        (
            "requires_auth: false\n    settings",
            "requires_auth: maybe\n    settings",
            "components[1].requires_auth",
            "maybe",
        ),
        (
            "type: integer\n          required: true\n          secret",
            "type: float\n          required: true\n          secret",
            "components[1].settings.auth[1].type",
            "float",
        ),
        (
            "    tag: users\n",
            "    tga: users\n",
            "components[0].tga",
            "tga",
        ),
        (
            "project_uuid: 7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d",
            "project_uuid: 7f3c",
            "project_uuid",
            "7f3c",
        ),
    ];
    for (from, to, key, on_line) in cases {
        let text = broken(from, to);
        let (line, got_key, message) = refuse(&text);
        assert_eq!(got_key, key, "{message}");
        assert_eq!(line, line_of(&text, on_line), "{key}: {message}");
    }
}

#[test]
fn missing_fields_name_the_enclosing_key() {
    let text = broken("    tag: catalog\n", "");
    let (line, key, message) = refuse(&text);
    assert_eq!(key, "components[1]");
    assert!(message.contains("tag"), "{message}");
    assert!(line > 0);
}

#[test]
fn syntax_errors_name_a_line() {
    let text = broken("    name: Catalog\n", "    name: [Catalog\n");
    let (line, _key, _message) = refuse(&text);
    assert!(line >= line_of(&text, "[Catalog"), "line {line}");
}

#[test]
fn semantic_errors_name_line_and_key() {
    // (replace, with, key, text on the reported line, which occurrence of it)
    let cases = [
        (
            "tag: catalog",
            "tag: users",
            "components[1].tag",
            "tag: users",
            1,
        ),
        (
            "name: Catalog",
            "name: users",
            "components[1].name",
            "name: users",
            0,
        ),
        (
            "uuid: 9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a",
            "uuid: 3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718",
            "components[2].uuid",
            "uuid: 3e1f6b2a-7c4d-4e8f-a1b2-c3d4e5f60718",
            1,
        ),
        (
            "model: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01",
            "model: 8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3",
            "components[0].tokens[0].model",
            "model: 8a9b0c1d",
            0,
        ),
        (
            "pin: 1234",
            "pin: \"1234\"",
            "components[1].models[0].fields",
            "fields:",
            1,
        ),
        (
            "- name: vip",
            "- name: table",
            "components[2].settings.auth[1].name",
            "- name: table",
            1,
        ),
        (
            "min_length: 8",
            "min_length: 8\n          max_length: 4",
            "components[0].settings.auth[1].max_length",
            "max_length: 4",
            0,
        ),
        (
            "- name: vip\n          type: boolean",
            "- name: vip\n          type: boolean\n          min_length: 1",
            "components[2].settings.auth[1].min_length",
            "min_length: 1",
            0,
        ),
        (
            "secret: demo-secret-7Qx9",
            "secret: \"\"",
            "clients[0].secret",
            "secret: \"\"",
            0,
        ),
        (
            "clients:\n  - id",
            "clients:\n  - id: conformance-client\n    secret: x\n  - id",
            "clients[1].id",
            "- id: conformance-client",
            1,
        ),
    ];
    for (from, to, key, needle, nth) in cases {
        let text = broken(from, to);
        let (line, got_key, message) = refuse(&text);
        assert_eq!(got_key, key, "{message}");
        let wanted = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .nth(nth)
            .map(|(i, _)| i + 1);
        assert_eq!(Some(line), wanted, "{key}: {message}");
    }
}

#[test]
fn errors_never_show_secrets_or_tokens() {
    let entry = "      - token: users-token-ada-0001\n        model: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01\n";
    let text = broken(entry, &entry.repeat(2));
    let err = match Fixture::from_yaml_str(&text, "t.yaml") {
        Ok(_) => panic!("duplicate token accepted"),
        Err(e) => e.to_string(),
    };
    assert!(err.starts_with("t.yaml:"), "{err}");
    assert!(err.contains("components[0].tokens[1].token"), "{err}");
    assert!(!err.contains("users-token-ada-0001"), "{err}");
}

#[test]
fn unreadable_files_name_the_file() {
    let err = match Fixture::from_path(std::path::Path::new("/nonexistent/fixture.yaml")) {
        Ok(_) => panic!("read a file that is not there"),
        Err(e) => e.to_string(),
    };
    assert!(err.starts_with("/nonexistent/fixture.yaml: "), "{err}");
}

#[test]
fn the_default_fixture_is_the_documented_one() {
    let f = Fixture::default_fixture();
    assert_eq!(f.project_uuid, "7f3c2a10-5b4e-4d2a-9c61-0e8f5a2b3c4d");
    assert_eq!(f.clients.len(), 1);
    let names: Vec<_> = f
        .components
        .iter()
        .map(|c| (c.name.as_str(), c.tag.as_str(), c.requires_auth))
        .collect();
    assert_eq!(
        names,
        [
            ("Users", "users", true),
            ("Catalog", "catalog", false),
            ("Café Menü", "cafe-menu", false)
        ]
    );
    // Debug output hides secrets.
    let debug = format!("{f:?}");
    for secret in ["demo-secret-7Qx9", "users-token-ada-0001", "correct-horse"] {
        assert!(!debug.contains(secret), "{secret} in Debug");
    }
}
