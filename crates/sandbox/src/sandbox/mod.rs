//! The sandbox from the grader's side: the plan of a run's namespaces (what it sees, its limits), the
//! clone that starts its init, the user maps, and the control channel to the init (limits, CPU time,
//! how the run ended).

use std::ffi::CString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use libc::c_int;

use super::cgroup::Group;
use super::inside::{self, Plan, Step};
use super::{Resources, Word, resolve};

/// Where the program lives inside: its home, its working folder, and where copies go.
pub const HOME: &str = "/home/student";
/// Room a program may write in its home, /tmp and /dev/shm, each (tmpfs, in memory).
const WRITABLE: u64 = 64 << 20;
/// A file larger than this (a compiled program, the othello binary) is shown read-only in the
/// working folder rather than copied: the same bytes, without copying them for every run.
const COPIED_AT_MOST: u64 = 1 << 20;
/// Bytes of copies a run gets at most, counted as they are written: a student's entry that grew
/// after it was sized (or that lies about its size) is cut off here, and the run is not started.
pub const MAX_COPIED: u64 = 64 << 20;

/// Why a sandbox could not be used at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SandboxError(pub String);

mod plan;
pub(crate) use plan::plan;

fn c(text: &str) -> CString {
    CString::new(text.replace('\0', "")).unwrap_or_default()
}

fn c_path(path: &Path) -> CString {
    c_bytes(path.as_os_str().as_bytes())
}

/// Bytes as a C string (a NUL cannot be in one: it is dropped).
fn c_bytes(bytes: &[u8]) -> CString {
    CString::new(bytes.iter().copied().filter(|&b| b != 0).collect::<Vec<u8>>()).unwrap_or_default()
}

/// A host path as the init sees it while it builds the new root.
fn host_path(path: &Path) -> CString {
    c_path(&Path::new("/oldroot").join(path.strip_prefix("/").unwrap_or(path)))
}

/// A path of the program's file system as the init sees it while building it.
fn inside_path(path: &Path) -> CString {
    c_path(&Path::new("/newroot").join(path.strip_prefix("/").unwrap_or(path)))
}

/// What the program's stdin is.
pub(super) enum Stdin {
    Null,
    Pipe,
}

/// The first limits, and later ones (a session's move): none is `inside::NEVER`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Deadlines {
    /// CPU time the run may still use, from now.
    pub cpu: Option<Duration>,
    /// Wall time from now.
    pub wall: Option<Duration>,
    /// Wall time without any CPU time used after which the run is stopped.
    pub stall: Option<Duration>,
}

impl Deadlines {
    pub const NONE: Deadlines = Deadlines {
        cpu: None,
        wall: None,
        stall: None,
    };

    fn command(&self, kind: u64, cpu_used: u64) -> [u64; 4] {
        let ns = |d: Duration| d.as_nanos().min(u64::MAX as u128 / 2) as u64;
        [
            kind,
            self.cpu.map_or(inside::NEVER, |d| cpu_used + ns(d)),
            self.wall.map_or(inside::NEVER, |d| monotonic_ns() + ns(d)),
            self.stall.map_or(0, ns),
        ]
    }
}

/// How the init ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cause {
    Exited,
    CpuLimit,
    WallLimit,
    Stalled,
    /// The grader asked.
    Stopped,
}

/// The init's last word: why, the program's wait status, the CPU time of the whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Final {
    Ended {
        cause: Cause,
        status: c_int,
        cpu: Duration,
    },
    /// The sandbox could not be built, or the program not started.
    NotStarted(String),
}

/// A live sandbox: its init's pid and the control channel. Dropping it ends the run.
pub(super) struct Sandbox {
    /// The program's control groups (none with per-process limits), removed after the run.
    group: Option<Group>,
    pid: libc::pid_t,
    commands: File,
    records: File,
    last: Option<Final>,
    reaped: bool,
    plan_steps: Vec<String>,
}

