//! Grading programs over a folder of lab cases: every program run on every case in a scratch folder of
//! its own, in parallel, and each output judged; results come back in a fixed order whatever the
//! parallelism.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use regex::Regex;

use super::judge::{Difference, Judge};
use super::lab::LabRequest;
use super::lab5;
use othello_sandbox::{self as runner, Ending, Job, Limits, Run, Word};

/// One test case: NAME.args (one argument per line), NAME.out (stdout byte for byte), NAME.status (the
/// exit status, 0 when absent), NAME.err (a pattern that stderr must match, read by the strict judge).
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub args: Vec<String>,
    pub stdout: String,
    pub status: i32,
    pub stderr_pattern: Option<Regex>,
    /// The case's files written with Windows line endings (CRLF, read as LF), and those with LF,
    /// by extension: a set that mixes them, or a `.out` with CRLF, is worth a word to the teacher.
    pub crlf: Vec<&'static str>,
    pub lf: Vec<&'static str>,
}

/// A case folder that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    // The cause is in the message, so it is not also a `source` (anyhow would print it twice).
    #[error("cannot read the case folder {path}: {cause}")]
    Folder { path: PathBuf, cause: io::Error },
    #[error("{0} holds no case (NAME.args with NAME.out)")]
    Empty(PathBuf),
    #[error(transparent)]
    Read(#[from] othello_plumbing::files::ReadError),
    #[error("{path}: {why}")]
    Bad { path: PathBuf, why: String },
}

/// Every case of a folder, sorted by name.
pub fn load_cases(dir: &Path) -> Result<Vec<Case>, CaseError> {
    let paths = othello_plumbing::files::sorted_entries(dir, |path| path.extension().is_some_and(|ext| ext == "args"))
        .map_err(|cause| CaseError::Folder {
            path: dir.to_path_buf(),
            cause,
        })?;
    if paths.is_empty() {
        return Err(CaseError::Empty(dir.to_path_buf()));
    }
    paths.iter().map(|path| load_case(path)).collect()
}

/// What the teacher should hear about a set's line endings, one line each: expected outputs
/// written with CRLF (read as LF, as programs print on Linux), and a set that mixes CRLF and LF.
pub fn line_ending_warnings(dir: &Path, cases: &[Case]) -> Vec<String> {
    let file = |case: &Case, ext: &str| dir.join(format!("{}.{ext}", case.name)).display().to_string();
    let with = |ext: Option<&str>, crlf: bool| -> Vec<String> {
        cases
            .iter()
            .flat_map(|case| {
                let exts = if crlf { &case.crlf } else { &case.lf };
                exts.iter()
                    .filter(|&&e| ext.is_none_or(|ext| ext == e))
                    .map(|e| file(case, e))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let mut warnings = Vec::new();
    let outs = with(Some("out"), true);
    if let Some(first) = outs.first() {
        warnings.push(format!(
            "{} expected output{} (.out) {} Windows line endings (CRLF), {first} the first: read as LF, as programs print on Linux",
            outs.len(),
            if outs.len() == 1 { "" } else { "s" },
            if outs.len() == 1 { "has" } else { "have" },
        ));
    }
    let (crlf, lf) = (with(None, true), with(None, false));
    if let (Some(first_crlf), Some(first_lf)) = (crlf.first(), lf.first()) {
        warnings.push(format!(
            "the cases mix line endings: {} file{} with CRLF ({first_crlf} the first), {} with LF ({first_lf} the first); all are read as LF",
            crlf.len(),
            if crlf.len() == 1 { "" } else { "s" },
            lf.len(),
        ));
    }
    warnings
}

/// The largest case file read (a lab transcript is a few kB).
pub(crate) const MAX_CASE_FILE: u64 = 16 << 20;
/// The most arguments a case may give (a lab run takes a board, a token and at most 60 moves).
pub(crate) const MAX_CASE_ARGS: usize = 10_000;

fn load_case(args_path: &Path) -> Result<Case, CaseError> {
    let bad = |ext: &str, why: String| CaseError::Bad {
        path: args_path.with_extension(ext),
        why,
    };
    let mut crlf = Vec::new();
    let mut lf = Vec::new();
    // Only regular files, of bounded size: a FIFO or a link to /dev/zero would hang the grader.
    // Windows line endings are read as LF (a case written in Notepad means what it says).
    let mut read = |ext: &'static str| -> Result<Option<String>, CaseError> {
        let path = args_path.with_extension(ext);
        match othello_plumbing::files::read_bytes_limited(&path, MAX_CASE_FILE) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes).map_err(|_| bad(ext, "not UTF-8 text".to_string()))?;
                if text.contains("\r\n") {
                    crlf.push(ext);
                    Ok(Some(text.replace("\r\n", "\n")))
                } else {
                    if text.contains('\n') {
                        lf.push(ext);
                    }
                    Ok(Some(text))
                }
            }
            Err(error) if error.is_not_found() && ext != "args" => Ok(None),
            Err(error) if error.is_not_found() => Err(bad(ext, "a link to a file that does not exist".to_string())),
            Err(error) => Err(error.into()),
        }
    };
    let name = args_path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let args = read_args(&read("args")?.unwrap_or_default());
    let stdout = read("out")?.ok_or_else(|| bad("out", "missing: every case needs its expected stdout".into()))?;
    let status = match read("status")? {
        None => 0,
        Some(text) => text
            .trim()
            .parse::<u8>()
            .map(i32::from)
            .map_err(|_| bad("status", format!("{:?} is not an exit status (0 to 255)", text.trim())))?,
    };
    let stderr_pattern = match read("err")? {
        None => None,
        Some(text) => Some(
            Regex::new(text.trim_end()).map_err(|error| bad("err", format!("not a regular expression: {error}")))?,
        ),
    };
    if args.iter().any(|arg| arg.contains('\0')) {
        return Err(bad(
            "args",
            "an argument holds a NUL byte, which no command line can carry".to_string(),
        ));
    }
    if args.len() > MAX_CASE_ARGS {
        return Err(bad(
            "args",
            format!("{} arguments; a case gives at most {MAX_CASE_ARGS}", args.len()),
        ));
    }
    Ok(Case {
        args,
        name,
        stdout,
        status,
        stderr_pattern,
        crlf,
        lf,
    })
}

