//! Input and expected output, paired: every fixture spec (and the real spec)
//! is generated and compared with its expected output, the file checked in
//! where the workspace compiles and lints it (`bindings/`,
//! `generator/expected/`). Those files are the one source of truth.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (spec, checked-in output) pairs, relative to the workspace root: the
/// real spec and its bindings, then every fixture of `generator/fixtures/`
/// (not `invalid/`) with its namesake in `generator/expected/src/`.
fn pairs() -> Vec<(String, String)> {
    let mut pairs = vec![(
        "spec/openapi.yaml".to_owned(),
        "bindings/src/generated.rs".to_owned(),
    )];
    pairs.extend(fixtures().into_iter().map(|spec| {
        let stem = Path::new(&spec).file_stem().unwrap().to_string_lossy();
        let output = format!("generator/expected/src/{stem}.rs");
        (spec, output)
    }));
    pairs
}

/// Every fixture spec, sorted.
fn fixtures() -> Vec<String> {
    let mut specs: Vec<String> = std::fs::read_dir(root().join("generator/fixtures"))
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            let ext = path.extension()?.to_str()?;
            let name = path.file_name()?.to_str()?;
            matches!(ext, "yaml" | "yml" | "json").then(|| format!("generator/fixtures/{name}"))
        })
        .collect();
    specs.sort();
    specs
}

/// Fixtures that exist to be read with warnings (their own test names
/// each); every other fixture gives none.
const WARNED: &[&str] = &[
    "bends_30.yaml",
    "broken_operations.yaml",
    "degraded_operations.yaml",
    "invalid_constructs.yaml",
    "degraded.yaml",
    "json_schema_2020.yaml",
    "shapes.yaml",
    "petstore_v2.yaml",
    "swagger2.yaml",
    "form_encoding.yaml",
];

/// Every output in `generator/expected/src/` has its fixture: none is left
/// behind when a fixture is renamed or removed.
#[test]
fn every_expected_output_has_a_fixture() {
    let outputs: Vec<String> = pairs().into_iter().map(|(_, output)| output).collect();
    for entry in std::fs::read_dir(root().join("generator/expected/src")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let output = format!("generator/expected/src/{name}");
        assert!(
            name == "lib.rs" || outputs.contains(&output),
            "{output} has no fixture in generator/fixtures/"
        );
    }
}

/// The generator's options for a spec: the real spec's client is compiled
/// with the bindings' `client` feature; fixtures use none.
fn options(spec: &str) -> generator::Options {
    generator::Options {
        client_feature: (spec == "spec/openapi.yaml").then(|| "client".to_owned()),
        ..Default::default()
    }
}

/// The arguments that go with `options(spec)` on the command line.
fn option_args(spec: &str) -> Vec<String> {
    match options(spec).client_feature {
        Some(feature) => vec!["--client-feature".to_owned(), feature],
        None => Vec::new(),
    }
}

fn generate(spec: &str) -> String {
    generator::generate_with_options(&root().join(spec), &options(spec))
        .unwrap_or_else(|e| panic!("{e}"))
        .code
}

#[test]
fn checked_in_outputs_are_fresh() {
    for (spec, output) in &pairs() {
        let expected = generate(spec);
        let args = option_args(spec).join(" ");
        let actual = std::fs::read_to_string(root().join(output)).unwrap_or_else(|_| {
            panic!(
                "{output} is missing; run `cargo run -p generator -- {spec} {args} --out {output}`"
            )
        });
        assert!(
            actual == expected,
            "{output} is stale; run `cargo run -p generator -- {spec} {args} --out {output}`\n{}",
            generator::diff::short(&actual, &expected, 40)
        );
    }
}

#[test]
fn output_is_byte_identical_from_run_to_run() {
    for (spec, _) in &pairs() {
        assert_eq!(generate(spec), generate(spec), "{spec}");
    }
}

