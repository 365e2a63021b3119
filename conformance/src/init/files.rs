//! Where `init` writes and how: only inside the git repository it runs in,
//! never through a link, never over a file without `--force`, each file
//! written new beside its place and linked there without replacing.

use std::path::{Component, Path, PathBuf};

use super::{InitError, err};

/// The root of the git repository `cwd` is in (`git rev-parse
/// --show-toplevel`), canonical: `init` writes only inside it.
pub fn repo_root(cwd: &Path) -> Result<PathBuf, InitError> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["rev-parse", "--show-toplevel"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| err(format!("cannot run git to find the repository's root: {e}")))?;
    if !out.status.success() {
        return Err(err(
            "not inside a git repository: run init in your server's repository (its workflow goes to the root's .github/workflows/, the profile beside your code)",
        ));
    }
    let root = String::from_utf8_lossy(&out.stdout)
        .trim_end_matches(['\n', '\r'])
        .to_owned();
    std::fs::canonicalize(&root)
        .map_err(|e| err(format!("cannot resolve the repository's root: {e}")))
}

/// `path` (relative to `cwd`, or absolute) as a path relative to `root`,
/// `.` and `..` resolved by their names; refused when it leaves the
/// repository or holds a control character (it is written into YAML and
/// printed).
pub fn inside(root: &Path, cwd: &Path, path: &Path, what: &str) -> Result<PathBuf, InitError> {
    let shown = path.display().to_string();
    if shown.chars().any(char::is_control) {
        return Err(err(format!(
            "{what}: holds a control character (a line break?); expected a path inside the repository"
        )));
    }
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut normal = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !normal.pop() {
                    return Err(err(format!(
                        "{what}: `{shown}` leaves the file system's root"
                    )));
                }
            }
            other => normal.push(other.as_os_str()),
        }
    }
    match normal.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => Ok(rel.to_path_buf()),
        Ok(_) => Err(err(format!(
            "{what}: `{shown}` is the repository's root itself; expected a folder or file inside it"
        ))),
        Err(_) => Err(err(format!(
            "{what}: `{shown}` is outside the repository ({}); init writes only inside it",
            root.display()
        ))),
    }
}

/// A path relative to the root as the workflow writes it: `/`-separated.
pub fn slashed(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Refuses what stands at `root/rel`: a link (a dangling one too) always,
/// a file unless `replace`. `write_file` checks again when it writes.
pub fn refuse_existing(root: &Path, rel: &Path, replace: bool) -> Result<(), InitError> {
    let shown = slashed(rel);
    match std::fs::symlink_metadata(root.join(rel)) {
        Ok(m) if m.file_type().is_symlink() => Err(err(format!(
            "{shown} is a symbolic link; init writes only regular files inside the repository, never through a link (remove it first)"
        ))),
        Ok(m) if !m.is_file() => Err(err(format!("{shown} exists and is not a regular file"))),
        Ok(_) if !replace => Err(err(format!("{shown} exists; pass --force to replace it"))),
        _ => Ok(()),
    }
}

/// Writes `text` at `root/rel` as a regular file, never through a symbolic
/// link (a folder on the way or the file itself) and never over a file
/// that exists unless `replace` (and then only a regular file), through
/// the workspace's one writer ([`file_writer`]).
pub fn write_file(root: &Path, rel: &Path, text: &str, replace: bool) -> Result<(), InitError> {
    let target = root.join(rel);
    let shown = target.display();
    let mut dir = root.to_path_buf();
    if let Some(parent) = rel.parent() {
        for part in parent.components() {
            dir.push(part.as_os_str());
            match std::fs::symlink_metadata(&dir) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(err(format!(
                        "{} is a symbolic link; init writes only inside the repository, never through a link",
                        dir.display()
                    )));
                }
                Ok(m) if !m.is_dir() => {
                    return Err(err(format!("{} is not a folder", dir.display())));
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    std::fs::create_dir(&dir)
                        .map_err(|e| err(format!("cannot create {}: {e}", dir.display())))?;
                }
                Err(e) => return Err(err(format!("cannot read {}: {e}", dir.display()))),
            }
        }
    }
    match std::fs::symlink_metadata(&target) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(err(format!(
                "{shown} is a symbolic link; init writes only regular files inside the repository, never through a link (remove it first)"
            )));
        }
        Ok(m) if !m.is_file() => {
            return Err(err(format!("{shown} exists and is not a regular file")));
        }
        Ok(_) if !replace => {
            return Err(err(format!("{shown} exists; pass --force to replace it")));
        }
        Ok(_) | Err(_) => {}
    }
    // The workspace's one writer: an exclusive temporary file beside it,
    // then a rename (with `replace`) or a link that never replaces (a file
    // that appeared meanwhile is kept and reported).
    let existing = if replace {
        file_writer::Existing::Replace
    } else {
        file_writer::Existing::Keep
    };
    match file_writer::write_with(&target, "it", text.as_bytes(), existing) {
        Ok(()) => Ok(()),
        Err(file_writer::WriteError {
            why: file_writer::Why::Exists,
            ..
        }) => Err(err(format!(
            "{shown} appeared while init ran; it is kept (pass --force to replace it)"
        ))),
        Err(e) => Err(err(format!("cannot write {shown}: {}", e.why))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_repository() {
        let root = Path::new("/r");
        let cwd = Path::new("/r/sub");
        assert_eq!(
            inside(root, cwd, Path::new("conformance"), "--dir").unwrap(),
            Path::new("sub/conformance")
        );
        assert_eq!(
            inside(root, cwd, Path::new("../x"), "--dir").unwrap(),
            Path::new("x")
        );
        for bad in ["../../x", "/etc", "..", "a\nb"] {
            assert!(
                inside(root, cwd, Path::new(&bad), "--dir").is_err(),
                "{bad}"
            );
        }
    }
}
