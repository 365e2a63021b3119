//! Adopting the gate: known failures that expire (`--baseline`,
//! `--write-baseline`), what changed between two runs (`diff`), failures
//! where reviewers look (`--sarif`), a page people open (`--html`, rendered
//! by headless Chromium when it is installed) and latency budgets, each
//! through the binary against real servers on loopback.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use reference_server::{Fault, Server, ServerOptions};

const BIN: &str = env!("CARGO_BIN_EXE_conformance");
const PROFILE: &str = include_str!("../../profiles/reference.yaml");
const DESCRIPTION: &str = include_str!("../../../spec/interface-description.md");
const OPENAPI: &str = include_str!("../../../spec/openapi.yaml");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("conformance-adopt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn conformance(args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("NO_COLOR", "1").env("CI", "true");
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        cmd.env_remove(var);
    }
    cmd.output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8")
}

/// The shipped profile pointed at `url`, with `extra` appended, in `dir`.
fn profile_for(dir: &Path, name: &str, url: &str, extra: &str) -> PathBuf {
    let file = dir.join(name);
    let text = PROFILE.replace(
        "base_url: http://127.0.0.1:8080",
        &format!("base_url: {url}"),
    );
    std::fs::write(&file, format!("{text}\n{extra}")).expect("write profile");
    file
}

async fn server(fault: Option<Fault>, latency: Duration) -> reference_server::RunningServer {
    Server::start(ServerOptions {
        fault,
        latency,
        ..ServerOptions::default()
    })
    .await
    .expect("the reference server starts")
}