/// Items are formatted on as many threads as the machine has: the binary,
/// told to use 1, 2 or 5 (`GENERATOR_THREADS`), writes the same bytes.
#[test]
fn output_is_the_same_whatever_the_thread_count() {
    for (spec, output) in &pairs() {
        let expected = std::fs::read_to_string(root().join(output)).unwrap();
        for threads in ["1", "2", "5"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_generator"))
                .arg(root().join(spec))
                .args(option_args(spec))
                .env("GENERATOR_THREADS", threads)
                .output()
                .unwrap();
            assert!(out.status.success(), "{spec} on {threads} threads");
            assert!(
                String::from_utf8_lossy(&out.stdout) == expected,
                "{spec} on {threads} threads differs from {output}"
            );
        }
    }
}

#[test]
fn header_names_the_spec_and_its_hash() {
    let code = generate("spec/openapi.yaml");
    let first = code.lines().next().unwrap();
    assert!(first.contains("openapi.yaml"), "{first}");
    assert!(
        code.lines()
            .nth(1)
            .unwrap()
            .starts_with("// sha256 of the spec: ")
    );
    // Per process: two test runs at once must not write the same file.
    let changed = root().join(format!("target/changed-spec-{}.yaml", std::process::id()));
    let text = std::fs::read_to_string(root().join("spec/openapi.yaml")).unwrap();
    std::fs::create_dir_all(changed.parent().unwrap()).unwrap();
    std::fs::write(&changed, format!("{text}\n# a comment changes the hash\n")).unwrap();
    let other = generator::generate(&changed).unwrap();
    assert_ne!(code.lines().nth(1), other.lines().nth(1));
}

/// The extended fixture is the real spec plus one operation, one header, one
/// enum value and one envelope field: each must show up in the output, and
/// none may be in the output of the real spec.
#[test]
fn additions_to_the_spec_show_up_in_the_output() {
    let base = generate("spec/openapi.yaml");
    let extended = generate("generator/fixtures/extended.yaml");
    for (what, needle) in [
        ("the added operation", "pub fn revoke_token(&self)"),
        (
            "the added operation's answers",
            "pub type RevokeTokenResponse",
        ),
        ("the added header", "pub fn x_request_trace("),
        ("the added header on the wire", "\"x-request-trace\""),
        ("the added enum value", "Staging"),
        (
            "the added envelope field",
            "pub details: ::std::option::Option<::std::string::String>",
        ),
    ] {
        assert!(
            extended.contains(needle),
            "{what}: `{needle}` missing from the extended output"
        );
        assert!(
            !base.contains(needle),
            "{what}: `{needle}` already in the base output"
        );
    }
}

/// The same document as JSON gives the same code (only the header differs).
#[test]
fn json_and_yaml_give_the_same_code() {
    let yaml = std::fs::read_to_string(root().join("spec/openapi.yaml")).unwrap();
    let value: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
    let json_path = root().join(format!(
        "target/openapi-as-json-{}.json",
        std::process::id()
    ));
    std::fs::create_dir_all(json_path.parent().unwrap()).unwrap();
    std::fs::write(&json_path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let from_json = generator::generate_with_options(&json_path, &options("spec/openapi.yaml"))
        .unwrap()
        .code;
    let from_yaml = generate("spec/openapi.yaml");
    let body = |code: &str| code.lines().skip(3).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&from_json), body(&from_yaml));
}

/// The text of the request builder for `operation` (its `impl` block).
fn builder_of<'c>(code: &'c str, builder: &str) -> &'c str {
    let start = code
        .find(&format!("impl<'a> {builder}<'a>"))
        .unwrap_or_else(|| panic!("no builder {builder}"));
    let rest = &code[start..];
    let end = rest[1..].find("impl<'a> ").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

