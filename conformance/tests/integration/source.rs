//! rustfmt gives up, silently, on an expression with a string literal too
//! long for the line (rust-lang/rustfmt#3863): the whole struct literal is
//! left as written and `cargo fmt --check` passes. Struct literals are how
//! checks are declared, so a check pasted at column 0 would stay there. This
//! test finds what rustfmt left unformatted: a field written at column 0.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `name: value` at column 0 (an item never starts so).
fn unformatted_field(line: &str) -> bool {
    let Some((name, _)) = line.split_once(": ") else {
        return false;
    };
    !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

#[test]
fn every_struct_literal_is_formatted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in [
        "conformance",
        "conformance/model",
        "conformance/wire",
        "conformance/suite",
        "conformance/report",
        "generator",
        "reference-server",
        "runtime",
        "yaml-location",
    ] {
        rust_files(&root.join(krate).join("src"), &mut files);
        rust_files(&root.join(krate).join("tests"), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        for (i, line) in code_lines(&text) {
            if unformatted_field(line) {
                found.push(format!("{}:{}: {line}", f.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "rustfmt left these unformatted (a line too long for it, usually a string: indent the literal by hand or move the string to a const):\n{}",
        found.join("\n")
    );
}

/// The lines of `text` that start outside a string literal (a line inside
/// a multi-line string may start with anything), with their index.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    // `None`: code; `Some(n)`: inside a string closed by `"` and n `#`s.
    let mut string: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        if string.is_none() {
            out.push((i, line));
        }
        let b = line.as_bytes();
        let mut j = 0;
        while j < b.len() {
            match string {
                None => match b[j] {
                    b'/' if b.get(j + 1) == Some(&b'/') => break,
                    b'\'' if b.get(j + 2) == Some(&b'\'') => j += 2,
                    b'\'' if b.get(j + 1) == Some(&b'\\') && b.get(j + 3) == Some(&b'\'') => j += 3,
                    b'"' => string = Some(0),
                    b'r' if !b
                        .get(j.wrapping_sub(1))
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') =>
                    {
                        let hashes = b[j + 1..].iter().take_while(|c| **c == b'#').count();
                        if b.get(j + 1 + hashes) == Some(&b'"') {
                            string = Some(hashes);
                            j += 1 + hashes;
                        }
                    }
                    _ => {}
                },
                Some(0) => match b[j] {
                    b'\\' => j += 1,
                    b'"' => string = None,
                    _ => {}
                },
                Some(n) => {
                    if b[j] == b'"'
                        && b[j + 1..].iter().take(n).filter(|c| **c == b'#').count() == n
                    {
                        string = None;
                        j += n;
                    }
                }
            }
            j += 1;
        }
    }
    out
}

#[test]
fn the_detector_sees_a_field_at_column_0() {
    let text = "let a = \"\nbase_url: x\n\";\nid: 1\nlet b = r#\"\nkey: \"v\"\n\"#;\n";
    let lines: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(lines, ["let a = \"", "id: 1", "let b = r#\""]);
    assert!(unformatted_field("id: \"refs/by-name\".into(),"));
    assert!(!unformatted_field("    id: \"refs/by-name\".into(),"));
    assert!(!unformatted_field("// note: x"));
    assert!(!unformatted_field("pub fn x() {}"));
}

/// The top-level module a source file belongs to (`src/checks/refs.rs` ->
/// `checks`); `None` for a crate root.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
    (!matches!(name.as_str(), "lib" | "main")).then_some(name)
}

/// The modules a file's code (not its comments, not its unit tests) takes
/// names from: every `crate::NAME`.
fn imported_modules(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let mut out = Vec::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// A cycle of `graph` (module -> the modules it imports), as the modules
/// in turn, if there is one.
fn a_cycle(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Option<Vec<String>> {
    fn visit(
        graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        node: &str,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(graph, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(graph, n, &mut Vec::new(), &mut done))
}

/// The stages stay apart: no crate of the workspace has an import cycle
/// between its top-level modules (profile -> checks -> exchanges -> report
/// flows one way; the reference server's seams know no fault). A backward
/// import that closes a loop fails here, naming the loop.
#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for krate in [
        "conformance/model",
        "conformance/wire",
        "conformance/suite",
        "conformance/report",
        "conformance",
        "reference-server",
        "generator",
        "runtime",
        "yaml-location",
    ] {
        let src = root.join(krate).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        assert!(!files.is_empty(), "{krate}: no source found");
        let modules: std::collections::BTreeSet<String> =
            files.iter().filter_map(|f| top_module(&src, f)).collect();
        let mut graph: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
            std::collections::BTreeMap::new();
        for file in &files {
            let Some(from) = top_module(&src, file) else {
                continue;
            };
            let text = std::fs::read_to_string(file).expect("a source file");
            for to in imported_modules(&text) {
                if to != from && modules.contains(&to) {
                    graph.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        if let Some(cycle) = a_cycle(&graph) {
            panic!(
                "{krate}: modules import each other in a loop: {}",
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn the_cycle_detector_finds_a_loop_and_only_a_loop() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
            std::collections::BTreeMap::new();
        for (a, b) in edges {
            g.entry((*a).to_owned())
                .or_default()
                .insert((*b).to_owned());
        }
        g
    };
    assert_eq!(a_cycle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
    let found = a_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])).expect("a loop");
    assert_eq!(found.first(), found.last());
    assert_eq!(found.len(), 4);
    assert_eq!(
        imported_modules(
            "use crate::a::B;\n// crate::z\nlet x = crate::c::d();\n#[cfg(test)]\nmod tests {\n use crate::e;\n}"
        ),
        ["a", "c"]
    );
}

/// A report line's id greps to where its check is declared: every id of
/// the catalogue is a string literal in the code (not the unit tests) of
/// the conformance crates, never put together with `format!`.
#[test]
fn every_check_id_is_a_literal_in_the_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in ["", "model", "wire", "suite", "report", "traffic"] {
        rust_files(
            &root.join("conformance").join(krate).join("src"),
            &mut files,
        );
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let code: String = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("a source file");
            let code = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or(&text);
            code.to_owned()
        })
        .collect();
    let missing: Vec<&str> = conformance_suite::checks::catalogue()
        .iter()
        .map(|c| c.id)
        .filter(|id| !code.contains(&format!("\"{id}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "check ids not written as a literal anywhere in the sources (write each out where the check is declared): {}",
        missing.join(", ")
    );
}

/// What in `text` (a source file of the report crate) would make a
/// verdict rather than show one, outside its comments and unit tests:
/// a look-up in the catalogue (results carry their check's anchor), an
/// exit code decided (the suite's gate decides it), a status set (the
/// runner judges, a baseline marks).
fn verdicts_in(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut found = Vec::new();
    for (i, line) in code.lines().enumerate() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let marks_a_status = line
            .match_indices(".status =")
            .any(|(at, m)| !line[at + m.len()..].starts_with('='))
            || line.contains("status: Status::");
        for (what, seen) in [
            ("calls the catalogue", line.contains("catalogue(")),
            (
                "reads the checks",
                line.contains("conformance_suite::checks"),
            ),
            (
                "decides an exit code",
                [
                    "fn exit_code",
                    "fn judged_no_must",
                    "ExitCode",
                    "process::exit",
                ]
                .iter()
                .any(|p| line.contains(p)),
            ),
            ("sets a status", marks_a_status),
        ] {
            if seen {
                found.push(format!("line {}: {what}: {line}", i + 1));
            }
        }
    }
    found
}

/// The report crate shows a run and holds no verdict: its code (not its
/// unit tests) never looks a check up in the catalogue, never decides the
/// exit code and never sets a result's status. The suite does all three
/// (`results`, `gate`, `baseline`), below it.
#[test]
fn the_report_crate_holds_no_verdict() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("report/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 5, "found only {} files", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).expect("a source file");
            let shown = f.strip_prefix(&src).unwrap_or(f).display().to_string();
            verdicts_in(&text)
                .into_iter()
                .map(move |v| format!("report/src/{shown}: {v}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "the report crate makes a verdict (move it to conformance-suite):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_verdict_detector_sees_each_kind_and_only_in_code() {
    let text = "use conformance_suite::checks::catalogue;\n\
                fn f(r: &mut R) {\n\
                    let all = catalogue();\n\
                    r.status = Status::Known;\n\
                    if r.status == Status::Failed {}\n\
                    // catalogue() in a comment\n\
                }\n\
                pub fn exit_code(&self) -> i32 { 0 }\n\
                #[cfg(test)]\n\
                mod tests { fn t() { let _ = catalogue(); } }\n";
    let found = verdicts_in(text);
    let lines: Vec<&str> = found
        .iter()
        .map(|f| f.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(lines, ["line 1", "line 3", "line 4", "line 8"], "{found:?}");
    assert!(found[0].contains("reads the checks"), "{found:?}");
    assert!(found[2].contains("sets a status"), "{found:?}");
    assert!(found[3].contains("decides an exit code"), "{found:?}");
}

/// A new choice is one row of the table (`conformance/model/src/choices.rs`:
/// its key, type, ours, how it is read, its node of `spec/openapi.yaml`),
/// its observer (`conformance/suite/src/observe/rows.rs`) and its checks (under
/// `conformance/suite/src/checks/`): no other code of the runner names a
/// key, as the SARIF node, the printed block and what a warned run proposes
/// all come from the row. `model_uuid`, which a run looks for itself before
/// it sends an Authorize, is the one key the runner names.
#[test]
fn a_choice_is_named_by_its_row_its_observer_and_its_checks_only() {
    use conformance_model::choices::ChoiceKey;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in ["", "model", "wire", "suite", "report", "traffic"] {
        rust_files(
            &root.join("conformance").join(krate).join("src"),
            &mut files,
        );
    }
    let own = |f: &Path| {
        let f = f.to_string_lossy().replace('\\', "/");
        f.ends_with("conformance/model/src/choices.rs")
            || f.ends_with("conformance/suite/src/observe/rows.rs")
            || f.contains("conformance/suite/src/checks/")
    };
    let mut named = Vec::new();
    for f in files.iter().filter(|f| !own(f)) {
        let text = std::fs::read_to_string(f).expect("a source file");
        let code = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or(&text);
        for key in ChoiceKey::ALL
            .iter()
            .filter(|k| **k != ChoiceKey::ModelUuid)
        {
            let variant = format!("{key:?}");
            let names = |prefix: &str| {
                code.match_indices(&format!("{prefix}::{variant}"))
                    .any(|(i, m)| {
                        let before = code[..i].chars().next_back();
                        let after = code[i + m.len()..].chars().next();
                        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    })
            };
            if names("ChoiceKey") || names("K") {
                named.push(format!("{}: {variant}", f.display()));
            }
        }
    }
    assert!(
        named.is_empty(),
        "a choice named outside its row, its observer and its checks (put what it says in its row of conformance/model/src/choices.rs):\n{}",
        named.join("\n")
    );
}

/// The README's table of choices has a row for every key of the table, and
/// only those.
#[test]
fn the_readme_lists_every_choice() {
    use conformance_model::choices::ChoiceKey;
    let readme = include_str!("../../README.md");
    let section = readme
        .split("\n## Choices: a server that chose differently")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the Choices section of conformance/README.md");
    let mut listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .flat_map(|first| first.split(", "))
        .filter_map(|k| k.strip_prefix('`')?.strip_suffix('`'))
        .collect();
    listed.sort_unstable();
    let mut keys: Vec<&str> = ChoiceKey::ALL.iter().map(|k| k.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(listed, keys);
}

/// The code of a source file, without its unit tests.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(&text)
        .to_owned()
}

/// Every string literal of `code` (plain ones: ids are never raw strings).
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (_, line) in code_lines(code) {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find('"') {
            let after = &rest[at + 1..];
            let Some(end) = after.find('"') else { break };
            out.push(after[..end].to_owned());
            rest = &after[end + 1..];
        }
    }
    out
}

/// The file is the id: every check's id is written out in the code of
/// `conformance/suite/src/checks/<first segment>.rs` (`-` as `_`), and no
/// file of checks writes out the id of a check another file should hold.
#[test]
fn each_id_is_declared_in_the_file_its_first_segment_names() {
    let checks = Path::new(env!("CARGO_MANIFEST_DIR")).join("suite/src/checks");
    let catalogue = conformance_suite::checks::catalogue();
    let mut wrong = Vec::new();
    for c in &catalogue {
        let prefix = c.id.split('/').next().unwrap_or_default();
        let file = checks.join(format!("{}.rs", prefix.replace('-', "_")));
        if !file.exists() {
            wrong.push(format!("{}: no file {}", c.id, file.display()));
        } else if !code_of(&file).contains(&format!("\"{}\"", c.id)) {
            wrong.push(format!("{}: not written out in {}", c.id, file.display()));
        }
    }
    let mut files = Vec::new();
    rust_files(&checks, &mut files);
    for file in &files {
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        for literal in string_literals(&code_of(file)) {
            let Some(c) = catalogue.iter().find(|c| c.id == literal) else {
                continue;
            };
            if c.id.split('/').next() != Some(stem.replace('_', "-").as_str()) {
                wrong.push(format!("{}: declared in {}", c.id, file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "an id's first segment names the file that declares it (checks/near_miss.rs declares near-miss/...): move these checks, or rename the file:\n{}",
        wrong.join("\n")
    );
}

/// One way to declare a check: a `CaseCheck` (a run of its own as
/// `Sends::Own`), rendered into a `Check` by `case/mod.rs` alone; no other
/// source of the suite writes a `Check { .. }` literal.
#[test]
fn a_check_is_declared_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("suite/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("case/mod.rs")) {
        let code = code_of(file);
        for (i, line) in code_lines(&code) {
            let line = line.split("//").next().unwrap_or_default();
            if check_literal(line) {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "declare these as a CaseCheck (a run of its own: Sends::Own), in the file its id names:\n{}",
        found.join("\n")
    );
}

/// `line` opens a `Check { .. }` literal (not `CaseCheck {`, not the
/// struct's own `struct Check {` or `impl .. for Check {`, not a function
/// returning one, `-> Check {`).
fn check_literal(line: &str) -> bool {
    line.match_indices("Check {").any(|(at, _)| {
        let before = &line[..at];
        let glued = before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let word = before.split_whitespace().next_back().unwrap_or_default();
        !glued && !matches!(word, "struct" | "impl" | "for" | "->")
    })
}

#[test]
fn the_literal_detector_sees_a_check_and_only_a_check() {
    assert!(check_literal("        Check {"));
    assert!(check_literal("    out.push(Check {"));
    assert!(check_literal("        .map(|(index, inv)| Check {"));
    assert!(check_literal("    crate::catalogue::Check {"));
    assert!(!check_literal("        CaseCheck {"));
    assert!(!check_literal("pub struct Check {"));
    assert!(!check_literal("impl std::fmt::Debug for Check {"));
    assert!(!check_literal("impl Check {"));
    assert!(!check_literal(
        "fn status_check(row: &'static StatusChoice) -> Check {"
    ));
}
