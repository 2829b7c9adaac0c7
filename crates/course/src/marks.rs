//! Points per case and each case's mark: what the reports that score (Gradescope's results.json,
//! JUnit XML) need of a graded run, kept for every case, not only the failing ones.

use std::collections::BTreeMap;
use std::path::Path;

use super::grade::{Case, Outcome, Verdict};
use super::report;
use othello_sandbox::Limits;

/// The most of a case's report kept for a scoring report (Gradescope shows it to the student).
const DETAIL_BYTES: usize = 4096;

/// One case of one program, as a scoring report gives it.
#[derive(Clone, Debug)]
pub struct CaseMark {
    pub case: usize,
    pub verdict: Verdict,
    /// The share of the case's points earned: 1 or 0, or Lab 5's marks (out of 1) with its judge.
    pub earned: f64,
    pub seconds: f64,
    /// What went wrong, as the report for people says it (cut at 4 KiB); empty for a pass.
    pub detail: String,
    /// The last lines of stdout of a run that was stopped (a time-out, a limit).
    pub stdout_tail: Vec<String>,
    /// The last lines of stderr of a run that did not pass.
    pub stderr_tail: Vec<String>,
}

impl CaseMark {
    pub fn of(outcome: &Outcome, case: &Case, limits: &Limits) -> CaseMark {
        let verdict = outcome.verdict();
        let lab5 = outcome.judgements.iter().find_map(|j| j.marks);
        let earned = match (lab5, verdict) {
            (Some(marks), Verdict::Pass | Verdict::Fail) => marks.clamp(0.0, 1.0),
            (_, Verdict::Pass) => 1.0,
            _ => 0.0,
        };
        let mut detail = if verdict == Verdict::Pass {
            String::new()
        } else {
            report::outcome_text(outcome, case, limits)
        };
        if detail.len() > DETAIL_BYTES {
            let mut cut = DETAIL_BYTES;
            while !detail.is_char_boundary(cut) {
                cut -= 1;
            }
            detail.truncate(cut);
            detail.push_str("\n... (cut: --json has every difference)\n");
        }
        CaseMark {
            case: outcome.case,
            verdict,
            earned,
            seconds: outcome.seconds,
            detail,
            stdout_tail: outcome.stdout_tail.clone(),
            stderr_tail: if verdict == Verdict::Pass {
                Vec::new()
            } else {
                outcome.stderr_tail.clone()
            },
        }
    }
}

/// What a case is worth in a scoring report, and who sees it (Gradescope's test visibility).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worth {
    pub points: f64,
    /// `visible`, `hidden`, `after_due_date` or `after_published`.
    pub visibility: &'static str,
}

/// Gradescope's visibilities of a test.
pub(crate) const VISIBILITIES: [&str; 4] = ["visible", "hidden", "after_due_date", "after_published"];

/// Each case's worth, in the cases' order, from `--points`: a number for every case, or a file of
/// `NAME POINTS [VISIBILITY]` lines (`#` starts a comment) where cases it does not name are worth 1,
/// visible.
pub fn points(spec: &str, cases: &[Case]) -> Result<Vec<Worth>, String> {
    let worth = |points| Worth {
        points,
        visibility: "visible",
    };
    if let Ok(each) = spec.parse::<f64>() {
        if !(each.is_finite() && each > 0.0 && each <= 1e6) {
            return Err(format!(
                "bad --points {spec}: expected points from more than 0 to 1000000, or a file"
            ));
        }
        return Ok(vec![worth(each); cases.len()]);
    }
    let text = othello_plumbing::files::read_text(Path::new(spec)).map_err(|e| format!("bad --points {spec}: {e}"))?;
    let index: BTreeMap<&str, usize> = cases.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    let mut points = vec![worth(1.0); cases.len()];
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let where_ = || format!("{spec} line {}", number + 1);
        let (name, value) = line
            .split_once(char::is_whitespace)
            .ok_or_else(|| format!("{}: expected `NAME POINTS`, found {line:?}", where_()))?;
        let &case = index
            .get(name)
            .ok_or_else(|| format!("{}: no case named {name:?} in the cases folder", where_()))?;
        let mut words = value.split_whitespace();
        let (value, visibility) = (words.next().unwrap_or(""), words.next());
        if let Some(extra) = words.next() {
            return Err(format!(
                "{}: {extra:?} after the visibility: expected `NAME POINTS [VISIBILITY]`",
                where_()
            ));
        }
        if let Some(visibility) = visibility {
            points[case].visibility = VISIBILITIES.iter().find(|v| **v == visibility).ok_or_else(|| {
                format!(
                    "{}: bad visibility {visibility:?}: expected {}",
                    where_(),
                    VISIBILITIES.join(", ")
                )
            })?;
        }
        points[case].points = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|p| p.is_finite() && *p >= 0.0 && *p <= 1e6)
            .ok_or_else(|| {
                format!(
                    "{}: bad points {:?}: expected a number from 0 to 1000000",
                    where_(),
                    value.trim()
                )
            })?;
    }
    Ok(points)
}
