//! What an entry was written against: the hash of the quoted requirement
//! of its check (or of the snapshots' requirement), so that an entry fails
//! once the text it judged changes.

use sha2::{Digest, Sha256};

use crate::checks::catalogue;
use crate::results::{CheckResult, Kind, SNAPSHOT_REQUIREMENT};

/// The hash of the requirement `check` (as an entry of the file names it)
/// is judged against, or `None` when no check has that id. Ids are the
/// catalogue's (budgets and outcomes included) and `snapshots/NAME`.
pub fn requirement_hash(check: &str) -> Option<String> {
    match check.strip_prefix("snapshots/") {
        Some(group) => (!group.is_empty()).then(|| hash(SNAPSHOT_REQUIREMENT)),
        None => quote_hash(check),
    }
}

/// The hash of the requirement result `r` was judged against, from its
/// kind (a check's, from the quote its anchor carries); `None` for a
/// result about the baseline itself.
pub(super) fn requirement_hash_of(r: &CheckResult) -> Option<String> {
    match r.kind {
        Kind::Check => r.anchor.map(|a| hash(a.quote)),
        Kind::Snapshot { .. } => Some(hash(SNAPSHOT_REQUIREMENT)),
        Kind::Baseline => None,
    }
}

/// The hash of the quote of the catalogue's check `id`.
fn quote_hash(id: &str) -> Option<String> {
    catalogue()
        .into_iter()
        .find(|c| c.id == id)
        .map(|c| hash(c.quote()))
}

/// `sha256:` and the first 16 hex digits of the hash of `text`.
fn hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
