//! Grading programs over a folder of lab cases: every program run on every case in a scratch folder of
//! its own, in parallel, and each output judged; results come back in a fixed order whatever the
//! parallelism.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;

use super::judge::{Difference, Judge};
use super::lab::LabRequest;
use super::lab5;
use crate::runner::{self, Ending, Job, Limits, Run};

/// One test case: NAME.args (one argument per line), NAME.out (stdout byte for byte), NAME.status (the
/// exit status, 0 when absent), NAME.err (a pattern that stderr must match, read by the strict judge).
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub args: Vec<String>,
    pub stdout: String,
    pub status: i32,
    pub stderr_pattern: Option<Regex>,
}

/// A case folder that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("cannot read the case folder {path}: {source}")]
    Folder { path: PathBuf, source: io::Error },
    #[error("{0} holds no case (NAME.args with NAME.out)")]
    Empty(PathBuf),
    #[error("cannot read {path}: {source}")]
    File { path: PathBuf, source: io::Error },
    #[error("{path}: {why}")]
    Bad { path: PathBuf, why: String },
}

/// Every case of a folder, sorted by name.
pub fn load_cases(dir: &Path) -> Result<Vec<Case>, CaseError> {
    let entries = fs::read_dir(dir).map_err(|source| CaseError::Folder {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "args"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(CaseError::Empty(dir.to_path_buf()));
    }
    paths.iter().map(|path| load_case(path)).collect()
}

fn load_case(args_path: &Path) -> Result<Case, CaseError> {
    let read = |ext: &str| -> Result<Option<String>, CaseError> {
        let path = args_path.with_extension(ext);
        match fs::read(&path) {
            Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| CaseError::Bad {
                path,
                why: "not UTF-8 text".to_string(),
            }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(CaseError::File { path, source }),
        }
    };
    let bad = |ext: &str, why: String| CaseError::Bad {
        path: args_path.with_extension(ext),
        why,
    };
    let name = args_path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stdout = read("out")?.ok_or_else(|| bad("out", "missing: every case needs its expected stdout".into()))?;
    let status = match read("status")? {
        None => 0,
        Some(text) => text
            .trim()
            .parse()
            .map_err(|_| bad("status", format!("{:?} is not an exit status", text.trim())))?,
    };
    let stderr_pattern = match read("err")? {
        None => None,
        Some(text) => Some(
            Regex::new(text.trim_end()).map_err(|error| bad("err", format!("not a regular expression: {error}")))?,
        ),
    };
    Ok(Case {
        args: read_args(&read("args")?.unwrap_or_default()),
        name,
        stdout,
        status,
        stderr_pattern,
    })
}

/// One argument per line; an empty file is no arguments and an empty line an empty argument.
pub fn read_args(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .map(str::to_string)
        .collect()
}

/// A program to grade: a command (a template where `{}` stands for the student's copied entry) and,
/// for a student of a class, the file or folder copied into each run's scratch folder.
#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    pub command: Vec<String>,
    pub entry: Option<PathBuf>,
}

/// The verdicts a judge gives a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Pass,
    Fail,
    Timeout,
    Crash,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Timeout => "timeout",
            Verdict::Crash => "crash",
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
    pub seconds: f64,
    /// The last lines of stderr, kept for a run that crashed, timed out or failed.
    pub stderr_tail: Vec<String>,
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
}

