//! Running other people's programs safely: each in a process group of its own that is killed whole on
//! a time-out, with standard input closed (or, for a session, a pipe), its output captured up to a cap,
//! its stderr's tail kept, and nothing of it left running when the run ends.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// What a run may use.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time; then the whole process group is killed.
    pub time: Duration,
    /// Bytes of stdout kept; a program that prints more is stopped.
    pub stdout: usize,
    /// Bytes of stderr kept, from its end.
    pub stderr: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time: Duration::from_secs(10),
            stdout: 1 << 20,
            stderr: 64 << 10,
        }
    }
}

/// One program to run: the command, its arguments, where and with what extra environment.
#[derive(Clone, Debug)]
pub struct Job {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub dir: PathBuf,
    pub env: Vec<(OsString, OsString)>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    /// Killed by a signal it did not get from us.
    Signalled(i32),
    /// Stopped at the time limit.
    TimedOut,
    /// Stopped because it printed more than the limit.
    OutputLimit,
    /// It could not be started at all (no such program, not executable, ...).
    NotStarted(String),
}

impl Ending {
    /// `exit status 1`, `killed by signal 11 (SIGSEGV)`, ...: for reports.
    pub fn describe(&self, limits: &Limits) -> String {
        match self {
            Ending::Exited(code) => format!("exit status {code}"),
            Ending::Signalled(signal) => format!("killed by signal {signal}{}", signal_name(*signal)),
            Ending::TimedOut => format!("stopped after the time limit of {} s", limits.time.as_secs_f64()),
            Ending::OutputLimit => format!("stopped after printing more than {} bytes", limits.stdout),
            Ending::NotStarted(why) => format!("could not be started: {why}"),
        }
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
    pub elapsed: Duration,
}

impl Run {
    /// The last `count` non-empty lines of stderr, for reports.
    pub fn stderr_tail(&self, count: usize) -> Vec<String> {
        last_lines(&self.stderr, count)
    }
}

/// The last `count` non-empty lines of a stream.
fn last_lines(bytes: &[u8], count: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(count)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// Why the wait for a run ended.
enum Event {
    Exited,
    StdoutFull,
}

/// Captured bytes of one stream, shared with the thread that reads it.
#[derive(Default)]
struct Capture {
    bytes: Vec<u8>,
    done: bool,
}

/// How long the readers may go on after the group is gone (a process that left the group may still
/// hold the pipes: what was read by then is kept).
const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// Runs a job to its end or its limits, and kills whatever is left of its process group.
pub fn run(job: &Job, limits: &Limits) -> Run {
    let start = Instant::now();
    let mut command = Command::new(&job.program);
    command
        .args(&job.args)
        .current_dir(&job.dir)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            return Run {
                stdout: Vec::new(),
                stderr: Vec::new(),
                ending: Ending::NotStarted(error.to_string()),
                elapsed: start.elapsed(),
            };
        }
    };
    let pid = child.id() as libc::pid_t;
    let (events, received) = mpsc::channel();
    let stdout = Arc::new(Mutex::new(Capture::default()));
    let stderr = Arc::new(Mutex::new(Capture::default()));
    if let Some(pipe) = child.stdout.take() {
        let (full, cap) = (events.clone(), limits.stdout);
        read_into(pipe, Arc::clone(&stdout), move |capture| {
            if capture.bytes.len() > cap {
                capture.bytes.truncate(cap);
                let _ = full.send(Event::StdoutFull);
                false
            } else {
                true
            }
        });
    }
    if let Some(pipe) = child.stderr.take() {
        let keep = limits.stderr;
        read_into(pipe, Arc::clone(&stderr), move |capture| {
            if capture.bytes.len() > 2 * keep {
                let cut = capture.bytes.len() - keep;
                capture.bytes.drain(..cut);
            }
            true
        });
    }
    // Waits for the leader's exit without reaping it, so that its group id cannot be reused before
    // the group is killed below.
    let waiter = thread::spawn(move || {
        // SAFETY: waitid only writes the siginfo_t it is given.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
        let _ = events.send(Event::Exited);
    });
    let ending = match received.recv_timeout(limits.time) {
        Ok(Event::Exited) => None,
        Ok(Event::StdoutFull) => Some(Ending::OutputLimit),
        Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => Some(Ending::TimedOut),
    };
    let elapsed = start.elapsed();
    // SAFETY: killpg takes plain integers; the group is ours (process_group(0) made the child lead it).
    unsafe { libc::killpg(pid, libc::SIGKILL) };
    let _ = waiter.join();
    let status = child.wait();
    let ending = ending.unwrap_or_else(|| match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Ending::Exited(code),
            (None, Some(signal)) => Ending::Signalled(signal),
            (None, None) => Ending::NotStarted("no exit status".to_string()),
        },
        Err(error) => Ending::NotStarted(error.to_string()),
    });
    let deadline = Instant::now() + DRAIN_GRACE;
    let take = |capture: &Arc<Mutex<Capture>>| {
        while !capture.lock().map(|c| c.done).unwrap_or(true) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(1));
        }
        capture
            .lock()
            .map(|mut c| std::mem::take(&mut c.bytes))
            .unwrap_or_default()
    };
    Run {
        stdout: take(&stdout),
        stderr: take(&stderr),
        ending,
        elapsed,
    }
}