/// The arguments of a case as one line, each quoted when it would not read back as one word.
pub(crate) fn args_line(args: &[String]) -> String {
    if args.is_empty() {
        return "(none)".to_string();
    }
    shell_words::join(args)
}

/// One argument per line; an empty file is no arguments and an empty line an empty argument.
pub(crate) fn read_args(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// A program to grade: its name in reports and its command, whose copied words (the student's file
/// or folder) every run gets a fresh copy of.
#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    pub command: Vec<Word>,
    /// Why it is not run at all (a class entry that is a link to outside the class folder): each
    /// case is a run that could not be started, for this reason.
    pub refused: Option<String>,
}

impl Program {
    /// A student of a class: the template's words, `{}` standing for the copy of the student's
    /// file, or of the folder's contents in the working folder.
    pub fn from_template(name: String, template: &[String], entry: &Path) -> Program {
        let command = runner::template_words(template, entry);
        Program {
            name,
            command,
            refused: None,
        }
    }

    /// The command as the teacher gave it, the copies named by their originals.
    pub fn command_words(&self) -> Vec<String> {
        self.command
            .iter()
            .map(|word| match word {
                Word::Text(text) => text.clone(),
                Word::Copy { source, template, .. } => runner::fill(template, source).to_string_lossy().into_owned(),
            })
            .collect()
    }
}

/// The verdicts a judge gives a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Pass,
    Fail,
    Timeout,
    /// A resource limit of the sandbox (memory, file size): the ending names which.
    Limit,
    Crash,
    /// Not run: the program had timed out on too many cases in a row (`Settings::max_timeouts`).
    NotRun,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Timeout => "timeout",
            Verdict::Limit => "limit",
            Verdict::Crash => "crash",
            Verdict::NotRun => "not-run",
        }
    }
}

/// One judge's reading of one run.
#[derive(Clone, Debug)]
pub struct Judgement {
    pub judge: Judge,
    pub verdict: Verdict,
    /// The first differences (at most the limit given), and how many there were in all.
    pub differences: Vec<Difference>,
    pub total_differences: usize,
    /// Lab 5's marks for the case, out of 1 (the lab5 judge only).
    pub marks: Option<f64>,
}