/// Each media type is sent its own way, and where an operation offers
/// several, JSON wins, then a form, then bytes, then text.
#[test]
fn request_bodies_take_the_best_media_type() {
    let code = generate("generator/fixtures/request_bodies.yaml");
    for (builder, body_type, setter) in [
        ("Search", "super::types::SearchBody", "set_form_body"),
        ("Token", "super::types::TokenRequest", "set_form_body"),
        ("FreeForm", "::std::collections::BTreeMap<", "set_form_body"),
        ("Upload", "rt::bytes::Bytes>", "set_raw_body"),
        ("UploadCertificate", "rt::bytes::Bytes>", "set_raw_body"),
        ("Anything", "rt::bytes::Bytes>", "set_raw_body"),
        ("Note", "::std::string::String>", "set_raw_body"),
        ("Markdown", "::std::string::String>", "set_raw_body"),
        ("JsonWins", "super::types::TokenRequest", "set_json_body"),
        ("FormWins", "super::types::TokenRequest", "set_form_body"),
        ("BinaryWins", "rt::bytes::Bytes>", "set_raw_body"),
    ] {
        let text = builder_of(&code, builder);
        let setter_at = text.find("pub fn body(").expect(builder);
        assert!(
            text[setter_at..].contains(body_type),
            "{builder}: body is not {body_type}"
        );
        assert!(text.contains(setter), "{builder}: not sent with {setter}");
    }
    for (builder, content_type) in [
        ("Upload", "\"application/octet-stream\""),
        ("UploadCertificate", "\"application/x-x509-ca-cert\""),
        // A wildcard is sent as the most general type of its kind.
        ("Anything", "\"application/octet-stream\""),
        ("Note", "\"text/plain; charset=utf-8\""),
        ("Markdown", "\"text/x-markdown\""),
        ("BinaryWins", "\"image/png\""),
    ] {
        let text = builder_of(&code, builder);
        assert!(
            text.contains(content_type),
            "{builder}: not sent as {content_type}"
        );
    }
}

/// A schema beyond the model is read as any JSON value, with a warning
/// naming its node; parameters are made to fit. The real spec and the
/// other fixtures give no warning.
#[test]
fn degraded_schemas_are_values_with_a_warning() {
    let generated =
        generator::generate_with_warnings(&root().join("generator/fixtures/degraded.yaml"))
            .unwrap();
    let pointers: Vec<&str> = generated
        .warnings
        .iter()
        .map(|w| w.pointer.as_str())
        .collect();
    assert_eq!(
        pointers,
        [
            "/components/schemas/Delivery/properties/config",
            "/components/schemas/Delivery/properties/extra",
            "/paths/~1checks/post/requestBody/content/application~1json/schema",
        ]
    );
    // Compared without whitespace: the formatter breaks long signatures.
    let squeeze = |text: &str| text.split_whitespace().collect::<String>();
    let code = squeeze(&generated.code);
    for needle in [
        // `type: string` with object keywords beside: a string, as JSON
        // Schema reads it (the keywords apply to objects only).
        // Optional and nullable: three states.
        "pub payload: ::std::option::Option<::std::option::Option<::std::string::String>>",
        "::std::vec::Vec<::client_runtime::serde_json::Value>",
        // A oneOf of string enums is one string enum of their values.
        "pub enum SortMode { NameAscending, NameDescending, IdAscending, }",
        // The untagged oneOf of scalars prints as the variant it holds.
        "impl ::std::fmt::Display for NameOrId",
        // nullable dropped from parameters, named or not.
        "pub fn limit(mut self, value: i32",
        "pub fn tool_guid(mut self, value: impl Into<::std::string::String>",
        "pub fn sort_by(mut self, value: super::types::SortMode",
        "pub fn id(mut self, value: super::types::NameOrId",
        // oneOf [string, array of strings]: the union, each member sent
        // as the parameter's style writes it (issue 47).
        "pub fn tag(mut self, value: super::types::GetDeliveryTag",
    ] {
        assert!(code.contains(&squeeze(needle)), "missing: {needle}");
    }
    for (spec, _) in pairs()
        .iter()
        .filter(|(spec, _)| !WARNED.iter().any(|w| spec.ends_with(w)))
    {
        let warnings = generator::generate_with_warnings(&root().join(spec))
            .unwrap()
            .warnings;
        assert!(warnings.is_empty(), "{spec}: {warnings:?}");
    }
}