/// Reads a pipe to its end on a thread of its own; `keep_going` trims the capture after each chunk
/// and says whether to keep what comes next (the rest is read and dropped, so the writer never blocks).
fn read_into<R, F>(mut pipe: R, capture: Arc<Mutex<Capture>>, mut keep_going: F)
where
    R: Read + Send + 'static,
    F: FnMut(&mut Capture) -> bool + Send + 'static,
{
    thread::spawn(move || {
        let mut buffer = [0u8; 16 << 10];
        let mut keeping = true;
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) if keeping => {
                    let Ok(mut c) = capture.lock() else { break };
                    c.bytes.extend_from_slice(&buffer[..n]);
                    keeping = keep_going(&mut c);
                }
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if let Ok(mut c) = capture.lock() {
            c.done = true;
        }
    });
}

/// Whether a command word names a program that can be started: a file when it holds a slash, else a
/// file in one of PATH's folders.
pub fn is_runnable(word: &str) -> bool {
    if word.contains('/') {
        return std::path::Path::new(word).is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(word).is_file()))
}

/// A long-lived program that answers one line per request (the Python helper of the program players):
/// its own process group, stdin and stdout as pipes, stderr's tail kept; killed whole when dropped.
pub struct Session {
    child: std::process::Child,
    input: Option<std::process::ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<Capture>>,
}

/// Why a session gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silence {
    TimedOut,
    /// The program closed its stdout (it ended, or crashed).
    Ended,
}

/// The longest answer line kept; the rest of a longer line is dropped.
const MAX_LINE: usize = 64 << 10;

