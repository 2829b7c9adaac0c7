//! Running other people's programs: each run in a sandbox of its own (Linux namespaces: its own
//! processes, file system, network, user; resource limits; CPU-time limits judged by an init of ours
//! inside), or with `--no-sandbox` in a process group killed whole; output captured up to a cap,
//! stderr's tail kept, and nothing of a run left running when it ends.

pub mod cgroup;
mod copy;
mod group;
mod inside;
mod resolve;
mod sandbox;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

pub use sandbox::{HOME, MAX_COPIED, SandboxError};

/// One word of a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Text(String),
    /// A file or folder of the grader's that the run gets its own copy of, in its working folder (a
    /// folder's entries go into the working folder itself when `contents`); the word is `template`
    /// with each `{}` replaced by the copy's path. Made with `Word::copy_into`.
    Copy {
        /// As it was named: the copy's name, and what reports show.
        source: PathBuf,
        /// Its links followed once, when the word was made: each run opens this path through no
        /// link, so that an entry swapped for a link later is not followed.
        resolved: PathBuf,
        contents: bool,
        template: OsString,
    },
}

impl Word {
    pub fn text(text: impl Into<String>) -> Word {
        Word::Text(text.into())
    }

    /// A copy of `source` (its entries when `contents`), the word `template` with `{}` for its path.
    pub fn copy_into(source: &Path, contents: bool, template: impl Into<OsString>) -> Word {
        let source = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
        Word::Copy {
            resolved: std::fs::canonicalize(&source).unwrap_or_else(|_| source.clone()),
            source,
            contents,
            template: template.into(),
        }
    }

    /// A copy of `path` exactly, its links not followed now nor later: a path already resolved and
    /// checked (a class member's entry, see `template_words`).
    pub fn copy_resolved(path: &Path, contents: bool, template: impl Into<OsString>) -> Word {
        Word::Copy {
            source: path.to_path_buf(),
            resolved: path.to_path_buf(),
            contents,
            template: template.into(),
        }
    }

    /// A copy of a file or folder, the word its path.
    pub fn copy(source: impl AsRef<Path>) -> Word {
        Word::copy_into(source.as_ref(), false, "{}")
    }

    /// A copy of a file, alone or with everything in its folder; the word the copy's path.
    pub fn copy_of(file: &Path, whole_folder: bool) -> Word {
        match (whole_folder, file.parent(), file.file_name()) {
            (true, Some(folder), Some(name)) => {
                let mut template = OsString::from("{}/");
                template.push(name);
                Word::copy_into(folder, true, template)
            }
            _ => Word::copy(file),
        }
    }
}

/// A `--run` template's words for a class member's entry, already resolved and checked: a word
/// holding `{}` is a copy of the entry (of its contents, when it is a folder: `python3 {}` then
/// runs its `__main__.py`), every other word is the teacher's own text (its first word an
/// interpreter found on PATH).
pub fn template_words(template: &[String], entry: &Path) -> Vec<Word> {
    template
        .iter()
        .map(|word| {
            if word.contains("{}") {
                Word::copy_resolved(entry, entry.is_dir(), word)
            } else {
                Word::text(word.clone())
            }
        })
        .collect()
}

/// `template` with each `{}` replaced by `path` (bytes, not text: a name need not be UTF-8).
pub fn fill(template: &OsStr, path: &Path) -> OsString {
    let (template, path) = (template.as_bytes(), path.as_os_str().as_bytes());
    let mut filled = Vec::with_capacity(template.len() + path.len());
    let mut rest = template;
    while let Some(at) = rest.windows(2).position(|pair| pair == b"{}") {
        filled.extend_from_slice(&rest[..at]);
        filled.extend_from_slice(path);
        rest = &rest[at + 2..];
    }
    filled.extend_from_slice(rest);
    OsString::from_vec(filled)
}

/// A command line given for one program (`grade -- COMMAND`, `argv:COMMAND`): its first word, when
/// given as a path, is the student's program and is copied, whatever its name (a file named
/// `python3` is a student's like any other: only a name found on PATH, or a file in a system folder,
/// is an interpreter, asked where it is installed); later words that name files or folders are
/// copied (options are not); a file with its whole folder when `whole_folder`.
pub fn command_line(words: &[String], whole_folder: bool) -> Vec<Word> {
    words
        .iter()
        .enumerate()
        .map(|(index, word)| {
            let path = Path::new(word);
            let copied = if index == 0 {
                word.contains('/') && path.is_file() && !std::path::absolute(path).is_ok_and(|p| resolve::is_system(&p))
            } else {
                !word.starts_with('-') && (path.is_file() || path.is_dir())
            };
            if copied {
                let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
                Word::copy_of(&absolute, whole_folder && absolute.is_file())
            } else {
                Word::text(word.clone())
            }
        })
        .collect()
}

