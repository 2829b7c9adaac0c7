//! Running other people's programs: each run in a sandbox of its own (Linux namespaces: its own
//! processes, file system, network, user; resource limits; CPU-time limits judged by an init of ours
//! inside), or with `--no-sandbox` in a process group killed whole; output captured up to a cap,
//! stderr's tail kept, and nothing of a run left running when it ends.

pub mod cgroup;
mod command;
mod copy;
mod ending;
mod group;
mod inside;
mod limits;
mod resolve;
mod sandbox;
mod session;

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

pub use command::{Job, Word, command_line, command_refused, entry_size, fill, is_runnable, template_words};
use command::{copies, words_in};
use ending::last_lines;
pub use ending::{Ending, Run};
pub use limits::{Isolation, Limits, Resources, Timing, wall_backstop};
use limits::{size_text, stall_window};
pub use sandbox::{HOME, MAX_COPIED, SandboxError};
pub use session::{Session, Silence};

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

#[cfg(test)]
mod tests;
