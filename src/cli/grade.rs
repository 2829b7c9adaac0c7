//! `othello grade`: one program, or a whole class, over a folder of lab cases, every output judged;
//! reports for people (stdout), machines (`--json`), gradebooks (`--csv`) and browsers (`--html`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use itertools::Itertools;

use super::display::Progress;
use super::output::{Output, is_stdout};
use super::{Refused, SandboxArgs};
use othello_course::grade::{self, Program, Settings};
use othello_course::json;
use othello_course::judge::Judge;
use othello_course::record::{Recorder, Said};
use othello_course::{junit, marks, report};
use othello_sandbox::{Limits, Timing};

#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
    othello grade cases/ -- python3 student.py
    othello grade cases/ --class students/ --run 'python3 {}' --judge strict,tolerant,course \\
        --json results.jsonl --csv grades.csv --html report.html

Each case runs COMMAND ARGS... CASE_ARGS... in a sandbox of its own, with stdin closed: it sees the
system folders and its interpreter read-only, a working folder with its own copies of the program's
files (the first word when given as a path, and every argument that names a file or folder), and
nothing else of this machine. With --class, {} in the template is the copy of the student's file, or
the working folder holding the copy of the student's folder. Exit status: 0 every case passed every
judge, 1 some did not, 2 bad input or no sandbox here.")]
pub struct GradeArgs {
    /// The folder of cases: NAME.args (one argument a line), NAME.out (the expected stdout), optional
    /// NAME.status (the exit status, 0 if absent) and NAME.err (a pattern for stderr, read by strict)
    cases: PathBuf,
    /// A class: every file or sub-folder of DIR is one student's program (hidden entries are skipped)
    #[arg(long, value_name = "DIR", requires = "run")]
    class: Option<PathBuf>,
    /// How to start a student's program, `{}` standing for its copied file or folder, e.g. 'python3 {}'
    #[arg(long, value_name = "TEMPLATE", requires = "class")]
    run: Option<String>,
    /// Judges, comma-separated: strict (bytes and exit status), tolerant (every snapshot, layout
    /// forgiven), course (the last board and possible moves, as the course's Lab A grader)
    #[arg(long, value_delimiter = ',', default_value = "tolerant")]
    judge: Vec<Judge>,
    /// Seconds of CPU time a case may use, all its processes together (default 10; 60 with the lab5
    /// judge, the 2018 grader's time for Lab 5); a case that uses little CPU time for 3 times as long
    /// (1 s to 60 s) of wall time, or runs 10 times as long plus 10 s, is stopped too. Without the
    /// sandbox: seconds of wall time
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds, allow_hyphen_values = true)]
    timeout: Option<Duration>,
    /// After K time-outs of one program in a row, its remaining cases are not run (their verdict:
    /// `not run`, counted apart); 0 runs every case
    #[arg(long, value_name = "K", default_value_t = 3)]
    max_timeouts: usize,
    /// Cases run at a time (default: the number of cores)
    #[arg(short = 'j', long, visible_alias = "threads", value_parser = clap::value_parser!(u32).range(1..=1024))]
    jobs: Option<u32>,
    /// Bytes of stdout kept per case; a program that prints more is stopped and fails
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    output_limit: u64,
    /// Failing cases shown per program in the report for people (all are in --json)
    #[arg(long, value_name = "N", default_value_t = 10)]
    show: usize,
    /// Differences shown per failing case and judge
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    differences: u32,
    /// Write one JSON object per case and judge, then one summary object per program, to FILE (alone,
    /// or `-`: to stdout, instead of the report for people)
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    json: Option<PathBuf>,
    /// Write a gradebook: one row per program (`-`: stdout)
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write one self-contained HTML page: the class table and each failing case's boards
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write Gradescope's results.json for the program: a test per case with its score and what went
    /// wrong (one program: Gradescope grades one submission at a time)
    #[arg(long, value_name = "FILE", conflicts_with = "class")]
    gradescope: Option<PathBuf>,
    /// Write JUnit XML in Ant's form (CI systems, LMS plug-ins): a test suite per program, a test case per case
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// What a case is worth in --gradescope: N points each, or a file of `NAME POINTS [VISIBILITY]`
    /// lines (cases it does not name are worth 1; VISIBILITY is Gradescope's: visible, hidden,
    /// after_due_date or after_published, default visible); with the lab5 judge a case earns its
    /// share of Lab 5's marks
    #[arg(long, value_name = "N|FILE", default_value = "1")]
    points: String,
    /// The name of a single program in reports (default: its command line)
    #[arg(long, conflicts_with = "class")]
    name: Option<String>,
    #[command(flatten)]
    sandbox: SandboxArgs,
    /// The program and its arguments; each case's arguments follow them
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// Failing outcomes kept per program for the HTML page.
const HTML_FAILURES: usize = 50;
/// Students' entries larger than this are not copied for every case (the sandbox's own cap).
const MAX_ENTRY_BYTES: u64 = othello_sandbox::MAX_COPIED;