/// A started sandbox and the grader's ends of the program's pipes.
pub(super) struct Spawned {
    pub sandbox: Sandbox,
    pub stdin: Option<File>,
    pub stdout: File,
    pub stderr: File,
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and ours.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A pipe whose write end the grader keeps open until it dies: each init watches the read end, and
/// ends its run when the grader is gone however it went (SIGKILL included).
fn lifeline() -> std::io::Result<RawFd> {
    static LIFELINE: OnceLock<Result<(OwnedFd, OwnedFd), String>> = OnceLock::new();
    match LIFELINE.get_or_init(|| {
        raise_open_files();
        pipe().map_err(|e| e.to_string())
    }) {
        Ok((read, _write)) => Ok(read.as_raw_fd()),
        Err(error) => Err(std::io::Error::other(error.clone())),
    }
}

/// Each live sandbox holds a few of the grader's descriptors (its pipes): the grader may use as
/// many as its hard limit allows, not only the soft limit (often 1024).
fn raise_open_files() {
    // SAFETY: getrlimit and setrlimit read and write the structure they are given.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max.min(1 << 20);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

pub(super) fn monotonic_ns() -> u64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut time) };
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

const NAMESPACES: c_int = libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS;

/// Starts a sandbox on a plan: its init is cloned into new namespaces, given its user maps, and told
/// to go with the first limits.
pub(super) fn spawn(
    plan: &Plan,
    stdin: Stdin,
    first: Deadlines,
    group: Option<Group>,
) -> Result<Spawned, SandboxError> {
    let io = |what: &str, e: std::io::Error| SandboxError(format!("cannot start the sandbox: {what}: {e}"));
    // The group's files, open before the clone: the init reads its CPU time from one, the program
    // joins the groups by the others.
    let v2_group = group
        .as_ref()
        .map(Group::v2_dir)
        .transpose()
        .map_err(SandboxError)?
        .flatten();
    let (cpu_file, joins, cpu_from) = match &group {
        Some(group) => (
            Some(group.cpu_file().map_err(SandboxError)?),
            group.joins().map_err(SandboxError)?,
            if group.cpu_is_v2() {
                inside::CPU_FROM_V2
            } else {
                inside::CPU_FROM_V1
            },
        ),
        None => (None, Vec::new(), inside::CPU_FROM_PROCESSES),
    };
    let lifeline = lifeline().map_err(|e| io("a pipe", e))?;
    let (stdin_inside, stdin_ours) = match stdin {
        Stdin::Null => (
            OwnedFd::from(File::open("/dev/null").map_err(|e| io("/dev/null", e))?),
            None,
        ),
        Stdin::Pipe => {
            let (read, write) = pipe().map_err(|e| io("a pipe", e))?;
            (read, Some(write))
        }
    };
    let (stdout_ours, stdout_inside) = pipe().map_err(|e| io("a pipe", e))?;
    let (stderr_ours, stderr_inside) = pipe().map_err(|e| io("a pipe", e))?;
    let (commands_inside, commands_ours) = pipe().map_err(|e| io("a pipe", e))?;
    let (records_ours, records_inside) = pipe().map_err(|e| io("a pipe", e))?;
    let mut fds: inside::Descriptors = [-1; 12];
    fds[..6].copy_from_slice(&[
        stdin_inside.as_raw_fd(),
        stdout_inside.as_raw_fd(),
        stderr_inside.as_raw_fd(),
        commands_inside.as_raw_fd(),
        records_inside.as_raw_fd(),
        lifeline,
    ]);
    fds[6] = cpu_file.as_ref().map_or(-1, AsRawFd::as_raw_fd);
    for (slot, join) in fds[7..11].iter_mut().zip(&joins) {
        *slot = join.as_raw_fd();
    }
    fds[11] = v2_group.as_ref().map_or(-1, AsRawFd::as_raw_fd);
    // SAFETY: a raw clone, like fork: the child runs only `inside::init`, which makes system calls
    // on memory prepared above and never returns.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone,
            (NAMESPACES | libc::SIGCHLD) as libc::c_long,
            0,
            0,
            0,
            0,
        )
    };
    if pid == 0 {
        inside::init(plan, fds, cpu_from);
    }
    if pid < 0 {
        return Err(clone_refused(std::io::Error::last_os_error()));
    }
    let pid = pid as libc::pid_t;
    drop((
        stdin_inside,
        stdout_inside,
        stderr_inside,
        commands_inside,
        records_inside,
    ));
    drop((cpu_file, joins, v2_group));
    let mut sandbox = Sandbox {
        group,
        pid,
        commands: File::from(commands_ours),
        records: File::from(records_ours),
        last: None,
        reaped: false,
        plan_steps: plan.steps.iter().map(describe_step).collect(),
    };
    map_users(pid, plan.reader_host)?;
    sandbox.send(first.command(inside::CMD_GO, 0));
    Ok(Spawned {
        sandbox,
        stdin: stdin_ours.map(File::from),
        stdout: File::from(stdout_ours),
        stderr: File::from(stderr_ours),
    })
}