/// Where each copy of a command goes in a working folder: (what to copy, contents, path relative
/// to the folder, empty for the folder itself), in the order of first mention, each source once.
fn copies(command: &[Word]) -> Vec<(PathBuf, bool, OsString)> {
    let mut copies: Vec<(PathBuf, bool, OsString)> = Vec::new();
    for word in command {
        let Word::Copy {
            source,
            resolved,
            contents,
            ..
        } = word
        else {
            continue;
        };
        if copies.iter().any(|(r, c, _)| r == resolved && c == contents) {
            continue;
        }
        let relative = if *contents {
            OsString::new()
        } else {
            let name = source
                .file_name()
                .map_or_else(|| OsString::from("program"), OsStr::to_os_string);
            let mut relative = name.clone();
            let mut number = 1;
            while copies.iter().any(|(_, _, taken)| *taken == relative) {
                number += 1;
                relative = OsString::from(format!("{number}-"));
                relative.push(&name);
            }
            relative
        };
        copies.push((resolved.clone(), *contents, relative));
    }
    copies
}

/// The command's words with each copy's path in a working folder.
fn words_in(command: &[Word], folder: &Path) -> Vec<OsString> {
    let copies = copies(command);
    command
        .iter()
        .map(|word| match word {
            Word::Text(text) => OsString::from(text),
            Word::Copy {
                resolved,
                contents,
                template,
                ..
            } => {
                let relative = copies
                    .iter()
                    .find(|(r, c, _)| r == resolved && c == contents)
                    .map_or(OsStr::new(""), |(_, _, relative)| relative.as_os_str());
                let path = if relative.is_empty() {
                    folder.to_path_buf()
                } else {
                    folder.join(relative)
                };
                fill(template, &path)
            }
        })
        .collect()
}

/// One program to run: its command (the program, then its arguments) and extra environment.
#[derive(Clone, Debug)]
pub struct Job {
    pub command: Vec<Word>,
    pub env: Vec<(String, String)>,
}

/// How a time limit is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// CPU time (user and system) of every process of the run, whatever else the machine does;
    /// a wall-clock backstop stops a run that sleeps or waits (see `stall_window`, `wall_backstop`).
    Cpu,
    /// Wall time.
    Wall,
}

/// What a sandboxed run may use besides time. With `whole_run`, memory and processes are the
/// run's together (its control group's limits); without, each process's own (the kernel's
/// RLIMIT_AS and RLIMIT_NPROC). Files are limited per process either way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resources {
    /// Bytes the run may hold (per process without `whole_run`: of address space).
    pub memory: u64,
    /// Bytes of the largest file it may write.
    pub file_size: u64,
    pub open_files: u64,
    pub processes: u64,
    /// A control group per run: memory, processes and CPU time of the whole run, its processes
    /// frozen between a player's moves. False only when asked (`--per-process-limits`).
    pub whole_run: bool,
    /// Files and folders the run sees read-only at their own path, besides the system folders and
    /// its interpreter's (`--visible`: a course's shared library, say).
    pub visible: Arc<[PathBuf]>,
}

/// The default resources: the course's tournament server's limits (10^9 bytes of memory, 10 MiB
/// files, 500 open files) and 128 processes; nothing visible but the system's folders.
impl Default for Resources {
    fn default() -> Resources {
        Resources {
            memory: 1_000_000_000,
            file_size: 10 << 20,
            open_files: 500,
            processes: 128,
            whole_run: true,
            visible: Arc::default(),
        }
    }
}

/// How runs are kept apart from the grader and from each other: a value each run is given (in its
/// [`Limits`]), so that one process may run programs under different settings at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Isolation {
    Sandbox(Resources),
    /// A process group of its own, killed whole; no other isolation; time limits on the wall clock.
    ProcessGroup,
}

/// A sandbox with the default resources.
impl Default for Isolation {
    fn default() -> Isolation {
        Isolation::Sandbox(Resources::default())
    }
}

impl Isolation {
    pub fn is_sandbox(&self) -> bool {
        matches!(self, Isolation::Sandbox(_))
    }

    /// Checks that runs can be isolated so here: a sandbox is built, and its program's process
    /// ends without running anything. Each setting is checked once in a process's life.
    pub fn check(&self) -> Result<(), SandboxError> {
        // What was found of each setting checked: the kernel does not change under a run.
        static CHECKED: Mutex<Vec<(Resources, Result<(), SandboxError>)>> = Mutex::new(Vec::new());
        let Isolation::Sandbox(resources) = self else {
            return Ok(());
        };
        let mut checked = CHECKED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, found)) = checked.iter().find(|(seen, _)| seen == resources) {
            return found.clone();
        }
        let limits = Limits {
            isolation: self.clone(),
            ..Limits::default()
        };
        let probe = Job {
            command: Vec::new(),
            env: Vec::new(),
        };
        let found = match run(&probe, &limits).ending {
            Ending::Exited(0) => Ok(()),
            Ending::NotStarted(why)
                if why.starts_with("cannot start the sandbox") || why.starts_with("no control group") =>
            {
                Err(SandboxError(why))
            }
            Ending::NotStarted(why) => Err(SandboxError(format!(
                "cannot start the sandbox: {why}; or run with --no-sandbox (the runs are then not isolated)"
            ))),
            other => Err(SandboxError(format!(
                "cannot start the sandbox: a trivial program ended with {}; or run with --no-sandbox",
                other.describe(&limits)
            ))),
        };
        checked.push((resources.clone(), found.clone()));
        found
    }

    /// One line for reports: what the runs could and could not do.
    pub fn describe(&self) -> String {
        match self {
            Isolation::Sandbox(resources) if resources.whole_run => format!(
                "sandboxed: own processes, files, network and user; a control group per run: memory {} in all, {} processes, CPU time of every process, frozen between moves; file size {}, {} open files",
                size_text(resources.memory),
                resources.processes,
                size_text(resources.file_size),
                resources.open_files,
            ),
            Isolation::Sandbox(resources) => format!(
                "sandboxed: own processes, files, network and user; PER-PROCESS LIMITS ONLY (--per-process-limits, no control group): memory {} and {} processes each, CPU time of the processes the sandbox sees, nothing frozen between moves; file size {}, {} open files",
                size_text(resources.memory),
                resources.processes,
                size_text(resources.file_size),
                resources.open_files,
            ),
            Isolation::ProcessGroup => {
                "NOT ISOLATED (--no-sandbox): the programs ran as this user, could read and change its files and leave processes behind; time limits on the wall clock".to_string()
            }
        }
    }
}

