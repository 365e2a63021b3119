//! Why a file the runner reads (a profile, a baseline) cannot be used: one
//! type for both, so that every input's errors say where in the same words
//! (exit 2).

use std::path::PathBuf;

/// Why an input file cannot be used. Every variant says where.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read the {kind} {path}: {source}")]
    Read {
        /// What the file is (`profile`, `baseline`).
        kind: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: key `{key}`: {message}")]
    Invalid {
        file: String,
        line: usize,
        key: String,
        message: String,
    },
    #[error("{file}: {message}")]
    Syntax { file: String, message: String },
    #[error(
        "{file}: the {kind} is larger than {} KiB; a {kind} is a short file, and nothing of this one was read",
        limit / 1024
    )]
    TooLarge {
        kind: &'static str,
        file: String,
        /// The most read, in bytes.
        limit: usize,
    },
}