/// A nullable schema used by an optional field has three states (issue
/// 47: absent, `null`, a value), `Option<Option<T>>` read by the runtime's
/// `nullable::deserialize` so that a `null` is `Some(None)`; nothing else
/// is an `Option` of an `Option`. A struct whose fields all have a default
/// derives `Default` (a large body is `Body::default()` with its fields
/// set).
#[test]
fn options_are_single_and_defaults_derived() {
    for (spec, _) in &pairs() {
        let code = generate(spec);
        let squeezed: String = code.split_whitespace().collect();
        assert_eq!(
            squeezed.matches("Option<::std::option::Option<").count(),
            squeezed
                .matches("deserialize_with=\"::client_runtime::nullable::deserialize\")]pub")
                .count(),
            "{spec}: an Option of an Option that is not a three-state field"
        );
    }
    let code = generate("generator/fixtures/shapes.yaml");
    let squeeze = |text: &str| text.split_whitespace().collect::<String>();
    let code = squeeze(&code);
    assert!(
        code.contains(&squeeze(
            "pub memo: ::std::option::Option<::std::option::Option<MaybeText>>,"
        )),
        "memo"
    );
    assert!(code.contains(&squeeze("pub type MaybeText = ::std::string::String;")));
    // Every field optional or with a default: `Default`.
    assert!(code.contains(&squeeze(
        "#[derive(Clone, Debug, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)] #[non_exhaustive] pub struct NotFound"
    )));
    // A required enum has no default to take: no `Default`.
    assert!(code.contains(&squeeze(
        "#[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)] #[non_exhaustive] pub struct Order"
    )));
}