/// What the runs' set-up noted for the teacher (a folder left out of the sandbox), each once.
static NOTICES: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());

fn notice(text: String) {
    if let Ok(mut notices) = NOTICES.lock()
        && !notices.iter().any(|(said, _)| *said == text)
    {
        notices.push((text, false));
    }
}

/// The notes made since the last call, each once in the process's lifetime: for the command line
/// to show.
pub fn notices() -> Vec<String> {
    let Ok(mut notices) = NOTICES.lock() else {
        return Vec::new();
    };
    notices
        .iter_mut()
        .filter(|(_, taken)| !*taken)
        .map(|(text, taken)| {
            *taken = true;
            text.clone()
        })
        .collect()
}

/// Kills the process groups of the runs without a sandbox still going; safe in a signal handler.
pub fn kill_process_groups() {
    group::kill_all();
}

/// `1 GB`, `10 MiB`, `1500 bytes`: a size as it was most likely given.
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 6] = [
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (1000, "kB"),
    ];
    UNITS
        .iter()
        .find(|(unit, _)| bytes >= *unit && bytes.is_multiple_of(*unit))
        .map_or_else(
            || format!("{bytes} bytes"),
            |(unit, name)| format!("{} {name}", bytes / unit),
        )
}

/// What a run may use.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The time limit; then the run is stopped.
    pub time: Duration,
    /// How `time` is measured (wall time whatever this says without a sandbox).
    pub timing: Timing,
    /// Bytes of stdout kept; a program that prints more is stopped.
    pub stdout: usize,
    /// Bytes of stderr kept, from its end.
    pub stderr: usize,
    pub isolation: Isolation,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time: Duration::from_secs(10),
            timing: Timing::Cpu,
            stdout: 1 << 20,
            stderr: 64 << 10,
            isolation: Isolation::default(),
        }
    }
}

impl Limits {
    /// How the time limit is measured in fact: the CPU time needs the sandbox.
    pub fn effective_timing(&self) -> Timing {
        if self.isolation.is_sandbox() {
            self.timing
        } else {
            Timing::Wall
        }
    }

    /// The time limit as reports say it: `10 s of CPU time`, or `10 s` on the wall clock.
    pub fn describe_time(&self) -> String {
        let clock = match self.effective_timing() {
            Timing::Cpu => " of CPU time",
            Timing::Wall => "",
        };
        format!("{} s{clock}", self.time.as_secs_f64())
    }
}