#[test]
fn a_baseline_adopts_a_failing_server_and_cannot_rot() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let faulty = rt.block_on(server(
        Some("wrong-secret-accepted".parse().expect("fault")),
        Duration::ZERO,
    ));
    let good = rt.block_on(server(None, Duration::ZERO));
    let dir = scratch("baseline");
    let bad_profile = profile_for(&dir, "bad.yaml", &faulty.base_url(), "");
    let good_profile = profile_for(&dir, "good.yaml", &good.base_url(), "");
    let baseline = dir.join("known.yaml");
    let bad_json = dir.join("bad.json");
    let good_json = dir.join("good.json");

    let first = conformance(&[
        "--profile",
        path(&bad_profile),
        "--no-snapshots",
        "--json",
        path(&bad_json),
        "--write-baseline",
        path(&baseline),
    ]);
    assert_eq!(first.status.code(), Some(1), "{}", stdout(&first));
    let failed = stdout(&first).matches("  FAIL  ").count();
    let written = std::fs::read_to_string(&baseline).expect("baseline written");
    assert!(written.contains("- check: \"headers/auth-claims/x-client-secret/wrong\""));
    assert_eq!(written.matches("- check: ").count(), failed, "{written}");

    // As written, each entry still wants a reason and a date: exit 2, where.
    let unfilled = conformance(&[
        "--profile",
        path(&bad_profile),
        "--no-snapshots",
        "--baseline",
        path(&baseline),
    ]);
    assert_eq!(unfilled.status.code(), Some(2));
    assert!(
        stderr(&unfilled).contains(&format!("{}:", baseline.display()))
            && stderr(&unfilled).contains("key `[0].reason`"),
        "{}",
        stderr(&unfilled)
    );

    let filled = written
        .replace("reason: TODO", "reason: the gateway checks secrets (OPS-1)")
        .replace("expires: TODO", "expires: 2999-12-31");
    std::fs::write(&baseline, &filled).expect("fill in");
    let junit = dir.join("junit.xml");
    let adopted = conformance(&[
        "--profile",
        path(&bad_profile),
        "--no-snapshots",
        "--baseline",
        path(&baseline),
        "--junit",
        path(&junit),
        "--json",
        path(&dir.join("adopted.json")),
        "--sarif",
        path(&dir.join("adopted.sarif")),
    ]);
    let text = stdout(&adopted);
    assert_eq!(adopted.status.code(), Some(0), "{text}");
    assert!(text.contains("  KNOWN  MUST   headers/auth-claims/x-client-secret/wrong"));
    assert!(text.contains("Known       the gateway checks secrets (OPS-1) (until 2999-12-31)"));
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.ends_with(&format!(", {failed} known (baseline)"))),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("adopted.json")).expect("json"))
            .expect("json parses");
    assert_eq!(json["summary"]["known"], failed);
    assert_eq!(json["summary"]["failed"], 0);
    assert!(
        std::fs::read_to_string(&junit)
            .expect("junit")
            .contains("known failure (baseline): the gateway checks secrets")
    );
    // In code scanning, a known failure arrives as a suppressed note.
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("adopted.sarif")).expect("sarif"))
            .expect("sarif parses");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), failed);
    assert!(results.iter().all(|r| {
        r["level"] == "note"
            && r["suppressions"][0]["justification"]
                .as_str()
                .is_some_and(|j| j.starts_with("the gateway checks secrets"))
    }));

    // Fixed: every entry must go, and says so.
    let fixed = conformance(&[
        "--profile",
        path(&good_profile),
        "--no-snapshots",
        "--baseline",
        path(&baseline),
        "--json",
        path(&good_json),
    ]);
    assert_eq!(fixed.status.code(), Some(1));
    assert_eq!(
        stdout(&fixed)
            .matches("passes now: remove this entry")
            .count(),
        failed,
        "{}",
        stdout(&fixed)
    );

    // Expired: the exception ends, the failures gate again.
    std::fs::write(&baseline, filled.replace("2999-12-31", "2000-01-01")).expect("expire");
    let expired = conformance(&[
        "--profile",
        path(&bad_profile),
        "--no-snapshots",
        "--baseline",
        path(&baseline),
    ]);
    assert_eq!(expired.status.code(), Some(1));
    assert!(stdout(&expired).contains("the entry expired on 2000-01-01"));
    assert!(stdout(&expired).contains("  FAIL  MUST   headers/auth-claims/x-client-secret/wrong"));

    // A check that does not exist: an error of the file, before any request.
    std::fs::write(
        &baseline,
        "- check: headers/no-such\n  reason: r\n  expires: 2999-01-01\n",
    )
    .expect("write");
    let unknown = conformance(&[
        "--profile",
        path(&bad_profile),
        "--baseline",
        path(&baseline),
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains(":1: key `[0].check`: names no check"),
        "{}",
        stderr(&unknown)
    );

    // diff: the fix is no regression; the fault coming back is.
    let better = conformance(&["diff", path(&bad_json), path(&good_json)]);
    assert_eq!(better.status.code(), Some(0), "{}", stdout(&better));
    assert!(
        stdout(&better).starts_with(&format!(
            "0 regressions, {failed} {}",
            if failed == 1 { "fix" } else { "fixes" }
        )),
        "{}",
        stdout(&better)
    );
    let worse = conformance(&["diff", path(&good_json), path(&bad_json)]);
    assert_eq!(worse.status.code(), Some(1));
    assert!(stdout(&worse).contains("Regressions (did not fail, fail now)"));
    assert!(
        stdout(&worse).starts_with(&format!(
            "{failed} {}, ",
            if failed == 1 {
                "regression"
            } else {
                "regressions"
            }
        )),
        "{}",
        stdout(&worse)
    );
    assert!(stdout(&worse).contains("headers/auth-claims/x-client-secret/wrong"));
    let markdown = conformance(&["diff", "--markdown", path(&good_json), path(&bad_json)]);
    assert!(stdout(&markdown).starts_with("### Conformance: **Regressions**"));
    assert!(stdout(&markdown).contains("| Operation | p95 before | p95 now |"));
    let not_a_report = conformance(&["diff", path(&bad_profile), path(&good_json)]);
    assert_eq!(not_a_report.status.code(), Some(2));
    assert!(
        stderr(&not_a_report).contains("not a conformance JSON report"),
        "{}",
        stderr(&not_a_report)
    );

    rt.block_on(faulty.shutdown());
    rt.block_on(good.shutdown());
}

