//! Bad input: one message naming the file, the line and the node, exit code 2,
//! never a panic. Each case runs the real binary.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_generator"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .unwrap()
}

fn fails_with(spec: &str) -> String {
    let stderr = fails_with_any(spec);
    assert!(stderr.contains("help: "), "no advice: {stderr}");
    stderr
}

/// Exit 2, one message naming the file, no output, no panic.
fn fails_with_any(spec: &str) -> String {
    let output = run(&[spec]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{spec}: {stderr}");
    assert!(
        output.stdout.is_empty(),
        "{spec}: wrote output despite the error"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.starts_with(&format!("error: {spec}")), "{stderr}");
    stderr
}

#[test]
fn unreadable_file() {
    let stderr = fails_with("generator/fixtures/invalid/no-such-file.yaml");
    assert!(stderr.contains("cannot read the file"), "{stderr}");
}

#[test]
fn invalid_yaml() {
    insta::assert_snapshot!(fails_with("generator/fixtures/invalid/invalid-yaml.yaml"));
}

#[test]
fn not_openapi_3() {
    insta::assert_snapshot!(
        "openapi-4-0",
        fails_with("generator/fixtures/invalid/openapi-4-0.yaml")
    );
    insta::assert_snapshot!(
        "swagger-2",
        fails_with("generator/fixtures/invalid/swagger-2.yaml")
    );
    insta::assert_snapshot!(
        "bad-shape",
        fails_with("generator/fixtures/invalid/not-openapi-shape.yaml")
    );
}

/// A defect confined to one operation warns, at its node, with a defined
/// fallback, and `--strict` refuses it: a path parameter its template does
/// not name is left out; a security requirement naming an undeclared
/// scheme ignores that scheme; an operationId given twice names both
/// places.
#[test]
fn defects_of_one_operation_warn() {
    let spec = "generator/fixtures/invalid/path-param-not-in-template.yaml";
    let output = run(&[spec]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with(&format!("warning: {spec}:12: at /paths/~1component~1{{ref}}~1auth/post/parameters/1: the path parameter `modelUuid` does not appear in the path template `/component/{{ref}}/auth`; it is left out")),
        "{stderr}"
    );
    let code = String::from_utf8(output.stdout).unwrap();
    assert!(code.contains("/// `ref` (path, required)."), "{code}");
    assert!(!code.contains("model_uuid"), "{code}");
    let stderr = fails_with_any_args(&[spec, "--strict"]);
    assert!(
        stderr.contains(&format!("{spec}:12: at /paths/")),
        "{stderr}"
    );

    let text = "openapi: 3.0.3\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    get:\n      operationId: fetch\n      security:\n        - key: []\n          missing: []\n      responses: { '204': { description: ok } }\n  /b:\n    get:\n      operationId: fetch\n      responses: { '204': { description: ok } }\ncomponents:\n  securitySchemes:\n    key: { type: apiKey, in: header, name: X-Key }\n";
    let file = scratch("one-operation.yaml", text.as_bytes());
    let output = run(&[&file]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("warning: {file}:9: at /paths/~1a/get/security/0/missing: the security requirement names `missing`, which is not declared; it is ignored")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("warning: {file}:13: at /paths/~1b/get/operationId: the operationId `fetch` is given again (first at /paths/~1a/get/operationId)")),
        "{stderr}"
    );
    let code = String::from_utf8(output.stdout).unwrap();
    // The declared scheme is still applied to the first operation.
    assert!(code.contains("X-Key"), "{code}");
    assert!(code.contains("pub fn fetch(&self)") && code.contains("pub fn fetch_2(&self)"));
}

/// Exit 2 with one message, no output, no panic.
fn fails_with_any_args(args: &[&str]) -> String {
    let output = run(args);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

#[test]
fn dangling_reference() {
    let stderr = fails_with("generator/fixtures/invalid/dangling-ref.yaml");
    assert!(stderr.contains("dangling-ref.yaml:13:"), "{stderr}");
    insta::assert_snapshot!(stderr);
}

/// What no Rust type expresses is any JSON value with a warning at its
/// node, never a refusal; `--strict` refuses it there.
#[test]
fn inexpressible_schemas_warn() {
    for (spec, line, pointer, message) in [
        (
            "generator/fixtures/invalid/unsupported-not.yaml",
            13,
            "/paths/~1things/get/responses/200/content/application~1json/schema/not",
            "`not` cannot be expressed as a Rust type; the value is read as any JSON value",
        ),
        (
            "generator/fixtures/invalid/unsupported-3-1-keyword.yaml",
            8,
            "/components/schemas/Pair/type",
            "a list of several types beside `oneOf` or `anyOf` cannot be expressed as one Rust type; the value is read as any JSON value",
        ),
    ] {
        let output = run(&[spec]);
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.starts_with(&format!("warning: {spec}:{line}: at {pointer}: {message}")),
            "{stderr}"
        );
        let stderr = fails_with_any_args(&[spec, "--strict"]);
        assert!(
            stderr.starts_with(&format!("error: {spec}:{line}: at {pointer}: {message}")),
            "{stderr}"
        );
    }
}