/// For a CPU-time limit: a run whose CPU time has not grown for this long (3 times the limit, from
/// 1 s to 60 s) is stopped for making no progress (it sleeps, or waits for what never comes).
pub fn stall_window(limit: Duration) -> Duration {
    (limit * 3).clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// For a CPU-time limit: no run goes on past 10 times the limit plus 10 s of wall time, whatever it
/// does (a machine 10 times over-committed still gives an honest program its CPU time before).
pub fn wall_backstop(limit: Duration) -> Duration {
    limit * 10 + Duration::from_secs(10)
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    /// Killed by a signal it did not get from us.
    Signalled(i32),
    /// Stopped at the time limit.
    TimedOut,
    /// Stopped by the wall-clock backstop of a CPU-time limit: it used little CPU for a long time.
    NoProgress {
        wall: Duration,
        cpu: Duration,
    },
    /// Stopped because it printed more than the limit.
    OutputLimit,
    /// It failed for want of memory at the sandbox's memory limit.
    MemoryLimit,
    /// It wrote a file up to the sandbox's file-size limit.
    FileSizeLimit,
    /// It failed to open a file, or to start a process or thread, at the sandbox's limit of them.
    OpenFilesLimit,
    ProcessLimit,
    /// It could not be started at all (no such program, not executable, no sandbox, ...).
    NotStarted(String),
}

impl Ending {
    /// `exit status 1`, `killed by signal 11 (SIGSEGV)`, `memory limit 1 GB`, ...: for reports.
    pub fn describe(&self, limits: &Limits) -> String {
        let seconds = limits.time.as_secs_f64();
        let resources = match &limits.isolation {
            Isolation::Sandbox(resources) => resources.clone(),
            Isolation::ProcessGroup => Resources::default(),
        };
        match self {
            Ending::Exited(code) => format!("exit status {code}"),
            Ending::Signalled(signal) => format!("killed by signal {signal}{}", signal_name(*signal)),
            Ending::TimedOut => match limits.effective_timing() {
                Timing::Cpu => format!("stopped at the CPU time limit of {seconds} s"),
                Timing::Wall => format!("stopped after the time limit of {seconds} s"),
            },
            Ending::NoProgress { wall, cpu } => format!(
                "no progress: stopped after {:.1} s of wall time with {:.2} s of CPU time (the limit is {seconds} s of CPU time)",
                wall.as_secs_f64(),
                cpu.as_secs_f64()
            ),
            Ending::OutputLimit => format!("stopped after printing more than {} bytes", limits.stdout),
            Ending::MemoryLimit => format!("memory limit {}", size_text(resources.memory)),
            Ending::FileSizeLimit => format!("file size limit {}", size_text(resources.file_size)),
            Ending::OpenFilesLimit => format!("open files limit {}", resources.open_files),
            Ending::ProcessLimit => format!("process limit {}", resources.processes),
            Ending::NotStarted(why) => format!("could not be started: {}", othello_plumbing::printable::escape(why)),
        }
    }

    /// Whether the run hit a limit of time (the time limit, or its wall-clock backstop).
    pub fn is_time_out(&self) -> bool {
        matches!(self, Ending::TimedOut | Ending::NoProgress { .. })
    }

    /// Whether the run hit a resource limit of the sandbox (memory, file size, open files, processes).
    pub fn is_resource_limit(&self) -> bool {
        matches!(
            self,
            Ending::MemoryLimit | Ending::FileSizeLimit | Ending::OpenFilesLimit | Ending::ProcessLimit
        )
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGBUS => " (SIGBUS)",
        libc::SIGFPE => " (SIGFPE)",
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGPIPE => " (SIGPIPE)",
        libc::SIGINT => " (SIGINT)",
        libc::SIGXCPU => " (SIGXCPU)",
        libc::SIGXFSZ => " (SIGXFSZ)",
        _ => "",
    }
}

/// What a run left behind.
#[derive(Clone, Debug)]
pub struct Run {
    /// At most `Limits::stdout` bytes.
    pub stdout: Vec<u8>,
    /// The last `Limits::stderr` bytes at most.
    pub stderr: Vec<u8>,
    pub ending: Ending,
    /// Wall time.
    pub elapsed: Duration,
    /// CPU time of every process of the run (sandboxed runs only).
    pub cpu: Option<Duration>,
}

impl Run {
    /// The last `count` non-empty lines of stderr, for reports.
    pub fn stderr_tail(&self, count: usize) -> Vec<String> {
        last_lines(&self.stderr, count)
    }

    /// The last `count` lines of stdout, shown as `stderr_tail` is: what a program that was stopped
    /// had printed.
    pub fn stdout_tail(&self, count: usize) -> Vec<String> {
        last_lines(&self.stdout, count)
    }

    /// The time the limit is judged on: CPU time in a sandbox with a CPU-time limit, else wall time.
    pub fn time(&self, limits: &Limits) -> Duration {
        match (limits.effective_timing(), self.cpu) {
            (Timing::Cpu, Some(cpu)) => cpu,
            _ => self.elapsed,
        }
    }

    /// A run that was never started, for this reason (a program refused before its runs).
    pub fn not_started(why: String) -> Run {
        Run::not_started_since(why, Instant::now())
    }

    fn not_started_since(why: String, start: Instant) -> Run {
        Run {
            stdout: Vec::new(),
            stderr: Vec::new(),
            ending: Ending::NotStarted(why),
            elapsed: start.elapsed(),
            cpu: None,
        }
    }
}

/// The last `count` non-empty lines of a stream, their control characters escaped: a student's
/// stderr reaches reports people read in a terminal.
fn last_lines(bytes: &[u8], count: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(count)..]
        .iter()
        .map(|l| othello_plumbing::printable::escape(l).into_owned())
        .collect()
}

/// Runs a job to its end or its limits; nothing of it is left running when this returns.
pub fn run(job: &Job, limits: &Limits) -> Run {
    match &limits.isolation {
        Isolation::Sandbox(resources) => run_sandboxed(job, limits, resources),
        Isolation::ProcessGroup => group::run(job, limits),
    }
}

/// The sandbox's first limits for a run: the time limit as measured, and its backstops.
fn deadlines(time: Duration, timing: Timing) -> sandbox::Deadlines {
    match timing {
        Timing::Cpu => sandbox::Deadlines {
            cpu: Some(time),
            wall: Some(wall_backstop(time)),
            stall: Some(stall_window(time)),
        },
        Timing::Wall => sandbox::Deadlines {
            cpu: None,
            wall: Some(time),
            stall: None,
        },
    }
}

/// A run's control group, with its limits (none with per-process limits).
fn run_group(resources: &Resources) -> Result<Option<cgroup::Group>, String> {
    if !resources.whole_run {
        return Ok(None);
    }
    let controllers = cgroup::controllers()?;
    cgroup::Group::new(&controllers, resources.memory, resources.processes).map(Some)
}

