//! The report formats, one row each ([`FORMATS`]): the flag a run and the
//! traffic tools (`proxy`, `audit`) take, the action's input of the same
//! name (`action.yml`, `.github/action/run.sh`), and how a run's results
//! and a traffic tally are rendered in it. Everything else follows from
//! the rows: the options of `conformance`, `proxy` and `audit`
//! ([`RunReports`], [`TrafficReports`]), which files are written, and a
//! test that holds the action and its script to the table. A new format is
//! one row here (and its renderer).

use std::path::{Path, PathBuf};

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use conformance_report::report::{Report, html, junit, sarif};
use traffic_rules::Tally;

/// One report format.
pub struct Format {
    /// The flag (`--junit FILE`) and the action's input (`junit:`); the
    /// action passes it to its script as `CONFORMANCE_<FLAG>`.
    pub flag: &'static str,
    /// Its name in messages (`cannot write the JUnit report`).
    pub name: &'static str,
    /// The variable the flag is also read from (`CONFORMANCE_JUNIT`), as
    /// the action passes its input to its script.
    pub env: &'static str,
    /// The run's help for the flag.
    pub run_help: &'static str,
    /// The traffic tools' help for the flag.
    pub traffic_help: &'static str,
    /// The description of the action's input.
    pub action_help: &'static str,
    /// A run's report in this format.
    pub run: fn(&Report) -> Result<String, String>,
    /// A traffic tally's (its report made a run's: `report`) in this format.
    pub traffic: fn(&Tally, &Report) -> Result<String, String>,
}

impl Format {
    /// The variable the action's script reads the input from.
    pub fn variable(&self) -> String {
        self.env.to_owned()
    }
}

fn junit_xml(report: &Report) -> Result<String, String> {
    junit::render(report).map_err(|e| format!("cannot render the JUnit report: {e}"))
}

/// Every format, in the order the flags are listed and the files written.
pub static FORMATS: &[Format] = &[
    Format {
        flag: "junit",
        env: "CONFORMANCE_JUNIT",
        name: "JUnit",
        run_help: "Write a JUnit XML report here",
        traffic_help: "Write a JUnit XML report here: one test case per rule",
        action_help: "Write a JUnit XML report here.",
        run: junit_xml,
        traffic: |_, report| junit_xml(report),
    },
    Format {
        flag: "json",
        env: "CONFORMANCE_JSON",
        name: "JSON",
        run_help: "Write a JSON report here",
        traffic_help: "Write the report as JSON here (each rule's count, examples and reproductions)",
        action_help: "Write a JSON report here.",
        run: |report| Ok(report.to_json()),
        traffic: |tally, _| {
            serde_json::to_string_pretty(&tally.report(None))
                .map(|text| text + "\n")
                .map_err(|e| format!("cannot write the JSON report: {e}"))
        },
    },
    Format {
        flag: "sarif",
        env: "CONFORMANCE_SARIF",
        name: "SARIF",
        run_help: "Write a SARIF 2.1.0 report here (GitHub code scanning): each failure at the line of the description it enforces",
        traffic_help: "Write a SARIF 2.1.0 report here: each broken rule at the line of the description it quotes",
        action_help: "Write a SARIF 2.1.0 report here (code scanning).",
        run: |report| Ok(sarif::render(report)),
        traffic: |_, report| Ok(crate::traffic_report::sarif_log(report)),
    },
    Format {
        flag: "html",
        env: "CONFORMANCE_HTML",
        name: "HTML",
        run_help: "Write one self-contained HTML report here",
        traffic_help: "Write one self-contained HTML report here",
        action_help: "Write a self-contained HTML report here.",
        run: |report| Ok(html::render(report)),
        traffic: |tally, report| Ok(crate::traffic_report::html_page(report, tally.exchanges())),
    },
];

/// The report files asked for: each format's path, in the table's order.
#[derive(Clone, Debug, Default)]
pub struct ReportFiles {
    files: Vec<(&'static str, PathBuf)>,
}

impl ReportFiles {
    /// `path` for the format whose flag is `flag` (a flag the table lacks
    /// is ignored: nothing renders it).
    pub fn with(mut self, flag: &str, path: PathBuf) -> Self {
        if let Some(format) = FORMATS.iter().find(|f| f.flag == flag) {
            self.files.retain(|(f, _)| *f != format.flag);
            self.files.push((format.flag, path));
            self.files
                .sort_by_key(|(f, _)| FORMATS.iter().position(|x| x.flag == *f));
        }
        self
    }