/// Judges one run of a case. A time-out or a crash (a signal, or a failing exit status where the
/// case expects success) is the verdict of every judge; otherwise each judge reads the output.
pub fn judge_run(case: &Case, run: &Run, judge: Judge, settings: &Settings) -> Judgement {
    let verdict_alone = |verdict| Judgement {
        judge,
        verdict,
        differences: Vec::new(),
        total_differences: 0,
        marks: (judge == Judge::Lab5).then_some(0.0),
    };
    let code = match run.ending {
        Ending::TimedOut => return verdict_alone(Verdict::Timeout),
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
                actual: super::report::args_line(&case.args),
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

/// Runs one program on one case in a fresh scratch folder (a copy of the student's entry, if any).
pub fn run_case(program: &Program, case: &Case, limits: &Limits) -> Run {
    let failed = |why: String| Run {
        stdout: Vec::new(),
        stderr: Vec::new(),
        ending: Ending::NotStarted(why),
        elapsed: Duration::ZERO,
    };
    let scratch = match tempfile::Builder::new().prefix("othello-grade-").tempdir() {
        Ok(scratch) => scratch,
        Err(error) => return failed(format!("cannot make a scratch folder: {error}")),
    };
    let copied = match &program.entry {
        None => None,
        Some(entry) => match copy_entry(entry, scratch.path()) {
            Ok(copied) => Some(copied),
            Err(error) => return failed(format!("cannot copy {}: {error}", entry.display())),
        },
    };
    let mut words = program.command.iter().map(|word| match &copied {
        Some(path) => OsString::from(word.replace("{}", &path.to_string_lossy())),
        None => OsString::from(word),
    });
    let Some(executable) = words.next() else {
        return failed("an empty command".to_string());
    };
    let job = Job {
        program: executable,
        args: words.chain(case.args.iter().map(OsString::from)).collect(),
        dir: scratch.path().to_path_buf(),
        env: Vec::new(),
    };
    runner::run(&job, limits)
}

/// Copies a student's file or folder into the scratch folder; returns the copy's path (for a folder,
/// the scratch folder itself, which then holds its contents).
fn copy_entry(entry: &Path, scratch: &Path) -> io::Result<PathBuf> {
    if entry.is_dir() {
        copy_tree(entry, scratch)?;
        Ok(scratch.to_path_buf())
    } else {
        let copy = scratch.join(entry.file_name().unwrap_or_default());
        fs::copy(entry, &copy)?;
        Ok(copy)
    }
}

fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The size in bytes of a student's entry, to refuse copying a huge folder for every case.
pub fn entry_size(entry: &Path) -> io::Result<u64> {
    let meta = fs::symlink_metadata(entry)?;
    if !meta.is_dir() {
        return Ok(meta.len());
    }
    fs::read_dir(entry)?.try_fold(0, |total, child| Ok(total + entry_size(&child?.path())?))
}

/// Grades every program on every case with `settings.jobs` runs at a time; `report` receives each
/// outcome in program order, then case order, as soon as all before it are done.
pub fn grade(programs: &[Program], cases: &[Case], settings: &Settings, mut report: impl FnMut(Outcome)) {
    let work = |index: usize| {
        let (program, case) = (index / cases.len(), index % cases.len());
        let run = run_case(&programs[program], &cases[case], &settings.limits);
        let judgements = settings
            .judges
            .iter()
            .map(|&judge| judge_run(&cases[case], &run, judge, settings))
            .collect();
        Outcome {
            program,
            case,
            seconds: run.elapsed.as_secs_f64(),
            stderr_tail: run.stderr_tail(settings.stderr_lines),
            ending: run.ending,
            judgements,
        }
    };
    crate::parallel::ordered(programs.len() * cases.len(), settings.jobs, work, |_, outcome| {
        report(outcome);
        true
    });
}

/// One program's results.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cases: usize,
    /// Cases passed, per judge.
    pub passed: BTreeMap<Judge, usize>,
    /// Cases some judge failed (not counting time-outs and crashes).
    pub failed: usize,
    pub timeouts: usize,
    pub crashes: usize,
    /// Time spent running the program, over all its cases.
    pub seconds: f64,
    /// The slowest case and its time.
    pub slowest: Option<(usize, f64)>,
    /// Lab 5's marks over all cases.
    pub marks: f64,
}

impl Summary {
    pub fn add(&mut self, outcome: &Outcome) {
        self.cases += 1;
        for judgement in &outcome.judgements {
            *self.passed.entry(judgement.judge).or_default() += usize::from(judgement.verdict == Verdict::Pass);
            self.marks += judgement.marks.unwrap_or(0.0);
        }
        match outcome.verdict() {
            Verdict::Pass => {}
            Verdict::Fail => self.failed += 1,
            Verdict::Timeout => self.timeouts += 1,
            Verdict::Crash => self.crashes += 1,
        }
        self.seconds += outcome.seconds;
        if self.slowest.is_none_or(|(_, s)| outcome.seconds > s) {
            self.slowest = Some((outcome.case, outcome.seconds));
        }
    }

    /// Whether every case passed every judge.
    pub fn all_passed(&self) -> bool {
        self.failed + self.timeouts + self.crashes == 0
    }
}