impl Session {
    pub fn start(job: &Job, stderr_limit: usize) -> std::io::Result<Session> {
        let mut child = Command::new(&job.program)
            .args(&job.args)
            .current_dir(&job.dir)
            .envs(job.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let (sender, lines) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            thread::spawn(move || {
                let mut reader = std::io::BufReader::new(stdout);
                let mut line = Vec::new();
                loop {
                    line.clear();
                    match read_line_capped(&mut reader, &mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if sender
                                .send(String::from_utf8_lossy(&line).trim_end().to_string())
                                .is_err()
                            {
                                break;
                            }
                        }
                    }
                }
            });
        }
        let stderr = Arc::new(Mutex::new(Capture::default()));
        if let Some(pipe) = child.stderr.take() {
            read_into(pipe, Arc::clone(&stderr), move |capture| {
                if capture.bytes.len() > 2 * stderr_limit {
                    let cut = capture.bytes.len() - stderr_limit;
                    capture.bytes.drain(..cut);
                }
                true
            });
        }
        Ok(Session {
            input: child.stdin.take(),
            child,
            lines,
            stderr,
        })
    }

    /// Sends one line; false when the program no longer reads.
    pub fn send(&mut self, line: &str) -> bool {
        use std::io::Write as _;
        self.input.as_mut().is_some_and(|input| {
            input
                .write_all(format!("{line}\n").as_bytes())
                .and_then(|()| input.flush())
                .is_ok()
        })
    }

    /// The next line the program writes, waiting at most `limit`.
    pub fn receive(&self, limit: Duration) -> Result<String, Silence> {
        self.lines.recv_timeout(limit).map_err(|error| match error {
            RecvTimeoutError::Timeout => Silence::TimedOut,
            RecvTimeoutError::Disconnected => Silence::Ended,
        })
    }

    /// The last `count` non-empty lines of its stderr so far.
    pub fn stderr_tail(&self, count: usize) -> Vec<String> {
        let bytes = self.stderr.lock().map(|c| c.bytes.clone()).unwrap_or_default();
        last_lines(&bytes, count)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.input.take());
        // SAFETY: killpg takes plain integers; the child leads its own group until it is reaped below.
        unsafe { libc::killpg(self.child.id() as libc::pid_t, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// Reads up to a newline, keeping at most MAX_LINE bytes of it; 0 at the end of the stream.
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
        if done {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str, limits: Limits) -> Run {
        let job = Job {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            dir: std::env::temp_dir(),
            env: Vec::new(),
        };
        run(&job, &limits)
    }

    fn quick() -> Limits {
        Limits {
            time: Duration::from_millis(500),
            ..Limits::default()
        }
    }

    #[test]
    fn output_and_status_are_captured() {
        let run = shell("echo out; echo err >&2; exit 3", quick());
        assert_eq!(
            (run.stdout.as_slice(), run.stderr.as_slice()),
            (&b"out\n"[..], &b"err\n"[..])
        );
        assert_eq!(run.ending, Ending::Exited(3));
    }

    #[test]
    fn a_hang_is_stopped_with_its_children() {
        let marker = tempfile::NamedTempFile::new().unwrap();
        let path = marker.path().display().to_string();
        // The child of the shell would write the marker after a second if it survived the kill.
        let run = shell(&format!("(sleep 1; echo alive > {path}) & sleep 30"), quick());
        assert_eq!(run.ending, Ending::TimedOut);
        assert!(run.elapsed < Duration::from_secs(5));
        thread::sleep(Duration::from_millis(1500));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "",
            "the group was killed whole"
        );
    }

    #[test]
    fn endless_output_is_cut_at_the_cap() {
        let limits = Limits {
            stdout: 10_000,
            ..quick()
        };
        let run = shell("yes", limits);
        assert_eq!(run.ending, Ending::OutputLimit);
        assert_eq!(run.stdout.len(), 10_000);
    }

    #[test]
    fn stderr_keeps_its_tail_and_a_signal_is_named() {
        let limits = Limits { stderr: 100, ..quick() };
        let run = shell("seq 1 10000 >&2; kill -SEGV $$", limits);
        assert_eq!(run.ending, Ending::Signalled(libc::SIGSEGV));
        assert!(run.stderr.len() <= 200);
        assert_eq!(run.stderr_tail(1), ["10000"]);
        assert!(run.ending.describe(&limits).contains("SIGSEGV"));
    }

    #[test]
    fn a_missing_program_is_reported() {
        let job = Job {
            program: "/no/such/program".into(),
            args: Vec::new(),
            dir: std::env::temp_dir(),
            env: Vec::new(),
        };
        assert!(matches!(run(&job, &quick()).ending, Ending::NotStarted(_)));
    }
}
