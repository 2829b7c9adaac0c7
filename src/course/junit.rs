//! JUnit XML, the test report CI systems and LMS plug-ins read: a test suite per program, a test
//! case per case, its failure (a wrong output) or error (a time-out, a crash, a limit) with the
//! report for people inside.

use super::grade::{Case, Program, Verdict};
use super::marks::CaseMark;
use super::report::escape;

/// Where and when the report was made, as Ant's format gives every suite.
pub struct Host {
    pub started: std::time::SystemTime,
    /// The machine's name (`localhost` where none can be read).
    pub hostname: String,
}

/// This machine's name, as a token (Ant's schema: no spaces, not empty).
pub fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name.trim().chars().filter(|c| !c.is_whitespace()).collect();
    if name.is_empty() { "localhost".to_string() } else { name }
}

/// The whole report, one suite per program.
pub fn report(programs: &[Program], marks: &[Vec<CaseMark>], cases: &[Case], host: &Host) -> String {
    // Ant's timestamp: a date and time without fractions or zone (UTC here).
    let timestamp: String = crate::log::rfc3339(host.started).chars().take(19).collect();
    let count = |verdicts: &[Verdict], mark: &[CaseMark]| mark.iter().filter(|m| verdicts.contains(&m.verdict)).count();
    let all: Vec<&CaseMark> = marks.iter().flatten().collect();
    let failures: usize = marks.iter().map(|m| count(&[Verdict::Fail], m)).sum();
    let errors: usize = marks
        .iter()
        .map(|m| count(&[Verdict::Timeout, Verdict::Crash, Verdict::Limit], m))
        .sum();
    let time: f64 = all.iter().map(|m| m.seconds).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out += &format!(
        "<testsuites name=\"othello grade\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time:.3}\">\n",
        all.len()
    );
    for (program, marks) in programs.iter().zip(marks) {
        let time: f64 = marks.iter().map(|m| m.seconds).sum();
        out += &format!(
            "  <testsuite name=\"{}\" timestamp=\"{timestamp}\" hostname=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{time:.3}\">\n",
            escape(&program.name),
            escape(&host.hostname),
            marks.len(),
            count(&[Verdict::Fail], marks),
            count(&[Verdict::Timeout, Verdict::Crash, Verdict::Limit], marks),
            count(&[Verdict::NotRun], marks),
        );
        for mark in marks {
            out += &format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                escape(&cases[mark.case].name),
                escape(&program.name),
                mark.seconds
            );
            let message = mark
                .detail
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default()
                .trim();
            match mark.verdict {
                Verdict::Pass => out += "/>\n",
                verdict => {
                    let element = match verdict {
                        Verdict::Fail => "failure",
                        Verdict::NotRun => "skipped",
                        _ => "error",
                    };
                    out += &format!(
                        ">\n      <{element} type=\"{}\" message=\"{}\">{}</{element}>\n    </testcase>\n",
                        verdict.name(),
                        escape(message),
                        escape(&mark.detail)
                    );
                }
            }
        }
        // What the stopped runs had printed last, case by case (Ant's place for a suite's stdout).
        let printed: String = marks
            .iter()
            .filter(|m| !m.stdout_tail.is_empty())
            .map(|m| format!("{}:\n{}\n", cases[m.case].name, m.stdout_tail.join("\n")))
            .collect();
        out += &format!("    <system-out>{}</system-out>\n", escape(&printed));
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
