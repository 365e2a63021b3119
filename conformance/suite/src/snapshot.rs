//! Snapshot assertions with insta: every check's exchanges, normalised, are
//! compared with the stored snapshot for the target.
//!
//! Snapshots live in one folder per profile (`snapshots/` beside it unless
//! `--snapshots DIR` says otherwise), one `.snap` file per check (checks that
//! judge the same exchanges share one). The exchanges are collected by the
//! concurrent runner first and asserted here on one thread, because insta's
//! settings are per thread.
//!
//! insta is driven from our own flags, never from the environment: the CLI,
//! first thing in `main` while it is the only thread, calls [`configure`],
//! which sets `INSTA_UPDATE` from [`SnapshotUpdate`], sets
//! `INSTA_FORCE_PASS=0` (which also overrides an `insta.yaml`), silences
//! insta's own output (`INSTA_OUTPUT=none`; the diff is ours, in the report)
//! and removes the legacy variables that would force an update. insta reads
//! these once per process, so a process uses one mode. A library caller
//! whose process was not configured so (a test, whose harness runs threads)
//! gets an error naming the variables, unless its environment already holds
//! them (the workspace's `.cargo/config.toml` sets the CI mode for tests);
//! nothing here writes the environment while other threads run.
//!
//! A failed assertion is a panic; it is caught (`catch_unwind`) and becomes
//! one failed check carrying the diff. The CLI installs, once, a panic hook
//! that keeps those panics quiet ([`quiet_snapshot_panics`]).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::Serialize;

use crate::catalogue::Level;
use conformance_wire::exchange::Exchange;

/// What happens to a snapshot that is missing or differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotUpdate {
    /// `--accept`: record new and changed snapshots in place; a difference
    /// does not fail (the rule checks still judge). insta: `always`.
    Accept,
    /// No `--accept` and `CI` set: nothing is written; a missing or changed
    /// snapshot fails. insta: `no`.
    Ci,
    /// No `--accept`, outside CI: a missing snapshot is recorded (the first
    /// run of a new profile); a changed one fails and is written beside the
    /// stored one as `.snap.new` for `cargo insta review`. insta: `unseen`.
    Local,
}

impl SnapshotUpdate {
    /// The mode for these flags: `--accept` wins; else `CI` decides.
    pub fn from_flags(accept: bool, ci: bool) -> Self {
        match (accept, ci) {
            (true, _) => SnapshotUpdate::Accept,
            (false, true) => SnapshotUpdate::Ci,
            (false, false) => SnapshotUpdate::Local,
        }
    }

    /// Is `CI` set (to anything but `false`/`0`/empty)? Same test as insta's.
    pub fn ci_from_env() -> bool {
        std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
    }

    fn insta_value(self) -> &'static str {
        match self {
            SnapshotUpdate::Accept => "always",
            SnapshotUpdate::Ci => "no",
            SnapshotUpdate::Local => "unseen",
        }
    }
}

