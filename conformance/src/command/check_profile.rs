//! `check-profile`: which checks a profile lets run and what to add for
//! the others, before any request is sent (`init` prints the same plan).

use std::path::Path;
use std::process::ExitCode;

use conformance_model::profile::Profile;
use conformance_suite::catalogue::Level;
use conformance_suite::runner::{Plan, RunOptions};

use super::fail;
use crate::out;

/// `check-profile`: the plan for a profile, printed; nothing is sent.
pub fn check_profile(file: &Path, only: Vec<String>, skip: Vec<String>) -> ExitCode {
    let profile = match Profile::from_path(file) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    match plan_text(file, &profile, only, skip) {
        Ok((text, every_must)) => {
            out!("{text}");
            if every_must {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(message) => fail(&message),
    }
}

/// What `check-profile` prints for `profile`, and whether every selected
/// MUST check can run.
pub fn plan_text(
    file: &Path,
    profile: &Profile,
    only: Vec<String>,
    skip: Vec<String>,
) -> Result<(String, bool), String> {
    use std::fmt::Write as _;
    let options = RunOptions {
        only,
        skip,
        ..RunOptions::default()
    };
    let plan = Plan::new(profile, &options);
    if plan.runnable.is_empty() && plan.skipped.is_empty() {
        return Err("--only/--skip selected no check (see `conformance list`)".to_owned());
    }
    let must = |c: &&conformance_suite::catalogue::Check| c.level_for(profile) == Level::Must;
    let skipped_must = plan.skipped.iter().map(|(c, _)| c).filter(must).count();
    let mut out = String::new();
    let _ = writeln!(out, "Profile {}: {profile}", file.display());
    let _ = writeln!(
        out,
        "{} checks: {} can run, {} cannot ({skipped_must} of them MUST)",
        plan.runnable.len() + plan.skipped.len(),
        plan.runnable.len(),
        plan.skipped.len()
    );
    let declared: Vec<String> = profile
        .components
        .iter()
        .filter_map(|c| {
            let n = c.fields.as_ref()?.0.len();
            Some(format!(
                "{} ({n} field{})",
                c.name,
                if n == 1 { "" } else { "s" }
            ))
        })
        .collect();
    if !declared.is_empty() {
        let _ = writeln!(
            out,
            "Declared auth settings: {}: every generated body of theirs has a known verdict (fields/*)",
            declared.join(", ")
        );
    }
    let mut needs: Vec<_> = plan.skipped.iter().map(|(_, n)| *n).collect();
    needs.sort();
    needs.dedup();
    for need in needs {
        let ids: Vec<&str> = plan
            .skipped
            .iter()
            .filter(|(_, n)| *n == need)
            .map(|(c, _)| c.id)
            .collect();
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Cannot run: {} ({} check{})",
            need.reason(),
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        );
        let _ = writeln!(out, "  To run them, {}.", need.remedy());
        for id in ids {
            let _ = writeln!(out, "  - {id}");
        }
    }
    if skipped_must == 0 {
        let _ = writeln!(out);
        let _ = writeln!(out, "Every selected MUST check can run.");
    }
    Ok((out, skipped_must == 0))
}