fn run_sandboxed(job: &Job, limits: &Limits, resources: &Resources) -> Run {
    let start = Instant::now();
    // The kernel's own per-process CPU limit backs the init's accounting up.
    let cpu_seconds = (limits.timing == Timing::Cpu).then(|| limits.time.as_secs() + 2);
    let plan = match sandbox::plan(&job.command, &job.env, resources, cpu_seconds) {
        Ok(plan) => plan,
        Err(why) => return Run::not_started_since(why, start),
    };
    let first = deadlines(limits.time, limits.timing);
    let group = match run_group(resources) {
        Ok(group) => group,
        Err(why) => return Run::not_started_since(why, start),
    };
    let spawned = match sandbox::spawn(&plan, sandbox::Stdin::Null, first, group) {
        Ok(spawned) => spawned,
        Err(error) => return Run::not_started_since(error.0, start),
    };
    let sandbox::Spawned {
        mut sandbox,
        stdout,
        stderr,
        ..
    } = spawned;
    let stop = sandbox.stopper();
    let flooded = Arc::new(AtomicBool::new(false));
    let (stdout_capture, stdout_reader) = {
        let (flooded, cap) = (Arc::clone(&flooded), limits.stdout);
        read_into(stdout, move |capture| {
            if capture.bytes.len() > cap {
                capture.bytes.truncate(cap);
                flooded.store(true, Ordering::SeqCst);
                stop();
                false
            } else {
                true
            }
        })
    };
    let (stderr_capture, stderr_reader) = read_into(stderr, stderr_trimmer(limits.stderr));
    // The init ends the run at its limits; this wait is only in case it cannot.
    let longest = first.wall.unwrap_or(limits.time) + Duration::from_secs(30);
    let last = sandbox.finish(Some(longest));
    if last.is_none() {
        sandbox.kill();
    }
    // Every process of the run is gone once the init has reported (or was killed): the pipes have
    // no writer left, and everything printed is read to its end.
    let _ = stdout_reader.join();
    let _ = stderr_reader.join();
    sandbox.reap();
    let elapsed = start.elapsed();
    let take = |capture: &Arc<Mutex<Capture>>| {
        capture
            .lock()
            .map(|mut c| std::mem::take(&mut c.bytes))
            .unwrap_or_default()
    };
    let (stdout, stderr) = (take(&stdout_capture), take(&stderr_capture));
    let oom = sandbox.hit_memory_limit();
    let (ending, cpu) = sandboxed_ending(last, flooded.load(Ordering::SeqCst), oom, limits, elapsed, &stderr);
    Run {
        stdout,
        stderr,
        ending,
        elapsed,
        cpu,
    }
}

/// How a sandboxed run ended, from the init's last word.
fn sandboxed_ending(
    last: Option<sandbox::Final>,
    flooded: bool,
    oom: bool,
    limits: &Limits,
    elapsed: Duration,
    stderr: &[u8],
) -> (Ending, Option<Duration>) {
    use sandbox::{Cause, Final};
    let (cause, status, cpu) = match last {
        Some(Final::Ended { cpu, .. }) if flooded => return (Ending::OutputLimit, Some(cpu)),
        _ if flooded => return (Ending::OutputLimit, None),
        None => {
            return (Ending::NotStarted("the sandbox stopped answering".to_string()), None);
        }
        Some(Final::NotStarted(why)) => return (Ending::NotStarted(why), None),
        Some(Final::Ended { cause, status, cpu }) => (cause, status, cpu),
    };
    let ending = match cause {
        Cause::CpuLimit => Ending::TimedOut,
        Cause::WallLimit if limits.timing == Timing::Wall => Ending::TimedOut,
        Cause::WallLimit | Cause::Stalled => Ending::NoProgress { wall: elapsed, cpu },
        Cause::Stopped => Ending::NotStarted("stopped by the grader".to_string()),
        Cause::Exited if limits.timing == Timing::Cpu && cpu > limits.time => Ending::TimedOut,
        Cause::Exited if libc::WIFEXITED(status) => Ending::Exited(libc::WEXITSTATUS(status)),
        Cause::Exited if libc::WIFSIGNALED(status) => match libc::WTERMSIG(status) {
            libc::SIGXCPU => Ending::TimedOut,
            signal => Ending::Signalled(signal),
        },
        Cause::Exited => Ending::NotStarted("no exit status".to_string()),
    };
    // The group's own counter says a process was killed at the memory limit (whatever the
    // program said, or did not say, about it).
    let failed = matches!(ending, Ending::Signalled(_)) || matches!(ending, Ending::Exited(code) if code != 0);
    if oom && failed {
        return (Ending::MemoryLimit, Some(cpu));
    }
    (resource_limit(ending, stderr), Some(cpu))
}