    /// Checks every report's path before any work (each writable, no two
    /// the same file): what a write would find wrong, said at once.
    pub fn check(&self) -> Result<(), String> {
        let named: Vec<(Option<&Path>, String)> = self
            .iter()
            .map(|(f, p)| (Some(p.as_path()), format!("the {} report", f.name)))
            .collect();
        file_writer::check_all(named.iter().map(|(p, what)| (*p, what.as_str())))
            .map_err(|e| e.to_string())
    }

    /// Whether a report goes to standard output (`-`): the human report
    /// then goes to standard error, so that the output is the report alone.
    pub fn to_stdout(&self) -> bool {
        self.files.iter().any(|(_, p)| p.as_os_str() == "-")
    }

    /// The reports asked for, less those to standard output: what is
    /// written while a proxy or a stream runs (standard output gets its
    /// report once, at the end).
    pub fn without_stdout(&self) -> ReportFiles {
        ReportFiles {
            files: self
                .files
                .iter()
                .filter(|(_, p)| p.as_os_str() != "-")
                .cloned()
                .collect(),
        }
    }

    /// Whether any report is asked for.
    pub fn any(&self) -> bool {
        !self.files.is_empty()
    }

    /// Each format asked for, with its path.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Format, &PathBuf)> {
        self.files.iter().filter_map(|(flag, path)| {
            FORMATS
                .iter()
                .find(|f| f.flag == *flag)
                .map(|format| (format, path))
        })
    }

    fn from_matches(m: &ArgMatches) -> Self {
        FORMATS.iter().fold(Self::default(), |files, f| {
            match m.try_get_one::<PathBuf>(f.flag).ok().flatten() {
                Some(path) => files.with(f.flag, path.clone()),
                None => files,
            }
        })
    }
}

/// Writes every report of a traffic tally `files` asks for (each
/// format's row renders it), each whole or not at all.
pub fn write_traffic(files: &ReportFiles, tally: &Tally, target: &str) -> Result<(), String> {
    let report = crate::traffic_report::report(tally, target);
    for (format, path) in files.iter() {
        let text = (format.traffic)(tally, &report)?;
        replace(path, format.name, &text)?;
    }
    Ok(())
}

/// `text` written to `path` by the workspace's one writer: through an
/// exclusive temporary file beside it, renamed over it, so a reader (a CI
/// step, a browser reloading) sees the old report or the new one, never a
/// part; a device or a FIFO is written in place.
fn replace(path: &Path, what: &str, text: &str) -> Result<(), String> {
    file_writer::write(path, &format!("the {what} report"), text).map_err(|e| e.to_string())
}

/// The flags of each row; `env`: each also read from its variable (a
/// run's, as the action passes them). `proxy` and `audit` read none: a
/// job that sets `CONFORMANCE_JUNIT` for its run would otherwise have the
/// traffic's report written over the run's.
fn augment(cmd: Command, help: fn(&Format) -> &'static str, env: bool) -> Command {
    FORMATS.iter().fold(cmd, |cmd, f| {
        let arg = Arg::new(f.flag)
            .long(f.flag)
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .action(clap::ArgAction::Set)
            .help(format!("{} (`-`: standard output)", help(f)));
        cmd.arg(if env { arg.env(f.env) } else { arg })
    })
}

/// A run's report flags (`--junit FILE`, ...), one per row.
#[derive(Clone, Debug, Default)]
pub struct RunReports(pub ReportFiles);

/// `proxy`'s and `audit`'s report flags, the same as a run's.
#[derive(Clone, Debug, Default)]
pub struct TrafficReports(pub ReportFiles);

macro_rules! report_args {
    ($type:ident, $help:expr, $env:expr) => {
        impl FromArgMatches for $type {
            fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
                Ok($type(ReportFiles::from_matches(m)))
            }
            fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
                *self = Self::from_arg_matches(m)?;
                Ok(())
            }
        }

        impl Args for $type {
            fn augment_args(cmd: Command) -> Command {
                augment(cmd, $help, $env)
            }
            fn augment_args_for_update(cmd: Command) -> Command {
                augment(cmd, $help, $env)
            }
        }
    };
}

