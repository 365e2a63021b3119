//! `generator --server`, input and expected output paired: every fixture
//! spec's server module is checked in at `generator/expected/server/NAME.rs`
//! (which `generator-expected` compiles beside the fixture's client types,
//! linted with `-D warnings` like the rest of the workspace), the real
//! spec's at `bindings/src/generated_server.rs`; each must be what the
//! generator writes today, byte for byte, run after run. The fixtures named
//! `corpus_*` are real public documents (`generator/fixtures/corpus.md`).
//!
//! Spec text in the server output is never a doctest: rustdoc lists none
//! in the doc comments of the outputs of the fixtures written to hold code
//! (`doc_code`, `hostile`).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (spec, checked-in server output) pairs, relative to the workspace root.
fn pairs() -> Vec<(String, String)> {
    let mut pairs = vec![(
        "spec/openapi.yaml".to_owned(),
        "bindings/src/generated_server.rs".to_owned(),
    )];
    let mut fixtures: Vec<(String, String)> = std::fs::read_dir(root().join("generator/fixtures"))
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            let ext = path.extension()?.to_str()?;
            let name = path.file_name()?.to_str()?.to_owned();
            let stem = path.file_stem()?.to_str()?.to_owned();
            matches!(ext, "yaml" | "yml" | "json").then(|| {
                (
                    format!("generator/fixtures/{name}"),
                    format!("generator/expected/server/{stem}.rs"),
                )
            })
        })
        .collect();
    fixtures.sort();
    pairs.extend(fixtures);
    pairs
}

fn generate(spec: &str) -> String {
    let options = generator::Options {
        server: true,
        ..Default::default()
    };
    generator::generate_with_options(&root().join(spec), &options)
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
        .code
}

#[test]
fn checked_in_server_outputs_are_fresh_and_the_same_run_after_run() {
    for (spec, output) in pairs() {
        let expected = generate(&spec);
        assert_eq!(expected, generate(&spec), "{spec}: not deterministic");
        let help = format!("run `cargo run -p generator -- {spec} --server --out {output}`");
        let actual = std::fs::read_to_string(root().join(&output))
            .unwrap_or_else(|_| panic!("{output} is missing; {help}"));
        assert!(
            actual == expected,
            "{output} is stale; {help}\n{}",
            generator::diff::short(&actual, &expected, 40)
        );
    }
}

#[test]
fn every_server_output_has_a_fixture() {
    let outputs: Vec<String> = pairs().into_iter().map(|(_, o)| o).collect();
    for entry in std::fs::read_dir(root().join("generator/expected/server")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let output = format!("generator/expected/server/{name}");
        assert!(
            outputs.contains(&output),
            "{output} has no fixture in generator/fixtures/"
        );
    }
}

#[test]
fn the_cli_writes_the_server_and_checks_it() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_generator"))
        .arg(root().join("spec/openapi.yaml"))
        .arg("--server")
        .arg("--check")
        .arg(root().join("bindings/src/generated_server.rs"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The client's check is another file: the server's output is stale for it.
    let client = std::process::Command::new(env!("CARGO_BIN_EXE_generator"))
        .arg(root().join("spec/openapi.yaml"))
        .arg("--server")
        .arg("--check")
        .arg(root().join("bindings/src/generated.rs"))
        .output()
        .unwrap();
    assert_eq!(client.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&client.stderr).contains("--server"));
}

#[test]
fn spec_text_in_the_server_output_is_never_a_doctest() {
    for fixture in ["doc_code", "hostile"] {
        let code = generate(&format!("generator/fixtures/{fixture}.yaml"));
        let probe = doc_module(&code);
        assert!(probe.contains("#[doc"), "{fixture}: no doc comment found");
        let (found, listed) = doctests(&format!("server-doctests-{fixture}"), &probe);
        assert_eq!(found, 0, "{fixture}: rustdoc finds doctests:\n{listed}");
    }
}

/// Every doc comment of `code` (the file's, its items', their fields',
/// variants' and methods'), each group on an item of its own in a module
/// with no dependencies, so rustdoc can list the doctests they hold without
/// compiling the code.
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
    let file = syn::parse_file(code).expect("the output parses");
    let mut groups = vec![docs(&file.attrs)];
    for item in &file.items {
        match item {
            syn::Item::Struct(s) => {
                groups.push(docs(&s.attrs));
                groups.extend(s.fields.iter().map(|f| docs(&f.attrs)));
            }
            syn::Item::Enum(e) => {
                groups.push(docs(&e.attrs));
                groups.extend(e.variants.iter().map(|v| docs(&v.attrs)));
            }
            syn::Item::Trait(t) => {
                groups.push(docs(&t.attrs));
                for item in &t.items {
                    if let syn::TraitItem::Fn(f) = item {
                        groups.push(docs(&f.attrs));
                    }
                }
            }
            syn::Item::Fn(f) => groups.push(docs(&f.attrs)),
            syn::Item::Const(c) => groups.push(docs(&c.attrs)),
            _ => {}
        }
    }
    let mut out = String::new();
    for (i, group) in groups.iter().enumerate().filter(|(_, g)| !g.is_empty()) {
        for line in group {
            out.push_str(&format!("#[doc = {line:?}]\n"));
        }
        out.push_str(&format!("pub struct Doc{i};\n"));
    }
    out
}

/// How many doctests rustdoc lists in `module` (never compiled nor run),
/// and the list.
fn doctests(name: &str, module: &str) -> (usize, String) {
    let dir = root()
        .join("target")
        .join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lib.rs");
    std::fs::write(&file, format!("#![allow(missing_docs)]\n{module}")).unwrap();
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
