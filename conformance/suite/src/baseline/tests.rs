//! A baseline's round trips: written for a run's failures, filled in,
//! read back (safely, never echoing a value), applied.

use std::path::Path;

use crate::catalogue::Level;
use crate::catalogue::Verdict;
use crate::checks::catalogue;
use crate::results::{CheckResult, RunResults, Status};

use super::*;

fn report_of(results: &[(&str, Verdict)]) -> RunResults {
    let all = catalogue();
    let results = results
        .iter()
        .map(|(id, v)| {
            let c = all.iter().find(|c| c.id == *id).expect("a check");
            CheckResult::from_check(c, c.level, v, false)
        })
        .collect();
    RunResults {
        target: "t".into(),
        results,
        ..RunResults::default()
    }
}

fn count(run: &RunResults, status: Status) -> usize {
    run.results.iter().filter(|r| r.status == status).count()
}

const TODAY: Date = Date {
    year: 2026,
    month: 6,
    day: 1,
};

#[test]
fn known_failures_do_not_gate_and_stale_entries_do() {
    let must: Vec<String> = catalogue()
        .iter()
        .filter(|c| c.level == Level::Must)
        .take(5)
        .map(|c| c.id.to_owned())
        .collect();
    let fail = || Verdict::Fail {
        actual: "HTTP 200".into(),
    };
    let report = || {
        report_of(&[
            (&must[0], fail()),
            (&must[1], Verdict::Pass),
            (&must[2], fail()),
            (&must[3], fail()),
            (&must[4], fail()),
        ])
    };
    let written = write(&report(), None);
    assert!(written.contains(&format!("- check: \"{}\"", must[0])));
    assert!(
        !written.contains(&format!("\"{}\"", must[1])),
        "a pass has no entry"
    );
    // As written, reason and expiry are still to fill in.
    let e = Baseline::from_yaml_str(&written, "b.yaml").expect_err("TODO");
    assert!(e.to_string().contains("key `[0].reason`"), "{e}");
    let filled = written
        .replacen("reason: TODO", "reason: gateway answers first", 1)
        .replacen("expires: TODO", "expires: 2026-12-31", 1)
        .replacen("reason: TODO", "reason: old", 1)
        .replacen("expires: TODO", "expires: 2026-06-01", 1)
        .replacen("reason: TODO", "reason: r", 1)
        .replacen("expires: TODO", "expires: 2027-01-01", 1)
        .replacen("reason: TODO", "reason: r", 1)
        .replacen("expires: TODO", "expires: 2027-01-01", 1);
    let mut baseline = Baseline::from_yaml_str(&filled, "b.yaml").expect("valid");
    // must[4]'s quote is said to have changed since its entry.
    baseline.entries[3].requirement = "sha256:0000000000000000".into();
    // An entry for must[1], which passes.
    baseline.entries.push(Entry {
        check: must[1].clone(),
        reason: "r".into(),
        expires: Date::parse("2027-01-01").expect("date"),
        link: None,
        requirement: requirement_hash(&must[1]).expect("hash"),
        line: 99,
    });
    let mut r = report();
    apply(&mut r, &baseline, TODAY);
    let status = |id: &str| {
        r.results
            .iter()
            .find(|x| x.id == id)
            .map(|x| x.status)
            .expect("result")
    };
    assert_eq!(status(&must[0]), Status::Known);
    assert_eq!(status(&must[3]), Status::Known);
    // Expired on the day: the check fails again, and so does its entry.
    assert_eq!(status(&must[2]), Status::Failed);
    assert_eq!(status(&format!("baseline/{}", must[2])), Status::Failed);
    assert_eq!(status(&must[4]), Status::Failed);
    assert_eq!(status(&format!("baseline/{}", must[1])), Status::Failed);
    let passes = r
        .results
        .iter()
        .find(|x| x.id == format!("baseline/{}", must[1]))
        .expect("entry result");
    assert!(
        passes
            .actual
            .as_deref()
            .is_some_and(|a| a.contains("remove this entry"))
    );
    assert_eq!(passes.stands_at.clone(), Some(("b.yaml".to_owned(), 99)));
    let changed = r
        .results
        .iter()
        .find(|x| x.id == format!("baseline/{}", must[4]))
        .expect("entry result");
    assert!(
        changed
            .actual
            .as_deref()
            .is_some_and(|a| a.contains("requirement"))
    );
    assert_eq!(
        (
            count(&r, Status::Known),
            count(&r, Status::Failed),
            r.exit_code()
        ),
        (2, 5, 1)
    );
    // Written again, the known entries keep what people wrote.
    let again = write(&r, Some(&baseline));
    assert!(
        again.contains("reason: \"gateway answers first\""),
        "{again}"
    );
    assert!(again.contains("expires: \"2026-12-31\""));
}

