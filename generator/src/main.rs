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
    /// Read at most N MiB (of one file, and of all the files of a split
    /// document together); default 64. Memory is bounded by a multiple of
    /// what is read.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_input_mib: Option<u64>,
    /// Compile each tag's operations only with the cargo feature
    /// `tag-<tag>` (and `untagged`), for a crate that uses a few operations
    /// of a large API; the output's header lists the features to declare.
    #[arg(long)]
    tag_features: bool,
    /// Write a server module for axum (a trait to implement, a router that
    /// reads and checks every input) instead of the client. It refers to
    /// the client's types as `super::types`: place it beside them.
    #[arg(long, conflicts_with = "client_feature")]
    server: bool,
}

/// The largest file `--check` reads: 64 MiB, far above any generated
/// module (eight times the 8 MiB cap on the spec it is made from).
const CHECK_LIMIT: usize = 64 * 1024 * 1024;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The output's path is checked before the spec is read.
    if let Err(e) = file_writer::check_all([(cli.out.as_deref(), "the bindings")]) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let options = generator::Options {
        client_feature: cli.client_feature.clone(),
        strict: cli.strict,
        root: cli.root.clone(),
        overlays: cli.overlay.clone(),
        max_input_bytes: cli.max_input_mib.map(|mib| mib * 1024 * 1024),
        tag_features: cli.tag_features,
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
        // A regular file only (a FIFO would wait for a writer), bounded.
        return match yaml_location::input::read_text_limited(path, CHECK_LIMIT) {
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
                if let Some(mib) = cli.max_input_mib {
                    feature.push_str(&format!(" --max-input-mib {mib}"));
                }
                if cli.tag_features {
                    feature.push_str(" --tag-features");
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
                eprintln!("error: {e}");
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

/// Writes through the workspace's one writer (an exclusive temporary file
/// and a rename, so an interrupted run never leaves half a file; a device
/// such as `/dev/stdout` in place); an unchanged regular file is not
/// touched (its modification time stays, so cargo rebuilds nothing).
fn write_if_changed(path: &std::path::Path, code: &str) -> Result<(), file_writer::WriteError> {
    let unchanged = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && yaml_location::input::read_limited(path, code.len() + 1)
            .is_ok_and(|existing| existing == code.as_bytes());
    if unchanged {
        return Ok(());
    }
    file_writer::write(path, "the bindings", code)
}
