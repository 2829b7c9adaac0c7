//! The JSON of grading: a line per case and judge, a summary per program, and Gradescope's file.

use super::*;

/// `grade --json`, a line per program and case and judge (`type` `case`), then one per program
/// (`type` `summary`).
#[derive(Serialize, JsonSchema)]
pub struct GradeCase {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub program: String,
    pub case: String,
    pub args: Vec<String>,
    pub judge: &'static str,
    pub verdict: &'static str,
    /// The first differences; `total_differences` counts them all.
    pub differences: Vec<DifferenceJson>,
    pub total_differences: usize,
    /// Lab 5's marks, out of 1 (the lab5 judge only).
    pub marks: Option<f64>,
    pub seconds: f64,
    pub cpu_seconds: Option<f64>,
    /// How the run ended, in words.
    pub ending: String,
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    /// The last lines of stderr of a run that crashed, timed out or failed.
    pub stderr_tail: Vec<String>,
}

impl Document for GradeCase {
    const FORMAT: &'static str = "othello-grade";
}

/// One difference: where, and what each side has there. For a difference of lines, `text` is true
/// and `expected` and `actual` are the lines themselves (newlines kept, empty for none); otherwise
/// they say in words what was expected and found (`3 snapshots`, `[18, 20, 29]`).
#[derive(Serialize, JsonSchema)]
pub struct DifferenceJson {
    pub place: String,
    pub text: bool,
    pub expected: String,
    pub actual: String,
}

impl GradeCase {
    /// One object per judgement of `outcome`.
    pub fn each(outcome: &Outcome, case: &Case, program: &Program, limits: &Limits) -> Vec<GradeCase> {
        let (exit_status, signal) = match outcome.ending {
            Ending::Exited(code) => (Some(code), None),
            Ending::Signalled(signal) => (None, Some(signal)),
            _ => (None, None),
        };
        outcome
            .judgements
            .iter()
            .map(|judgement| GradeCase {
                kind: "case",
                program: program.name.clone(),
                case: case.name.clone(),
                args: case.args.clone(),
                judge: judgement.judge.name(),
                verdict: judgement.verdict.name(),
                differences: judgement
                    .differences
                    .iter()
                    .map(|d| match &d.text {
                        Some((expected, actual)) => DifferenceJson {
                            place: d.place.clone(),
                            text: true,
                            expected: expected.clone(),
                            actual: actual.clone(),
                        },
                        None => DifferenceJson {
                            place: d.place.clone(),
                            text: false,
                            expected: d.expected.clone(),
                            actual: d.actual.clone(),
                        },
                    })
                    .collect(),
                total_differences: judgement.total_differences,
                marks: judgement.marks,
                seconds: outcome.seconds,
                cpu_seconds: outcome.cpu_seconds,
                ending: match &outcome.ending {
                    Ending::NotStarted(why) if judgement.verdict == grade::Verdict::NotRun => why.clone(),
                    ending => ending.describe(limits),
                },
                exit_status,
                signal,
                stderr_tail: outcome.stderr_tail.clone(),
            })
            .collect()
    }
}

/// A program's totals in `grade --json`.
#[derive(Serialize, JsonSchema)]
pub struct GradeSummary {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub program: String,
    pub command: Vec<String>,
    pub cases: usize,
    /// Cases passed, per judge.
    pub passed: BTreeMap<&'static str, usize>,
    /// Cases some judge failed (a time-out, a limit or a crash is no failure), and each judge's.
    pub failed: usize,
    pub failed_by: BTreeMap<&'static str, usize>,
    pub timeouts: usize,
    pub limits: usize,
    pub crashes: usize,
    /// Cases not run: the program had timed out on `--max-timeouts` cases in a row.
    pub not_run: usize,
    pub seconds: f64,
    pub cpu_seconds: Option<f64>,
    /// Whether the runs were sandboxed, and how.
    pub isolated: bool,
    pub isolation: String,
    /// Lab 5's marks over all cases (the lab5 judge only).
    pub marks: Option<f64>,
}

impl Document for GradeSummary {
    const FORMAT: &'static str = "othello-grade";
}

impl GradeSummary {
    pub fn new(program: &Program, summary: &Summary, judges: &[Judge], limits: &Limits) -> GradeSummary {
        GradeSummary {
            kind: "summary",
            program: program.name.clone(),
            command: program.command_words(),
            cases: summary.cases,
            passed: judges
                .iter()
                .map(|j| (j.name(), summary.passed.get(j).copied().unwrap_or(0)))
                .collect(),
            failed: summary.failed,
            failed_by: judges
                .iter()
                .map(|j| (j.name(), summary.failed_by.get(j).copied().unwrap_or(0)))
                .collect(),
            timeouts: summary.timeouts,
            limits: summary.limits,
            crashes: summary.crashes,
            not_run: summary.not_run,
            seconds: summary.seconds,
            cpu_seconds: summary.cpu_seconds,
            isolated: limits.isolation.is_sandbox(),
            isolation: limits.isolation.describe(),
            marks: judges.contains(&Judge::Lab5).then_some(summary.marks),
        }
    }
}

/// Gradescope's `results.json` (its autograder specification), for `grade --gradescope`: a format
/// of theirs, so without our `format` and `version`.
#[derive(Serialize, JsonSchema)]
pub struct Gradescope {
    pub score: f64,
    pub execution_time: f64,
    /// The program's summary line, shown above the tests.
    pub output: String,
    /// How Gradescope shows `output`: as plain text (the report escapes what a program printed).
    pub output_format: &'static str,
    pub visibility: &'static str,
    pub stdout_visibility: &'static str,
    pub tests: Vec<GradescopeTest>,
}

#[derive(Serialize, JsonSchema)]
pub struct GradescopeTest {
    pub score: f64,
    pub max_score: f64,
    /// `passed` or `failed`.
    pub status: &'static str,
    pub name: String,
    pub number: String,
    /// What went wrong, as the report for people says it.
    pub output: String,
    pub output_format: &'static str,
    pub visibility: &'static str,
}

impl Gradescope {
    /// One program's results, `points[i]` the worth of case `i`.
    pub fn new(summary_line: String, marks: &[CaseMark], cases: &[Case], points: &[crate::marks::Worth]) -> Gradescope {
        let tests: Vec<GradescopeTest> = marks
            .iter()
            .map(|mark| GradescopeTest {
                score: round(points[mark.case].points * mark.earned),
                max_score: points[mark.case].points,
                status: if mark.verdict == grade::Verdict::Pass {
                    "passed"
                } else {
                    "failed"
                },
                name: cases[mark.case].name.clone(),
                number: (mark.case + 1).to_string(),
                output: mark.detail.clone(),
                output_format: "text",
                visibility: points[mark.case].visibility,
            })
            .collect();
        Gradescope {
            score: round(tests.iter().map(|t| t.score).sum()),
            execution_time: marks.iter().map(|m| m.seconds).sum(),
            output: summary_line,
            output_format: "text",
            visibility: "visible",
            stdout_visibility: "visible",
            tests,
        }
    }

    /// The file's text: pretty, as people read it when a grade looks wrong.
    pub fn text(&self) -> String {
        serde_json::to_string_pretty(self).expect("an output struct serializes") + "\n"
    }
}

/// Points to the thousandth: sums of fractions print as people expect (0.3, not 0.30000000000000004).
fn round(points: f64) -> f64 {
    (points * 1000.0).round() / 1000.0
}
