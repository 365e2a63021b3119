//! What enforces each requirement of the description (`conformance
//! coverage`, `coverage --requirement ID`): a lookup by key in the one table
//! of them ([`conformance_requirements::REQUIREMENTS`]), across everything
//! that names a row: the runner's checks, the rules that judge observed
//! traffic, the reference server's faults (which break it on purpose) and
//! its legal variants (which rely on what it leaves open).

use conformance_requirements::{Kind, REQUIREMENTS, Requirement};
use conformance_suite::checks::catalogue;
use reference_server::{Fault, Variant};

/// One requirement and what names it.
#[derive(Clone, Debug)]
pub struct Enforcement {
    pub requirement: &'static Requirement,
    /// Ids of the checks that cite it.
    pub checks: Vec<&'static str>,
    /// Ids of the traffic rules that enforce it.
    pub rules: Vec<&'static str>,
    /// The faults that break it (as their requirement, or the second one
    /// that says which field).
    pub faults: Vec<Fault>,
    /// The legal variants whose choice it leaves open.
    pub variants: Vec<Variant>,
}

/// Every requirement, in the table's order, with what names it.
pub fn all() -> Vec<Enforcement> {
    let checks = catalogue();
    REQUIREMENTS
        .iter()
        .map(|&requirement| Enforcement {
            requirement,
            checks: checks
                .iter()
                .filter(|c| c.cites.requirement() == Some(requirement))
                .map(|c| c.id)
                .collect(),
            rules: traffic_rules::RULES
                .iter()
                .filter(|r| r.requirement == requirement)
                .map(|r| r.id)
                .collect(),
            faults: Fault::ALL
                .iter()
                .copied()
                .filter(|f| f.requirement() == requirement || f.also() == Some(requirement))
                .collect(),
            variants: Variant::ALL
                .iter()
                .copied()
                .filter(|v| v.allowed_by() == requirement)
                .collect(),
        })
        .collect()
}

/// What names requirement `id`; `None` for an id the table lacks.
pub fn of(id: &str) -> Option<Enforcement> {
    all().into_iter().find(|e| e.requirement.id == id)
}

/// The error for an id the table lacks, naming where to find the ids.
pub fn unknown(id: &str) -> String {
    format!(
        "no requirement `{id}`: `conformance coverage` lists every one (e.g. {})",
        REQUIREMENTS[0].id
    )
}

fn kind(k: Kind) -> &'static str {
    match k {
        Kind::States => "states",
        Kind::LeavesOpen => "leaves open",
    }
}

fn joined<T: std::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        "(none)".to_owned()
    } else {
        items
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Enforcement {
    /// The block `coverage` prints for this requirement.
    pub fn text(&self) -> String {
        let r = self.requirement;
        format!(
            "{} (§{}, {}): \"{}\"\n  checks: {}\n  traffic: {}\n  faults: {}\n  variants: {}\n",
            r.id,
            r.section,
            kind(r.kind),
            r.quote,
            joined(&self.checks),
            joined(&self.rules),
            joined(&self.faults),
            joined(&self.variants)
        )
    }
}

/// The lines `coverage` adds after the statements enforced by none, before
/// its closing lines: every requirement with what names it.
pub fn text(all: &[Enforcement]) -> String {
    let mut out = format!(
        "\nBy requirement ({} rows of conformance/requirements; `conformance coverage --requirement ID` prints one):\n",
        all.len()
    );
    for e in all {
        out.push_str(&e.text());
    }
    out
}

/// The same as a Markdown table.
pub fn markdown(all: &[Enforcement]) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let code = |items: Vec<String>| -> String {
        items
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let names = |items: &[&str]| code(items.iter().map(|s| (*s).to_owned()).collect());
    let mut out = format!(
        "\n{} requirements (conformance/requirements), each with what enforces it:\n\n| Requirement | § | Kind | Quote | Checks | Traffic | Faults | Variants |\n|---|---|---|---|---|---|---|---|\n",
        all.len()
    );
    for e in all {
        let r = e.requirement;
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            r.id,
            r.section,
            kind(r.kind),
            cell(r.quote),
            names(&e.checks),
            names(&e.rules),
            code(e.faults.iter().map(ToString::to_string).collect()),
            code(e.variants.iter().map(ToString::to_string).collect()),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_requirements as requirement;

    /// Every row is named by something (a requirement nothing refers to is
    /// a row to delete), and the lookup finds each kind of enforcer.
    #[test]
    fn every_requirement_is_named_and_the_lookup_finds_each_kind() {
        let all = all();
        assert_eq!(all.len(), REQUIREMENTS.len());
        let unnamed: Vec<&str> = all
            .iter()
            .filter(|e| {
                e.checks.is_empty()
                    && e.rules.is_empty()
                    && e.faults.is_empty()
                    && e.variants.is_empty()
            })
            .map(|e| e.requirement.id)
            .collect();
        assert!(unnamed.is_empty(), "named by nothing: {unnamed:?}");
        let client_id = of(requirement::CLIENT_ID.id).expect("a row");
        assert!(
            client_id
                .checks
                .contains(&"headers/auth-claims/x-client-id/missing")
        );
        assert_eq!(client_id.rules, ["client/x-client-id"]);
        assert!(client_id.faults.contains(&Fault::ClientIdOptional));
        let open = of(requirement::LIMITS_NOT_SHOWN.id).expect("a row");
        assert!(open.variants.contains(&Variant::BodyLimit16k));
        assert!(open.checks.is_empty() && open.faults.is_empty());
        let shape = of(requirement::REQUEST_ID.id).expect("a row");
        assert!(
            shape.faults.contains(&Fault::BadRequestWithoutRequestId),
            "as the second requirement"
        );
        assert!(of("7/nothing").is_none());
        assert!(unknown("7/nothing").contains("conformance coverage"));
        let text = text(&all);
        assert!(text.contains(
            "7/errors-are-json (§7, states): \"Error responses are JSON.\"\n  checks: errors/json, "
        ));
        assert!(markdown(&all).lines().count() > all.len());
    }

    /// A fault breaks a sentence that states something, and a variant
    /// relies on one; no fault breaks what the description leaves open.
    #[test]
    fn faults_break_what_is_stated() {
        for f in Fault::ALL {
            assert_eq!(f.requirement().kind, Kind::States, "{f}");
        }
    }
}
