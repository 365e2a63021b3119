//! The contract, fuzzed: on any mutation of a real spec or fixture, the
//! generator gives code that compiles, or a message; it never panics (a
//! panic would surface as an internal error) and never overflows its stack.
//!
//! Every accepted output is checked to parse as Rust with no name defined
//! twice and no raw carriage return or bidirectional control in it; a sample
//! of them (the first `GENERATOR_FUZZ_COMPILE` distinct ones, 24 by default,
//! `0` for none) is then compiled by `rustc`, warnings denied, as the
//! modules of one crate under `target/fuzz-compile-PID/`, against the
//! runtime this test was built beside (see [`compiles`]).
//!
//! Mutations (proptest, shrunk to the fewest that still fail): a key renamed
//! to odd text (`m²`, `①`, `١abc`, `send`, `Self`, a newline, a bidi
//! override, a status such as `200 `), a node dropped or duplicated, a value
//! replaced by one of another type, a schema wrapped in `allOf`/`oneOf`/an
//! array or replaced by a `$ref`.
//!
//! `cargo test -p generator --test fuzz` runs 256 cases from seed 1 (about a
//! second). A longer run, with any seed:
//!
//! ```sh
//! GENERATOR_FUZZ_CASES=5000 GENERATOR_FUZZ_SEED=7 cargo test --release -p generator --test fuzz
//! ```
//!
//! A failure writes the mutated spec to `target/fuzz-failure.json` (or, for
//! a sample that does not compile, `target/fuzz-compile/specs/`) and prints
//! the command that reproduces it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The real spec and every fixture of `generator/fixtures/` (not `invalid/`).
fn bases() -> Vec<String> {
    let mut bases: Vec<String> = std::fs::read_dir(root().join("generator/fixtures"))
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            let ext = path.extension()?.to_str()?;
            let name = path.file_name()?.to_str()?;
            matches!(ext, "yaml" | "yml" | "json").then(|| format!("generator/fixtures/{name}"))
        })
        .collect();
    bases.sort();
    bases.insert(0, "spec/openapi.yaml".to_owned());
    bases
}

const ODD: &[&str] = &[
    "m²",
    "①",
    "١abc",
    "send",
    "new",
    "Self",
    "self",
    "type",
    "gen",
    "",
    "a b",
    "x\u{202e}y",
    "line\nbreak",
    "cr\rx",
    "1000",
    "2XX",
    "abc",
    "200 ",
    "404",
    "default",
    "#/components/schemas/Nope",
    "{x}",
    "/{a}/{a}",
    "x-ext",
    "Client",
    "Defaults",
    "url",
    "body",
    "_",
    "ℌ",
    "𝔘",
    "名前",
    "\u{feff}",
    "Item",
    "item",
    "ITEM",
    "properties",
    "items",
    "$ref",
    "nullable",
    "allOf",
    "oneOf",
    "string",
    "object",
    "integer",
    "3.1.0",
    "\u{7}",
    // Code in spec text: never a doctest.
    "```rust\nassert!(false);\n```",
    "Text.\n\n    assert!(false);",
    "> ~~~\n> assert!(false);\n> ~~~",
    "-     assert!(false);",
];

#[derive(Debug, Clone)]
struct Mutation {
    /// Which node (modulo the number of nodes).
    node: usize,
    kind: u8,
    odd: usize,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (any::<usize>(), 0u8..7, 0..ODD.len()).prop_map(|(node, kind, odd)| Mutation {
        node,
        kind,
        odd,
    })
}