/// A failed run that hit a limit of the sandbox: the kernel refuses memory past RLIMIT_AS, a file
/// past RLIMIT_NOFILE and a process past RLIMIT_NPROC, and kills (or refuses) a write past
/// RLIMIT_FSIZE; each language then says so in its own words.
fn resource_limit(ending: Ending, stderr: &[u8]) -> Ending {
    let failed = match ending {
        Ending::Exited(code) => code != 0,
        Ending::Signalled(libc::SIGXFSZ) => return Ending::FileSizeLimit,
        Ending::Signalled(_) => true,
        _ => false,
    };
    if !failed {
        return ending;
    }
    let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(4096)..]);
    const MEMORY: [&str; 6] = [
        "MemoryError",
        "memory allocation of",
        "std::bad_alloc",
        "Cannot allocate memory",
        "OutOfMemoryError",
        "out of memory",
    ];
    const PROCESSES: [&str; 3] = [
        "fork: Resource temporarily unavailable",
        "fork: retry: Resource temporarily unavailable",
        "can't start new thread",
    ];
    if tail.contains("File too large") || tail.contains("File size limit exceeded") {
        Ending::FileSizeLimit
    } else if MEMORY.iter().any(|sign| tail.contains(sign)) {
        Ending::MemoryLimit
    } else if tail.contains("Too many open files") {
        Ending::OpenFilesLimit
    } else if PROCESSES.iter().any(|sign| tail.contains(sign))
        || (tail.contains("BlockingIOError") && tail.contains("fork"))
    {
        Ending::ProcessLimit
    } else {
        ending
    }
}

/// Captured bytes of one stream, shared with the thread that reads it.
#[derive(Default)]
struct Capture {
    bytes: Vec<u8>,
    done: bool,
}

/// A stderr capture's trimmer: keeps the last `keep` bytes (trimming only past twice that).
fn stderr_trimmer(keep: usize) -> impl FnMut(&mut Capture) -> bool + Send + 'static {
    move |capture: &mut Capture| {
        if capture.bytes.len() > 2 * keep {
            let cut = capture.bytes.len() - keep;
            capture.bytes.drain(..cut);
        }
        true
    }
}

/// Reads a pipe to its end on a thread of its own; `keep_going` trims the capture after each chunk
/// and says whether to keep what comes next (the rest is read and dropped, so the writer never blocks).
fn read_into<R, F>(mut pipe: R, mut keep_going: F) -> (Arc<Mutex<Capture>>, thread::JoinHandle<()>)
where
    R: Read + Send + 'static,
    F: FnMut(&mut Capture) -> bool + Send + 'static,
{
    let capture = Arc::new(Mutex::new(Capture::default()));
    let shared = Arc::clone(&capture);
    let handle = thread::spawn(move || {
        let mut buffer = [0u8; 16 << 10];
        let mut keeping = true;
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) if keeping => {
                    let Ok(mut c) = shared.lock() else { break };
                    c.bytes.extend_from_slice(&buffer[..n]);
                    keeping = keep_going(&mut c);
                }
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if let Ok(mut c) = shared.lock() {
            c.done = true;
        }
    });
    (capture, handle)
}

/// Whether a command word names a program that can be started: a file when it holds a slash, else a
/// file in one of PATH's folders.
pub fn is_runnable(word: &str) -> bool {
    if word.contains('/') {
        return Path::new(word).is_file();
    }
    resolve::on_path(word).is_some()
}

/// Why a command cannot run, before any run of it: its program is not there, or it starts an
/// interpreter (`python3 nonexist.py`) on a script that is not there, which every run would
/// report as a crash of its own. None when it can be started.
pub fn command_refused(words: &[String]) -> Option<String> {
    let first = words.first()?;
    if !is_runnable(first) {
        let where_ = if first.contains('/') { "" } else { " in PATH" };
        return Some(format!("bad argument {first:?}: no such program{where_}"));
    }
    let script = interpreter_script(words)?;
    if Path::new(script).exists() {
        return None;
    }
    let name = Path::new(first)
        .file_name()
        .map_or(first.as_str(), |n| n.to_str().unwrap_or(first));
    Some(format!(
        "bad argument {script:?}: no such file ({name} would be given it as its program)"
    ))
}

/// The script an interpreter's command line runs (`python3 -u bot.py 19` -> `bot.py`): its first
/// word that is not an option; None for a program that is no interpreter known here, or a command
/// that runs no file (`python3 -c CODE`, `-m MODULE`, `-`).
fn interpreter_script(words: &[String]) -> Option<&str> {
    let name = Path::new(words.first()?).file_name()?.to_str()?;
    let python = name.starts_with("python") || name.starts_with("pypy");
    let known = python
        || [
            "sh", "bash", "dash", "zsh", "node", "ruby", "perl", "php", "lua", "Rscript", "julia",
        ]
        .contains(&name);
    if !known {
        return None;
    }
    let mut rest = words[1..].iter();
    while let Some(word) = rest.next() {
        match word.as_str() {
            "-c" | "-m" | "-e" | "-" => return None,
            "--" => return rest.next().map(String::as_str),
            // Python's options that take a value.
            "-W" | "-X" if python => {
                rest.next();
            }
            option if option.starts_with('-') => {}
            script => return Some(script),
        }
    }
    None
}

/// The size in bytes of a file or folder (everything under it), to refuse copying a huge one.
/// Links are not followed, and what vanishes while it is sized (a student's folder changing under
/// the grader) counts nothing: the copies are cut at their budget whatever this says.
pub fn entry_size(entry: &Path) -> std::io::Result<u64> {
    let meta = std::fs::symlink_metadata(entry)?;
    if !meta.is_dir() {
        return Ok(meta.len());
    }
    let gone = |error: &std::io::Error| {
        matches!(
            error.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
        )
    };
    let children = match std::fs::read_dir(entry) {
        Ok(children) => children,
        Err(error) if gone(&error) => return Ok(0),
        Err(error) => return Err(error),
    };
    children.into_iter().try_fold(0, |total, child| {
        let size = match child.and_then(|child| entry_size(&child.path())) {
            Ok(size) => size,
            Err(error) if gone(&error) => 0,
            Err(error) => return Err(error),
        };
        Ok(total + size)
    })
}