/// A request body is sent as JSON, a form, multipart, bytes or text; any
/// other media type (XML, say) is raw bytes the caller supplies, with a
/// warning naming it and its node, which `--strict` refuses.
#[test]
fn unsupported_request_bodies() {
    let spec = "generator/fixtures/invalid/xml-body.yaml";
    let output = run(&[spec]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with(&format!("warning: {spec}:9: at /paths/~1upload/post/requestBody/content/application~1xml: the request body's media type `application/xml` cannot be written by this client; the body is raw bytes the caller supplies")),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("degraded: 1 request body sent as raw bytes\n"),
        "{stderr}"
    );
    let code = String::from_utf8(output.stdout).unwrap();
    assert!(code.contains("\"application/xml\""), "{code}");
    let stderr = fails_with_any_args(&[spec, "--strict"]);
    assert!(stderr.contains("xml-body.yaml:9:"), "{stderr}");
    let stderr = fails_with("generator/fixtures/invalid/form-body-not-an-object.yaml");
    assert!(
        stderr.contains("form-body-not-an-object.yaml:10:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("/content/application~1x-www-form-urlencoded/schema"),
        "{stderr}"
    );
    assert!(stderr.contains("a form body must be an object"), "{stderr}");
}

/// An operation that cannot be lowered is left out of the client, with a
/// warning at its defect naming it; the rest is generated as if it were
/// not written. `--strict` refuses the document at the defect, with the
/// message it had before. A document whose every operation is broken is
/// refused.
#[test]
fn a_broken_operation_is_left_out_and_named() {
    let spec = "generator/fixtures/broken_operations.yaml";
    let output = run(&[spec]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: generator/fixtures/broken_operations.yaml:30: at /paths/~1pets/post/requestBody/content/application~1json/schema/$ref: the operation `createPet` (POST /pets) is left out of the client: the reference `#/components/schemas/NewPet` points to nothing",
            "warning: generator/fixtures/broken_operations.yaml:34: at /paths/~1pets~1{petId}: the operation `getPet` (GET /pets/{petId}) is left out of the client: the path template `/pets/{petId}` uses `{petId}`, but no path parameter of `get` is named `petId`",
            "warning: generator/fixtures/broken_operations.yaml:57: at /paths/~1search/post/requestBody/content/application~1x-www-form-urlencoded/schema: the operation POST /search is left out of the client: a form body must be an object",
        ],
        "{stderr}"
    );
    assert!(
        stderr.contains("(--strict refuses the document instead)"),
        "{stderr}"
    );
    let code = String::from_utf8(output.stdout).unwrap();
    assert!(code.contains("pub fn list_pets(&self)"), "{code}");
    assert!(code.contains("pub fn health(&self)"), "{code}");
    for gone in ["create_pet", "get_pet", "post_search", "Results", "Query"] {
        assert!(!code.contains(gone), "{gone}: {code}");
    }

    let stderr = fails_with_any_args(&[spec, "--strict"]);
    assert!(
        stderr.starts_with(&format!("error: {spec}:30: at /paths/~1pets/post/requestBody/content/application~1json/schema/$ref: the reference `#/components/schemas/NewPet` points to nothing\n")),
        "{stderr}"
    );
    assert!(!stderr.contains("left out"), "{stderr}");

    // Every operation broken: refused at the first, as before.
    let text = "openapi: 3.0.3\ninfo: { title: t, version: '1' }\npaths:\n  /a/{id}:\n    get:\n      responses: { '204': { description: ok } }\n  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: { $ref: '#/components/schemas/Gone' }\n";
    let file = scratch("all-broken.yaml", text.as_bytes());
    let stderr = fails_with_any(&file);
    assert!(
        stderr.starts_with(&format!(
            "error: {file}:4: at /paths/~1a~1{{id}}: the path template `/a/{{id}}` uses `{{id}}`"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// A schema beyond the model: exit 0 with the code, and one warning per
/// node on stderr, naming the file, the line and the JSON pointer.
#[test]
fn degraded_schemas_warn_on_stderr() {
    let output = run(&["generator/fixtures/degraded.yaml"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!output.stdout.is_empty());
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    // (A parameter that is a string or a list of them is sent as the
    // member held since issue 47: no warning for it.)
    assert_eq!(warnings.len(), 3, "{stderr}");
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "warning: generator/fixtures/degraded.yaml:76: at /components/schemas/Delivery/properties/config: the array has no `items`"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("error"), "{stderr}");
}

/// What openapiv3 would drop or read as "any JSON" is refused instead.
#[test]
fn nothing_is_dropped_in_silence() {
    let stderr = fails_with("generator/fixtures/invalid/response-key-not-a-status.yaml");
    assert!(
        stderr.contains("response-key-not-a-status.yaml:10:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`200 ` is not a response status"),
        "{stderr}"
    );
    let stderr = fails_with("generator/fixtures/invalid/ref-not-a-string.yaml");
    assert!(stderr.contains("ref-not-a-string.yaml:9:"), "{stderr}");
    assert!(stderr.contains("`$ref` must be a string"), "{stderr}");
}

/// A misspelt keyword that shapes the type is ignored with a warning that
/// says the type is read without it (a real document should not lose its
/// whole client to one typo); `--strict` refuses it, at the same place.
#[test]
fn a_misspelt_keyword_warns_and_strict_refuses_it() {
    let spec = "generator/fixtures/invalid/misspelt-keyword.yaml";
    let output = run(&[spec]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "warning: {spec}:8: at /components/schemas/Pet/propertes: `propertes` is not a schema keyword; it is ignored, so the type is read without it"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `properties`?"), "{stderr}");
    // In a 3.1 document too, and the message does not call it 3.0.
    let typo = scratch(
        "typo-3-1.yaml",
        b"openapi: 3.1.0\ninfo: { title: t, version: '1' }\ncomponents:\n  schemas:\n    Pet:\n      type: object\n      additional_properties: false\n",
    );
    let output = run(&[&typo]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("typo-3-1.yaml:7: at /components/schemas/Pet/additional_properties:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `additionalProperties`?"),
        "{stderr}"
    );
    assert!(!stderr.contains("3.0"), "{stderr}");

    let output = run(&[spec, "--strict"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(
        stderr.starts_with(&format!(
            "error: {spec}:8: at /components/schemas/Pet/propertes: `propertes` is not a schema keyword"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("--strict"), "{stderr}");
}

/// A scratch file under `target/`, for inputs too big or odd to check in.
fn scratch(name: &str, content: &[u8]) -> String {
    // Per process: two test runs at once must not write the same file.
    let relative = format!("target/bad-input-{}/{name}", std::process::id());
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(&relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    relative
}

#[test]
fn endless_input_is_bounded() {
    let started = std::time::Instant::now();
    // A device is refused before a byte is read; a FIFO would hang.
    let stderr = fails_with_any("/dev/zero");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    // The cap is a flag (64 MiB by default): one MiB and a byte over it
    // is refused before parsing, with the flag named.
    let big = scratch("big.yaml", &vec![b'#'; 1024 * 1024 + 1]);
    let stderr = fails_with_any_args(&[&big, "--max-input-mib", "1"]);
    assert!(stderr.contains("larger than 1 MiB"), "{stderr}");
    assert!(stderr.contains("--max-input-mib"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

/// Deep nesting is refused before a parser sees it, in time linear in the
/// input: 100 000 levels of flow style used to take 48 s.
#[test]
fn deep_nesting_is_refused_quickly() {
    for (name, open, close) in [
        ("deep-flow-seq.yaml", "[", "]"),
        ("deep-flow-map.json", "{\"a\":", "}"),
    ] {
        let depth = 100_000;
        let text = format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths: {{}}\nx-deep: {}1{}\n",
            open.repeat(depth),
            close.repeat(depth)
        );
        let file = scratch(name, text.as_bytes());
        let started = std::time::Instant::now();
        let stderr = fails_with(&file);
        assert!(stderr.contains("nests deeper than 128 levels"), "{stderr}");
        assert!(stderr.contains(&format!("{name}:4")), "{stderr}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{name}: {:?}",
            started.elapsed()
        );
    }
    // 100 levels pass the bound (and then fail or pass on their merits).
    let text = format!(
        "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths: {{}}\nx-deep: {}1{}\n",
        "[".repeat(100),
        "]".repeat(100)
    );
    let file = scratch("deep-100.yaml", text.as_bytes());
    assert_eq!(run(&[&file]).status.code(), Some(0));
}

#[test]
fn a_byte_order_mark_is_not_a_second_document() {
    let text =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/minimal.yaml")).unwrap();
    let file = scratch("bom.yaml", &[b"\xef\xbb\xbf".as_slice(), &text].concat());
    let output = run(&[&file]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn check_tells_fresh_from_stale() {
    let fresh = run(&[
        "spec/openapi.yaml",
        "--client-feature",
        "client",
        "--check",
        "bindings/src/generated.rs",
    ]);
    assert_eq!(
        fresh.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fresh.stderr)
    );

    let stale = run(&[
        "generator/fixtures/extended.yaml",
        "--check",
        "bindings/src/generated.rs",
    ]);
    let stderr = String::from_utf8(stale.stderr).unwrap();
    assert_eq!(stale.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is stale"), "{stderr}");
    assert!(stderr.contains("+++ generated"), "no diff: {stderr}");
    assert!(stderr.lines().count() < 50, "the diff is not short");

    let missing = run(&["spec/openapi.yaml", "--check", "no/such/file.rs"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn unwritable_output() {
    let output = run(&["spec/openapi.yaml", "--out", "no/such/dir/out.rs"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot write"));
}

#[test]
fn writes_stdout_without_out() {
    let output = run(&["generator/fixtures/minimal.yaml"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("// @generated by `generator` from minimal.yaml"));
}

/// A key given twice in one mapping is refused, in YAML and in JSON: the
/// second value silently replacing the first is a spec that says two things.
#[test]
fn a_key_given_twice_is_refused() {
    for (name, text, line) in [
        (
            "twice.yaml",
            "openapi: 3.0.3\ninfo:\n  title: a\n  version: '1'\npaths:\n  /a:\n    get:\n      responses: {'200': {description: a}}\n  /a:\n    post:\n      responses: {'200': {description: b}}\n",
            ":6",
        ),
        (
            "twice.json",
            "{\"openapi\": \"3.0.3\",\n \"info\": {\"title\": \"a\", \"version\": \"1\",\n \"title\": \"b\"},\n \"paths\": {}}\n",
            ":3",
        ),
    ] {
        let file = scratch(name, text.as_bytes());
        let stderr = fails_with(&file);
        assert!(
            stderr.contains("a key is given twice in one mapping"),
            "{stderr}"
        );
        assert!(stderr.contains(&format!("{name}{line}")), "{stderr}");
        assert!(stderr.contains("keep one of the two"), "{stderr}");
    }
    let file = scratch("trailing.json", b"{\"openapi\": \"3.0.3\"}\n}\n");
    let stderr = fails_with(&file);
    assert!(
        stderr.contains("trailing.json:2: not valid JSON"),
        "{stderr}"
    );
}

#[test]
fn json_input_gets_lines_too() {
    let stderr = fails_with("generator/fixtures/invalid/dangling-ref.json");
    assert!(stderr.contains("dangling-ref.json:9:"), "{stderr}");
    assert!(
        stderr.contains("#/components/parameters/Missing"),
        "{stderr}"
    );
}

/// A schema that is only a reference to itself, or a cycle of references
/// with no type in it, is named with the `$ref` that closes it (3.0 and
/// 3.1), never code that cannot compile.
#[test]
fn reference_cycles_without_a_type() {
    for (spec, line, pointer) in [
        (
            "generator/fixtures/invalid/self-reference.yaml",
            14,
            "/components/schemas/A/$ref",
        ),
        (
            "generator/fixtures/invalid/self-reference-3-1.yaml",
            14,
            "/components/schemas/A/$ref",
        ),
        (
            "generator/fixtures/invalid/reference-cycle.yaml",
            17,
            "/components/schemas/B/allOf/0/$ref",
        ),
    ] {
        let stderr = fails_with(spec);
        assert!(
            stderr.contains(&format!("{spec}:{line}: at {pointer}: the schema `A`")),
            "{stderr}"
        );
        assert!(stderr.contains("no type is ever given"), "{stderr}");
    }
}

/// A schema one of whose properties is the `allOf` of the schema itself
/// and more: each merge holds that property again, so it is refused where
/// it is written, never merged until the stack overflows (found by the
/// fuzz test, seed 29).
#[test]
fn a_schema_that_extends_itself_in_a_property_is_refused() {
    let spec = "generator/fixtures/invalid/all-of-itself.yaml";
    let stderr = fails_with(spec);
    assert!(
        stderr.contains(&format!(
            "{spec}:19: at /components/schemas/Item/properties/parent/allOf: `allOf` refers back to itself"
        )),
        "{stderr}"
    );
}

/// A message names the node it is about, as written: the `allOf` member a
/// property came from, the schema whose keywords stood beside `allOf`, the
/// `oneOf` member by its index in the file (a 3.1 `{type: "null"}` before
/// it dropped), the parameter where a `$ref` leads.
#[test]
fn pointers_name_the_node_as_written() {
    let head = "openapi: 3.1.0\ninfo: { title: t, version: \"1\" }\npaths:\n  /a:\n    get:\n      parameters:\n        - $ref: \"#/components/parameters/P\"\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema: { $ref: \"#/components/schemas/S\" }\ncomponents:\n  parameters:\n    P:\n      name: p\n      in: query\n      schema: { $ref: \"#/components/schemas/Gone\" }\n  schemas:\n";
    for (schemas, pointer) in [
        (
            "    S:\n      allOf:\n        - { type: object }\n        - type: object\n          properties:\n            x: { allOf: [{ type: string }, { type: object }] }\n",
            "/components/schemas/S/allOf/1/properties/x/allOf/0",
        ),
        (
            "    S:\n      properties:\n        y: { allOf: [{ type: string }, { type: object }] }\n      allOf:\n        - { type: object }\n",
            "/components/schemas/S/properties/y/allOf/0",
        ),
        (
            "    S:\n      oneOf:\n        - { type: \"null\" }\n        - { type: object }\n        - { allOf: [{ type: string }, { type: object }] }\n",
            "/components/schemas/S/oneOf/2/allOf/0",
        ),
    ] {
        let spec = format!("{head}{schemas}").replace(
            "schema: { $ref: \"#/components/schemas/Gone\" }",
            "schema: { type: string }",
        );
        // Read as any JSON value with a warning; `--strict` refuses there.
        let file = scratch("pointer.yaml", spec.as_bytes());
        let stderr = fails_with_any_args(&[&file, "--strict"]);
        assert!(
            stderr.contains(&format!("at {pointer}:")),
            "{pointer}: {stderr}"
        );
    }
    let spec = format!("{head}    S: {{ type: object }}\n");
    let stderr = fails_with(&scratch("pointer-param.yaml", spec.as_bytes()));
    assert!(
        stderr.contains("at /components/parameters/P/schema/$ref:"),
        "{stderr}"
    );
}

/// What real specs bend: a keyword no vocabulary knows (`optional`) or a
/// misspelt one that only validates (`min_items`) is ignored with a
/// warning naming it; a misspelt keyword that shapes the type stays an
/// error (`misspelt-keyword.yaml`); draft 2019-09's `$recursiveRef: "#"`
/// is the schema that holds it.
#[test]
fn bent_rules_warn_and_generate() {
    let spec = "openapi: 3.1.0\ninfo: { title: t, version: \"1\" }\npaths:\n  /a:\n    get:\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema: { $ref: \"#/components/schemas/Filter\" }\ncomponents:\n  schemas:\n    Filter:\n      $recursiveAnchor: true\n      type: object\n      properties:\n        name: { type: string, optional: true }\n        tags: { type: array, items: { type: string }, min_items: 1 }\n        any:\n          type: array\n          items:\n            $recursiveRef: \"#\"\n";
    let output = run(&[&scratch("bent.yaml", spec.as_bytes())]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    for (line, pointer, text) in [
        (
            18,
            "/components/schemas/Filter/properties/name/optional",
            "`optional` is not a schema keyword; it is ignored",
        ),
        (
            19,
            "/components/schemas/Filter/properties/tags/min_items",
            "did you mean `minItems`?",
        ),
    ] {
        assert!(
            stderr.contains(&format!("bent.yaml:{line}: at {pointer}:")) && stderr.contains(text),
            "{pointer}: {stderr}"
        );
    }
    let code = String::from_utf8(output.stdout).unwrap();
    let squeezed: String = code.split_whitespace().collect();
    assert!(
        squeezed.contains("pubany:::std::option::Option<::std::vec::Vec<Filter>>"),
        "{code}"
    );
}

/// A split document's bad references are refused at the `$ref`, in the
/// file that writes it; a defect inside another file is named in that
/// file, at its own line and pointer.
#[test]
fn split_documents_name_the_file_of_each_defect() {
    let dir = "generator/fixtures/invalid/split";
    let at_ref = "/paths/~1a/get/responses/200/content/application~1json/schema/$ref";
    for (spec, place, text) in [
        (
            "url.yaml",
            format!("url.yaml:12: at {at_ref}"),
            "is a URL, and this generator reads no network",
        ),
        (
            "outside.yaml",
            format!("outside.yaml:12: at {at_ref}"),
            "outside the folder of the spec",
        ),
        (
            "missing.yaml",
            format!("missing.yaml:12: at {at_ref}"),
            "which cannot be read",
        ),
        (
            "dangling-fragment.yaml",
            format!("dangling-fragment.yaml:12: at {at_ref}"),
            "points to nothing in generator/fixtures/invalid/split/parts/schemas.yaml",
        ),
        // A cycle of references with no type, across two files.
        (
            "cycle.yaml",
            "parts/b.yaml:1: at /$ref".to_owned(),
            "defined only by references that lead back to it",
        ),
        (
            "bad-in-part.yaml",
            "parts/schemas.yaml:8: at /Bad/properties/odd/allOf/0".to_owned(),
            "`allOf` of a schema that is not an object is not supported",
        ),
        (
            "path-cycle.yaml",
            "parts/path-b.yaml:1: at /$ref".to_owned(),
            "is part of a cycle of references",
        ),
    ] {
        // Not `fails_with`: the message may name another file of the spec.
        // A schema that cannot be typed is a warning, refused by --strict.
        let path = format!("{dir}/{spec}");
        let mut args = vec![path.as_str()];
        if spec == "bad-in-part.yaml" {
            args.push("--strict");
        }
        let output = run(&args);
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{spec}: {stderr}");
        assert!(output.stdout.is_empty(), "{spec}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.matches("error: ").count(), 1, "{stderr}");
        assert!(stderr.contains("help: "), "{stderr}");
        assert!(
            stderr.starts_with(&format!("error: {dir}/{place}: ")),
            "{spec}: {stderr}"
        );
        assert!(stderr.contains(text), "{spec}: {stderr}");
    }
}

/// Swagger 2.0 is read through its conversion to 3.0, and every message
/// names the line and pointer of the 2.0 document as written: what 3.0
/// cannot say is refused there, a reference to nothing is refused at the
/// body parameter's schema (its index among the 2.0 parameters, its
/// target as written), a warning about a response schema points into the
/// 2.0 response; the conversion itself is a warning that `--strict` lets
/// pass.
#[test]
fn swagger_2_messages_point_into_the_2_0_document() {
    let cases = [
        (
            "swagger-2-dangling.yaml",
            ":12: at /paths/~1pets/post/parameters/1/schema/$ref: the reference `#/definitions/Missing` points to nothing",
        ),
        (
            "swagger-2-body-and-form.yaml",
            ":8: at /paths/~1pets/post/parameters/1: an operation has both a body parameter",
        ),
        (
            "swagger-1-2.yaml",
            ":1: at /swagger: the document says `swagger` `1.2` (a number), and only Swagger \"2.0\" is read",
        ),
    ];
    for (file, expected) in cases {
        let spec = format!("generator/fixtures/invalid/{file}");
        let stderr = fails_with(&spec);
        assert!(
            stderr.starts_with(&format!("error: {spec}{expected}")),
            "{stderr}"
        );
    }
    let spec = "generator/fixtures/invalid/swagger-2-misspelt.yaml";
    let output = run(&[spec]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "warning: {spec}:1: at /swagger: the document is Swagger 2.0"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("warning: {spec}:13: at /paths/~1pets/get/responses/200/schema/properties/name/maxLenght: `maxLenght` is not a schema keyword")),
        "{stderr}"
    );
    // --strict: the misspelt keyword is refused, the conversion is not.
    let stderr = fails_with_any_args(&[spec, "--strict"]);
    assert!(
        stderr.starts_with(&format!(
            "error: {spec}:13: at /paths/~1pets/get/responses/200/schema/properties/name/maxLenght"
        )),
        "{stderr}"
    );
    let output = run(&["generator/fixtures/swagger2.yaml", "--strict"]);
    assert_eq!(output.status.code(), Some(0));
}

/// A `$ref` that climbs above the entry file's folder is refused by
/// default; `--root` names a folder above them all, and the document is
/// read; a `--root` below the referenced file still refuses it.
#[test]
fn root_lets_references_climb_to_a_named_folder() {
    let spec = "generator/fixtures/invalid/climbing/api/openapi.yaml";
    let stderr = fails_with(spec);
    assert!(
        stderr.contains("outside the folder of the spec") && stderr.contains("--root"),
        "{stderr}"
    );
    let output = run(&[spec, "--root", "generator/fixtures/invalid/climbing"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let code = String::from_utf8(output.stdout).unwrap();
    assert!(
        code.contains("pub up: ::std::option::Option<bool>"),
        "{code}"
    );
    let stderr = fails_with_any_args(&[spec, "--root", "generator/fixtures/invalid/climbing/api"]);
    assert!(
        stderr.contains("outside the folder of the spec"),
        "{stderr}"
    );
    let stderr = fails_with_any_args(&[spec, "--root", "generator/fixtures/no-such-folder"]);
    assert!(stderr.contains("`--root`"), "{stderr}");
}

/// A spec folder whose `part.yaml` is (or becomes) a symlink to a file
/// outside it: `(spec, part, outside)`.
#[cfg(unix)]
fn symlinked_spec(name: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(format!("target/bad-input-{}/{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("spec")).unwrap();
    std::fs::create_dir_all(dir.join("outside")).unwrap();
    let spec = dir.join("spec/openapi.yaml");
    std::fs::write(
        &spec,
        "openapi: 3.0.3\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: { $ref: './part.yaml#/Status' }\n",
    )
    .unwrap();
    let outside = dir.join("outside/secret.yaml");
    std::fs::write(
        &outside,
        "Status: { type: object, properties: { outsideSecret: { type: string } } }\n",
    )
    .unwrap();
    (spec, dir.join("spec/part.yaml"), outside)
}

/// A referenced file that is a symlink out of the spec's folder is refused.
#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_folder_is_refused() {
    let (spec, part, outside) = symlinked_spec("symlink");
    std::os::unix::fs::symlink(&outside, &part).unwrap();
    let refusal = generator::generate(&spec).unwrap_err();
    assert!(
        refusal.message.contains("outside the folder of the spec"),
        "{refusal}"
    );
}

/// A referenced file swapped for a symlink out of the folder while the
/// generator runs, again and again: each run reads the file inside or
/// refuses, and never reads the file outside (the file is checked as
/// opened, not by its name before the open). Bounded by a count of runs,
/// not by time.
#[cfg(unix)]
#[test]
fn a_file_swapped_for_a_symlink_is_never_read_from_outside() {
    let (spec, part, outside) = symlinked_spec("swap");
    let folder = part.parent().unwrap().to_owned();
    let inside = "Status: { type: object, properties: { insideValue: { type: string } } }\n";
    std::fs::write(&part, inside).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let (link, regular) = (folder.join("link.tmp"), folder.join("regular.tmp"));
            let mut swaps = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(&outside, &link).unwrap();
                std::fs::rename(&link, &part).unwrap();
                std::fs::write(&regular, inside).unwrap();
                std::fs::rename(&regular, &part).unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let (mut read, mut refused) = (0, 0);
    for _ in 0..300 {
        match generator::generate(&spec) {
            Ok(code) => {
                assert!(!code.contains("outside_secret"), "read from outside");
                assert!(code.contains("inside_value"));
                read += 1;
            }
            Err(refusal) => {
                assert!(
                    refusal.message.contains("outside the folder of the spec")
                        || refusal.message.contains("cannot be read"),
                    "{refusal}"
                );
                refused += 1;
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("{read} read inside, {refused} refused, {swaps} swaps");
}

/// A client whose document requires credentials can send them: an HTTP
/// scheme the client does not write (`digest`) is an `Authorization` value
/// the caller supplies, with a warning; a 3.1 `mutualTLS` scheme is the
/// transport's certificate, with a warning, and the document is read.
#[test]
fn every_required_credential_can_be_sent() {
    let text = "openapi: 3.1.0\ninfo: { title: t, version: '1' }\nsecurity:\n  - digest: []\n  - tls: []\npaths:\n  /a:\n    get:\n      operationId: fetch\n      responses: { '204': { description: ok } }\ncomponents:\n  securitySchemes:\n    digest: { type: http, scheme: digest }\n    tls: { type: mutualTLS }\n";
    let file = scratch("credentials.yaml", text.as_bytes());
    let output = run(&[&file]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("warning: {file}:13: at /components/securitySchemes/digest/scheme: the HTTP authentication scheme `digest` is not written by this client; its credential is the whole `Authorization` header value, which the caller supplies")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("warning: {file}:14: at /components/securitySchemes/tls: mutual TLS is the transport's client certificate")),
        "{stderr}"
    );
    let code = String::from_utf8(output.stdout).unwrap();
    assert!(
        code.contains("/// `digest`: an API key, sent in the header `Authorization`."),
        "{code}"
    );
    assert!(code.contains("\"authorization\""), "{code}");
    assert!(!code.contains("pub tls:"), "{code}");
    let stderr = fails_with_any_args(&[&file, "--strict"]);
    assert!(stderr.contains(":13:"), "{stderr}");
}

/// `--out` through the workspace's one writer (issue 50): a link planted at
/// the old temporary name (`FILE.rs.tmp`) is never written through; a
/// device, or a link to one, is written in place (`--out /dev/stdout`
/// prints the code; a link to `/dev/null` stays a link and `/dev/null` a
/// device); a path that cannot be written is said before the spec is read.
#[cfg(unix)]
#[test]
fn out_is_written_by_the_one_writer() {
    use std::os::unix::fs::FileTypeExt;
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(format!("target/generator-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let victim = folder.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, folder.join("out.rs.tmp")).unwrap();
    let out = folder.join("out.rs");
    let output = run(&[
        "generator/fixtures/minimal.yaml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("pub struct Client")
    );

    let output = run(&["generator/fixtures/minimal.yaml", "--out", "/dev/stdout"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("pub struct Client"));

    let null = folder.join("null");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let output = run(&[
        "generator/fixtures/minimal.yaml",
        "--out",
        null.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        std::fs::symlink_metadata(&null)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );

    // Said before the spec is read: the spec named does not exist.
    for (path, says) in [
        (folder.to_str().unwrap().to_owned(), "is a directory"),
        (format!("{}/no/out.rs", folder.display()), "does not exist"),
    ] {
        let output = run(&["no-such-spec.yaml", "--out", &path]);
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("{path}: cannot write the bindings: "))
                && stderr.contains(says),
            "{stderr}"
        );
        assert!(!stderr.contains("no-such-spec"), "{stderr}");
    }
    let mut left: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["null", "out.rs", "out.rs.tmp", "victim"]);
    let _ = std::fs::remove_dir_all(&folder);
}

/// `--check FILE` reads a regular file only: a FIFO is refused at once.
#[cfg(unix)]
#[test]
fn check_refuses_a_fifo_without_waiting() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(format!(
            "target/generator-check-fifo-{}",
            std::process::id()
        ));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let fifo = folder.join("bindings.rs");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let output = run(&[
        "generator/fixtures/minimal.yaml",
        "--check",
        fifo.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("FIFO"),
        "{output:?}"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

/// A 1.2 KB overlay of eight wildcard actions, each update selected again
/// by the next (it took the generator to its 4 GiB limit), is refused
/// naming the action that passed a cap.
#[test]
fn a_wildcard_overlay_is_refused_within_its_caps() {
    let members: String = (0..6)
        .map(|i| format!("k{i}: {{m0: [1, 2, 3], m1: [1, 2, 3], m2: [1, 2, 3], m3: [1, 2, 3], m4: [1, 2, 3], m5: [1, 2, 3]}}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut overlay = String::from("overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n");
    for n in 1..=8 {
        overlay.push_str(&format!(
            "  - target: ${}\n    update: {{{members}}}\n",
            ".*".repeat(n)
        ));
    }
    let path = scratch("wildcards.overlay.yaml", overlay.as_bytes());
    let output = run(&["spec/openapi.yaml", "--overlay", &path]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("at /actions/"), "{stderr}");
    assert!(stderr.contains("the most"), "{stderr}");
}