pub fn run(args: GradeArgs, output: &super::display::Output) -> Result<()> {
    let cases = grade::load_cases(&args.cases)?;
    for warning in grade::line_ending_warnings(&args.cases, &cases) {
        eprintln!("othello: warning: {warning}");
    }
    let programs = programs(&args)?;
    let mut judges = args.judge.clone();
    judges.dedup();
    if judges.contains(&Judge::Lab5) {
        for case in &cases {
            othello_course::lab5::check_case(&case.args).map_err(|why| anyhow!("bad case {:?}: {why}", case.name))?;
        }
    }
    let timeout = args.timeout.unwrap_or(if judges.contains(&Judge::Lab5) {
        Duration::from_secs(60)
    } else {
        Duration::from_secs(10)
    });
    let case_files = cases
        .iter()
        .flat_map(|case| ["args", "out", "status", "err"].map(|ext| args.cases.join(format!("{}.{ext}", case.name))));
    let mut files = super::output::Files::new()
        .inputs("the case file", case_files)
        .input_folder("the cases folder", &args.cases);
    if let Some(class) = &args.class {
        files = files.input_folder("the class folder", class);
    }
    files
        .inputs(
            "the program's file",
            args.command.iter().map(Path::new).filter(|p| p.is_file()),
        )
        .output("--json", args.json.as_deref())
        .output("--csv", args.csv.as_deref())
        .output("--html", args.html.as_deref())
        .output("--gradescope", args.gradescope.as_deref())
        .output("--junit", args.junit.as_deref())
        .check()?;
    let points = marks::points(&args.points, &cases).map_err(|why| anyhow!(why))?;
    let mut outputs = Outputs::open(&args, points)?;
    let isolation = args.sandbox.apply()?;
    let limits = Limits {
        time: timeout,
        timing: Timing::Cpu,
        stdout: args.output_limit as usize,
        isolation: isolation.clone(),
        ..Limits::default()
    };
    let settings = Settings {
        judges: judges.clone(),
        limits: limits.clone(),
        jobs: super::threads_or_cores(args.jobs),
        differences: args.differences as usize,
        stderr_lines: 8,
        max_timeouts: args.max_timeouts,
    };
    outputs.text(&format!(
        "grading {} program{} on {} case{} of {} (judge{} {}; {} a case; {} at a time)\nruns: {}\n",
        programs.len(),
        if programs.len() == 1 { "" } else { "s" },
        cases.len(),
        if cases.len() == 1 { "" } else { "s" },
        args.cases.display(),
        if judges.len() == 1 { "" } else { "s" },
        judges.iter().map(|j| j.name()).join(", "),
        limits.describe_time(),
        settings.jobs,
        isolation.describe()
    ))?;
    let progress = Progress::new(programs.len() * cases.len(), "cases", output);
    let mut recorder = Recorder::new(&programs, &cases, &settings, args.show, HTML_FAILURES);
    let mut failure: Option<anyhow::Error> = None;
    grade::grade(&programs, &cases, &settings, |outcome| {
        progress.tick();
        if failure.is_some() {
            return;
        }
        for said in recorder.record(outcome) {
            let told = match said {
                Said::Text(text) => progress.suspend(|| outputs.text(&text)),
                Said::Json(line) => outputs.json(&line),
            };
            if let Err(error) = told {
                failure = Some(error);
                return;
            }
        }
    });
    progress.finish();
    if let Some(error) = failure {
        return Err(error);
    }
    if programs.len() > 1 {
        outputs.text(&format!(
            "\n{}",
            report::class_table(&programs, &recorder.summaries, &judges, &isolation)
        ))?;
    }
    outputs.finish(&recorder, &args)?;
    let passed = recorder.summaries.iter().filter(|s| s.all_passed()).count();
    if passed == programs.len() {
        Ok(())
    } else {
        Err(Refused(anyhow!(
            "{} of {} program{} did not pass every case",
            programs.len() - passed,
            programs.len(),
            if programs.len() == 1 { "" } else { "s" }
        ))
        .into())
    }
}