/// Where snapshots are and what to do with differences.
#[derive(Clone, Debug)]
pub struct SnapshotOptions {
    pub dir: PathBuf,
    pub update: SnapshotUpdate,
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error(
        "insta is not set up for `{mode:?}` in this process: call `snapshot::configure` before any thread starts, or start the process with {needs}"
    )]
    NotConfigured { mode: SnapshotUpdate, needs: String },
    #[error("insta was configured for `{was:?}` in this process; it cannot switch to `{now:?}`")]
    ModeChanged {
        was: SnapshotUpdate,
        now: SnapshotUpdate,
    },
    #[error("cannot create the snapshot folder {dir}: {source}")]
    Folder {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The verdict on one snapshot.
#[derive(Clone, Debug)]
pub struct SnapshotResult {
    /// The check id (or shared group) the snapshot belongs to.
    pub group: String,
    /// MUST when a MUST check judges these exchanges; SHOULD when only
    /// SHOULD checks do (a SHOULD snapshot missing or changed warns).
    pub level: Level,
    pub file: PathBuf,
    pub outcome: SnapshotOutcome,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SnapshotOutcome {
    Matched,
    /// Written for the first time (or updated, with `--accept`).
    Recorded {
        updated: bool,
    },
    /// Missing, or refused as unstable: the reason.
    Failed(String),
    /// Different from the stored snapshot: the reason with a diff, and
    /// the values that changed ([`crate::changes`]).
    Differs {
        why: String,
        changes: crate::changes::Changes,
    },
    /// Neither written nor compared: the check that made these exchanges
    /// failed, so they are no reference (a first `--accept` against a broken
    /// server records nothing as a pass and never overwrites a stored
    /// snapshot; in CI the check's own failure says what is wrong, and a
    /// failure a baseline knows is not failed again through its snapshot).
    NotRecorded,
    /// Neither written nor compared: an answer among these exchanges never
    /// came within what the run waits, so they are no reference (a late
    /// answer is a busy server, not its behaviour).
    Unanswered,
}

static CONFIGURED: OnceLock<SnapshotUpdate> = OnceLock::new();
static ASSERTING: Mutex<()> = Mutex::new(());

/// The environment insta reads for `update`: each variable and the value
/// it must have (`None`: unset).
fn insta_environment(update: SnapshotUpdate) -> Vec<(&'static str, Option<&'static str>)> {
    vec![
        ("INSTA_UPDATE", Some(update.insta_value())),
        ("INSTA_FORCE_PASS", Some("0")),
        ("INSTA_FORCE_UPDATE", None),
        ("INSTA_FORCE_UPDATE_SNAPSHOTS", None),
        ("INSTA_PENDING_DIR", None),
    ]
}

/// Points insta at our mode (see the module doc), once per process.
///
/// # Safety
///
/// Sets environment variables: call it before any other thread of the
/// process starts (the CLI does, first thing in `main`), as
/// [`std::env::set_var`] requires.
pub unsafe fn configure(update: SnapshotUpdate) -> Result<(), SnapshotError> {
    let was = *CONFIGURED.get_or_init(|| {
        for (name, value) in insta_environment(update) {
            // SAFETY: the caller guarantees no other thread runs yet.
            unsafe {
                match value {
                    Some(v) => std::env::set_var(name, v),
                    None => std::env::remove_var(name),
                }
            }
        }
        // SAFETY: as above.
        unsafe {
            std::env::set_var("INSTA_OUTPUT", "none");
            std::env::set_var("INSTA_REQUIRE_FULL_MATCH", "0");
            // The workspace root, so the `source:` line of a snapshot is
            // `conformance/suite/src/snapshot.rs` whatever the working directory
            // (and insta does not run `cargo metadata` to find it).
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            std::env::set_var(
                "INSTA_WORKSPACE_ROOT",
                manifest.ancestors().nth(2).unwrap_or(manifest),
            );
        }
        update
    });
    if was == update {
        Ok(())
    } else {
        Err(SnapshotError::ModeChanged { was, now: update })
    }
}

/// Whether insta will assert in `update`'s mode: [`configure`]d so, or
/// started with an environment that says so already (a test process, from
/// `.cargo/config.toml`). Only reads the environment.
fn ready(update: SnapshotUpdate) -> Result<(), SnapshotError> {
    match CONFIGURED.get() {
        Some(was) if *was == update => Ok(()),
        Some(was) => Err(SnapshotError::ModeChanged {
            was: *was,
            now: update,
        }),
        None => {
            let wrong: Vec<String> = insta_environment(update)
                .into_iter()
                .filter(|(name, want)| std::env::var(name).ok().as_deref() != *want)
                .map(|(name, want)| match want {
                    Some(v) => format!("{name}={v}"),
                    None => format!("{name} unset"),
                })
                .collect();
            if wrong.is_empty() {
                Ok(())
            } else {
                Err(SnapshotError::NotConfigured {
                    mode: update,
                    needs: wrong.join(", "),
                })
            }
        }
    }
}

/// Keeps the panics of failed snapshot assertions quiet (each becomes one
/// failed check with its diff in the report); every other panic is
/// reported as before. Installed once, before any thread starts.
pub fn quiet_snapshot_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if !message.starts_with("snapshot assertion for ") {
            previous(info);
        }
    }));
}

/// The file name of a group's snapshot: `/` becomes `__`, anything outside
/// `[A-Za-z0-9._-]` becomes `-`.
/// Where the snapshot of `group` is stored in `dir`.
pub fn file_of(dir: &Path, group: &str) -> PathBuf {
    dir.join(format!("{}.snap", file_stem(group)))
}

pub fn file_stem(group: &str) -> String {
    group
        .replace('/', "__")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[derive(Serialize)]
struct Stored<'a> {
    check: &'a str,
    exchanges: &'a [Exchange],
}

/// Asserts every group's snapshot, on this thread, in the order given.
/// A snapshot's exchanges, and whether the check that made them failed.
#[derive(Clone, Debug)]
pub struct Group {
    pub name: String,
    pub exchanges: Vec<Exchange>,
    /// A MUST check judging these exchanges failed: they are no reference.
    pub check_failed: bool,
    /// An answer among them never came within what the run waits (a
    /// limit, a time-out after every try): they are no reference either.
    pub unanswered: bool,
    pub level: Level,
}