report_args!(RunReports, |f| f.run_help, true);
report_args!(TrafficReports, |f| f.traffic_help, false);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic_report::{exit_code, results};
    use conformance_report::report::Status;

    /// A report replaces the last whole, leaving no temporary file; one
    /// that cannot be written says where.
    #[test]
    fn reports_are_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("traffic-report-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let outputs = ReportFiles::default()
            .with("junit", dir.join("r.xml"))
            .with("sarif", dir.join("r.sarif"));
        let tally = Tally::default();
        write_traffic(&outputs, &tally, "t").expect("written");
        write_traffic(&outputs, &tally, "t").expect("written again");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["r.sarif", "r.xml"]);
        let nowhere = ReportFiles::default().with("html", dir.join("missing").join("r.html"));
        let e = write_traffic(&nowhere, &tally, "t").expect_err("no such folder");
        assert!(e.contains("missing/r.html") && e.contains("HTML"), "{e}");
        // No exchange: every rule not applicable, and the gate fails.
        assert!(
            results(&tally)
                .iter()
                .all(|r| r.status == Status::NotApplicable)
        );
        assert_eq!(exit_code(&tally, "t"), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The flags parse into the table's files, in its order.
    #[test]
    fn flags_follow_the_rows() {
        let cmd = RunReports::augment_args(Command::new("t"));
        let m = cmd
            .try_get_matches_from(["t", "--html", "a.html", "--junit", "j.xml"])
            .expect("parses");
        let files = RunReports::from_arg_matches(&m).expect("files").0;
        let got: Vec<(&str, &PathBuf)> = files.iter().map(|(f, p)| (f.flag, p)).collect();
        assert_eq!(
            got,
            [
                ("junit", &PathBuf::from("j.xml")),
                ("html", &PathBuf::from("a.html"))
            ]
        );
        assert!(!ReportFiles::default().any());
    }

    /// A run reads its report paths from `CONFORMANCE_<FORMAT>` too; the
    /// traffic commands do not (they would write over the run's).
    #[test]
    fn only_a_run_reads_report_paths_from_the_environment() {
        let run = RunReports::augment_args(Command::new("t"));
        let traffic = TrafficReports::augment_args(Command::new("t"));
        for f in FORMATS {
            let env = |cmd: &Command| {
                cmd.get_arguments()
                    .find(|a| a.get_id() == f.flag)
                    .and_then(|a| a.get_env().map(|e| e.to_owned()))
            };
            assert_eq!(env(&run), Some(std::ffi::OsString::from(f.env)));
            assert_eq!(env(&traffic), None, "{}", f.flag);
        }
    }

    /// `action.yml` has an input per row, passed to `run.sh` as its
    /// variable, which `run.sh` turns into the row's flag; and neither has
    /// a report input the table lacks.
    #[test]
    fn the_action_and_its_script_follow_the_rows() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let read = |path: &str| {
            std::fs::read_to_string(format!("{root}/{path}"))
                .unwrap_or_else(|e| panic!("{path}: {e}"))
        };
        let action = read("action.yml");
        let script = read(".github/action/run.sh");
        let yaml: serde_yaml::Value = serde_yaml::from_str(&action).expect("action.yml is YAML");
        let mut wrong = Vec::new();
        for f in FORMATS {
            let var = f.variable();
            let input = &yaml["inputs"][f.flag];
            if input["description"].as_str() != Some(f.action_help) {
                wrong.push(format!("action.yml: input `{}`: {:?}", f.flag, input));
            }
            let passed = format!("        {var}: ${{{{ inputs.{} }}}}\n", f.flag);
            if !action.contains(&passed) {
                wrong.push(format!("action.yml does not pass {var}"));
            }
            let used = format!(
                "[ -z \"${{{var}:-}}\" ] || args+=(--{} \"${var}\")\n",
                f.flag
            );
            if !script.contains(&used) {
                wrong.push(format!("run.sh does not turn {var} into --{}", f.flag));
            }
        }
        let reports: Vec<&str> = yaml["inputs"]
            .as_mapping()
            .expect("inputs")
            .iter()
            .filter(|(_, v)| {
                v["description"]
                    .as_str()
                    .is_some_and(|d| d.contains(" report here"))
            })
            .filter_map(|(k, _)| k.as_str())
            .collect();
        let rows: Vec<&str> = FORMATS.iter().map(|f| f.flag).collect();
        if reports != rows {
            wrong.push(format!(
                "action.yml's report inputs {reports:?}, the table's {rows:?}"
            ));
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