/// A long-lived program that answers one line per request (the Python helper of the program
/// players): stdin and stdout as pipes, stderr's tail kept; ended whole when dropped.
pub struct Session {
    input: Option<File>,
    lines: mpsc::Receiver<String>,
    /// Set by the reader when the program wrote more than its answers may be (`MAX_QUEUED` lines
    /// unread, or a line over `MAX_LINE`): it then stops reading, and the session is over.
    flooded: Arc<AtomicBool>,
    stderr: Arc<SyncedCapture>,
    process: SessionProcess,
    limits: Limits,
    started: Instant,
}

enum SessionProcess {
    Sandbox(sandbox::Sandbox),
    Group(group::Group),
}

/// Why a session gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silence {
    TimedOut,
    /// The program closed its stdout (it ended, or crashed).
    Ended,
    /// It wrote more than a program that answers a line a request can: `MAX_QUEUED` lines not yet
    /// asked for, or a line longer than `MAX_LINE`. Nothing more of it is read.
    Flooded,
}

impl Silence {
    /// Why a player that fell silent so failed, for reports (None: it ended, the caller says how).
    pub fn flood_text() -> String {
        format!(
            "flooded its answers: more than {MAX_QUEUED} lines not asked for, or a line over {}",
            size_text(MAX_LINE as u64)
        )
    }
}

/// The longest answer line; a longer one is a flood.
const MAX_LINE: usize = 64 << 10;
/// Answer lines held before they are asked for; one more is a flood (a helper answers one line a
/// request: what the moderator holds stays bounded whatever a program writes).
const MAX_QUEUED: usize = 16;

impl Session {
    /// Starts the program; `limits` (time, timing) bound what it does before its first answer.
    pub fn start(job: &Job, limits: &Limits) -> Result<Session, String> {
        let (process, input, stdout, stderr) = match &limits.isolation {
            Isolation::Sandbox(resources) => {
                let plan = sandbox::plan(&job.command, &job.env, resources, None)?;
                let first = deadlines(limits.time, limits.timing);
                let group = run_group(resources)?;
                let spawned = sandbox::spawn(&plan, sandbox::Stdin::Pipe, first, group).map_err(|e| e.0)?;
                (
                    SessionProcess::Sandbox(spawned.sandbox),
                    spawned.stdin,
                    spawned.stdout,
                    spawned.stderr,
                )
            }
            Isolation::ProcessGroup => {
                let (group, input, stdout, stderr) = group::Group::start_session(job)?;
                (SessionProcess::Group(group), Some(input), stdout, stderr)
            }
        };
        let (sender, lines) = mpsc::sync_channel(MAX_QUEUED);
        let flooded = Arc::new(AtomicBool::new(false));
        let flood = Arc::clone(&flooded);
        thread::spawn(move || {
            let mut reader = std::io::BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                line.clear();
                match read_line_capped(&mut reader, &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        let text = String::from_utf8_lossy(&line).trim_end().to_string();
                        match sender.try_send(text) {
                            Ok(()) if read <= MAX_LINE => {}
                            Err(mpsc::TrySendError::Disconnected(_)) => break,
                            _ => {
                                // The program is left blocked on a full pipe until the session ends.
                                flood.store(true, Ordering::SeqCst);
                                break;
                            }
                        }
                    }
                }
            }
        });
        let stderr = read_synced(stderr, limits.stderr);
        Ok(Session {
            input,
            lines,
            flooded,
            stderr,
            process,
            limits: limits.clone(),
            started: Instant::now(),
        })
    }

    /// Sends one line; false when the program no longer reads, or has written lines that were not
    /// asked for (a flood: `receive` then says so).
    pub fn send(&mut self, line: &str) -> bool {
        use std::io::Write as _;
        if self.unasked() {
            return false;
        }
        self.input.as_mut().is_some_and(|input| {
            input
                .write_all(format!("{line}\n").as_bytes())
                .and_then(|()| input.flush())
                .is_ok()
        })
    }

    /// Whether a line is waiting that nothing asked for (an answer is one line a request): that is
    /// a flood, and the session is over.
    pub fn unasked(&self) -> bool {
        if self.lines.try_recv().is_ok() {
            self.flooded.store(true, Ordering::SeqCst);
        }
        self.flooded.load(Ordering::SeqCst)
    }

    /// The next line the program writes, waiting at most `limit` of wall time.
    pub fn receive(&self, limit: Duration) -> Result<String, Silence> {
        let flooded = || self.flooded.load(Ordering::SeqCst);
        if flooded() {
            return Err(Silence::Flooded);
        }
        self.lines.recv_timeout(limit).map_err(|error| match error {
            _ if flooded() => Silence::Flooded,
            RecvTimeoutError::Timeout => Silence::TimedOut,
            RecvTimeoutError::Disconnected => Silence::Ended,
        })
    }

    /// Limits what the program does from now on (None: nothing but the requests' own waits) and
    /// returns the CPU time it has used so far; None without a sandbox, or once it has ended.
    pub fn limit(&mut self, time: Option<Duration>, timing: Timing) -> Option<Duration> {
        self.limits.timing = timing;
        match &mut self.process {
            SessionProcess::Sandbox(sandbox) => {
                // Between its moves nothing of it runs: thawed for its turn, frozen after it.
                if time.is_some() {
                    sandbox.freeze(false);
                }
                let next = time.map_or(sandbox::Deadlines::NONE, |time| deadlines(time, timing));
                let used = sandbox.limit(next);
                if time.is_none() {
                    sandbox.freeze(true);
                }
                used
            }
            SessionProcess::Group(_) => None,
        }
    }

    /// How the program ended, after it fell silent for good (None: it has not, or nothing is known).
    pub fn ending(&mut self) -> Option<Ending> {
        match &mut self.process {
            SessionProcess::Sandbox(sandbox) => {
                // A program that closed its stdout but goes on is ended here.
                let last = sandbox.finish(Some(Duration::from_secs(2))).or_else(|| {
                    sandbox.kill();
                    sandbox.finish(Some(Duration::from_secs(2)))
                })?;
                let stderr = self.stderr.bytes();
                let oom = sandbox.hit_memory_limit();
                Some(sandboxed_ending(Some(last), false, oom, &self.limits, self.started.elapsed(), &stderr).0)
            }
            SessionProcess::Group(_) => None,
        }
    }

    /// The last `count` non-empty lines of its stderr so far: everything it wrote before this call
    /// (before its last answer, say) is in them.
    pub fn stderr_tail(&self, count: usize) -> Vec<String> {
        last_lines(&self.stderr.bytes(), count)
    }
}

