//! Bad profiles, each refused with its file, line and key, and no error
//! that prints a secret: a value read from `${VAR}`, a password in
//! `base_url`, a `client_secret` written in the profile.

use conformance_model::profile::{MAX_PROFILE_BYTES, Profile, ProfileError};

/// A valid profile; each case changes one thing.
const GOOD: &str = "\
base_url: http://127.0.0.1:8080
client_id: conformance-client
client_secret: ${CSECRET}
project_env: live
components:
  - name: Users
    tag: users
    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11
    requires_auth: true
    auth_token: ${TOKEN}
    authorize:
      model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01
      valid_body: { email: ada@example.com, password: \"${PW}\" }
      invalid_body: { email: 42 }
";

/// Every value the environment holds: each a secret an error must not show.
const ENV: &[(&str, &str)] = &[
    ("CSECRET", "env-s3cret-value"),
    ("TOKEN", "env-t0ken-value"),
    ("PW", "env-passw0rd-value"),
    ("X", "env-x-value-9"),
    ("URL", "http://ops:env-url-passw0rd@api.example.com/v2/api"),
    ("CID", "env-client-1d"),
];

fn env(name: &str) -> Option<String> {
    ENV.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| (*v).to_owned())
}

fn parse(text: &str) -> Result<Profile, ProfileError> {
    Profile::from_yaml_str(text, "p.yaml", &env)
}

/// The error for `text`, which must be an invalid profile: `(line, key,
/// the whole message)`.
fn refused(text: &str) -> (usize, String, String) {
    match parse(text) {
        Err(e @ ProfileError::Invalid { .. }) => {
            let shown = e.to_string();
            let ProfileError::Invalid { line, key, .. } = e else {
                unreachable!()
            };
            (line, key, shown)
        }
        Err(other) => panic!("expected file:line: key, got {other}"),
        Ok(_) => panic!("accepted:\n{text}"),
    }
}

fn change(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "{from}");
    GOOD.replacen(from, to, 1)
}

/// `shown` holds none of the environment's values, and not `extra`.
fn holds_no_secret(shown: &str, extra: &[&str]) {
    for secret in ENV.iter().map(|(_, v)| *v).chain(extra.iter().copied()) {
        assert!(!shown.contains(secret), "`{secret}` shown in: {shown}");
    }
    assert!(!shown.contains("passw0rd"), "{shown}");
}

#[test]
fn errors_never_print_a_value_from_the_environment() {
    let cases = [
        (
            change("uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11", "uuid: ${X}"),
            8,
            "components[0].uuid",
            "is not a uuid",
        ),
        (
            change("project_env: live", "project_env: ${X}"),
            4,
            "project_env",
            "is not one of: dev, live",
        ),
        (
            change(
                "valid_body: { email: ada@example.com, password: \"${PW}\" }",
                "valid_body: \"${PW}\"",
            ),
            13,
            "components[0].authorize.valid_body",
            "not a string",
        ),
        (
            change(
                "valid_body: { email: ada@example.com, password: \"${PW}\" }",
                "valid_body: [\"${PW}\"]",
            ),
            13,
            "components[0].authorize.valid_body",
            "not a list",
        ),
        (
            change("base_url: http://127.0.0.1:8080", "base_url: ${URL}"),
            1,
            "base_url",
            "ends with /v2/api",
        ),
    ];
    for (text, line, key, what) in cases {
        let (at, named, shown) = refused(&text);
        assert_eq!((at, named.as_str()), (line, key), "{shown}");
        assert!(shown.contains(what), "{shown}");
        holds_no_secret(&shown, &[]);
    }
}

