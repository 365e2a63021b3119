//! Compiling generated code in a test: `rustc` against the runtime and
//! serde built beside the test (the generator's dev-dependencies), metadata
//! only, as `cargo check` does: no second build of any dependency.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `rustc` on `dir/file`, metadata only, into `dir/out`.
pub fn rustc(dir: &Path, name: &str, file: &str, externs: &[String], more: &[String]) -> Output {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    Command::new(rustc)
        .args(["--edition=2024", "--crate-type=lib", "--emit=metadata"])
        .arg(format!("--crate-name={name}"))
        .arg("--error-format=short")
        .arg(format!("--out-dir={}", dir.join("out").display()))
        .args(externs)
        .args(more)
        .arg(file)
        .current_dir(dir)
        .output()
        .expect("rustc runs")
}

/// `--extern` arguments for the runtime and serde, from the test binary's
/// `deps` folder: for each, the newest of its builds there with which a
/// probe (a serde derive, a use of the runtime's client) compiles, as a
/// folder can hold builds with other features.
pub fn dependencies(dir: &Path) -> Vec<String> {
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_owned();
    let newest = |krate: &str| {
        let prefix = format!("lib{krate}-");
        let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&deps)
            .unwrap()
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().into_string().ok()?;
                (name.starts_with(&prefix) && name.ends_with(".rlib"))
                    .then(|| Some((e.metadata().ok()?.modified().ok()?, e.path())))?
            })
            .collect();
        found.sort_by(|a, b| b.cmp(a));
        found
    };
    let probe = dir.join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    std::fs::write(
        probe.join("probe.rs"),
        "#![deny(warnings)]\n#[derive(::serde::Serialize, ::serde::Deserialize)]\npub struct P(::client_runtime::serde_json::Value);\npub use ::client_runtime::set_bearer;\n",
    )
    .unwrap();
    for (_, runtime) in newest("client_runtime").iter().take(3) {
        for (_, serde) in newest("serde").iter().take(3) {
            let externs = vec![
                format!("-Ldependency={}", deps.display()),
                format!("--extern=client_runtime={}", runtime.display()),
                format!("--extern=serde={}", serde.display()),
            ];
            if rustc(&probe, "probe", "probe.rs", &externs, &[])
                .status
                .success()
            {
                return externs;
            }
        }
    }
    panic!(
        "no build of client-runtime (feature `client`) and serde in {}",
        deps.display()
    );
}