/// Every node's path, in document order.
fn paths(value: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                at.push(Value::String(key.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(json!(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn node_mut<'v>(value: &'v mut Value, path: &[Value]) -> Option<&'v mut Value> {
    let mut node = value;
    for segment in path {
        node = match segment {
            Value::String(key) => node.get_mut(key.as_str())?,
            Value::Number(i) => node.get_mut(i.as_u64()? as usize)?,
            _ => return None,
        };
    }
    Some(node)
}

fn apply(doc: &mut Value, m: &Mutation) {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    let path = all[m.node % all.len()].clone();
    let odd = ODD[m.odd];
    let Some((last, parent_path)) = path.split_last() else {
        return;
    };
    let replacement = |v: &Value| -> Value {
        match m.odd % 10 {
            0 => json!(odd),
            1 => json!(0),
            2 => json!(-1.5e300),
            3 => json!(true),
            4 => Value::Null,
            5 => json!([]),
            6 => json!({}),
            7 => json!({"type": "string"}),
            8 => json!([v.clone()]),
            _ => json!({"a": v.clone()}),
        }
    };
    let Some(parent) = node_mut(doc, parent_path) else {
        return;
    };
    match (m.kind, parent, last) {
        (0, Value::Object(map), Value::String(key)) => {
            if let Some(v) = map.remove(key) {
                map.insert(odd.to_owned(), v);
            }
        }
        (1, Value::Object(map), Value::String(key)) => {
            map.remove(key);
        }
        (1, Value::Array(items), Value::Number(i)) => {
            let i = i.as_u64().unwrap_or(0) as usize;
            if i < items.len() {
                items.remove(i);
            }
        }
        (2, Value::Object(map), Value::String(key)) => {
            if let Some(v) = map.get(key).cloned() {
                map.insert(odd.to_owned(), v);
            }
        }
        (2, Value::Array(items), Value::Number(i)) => {
            if let Some(v) = items.get(i.as_u64().unwrap_or(0) as usize).cloned() {
                items.push(v);
            }
        }
        (3, parent, _) | (4, parent, _) => {
            if let Some(node) = node_mut(parent, std::slice::from_ref(last)) {
                *node = if m.kind == 4 && node.is_string() {
                    json!(odd)
                } else {
                    replacement(node)
                };
            }
        }
        (5, parent, _) => {
            if let Some(node) = node_mut(parent, std::slice::from_ref(last)) {
                let v = node.clone();
                *node = match m.odd % 4 {
                    0 => {
                        json!({"allOf": [v, {"type": "object", "properties": {odd: {"type": "string"}}}]})
                    }
                    1 => json!({"oneOf": [v, {"type": "integer"}]}),
                    2 => json!({"type": "array", "items": v}),
                    _ => json!({"$ref": format!("#/components/schemas/{odd}")}),
                };
            }
        }
        (_, Value::Object(map), _) => {
            // Rename a schema to clash with another by letter case.
            let keys: Vec<String> = map.keys().cloned().collect();
            if let Some(key) = keys.first() {
                let v = map[key].clone();
                map.insert(key.to_lowercase() + "", v.clone());
                map.insert(key.to_uppercase(), v);
            }
        }
        _ => {}
    }
}

/// Names defined twice in one namespace: items of a module, fields of a
/// struct, variants of an enum, functions of an impl block.
fn duplicates(items: &[syn::Item], out: &mut Vec<String>) {
    let mut names = BTreeSet::new();
    for item in items {
        let name = match item {
            syn::Item::Struct(s) => {
                let mut fields = BTreeSet::new();
                for field in &s.fields {
                    if let Some(ident) = &field.ident
                        && !fields.insert(ident.to_string())
                    {
                        out.push(format!("field {}.{ident}", s.ident));
                    }
                }
                Some(s.ident.to_string())
            }
            syn::Item::Enum(e) => {
                let mut variants = BTreeSet::new();
                for variant in &e.variants {
                    if !variants.insert(variant.ident.to_string()) {
                        out.push(format!("variant {}::{}", e.ident, variant.ident));
                    }
                }
                Some(e.ident.to_string())
            }
            syn::Item::Type(t) => Some(t.ident.to_string()),
            syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
            syn::Item::Const(c) => Some(c.ident.to_string()),
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    duplicates(items, out);
                }
                Some(m.ident.to_string())
            }
            syn::Item::Impl(i) => {
                let mut fns = BTreeSet::new();
                for item in &i.items {
                    if let syn::ImplItem::Fn(f) = item
                        && !fns.insert(f.sig.ident.to_string())
                    {
                        out.push(format!("method {}", f.sig.ident));
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(name) = name
            && !names.insert(name.clone())
        {
            out.push(format!("item {name}"));
        }
    }
}

/// The doc comments of `code` (of its items, fields, variants and
/// functions, and its own), each group on an item of a module with no
/// dependencies, so that rustdoc can collect the doctests they hold without
/// compiling anything.
fn doc_module(code: &str) -> String {
    fn docs(attrs: &[syn::Attribute]) -> Vec<String> {
        attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(syn::MetaNameValue {
                    value:
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }),
                    ..
                }) => Some(s.value()),
                _ => None,
            })
            .collect()
    }
    fn walk(items: &[syn::Item], groups: &mut Vec<Vec<String>>) {
        for item in items {
            match item {
                syn::Item::Struct(s) => {
                    groups.push(docs(&s.attrs));
                    groups.extend(s.fields.iter().map(|f| docs(&f.attrs)));
                }
                syn::Item::Enum(e) => {
                    groups.push(docs(&e.attrs));
                    groups.extend(e.variants.iter().map(|v| docs(&v.attrs)));
                }
                syn::Item::Fn(f) => groups.push(docs(&f.attrs)),
                syn::Item::Const(c) => groups.push(docs(&c.attrs)),
                syn::Item::Type(t) => groups.push(docs(&t.attrs)),
                syn::Item::Mod(m) => {
                    groups.push(docs(&m.attrs));
                    if let Some((_, items)) = &m.content {
                        walk(items, groups);
                    }
                }
                syn::Item::Impl(i) => {
                    for item in &i.items {
                        match item {
                            syn::ImplItem::Fn(f) => groups.push(docs(&f.attrs)),
                            syn::ImplItem::Const(c) => groups.push(docs(&c.attrs)),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let file = syn::parse_file(code).expect("checked before");
    let mut groups = vec![docs(&file.attrs)];
    walk(&file.items, &mut groups);
    let mut out = String::new();
    for (i, group) in groups.iter().enumerate().filter(|(_, g)| !g.is_empty()) {
        for line in group {
            out.push_str(&format!("#[doc = {line:?}]\n"));
        }
        out.push_str(&format!("pub struct Doc{i};\n"));
    }
    out
}

/// How many doctests rustdoc finds in `modules` (from [`doc_module`];
/// listed, never compiled nor run), and the list.
fn doctests(name: &str, modules: &[String]) -> (usize, String) {
    // Per process: two test runs at once must not share a scratch crate.
    let dir = root()
        .join("target")
        .join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut lib = String::from("#![allow(missing_docs)]\n");
    for (i, module) in modules.iter().enumerate() {
        lib.push_str(&format!("pub mod case_{i:03} {{\n{module}}}\n"));
    }
    let file = dir.join("lib.rs");
    std::fs::write(&file, lib).unwrap();
    let rustdoc = std::env::var_os("RUSTDOC").unwrap_or_else(|| "rustdoc".into());
    let output = std::process::Command::new(rustdoc)
        .args(["--test", "--edition", "2024", "--crate-name", "doc_probe"])
        .arg(&file)
        .args(["--test-args", "--list"])
        .output()
        .expect("rustdoc runs");
    let listed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "rustdoc could not list the doctests of {}:\n{listed}{}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let count = listed.lines().filter(|l| l.ends_with(": test")).count();
    let _ = std::fs::remove_dir_all(&dir);
    (count, listed)
}

/// What an accepted mutation gave: the spec and the code.
struct Accepted {
    spec: String,
    code: String,
}

/// Whether the spec was accepted (`Ok(Some)`) or cleanly refused.
fn check(doc: &Value) -> Result<Option<Accepted>, TestCaseError> {
    let text = serde_json::to_string_pretty(doc).unwrap();
    // Beside the fixtures, so that the split fixture's references to its
    // other files resolve (the file itself is never written).
    let path = &root().join("generator/fixtures/fuzzed.json");
    let fail = |why: String| {
        let file = root().join("target/fuzz-failure.json");
        let _ = std::fs::create_dir_all(file.parent().unwrap());
        let _ = std::fs::write(&file, &text);
        TestCaseError::fail(format!(
            "{why}\n  the spec: {} (reproduce: cargo run -p generator -- target/fuzz-failure.json)",
            file.display()
        ))
    };
    match generator::generate_text_with_warnings(path, text.clone()) {
        Ok(generated) => {
            for warning in &generated.warnings {
                located(doc, warning).map_err(|why| fail(format!("a warning {why}: {warning}")))?;
            }
            accounted(doc, &generated).map_err(fail)?;
            let code = generated.code;
            let file =
                syn::parse_file(&code).map_err(|e| fail(format!("output does not parse: {e}")))?;
            let mut dups = Vec::new();
            duplicates(&file.items, &mut dups);
            if !dups.is_empty() {
                return Err(fail(format!("defined twice: {dups:?}")));
            }
            if let Some(c) = code.chars().find(|c| {
                *c == '\r'
                    || ('\u{202a}'..='\u{202e}').contains(c)
                    || ('\u{2066}'..='\u{2069}').contains(c)
            }) {
                return Err(fail(format!("raw {c:?} in the output")));
            }
            Ok(Some(Accepted { spec: text, code }))
        }
        Err(diagnostic) => {
            if diagnostic.message.starts_with(generator::INTERNAL_ERROR)
                || diagnostic.message.is_empty()
            {
                return Err(fail(format!("not a clean refusal: {diagnostic}")));
            }
            located(doc, &diagnostic)
                .map_err(|why| fail(format!("a refusal {why}: {diagnostic}")))?;
            Ok(None)
        }
    }
}

/// Nothing is dropped in silence: every operation of the document is in
/// the client or named by a warning that it is left out, and the summary
/// counts those. (Documents whose path items are `$ref`s, copied in by
/// the bundler, are counted in the client only.)
fn accounted(doc: &Value, generated: &generator::Generated) -> Result<(), String> {
    const METHODS: &[&str] = &[
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    let left_out = generated
        .warnings
        .iter()
        .filter(|w| w.message.contains("is left out of the client"))
        .count();
    if left_out != generated.degraded.operations {
        return Err(format!(
            "{left_out} operations warned left out, {} counted",
            generated.degraded.operations
        ));
    }
    // Squeezed: a long signature is broken over lines (`&self,`).
    let squeezed: String = generated.code.split_whitespace().collect();
    let in_client = squeezed.matches("(&self)->builder::").count()
        + squeezed.matches("(&self,)->builder::").count();
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return Ok(());
    };
    let items: Vec<&Value> = paths
        .iter()
        .filter(|(key, _)| !key.starts_with("x-"))
        .map(|(_, item)| item)
        .collect();
    if items.iter().any(|item| item.get("$ref").is_some()) {
        return Ok(());
    }
    let written: usize = items
        .iter()
        .filter_map(|item| item.as_object())
        .map(|item| {
            METHODS
                .iter()
                .filter(|m| item.get(**m).is_some_and(Value::is_object))
                .count()
        })
        .sum();
    if written != in_client + left_out {
        return Err(format!(
            "{written} operations written, {in_client} in the client and {left_out} warned left out: some dropped in silence"
        ));
    }
    // Parameters, where every operation is in the client and the document
    // is OpenAPI 3 (a 2.0 body or form parameter becomes a request body):
    // each parameter of an operation has its setter, or a warning that it
    // is left out.
    if left_out > 0 || doc.get("openapi").is_none() {
        return Ok(());
    }
    let Some((written, shared_by)) = written_parameters(doc, paths) else {
        return Ok(());
    };
    let setters = squeezed.matches("(mutself,value:").count()
        - squeezed.matches("pubfnbody(mutself,value:").count();
    // A warning is given once per node: one about a path-level parameter
    // stands for every operation of the path item that takes it.
    let warned: usize = generated
        .warnings
        .iter()
        .filter(|w| w.pointer.contains("/parameters/") && w.message.contains("left out"))
        .map(|w| {
            let segments: Vec<String> = w
                .pointer
                .split('/')
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .collect();
            match segments.as_slice() {
                [_, paths, path, parameters, index, ..]
                    if paths == "paths" && parameters == "parameters" =>
                {
                    index
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| shared_by.get(&(path.clone(), i)).copied())
                        .unwrap_or(1)
                }
                _ => 1,
            }
        })
        .sum();
    if written != setters + warned {
        return Err(format!(
            "{written} parameters written, {setters} setters and {warned} warned left out: some dropped in silence"
        ));
    }
    Ok(())
}

/// (path, index of a path-level parameter) → how many operations take it.
type SharedBy = std::collections::BTreeMap<(String, usize), usize>;

/// The parameters of every operation (path-level ones included, an
/// operation's own overriding one of the same name and location),
/// following local `$ref`s, and for each path-level parameter (path,
/// index) the number of operations that take it; `None` when one cannot
/// be followed.
fn written_parameters(
    doc: &Value,
    paths: &serde_json::Map<String, Value>,
) -> Option<(usize, SharedBy)> {
    const METHODS: &[&str] = &[
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    let resolve = |param: &Value| -> Option<(String, String)> {
        let param = match param.get("$ref") {
            Some(reference) => doc.pointer(reference.as_str()?.strip_prefix('#')?)?,
            None => param,
        };
        Some((
            param.get("name")?.as_str()?.to_owned(),
            param.get("in")?.as_str()?.to_owned(),
        ))
    };
    let list = |value: Option<&Value>| -> Option<Vec<(String, String)>> {
        match value {
            None => Some(Vec::new()),
            Some(Value::Array(params)) => params.iter().map(resolve).collect(),
            Some(_) => None,
        }
    };
    let mut total = 0;
    let mut shared_by = std::collections::BTreeMap::new();
    for (path, item) in paths.iter().filter(|(key, _)| !key.starts_with("x-")) {
        let shared = list(item.get("parameters"))?;
        for method in METHODS {
            let Some(operation) = item.get(*method).filter(|o| o.is_object()) else {
                continue;
            };
            // Every entry of the operation's own list (one given twice is
            // two, one of them warned), and each path-level one it does
            // not override.
            let own = list(operation.get("parameters"))?;
            total += own.len();
            for (i, param) in shared.iter().enumerate() {
                if !own.contains(param) {
                    total += 1;
                    *shared_by.entry((path.clone(), i)).or_insert(0) += 1;
                }
            }
        }
    }
    Some((total, shared_by))
}

/// A message about a node names one that is in the document as written
/// (not one the normaliser made), with its line.
fn located(doc: &Value, diagnostic: &generator::Diagnostic) -> Result<(), String> {
    if diagnostic.pointer.is_empty() {
        return Ok(());
    }
    // A node of another file of a split document: in that file.
    let other: Option<Value> = (!diagnostic.file.ends_with("fuzzed.json"))
        .then(|| std::fs::read_to_string(&diagnostic.file).ok())
        .flatten()
        .and_then(|text| serde_yaml::from_str(&text).ok());
    let doc = other.as_ref().unwrap_or(doc);
    if doc.pointer(&diagnostic.pointer).is_none() {
        return Err(format!(
            "names `{}`, which is not in the document",
            diagnostic.pointer
        ));
    }
    if diagnostic.line.is_none() {
        return Err("names no line".to_owned());
    }
    Ok(())
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

#[test]
fn mutated_specs_compile_or_are_refused() {
    let cases = env_number("GENERATOR_FUZZ_CASES", 256) as u32;
    let seed = env_number("GENERATOR_FUZZ_SEED", 1);
    eprintln!("fuzz: {cases} cases, seed {seed} (GENERATOR_FUZZ_CASES, GENERATOR_FUZZ_SEED)");
    let names = bases();
    let bases: Vec<Value> = names
        .iter()
        .map(|b| serde_yaml::from_str(&std::fs::read_to_string(root().join(b)).unwrap()).unwrap())
        .collect();
    // Unmutated, each base is accepted.
    for (base, doc) in names.iter().zip(&bases) {
        assert!(matches!(check(doc), Ok(Some(_))), "{base}");
    }
    let sample_size = env_number("GENERATOR_FUZZ_COMPILE", 40) as usize;
    let sample = std::cell::RefCell::new(std::collections::BTreeMap::<String, String>::new());
    // The doc comments of every accepted output, for the doctest probe.
    let docs = std::cell::RefCell::new(BTreeSet::<String>::new());
    let mut runner = TestRunner::new(Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..bases.len(), proptest::collection::vec(mutation(), 1..6));
    let (runs, accepted) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    let result = runner.run(&strategy, |(base, mutations)| {
        let mut doc = bases[base].clone();
        for m in &mutations {
            apply(&mut doc, m);
        }
        runs.set(runs.get() + 1);
        if let Some(output) = check(&doc)? {
            accepted.set(accepted.get() + 1);
            docs.borrow_mut().insert(doc_module(&output.code));
            let mut sample = sample.borrow_mut();
            if sample.len() < sample_size {
                // Keyed by the code: the same output twice is compiled once.
                sample.entry(output.code).or_insert(output.spec);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (runs, accepted) = (runs.get(), accepted.get());
    eprintln!("fuzz: {accepted} of {runs} mutated specs accepted, the rest refused");
    let sample = sample.into_inner();
    let docs: Vec<String> = docs.into_inner().into_iter().collect();
    let (found, listed) = doctests("fuzz-doctests", &docs);
    assert_eq!(found, 0, "spec text became doctests:\n{listed}");
    // Mutations that only ever get refused would test the refusals alone.
    assert!(accepted * 10 >= runs, "only {accepted} of {runs} accepted");
    if let Err(failure) = compiles("fuzz-compile", &sample) {
        panic!("{failure}");
    }
}

/// Each output in `sample` (code → spec) compiled as the modules of one
/// crate, warnings denied; a failure names the specs of the modules that did
/// not compile, written out to reproduce with.
///
/// The crate is checked by `rustc` itself against the runtime and serde this
/// test was built beside (they are its dev-dependencies, so `cargo test`
/// has built them in the test binary's own `deps` folder): no second build
/// of the runtime's dependencies. Where they cannot be found there (a test
/// binary copied elsewhere), `cargo check` builds them under its own target.
fn compiles(name: &str, sample: &std::collections::BTreeMap<String, String>) -> Result<(), String> {
    if sample.is_empty() {
        return Ok(());
    }
    // Per process (two test runs at once must not share a scratch crate).
    let dir = root()
        .join("target")
        .join(format!("{name}-{}", std::process::id()));
    let src = dir.join("src");
    let specs = dir.join("specs");
    for stale in [&src, &specs] {
        let _ = std::fs::remove_dir_all(stale);
        std::fs::create_dir_all(stale).unwrap();
    }
    let mut lib =
        String::from("//! Fuzzed outputs of the generator, one module each.\n#![deny(warnings)]\n");
    for (index, (code, spec)) in sample.iter().enumerate() {
        std::fs::write(src.join(format!("case_{index:03}.rs")), code).unwrap();
        std::fs::write(specs.join(format!("case_{index:03}.json")), spec).unwrap();
        lib.push_str(&format!("pub mod case_{index:03};\n"));
    }
    std::fs::write(src.join("lib.rs"), lib).unwrap();
    let output = match built_dependencies(&dir) {
        Some(externs) => rustc_check(&dir, &externs),
        None => cargo_check(&dir, name),
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{name}: {} modules checked", sample.len());
    if output.status.success() {
        // Kept only when it has something to reproduce.
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    } else {
        let failed: BTreeSet<&str> = stderr
            .lines()
            .filter_map(|line| line.split_once("src/case_").map(|(_, rest)| &rest[..3]))
            .collect();
        let specs: Vec<String> = failed
            .iter()
            .map(|case| {
                specs
                    .join(format!("case_{case}.json"))
                    .display()
                    .to_string()
            })
            .collect();
        Err(format!(
            "generated code that does not compile:\n{stderr}\n  the specs: {specs:?} (reproduce: cargo run -p generator -- SPEC)"
        ))
    }
}

/// The generated code's dependencies.
const EXTERNS: [&str; 2] = ["client_runtime", "serde"];

/// The `--extern` arguments for [`EXTERNS`] from the test binary's `deps`
/// folder: for each crate, the newest of its rlibs there with which a probe
/// (a serde derive, a use of the runtime's client) compiles, as a folder can
/// hold builds with other features.
fn built_dependencies(dir: &Path) -> Option<Vec<String>> {
    let deps = std::env::current_exe().ok()?.parent()?.to_owned();
    let mut candidates: Vec<Vec<(std::time::SystemTime, PathBuf)>> = Vec::new();
    for krate in EXTERNS {
        let prefix = format!("lib{krate}-");
        let mut found: Vec<_> = std::fs::read_dir(&deps)
            .ok()?
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().into_string().ok()?;
                (name.starts_with(&prefix) && name.ends_with(".rlib"))
                    .then(|| Some((e.metadata().ok()?.modified().ok()?, e.path())))?
            })
            .collect();
        found.sort_by(|a, b| b.cmp(a));
        candidates.push(found);
    }
    let probe_dir = dir.join("probe");
    std::fs::create_dir_all(probe_dir.join("src")).ok()?;
    std::fs::write(
        probe_dir.join("src/lib.rs"),
        // `set_bearer` is behind the runtime's `client` feature: a runtime
        // built without it (`cargo build -p reference-server` leaves one)
        // is newer than the right one but cannot compile generated clients.
        "#![deny(warnings)]\n#[derive(::serde::Serialize, ::serde::Deserialize)]\npub struct P(::client_runtime::serde_json::Value);\npub use ::client_runtime::set_bearer;\n",
    )
    .ok()?;
    let [runtimes, serdes] = &candidates[..] else {
        return None;
    };
    for (_, runtime) in runtimes.iter().take(3) {
        for (_, serde) in serdes.iter().take(3) {
            let externs = vec![
                format!("-Ldependency={}", deps.display()),
                format!("--extern=client_runtime={}", runtime.display()),
                format!("--extern=serde={}", serde.display()),
            ];
            if rustc_check(&probe_dir, &externs).status.success() {
                return Some(externs);
            }
        }
    }
    None
}

/// `rustc` on `dir/src/lib.rs`, metadata only (as `cargo check` does).
fn rustc_check(dir: &Path, externs: &[String]) -> std::process::Output {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    std::process::Command::new(rustc)
        .args(["--edition=2024", "--crate-type=lib", "--crate-name=fuzzed"])
        .args(["--emit=metadata", "--error-format=short"])
        .arg(format!("--out-dir={}", dir.join("out").display()))
        .args(externs)
        .arg("src/lib.rs")
        .current_dir(dir)
        .output()
        .expect("rustc runs")
}

/// `cargo check` of the crate in `dir`, offline with the workspace's
/// lockfile, its dependencies built under a target dir of their own.
fn cargo_check(dir: &Path, name: &str) -> std::process::Output {
    let runtime = root().join("runtime");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nclient-runtime = {{ path = {runtime:?}, default-features = false, features = [\"client\"] }}\n\
             serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n[workspace]\n",
            runtime = runtime.display().to_string()
        ),
    )
    .unwrap();
    // The workspace's versions, so that nothing new is fetched.
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    std::process::Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--message-format=short"])
        .current_dir(dir)
        .env(
            "CARGO_TARGET_DIR",
            root().join("target/fuzz-compile-target"),
        )
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap()
}

/// The compile check can fail: a type error and a warning are each caught,
/// and named by the spec they came from.
#[test]
fn the_compile_check_catches_errors_and_warnings() {
    let sample = [
        ("pub fn fine() -> u8 {\n    1\n}\n", "{\"fine\": true}"),
        (
            "pub fn wrong() -> u8 {\n    \"x\"\n}\n",
            "{\"wrong\": true}",
        ),
        (
            "pub fn warned() {\n    let unused = 1;\n}\n",
            "{\"warned\": true}",
        ),
    ]
    .into_iter()
    .map(|(code, spec)| (code.to_owned(), spec.to_owned()))
    .collect();
    let failure = compiles("fuzz-compile-check", &sample).unwrap_err();
    assert!(failure.contains("mismatched types"), "{failure}");
    assert!(failure.contains("unused"), "{failure}");
    // Keys sort: `pub fn fine` (case_000), `pub fn warned` (001), `pub fn wrong` (002).
    assert!(
        failure.contains("case_001.json") && failure.contains("case_002.json"),
        "{failure}"
    );
    assert!(!failure.contains("case_000.json"), "{failure}");
    let scratch = format!("target/fuzz-compile-check-{}", std::process::id());
    let _ = std::fs::remove_dir_all(root().join(scratch));
}

/// Code blocks in every place spec text reaches a doc comment (the
/// fixture `doc_code.yaml`) are never doctests; the probe that says so
/// finds them in docs written as they were before they were made inert.
#[test]
fn spec_text_never_becomes_a_doctest() {
    let code = generator::generate(&root().join("generator/fixtures/doc_code.yaml")).unwrap();
    let (found, listed) = doctests("doc-code-doctests", &[doc_module(&code)]);
    assert_eq!(found, 0, "{listed}");
    let raw = "/// ```\n/// assert!(false);\n/// ```\n///\n/// >     quoted();\npub struct A;\n";
    let (found, listed) = doctests("doc-probe-check", &[doc_module(raw)]);
    assert_eq!(found, 2, "{listed}");
}

/// The checks of the fuzz test can fail: a known-bad output is caught.
#[test]
fn the_checks_catch_duplicates() {
    let file =
        syn::parse_file("mod a { struct S { x: u8, x: u8 } enum E { A, A } fn f() {} fn f() {} }")
            .unwrap();
    let mut dups = Vec::new();
    duplicates(&file.items, &mut dups);
    assert_eq!(dups, ["field S.x", "variant E::A", "item f"]);
}

/// Every parameter shape a spec can give, generated and compiled: each
/// location (query, header, path, cookie) × style (`form`,
/// `spaceDelimited`, `pipeDelimited`, `deepObject`; `simple`; in the path
/// also `label` and `matrix`) × `explode`
/// (absent, true, false) × required or not × type (string, integer,
/// number, boolean, an enum, arrays of strings and integers, an object,
/// a free-form object, a nullable string, `content` as JSON). Each is
/// accepted (none refused) and the whole compiles, warnings denied.
#[test]
fn every_parameter_shape_generates_and_compiles() {
    let types = [
        json!({"schema": {"type": "string"}}),
        json!({"schema": {"type": "integer", "format": "int32"}}),
        json!({"schema": {"type": "number"}}),
        json!({"schema": {"type": "boolean"}}),
        json!({"schema": {"$ref": "#/components/schemas/Color"}}),
        json!({"schema": {"type": "array", "items": {"type": "string"}}}),
        json!({"schema": {"type": "array", "items": {"type": "integer"}}}),
        json!({"schema": {"$ref": "#/components/schemas/Filter"}}),
        json!({"schema": {"type": "object", "additionalProperties": true}}),
        json!({"schema": {"type": "string", "nullable": true}}),
        json!({"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Filter"}}}}),
    ];
    let explodes = [None, Some(true), Some(false)];
    let mut paths = serde_json::Map::new();
    let mut count = 0;
    for (location, styles) in [
        (
            "query",
            &["form", "spaceDelimited", "pipeDelimited", "deepObject"][..],
        ),
        ("header", &["simple"][..]),
        ("cookie", &["form"][..]),
        ("path", &["simple", "label", "matrix"][..]),
    ] {
        for style in styles {
            for explode in explodes {
                let mut params = Vec::new();
                let mut template = format!("/{location}/{style}/{explode:?}");
                for required in [true, false] {
                    if location == "path" && !required {
                        continue;
                    }
                    for (t, ty) in types.iter().enumerate() {
                        let name = format!("p{t}{}", if required { "r" } else { "o" });
                        let mut param = json!({"name": name, "in": location, "required": required});
                        if ty.get("schema").is_some() {
                            param["style"] = json!(style);
                            if let Some(explode) = explode {
                                param["explode"] = json!(explode);
                            }
                        }
                        for (k, v) in ty.as_object().unwrap() {
                            param[k] = v.clone();
                        }
                        if location == "path" {
                            template.push_str(&format!("/{{{name}}}"));
                        }
                        params.push(param);
                        count += 1;
                    }
                }
                let id = format!("{location}_{style}_{explode:?}");
                paths.insert(
                    template,
                    json!({"get": {
                        "operationId": id,
                        "parameters": params,
                        "responses": {"204": {"description": "Done."}}
                    }}),
                );
            }
        }
    }
    let doc = json!({
        "openapi": "3.0.3",
        "info": {"title": "Every parameter shape", "version": "1"},
        "paths": paths,
        "components": {"schemas": {
            "Color": {"type": "string", "enum": ["red", "green"]},
            "Filter": {"type": "object", "properties": {
                "name": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}
            }}
        }}
    });
    eprintln!("parameter shapes: {count} parameters");
    let accepted = check(&doc)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| {
            let text = serde_json::to_string_pretty(&doc).unwrap();
            let refusal = generator::generate_text(Path::new("shapes.json"), text).unwrap_err();
            panic!("a parameter shape was refused: {refusal}")
        });
    let sample = [(accepted.code, accepted.spec)].into_iter().collect();
    if let Err(failure) = compiles("fuzz-compile-params", &sample) {
        panic!("{failure}");
    }
}

/// Where hostile text opens a line: after nothing, after line breaks of
/// every spelling, inside a list item or a quote, after a paragraph.
const LEADS: &[&str] = &[
    "", "\n", "\n\n", "T\n\n", "T\n", "- x\n\n", "> ", "1. x\n\n", "\r\n\r\n", "\r", "\u{2028}",
    "\u{85}", "<p>\n\n", "* ", " ",
];

/// What a line of code is indented by.
const INDENTS: &[&str] = &[
    "",
    "    ",
    "        ",
    "\t",
    " \t",
    "   \t",
    "\u{b}    ",
    "\u{a0}    ",
];

/// How a line of code is wrapped: bare, or fenced in each spelling.
const FENCES: &[(&str, &str)] = &[
    ("", ""),
    ("```\n", "\n```"),
    ("```rust\n", "\n```"),
    ("~~~\n", "\n~~~"),
    ("````\n", "\n````"),
    ("``` should_panic\n", ""),
];

/// Every place spec text reaches a doc comment, with the text `text(place)`.
fn hostile_spec(text: &dyn Fn(&str) -> String) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": text("title"), "version": "1", "description": text("info-description")},
        "servers": [{"url": "http://localhost", "description": text("server")}],
        "paths": {"/things/{id}": {
            "get": {
                "operationId": "getThing",
                "summary": text("summary"),
                "description": text("op-description"),
                "parameters": [
                    {"name": "id", "in": "path", "required": true,
                     "description": text("path-param"), "schema": {"type": "string"}},
                    {"name": "q", "in": "query", "description": text("query-param"),
                     "schema": {"type": "string"}}
                ],
                "responses": {"200": {
                    "description": text("response"),
                    "headers": {"X-Rate": {"description": text("header"), "schema": {"type": "integer"}}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}
                }}
            },
            "post": {
                "operationId": "putThing",
                "summary": text("post-summary"),
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "requestBody": {"description": text("body"), "required": true,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                "responses": {"204": {"description": text("no-content")}}
            }
        }},
        "components": {
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key",
                "description": text("scheme")}},
            "schemas": {
                "Thing": {"type": "object", "description": text("schema"),
                    "properties": {"kind": {"$ref": "#/components/schemas/Kind"},
                        "name": {"type": "string", "description": text("property")}}},
                "Kind": {"type": "string", "enum": ["a", "b"], "description": text("enum")}
            }
        },
        "security": [{"key": []}]
    })
}

/// Hostile titles and descriptions never run as code, in a crate that
/// includes the generated modules as a user's would, under `cargo test
/// --doc` (its `rustdoc --test`, run here against the dependencies this
/// test was built beside, or `cargo test --doc` itself when they cannot be
/// found). Every lead × indentation × fence of the tables above is one
/// text, and each places its own text in every place spec text reaches a
/// doc comment; the text's code writes a marker file naming its case and
/// place, so a doctest that ran says which. Half the modules are included
/// under a user's doc comment written without a space (`///Docs`), which
/// makes rustdoc remove no indentation. A control module with a real
/// doctest proves that the crate's doctests do run.
#[test]
fn hostile_spec_text_never_runs_under_cargo_test_doc() {
    let dir = root()
        .join("target")
        .join(format!("doctest-crate-{}", std::process::id()));
    let (src, markers) = (dir.join("src"), dir.join("markers"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&markers).unwrap();
    let code = |id: &str| {
        format!(
            "std::fs::write({:?}, \"\").unwrap();",
            markers.join(id).display().to_string()
        )
    };
    let mut texts = Vec::new();
    for lead in LEADS {
        for indent in INDENTS {
            for (open, close) in FENCES {
                texts.push((*lead, *indent, *open, *close));
            }
        }
    }
    let places = 16;
    let mut lib = String::from("//! Generated modules from hostile specs.\n");
    let mut specs = 0;
    for (case, chunk) in texts.chunks(places).enumerate() {
        let place_index = std::cell::Cell::new(0usize);
        let text = |place: &str| {
            let i = place_index.get();
            place_index.set(i + 1);
            let (lead, indent, open, close) = chunk[i % chunk.len()];
            let id = format!("case{case:03}-{place}");
            format!("{lead}{open}{indent}{}{close}", code(&id))
        };
        let spec = hostile_spec(&text);
        let path = dir.join(format!("case_{case:03}.json"));
        let json = serde_json::to_string_pretty(&spec).unwrap();
        std::fs::write(&path, &json).unwrap();
        let module = generator::generate_text(&path, json)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        std::fs::write(src.join(format!("case_{case:03}.rs")), module).unwrap();
        let outer = if case % 2 == 0 { "///Docs.\n///\n" } else { "" };
        lib.push_str(&format!("{outer}pub mod case_{case:03};\n"));
        specs += 1;
    }
    // The control: a real doctest, which must run.
    let control = code("control");
    lib.push_str(&format!(
        "/// ```\n/// {control}\n/// ```\npub struct Control;\n"
    ));
    std::fs::write(src.join("lib.rs"), &lib).unwrap();
    let output = run_doctests(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let ran: Vec<String> = std::fs::read_dir(&markers)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        output.status.success(),
        "the doctests did not build or pass:\n{stdout}\n{stderr}"
    );
    assert!(
        ran.contains(&"control".to_owned()),
        "the control doctest did not run: the probe cannot see a doctest\n{stdout}\n{stderr}"
    );
    let spec_ran: Vec<&String> = ran.iter().filter(|m| *m != "control").collect();
    assert!(
        spec_ran.is_empty(),
        "spec text ran as doctests (case-place; the specs are in {}): {spec_ran:?}\n{stdout}",
        dir.display()
    );
    eprintln!(
        "doctests: {} hostile texts in {specs} generated modules, none ran",
        texts.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `cargo test --doc` does for the crate in `dir`: `rustdoc --test`
/// against the runtime and serde this test was built beside; or, where
/// they cannot be found, `cargo test --doc` itself under a target of its own.
fn run_doctests(dir: &Path) -> std::process::Output {
    match built_dependencies(dir) {
        Some(externs) => {
            let rustdoc = std::env::var_os("RUSTDOC").unwrap_or_else(|| "rustdoc".into());
            std::process::Command::new(rustdoc)
                .args([
                    "--test",
                    "--edition",
                    "2024",
                    "--crate-name",
                    "doctest_probe",
                ])
                .args(&externs)
                .arg("src/lib.rs")
                .current_dir(dir)
                .output()
                .expect("rustdoc runs")
        }
        None => {
            let runtime = root().join("runtime");
            std::fs::write(
                dir.join("Cargo.toml"),
                format!(
                    "[package]\nname = \"doctest-probe\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
                     [dependencies]\nclient-runtime = {{ path = {:?}, default-features = false, features = [\"client\"] }}\n\
                     serde = {{ version = \"1\", features = [\"derive\"] }}\n\n[workspace]\n",
                    runtime.display().to_string()
                ),
            )
            .unwrap();
            std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            std::process::Command::new(cargo)
                .args(["test", "--doc", "--offline", "--quiet"])
                .current_dir(dir)
                .env(
                    "CARGO_TARGET_DIR",
                    root().join("target/fuzz-compile-target"),
                )
                .env_remove("RUSTFLAGS")
                .output()
                .unwrap()
        }
    }
}