/// `refused`: groups a second look found unstable
/// ([`crate::stability`]), each with why: failed, never written.
pub fn assert_all(
    options: &SnapshotOptions,
    groups: &[Group],
    refused: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<SnapshotResult>, SnapshotError> {
    ready(options.update)?;
    std::fs::create_dir_all(&options.dir).map_err(|source| SnapshotError::Folder {
        dir: options.dir.clone(),
        source,
    })?;
    let dir = std::path::absolute(&options.dir).unwrap_or_else(|_| options.dir.clone());
    let _one_at_a_time = ASSERTING.lock().unwrap_or_else(|p| p.into_inner());
    let results = groups
        .iter()
        .map(|g| {
            let file = dir.join(format!("{}.snap", file_stem(&g.name)));
            if g.check_failed {
                SnapshotResult {
                    group: g.name.clone(),
                    level: g.level,
                    file,
                    outcome: SnapshotOutcome::NotRecorded,
                }
            } else if g.unanswered {
                SnapshotResult {
                    group: g.name.clone(),
                    level: g.level,
                    file,
                    outcome: SnapshotOutcome::Unanswered,
                }
            } else if let Some(why) = refused.get(&g.name) {
                SnapshotResult {
                    group: g.name.clone(),
                    level: g.level,
                    file,
                    outcome: SnapshotOutcome::Failed(why.clone()),
                }
            } else {
                SnapshotResult {
                    level: g.level,
                    ..assert_one(&dir, options.update, &g.name, &g.exchanges)
                }
            }
        })
        .collect();
    Ok(results)
}

/// A snapshot's path as a report shows it: relative to the current folder
/// when under it, else its folder's name and its own. A report is shared
/// (a PR comment, an artifact): no absolute path of the machine it ran on.
pub fn shareable(file: &Path) -> String {
    if !file.is_absolute() {
        return file.display().to_string();
    }
    if let Some(rel) = std::env::current_dir()
        .ok()
        .and_then(|cwd| file.strip_prefix(cwd).ok().map(Path::to_path_buf))
    {
        return rel.display().to_string();
    }
    let parts: Vec<_> = file.components().rev().take(2).collect();
    parts
        .iter()
        .rev()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn assert_one(
    dir: &Path,
    update: SnapshotUpdate,
    group: &str,
    exchanges: &[Exchange],
) -> SnapshotResult {
    let stem = file_stem(group);
    let file = dir.join(format!("{stem}.snap"));
    let before = std::fs::read_to_string(&file).ok();
    let value = Stored {
        check: group,
        exchanges,
    };

    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_sort_maps(true);
    // Per-request values (request ids, tokens) are normalised where the
    // exchange is recorded (exchange.rs), at any depth: no insta redactions.
    let asserted = catch_unwind(AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_json_snapshot!(stem.as_str(), &value));
    }));

    let outcome = match (asserted, &before) {
        (Ok(()), None) => SnapshotOutcome::Recorded { updated: false },
        (Ok(()), Some(old)) => {
            let now = std::fs::read_to_string(&file).ok();
            if update == SnapshotUpdate::Accept && now.as_deref() != Some(old.as_str()) {
                SnapshotOutcome::Recorded { updated: true }
            } else {
                SnapshotOutcome::Matched
            }
        }
        (Err(_), None) => SnapshotOutcome::Failed(format!(
            "no stored snapshot {}; run with --accept to record it",
            shareable(&file)
        )),
        (Err(_), Some(old)) => {
            let (diff, changes) = diff(old, &value);
            SnapshotOutcome::Differs {
                why: format!(
                    "the exchanges differ from the stored snapshot {} (run with --accept to record them):\n{diff}",
                    shareable(&file),
                ),
                changes,
            }
        }
    };
    SnapshotResult {
        group: group.to_owned(),
        level: Level::Must,
        file,
        outcome,
    }
}

/// Lines of each side the line diff compares at most, after the lines both
/// sides share at their start and end are set aside: a line diff is
/// quadratic in the lines that differ, and a snapshot that changed all
/// through would take minutes. Past this, the first lines of each side are
/// shown as removed and added.
const DIFF_WINDOW: usize = 2000;

/// Lines of a diff a report shows at most; the rest are counted.
const DIFF_SHOWN: usize = 200;

/// A line diff of the stored snapshot's body and this run's, both as
/// pretty JSON so that formatting never shows up as a difference, and the
/// values that changed. Bounded: time linear in the snapshots' length plus
/// [`DIFF_WINDOW`] squared, at most [`DIFF_SHOWN`] lines and
/// [`crate::changes::MAX_CHANGES`] changes.
fn diff(old_file: &str, now: &Stored<'_>) -> (String, crate::changes::Changes) {
    let old_body = snapshot_body(old_file);
    let old_value = serde_json::from_str::<serde_json::Value>(&old_body).ok();
    let new_value = serde_json::to_value(now).ok();
    let changes = match (&old_value, &new_value) {
        (Some(a), Some(b)) => crate::changes::between(a, b),
        _ => crate::changes::Changes::default(),
    };
    let old = old_value
        .and_then(|v| serde_json::to_string_pretty(&sorted(v)).ok())
        .unwrap_or(old_body);
    let new = new_value
        .and_then(|v| serde_json::to_string_pretty(&sorted(v)).ok())
        .unwrap_or_default();
    (bounded_diff(&old, &new), changes)
}