/// The programs to grade: one command, or every student of a class through the template.
fn programs(args: &GradeArgs) -> Result<Vec<Program>> {
    let Some(class) = &args.class else {
        if args.command.is_empty() {
            bail!(
                "no program to grade: give one after `--` (othello grade CASES -- COMMAND ARGS...), or --class DIR --run TEMPLATE"
            );
        }
        if let Some(why) = othello_sandbox::command_refused(&args.command) {
            bail!(why);
        }
        return Ok(vec![Program {
            name: args.name.clone().unwrap_or_else(|| shell_words::join(&args.command)),
            command: othello_sandbox::command_line(&args.command, false),
            refused: None,
        }]);
    };
    if !args.command.is_empty() {
        bail!(
            "bad argument {:?}: a class is started with --run, not with a command after `--`",
            args.command[0]
        );
    }
    let template = args.run.as_deref().unwrap_or_default();
    let words = shell_words::split(template).map_err(|e| anyhow!("bad argument {template:?}: --run {e}"))?;
    if !words.iter().any(|w| w.contains("{}")) {
        bail!(
            "bad argument {template:?}: the --run template must name the student's program with {{}}, e.g. 'python3 {{}}'"
        );
    }
    if !words[0].contains("{}") {
        find_program(&words[0])?;
    }
    let students = othello_course::class::members(class)?;
    students
        .into_iter()
        .map(|path| {
            let name = othello_course::class::member_name(&path);
            let entry = match othello_course::class::member_entry(&path) {
                Ok(entry) => entry,
                Err(why) => {
                    let mut program = Program::from_template(name, &words, &path);
                    program.refused = Some(why);
                    return Ok(program);
                }
            };
            // One student's entry that cannot be copied is that student's failure, not the class's.
            let too_large = match othello_sandbox::entry_size(&entry) {
                Ok(size) if size > MAX_ENTRY_BYTES => Some(format!(
                    "{} holds {} MB: too large to copy for every case (at most {} MB)",
                    path.display(),
                    size >> 20,
                    MAX_ENTRY_BYTES >> 20
                )),
                Ok(_) => None,
                Err(error) => Some(format!("cannot read {}: {error}", path.display())),
            };
            if let Some(why) = too_large {
                let mut program = Program::from_template(name, &words, &path);
                program.refused = Some(why);
                return Ok(program);
            }
            Ok(Program::from_template(name, &words, &entry))
        })
        .collect()
}

/// Checks that the program exists, as a path or in PATH.
fn find_program(word: &str) -> Result<()> {
    if !othello_sandbox::is_runnable(word) {
        let where_ = if word.contains('/') { "" } else { " in PATH" };
        bail!("bad argument {word:?}: no such program{where_}");
    }
    Ok(())
}

/// Where the reports go; files are opened (or their folders checked) before any case runs.
struct Outputs {
    /// The report for people, unless a machine report takes stdout.
    text: Option<std::io::Stdout>,
    json: Option<Output>,
    csv: Option<Output>,
    html: Option<Output>,
    gradescope: Option<Output>,
    junit: Option<Output>,
    /// What each case is worth (--points), and who sees it.
    points: Vec<marks::Worth>,
    /// When the grading started, for the JUnit suites' `timestamp`.
    started: std::time::SystemTime,
}