/// One program on one case, judged.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub program: usize,
    pub case: usize,
    pub ending: Ending,
    /// Wall time of the run.
    pub seconds: f64,
    /// CPU time of everything the run started (sandboxed runs).
    pub cpu_seconds: Option<f64>,
    /// The last lines of stderr, kept for a run that crashed, timed out or failed.
    pub stderr_tail: Vec<String>,
    /// The last lines of stdout of a run that was stopped (a time-out, a limit): how far it got.
    pub stdout_tail: Vec<String>,
    pub judgements: Vec<Judgement>,
}

impl Outcome {
    /// The worst verdict of all judges: crash and time-out first, then fail.
    pub fn verdict(&self) -> Verdict {
        self.judgements.iter().map(|j| j.verdict).max().unwrap_or(Verdict::Pass)
    }
}

/// How to grade.
#[derive(Clone, Debug)]
pub struct Settings {
    pub judges: Vec<Judge>,
    pub limits: Limits,
    pub jobs: usize,
    /// Differences kept per judgement.
    pub differences: usize,
    /// Lines of stderr kept per outcome.
    pub stderr_lines: usize,
    /// After this many time-outs of one program in a row, its remaining cases are not run (0:
    /// every case is run).
    pub max_timeouts: usize,
}

/// Judges one run of a case. A time-out or a crash (a signal, or a failing exit status where the
/// case expects success) is the verdict of every judge; otherwise each judge reads the output.
pub(crate) fn judge_run(case: &Case, run: &Run, judge: Judge, settings: &Settings) -> Judgement {
    let verdict_alone = |verdict| Judgement {
        judge,
        verdict,
        differences: Vec::new(),
        total_differences: 0,
        marks: (judge == Judge::Lab5).then_some(0.0),
    };
    let code = match run.ending {
        Ending::TimedOut | Ending::NoProgress { .. } => return verdict_alone(Verdict::Timeout),
        Ending::MemoryLimit | Ending::FileSizeLimit | Ending::OpenFilesLimit | Ending::ProcessLimit => {
            return verdict_alone(Verdict::Limit);
        }
        Ending::Signalled(_) | Ending::NotStarted(_) => return verdict_alone(Verdict::Crash),
        Ending::Exited(code) if code != 0 && case.status == 0 => return verdict_alone(Verdict::Crash),
        Ending::Exited(code) => Some(code),
        Ending::OutputLimit => None,
    };
    let actual = String::from_utf8_lossy(&run.stdout);
    let mut marks = None;
    let mut differences = if judge == Judge::Lab5 {
        let position = LabRequest::parse(&case.args)
            .map(|request| super::lab::start_position(&request).after_forced_pass())
            .ok()
            .filter(|position| !position.moves().is_empty());
        match position {
            Some(position) => {
                let marked = lab5::mark(position, &actual);
                marks = Some(marked.total);
                marked.lost
            }
            None => vec![Difference {
                place: "the case".to_string(),
                expected: "a position whose side to move has a move".to_string(),
                actual: args_line(&case.args),
                text: None,
                boards: None,
            }],
        }
    } else {
        judge.compare(&case.stdout, &actual)
    };
    let mut note = |place: &str, expected: String, actual: String| {
        differences.push(Difference {
            place: place.to_string(),
            expected,
            actual,
            text: None,
            boards: None,
        });
    };
    match code {
        None => note(
            "the output",
            "a transcript".to_string(),
            format!("more than {} bytes: the program was stopped", settings.limits.stdout),
        ),
        Some(_) if judge == Judge::Lab5 => {}
        Some(code) if judge == Judge::Strict && code != case.status => {
            note("the exit status", case.status.to_string(), code.to_string());
        }
        // Where the expected output has no board (a refused request), the output cannot show the
        // tolerant judge anything: the exit status is what it judges, exactly.
        Some(code)
            if judge == Judge::Tolerant
                && code != case.status
                && super::transcript::read(&case.stdout).0.is_empty() =>
        {
            note(
                "the exit status (the expected output has no board: a refused request)",
                case.status.to_string(),
                code.to_string(),
            );
        }
        Some(0) if case.status != 0 => note(
            "the exit status",
            format!("a refusal (status {})", case.status),
            "0".to_string(),
        ),
        Some(_) => {}
    }
    if judge == Judge::Strict
        && let Some(pattern) = &case.stderr_pattern
    {
        let stderr = String::from_utf8_lossy(&run.stderr);
        if !pattern.is_match(&stderr) {
            note(
                "stderr",
                format!("a match for /{pattern}/"),
                format!("{:?}", stderr.trim_end()),
            );
        }
    }
    let total_differences = differences.len();
    differences.truncate(settings.differences);
    Judgement {
        judge,
        verdict: if total_differences == 0 {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
        differences,
        total_differences,
        marks,
    }
}

/// Runs one program on one case, with fresh copies of its files.
pub(crate) fn run_case(program: &Program, case: &Case, limits: &Limits) -> Run {
    if let Some(why) = &program.refused {
        return Run::not_started(why.clone());
    }
    let mut command = program.command.clone();
    command.extend(case.args.iter().map(Word::text));
    runner::run(
        &Job {
            command,
            env: Vec::new(),
        },
        limits,
    )
}

/// Grades every program on every case with `settings.jobs` runs at a time; `report` receives each
/// outcome in program order, then case order, as soon as all before it are done.
pub fn grade(programs: &[Program], cases: &[Case], settings: &Settings, mut report: impl FnMut(Outcome)) {
    let streaks = Streaks::new(programs.len() * cases.len(), cases.len(), settings.max_timeouts);
    let work = |index: usize| {
        let (program, case) = (index / cases.len(), index % cases.len());
        if !streaks.may_run(index) {
            return not_run(program, case, settings);
        }
        let run = run_case(&programs[program], &cases[case], &settings.limits);
        let judgements: Vec<Judgement> = settings
            .judges
            .iter()
            .map(|&judge| judge_run(&cases[case], &run, judge, settings))
            .collect();
        let timed_out = judgements.iter().any(|j| j.verdict == Verdict::Timeout);
        streaks.ran(index, timed_out);
        let stopped = judgements
            .iter()
            .any(|j| matches!(j.verdict, Verdict::Timeout | Verdict::Limit));
        Outcome {
            program,
            case,
            seconds: run.elapsed.as_secs_f64(),
            cpu_seconds: run.cpu.map(|cpu| cpu.as_secs_f64()),
            stderr_tail: run.stderr_tail(settings.stderr_lines),
            stdout_tail: if stopped {
                run.stdout_tail(settings.stderr_lines)
            } else {
                Vec::new()
            },
            ending: run.ending,
            judgements,
        }
    };
    othello_plumbing::parallel::ordered(programs.len() * cases.len(), settings.jobs, work, |_, outcome| {
        report(outcome);
        true
    });
}

/// Why a case was not run, for every report.
pub(crate) fn not_run_reason(max_timeouts: usize) -> String {
    format!("not run: {max_timeouts} time-outs in a row")
}

fn not_run(program: usize, case: usize, settings: &Settings) -> Outcome {
    Outcome {
        program,
        case,
        ending: Ending::NotStarted(not_run_reason(settings.max_timeouts)),
        seconds: 0.0,
        cpu_seconds: None,
        stderr_tail: Vec::new(),
        stdout_tail: Vec::new(),
        judgements: settings
            .judges
            .iter()
            .map(|&judge| Judgement {
                judge,
                verdict: Verdict::NotRun,
                differences: Vec::new(),
                total_differences: 0,
                marks: (judge == Judge::Lab5).then_some(0.0),
            })
            .collect(),
    }
}

/// Each program's time-outs in a row, shared by the runs in flight. A case runs unless the cases
/// just before it (of its program, in case order) timed out `max` times in a row; while that
/// cannot be known yet (some of them are still running and every one finished timed out), it
/// waits, so that a program stuck in a loop costs at most `max` time limits however many runs go
/// at a time, and which cases run does not depend on their number.
struct Streaks {
    state: std::sync::Mutex<Vec<Standing>>,
    changed: std::sync::Condvar,
    cases: usize,
    max: usize,
}

/// Where one program's case stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Standing {
    Waiting,
    Running,
    TimedOut,
    Ended,
    Skipped,
}