fn clone_refused(error: std::io::Error) -> SandboxError {
    let why = match error.raw_os_error() {
        Some(libc::ENOSPC) => {
            "user namespaces are turned off here (user.max_user_namespaces is 0): `sysctl -w user.max_user_namespaces=10000` turns them on"
        }
        Some(libc::EPERM) | Some(libc::EACCES) => {
            "this user may not create user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian before 11), or a security policy (AppArmor, SELinux, a container's seccomp profile) must allow them"
        }
        Some(libc::EINVAL) => "this kernel has no user or PID namespaces (it needs CONFIG_USER_NS and CONFIG_PID_NS)",
        _ => "",
    };
    SandboxError(format!(
        "cannot start the sandbox: clone: {error}{}{why}; or run with --no-sandbox (the runs are then not isolated)",
        if why.is_empty() { "" } else { ": " }
    ))
}

/// Whose rights a root grader copies a run's student entry with: its owner's (the first copy's, the
/// student's entry), unless that is root. None when the grader is not root: its copies have its
/// own rights, which are the student files' owner's or less.
fn entry_owner<'a>(mut copies: impl Iterator<Item = &'a Path>) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid only reads.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let meta = std::fs::symlink_metadata(copies.next()?).ok()?;
    (meta.uid() != 0).then(|| (meta.uid(), meta.gid()))
}

/// The id of the run's namespace a root grader maps an entry owner's host id to: root stays root,
/// nobody is the program's own id, any other the reader's.
fn reader_id(host: u32) -> u32 {
    match host {
        0 => 0,
        NOBODY => inside::INSIDE_ID,
        _ => inside::READER_ID,
    }
}

/// The user maps of a new sandbox. As root: the init stays root (of its namespace only), the
/// program runs as an unprivileged user (nobody outside), and the owner of the student's entry is
/// mapped for the init to copy it with that owner's rights; otherwise both are the grader's user.
fn map_users(pid: libc::pid_t, reader: Option<(u32, u32)>) -> Result<(), SandboxError> {
    let write = |file: &str, text: &str| -> std::io::Result<()> {
        std::fs::OpenOptions::new()
            .write(true)
            .open(format!("/proc/{pid}/{file}"))?
            .write_all(text.as_bytes())
    };
    let id = inside::INSIDE_ID;
    // SAFETY: geteuid and getegid only read.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let refused = |file: &str, e: std::io::Error| {
        SandboxError(format!(
            "cannot start the sandbox: writing /proc/PID/{file}: {e}: this user may not map ids in a user namespace; or run with --no-sandbox (the runs are then not isolated)"
        ))
    };
    let reader_line = |host: u32| {
        if reader_id(host) == inside::READER_ID {
            format!("{} {host} 1\n", inside::READER_ID)
        } else {
            String::new()
        }
    };
    let (reader_uid, reader_gid) = match reader {
        Some((uid, gid)) => (reader_line(uid), reader_line(gid)),
        None => Default::default(),
    };
    if uid == 0
        && write("uid_map", &format!("0 0 1\n{id} {NOBODY} 1\n{reader_uid}")).is_ok()
        && write("gid_map", &format!("0 0 1\n{id} {NOBODY} 1\n{reader_gid}")).is_ok()
    {
        return Ok(());
    }
    write("setgroups", "deny").map_err(|e| refused("setgroups", e))?;
    write("uid_map", &format!("{id} {uid} 1\n")).map_err(|e| refused("uid_map", e))?;
    write("gid_map", &format!("{id} {gid} 1\n")).map_err(|e| refused("gid_map", e))
}