/// The unified diff of `old` and `new` (see [`diff`] for its bounds).
fn bounded_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let same_start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let same_end = a[same_start..]
        .iter()
        .rev()
        .zip(b[same_start..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // Two lines of context either side, as the diff's own hunks have.
    let from = same_start.saturating_sub(2);
    let (a_to, b_to) = (
        (a.len() - same_end + 2).min(a.len()),
        (b.len() - same_end + 2).min(b.len()),
    );
    let (a_mid, b_mid) = (&a[from..a_to], &b[from..b_to]);
    let header = format!(
        "--- stored (from line {})\n+++ this run (from line {})\n",
        from + 1,
        from + 1
    );
    let mut lines: Vec<String> = Vec::new();
    if a_mid.len() <= DIFF_WINDOW && b_mid.len() <= DIFF_WINDOW {
        let a_text = a_mid.join("\n") + "\n";
        let b_text = b_mid.join("\n") + "\n";
        let diff = similar::TextDiff::from_lines(&a_text, &b_text);
        let unified = diff.unified_diff().context_radius(2).to_string();
        lines.extend(unified.lines().map(str::to_owned));
    } else {
        lines.push(format!(
            "@@ {} stored lines and {} of this run differ from line {}; too many to align: the first of each @@",
            a.len() - same_end - same_start,
            b.len() - same_end - same_start,
            same_start + 1
        ));
        let half = DIFF_SHOWN / 2;
        lines.extend(a[same_start..].iter().take(half).map(|l| format!("-{l}")));
        lines.extend(b[same_start..].iter().take(half).map(|l| format!("+{l}")));
    }
    if lines.is_empty() {
        return String::new();
    }
    let more = lines.len().saturating_sub(DIFF_SHOWN);
    lines.truncate(DIFF_SHOWN);
    let mut out = header;
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    if more > 0 {
        out.push_str(&format!("… {more} more lines of diff\n"));
    }
    out
}

/// `value` with every object's keys in order, as insta stores them
/// (`sort_maps`), so the diff shows only real differences.
fn sorted(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The part of a `.snap` file after its `---` metadata header.
fn snapshot_body(file: &str) -> String {
    let mut parts = file.splitn(3, "---\n");
    match (parts.next(), parts.next(), parts.next()) {
        (Some(""), Some(_), Some(body)) => body.to_owned(),
        _ => file.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_are_file_names() {
        assert_eq!(
            file_stem("headers/authorize/x-client-id/missing"),
            "headers__authorize__x-client-id__missing"
        );
        assert_eq!(file_stem("a b§c"), "a-b-c");
    }

    #[test]
    fn body_after_header() {
        assert_eq!(
            snapshot_body("---\nsource: x\n---\n{\"a\": 1}\n"),
            "{\"a\": 1}\n"
        );
    }

    #[test]
    fn diffs_are_bounded_in_lines_and_time() {
        let small = bounded_diff("a\nb\nc\nd\n", "a\nb\nX\nd\n");
        assert!(small.starts_with("--- stored (from line 1)\n+++ this run (from line 1)\n"));
        assert!(small.contains("-c\n+X\n"), "{small}");
        assert_eq!(bounded_diff("same\n", "same\n"), "");
        // 200 000 lines changed all through: no alignment, the first lines
        // of each side, at once.
        let old: String = (0..200_000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..200_000).map(|i| format!("new {i}\n")).collect();
        let started = std::time::Instant::now();
        let big = bounded_diff(&format!("head\n{old}tail\n"), &format!("head\n{new}tail\n"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(
            big.lines().count() <= DIFF_SHOWN + 3,
            "{}",
            big.lines().count()
        );
        assert!(big.contains("200000 stored lines and 200000 of this run differ from line 2"));
        assert!(big.contains("-old 0\n") && big.contains("+new 0\n"));
    }

    #[test]
    fn modes() {
        assert_eq!(
            SnapshotUpdate::from_flags(true, true),
            SnapshotUpdate::Accept
        );
        assert_eq!(SnapshotUpdate::from_flags(false, true), SnapshotUpdate::Ci);
        assert_eq!(
            SnapshotUpdate::from_flags(false, false),
            SnapshotUpdate::Local
        );
    }
}