#[test]
fn only_known_failures_give_a_green_run() {
    let id = catalogue()
        .into_iter()
        .find(|c| c.level == Level::Must)
        .expect("must")
        .id;
    let mut r = report_of(&[(
        id,
        Verdict::Fail {
            actual: "HTTP 200".into(),
        },
    )]);
    let text = format!(
        "- check: {id}\n  reason: known\n  expires: 2030-01-01\n  link: https://t.example/1\n"
    );
    let b = Baseline::from_yaml_str(&text, "b.yaml").expect("valid");
    apply(&mut r, &b, TODAY);
    assert_eq!(r.exit_code(), 0);
    assert_eq!(
        r.results[0].note.as_deref(),
        Some("known (until 2030-01-01, https://t.example/1)")
    );
    assert_eq!(count(&r, Status::Known), 1);
}

#[test]
fn bad_entries_name_file_line_and_key() {
    let cases = [
        (
            "- check: no/such/check\n  reason: r\n  expires: 2030-01-01\n",
            "b.yaml:1: key `[0].check`: names no check",
        ),
        (
            "# c\n- check: snapshots/x\n  reason: r\n  expires: 2030-02-30\n",
            "b.yaml:4: key `[0].expires`: is not a date",
        ),
        (
            "- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n  typo: 1\n",
            "b.yaml:4: key `[0].typo`",
        ),
        (
            "- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n",
            "b.yaml:4: key `[1].check`: `snapshots/x` is listed twice (first at line 1)",
        ),
        (
            "check: x\n",
            "b.yaml:1: key `check`: invalid type: map, expected a sequence",
        ),
    ];
    for (text, expected) in cases {
        let e = Baseline::from_yaml_str(text, "b.yaml")
            .expect_err(text)
            .to_string();
        assert!(e.starts_with(expected), "{e}\nwanted: {expected}");
    }
    assert!(
        Baseline::from_yaml_str("# nothing yet\n", "b.yaml").is_ok_and(|b| b.entries.is_empty())
    );
    assert!(Baseline::from_yaml_str("[]\n", "b.yaml").is_ok_and(|b| b.entries.is_empty()));
}

/// A baseline holding a secret where a value was expected never prints
/// it; a byte-order mark is nothing; a second document and a device or
/// FIFO are refused at once, with their line.
#[test]
fn a_baseline_is_read_safely_and_never_echoed() {
    for text in [
        "TOKEN=s3cr3t\n",
        "- check: TOKEN=s3cr3t\n  reason: r\n  expires: 2030-01-01\n",
        "- check: snapshots/x\n  reason: r\n  expires: TOKEN=s3cr3t\n",
        "- check: snapshots/x\n  reason: [TOKEN=s3cr3t]\n  expires: 2030-01-01\n",
        "- TOKEN=s3cr3t\n",
    ] {
        let e = Baseline::from_yaml_str(text, "b.yaml")
            .expect_err(text)
            .to_string();
        assert!(e.starts_with("b.yaml:"), "{e}");
        assert!(!e.contains("s3cr3t"), "{e}");
    }
    let bom = "\u{feff}- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n";
    assert_eq!(
        Baseline::from_yaml_str(bom, "b.yaml")
            .unwrap()
            .entries
            .len(),
        1
    );
    let two = "- check: snapshots/x\n  reason: r\n  expires: 2030-01-01\n---\n[]\n";
    let e = Baseline::from_yaml_str(two, "b.yaml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("b.yaml:4: key `(document)`: a second YAML document"),
        "{e}"
    );
    let dir = std::env::temp_dir().join(format!("baseline-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("b.yaml"), bom.as_bytes()).unwrap();
    assert_eq!(
        Baseline::from_path(&dir.join("b.yaml"))
            .unwrap()
            .entries
            .len(),
        1
    );
    #[cfg(unix)]
    {
        let start = std::time::Instant::now();
        let e = Baseline::from_path(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let fifo = dir.join("fifo");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let e = Baseline::from_path(&fifo).unwrap_err();
            assert!(e.to_string().contains("FIFO"), "{e}");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--write-baseline` writes an entry only for what gates the run: a
/// MUST failure; a SHOULD warning only under `--strict`.
#[test]
fn only_failures_that_gate_get_an_entry() {
    let all = catalogue();
    let must = all.iter().find(|c| c.level == Level::Must).expect("a MUST");
    let should = all
        .iter()
        .find(|c| c.level == Level::Should && c.run.chosen_by().is_none())
        .expect("a SHOULD");
    let fail = Verdict::Fail {
        actual: "HTTP 200".into(),
    };
    let run = |strict: bool| {
        let results = [must, should]
            .iter()
            .map(|c| CheckResult::from_check(c, c.level, &fail, strict))
            .collect();
        let run = RunResults {
            target: "t".into(),
            strict,
            results,
            ..RunResults::default()
        };
        write(&run, None)
    };
    let lenient = run(false);
    assert!(
        lenient.contains(&format!("check: \"{}\"", must.id)),
        "{lenient}"
    );
    assert!(
        !lenient.contains(&format!("check: \"{}\"", should.id)),
        "{lenient}"
    );
    let strict = run(true);
    assert!(
        strict.contains(&format!("check: \"{}\"", should.id)),
        "{strict}"
    );
}