/// A stream read on a thread of its own that can be asked to catch up: what was written before the
/// request is in the capture when the request returns (a session's stderr, whose lines must be with
/// the answer that followed them).
struct SyncedCapture {
    state: Mutex<(Capture, u64, u64)>,
    caught_up: std::sync::Condvar,
}

impl SyncedCapture {
    /// The bytes so far, once the reader has read everything already written.
    fn bytes(&self) -> Vec<u8> {
        let Ok(mut state) = self.state.lock() else {
            return Vec::new();
        };
        state.1 += 1;
        let wanted = state.1;
        let deadline = Instant::now() + Duration::from_millis(500);
        while state.2 < wanted && !state.0.done {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match self.caught_up.wait_timeout(state, left) {
                Ok((next, _)) => state = next,
                Err(_) => return Vec::new(),
            }
        }
        state.0.bytes.clone()
    }
}

/// Reads a pipe, keeping its last `keep` bytes, polling it so that it can serve catch-up requests.
fn read_synced(pipe: File, keep: usize) -> Arc<SyncedCapture> {
    use std::os::fd::AsRawFd;
    let synced = Arc::new(SyncedCapture {
        state: Mutex::new((Capture::default(), 0, 0)),
        caught_up: std::sync::Condvar::new(),
    });
    let shared = Arc::clone(&synced);
    thread::spawn(move || {
        let mut pipe = pipe;
        let fd = pipe.as_raw_fd();
        // SAFETY: fcntl on a descriptor this thread owns.
        unsafe { libc::fcntl(fd, libc::F_SETFL, libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK) };
        let mut trim = stderr_trimmer(keep);
        let mut buffer = [0u8; 16 << 10];
        loop {
            let mut polled = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: poll reads and writes the one pollfd it is given.
            unsafe { libc::poll(&mut polled, 1, 20) };
            // Everything written by now, then the requests made before it are served.
            let requested = shared.state.lock().map(|s| s.1).unwrap_or(0);
            let mut ended = false;
            loop {
                match pipe.read(&mut buffer) {
                    Ok(0) => {
                        ended = true;
                        break;
                    }
                    Ok(n) => {
                        let Ok(mut state) = shared.state.lock() else { return };
                        state.0.bytes.extend_from_slice(&buffer[..n]);
                        trim(&mut state.0);
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        ended = true;
                        break;
                    }
                }
            }
            let Ok(mut state) = shared.state.lock() else { return };
            state.2 = state.2.max(requested);
            state.0.done = ended;
            shared.caught_up.notify_all();
            if ended {
                return;
            }
        }
    });
    synced
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.input.take());
        match &mut self.process {
            SessionProcess::Sandbox(sandbox) => {
                sandbox.kill();
                sandbox.reap();
            }
            SessionProcess::Group(group) => group.end(),
        }
    }
}

/// Reads up to a newline, keeping at most MAX_LINE bytes of it, and returns the bytes read: 0 at
/// the end of the stream, more than MAX_LINE (without reading further) for a longer line.
fn read_line_capped(reader: &mut impl std::io::BufRead, line: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let (done, used) = {
            let available = reader.fill_buf()?;
            if available.is_empty() {
                return Ok(total);
            }
            let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
                Some(end) => (&available[..=end], true),
                None => (available, false),
            };
            let room = MAX_LINE.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            (done, chunk.len())
        };
        reader.consume(used);
        total += used;
        if done || total > MAX_LINE {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests;
