//! How a run ended and what it left behind: for reports, each ending in words.

use super::*;

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

    pub(crate) fn not_started_since(why: String, start: Instant) -> Run {
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
pub(crate) fn last_lines(bytes: &[u8], count: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(count)..]
        .iter()
        .map(|l| othello_plumbing::printable::escape(l).into_owned())
        .collect()
}
