//! Runs without a sandbox (`--no-sandbox`): each in a process group of its own, killed whole at the
//! wall-clock limit, in a scratch folder holding its copies. Nothing stops a program that leaves
//! its group; a stopping signal kills the groups still running.

use std::ffi::OsString;
use std::fs::File;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::{Capture, Ending, Job, Limits, Run, read_into, stderr_trimmer};

/// How long the readers may go on after the group is gone (a process that left the group may still
/// hold the pipes: what was read by then is kept).
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// The groups running now, for a stopping signal to kill (0: a free slot).
static GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

/// Kills every group still running; safe in a signal handler (only atomics and `kill`).
pub(crate) fn kill_all() {
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: killpg takes plain integers.
            unsafe { libc::killpg(group, libc::SIGKILL) };
        }
    }
}

/// A running group's slot in GROUPS, freed when dropped.
struct Registered(Option<usize>);

impl Registered {
    fn new(group: i32) -> Registered {
        Registered(GROUPS.iter().position(|slot| {
            slot.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        }))
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(slot) = self.0 {
            GROUPS[slot].store(0, Ordering::SeqCst);
        }
    }
}

/// A scratch folder, named after this process so that a later run can remove what a killed one left.
pub(super) struct Scratch(tempfile::TempDir);

const SCRATCH_PREFIX: &str = "othello-run-";

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| othello_plumbing::scratch::sweep(&std::env::temp_dir(), SCRATCH_PREFIX));
        tempfile::Builder::new()
            .prefix(&othello_plumbing::scratch::own_prefix(SCRATCH_PREFIX))
            .tempdir()
            .map(Scratch)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

/// The command with its copies made in the scratch folder.
fn command(job: &Job, scratch: &Scratch) -> Result<Vec<OsString>, String> {
    for (source, contents, relative) in super::copies(&job.command) {
        let copied = if contents {
            copy_tree(&source, scratch.path())
        } else {
            copy_entry(&source, &scratch.path().join(relative))
        };
        copied.map_err(|e| format!("cannot copy {}: {e}", source.display()))?;
    }
    Ok(super::words_in(&job.command, scratch.path()))
}

fn copy_entry(from: &Path, to: &Path) -> std::io::Result<()> {
    if from.is_dir() {
        std::fs::create_dir(to)?;
        copy_tree(from, to)
    } else {
        std::fs::copy(from, to).map(|_| ())
    }
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Starts `command`, again while its program is "busy": the copy just written into the scratch
/// folder stays open for writing in the children other threads are starting at that moment (a
/// forked child holds every descriptor until its own exec), and exec refuses a file open for
/// writing with ETXTBSY. Those children exec within milliseconds; the waits add up to 0.5 s.
fn spawn_when_not_busy(command: &mut Command) -> std::io::Result<std::process::Child> {
    let mut wait = Duration::from_millis(1);
    loop {
        match command.spawn() {
            Err(error) if error.raw_os_error() == Some(libc::ETXTBSY) && wait < Duration::from_millis(300) => {
                thread::sleep(wait);
                wait *= 2;
            }
            result => return result,
        }
    }
}

/// Why the wait for a run ended.
enum Event {
    Exited,
    StdoutFull,
}

/// Runs a job to its end or its limits, and kills whatever is left of its process group.
pub(super) fn run(job: &Job, limits: &Limits) -> Run {
    let start = Instant::now();
    let scratch = match Scratch::new() {
        Ok(scratch) => scratch,
        Err(error) => return Run::not_started_since(format!("cannot make a scratch folder: {error}"), start),
    };
    let words = match command(job, &scratch) {
        Ok(words) => words,
        Err(why) => return Run::not_started_since(why, start),
    };
    let Some((program, args)) = words.split_first() else {
        return Run::not_started_since("an empty command".to_string(), start);
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(scratch.path())
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = match spawn_when_not_busy(&mut command) {
        Ok(child) => child,
        Err(error) => return Run::not_started_since(error.to_string(), start),
    };
    let pid = child.id() as libc::pid_t;
    let registered = Registered::new(pid);
    let (events, received) = mpsc::channel();
    let mut readers = Vec::new();
    let (mut stdout, mut stderr) = (None, None);
    if let Some(pipe) = child.stdout.take() {
        let (full, cap) = (events.clone(), limits.stdout);
        let (capture, reader) = read_into(pipe, move |capture| {
            if capture.bytes.len() > cap {
                capture.bytes.truncate(cap);
                let _ = full.send(Event::StdoutFull);
                false
            } else {
                true
            }
        });
        stdout = Some(capture);
        readers.push(reader);
    }
    if let Some(pipe) = child.stderr.take() {
        let (capture, reader) = read_into(pipe, stderr_trimmer(limits.stderr));
        stderr = Some(capture);
        readers.push(reader);
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
    drop(registered);
    let ending = ending.unwrap_or_else(|| match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Ending::Exited(code),
            (None, Some(signal)) => Ending::Signalled(signal),
            (None, None) => Ending::NotStarted("no exit status".to_string()),
        },
        Err(error) => Ending::NotStarted(error.to_string()),
    });
    let deadline = Instant::now() + DRAIN_GRACE;
    let take = |capture: &Option<Arc<Mutex<Capture>>>| {
        let Some(capture) = capture else { return Vec::new() };
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
        cpu: None,
    }
}

/// A session's process group, with its scratch folder.
pub(super) struct Group {
    child: std::process::Child,
    _registered: Registered,
    _scratch: Scratch,
}

impl Group {
    pub fn start_session(job: &Job) -> Result<(Group, File, File, File), String> {
        let scratch = Scratch::new().map_err(|e| format!("cannot make a scratch folder: {e}"))?;
        let words = command(job, &scratch)?;
        let (program, args) = words.split_first().ok_or("an empty command")?;
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(scratch.path())
            .envs(job.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = spawn_when_not_busy(&mut command).map_err(|error| {
            if error.kind() == std::io::ErrorKind::NotFound {
                format!("{} is not installed (or not in PATH)", program.to_string_lossy())
            } else {
                format!("cannot start {}: {error}", program.to_string_lossy())
            }
        })?;
        let registered = Registered::new(child.id() as i32);
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(input), Some(stdout), Some(stderr)) = pipes else {
            return Err("no pipes to the program".to_string());
        };
        Ok((
            Group {
                child,
                _registered: registered,
                _scratch: scratch,
            },
            File::from(std::os::fd::OwnedFd::from(input)),
            File::from(std::os::fd::OwnedFd::from(stdout)),
            File::from(std::os::fd::OwnedFd::from(stderr)),
        ))
    }

    /// Kills the group whole and reaps its leader.
    pub fn end(&mut self) {
        // SAFETY: killpg takes plain integers; the child leads its own group until it is reaped below.
        unsafe { libc::killpg(self.child.id() as libc::pid_t, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}