#[test]
fn sarif_puts_each_failure_at_its_sentence_and_is_the_same_each_run() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let faulty = rt.block_on(server(
        Some("wrong-secret-accepted".parse().expect("fault")),
        Duration::ZERO,
    ));
    let dir = scratch("sarif");
    let profile = profile_for(&dir, "p.yaml", &faulty.base_url(), "");
    let runs: Vec<String> = (0..2)
        .map(|i| {
            let file = dir.join(format!("{i}.sarif"));
            let o = conformance(&[
                "--profile",
                path(&profile),
                "--no-snapshots",
                "--sarif",
                path(&file),
            ]);
            assert_eq!(o.status.code(), Some(1));
            std::fs::read_to_string(file).expect("sarif written")
        })
        .collect();
    assert_eq!(runs[0], runs[1], "the same run gives the same bytes");
    let log: serde_json::Value = serde_json::from_str(&runs[0]).expect("JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let results = run["results"].as_array().expect("results");
    assert!(!results.is_empty());
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let line_at = |r: &serde_json::Value| {
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"]
            .as_str()
            .expect("uri")
            .to_owned();
        let line = loc["region"]["startLine"].as_u64().expect("line") as usize;
        let text = match uri.as_str() {
            "spec/interface-description.md" => DESCRIPTION,
            "spec/openapi.yaml" => OPENAPI,
            other => panic!("located in {other}"),
        };
        text.lines()
            .nth(line - 1)
            .expect("a line of the file")
            .to_owned()
    };
    for r in results {
        let id = r["ruleId"].as_str().expect("rule id");
        assert_eq!(
            rules[r["ruleIndex"].as_u64().expect("index") as usize]["id"],
            id
        );
        assert!(!r["message"]["text"].as_str().expect("message").is_empty());
        line_at(r);
    }
    let of = |id: &str| {
        results
            .iter()
            .find(|r| r["ruleId"] == id)
            .unwrap_or_else(|| panic!("no result for {id}"))
    };
    assert!(
        line_at(of("headers/auth-claims/x-client-secret/wrong"))
            .contains("| X-Client-Secret | string | yes |")
    );
    assert_eq!(
        of("headers/auth-claims/x-client-secret/wrong")["level"],
        "error"
    );
    assert_eq!(line_at(of("choices/wrong-credential")).trim(), "\"401\":");
    rt.block_on(faulty.shutdown());
}