/// A split document reads as one: a schema reached from several files is
/// one type, two schemas of the same name in two files are two, a `$ref`
/// into a schema's inside is a type of its own; and the header's hash
/// covers every file, so a change in a referenced file changes it.
#[test]
fn split_documents_read_as_one() {
    let code = generate("generator/fixtures/split.yaml");
    let squeeze = |text: &str| text.split_whitespace().collect::<String>();
    let squeezed = squeeze(&code);
    for (needle, times) in [
        ("pub struct User {", 1),
        ("pub struct Address {", 1),
        ("pub struct Error {", 1),
        ("pub struct Error2 {", 1),
        ("pub struct PetAllOf0 {", 1),
        ("pub enum Tag {", 1),
        (
            "pub friends: ::std::option::Option<::std::vec::Vec<User>>",
            1,
        ),
        ("pub fn list_users(&self)", 1),
        ("pub fn create_user(&self)", 1),
        ("pub fn get_user(&self)", 1),
    ] {
        assert_eq!(
            squeezed.matches(&squeeze(needle)).count(),
            times,
            "`{needle}` in the split fixture's output"
        );
    }
    // The same document with one referenced file changed: another hash.
    let copy = root().join(format!("target/split-copy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    copy_dir(
        &root().join("generator/fixtures/split"),
        &copy.join("split"),
    );
    std::fs::copy(
        root().join("generator/fixtures/split.yaml"),
        copy.join("split.yaml"),
    )
    .unwrap();
    let hash = |code: &str| code.lines().nth(1).unwrap().to_owned();
    let same = generator::generate(&copy.join("split.yaml")).unwrap();
    assert_eq!(hash(&same), hash(&code), "the copy hashes as the original");
    let address = copy.join("split/schemas/Address.json");
    let text = std::fs::read_to_string(&address).unwrap();
    std::fs::write(&address, text.replace("city", "town")).unwrap();
    let changed = generator::generate(&copy.join("split.yaml")).unwrap();
    assert_ne!(hash(&changed), hash(&code));
    assert!(changed.contains("pub town:"));
    std::fs::remove_dir_all(&copy).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// JSON Schema 2020-12: a pair of one type is a `Vec` of it, a tuple of
/// several a `Vec` of any of them, a type list an untagged enum, `$defs`
/// reached by `$ref` named types; what only validates warns at its node
/// and is ignored, what no Rust type expresses (`not`, a type list beside
/// `oneOf`) is any JSON value with a warning, an encoded string is read as
/// sent, with a warning; `[T, "null"]` is an `Option<T>`, sent as `null`
/// when required.
#[test]
fn json_schema_2020_keywords_are_read() {
    let generated =
        generator::generate_with_warnings(&root().join("generator/fixtures/json_schema_2020.yaml"))
            .unwrap();
    let squeeze = |text: &str| text.split_whitespace().collect::<String>();
    let code = squeeze(&generated.code);
    for needle in [
        "pub at: ::std::vec::Vec<Coordinate>,",
        "pub type Coordinate = f64;",
        "pub id: PointId,",
        "pub enum PointId { Integer(i64), String(::std::string::String), }",
        "pub label: ::std::option::Option<::std::option::Option<Label>>,",
        "pub entry: ::std::option::Option<::std::vec::Vec<PointEntryItem>>,",
        "pub counts: ::std::option::Option<::std::collections::BTreeMap<::std::string::String, i64>",
        "pub extras: ::std::option::Option<Extras>,",
        "pub nick: ::std::option::Option<::std::string::String>, pub blob: ::std::string::String,",
        "pub marks: ::std::option::Option<::std::vec::Vec<i64>>,",
        "pub other: ::std::option::Option<::client_runtime::serde_json::Value>,",
        "pub mixed: ::std::option::Option<::client_runtime::serde_json::Value>,",
    ] {
        assert!(code.contains(&squeeze(needle)), "missing: {needle}");
    }
    let warned: Vec<(Option<usize>, &str)> = generated
        .warnings
        .iter()
        .map(|w| (w.line, w.pointer.as_str()))
        .collect();
    assert_eq!(
        warned,
        [
            (Some(23), "/components/schemas/Point/unevaluatedProperties"),
            (Some(24), "/components/schemas/Point/dependentRequired"),
            (
                Some(48),
                "/components/schemas/Point/properties/entry/prefixItems"
            ),
            (
                Some(53),
                "/components/schemas/Point/properties/counts/patternProperties"
            ),
            (Some(60), "/components/schemas/Extras/dependentSchemas"),
            (
                Some(68),
                "/components/schemas/Extras/properties/blob/contentEncoding"
            ),
            (
                Some(73),
                "/components/schemas/Extras/properties/marks/unevaluatedItems"
            ),
            (Some(77), "/components/schemas/Extras/properties/mixed/type"),
            (Some(75), "/components/schemas/Extras/properties/other/not"),
        ]
    );
    // Never a refusal, but --strict holds the document to the letter.
    let strict = generator::generate_with_options(
        &root().join("generator/fixtures/json_schema_2020.yaml"),
        &generator::Options {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(strict.line, Some(23), "{strict}");
}

/// The warnings of a fixture as (line, pointer), in order.
fn warned(spec: &str) -> (generator::Generated, Vec<(Option<usize>, String)>) {
    let generated = generator::generate_with_warnings(&root().join(spec)).unwrap();
    let warned = generated
        .warnings
        .iter()
        .map(|w| (w.line, w.pointer.clone()))
        .collect();
    (generated, warned)
}

/// `--strict` refuses the fixture at its first warning's line.
fn strict_refuses_at(spec: &str, line: usize) {
    let refusal = generator::generate_with_options(
        &root().join(spec),
        &generator::Options {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(refusal.line, Some(line), "{refusal}");
    assert!(refusal.hint.contains("--strict"), "{refusal}");
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect()
}

/// Security schemes given by `$ref` (to a shared file, to another scheme of
/// the document through a chain, to a whole file) are applied like inline
/// ones, with no warning: every operation that requires a credential sends
/// it (see generator-expected's wire test for the bytes).
#[test]
fn security_schemes_by_reference_are_applied() {
    let (generated, warned) = warned("generator/fixtures/security_refs.yaml");
    assert!(warned.is_empty(), "{:?}", generated.warnings);
    let code = squeeze(&generated.code);
    for needle in [
        "pub api_key: ::std::option::Option<rt::Secret>,",
        "pub bearer: ::std::option::Option<rt::Secret>,",
        "pub basic: ::std::option::Option<rt::Basic>,",
        "pub audit_key: ::std::option::Option<rt::Secret>,",
        "if let Some(api_key_credential) = &credentials.api_key",
        "if let Some(audit_key_credential) = &credentials.audit_key",
        "else if let Some(basic_credential) = &credentials.basic",
    ] {
        assert!(code.contains(&squeeze(needle)), "missing: {needle}");
    }
    assert!(generated.degraded.is_empty());
}

/// Invalid constructs that change a request's meaning are each named at
/// their line and pointer; the first of a parameter given twice is kept
/// (the string, not the integer); `--strict` refuses.
#[test]
fn invalid_constructs_are_named() {
    let spec = "generator/fixtures/invalid_constructs.yaml";
    let (generated, warned) = warned(spec);
    assert_eq!(
        warned,
        [
            (Some(14), "/paths/~1things/get/parameters/1".to_owned()),
            (
                Some(22),
                "/paths/~1things~1{id}/get/parameters/0".to_owned()
            ),
            (Some(25), "/paths/~1things~1{name}".to_owned()),
        ]
    );
    let messages: Vec<&str> = generated
        .warnings
        .iter()
        .map(|w| w.message.as_str())
        .collect();
    assert!(
        messages[0].contains("`foo` (query) is given twice"),
        "{messages:?}"
    );
    assert!(messages[1].contains("`required: true`"), "{messages:?}");
    assert!(
        messages[2].contains("differs from `/things/{id}` only in its parameters' names"),
        "{messages:?}"
    );
    let code = squeeze(&generated.code);
    let list = squeeze(builder_of(&generated.code, "ListThings"));
    assert!(
        list.contains("pubfnfoo(mutself,value:implInto<::std::string::String>)"),
        "{list}"
    );
    assert!(!list.contains("value:i64"), "{list}");
    // The header of the same name is another parameter, kept.
    assert!(list.contains("\"foo\""), "{list}");
    assert!(code.contains("pubfnget_thing(&self)") && code.contains("pubfnput_thing(&self)"));
    assert_eq!(generated.degraded.parameters, 1);
    strict_refuses_at(spec, 14);
}

/// Degraded at the smallest scope: every operation is kept; what could not
/// be read as the spec says is read more loosely in place, each with its
/// warning, and counted in one summary.
#[test]
fn operations_degrade_in_place() {
    let spec = "generator/fixtures/degraded_operations.yaml";
    let (generated, warned) = warned(spec);
    let pointers: Vec<&str> = warned.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/paths/~1reports{.format}/post/parameters/1/name",
            "/paths/~1reports{.format}",
            "/paths/~1reports{.format}/post/requestBody/content/multipart~1related",
            "/paths/~1reports{.format}/post/responses/201/headers/X-Rate-Limit/content",
            "/paths/~1reports{.format}/post/responses/400/content/application~1json/schema/allOf/0",
            "/paths/~1matrix~1{;id*}",
            "/paths/~1many~1{ids*}",
            "/paths/~1files~1{+rest}",
            "/paths/~1files~1{+rest}/get/responses/404/content/application~1json/schema/anyOf",
        ]
    );
    assert!(warned.iter().all(|(line, _)| line.is_some()));
    assert_eq!(
        generated.degraded,
        generator::model::Degraded {
            operations: 0,
            parameters: 2,
            schemas: 2,
            headers: 1,
            bodies: 1,
            encodings: 0,
        }
    );
    assert_eq!(
        generated.degraded.to_string(),
        "2 parameters left out or sent as a string, 2 schemas read as any JSON value, 1 response header left out or read as text, 1 request body sent as raw bytes"
    );
    let code = squeeze(&generated.code);
    for needle in [
        "pub fn create_report(&self)",
        "pub fn get_matrix(&self)",
        "pub fn get_many(&self)",
        "pub fn get_file(&self)",
        "pub type CreateReportResponse = CreatedAnswers< CreateReportCreatedHeaders, ::client_runtime::serde_json::Value, >;",
        "pub x_rate_limit: ::std::option::Option<::std::string::String>,",
    ] {
        assert!(code.contains(&squeeze(needle)), "missing: {needle}");
    }
    assert!(
        !code.contains("pubfnrequest_id(") && !code.contains("RequestId\""),
        "a header that cannot be sent"
    );
    strict_refuses_at(spec, 19);
}

/// OpenAPI 3.2 is read as 3.1: boolean schemas, descriptions by `$ref` to
/// Markdown (as text), pointers through a `$ref` on their way, a response
/// without `description` (optional since 3.2): no warning.
#[test]
fn openapi_32_is_read() {
    let (generated, warned) = warned("generator/fixtures/openapi32.yaml");
    assert!(warned.is_empty(), "{:?}", generated.warnings);
    let code = &generated.code;
    assert!(
        code.contains("/// - sorted by name"),
        "the Markdown description"
    );
    let code = squeeze(code);
    for needle in [
        // `extra: true`: any value; `legacyId: false`: never present.
        "pub extra: ::std::option::Option<::client_runtime::serde_json::Value>,",
        // The mapping through `Animal/properties/cat` (a `$ref`) names `Cat`.
        "#[serde(tag = \"kind\")] pub enum Pet { #[serde(rename = \"cat\")] Cat(Cat), #[serde(rename = \"dog\")] Dog(Dog), }",
        // `.../items/oneOf/0` runs through `items`, a `$ref` to `Pet`.
        "pub type GetPetResponse = OkAnswers<types::Cat>;",
    ] {
        assert!(code.contains(&squeeze(needle)), "missing: {needle}");
    }
    assert!(!code.contains("legacy"), "a `false` property has no field");
}

/// The common bends of 3.0 documents are read as meant, each with a
/// warning at its node (a response without `description` at the response,
/// not at `/paths`); `--strict` refuses.
#[test]
fn bends_of_30_are_read_with_warnings() {
    let spec = "generator/fixtures/bends_30.yaml";
    let (generated, warned) = warned(spec);
    assert_eq!(
        warned,
        [
            (
                Some(29),
                "/components/schemas/Reading/properties/value/exclusiveMinimum".to_owned()
            ),
            (
                Some(32),
                "/components/schemas/Reading/properties/at/items".to_owned()
            ),
            (Some(17), "/paths/~1readings/get/responses/200".to_owned()),
            (Some(9), "/servers/0/url".to_owned()),
        ]
    );
    let code = squeeze(&generated.code);
    for needle in [
        "pub value: f64,",
        "pub at: ::std::vec::Vec<ReadingAtItem>,",
        "pub fn server_url(region: &str, version: &str)",
    ] {
        assert!(code.contains(&squeeze(needle)), "missing: {needle}");
    }
    strict_refuses_at(spec, 29);
}

/// Issue 47: what the client cannot write as the document says is named
/// at its member, counted, and refused by `--strict`; what it can write
/// (Stripe's `created`, an object or an integer; `maxLength` on an
/// integer) draws no warning.
#[test]
fn what_is_not_sent_as_written_is_named_counted_and_strict_refuses_it() {
    let generated =
        generator::generate_with_warnings(&root().join("generator/fixtures/form_encoding.yaml"))
            .unwrap();
    let pointers: Vec<&str> = generated
        .warnings
        .iter()
        .map(|w| w.pointer.as_str())
        .collect();
    assert_eq!(
        pointers,
        [
            "/paths/~1v1~1notes/post/requestBody/content/application~1x-www-form-urlencoded/encoding/text/allowReserved",
            "/paths/~1v1~1notes/post/requestBody/content/application~1x-www-form-urlencoded/encoding/extra/headers",
            "/paths/~1v1~1mixed/post/requestBody/content/application~1x-www-form-urlencoded/schema",
        ]
    );
    assert!(
        generated.warnings[2]
            .message
            .contains("is not offered to the caller: a form body must be an object"),
        "{}",
        generated.warnings[2]
    );
    assert_eq!(
        generated.degraded.to_string(),
        "3 body encodings or media types not applied"
    );
    let strict = generator::generate_with_options(
        &root().join("generator/fixtures/form_encoding.yaml"),
        &generator::Options {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        strict.pointer.ends_with("/encoding/text/allowReserved"),
        "{strict}"
    );

    let unions =
        generator::generate_with_warnings(&root().join("generator/fixtures/unions.yaml")).unwrap();
    assert!(unions.warnings.is_empty(), "{:?}", unions.warnings);
    assert!(unions.degraded.is_empty());

    // A member that no style can write (a list of objects) is named at its
    // own index, and counted; the parameter is sent as the member that fits.
    let text = r#"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /charges:
    get:
      operationId: list
      parameters:
        - name: created
          in: query
          schema:
            anyOf:
              - type: integer
              - type: array
                items:
                  type: object
                  properties:
                    gt: {type: integer}
      responses:
        "204": {description: none}
"#;
    let generated =
        generator::generate_text_with_warnings(Path::new("union.yaml"), text.to_owned()).unwrap();
    let pointers: Vec<&str> = generated
        .warnings
        .iter()
        .map(|w| w.pointer.as_str())
        .collect();
    assert_eq!(
        pointers,
        ["/paths/~1charges/get/parameters/0/schema/anyOf/1"]
    );
    assert_eq!(generated.warnings[0].line, Some(14));
    assert_eq!(generated.degraded.parameters, 1);
}
