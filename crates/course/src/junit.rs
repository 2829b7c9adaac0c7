//! JUnit XML, the test report CI systems and LMS plug-ins read, in Apache Ant's aggregated form (what
//! its `junitreport` task writes, and docs/schemas/junit.xsd describes): a test suite per program, a
//! test case per case, its failure (a wrong output) or error (a time-out, a crash, a limit) with the
//! report for people inside.

use super::grade::{Case, Program, Verdict};
use super::marks::CaseMark;
use super::report::escape;

/// When, where and how the report was made, as Ant's format gives every suite.
pub struct Context {
    pub started: std::time::SystemTime,
    /// The machine's name (`localhost` where none can be read).
    pub hostname: String,
    /// The grading settings, as the suite's `properties` (name, value).
    pub properties: Vec<(String, String)>,
}

/// This machine's name, as a token (Ant's schema: no spaces, not empty).
pub fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name.trim().chars().filter(|c| !c.is_whitespace()).collect();
    if name.is_empty() { "localhost".to_string() } else { name }
}

/// The element a case's verdict is written as, if any (a pass is an empty test case).
fn element(verdict: Verdict) -> Option<&'static str> {
    match verdict {
        Verdict::Pass => None,
        Verdict::Fail => Some("failure"),
        Verdict::NotRun => Some("skipped"),
        Verdict::Timeout | Verdict::Crash | Verdict::Limit => Some("error"),
    }
}

/// Each case's lines under its name, for a suite's `system-out` or `system-err`.
fn by_case(marks: &[CaseMark], cases: &[Case], lines: impl Fn(&CaseMark) -> &[String]) -> String {
    marks
        .iter()
        .filter(|m| !lines(m).is_empty())
        .map(|m| format!("{}:\n{}\n", cases[m.case].name, lines(m).join("\n")))
        .collect()
}

/// The whole report: `testsuites` (Ant's aggregate has no attributes of its own), one suite per
/// program numbered from 0.
pub fn report(programs: &[Program], marks: &[Vec<CaseMark>], cases: &[Case], context: &Context) -> String {
    // Ant's timestamp: a date and time without fractions or zone (UTC here).
    let timestamp: String = othello_core::log::rfc3339(context.started).chars().take(19).collect();
    let count = |marks: &[CaseMark], name: &str| marks.iter().filter(|m| element(m.verdict) == Some(name)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (id, (program, marks)) in programs.iter().zip(marks).enumerate() {
        let time: f64 = marks.iter().map(|m| m.seconds).sum();
        out += &format!(
            "  <testsuite package=\"othello.grade\" id=\"{id}\" name=\"{}\" timestamp=\"{timestamp}\" hostname=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{time:.3}\">\n",
            escape(&program.name),
            escape(&context.hostname),
            marks.len(),
            count(marks, "failure"),
            count(marks, "error"),
            count(marks, "skipped"),
        );
        out += "    <properties>\n";
        for (name, value) in &context.properties {
            out += &format!(
                "      <property name=\"{}\" value=\"{}\"/>\n",
                escape(name),
                escape(value)
            );
        }
        out += "    </properties>\n";
        for mark in marks {
            out += &format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                escape(&cases[mark.case].name),
                escape(&program.name),
                mark.seconds
            );
            let Some(element) = element(mark.verdict) else {
                out += "/>\n";
                continue;
            };
            let message = mark
                .detail
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default()
                .trim();
            // Ant's skipped element has a message and no type.
            let kind = if element == "skipped" {
                String::new()
            } else {
                format!(" type=\"{}\"", mark.verdict.name())
            };
            out += &format!(
                ">\n      <{element}{kind} message=\"{}\">{}</{element}>\n    </testcase>\n",
                escape(message),
                escape(&mark.detail)
            );
        }
        // What the stopped runs had printed last, and the stderr of the runs that did not pass.
        let printed = by_case(marks, cases, |m| &m.stdout_tail);
        out += &format!("    <system-out>{}</system-out>\n", escape(&printed));
        let errors = by_case(marks, cases, |m| &m.stderr_tail);
        out += &format!("    <system-err>{}</system-err>\n", escape(&errors));
        out += "  </testsuite>\n";
    }
    out += "</testsuites>\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_xml_cannot_hold_is_escaped_or_replaced() {
        assert_eq!(escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
        assert_eq!(escape("bell\u{7} nul\u{0}"), "bell\u{fffd} nul\u{fffd}");
        assert_eq!(escape("line\nnext"), "line\nnext");
    }
}