impl Streaks {
    fn new(total: usize, cases: usize, max: usize) -> Streaks {
        Streaks {
            state: std::sync::Mutex::new(vec![Standing::Waiting; if max == 0 { 0 } else { total }]),
            changed: std::sync::Condvar::new(),
            cases,
            max,
        }
    }

    /// Whether item `index` runs (it is then marked running) or is not run (marked skipped).
    fn may_run(&self, index: usize) -> bool {
        if self.max == 0 {
            return true;
        }
        let first = index - index % self.cases;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let before = &state[first.max(index.saturating_sub(self.max))..index];
            let streak = before.len() == self.max && before.iter().all(|&r| r == Standing::TimedOut);
            let decided = if before.last() == Some(&Standing::Skipped) || streak {
                Some(false)
            } else if before.len() < self.max || before.contains(&Standing::Ended) {
                // No streak can end before this case: only the one before it could be skipped,
                // and it was not (or it would say so once decided).
                match before.last() {
                    Some(Standing::Waiting) => None,
                    _ => Some(true),
                }
            } else {
                None
            };
            if let Some(runs) = decided {
                state[index] = if runs { Standing::Running } else { Standing::Skipped };
                drop(state);
                self.changed.notify_all();
                return runs;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Item `index` ran, and timed out or not.
    fn ran(&self, index: usize, timed_out: bool) {
        if self.max == 0 {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state[index] = if timed_out { Standing::TimedOut } else { Standing::Ended };
        drop(state);
        self.changed.notify_all();
    }
}

/// One program's results.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cases: usize,
    /// Cases passed, per judge.
    pub passed: BTreeMap<Judge, usize>,
    /// Cases some judge failed (not counting time-outs and crashes).
    pub failed: usize,
    /// Cases each judge failed.
    pub failed_by: BTreeMap<Judge, usize>,
    pub timeouts: usize,
    /// Cases stopped at a resource limit of the sandbox.
    pub limits: usize,
    pub crashes: usize,
    /// Cases not run after too many time-outs in a row.
    pub not_run: usize,
    /// Wall time spent running the program, over all its cases.
    pub seconds: f64,
    /// CPU time of its runs, over all its cases (sandboxed runs).
    pub cpu_seconds: Option<f64>,
    /// The slowest case and its time (the time its limit is judged on).
    pub slowest: Option<(usize, f64)>,
    /// Lab 5's marks over all cases.
    pub marks: f64,
    /// The cases that did not pass, by what went wrong (`failure_kind`): how many, and the first.
    /// At most `MAX_KINDS` kinds; the rest are counted under "other".
    pub kinds: BTreeMap<String, (usize, usize)>,
}

/// The most kinds of failure a summary tells apart.
pub(crate) const MAX_KINDS: usize = 32;

/// What went wrong in a case, in words that the same mistake gives every case: a Python
/// exception and the line it was raised at (`ValueError at line 56`), the part of the output that
/// differs (`part E, the possible moves`), a time-out, a limit. None for a pass.
pub(crate) fn failure_kind(outcome: &Outcome) -> Option<String> {
    match outcome.verdict() {
        Verdict::Pass => None,
        Verdict::NotRun => Some("not run (time-outs in a row)".to_string()),
        Verdict::Timeout => Some("a time-out".to_string()),
        Verdict::Limit => Some(match outcome.ending {
            Ending::MemoryLimit => "the memory limit".to_string(),
            Ending::FileSizeLimit => "the file size limit".to_string(),
            Ending::OpenFilesLimit => "the open files limit".to_string(),
            Ending::ProcessLimit => "the process limit".to_string(),
            _ => "a limit".to_string(),
        }),
        Verdict::Crash => {
            let lines: Vec<&str> = outcome
                .stderr_tail
                .iter()
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .collect();
            let last = lines.last().copied().unwrap_or("");
            // A Python traceback: the exception's name and the line of the program it came from.
            let exception = last
                .split(':')
                .next()
                .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.'));
            let line = lines.iter().rev().find_map(|l| {
                let (_, rest) = l.strip_prefix("File ")?.split_once(", line ")?;
                rest.split(|c: char| !c.is_ascii_digit()).next().map(str::to_string)
            });
            Some(match (exception, line) {
                (Some(exception), Some(line)) => format!("{exception} at line {line}"),
                (Some(exception), None) => exception.to_string(),
                _ => match &outcome.ending {
                    Ending::Exited(code) => format!("exit status {code}"),
                    Ending::Signalled(signal) => format!("signal {signal}"),
                    Ending::NotStarted(_) => "could not be started".to_string(),
                    _ => "a crash".to_string(),
                },
            })
        }
        Verdict::Fail => {
            // The first difference of the most lenient judge that failed it, without its snapshot
            // and line numbers (`snapshot 2, part E, the possible moves (expected line 24, ...)`).
            let judgement = outcome
                .judgements
                .iter()
                .filter(|j| j.verdict == Verdict::Fail)
                .max_by_key(|j| j.judge)?;
            let place = judgement.differences.first().map_or("the output", |d| d.place.as_str());
            let place = place.split(" (").next().unwrap_or(place);
            let place = match place.split_once(", ") {
                Some((snapshot, rest)) if snapshot.starts_with("snapshot ") => rest,
                _ => place,
            };
            Some(format!("wrong {place}"))
        }
    }
}

impl Summary {
    pub fn add(&mut self, outcome: &Outcome) {
        self.cases += 1;
        for judgement in &outcome.judgements {
            *self.passed.entry(judgement.judge).or_default() += usize::from(judgement.verdict == Verdict::Pass);
            *self.failed_by.entry(judgement.judge).or_default() += usize::from(judgement.verdict == Verdict::Fail);
            self.marks += judgement.marks.unwrap_or(0.0);
        }
        match outcome.verdict() {
            Verdict::Pass => {}
            Verdict::Fail => self.failed += 1,
            Verdict::Timeout => self.timeouts += 1,
            Verdict::Limit => self.limits += 1,
            Verdict::Crash => self.crashes += 1,
            Verdict::NotRun => self.not_run += 1,
        }
        if let Some(kind) = failure_kind(outcome) {
            let kind = if self.kinds.len() >= MAX_KINDS && !self.kinds.contains_key(&kind) {
                "other".to_string()
            } else {
                kind
            };
            self.kinds.entry(kind).or_insert((0, outcome.case)).0 += 1;
        }
        self.seconds += outcome.seconds;
        if let Some(cpu) = outcome.cpu_seconds {
            *self.cpu_seconds.get_or_insert(0.0) += cpu;
        }
        let time = outcome.cpu_seconds.unwrap_or(outcome.seconds);
        if self.slowest.is_none_or(|(_, s)| time > s) {
            self.slowest = Some((outcome.case, time));
        }
    }

    /// Whether every case passed every judge.
    pub fn all_passed(&self) -> bool {
        self.failed + self.timeouts + self.limits + self.crashes + self.not_run == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which cases of two programs run, one at a time: the first always times out, the second
    /// times out on all but its third case.
    #[test]
    fn cases_after_a_streak_of_time_outs_are_not_run_and_a_broken_streak_runs_on() {
        let streaks = Streaks::new(12, 6, 3);
        let mut ran = Vec::new();
        for index in 0..12 {
            let runs = streaks.may_run(index);
            ran.push(runs);
            if runs {
                streaks.ran(index, index != 8);
            }
        }
        assert_eq!(
            ran,
            [
                true, true, true, false, false, false, true, true, true, true, true, true
            ]
        );
        let every = Streaks::new(4, 4, 0);
        assert!((0..4).all(|index| every.may_run(index)));
    }

    /// Runs in parallel wait for what they depend on: a looping program's fourth case is decided
    /// only when the three before it have timed out, and is then not run.
    #[test]
    fn a_case_waits_while_the_streak_before_it_is_running() {
        let streaks = Streaks::new(5, 5, 3);
        for index in 0..3 {
            assert!(streaks.may_run(index));
        }
        std::thread::scope(|scope| {
            let fourth = scope.spawn(|| streaks.may_run(3));
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!fourth.is_finished(), "decided before the runs before it ended");
            for index in 0..3 {
                streaks.ran(index, true);
            }
            assert!(!fourth.join().unwrap());
        });
        assert!(!streaks.may_run(4));
    }
}