/// The user and group a root grader's programs run as, outside their namespace.
const NOBODY: u32 = 65534;

fn describe_step(step: &Step) -> String {
    let show = |s: &CString| {
        let text = s.to_string_lossy();
        let text = text
            .strip_prefix("/oldroot")
            .or_else(|| text.strip_prefix("/newroot"))
            .unwrap_or(&text)
            .to_string();
        if text.is_empty() { "/".to_string() } else { text }
    };
    match step {
        Step::Tmpfs { target, .. } => format!("mount a tmpfs on {}", show(target)),
        Step::Dir { path } => format!("make the folder {}", show(path)),
        Step::Symlink { path, .. } => format!("make the link {}", show(path)),
        Step::Bind { source, .. } | Step::ShowFile { source, .. } => format!("show {} read-only", show(source)),
        Step::Copy { source, .. } | Step::CopyContents { source, .. } => format!("copy {}", show(source)),
        Step::Proc { .. } => "mount /proc for the sandbox's processes".to_string(),
    }
}

impl Sandbox {
    fn send(&mut self, command: [u64; 4]) -> bool {
        let bytes: Vec<u8> = command.iter().flat_map(|v| v.to_ne_bytes()).collect();
        self.commands.write_all(&bytes).is_ok()
    }

    /// The next record, waiting at most `wait` (None: as long as it takes); None when the init is
    /// gone or silent.
    fn record(&mut self, wait: Option<Duration>) -> Option<[u64; 4]> {
        if let Some(wait) = wait {
            let mut polled = libc::pollfd {
                fd: self.records.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let timeout = wait.as_millis().min(i32::MAX as u128) as c_int;
            // SAFETY: poll reads and writes the one pollfd it is given.
            if unsafe { libc::poll(&mut polled, 1, timeout) } <= 0 {
                return None;
            }
        }
        let mut bytes = [0u8; 32];
        self.records.read_exact(&mut bytes).ok()?;
        let mut record = [0u64; 4];
        for (value, chunk) in record.iter_mut().zip(bytes.chunks_exact(8)) {
            *value = u64::from_ne_bytes(chunk.try_into().unwrap_or_default());
        }
        Some(record)
    }

    /// Reads records until one of the kind wanted (keeping the last word, should it come first).
    fn expect(&mut self, kind: u64, wait: Option<Duration>) -> Option<[u64; 4]> {
        loop {
            let record = self.record(wait)?;
            self.note(record);
            if record[0] == kind {
                return Some(record);
            }
            if self.last.is_some() {
                return None;
            }
        }
    }

    fn note(&mut self, record: [u64; 4]) {
        let text = |errno: u64| std::io::Error::from_raw_os_error(errno as i32).to_string();
        match record[0] {
            inside::REC_FINAL => {
                let cause = match record[1] {
                    inside::END_CPU => Cause::CpuLimit,
                    inside::END_WALL => Cause::WallLimit,
                    inside::END_STALLED => Cause::Stalled,
                    inside::END_STOPPED => Cause::Stopped,
                    _ => Cause::Exited,
                };
                if !matches!(self.last, Some(Final::NotStarted(_))) {
                    self.last = Some(Final::Ended {
                        cause,
                        status: record[2] as c_int,
                        cpu: Duration::from_nanos(record[3]),
                    });
                }
            }
            inside::REC_SETUP_FAILED => {
                let step = match record[1] {
                    inside::SETUP_PRIVATE => "make its mounts private".to_string(),
                    inside::SETUP_BASE => "mount a tmpfs on /tmp for the new root".to_string(),
                    inside::SETUP_PIVOT | inside::SETUP_ROOT => "change its root folder".to_string(),
                    inside::SETUP_PROC => "open /proc".to_string(),
                    inside::SETUP_WORKDIR => format!("enter {HOME}"),
                    inside::SETUP_CLONE => "start the program".to_string(),
                    inside::SETUP_USERNS => {
                        "deny user namespaces inside (/proc/sys/user/max_user_namespaces)".to_string()
                    }
                    inside::SETUP_JOIN => "put the program in its control group".to_string(),
                    index => self
                        .plan_steps
                        .get(index as usize)
                        .cloned()
                        .unwrap_or_else(|| format!("step {index}")),
                };
                let why = if record[2] == libc::EFBIG as u64 && step.starts_with("copy ") {
                    format!("more than {} to copy", super::size_text(MAX_COPIED))
                } else if record[2] == libc::ELOOP as u64 {
                    "a link where a file or folder was (nothing is copied through a link)".to_string()
                } else if record[2] == libc::EPERM as u64 && step.starts_with("mount /proc") {
                    // The kernel lets a namespace mount a /proc only if the one it came from shows
                    // everything: a container's masked /proc paths forbid it.
                    format!(
                        "{}: parts of this /proc are hidden under other mounts (a container's masked paths: `docker run --security-opt systempaths=unconfined` lifts them)",
                        text(record[2])
                    )
                } else {
                    text(record[2])
                };
                self.last = Some(Final::NotStarted(format!("the sandbox could not {step}: {why}")));
            }
            inside::REC_EXEC_FAILED => {
                self.last = Some(Final::NotStarted(text(record[1])));
            }
            _ => {}
        }
    }

    /// Sets the limits from now on; returns the CPU time used so far (None: the run has ended).
    pub fn limit(&mut self, deadlines: Deadlines) -> Option<Duration> {
        let used = self.cpu()?;
        let ns = used.as_nanos() as u64;
        if !self.send(deadlines.command(inside::CMD_LIMITS, ns)) {
            return None;
        }
        Some(used)
    }

    /// The CPU time used so far by everything in the sandbox; None once the run has ended.
    pub fn cpu(&mut self) -> Option<Duration> {
        if self.last.is_some() || !self.send([inside::CMD_QUERY, 0, 0, 0]) {
            return None;
        }
        self.expect(inside::REC_READING, Some(Duration::from_secs(10)))
            .map(|record| Duration::from_nanos(record[1]))
    }

    /// How the run ended, waiting for it at most `wait` (None: as long as it takes).
    pub fn finish(&mut self, wait: Option<Duration>) -> Option<Final> {
        if self.last.is_none() {
            self.expect(inside::REC_FINAL, wait);
        }
        self.last.clone()
    }

    /// A way to end the run from another thread (before `reap`): the init is asked to stop it
    /// (and still reports its CPU time), or killed if it no longer reads.
    pub fn stopper(&self) -> impl Fn() + Send + 'static {
        let commands = self.commands.try_clone();
        let pid = self.pid;
        move || {
            let stop: Vec<u8> = [inside::CMD_STOP, 0, 0, 0]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect();
            let asked = commands.as_ref().is_ok_and(|mut c| c.write_all(&stop).is_ok());
            if !asked {
                // SAFETY: kill takes plain integers; the init is not reaped before the caller is done.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }

    /// Freezes the program's processes (a player between its moves), or thaws them; nothing without
    /// a control group.
    pub fn freeze(&self, frozen: bool) {
        if let Some(group) = &self.group {
            group.freeze(frozen);
        }
    }

    /// Whether the kernel killed a process of the run at its group's memory limit.
    pub fn hit_memory_limit(&self) -> bool {
        self.group.as_ref().is_some_and(Group::hit_memory_limit)
    }

    /// Ends the run now: the init and with it everything in its namespaces (thawed first: a frozen
    /// process would not die, nor would its namespace end).
    pub fn kill(&self) {
        self.freeze(false);
        if !self.reaped {
            // SAFETY: kill takes plain integers; the init is our unreaped child.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
    }

    /// Waits for the init to be gone (when it is, so is every process of the run).
    pub fn reap(&mut self) {
        if !self.reaped {
            let mut status = 0;
            // SAFETY: waits for our own child.
            while unsafe { libc::waitpid(self.pid, &mut status, 0) } < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {}
            self.reaped = true;
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.kill();
        self.reap();
    }
}