#[test]
fn budgets_are_judged_at_p95_as_musts_of_the_profile() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // Every answer waits 40 ms: a 20 ms budget fails, a 5 s one passes.
    let slow = rt.block_on(server(None, Duration::from_millis(40)));
    let dir = scratch("budgets");
    let tight = profile_for(
        &dir,
        "tight.yaml",
        &slow.base_url(),
        "budgets: {auth_claims: 20ms, authorize: 5s}\n",
    );
    let only = ["--only", "refs,headers,budgets", "--no-snapshots"];
    let json = dir.join("r.json");
    let o = conformance(
        &[
            &["--profile", path(&tight), "--json", path(&json)][..],
            &only,
        ]
        .concat(),
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "  FAIL  MUST   budgets/auth-claims  Auth Claims answers within the profile's budget at p95"
        ),
        "{text}"
    );
    assert!(text.contains("  PASS  MUST   budgets/authorize"), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parses");
    let ops = report["latency"].as_array().expect("latency per operation");
    let claims = ops
        .iter()
        .find(|l| l["operation"] == "auth_claims")
        .expect("auth_claims");
    assert!(claims["p95_ms"].as_f64().expect("p95") >= 40.0, "{claims}");
    assert!(claims["requests"].as_u64().expect("requests") > 5);
    let per_check = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["id"] == "refs/by-name")
        .expect("refs/by-name");
    assert!(per_check["latency"]["median_ms"].as_f64().expect("median") >= 40.0);
    // Which documented outcomes the run saw: with only these checks, never
    // a 417, and the human report says so.
    let outcomes = report["outcomes"].as_array().expect("outcomes");
    let seen = |op: &str, id: &str| {
        outcomes
            .iter()
            .find(|o| o["operation"] == op && o["id"] == id)
            .and_then(|o| o["seen"].as_u64())
    };
    assert!(seen("auth_claims", "2xx-json").is_some_and(|n| n > 0));
    assert_eq!(seen("auth_claims", "417-7.2"), Some(0));
    assert!(
        text.contains("  auth_claims: 417 in the 7.2 shape (§7 rule 1)"),
        "{text}"
    );
    let strict = conformance(
        &[&[
            "--profile",
            path(&tight),
            "--strict",
            "--only",
            "refs,outcomes",
            "--no-snapshots",
        ][..]]
        .concat(),
    );
    assert!(
        stdout(&strict).contains("  FAIL  MUST   outcomes/auth-claims/417"),
        "{}",
        stdout(&strict)
    );

    let bad = profile_for(
        &dir,
        "bad.yaml",
        &slow.base_url(),
        "budgets:\n  auth_claims: 200\n",
    );
    let o = conformance(&["--profile", path(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.yaml:")
            && stderr(&o).contains("key `budgets.auth_claims`")
            && stderr(&o).contains("with its unit"),
        "{}",
        stderr(&o)
    );
    rt.block_on(slow.shutdown());
}

/// `page` without its latency figures: each check's and the table per
/// operation.
fn without_latency(page: &str) -> String {
    let cut = |text: &str, open: &str, close: &str| {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find(open) {
            out.push_str(&rest[..start]);
            let end = rest[start..].find(close).expect("closed") + start + close.len();
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    };
    let page = cut(page, "<span class=\"took\">", "</span>");
    cut(&page, "<caption>Latency per operation", "</table>")
}

/// Headless Chromium (Debian's `chromium`), if installed.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .filter_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
        .next()
}

/// What the browser laid out, read back by a script added to a copy of the
/// page (the report itself has none): which checks show, the colour of a
/// FAIL badge, whether anything is wider than the window, and how many
/// resources the page loaded.
const PROBE: &str = r#"<script>
const shown = [...document.querySelectorAll('details.check')].filter(d => d.offsetParent !== null);
const fail = document.querySelector('.badge.b-failed');
const seen = {
  shown: shown.length,
  shownClasses: [...new Set(shown.map(d => d.className))].sort(),
  failColor: fail ? getComputedStyle(fail).backgroundColor : null,
  failBox: fail ? fail.getBoundingClientRect().width : 0,
  overflow: document.documentElement.scrollWidth > window.innerWidth,
  resources: performance.getEntriesByType('resource').length,
  sections: document.querySelectorAll('main section h2').length,
};
document.body.setAttribute('data-seen', JSON.stringify(seen));
</script>"#;

#[test]
fn the_html_report_renders_in_a_real_browser() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let faulty = rt.block_on(server(
        Some("wrong-secret-accepted".parse().expect("fault")),
        Duration::ZERO,
    ));
    let dir = scratch("html");
    let profile = profile_for(&dir, "p.yaml", &faulty.base_url(), "");
    let pages: Vec<String> = (0..2)
        .map(|i| {
            let page = dir.join(format!("report-{i}.html"));
            let o = conformance(&[
                "--profile",
                path(&profile),
                "--no-snapshots",
                "--html",
                path(&page),
            ]);
            assert_eq!(o.status.code(), Some(1));
            std::fs::read_to_string(&page).expect("html written")
        })
        .collect();
    rt.block_on(faulty.shutdown());
    // The same run, the same page, latency aside.
    assert_eq!(without_latency(&pages[0]), without_latency(&pages[1]));
    assert!(pages[0].contains("<span class=\"took\">median "));
    let html = pages[0].clone();
    assert!(html.contains("<h2>§5 Authentication</h2>") && !html.contains("<script"));

    let Some(browser) = chromium() else {
        println!(
            "SKIPPED the rendering check: no chromium on PATH (apt-get install chromium); benches/html-report.sh renders it too"
        );
        return;
    };
    let render = |variant: &str, html: &str| -> serde_json::Value {
        let file = dir.join(format!("{variant}.html"));
        std::fs::write(&file, html.replace("</body>", &format!("{PROBE}</body>"))).expect("write");
        let out = Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--window-size=1280,1000",
                "--dump-dom",
            ])
            .arg(format!("file://{}", file.display()))
            .output()
            .expect("chromium runs");
        let dom = String::from_utf8_lossy(&out.stdout).into_owned();
        let start = dom
            .find("data-seen=\"")
            .unwrap_or_else(|| panic!("{variant}: not laid out: {}", stderr(&out)));
        let rest = &dom[start + "data-seen=\"".len()..];
        let json = rest[..rest.find('"').expect("end")].replace("&quot;", "\"");
        serde_json::from_str(&json).expect("what the page saw")
    };
    let all = render("all", &html);
    assert_eq!(all["resources"], 0, "the page loads nothing: {all}");
    assert_eq!(
        all["overflow"], false,
        "nothing is wider than the window: {all}"
    );
    assert_eq!(all["failColor"], "rgb(179, 38, 30)");
    assert!(all["failBox"].as_f64().expect("width") > 20.0);
    assert!(all["sections"].as_u64().expect("sections") >= 8);
    let every = all["shown"].as_u64().expect("shown");
    // The CSS filter, as a click on "failed" would set it.
    let failed_only = render(
        "failed",
        &html
            .replace("id=\"f-all\" checked", "id=\"f-all\"")
            .replace("id=\"f-failed\" hidden", "id=\"f-failed\" checked hidden"),
    );
    let shown = failed_only["shown"].as_u64().expect("shown");
    assert!(shown > 0 && shown < every, "{failed_only}");
    assert_eq!(
        failed_only["shownClasses"],
        serde_json::json!(["check failed"])
    );
}