#[test]
fn errors_never_print_a_password_in_base_url_or_a_written_secret() {
    for (base_url, what) in [
        (
            "http://ops:passw0rd-in-url@api.example.com/v2/api",
            "ends with /v2/api",
        ),
        (
            "http://ops:passw0rd-in-url@api.example.com:99999",
            "invalid port",
        ),
        ("http://ops:passw0rd-in-url@exa mple.com", "is not an http"),
        (
            "https://ops:passw0rd-in-url@api.example.com/?a=b",
            "has a query",
        ),
    ] {
        let text = change(
            "base_url: http://127.0.0.1:8080",
            &format!("base_url: {base_url}"),
        );
        let (line, key, shown) = refused(&text);
        assert_eq!((line, key.as_str()), (1, "base_url"), "{shown}");
        assert!(shown.contains(what), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
        holds_no_secret(&shown, &["passw0rd-in-url"]);
    }
    let (line, key, shown) = refused(&change(
        "client_secret: ${CSECRET}",
        "client_secret: written-s3cret${",
    ));
    assert_eq!((line, key.as_str()), (3, "client_secret"), "{shown}");
    assert!(shown.contains("without a closing"), "{shown}");
    holds_no_secret(&shown, &["written-s3cret"]);
    let (_, _, shown) = refused(&change(
        "client_secret: ${CSECRET}",
        "client_secret: written-s3cret${not a name}",
    ));
    holds_no_secret(&shown, &["written-s3cret", "not a name"]);
    let (_, key, shown) = refused(&change(
        "    auth_token: ${TOKEN}",
        "    auth_token: {t: written-t0ken}",
    ));
    assert_eq!(key, "components[0].auth_token", "{shown}");
    holds_no_secret(&shown, &["written-t0ken"]);
    // The literal secret reused as another key's value, which that key's
    // message would quote; and serde's own quoting of a value.
    let written = change(
        "client_secret: ${CSECRET}",
        "client_secret: written-s3cret-2",
    );
    for (from, to, at) in [
        (
            "    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11",
            "    uuid: written-s3cret-2",
            "components[0].uuid",
        ),
        (
            "base_url: http://127.0.0.1:8080",
            "base_url: written-s3cret-2",
            "base_url",
        ),
        (
            "    requires_auth: true",
            "    requires_auth: written-s3cret-2",
            "components[0].requires_auth",
        ),
        (
            "project_env: live",
            "project_env: [written-s3cret-2]",
            "project_env",
        ),
    ] {
        let (_, key, shown) = refused(&written.replace(from, to));
        assert_eq!(key, at, "{shown}");
        holds_no_secret(&shown, &["written-s3cret-2"]);
    }
}

#[test]
fn empty_names_and_a_base_url_with_a_query_or_fragment_are_refused() {
    for (from, to, line, key) in [
        (
            "client_id: conformance-client",
            "client_id: \"\"",
            2,
            "client_id",
        ),
        ("name: Users", "name: ''", 6, "components[0].name"),
        ("tag: users", "tag: \"\"", 7, "components[0].tag"),
    ] {
        let (at, named, shown) = refused(&change(from, to));
        assert_eq!((at, named.as_str()), (line, key), "{shown}");
        assert!(shown.contains("must not be empty"), "{shown}");
    }
    for (url, what) in [
        ("http://127.0.0.1:8080/?tenant=a", "has a query"),
        ("http://127.0.0.1:8080?", "has a query"),
        ("http://127.0.0.1:8080/#top", "has a fragment"),
    ] {
        let (line, key, shown) = refused(&change(
            "base_url: http://127.0.0.1:8080",
            &format!("base_url: {url}"),
        ));
        assert_eq!((line, key.as_str()), (1, "base_url"), "{shown}");
        assert!(shown.contains(what), "{shown}");
    }
}

#[test]
fn yaml_tags_are_refused_not_dropped() {
    for (to, tag) in [
        ("client_id: !!binary Y29uZm9ybWFuY2U=", "!!binary"),
        (
            "client_id: !!python/object:os.system conformance",
            "!!python/object:os.system",
        ),
        ("client_id: !custom conformance", "!custom"),
    ] {
        let (line, key, shown) = refused(&change("client_id: conformance-client", to));
        assert_eq!((line, key.as_str()), (2, "client_id"), "{shown}");
        assert!(shown.contains(&format!("`{tag}`")), "{shown}");
    }
    let (line, key, _) = refused(&change(
        "valid_body: { email: ada@example.com,",
        "valid_body: !!map { email: ada@example.com,",
    ));
    assert_eq!(
        (line, key.as_str()),
        (13, "components[0].authorize.valid_body")
    );
    // `!!str` only says what the value already is.
    let p = parse(&change(
        "client_id: conformance-client",
        "client_id: !!str 1234",
    ))
    .expect("valid");
    assert_eq!(p.client_id, "1234");
}

#[test]
fn a_byte_order_mark_is_not_content() {
    let p = parse(&format!("\u{feff}{GOOD}")).expect("a profile that starts with a BOM");
    assert_eq!(p.client_id, "conformance-client");
}

#[test]
fn each_mistake_is_at_its_own_line() {
    // A top-level key given twice: the second, on its own line.
    let text = format!("{GOOD}base_url: http://127.0.0.1:9090\n");
    let (line, key, shown) = refused(&text);
    assert_eq!((line, key.as_str()), (15, "base_url"), "{shown}");
    assert!(shown.contains("given twice (first on line 1)"), "{shown}");
    // And one in a component.
    let (line, key, _) = refused(&change("    tag: users\n", "    tag: users\n    tag: u2\n"));
    assert_eq!((line, key.as_str()), (8, "components[0].tag"));
    // A NUL on line 2.
    let (line, key, shown) = refused(&change("client_id: conformance-client", "client_id: a\0b"));
    assert_eq!((line, key.as_str()), (2, "client_id"), "{shown}");
    assert!(shown.contains("U+0000 at column 13"), "{shown}");
    // A second document.
    let (line, _, shown) = refused(&format!("{GOOD}---\nbase_url: http://x\n"));
    assert_eq!(line, 15, "{shown}");
    assert!(shown.contains("second YAML document"), "{shown}");
}

#[test]
fn a_yaml_bomb_is_refused_at_its_line_quickly() {
    // Nine levels of nine aliases: 387 million strings once expanded.
    let mut text = String::from(
        "base_url: http://127.0.0.1:8080\nclient_id: c\nclient_secret: s\ncomponents:\n  - name: a\n    tag: a\n    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11\n    authorize:\n      model_uuid: 5d2e8a34-8a47-4f0e-b3a6-2a9d2f9c7e01\n      valid_body:\n",
    );
    text.push_str("        x0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        text.push_str(&format!("        x{i}: &a{i} [{refs}]\n"));
    }
    match parse(&text) {
        Err(ProfileError::Invalid {
            line, key, message, ..
        }) => {
            assert_eq!(line, 12, "the first alias: {message}");
            assert!(key.contains("valid_body"), "{key}: {message}");
        }
        other => panic!("expected an error with a line, got {other:?}"),
    }
}

/// A file in the system's temporary directory, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str, bytes: &[u8]) -> Self {
        let path =
            std::env::temp_dir().join(format!("conformance-profile-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).expect("write");
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn files_that_are_not_utf8_or_too_large() {
    let mut bytes = change("client_id: conformance-client", "client_id: caf\u{e9}").into_bytes();
    // `é` in Latin-1: the second byte of UTF-8's two taken away.
    let at = bytes.iter().position(|b| *b == 0xC3).expect("é");
    bytes[at] = 0xE9;
    bytes.remove(at + 1);
    let file = Scratch::new("latin1.yaml", &bytes);
    match Profile::from_path(&file.0) {
        Err(e @ ProfileError::Invalid { .. }) => {
            let shown = e.to_string();
            assert!(shown.contains(":2: key `client_id`"), "{shown}");
            assert!(
                shown.contains("not UTF-8 (byte 0xE9 at column 15)"),
                "{shown}"
            );
        }
        other => panic!("expected a line, got {other:?}"),
    }
    let mut big = GOOD.as_bytes().to_vec();
    big.resize(MAX_PROFILE_BYTES + 1, b'#');
    let file = Scratch::new("big.yaml", &big);
    assert!(matches!(
        Profile::from_path(&file.0),
        Err(ProfileError::TooLarge { .. })
    ));
    let text = String::from_utf8(big).expect("utf-8");
    assert!(matches!(parse(&text), Err(ProfileError::TooLarge { .. })));
}

/// Every value may come from the environment, as the README says: the
/// newer sections too (`budgets`, `choices`, `snapshot_headers`); a
/// value from a variable is read as the value written in place would be
/// (a number, a boolean); an unset one, or a value of the
/// wrong form, is an error at its own key and line.
#[test]
fn every_value_may_come_from_the_environment() {
    let vars = |name: &str| -> Option<String> {
        Some(
            match name {
                "B" => "200ms",
                "S" => "401",
                "P" => "header:X-Model-Uuid",
                "H" => "X-Rate-Limit",
                "G" => "false",
                "BAD" => "soon",
                _ => return env(name),
            }
            .to_owned(),
        )
    };
    let text = format!(
        "{GOOD}budgets:\n  auth_claims: \"${{B}}\"\nchoices:\n  missing_credential: \"${{S}}\"\n  model_uuid: \"${{P}}\"\n  get_body_validated: \"${{G}}\"\nsnapshot_headers: [\"${{H}}\"]\n"
    );
    let p = Profile::from_yaml_str(&text, "p.yaml", &vars).expect("expanded");
    assert_eq!(
        p.budgets.0.get("auth_claims"),
        Some(&std::time::Duration::from_millis(200))
    );
    assert_eq!(p.choices.missing_credential, Some(401));
    assert_eq!(p.choices.get_body_validated, Some(false));
    assert_eq!(p.snapshot_headers, ["x-rate-limit"]);
    let bad = text.replace("\"${B}\"", "\"${BAD}\"");
    let e = Profile::from_yaml_str(&bad, "p.yaml", &vars)
        .expect_err("bad budget")
        .to_string();
    assert!(
        e.contains("key `budgets.auth_claims`") && e.contains("with its unit"),
        "{e}"
    );
    let unset = text.replace("${S}", "${UNSET_VAR}");
    let e = Profile::from_yaml_str(&unset, "p.yaml", &vars)
        .expect_err("unset")
        .to_string();
    assert!(
        e.contains("key `choices.missing_credential`") && e.contains("UNSET_VAR"),
        "{e}"
    );
}

/// The closed sets of `choices:` are read into their enums with the
/// spellings a profile writes; any other value, a near miss or a `~`
/// included, is refused at its line and key with the message naming the set.
#[test]
fn a_closed_choice_is_one_of_its_values() {
    use component_auth_bindings::types::ProjectEnv;
    use conformance_model::choices::{Shape, UnknownFields};

    let with = |key: &str, value: &str| format!("{GOOD}choices:\n  {key}: {value}\n");
    let p = parse(&format!(
        "{GOOD}choices:\n  unknown_fields: ignored\n  success_shape: other\n  validation_items: spec\n  absent_project_env: live\n"
    ))
    .expect("valid");
    assert_eq!(p.choices.unknown_fields, Some(UnknownFields::Ignored));
    assert_eq!(p.choices.success_shape, Some(Shape::Other));
    assert_eq!(p.choices.validation_items, Some(Shape::Spec));
    assert_eq!(p.choices.absent_project_env, Some(ProjectEnv::Live));
    let shapes = "is neither `spec` (the spec's result types) nor `other` (the server's own shape)";
    let unknown = "is neither `refused` (417) nor `ignored`";
    let envs = "is neither `dev` nor `live`";
    // Like every choice, each may come from the environment, and a value
    // from there is never shown: the `${VAR}` is named instead.
    for (key, value, message) in [
        ("unknown_fields", "maybe", format!("`maybe` {unknown}")),
        (
            "unknown_fields",
            "${X}",
            format!("the value of `${{X}}` {unknown}"),
        ),
        ("unknown_fields", "~", format!("`~` {unknown}")),
        ("success_shape", "Spec", format!("`Spec` {shapes}")),
        (
            "success_shape",
            "${X}",
            format!("the value of `${{X}}` {shapes}"),
        ),
        ("validation_items", "~", format!("`~` {shapes}")),
        ("absent_project_env", "prod", format!("`prod` {envs}")),
        (
            "absent_project_env",
            "${X}",
            format!("the value of `${{X}}` {envs}"),
        ),
        (
            "model_uuid",
            "${X}",
            "the value of `${X}` is not a place: write `query`, `header:NAME` or `body:FIELD`"
                .to_owned(),
        ),
    ] {
        let (line, named, shown) = refused(&with(key, value));
        holds_no_secret(&shown, &[]);
        // The line after `choices:`, which follows GOOD.
        let at = GOOD.lines().count() + 2;
        assert_eq!(
            (line, named.as_str()),
            (at, format!("choices.{key}").as_str()),
            "{shown}"
        );
        assert_eq!(
            shown,
            format!("p.yaml:{at}: key `choices.{key}`: {message}")
        );
    }
}

/// A path that is not a regular file is refused at once, by what it is:
/// a FIFO (which would wait for a writer forever) as the profile or the
/// baseline, `/dev/zero` (which never ends) as a baseline or a report.
#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_is_refused_at_once() {
    let dir = std::env::temp_dir().join(format!("conformance-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let fifo = dir.join("fifo.yaml");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let fifo = fifo.to_str().expect("utf-8");
    let bin = env!("CARGO_BIN_EXE_conformance");
    for args in [
        vec!["--profile", fifo],
        vec!["--embedded", "--baseline", fifo],
        vec!["--embedded", "--baseline", "/dev/zero"],
        vec!["diff", "/dev/zero", fifo],
        vec!["check-profile", fifo],
    ] {
        let start = std::time::Instant::now();
        let out = std::process::Command::new(bin)
            .args(&args)
            .env_remove("CI")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}");
        // A hang guard only (a FIFO read would block for ever).
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "{args:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_secret_keys_make_a_variable_secret() {
    let text = change(
        "base_url: http://127.0.0.1:8080",
        "base_url: http://${HOST}:${PORT}",
    )
    .replacen("client_id: conformance-client", "client_id: ${CID}", 1)
    .replacen("name: Users", "name: ${NAME}", 1);
    let env = |name: &str| match name {
        "HOST" => Some("127.0.0.1".to_owned()),
        "PORT" => Some("18080".to_owned()),
        "NAME" => Some("Users".to_owned()),
        other => env(other),
    };
    let p = Profile::from_yaml_str(&text, "p.yaml", &env).expect("valid");
    assert_eq!(p.base_url, "http://127.0.0.1:18080");
    let secret_vars: Vec<&str> = p.env.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(secret_vars, ["CID", "CSECRET", "PW", "TOKEN"]);
    let secrets = p.secrets();
    for plain in ["18080", "127.0.0.1", "Users"] {
        assert!(
            !secrets.iter().any(|s| s == plain),
            "{plain} in {secrets:?}"
        );
    }
    // The client id read from the environment is not shown.
    let shown = p.to_string();
    assert!(!shown.contains("env-client-1d"), "{shown}");
    assert!(shown.contains("${CID}"), "{shown}");
    // A variable that gives the password of base_url is a secret.
    let text = change(
        "base_url: http://127.0.0.1:8080",
        "base_url: http://ops:${X}@127.0.0.1:${PORT}",
    );
    let p = Profile::from_yaml_str(&text, "p.yaml", &env).expect("valid");
    assert!(p.env.iter().any(|(n, _)| n == "X"));
    assert!(!p.env.iter().any(|(n, _)| n == "PORT"));
    assert!(!p.to_string().contains("env-x-value-9"), "{p}");
}

#[test]
fn an_unquoted_variable_in_a_flow_map_is_refused_with_what_to_write() {
    let text = change("password: \"${PW}\" }", "password: ${PW} }");
    let (line, key, shown) = refused(&text);
    assert_eq!(line, 13, "{shown}");
    // The map, not serde's `?` for a key it had not read yet.
    assert_eq!(key, "components[0].authorize.valid_body", "{shown}");
    assert!(
        shown.contains("a `${VAR}` is quoted: \"${VAR}\""),
        "{shown}"
    );
    holds_no_secret(&shown, &[]);
    // Quoted, as the message says (GOOD is that line quoted), it is read.
    assert!(parse(GOOD).is_ok());
}

/// Every variable the profile reads that is not set, in one message: one
/// run says all there is to set (a `${VAR}` in a comment is not read).
#[test]
fn every_missing_variable_is_named_at_once() {
    let text = GOOD
        .replace("${CSECRET}", "${MISSING_A}")
        .replace("${TOKEN}", "${MISSING_B}")
        .replace("${PW}", "${MISSING_C}")
        + "# ${MISSING_IN_A_COMMENT}\n";
    let (_, _, message) = refused(&text);
    for var in ["MISSING_A", "MISSING_B", "MISSING_C"] {
        assert!(message.contains(&format!("`{var}`")), "{var}: {message}");
    }
    assert!(!message.contains("MISSING_IN_A_COMMENT"), "{message}");
}

/// A number from `${VAR}` is text, which a declared integer refuses: the
/// message says to write `${VAR:json}`.
#[test]
fn a_number_from_the_environment_points_to_json() {
    let text = GOOD.replace(
        "    authorize:\n",
        "    fields: {email: {type: string, required: true}, password: {type: integer, required: true}}\n    authorize:\n",
    );
    let (_, _, message) = refused(&text);
    assert!(message.contains("${VAR:json}"), "{message}");
    assert!(!message.contains("env-passw0rd-value"), "{message}");
}

/// `fields: {}` declares a component with no auth field: every field of a
/// body is then unknown.
#[test]
fn fields_may_declare_no_field() {
    let text = GOOD.replace("    authorize:\n", "    fields: {}\n    authorize:\n");
    let (_, _, message) = refused(&text);
    assert!(message.contains("is not a declared field"), "{message}");
    let none = "\
base_url: http://127.0.0.1:8080
client_id: c
client_secret: ${CSECRET}
components:
  - name: Catalog
    tag: catalog
    uuid: 0b6c1c1e-1d3a-4c55-9a8e-6f1f2f0f5c11
    fields: {}
";
    let profile = parse(none).expect("fields: {} is a declaration");
    let fields = profile.components[0].fields.as_ref().expect("declared");
    assert!(
        !fields
            .judge(&serde_json::json!({"x": 1}))
            .unknown
            .is_empty()
    );
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is in no line"))
        + 1
}

/// GOOD's Users with `fields:` declaring email and password and `extra`
/// more lines of fields.
fn with_fields(extra: &str) -> String {
    change(
        "      invalid_body: { email: 42 }\n",
        &format!(
            "      invalid_body: {{ email: 42 }}\n    fields:\n      email: {{type: string}}\n      password: {{type: string}}\n{extra}"
        ),
    )
}

/// A component without `authorize` that declares `fields`.
fn extra_component(i: usize, fields: &str) -> String {
    format!(
        "  - name: Extra{i}\n    tag: extra-{i}\n    uuid: 00000000-0000-4000-8000-{i:012}\n    fields: # of Extra{i}\n{fields}"
    )
}

fn string_fields(prefix: &str, n: usize, pattern: &str) -> String {
    (0..n)
        .map(|i| match pattern {
            "" => format!("      {prefix}{i}: {{type: string}}\n"),
            p => format!("      {prefix}{i}: {{type: string, pattern: \"{p}\"}}\n"),
        })
        .collect()
}

/// Every cap of `conformance_model::limits`, one over: refused with the
/// file, the line and the key of the value, the cap and the value's size,
/// by the same load as `check-profile` and every run.
#[test]
fn a_profile_over_a_cap_names_file_line_key_cap_and_size() {
    use conformance_model::limits::*;
    let unicode = r"^[\\w .'-]{1,64}$";
    let values: Vec<String> = (0..=ENUM_VALUES).map(|i| format!("v{i}")).collect();
    let q_line = format!("q{}:", PATTERNS - 30);
    let components: String = (0..COMPONENTS)
        .map(|i| extra_component(i, "      a: {type: boolean}\n"))
        .collect();
    let cases: Vec<(String, &str, String, Vec<String>)> = vec![
        (
            with_fields(&string_fields("f", FIELDS_PER_COMPONENT - 1, "")),
            "    fields:",
            "components[0].fields".into(),
            vec![
                (FIELDS_PER_COMPONENT + 1).to_string(),
                format!("cap of {FIELDS_PER_COMPONENT}"),
            ],
        ),
        (
            with_fields(&format!(
                "      lang: {{type: string, enum: [{}]}}\n",
                values.join(", ")
            )),
            "lang:",
            "components[0].fields.lang".into(),
            vec![
                format!("is {}", ENUM_VALUES + 1),
                format!("cap of {ENUM_VALUES}"),
            ],
        ),
        (
            with_fields(&format!(
                "      code: {{type: string, pattern: \"^{}$\"}}\n",
                "a".repeat(PATTERN_BYTES)
            )),
            "code:",
            "components[0].fields.code".into(),
            vec![
                format!("is {}", PATTERN_BYTES + 2),
                format!("cap of {PATTERN_BYTES}"),
            ],
        ),
        (
            with_fields("      code: {type: string, pattern: \"^\\\\w{1,1000}$\"}\n"),
            "code:",
            "components[0].fields.code".into(),
            vec![format!("more than {PATTERN_COMPILED_BYTES} bytes")],
        ),
        (
            with_fields(&string_fields("p", 30, "^[a-z]+$"))
                + &extra_component(1, &string_fields("q", PATTERNS - 30 + 1, "^[a-z]+$")),
            &q_line,
            format!("components[1].fields.q{}", PATTERNS - 30),
            vec![format!("is {}", PATTERNS + 1), format!("cap of {PATTERNS}")],
        ),
        (
            with_fields(&string_fields("u", 12, unicode)),
            "u9:",
            "components[0].fields.u9".into(),
            vec![format!("cap of {PATTERNS_COMPILED_BYTES}")],
        ),
        (
            with_fields(&string_fields("f", 20, ""))
                + &extra_component(1, &string_fields("g", 22, ""))
                + &extra_component(2, &string_fields("h", 22, "")),
            "# of Extra2",
            "components[2].fields".into(),
            vec![
                format!("is {}", 22 + 22 + 22),
                format!("cap of {FIELDS_PER_PROFILE}"),
            ],
        ),
        (
            change("ada@example.com", &"a".repeat(BODY_BYTES)),
            "valid_body:",
            "components[0].authorize.valid_body".into(),
            vec![format!("cap of {BODY_BYTES}")],
        ),
        (
            change(
                "password: \"${PW}\" }",
                &format!(
                    "password: \"${{PW}}\", {} }}",
                    (0..FIELDS_PER_COMPONENT - 1)
                        .map(|i| format!("k{i}: 1"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            "valid_body:",
            "components[0].authorize.valid_body".into(),
            vec![
                format!("is {}", FIELDS_PER_COMPONENT + 1),
                format!("cap of {FIELDS_PER_COMPONENT}"),
            ],
        ),
        (
            GOOD.to_owned() + &components,
            "components:",
            "components".into(),
            vec![
                format!("is {}", COMPONENTS + 1),
                format!("cap of {COMPONENTS}"),
            ],
        ),
        (
            change(
                "    auth_token: ${TOKEN}\n",
                &format!(
                    "    auth_token: ${{TOKEN}}\n    secret_fields: [{}]\n",
                    (0..=SECRET_FIELDS)
                        .map(|i| format!("s{i}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            "secret_fields:",
            "components[0].secret_fields".into(),
            vec![
                format!("is {}", SECRET_FIELDS + 1),
                format!("cap of {SECRET_FIELDS}"),
            ],
        ),
        (
            GOOD.to_owned()
                + &format!(
                    "snapshot_headers: [{}]\n",
                    (0..=SNAPSHOT_HEADERS)
                        .map(|i| format!("x-h{i}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            "snapshot_headers:",
            "snapshot_headers".into(),
            vec![
                format!("is {}", SNAPSHOT_HEADERS + 1),
                format!("cap of {SNAPSHOT_HEADERS}"),
            ],
        ),
    ];
    for (text, at, want_key, sizes) in cases {
        let (line, key, shown) = refused(&text);
        assert_eq!(key, want_key, "{shown}");
        assert_eq!(line, line_of(&text, at), "{shown}");
        assert!(
            shown.starts_with(&format!("p.yaml:{line}: key `{key}`: ")),
            "{shown}"
        );
        assert!(
            shown.contains("\"Caps\" in conformance/README.md"),
            "{shown}"
        );
        for size in sizes {
            assert!(shown.contains(&size), "`{size}` not in: {shown}");
        }
        holds_no_secret(&shown, &[]);
    }
    // At the caps, accepted (the run's memory there: `caps.rs`).
    assert!(parse(&crate::caps::at_caps("http://127.0.0.1:8080")).is_ok());
}

/// A bound that is not a number bounds nothing: refused, not ignored.
#[test]
fn a_nan_or_infinite_bound_is_refused() {
    for bound in [
        "minimum: .nan",
        "maximum: .inf",
        "minimum: -.inf",
        "maximum: .NaN",
    ] {
        let text = with_fields(&format!("      n: {{type: number, {bound}}}\n"));
        let (line, key, shown) = refused(&text);
        assert_eq!(
            (line, key.as_str()),
            (line_of(&text, "      n:"), "components[0].fields.n"),
            "{shown}"
        );
        assert!(shown.contains("not a finite number"), "{shown}");
    }
}

/// `${PATH}`, `${LD_PRELOAD}`, `${GITHUB_ENV}` and the other reserved names
/// cannot hold a secret (a reproduction sets its variables before the
/// command); where a value is no secret (`name`, a port) they may be read.
#[test]
fn a_reserved_variable_cannot_hold_a_secret() {
    let env = |name: &str| match name {
        "PATH" | "LD_PRELOAD" | "GITHUB_ENV" | "HOME" | "LC_ALL" => Some("r3served".to_owned()),
        "PORT" => Some("8080".to_owned()),
        other => self::env(other),
    };
    for (from, to) in [
        ("client_secret: ${CSECRET}", "client_secret: ${PATH}"),
        ("auth_token: ${TOKEN}", "auth_token: ${LD_PRELOAD}"),
        ("password: \"${PW}\"", "password: \"${GITHUB_ENV}\""),
        ("client_id: conformance-client", "client_id: ${LC_ALL}"),
        ("http://127.0.0.1:8080", "http://ops:${HOME}@127.0.0.1:8080"),
    ] {
        let text = change(from, to);
        let name = to
            .split("${")
            .nth(1)
            .and_then(|r| r.split('}').next())
            .unwrap_or_default();
        match Profile::from_yaml_str(&text, "p.yaml", &env) {
            Err(e @ ProfileError::Invalid { .. }) => {
                let shown = e.to_string();
                assert!(
                    shown.contains(&format!("`{name}` is a reserved environment variable")),
                    "{shown}"
                );
                assert!(
                    shown.starts_with(&format!("p.yaml:{}: key", line_of(&text, to))),
                    "{shown}"
                );
                assert!(!shown.contains("r3served"), "{shown}");
            }
            other => panic!("{to}: expected a refusal, got {other:?}"),
        }
    }
    let plain = change("http://127.0.0.1:8080", "http://127.0.0.1:${PORT}")
        .replace("name: Users", "name: ${HOME}");
    assert!(Profile::from_yaml_str(&plain, "p.yaml", &env).is_ok());
}

/// A password written literally in `base_url` holding `/`, `?`, `#` or
/// `@` (a parser then ends the authority early and finds no password) is
/// never printed, in any spelling, by the library's message or by the
/// binary (issue 50: `pa/ss` was printed whole); a path holding `@`
/// (`http://u:12/ss@host` parses as port 12) is refused saying to
/// percent-encode.
#[test]
fn a_password_holding_a_slash_is_never_printed() {
    let dir = std::env::temp_dir().join(format!("conformance-url-secret-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    for base_url in [
        "http://ops:pa/ss-w0rd@api.example.com",
        "http://ops:12/ss-w0rd@api.example.com",
        "https://ops:pa?ss-w0rd@api.example.com",
        "https://ops:pa#ss-w0rd@api.example.com",
        "http://ops:pa/ss-w0rd@api.example.com/?key=k3y-val",
        "ops:pa/ss-w0rd@api.example.com",
        "http://ops:pa%2Fss-w0rd@api.example.com/v2/api",
        "http://api.example.com/?api_key=ss-w0rd",
    ] {
        let text = change(
            "base_url: http://127.0.0.1:8080",
            &format!("base_url: \"{base_url}\""),
        );
        let (line, key, shown) = refused(&text);
        assert_eq!((line, key.as_str()), (1, "base_url"), "{shown}");
        holds_no_secret(
            &shown,
            &["ss-w0rd", "ss%2Dw0rd", "k3y-val", "pa/ss", "pa%2F"],
        );
        let path = dir.join("profile.yaml");
        std::fs::write(&path, &text).expect("profile");
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
            .args(["check-profile", "--profile"])
            .arg(&path)
            .output()
            .expect("conformance");
        assert_eq!(output.status.code(), Some(2), "{base_url}: {output:?}");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(printed.contains("base_url"), "{printed}");
        holds_no_secret(&printed, &["ss-w0rd", "k3y-val", "pa/ss", "pa%2F"]);
    }
    let (_, _, shown) = refused(&change(
        "base_url: http://127.0.0.1:8080",
        "base_url: http://ops:12/ss-w0rd@api.example.com",
    ));
    assert!(shown.contains("percent-encoded"), "{shown}");
    // Accepted (the last `@` ends the user information): shown redacted.
    let profile = parse(&change(
        "base_url: http://127.0.0.1:8080",
        "base_url: http://ops:pa@ss-w0rd@api.example.com",
    ))
    .expect("a password holding @ parses");
    let shown = profile.shown_base_url();
    assert!(shown.contains("[redacted]"), "{shown}");
    holds_no_secret(&shown, &["ss-w0rd", "pa@ss", "pa%40ss"]);
    let _ = std::fs::remove_dir_all(&dir);
}
