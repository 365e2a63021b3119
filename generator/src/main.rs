//! `generator SPEC [--out FILE | --check FILE] [--overlay FILE]...`: a thin
//! shell over the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// mimalloc: generation is allocation-heavy (every item is printed as
/// tokens, parsed and printed again), and mimalloc's per-thread heaps serve
/// the formatting threads about a quarter faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Reads an OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON) and emits Rust bindings.
///
/// Exit codes: 0 done (or fresh with --check), 1 stale with --check,
/// 2 bad input or a file that cannot be written.
#[derive(Parser)]
#[command(version)]
struct Cli {
    /// The OpenAPI 3.0, 3.1 or 3.2 document (or Swagger 2.0).
    spec: PathBuf,
    /// Write the bindings to FILE (default: standard output).
    #[arg(long, value_name = "FILE", conflicts_with = "check")]
    out: Option<PathBuf>,
    /// Compare FILE with what would be generated; exit 1 with a diff when
    /// stale, and whether the change is additive or breaking for code
    /// that uses the bindings.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
    /// Compile the client (and everything but the types) only with the
    /// cargo feature NAME of the crate the code goes into.
    #[arg(long, value_name = "NAME")]
    client_feature: Option<String>,
    /// Refuse the spec at its first warning, as an error (exit code 2).
    #[arg(long)]
    strict: bool,
    /// Read files that `$ref`s name anywhere under DIR (by default, only
    /// under the spec's own folder).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Apply the OpenAPI Overlay 1.0 document FILE to the spec before
    /// reading it (a server's choices: `conformance choices --overlay`);
    /// repeatable, applied in the order given.
    #[arg(long, value_name = "FILE")]
    overlay: Vec<PathBuf>,
    /// Write a server module for axum (a trait to implement, a router that
    /// reads and checks every input) instead of the client. It refers to
    /// the client's types as `super::types`: place it beside them.
    #[arg(long, conflicts_with = "client_feature")]
    server: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let options = generator::Options {
        client_feature: cli.client_feature.clone(),
        strict: cli.strict,
        root: cli.root.clone(),
        overlays: cli.overlay.clone(),
        server: cli.server,
    };
    let code = match generator::generate_with_options(&cli.spec, &options) {
        Err(diagnostic) => {
            eprintln!("{diagnostic}");
            return ExitCode::from(2);
        }
        Ok(generated) => {
            for warning in &generated.warnings {
                eprintln!("{}", warning.as_warning());
            }
            if !generated.degraded.is_empty() {
                eprintln!("degraded: {}", generated.degraded);
            }
            generated.code
        }
    };
    if let Some(path) = &cli.check {
        return match std::fs::read_to_string(path) {
            Ok(existing) if existing == code => ExitCode::SUCCESS,
            Ok(existing) => {
                eprintln!(
                    "{} is stale: regenerate it from {}",
                    path.display(),
                    cli.spec.display()
                );
                // The diff's first lines, then what kind of change it is.
                eprint!("{}", generator::diff::short(&existing, &code, 30));
                if let Some(change) = generator::compat::classify(&existing, &code) {
                    eprintln!("{}", change.describe(6));
                }
                let mut feature = cli
                    .client_feature
                    .as_ref()
                    .map(|name| format!(" --client-feature {name}"))
                    .unwrap_or_default();
                if cli.server {
                    feature.push_str(" --server");
                }
                for overlay in &cli.overlay {
                    feature.push_str(&format!(" --overlay {}", overlay.display()));
                }
                eprintln!(
                    "help: cargo run -p generator -- {}{feature} --out {}",
                    cli.spec.display(),
                    path.display()
                );
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!(
                    "error: {}: cannot read the file to check: {e}",
                    path.display()
                );
                ExitCode::from(2)
            }
        };
    }
    match &cli.out {
        Some(path) => match write_if_changed(path, &code) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {}: cannot write the bindings: {e}", path.display());
                ExitCode::from(2)
            }
        },
        None => {
            use std::io::Write;
            match std::io::stdout().write_all(code.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::from(2),
            }
        }
    }
}

/// Writes through a temporary file and a rename, so an interrupted run never
/// leaves half a file; an unchanged file is not touched.
fn write_if_changed(path: &std::path::Path, code: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|existing| existing == code) {
        return Ok(());
    }
    let tmp = path.with_extension("rs.tmp");
    std::fs::write(&tmp, code)?;
    std::fs::rename(&tmp, path)
}
