//! Which profile a command uses: the one `--profile` names (a missing
//! file is exit 2, in every command), else the one a repository keeps,
//! `conformance/profile.yaml` (where `conformance init` writes it), then
//! `conformance.yaml`, looked for from the working directory up to the
//! repository's root. The command says on its first line which one it
//! uses; only where none is found does a run (or `choices`) fall back on
//! the built-in reference server.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::fail;

/// The names looked for in each folder, in order.
pub const CANDIDATES: &[&str] = &["conformance/profile.yaml", "conformance.yaml"];

/// `--profile` of the commands that need a profile but the run
/// (`check-profile`, `proxy`, `audit`), with no built-in fallback.
#[derive(Args, Clone, Debug, Default)]
pub struct ProfileArg {
    /// The server's profile (YAML). Default: conformance/profile.yaml,
    /// then conformance.yaml, looked for from here up to the repository's
    /// root; none found (or a FILE that does not exist) is exit 2.
    #[arg(long, value_name = "FILE", env = "CONFORMANCE_PROFILE")]
    pub profile: Option<PathBuf>,
}

/// The profile found from `start` up to its repository's root (the first
/// folder holding `.git`; outside a repository, `start` alone), as a path
/// relative to `start`.
pub fn find_from(start: &Path) -> Option<PathBuf> {
    let ancestors: Vec<&Path> = start.ancestors().collect();
    let top = ancestors
        .iter()
        .position(|d| d.join(".git").exists())
        .unwrap_or(0);
    for (up, dir) in ancestors.iter().enumerate().take(top + 1) {
        for name in CANDIDATES {
            if dir.join(name).is_file() {
                let mut rel = PathBuf::new();
                for _ in 0..up {
                    rel.push("..");
                }
                return Some(rel.join(name));
            }
        }
    }
    None
}

/// The profile a command uses: `given` when it is a file, else exit 2;
/// else the one found from the working directory, said on standard error
/// (the command's first line); `None` when none is found.
pub fn resolve(given: Option<PathBuf>) -> Result<Option<PathBuf>, ExitCode> {
    if let Some(path) = given {
        if path.as_os_str() == "-" || !path.is_file() {
            return Err(fail(&format!(
                "--profile {}: no such file{}",
                path.display(),
                if path.exists() {
                    " (it is not a regular file)"
                } else {
                    ""
                }
            )));
        }
        return Ok(Some(path));
    }
    let found = std::env::current_dir().ok().and_then(|cwd| find_from(&cwd));
    if let Some(path) = &found {
        eprintln!(
            "conformance: using the profile {} (found from here; --profile FILE names another)",
            path.display()
        );
    }
    Ok(found)
}

/// The profile of a command that has no built-in fallback: given, or
/// found, or exit 2 saying where it was looked for.
pub fn required(given: Option<PathBuf>, command: &str) -> Result<PathBuf, ExitCode> {
    resolve(given)?.ok_or_else(|| {
        fail(&format!(
            "{command} needs the server's profile: --profile FILE (no {} from here up to the repository's root)",
            CANDIDATES.join(" or ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The profile is found up to the repository's root, not past it;
    /// `conformance/profile.yaml` before `conformance.yaml`.
    #[test]
    fn found_up_to_the_repository_root() {
        let base = std::env::temp_dir().join(format!("target-find-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let repo = base.join("repo");
        let deep = repo.join("services/api");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(base.join("conformance.yaml"), "outside").unwrap();
        assert_eq!(find_from(&deep), None, "not past the root");
        std::fs::write(repo.join("conformance.yaml"), "x").unwrap();
        assert_eq!(
            find_from(&deep),
            Some(PathBuf::from("../../conformance.yaml"))
        );
        std::fs::create_dir_all(repo.join("conformance")).unwrap();
        std::fs::write(repo.join("conformance/profile.yaml"), "x").unwrap();
        assert_eq!(
            find_from(&deep),
            Some(PathBuf::from("../../conformance/profile.yaml"))
        );
        std::fs::create_dir_all(deep.join("conformance")).unwrap();
        std::fs::write(deep.join("conformance/profile.yaml"), "x").unwrap();
        assert_eq!(
            find_from(&deep),
            Some(PathBuf::from("conformance/profile.yaml"))
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
