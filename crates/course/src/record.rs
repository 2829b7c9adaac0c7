//! What a grading says as its outcomes come in, for any front end: each outcome becomes the text
//! for people, the JSON lines and, with a program's last case, its summary; the summaries, marks
//! and first failures are kept for the reports written at the end.

use crate::grade::{Case, Outcome, Program, Settings, Summary, Verdict};
use crate::marks::CaseMark;
use crate::{json, report};

/// One thing to tell, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    /// Text for people (whole lines).
    Text(String),
    /// A line of JSON Lines.
    Json(String),
}

/// A grading's record so far.
pub struct Recorder<'a> {
    pub programs: &'a [Program],
    pub cases: &'a [Case],
    pub settings: &'a Settings,
    /// How many failing cases of a program are told in full for people.
    show: usize,
    /// How many failing outcomes of a program are kept for the page.
    keep: usize,
    pub summaries: Vec<Summary>,
    /// Each program's summary line, once its last case is in.
    pub summary_lines: Vec<String>,
    /// Each program's first outcomes that did not pass.
    pub failing: Vec<Vec<Outcome>>,
    /// Every case's mark per program (for the reports that score).
    pub marks: Vec<Vec<CaseMark>>,
    /// Failing cases of each program so far.
    failed: Vec<usize>,
}

impl<'a> Recorder<'a> {
    /// A record of `programs` over `cases`, telling `show` failing cases of each in full and
    /// keeping `keep` for the page.
    pub fn new(programs: &'a [Program], cases: &'a [Case], settings: &'a Settings, show: usize, keep: usize) -> Self {
        Recorder {
            programs,
            cases,
            settings,
            show,
            keep,
            summaries: vec![Summary::default(); programs.len()],
            summary_lines: Vec::new(),
            failing: vec![Vec::new(); programs.len()],
            marks: vec![Vec::new(); programs.len()],
            failed: vec![0; programs.len()],
        }
    }

    /// Records one outcome (a program's cases come in order), and what it says.
    pub fn record(&mut self, outcome: Outcome) -> Vec<Said> {
        let limits = &self.settings.limits;
        let (program, case) = (&self.programs[outcome.program], &self.cases[outcome.case]);
        let mut said = Vec::new();
        if outcome.case == 0 {
            said.push(Said::Text(format!("\n== {}\n", program.name)));
        }
        let summary = &mut self.summaries[outcome.program];
        summary.add(&outcome);
        self.marks[outcome.program].push(CaseMark::of(&outcome, case, limits));
        if outcome.verdict() != Verdict::Pass {
            let failed = &mut self.failed[outcome.program];
            *failed += 1;
            if *failed <= self.show {
                said.push(Said::Text(report::outcome_text(&outcome, case, limits)));
            }
        }
        said.extend(
            json::GradeCase::each(&outcome, case, program, limits)
                .iter()
                .map(|object| Said::Json(json::line(object))),
        );
        if outcome.case + 1 == self.cases.len() {
            let hidden = self.failed[outcome.program].saturating_sub(self.show);
            if hidden > 0 {
                said.push(Said::Text(format!(
                    "... and {hidden} more case{} that did not pass (--show N shows more; --json has them all)\n",
                    if hidden == 1 { "" } else { "s" }
                )));
            }
            let mut line = format!(
                "{}: {}",
                program.name,
                report::summary_text(summary, &self.settings.judges)
            );
            if let Some((slowest, seconds)) = summary.slowest {
                line.push_str(&format!(" (slowest: {}, {seconds:.2} s)", self.cases[slowest].name));
            }
            said.push(Said::Text(format!("{line}\n")));
            self.summary_lines.push(line);
            said.push(Said::Json(json::line(&json::GradeSummary::new(
                program,
                summary,
                &self.settings.judges,
                limits,
            ))));
        }
        if outcome.verdict() != Verdict::Pass && self.failing[outcome.program].len() < self.keep {
            self.failing[outcome.program].push(outcome);
        }
        said
    }
}