impl Outputs {
    fn open(args: &GradeArgs, points: Vec<marks::Worth>) -> Result<Outputs> {
        let to_stdout: Vec<&str> = [("--json", &args.json), ("--csv", &args.csv)]
            .into_iter()
            .filter(|(_, path)| path.as_deref().is_some_and(is_stdout))
            .map(|(name, _)| name)
            .collect();
        if to_stdout.len() > 1 {
            bail!("bad argument \"-\": only one of --json and --csv can write to stdout");
        }
        for (name, path) in [
            ("--html", &args.html),
            ("--gradescope", &args.gradescope),
            ("--junit", &args.junit),
        ] {
            if path.as_deref().is_some_and(is_stdout) {
                bail!("bad argument \"-\": {name} takes a file name");
            }
        }
        // JSON Lines grow as the cases finish: a stopped run keeps every line it completed.
        let json = args.json.as_deref().map(Output::open_stream).transpose()?;
        Ok(Outputs {
            text: to_stdout.is_empty().then(std::io::stdout),
            json,
            csv: args.csv.as_deref().map(Output::open).transpose()?,
            html: args.html.as_deref().map(Output::open).transpose()?,
            gradescope: args.gradescope.as_deref().map(Output::open).transpose()?,
            junit: args.junit.as_deref().map(Output::open).transpose()?,
            points,
            started: std::time::SystemTime::now(),
        })
    }

    fn text(&mut self, text: &str) -> Result<()> {
        if let Some(stdout) = &mut self.text {
            let mut lock = stdout.lock();
            match lock.write_all(text.as_bytes()).and_then(|()| lock.flush()) {
                // A closed pipe (`othello grade ... | head`) stops the report, not the grading.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => self.text = None,
                other => other.context("cannot write to stdout")?,
            }
        }
        Ok(())
    }

    /// Appends a line of JSON Lines.
    fn json(&mut self, line: &str) -> Result<()> {
        if let Some(output) = &mut self.json {
            output.append(line)?;
        }
        Ok(())
    }

    /// Writes the reports made at the end from what `recorder` kept.
    fn finish(self, recorder: &Recorder, args: &GradeArgs) -> Result<()> {
        let (programs, cases, settings) = (recorder.programs, recorder.cases, recorder.settings);
        let (summaries, failing, marks) = (&recorder.summaries, &recorder.failing, &recorder.marks);
        if let Some(gradescope) = self.gradescope {
            let line = recorder.summary_lines.first().cloned().unwrap_or_default();
            let program_marks = marks.first().map(Vec::as_slice).unwrap_or_default();
            gradescope.finish(&json::Gradescope::new(line, program_marks, cases, &self.points).text())?;
        }
        if let Some(junit) = self.junit {
            let context = junit::Context {
                started: self.started,
                hostname: junit::hostname(),
                properties: vec![
                    ("judges".into(), settings.judges.iter().map(|j| j.name()).join(",")),
                    ("time-limit".into(), settings.limits.describe_time()),
                    ("isolation".into(), settings.limits.isolation.describe()),
                ],
            };
            junit.finish(&junit::report(programs, marks, cases, &context))?;
        }
        if let Some(csv) = self.csv {
            csv.finish(&report::csv(programs, summaries, &settings.judges, &settings.limits))?;
        }
        if let Some(html) = self.html {
            let pages: Vec<report::ProgramPage> = programs
                .iter()
                .zip(summaries)
                .zip(failing)
                .map(|((program, summary), failing)| report::ProgramPage {
                    program,
                    summary,
                    failing,
                })
                .collect();
            // The cases folder by its name: the page gets shared, the teacher's folders stay home.
            let cases_name = args.cases.file_name().map_or_else(
                || args.cases.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            );
            let title = format!("Grading report: {cases_name}");
            let class: Vec<PathBuf> = args
                .class
                .iter()
                .flat_map(|class| [std::fs::canonicalize(class).ok(), std::path::absolute(class).ok()])
                .flatten()
                .collect();
            html.finish(&report::html(
                &title,
                &pages,
                cases,
                &settings.judges,
                &settings.limits,
                &class,
            ))?;
        }
        Ok(())
    }
}
