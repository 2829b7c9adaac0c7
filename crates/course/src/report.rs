//! Grading reports: lines for people as the results come in, JSON Lines and CSV for machines and
//! gradebooks, and one self-contained HTML page with the class table and the failing boards drawn.

use std::fmt::Write as _;

use itertools::Itertools;

use super::grade::{Case, Judgement, Outcome, Program, Summary, Verdict, args_line};
use super::judge::Judge;
use othello_sandbox::{Isolation, Limits};

/// A time in reports: wall time, and CPU time where it was measured.
fn times(seconds: f64, cpu: Option<f64>) -> String {
    match cpu {
        Some(cpu) => format!("{cpu:.2} s CPU, {seconds:.2} s wall"),
        None => format!("{seconds:.2} s"),
    }
}

fn verdict_label(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
        Verdict::Timeout => "TIMEOUT",
        Verdict::Limit => "LIMIT",
        Verdict::Crash => "CRASH",
        Verdict::NotRun => "NOT RUN",
    }
}

/// A failing, timed-out or crashed outcome for people: the case, its arguments, how the run ended and
/// the first differences of each judge that failed it.
pub(crate) fn outcome_text(outcome: &Outcome, case: &Case, limits: &Limits) -> String {
    let verdict = outcome.verdict();
    let mut out = format!(
        "{:<8} {}  args: {}\n",
        verdict_label(verdict),
        case.name,
        args_line(&case.args)
    );
    match verdict {
        Verdict::Pass => {}
        Verdict::NotRun => {
            let _ = writeln!(out, "  {}", not_run_text(outcome));
        }
        Verdict::Timeout | Verdict::Limit | Verdict::Crash => {
            let _ = writeln!(
                out,
                "  {} ({})",
                outcome.ending.describe(limits),
                times(outcome.seconds, outcome.cpu_seconds)
            );
            for (tail, name) in [(&outcome.stdout_tail, "stdout"), (&outcome.stderr_tail, "stderr")] {
                if !tail.is_empty() {
                    let _ = writeln!(out, "  last lines of {name}:");
                    for line in tail {
                        let _ = writeln!(out, "  | {line}");
                    }
                }
            }
        }
        Verdict::Fail => {
            if outcome.judgements.len() > 1 {
                let verdicts = outcome
                    .judgements
                    .iter()
                    .map(|j| format!("{} {}", j.judge, j.verdict.name()))
                    .join(", ");
                let _ = writeln!(out, "  {verdicts}");
            }
            // The most lenient judge that failed the case shows what matters most: a strict failure
            // that the tolerant judge forgives is layout, a course failure is a wrong answer.
            if let Some(judgement) = most_lenient_failure(&outcome.judgements) {
                for difference in &judgement.differences {
                    let text = difference.to_string().replace('\n', "\n    ");
                    let _ = writeln!(out, "  {}: {text}", judgement.judge);
                }
                let more = judgement.total_differences - judgement.differences.len();
                if more > 0 {
                    let _ = writeln!(out, "  {}: {more} more difference{}", judgement.judge, plural(more));
                }
            }
        }
    }
    out
}

/// Why a case was not run (`not run: 3 time-outs in a row`).
fn not_run_text(outcome: &Outcome) -> String {
    match &outcome.ending {
        othello_sandbox::Ending::NotStarted(why) => why.clone(),
        _ => "not run".to_string(),
    }
}

