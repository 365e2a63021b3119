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
