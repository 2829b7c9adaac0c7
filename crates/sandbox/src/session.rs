//! A long-lived program answering line by line (the program players' Python helper): its pipes,
//! its time limits move by move, and its end.

use super::*;

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
