//! What a run may use: its time and how it is measured, its output, and how it is isolated (with
//! which resources); values given to each run, never process-wide.

use super::*;

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

/// `1 GB`, `10 MiB`, `1500 bytes`: a size as it was most likely given.
pub(crate) fn size_text(bytes: u64) -> String {
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
pub(crate) fn stall_window(limit: Duration) -> Duration {
    (limit * 3).clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// For a CPU-time limit: no run goes on past 10 times the limit plus 10 s of wall time, whatever it
/// does (a machine 10 times over-committed still gives an honest program its CPU time before).
pub fn wall_backstop(limit: Duration) -> Duration {
    limit * 10 + Duration::from_secs(10)
}