fn most_lenient_failure(judgements: &[Judgement]) -> Option<&Judgement> {
    judgements
        .iter()
        .filter(|j| j.verdict == Verdict::Fail)
        .max_by_key(|j| j.judge)
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `tolerant 197/200, course 199/200; 1 failed, 1 time-out, 1 crash; 1.20 s CPU, 12.30 s wall`.
pub(crate) fn summary_text(summary: &Summary, judges: &[Judge]) -> String {
    let passed = judges
        .iter()
        .map(|judge| {
            format!(
                "{judge} {}/{}",
                summary.passed.get(judge).copied().unwrap_or(0),
                summary.cases
            )
        })
        .join(", ");
    let marks = if judges.contains(&Judge::Lab5) {
        format!("; Lab 5 marks {}/{}", summary.marks, summary.cases)
    } else {
        String::new()
    };
    let limits = if summary.limits > 0 {
        format!(", {} over a limit", summary.limits)
    } else {
        String::new()
    };
    let not_run = if summary.not_run > 0 {
        format!(", {} not run", summary.not_run)
    } else {
        String::new()
    };
    // One judge: how many cases failed; several: how many each failed (a case may fail one only).
    let failed = if judges.len() > 1 {
        let each = judges
            .iter()
            .map(|judge| format!("{judge} {}", summary.failed_by.get(judge).copied().unwrap_or(0)))
            .join(", ");
        format!("failed: {each}")
    } else {
        format!("{} failed", summary.failed)
    };
    format!(
        "{}{marks}; {failed}, {} time-out{}{limits}, {} crash{}{not_run}; {}",
        passed,
        summary.timeouts,
        plural(summary.timeouts),
        summary.crashes,
        if summary.crashes == 1 { "" } else { "es" },
        times(summary.seconds, summary.cpu_seconds)
    )
}

/// The class table for people: one row per program (`table::grade_summaries`).
pub fn class_table(programs: &[Program], summaries: &[Summary], judges: &[Judge], isolation: &Isolation) -> String {
    let rows: Vec<_> = programs.iter().zip(summaries).collect();
    crate::table::text(&crate::table::grade_summaries(judges, &rows, isolation), &rows)
}

/// A cell of a CSV table: text (a name, a reason), kept from being read as a formula, or a number,
/// written as it is.
pub enum Cell {
    Text(String),
    Number(String),
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Cell {
        Cell::Text(text.into())
    }

    /// A number, or any value written as it is (an empty cell: `Cell::number("")`).
    pub fn number(value: impl std::fmt::Display) -> Cell {
        Cell::Number(value.to_string())
    }
}

/// Text a spreadsheet will not run: a text that starts with `=`, `+`, `-`, `@`, a tab or a carriage
/// return gets a leading `'` (OWASP's rule for CSV injection: `=HYPERLINK(...)` as a student's name
/// stays text). Numbers never come through here (a margin of `-5` stays a number).
///
/// ```
/// use othello_course::report::spreadsheet_safe;
/// assert_eq!(spreadsheet_safe("alice"), "alice");
/// assert_eq!(spreadsheet_safe("=HYPERLINK(\"http://x\")"), "'=HYPERLINK(\"http://x\")");
/// assert_eq!(spreadsheet_safe("-5"), "'-5");
/// ```
pub fn spreadsheet_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// A CSV table (RFC 4180, written by the csv crate: a cell is quoted when it holds a comma, a quote
/// or a line break), its text cells made spreadsheet-safe.
///
/// ```
/// use othello_course::report::{Cell, csv_table};
/// let rows = [vec![Cell::text("=1+2, said \"bob\""), Cell::number(-5)]];
/// assert_eq!(csv_table(&["name", "margin"], rows), "name,margin\n\"'=1+2, said \"\"bob\"\"\",-5\n");
/// ```
pub fn csv_table(header: &[&str], rows: impl IntoIterator<Item = Vec<Cell>>) -> String {
    let mut writer = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    // Writing to memory cannot fail.
    let _ = writer.write_record(header);
    for row in rows {
        let cells = row.iter().map(|cell| match cell {
            Cell::Text(text) => spreadsheet_safe(text),
            Cell::Number(number) => number.as_str().into(),
        });
        let _ = writer.write_record(cells.map(|cell| cell.into_owned()));
    }
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A gradebook: a header, then one row per program (`table::grade_summaries`); its last column
/// says whether the runs were isolated (`no` with --no-sandbox).
pub fn csv(programs: &[Program], summaries: &[Summary], judges: &[Judge], limits: &Limits) -> String {
    let rows: Vec<_> = programs.iter().zip(summaries).collect();
    crate::table::csv(&crate::table::grade_summaries(judges, &rows, &limits.isolation), &rows)
}

/// Text as HTML or XML content or attribute: the five special characters escaped, and characters
/// neither can hold (most control characters) replaced.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// An 8x8 board as an HTML table; squares that differ from `other` are marked.
pub(super) fn board_html(rows: &[String], other: &[String], title: &str) -> String {
    let mut out = format!(
        "<figure><figcaption>{}</figcaption><table class=\"board\">",
        escape(title)
    );
    out.push_str("<tr><th></th>");
    for col in 'a'..='h' {
        let _ = write!(out, "<th>{col}</th>");
    }
    out.push_str("</tr>");
    for row in 0..8 {
        let _ = write!(out, "<tr><th>{}</th>", row + 1);
        let cells: Vec<char> = rows.get(row).map(|r| r.chars().collect()).unwrap_or_default();
        let others: Vec<char> = other.get(row).map(|r| r.chars().collect()).unwrap_or_default();
        for col in 0..8 {
            let cell = cells.get(col).copied();
            let (class, glyph) = match cell {
                Some('x') => ("x", "&#9679;"),
                Some('o') => ("o", "&#9679;"),
                // A possible move, as the lab's `*`.
                Some('*') => ("mark", "&#8226;"),
                Some(_) => ("e", ""),
                None => ("missing", "?"),
            };
            let differs = cell != others.get(col).copied();
            let _ = write!(
                out,
                "<td class=\"{class}{}\">{glyph}</td>",
                if differs { " diff" } else { "" }
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</table></figure>");
    out
}

pub(super) const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table.class{border-collapse:collapse}table.class td,table.class th{border:1px solid #bbb;padding:.3em .7em;text-align:right}\
table.class td:first-child,table.class th:first-child{text-align:left}\
.ok{background:#e3f6e3}.bad{background:#fbe3e3}\
.case{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;margin:1em 0}\
.verdict{font-weight:bold}.fail{color:#b00}.timeout,.limit,.crash{color:#a60}.not-run{color:#777}\
.warning{background:#fff3cd;border:1px solid #e0b000;padding:.5em 1em}\
pre{background:#f6f6f6;padding:.5em;overflow-x:auto}\
.boards{display:flex;gap:2em}figure{margin:0}figcaption{font-weight:bold;margin-bottom:.3em}\
table.board{border-collapse:collapse}table.board th{font-weight:normal;color:#777;padding:0 .3em}\
table.board td{width:1.6em;height:1.6em;text-align:center;background:#2e7d32;border:1px solid #1b4d1e;font-size:1.1em}\
td.x{color:#000}td.o{color:#fff}td.mark{color:#ffeb3b;font-size:1.8em;line-height:1}td.diff{outline:3px solid #ff1744;outline-offset:-3px}td.missing{background:#999}\
.diffs li{margin-bottom:.4em}code{white-space:pre-wrap}";

/// What the HTML page shows of one program: its summary and its first failing outcomes.
pub struct ProgramPage<'a> {
    pub program: &'a Program,
    pub summary: &'a Summary,
    pub failing: &'a [Outcome],
}

/// The whole HTML report, one page with no outside resources. Paths under a folder of `relative_to`
/// (the class folder, as given and resolved) are written relative to it: a page that gets shared
/// shows no teacher's home.
pub fn html(
    title: &str,
    pages: &[ProgramPage],
    cases: &[Case],
    judges: &[Judge],
    limits: &Limits,
    relative_to: &[std::path::PathBuf],
) -> String {
    let mut page = html_page(title, pages, cases, judges, limits);
    for folder in relative_to {
        let prefix = escape(&format!("{}/", folder.display()));
        if prefix.len() > 1 {
            page = page.replace(&prefix, "");
        }
    }
    page
}

fn html_page(title: &str, pages: &[ProgramPage], cases: &[Case], judges: &[Judge], limits: &Limits) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(title)
    );
    let _ = writeln!(
        out,
        "<h1>{}</h1><p>{} case{}, judge{} {}, {} a case.</p>",
        escape(title),
        cases.len(),
        plural(cases.len()),
        plural(judges.len()),
        judges.iter().map(|j| j.name()).join(", "),
        limits.describe_time()
    );
    let class = if limits.isolation.is_sandbox() {
        ""
    } else {
        " class=\"warning\""
    };
    let _ = writeln!(out, "<p{class}>Runs: {}.</p>", escape(&limits.isolation.describe()));
    let rows: Vec<_> = pages.iter().map(|page| (page.program, page.summary)).collect();
    out += &crate::table::html(
        &crate::table::grade_summaries(judges, &rows, &limits.isolation),
        &rows,
        Some("p"),
    );
    for (index, page) in pages.iter().enumerate() {
        let _ = writeln!(
            out,
            "<h2 id=\"p{index}\">{}</h2><p><code>{}</code></p>",
            escape(&page.program.name),
            escape(&shell_words::join(page.program.command_words()))
        );
        let not_passed = page.summary.cases
            - page
                .summary
                .passed
                .values()
                .copied()
                .min()
                .unwrap_or(page.summary.cases);
        // What went wrong, most common first: one mistake usually fails many cases alike.
        let mut kinds: Vec<(&String, &(usize, usize))> = page.summary.kinds.iter().collect();
        kinds.sort_by_key(|(kind, (count, first))| (std::cmp::Reverse(*count), *first, kind.as_str()));
        if !kinds.is_empty() {
            out.push_str("<ul class=\"kinds\">");
            for (kind, (count, first)) in kinds {
                let _ = write!(
                    out,
                    "<li>{count} case{}: {} (first: {})</li>",
                    plural(*count),
                    escape(kind),
                    escape(&cases[*first].name)
                );
            }
            out.push_str("</ul>\n");
        }
        if page.failing.is_empty() {
            out.push_str("<p>Every case passed.</p>\n");
        } else if page.failing.len() < not_passed {
            let _ = writeln!(
                out,
                "<p>The first {} of {not_passed} cases that did not pass:</p>",
                page.failing.len()
            );
        }
        for outcome in page.failing {
            out.push_str(&outcome_html(outcome, &cases[outcome.case], limits));
        }
    }
    out.push_str("</body></html>\n");
    out
}

fn outcome_html(outcome: &Outcome, case: &Case, limits: &Limits) -> String {
    let verdict = outcome.verdict();
    let mut out = format!(
        "<div class=\"case\"><p><span class=\"verdict {}\">{}</span> {} &mdash; arguments: <code>{}</code> ({})</p>\n",
        verdict.name(),
        verdict_label(verdict),
        escape(&case.name),
        escape(&args_line(&case.args)),
        times(outcome.seconds, outcome.cpu_seconds)
    );
    if verdict == Verdict::NotRun {
        let _ = writeln!(out, "<p>{}</p>", escape(&not_run_text(outcome)));
    }
    if matches!(verdict, Verdict::Timeout | Verdict::Limit | Verdict::Crash) {
        let _ = writeln!(out, "<p>{}</p>", escape(&outcome.ending.describe(limits)));
        if !outcome.stdout_tail.is_empty() {
            let _ = writeln!(
                out,
                "<p>What it had printed when it was stopped (its last lines):</p><pre>{}</pre>",
                escape(&outcome.stdout_tail.join("\n"))
            );
        }
        if !outcome.stderr_tail.is_empty() {
            let _ = writeln!(out, "<pre>{}</pre>", escape(&outcome.stderr_tail.join("\n")));
        }
    }
    let mut drawn = false;
    for judgement in outcome.judgements.iter().filter(|j| j.verdict == Verdict::Fail) {
        let _ = write!(out, "<p>{}:</p><ul class=\"diffs\">", judgement.judge);
        for difference in &judgement.differences {
            let _ = write!(
                out,
                "<li>{}<br>expected: <code>{}</code><br>actual: <code>{}</code></li>",
                escape(&difference.place),
                escape(&difference.expected),
                escape(&difference.actual)
            );
        }
        let more = judgement.total_differences - judgement.differences.len();
        if more > 0 {
            let _ = write!(out, "<li>{more} more difference{}</li>", plural(more));
        }
        out.push_str("</ul>\n");
        if !drawn && let Some(shown) = judgement.differences.iter().find(|d| d.boards.is_some()) {
            let (expected, actual) = shown.boards.as_ref().expect("found with boards");
            // Which board: the snapshot of the first difference drawn, or the last board.
            let which = match shown.place.split(',').next() {
                Some(snapshot) if snapshot.starts_with("snapshot ") => snapshot.to_string(),
                _ => "the last board".to_string(),
            };
            let _ = writeln!(
                out,
                "<div class=\"boards\">{}{}</div><p class=\"legend\">&#8226; a possible move as each lists it; a square ringed in red differs.</p>",
                board_html(expected, actual, &format!("expected, {which}")),
                board_html(actual, expected, &format!("actual, {which}"))
            );
            drawn = true;
        }
    }
    out.push_str("</div>\n");
    out
}
