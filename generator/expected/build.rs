//! Finds the modules of this crate: every `src/*.rs` but `lib.rs` is the
//! generator's output for the fixture of the same name, so adding a
//! fixture's output is adding its file, with no list to keep. Every
//! `server/*.rs` is the same fixture's `generator --server` output, placed
//! beside its client's `types` (`NAME_server::server`).

use std::fmt::Write;
use std::path::Path;

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    println!("cargo::rerun-if-changed={}", src.display());
    let mut names: Vec<String> = std::fs::read_dir(&src)
        .expect("generator/expected/src is readable")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let stem = path.file_stem()?.to_str()?.to_owned();
            (path.extension()? == "rs" && stem != "lib").then_some(stem)
        })
        .collect();
    names.sort();
    let mut modules = String::new();
    for name in names {
        let path = src.join(format!("{name}.rs"));
        writeln!(
            modules,
            "#[path = {:?}]\npub mod {name};",
            path.display().to_string()
        )
        .unwrap();
    }
    let servers = Path::new(env!("CARGO_MANIFEST_DIR")).join("server");
    println!("cargo::rerun-if-changed={}", servers.display());
    let mut server_names: Vec<String> = std::fs::read_dir(&servers)
        .expect("generator/expected/server is readable")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let stem = path.file_stem()?.to_str()?.to_owned();
            (path.extension()? == "rs").then_some(stem)
        })
        .collect();
    server_names.sort();
    for name in server_names {
        let path = servers.join(format!("{name}.rs"));
        writeln!(
            modules,
            "pub mod {name}_server {{\n    pub use super::{name}::types;\n    #[path = {:?}]\n    pub mod server;\n}}",
            path.display().to_string()
        )
        .unwrap();
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("modules.rs");
    std::fs::write(out, modules).expect("OUT_DIR is writable");
}
