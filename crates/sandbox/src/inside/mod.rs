//! What runs inside a sandbox: the init process (PID 1 of the run's namespaces), which builds the
//! program's view of the file system, starts the program, measures the CPU time of everything in the
//! namespace and enforces the limits, and the program's own last steps before `exec`.
//!
//! Both are copies of a multithreaded grader made by a raw `clone`: another thread may have held a
//! lock (malloc's among them) at that moment, so nothing here allocates, locks, panics or calls a
//! libc function that does; only system calls, on memory prepared by the grader before the clone.

use std::ffi::{CStr, CString};
use std::ptr;

use libc::{c_char, c_int, c_long, c_void};

use super::copy;

/// The init's descriptors: 0-2 the program's stdio, then these.
mod supervise;
use supervise::{Cpu, Limits, receive, supervise};

pub(super) const CTL_IN: c_int = 3;
pub(super) const CTL_OUT: c_int = 4;
pub(super) const LIFELINE: c_int = 5;
/// The run's control group CPU file (`cpu.stat` or `cpuacct.usage`), when it has a group.
const CPU_FILE: c_int = 6;
/// The `cgroup.procs` files of the run's groups (at most four: one per hierarchy), which the
/// program writes `0` to before its `exec`.
const JOINS: [c_int; 4] = [7, 8, 9, 10];
/// The run's v2 group's folder, when it has one: the program is cloned straight into it
/// (`CLONE_INTO_CGROUP`), and skips its `cgroup.procs` (the last of JOINS), whose write waits for
/// a grace period of the kernel's (some 10 ms) when runs are not back to back.
const V2_GROUP: c_int = 11;
const FIRST_FREE: c_int = 12;

/// The descriptors the init is started with, in the order of their numbers here: stdin, stdout,
/// stderr, CTL_IN, CTL_OUT, LIFELINE, CPU_FILE, JOINS, V2_GROUP; -1 for an absent one (from
/// CPU_FILE on).
pub(super) type Descriptors = [c_int; 12];

/// How the init reads the run's CPU time: no group (the processes it sees), a v1 `cpuacct.usage`,
/// or a v2 `cpu.stat`.
pub(super) const CPU_FROM_PROCESSES: u64 = 0;
pub(super) const CPU_FROM_V1: u64 = 1;
pub(super) const CPU_FROM_V2: u64 = 2;

/// Commands from the grader, as `[kind, a, b, c]`.
pub(super) const CMD_GO: u64 = 1;
pub(super) const CMD_LIMITS: u64 = 2;
pub(super) const CMD_QUERY: u64 = 3;
/// End the run now (the grader has seen enough: a flood of output), and report as usual.
pub(super) const CMD_STOP: u64 = 4;

/// Records to the grader, as `[kind, a, b, c]`.
pub(super) const REC_READING: u64 = 1;
pub(super) const REC_FINAL: u64 = 2;
pub(super) const REC_SETUP_FAILED: u64 = 3;
pub(super) const REC_EXEC_FAILED: u64 = 4;

/// Why the init ended the run (REC_FINAL's first field).
pub(super) const END_EXITED: u64 = 0;
pub(super) const END_CPU: u64 = 1;
pub(super) const END_WALL: u64 = 2;
pub(super) const END_STALLED: u64 = 3;
pub(super) const END_STOPPED: u64 = 4;

/// clone3's flag for a child born in the cgroup its `cgroup` descriptor names.
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// No limit (a deadline never reached).
pub(super) const NEVER: u64 = u64::MAX;

/// The user and group the program runs as inside its namespace (never 0: it has no capabilities).
pub(super) const INSIDE_ID: u32 = 1000;

/// The id a root grader maps a student entry's owner to, for the init to copy it with that
/// owner's rights (never the program's: the program cannot take it).
pub(super) const READER_ID: u32 = 1001;

/// One step of building the program's file system; paths are absolute in the init's view, where the
/// grader's file system is under `/oldroot` and the program's under `/newroot`.
pub(super) enum Step {
    Tmpfs {
        target: CString,
        options: CString,
    },
    Dir {
        path: CString,
    },
    Symlink {
        target: CString,
        path: CString,
    },
    /// A host folder or file shown read-only.
    Bind {
        source: CString,
        target: CString,
        dir: bool,
    },
    /// A student's file shown read-only in place of a copy (a large one): opened through no link,
    /// and bound from that descriptor.
    ShowFile {
        source: CString,
        target: CString,
    },
    /// A host file or folder copied (a folder with everything under it), through no link.
    Copy {
        source: CString,
        target: CString,
    },
    /// A host folder's entries copied into an existing folder, through no link.
    CopyContents {
        source: CString,
        target: CString,
    },
    Proc {
        target: CString,
    },
}

/// Everything the init needs, prepared by the grader before the clone.
pub(super) struct Plan {
    pub steps: Vec<Step>,
    pub program: CString,
    pub argv: Vec<*const c_char>,
    pub envp: Vec<*const c_char>,
    pub workdir: CString,
    pub rlimits: Vec<(c_int, u64)>,
    /// Bytes the copies may write in all; a copy past it fails with EFBIG.
    pub copy_budget: u64,
    /// The ids (of the run's namespace) whose rights the copies are read with (`copy::Budget`).
    pub reader: Option<(u32, u32)>,
    /// The host's ids of that reader: the grader maps them.
    pub reader_host: Option<(u32, u32)>,
    /// Nanoseconds of a CPU clock tick (for the `cutime` of /proc/PID/stat).
    pub tick_ns: u64,
    /// The grader's command line and environment strings (start, end): the init, a copy of the
    /// grader, wipes them so that /proc/1/cmdline shows nothing of the grader's inside.
    pub wipe: Vec<(usize, usize)>,
    /// Keeps the strings behind `argv` and `envp` alive.
    pub _strings: Vec<CString>,
}

// SAFETY: the raw pointers point into `strings`, owned by the plan and never changed after it is built.
unsafe impl Send for Plan {}
unsafe impl Sync for Plan {}

fn errno() -> c_int {
    // SAFETY: errno is a thread-local the C library keeps; reading it is always allowed.
    unsafe { *libc::__errno_location() }
}

fn send(record: [u64; 4]) {
    // SAFETY: writes 32 bytes from a local array; a pipe write of this size is atomic.
    unsafe { libc::write(CTL_OUT, record.as_ptr().cast::<c_void>(), 32) };
}

fn fail(step: u64) -> ! {
    send([REC_SETUP_FAILED, step, errno() as u64, 0]);
    // SAFETY: _exit ends the process without running anything of the grader's.
    unsafe { libc::_exit(1) }
}

fn check(result: c_long, step: u64) {
    if result < 0 {
        fail(step);
    }
}

/// Steps of the set-up that are not in the plan, reported as REC_SETUP_FAILED's first field (the
/// plan's own steps are reported by their index).
pub(super) const SETUP_PRIVATE: u64 = 1000;
pub(super) const SETUP_BASE: u64 = 1001;
pub(super) const SETUP_PIVOT: u64 = 1002;
pub(super) const SETUP_ROOT: u64 = 1003;
pub(super) const SETUP_PROC: u64 = 1004;
pub(super) const SETUP_WORKDIR: u64 = 1005;
pub(super) const SETUP_CLONE: u64 = 1006;
pub(super) const SETUP_USERNS: u64 = 1007;
pub(super) const SETUP_JOIN: u64 = 1008;

/// The init: runs in the child of the grader's clone, never returns. `fds` are the descriptors to
/// keep (`Descriptors`); `cpu_from` says where the run's CPU time is read.
pub(super) fn init(plan: &Plan, fds: Descriptors, cpu_from: u64) -> ! {
    // SAFETY: only system calls on memory the plan owns or on local buffers.
    unsafe {
        arrange_descriptors(fds);
        for &(start, end) in &plan.wipe {
            ptr::write_bytes(start as *mut u8, 0, end.saturating_sub(start));
        }
        reset_signals();
        // The grader writes the user and group maps, then says go with the first limits.
        let Some(go) = receive() else { libc::_exit(0) };
        if go[0] != CMD_GO {
            libc::_exit(1);
        }
        let mut limits = Limits::from(go);
        // Its memory is a copy of the grader's: nothing inside may read it through /proc/1.
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        let name = b"sandbox";
        libc::sethostname(name.as_ptr().cast(), name.len());
        build_root(plan);
        let proc_fd = libc::open(c"/proc".as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
        check(proc_fd as c_long, SETUP_PROC);
        deny_user_namespaces(proc_fd);
        check(libc::chdir(plan.workdir.as_ptr()) as c_long, SETUP_WORKDIR);
        // Only the slots that held a group's file: a free one may hold another file by now.
        let joins = fds[JOINS[0] as usize..V2_GROUP as usize]
            .iter()
            .take_while(|&&fd| fd >= 0)
            .count();
        let mut program = -1;
        if fds[V2_GROUP as usize] >= 0 {
            // struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, stack,
            // stack_size, tls, set_tid, set_tid_size, cgroup.
            let args: [u64; 11] = [
                CLONE_INTO_CGROUP,
                0,
                0,
                0,
                libc::SIGCHLD as u64,
                0,
                0,
                0,
                0,
                0,
                V2_GROUP as u64,
            ];
            program = libc::syscall(libc::SYS_clone3, args.as_ptr(), std::mem::size_of_val(&args));
            if program == 0 {
                start_program(plan, &JOINS[..joins.saturating_sub(1)]);
            }
        }
        if program < 0 {
            // No clone3 (before Linux 5.7), or no v2 group: the program joins its groups itself.
            program = libc::syscall(libc::SYS_clone, libc::SIGCHLD as c_long, 0, 0, 0, 0);
            if program == 0 {
                start_program(plan, &JOINS[..joins]);
            }
        }
        check(program, SETUP_CLONE);
        let program = program as libc::pid_t;
        // The program's pipes are its own: the init holds none of them open.
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            if null >= 0 {
                libc::dup2(null, fd);
            } else {
                libc::close(fd);
            }
        }
        if null > 2 {
            libc::close(null);
        }
        let cpu = Cpu {
            proc_fd,
            tick_ns: plan.tick_ns,
            from: cpu_from,
        };
        supervise(program, &cpu, &mut limits)
    }
}

/// No user namespace can be made inside the run (the init's own limit, which nothing inside can
/// raise): a process cannot become root of a namespace of its own, nor mount a tmpfs there that
/// no limit of its counts.
unsafe fn deny_user_namespaces(proc_fd: c_int) {
    // SAFETY (whole function): system calls on C strings.
    unsafe {
        let fd = libc::openat(
            proc_fd,
            c"sys/user/max_user_namespaces".as_ptr(),
            libc::O_WRONLY | libc::O_CLOEXEC,
        );
        check(fd as c_long, SETUP_USERNS);
        let written = libc::write(fd, b"0\n".as_ptr().cast(), 2);
        libc::close(fd);
        check(if written == 2 { 0 } else { -1 }, SETUP_USERNS);
    }
}

/// Moves the kept descriptors to their numbers and closes every other one (copies of the grader's
/// files and of other runs' pipes).
unsafe fn arrange_descriptors(fds: Descriptors) {
    // SAFETY (whole function): descriptor calls on integers.
    unsafe {
        // First out of the way of 0-11, then into place.
        let mut moved = [-1; 12];
        for (slot, &fd) in fds.iter().enumerate() {
            if fd < 0 && slot >= CPU_FILE as usize {
                continue;
            }
            moved[slot] = libc::fcntl(fd, libc::F_DUPFD, 64);
            if moved[slot] < 0 {
                libc::_exit(1);
            }
        }
        for (slot, &fd) in moved.iter().enumerate() {
            if fd < 0 {
                libc::close(slot as c_int);
            } else {
                libc::dup2(fd, slot as c_int);
            }
        }
        let closed = libc::syscall(libc::SYS_close_range, FIRST_FREE as u32, u32::MAX, 0);
        if closed < 0 {
            let mut limit: libc::rlimit = std::mem::zeroed();
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            for fd in FIRST_FREE..(limit.rlim_cur.min(1 << 16) as c_int) {
                libc::close(fd);
            }
        }
    }
}

/// Every signal back to its default action and none blocked: the grader's handlers and masks are not
/// the program's. As PID 1 without handlers, the init ignores every signal sent from inside.
unsafe fn reset_signals() {
    // SAFETY (whole function): signal calls with valid arguments.
    unsafe {
        for signal in 1..libc::SIGRTMAX() {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, ptr::null_mut());
    }
}

/// The program's user and group, without supplementary groups where the kernel lets us drop them;
/// leaving the init's identity drops every capability. Raw system calls: the C library's versions
/// would signal the grader's other threads, absent here.
unsafe fn become_inside_user() {
    let id = INSIDE_ID as c_long;
    // SAFETY (whole function): credential system calls on integers.
    unsafe {
        libc::syscall(libc::SYS_setgroups, 0, ptr::null::<libc::gid_t>());
        if libc::syscall(libc::SYS_setresgid, id, id, id) < 0 || libc::syscall(libc::SYS_setresuid, id, id, id) < 0 {
            send([REC_EXEC_FAILED, errno() as u64, 0, 0]);
            libc::_exit(127);
        }
    }
}

/// The grader's file system moves under /oldroot, the program's is built under /newroot from the
/// plan, then /newroot becomes the root and the grader's is gone.
unsafe fn build_root(plan: &Plan) {
    // SAFETY (whole function): mount system calls on C strings the plan owns.
    unsafe {
        check(
            libc::mount(
                ptr::null(),
                c"/".as_ptr(),
                ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                ptr::null(),
            ) as c_long,
            SETUP_PRIVATE,
        );
        // A tmpfs over /tmp holds both roots for a moment; the host's /tmp stays at /oldroot/tmp.
        check(
            libc::mount(
                c"tmpfs".as_ptr(),
                c"/tmp".as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"size=64k,mode=0700".as_ptr().cast(),
            ) as c_long,
            SETUP_BASE,
        );
        for dir in [c"/tmp/oldroot", c"/tmp/newroot"] {
            check(libc::mkdir(dir.as_ptr(), 0o700) as c_long, SETUP_BASE);
        }
        check(
            libc::syscall(libc::SYS_pivot_root, c"/tmp".as_ptr(), c"/tmp/oldroot".as_ptr()),
            SETUP_PIVOT,
        );
        check(libc::chdir(c"/".as_ptr()) as c_long, SETUP_PIVOT);
        let mut budget = copy::Budget {
            bytes: plan.copy_budget,
            owner: INSIDE_ID,
            reader: plan.reader,
        };
        for (index, step) in plan.steps.iter().enumerate() {
            if run_step(step, &mut budget) < 0 {
                fail(index as u64);
            }
        }
        check(libc::chdir(c"/newroot".as_ptr()) as c_long, SETUP_ROOT);
        // pivot_root(".", ".") stacks the old root on the new one; detaching it leaves the new.
        check(
            libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()),
            SETUP_ROOT,
        );
        check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH) as c_long, SETUP_ROOT);
        check(libc::chdir(c"/".as_ptr()) as c_long, SETUP_ROOT);
        check(
            libc::mount(
                ptr::null(),
                c"/".as_ptr(),
                ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
                ptr::null(),
            ) as c_long,
            SETUP_ROOT,
        );
    }
}

/// One step; negative on failure, with errno set.
unsafe fn run_step(step: &Step, budget: &mut copy::Budget) -> c_long {
    // SAFETY (whole function): system calls on C strings the plan owns.
    unsafe {
        match step {
            Step::Tmpfs { target, options } => {
                let made = libc::mkdir(target.as_ptr(), 0o755);
                if made < 0 && errno() != libc::EEXIST {
                    return -1;
                }
                libc::mount(
                    c"tmpfs".as_ptr(),
                    target.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    options.as_ptr().cast(),
                ) as c_long
            }
            Step::Dir { path } => {
                let made = libc::mkdir(path.as_ptr(), 0o755);
                if made < 0 && errno() != libc::EEXIST { -1 } else { 0 }
            }
            Step::Symlink { target, path } => libc::symlink(target.as_ptr(), path.as_ptr()) as c_long,
            Step::Bind { source, target, dir } => bind_read_only(source, target, *dir),
            Step::ShowFile { source, target } => show_file(source, target, budget.reader),
            Step::Copy { source, target } => copy::copy(source, target, false, budget),
            Step::CopyContents { source, target } => copy::copy(source, target, true, budget),
            Step::Proc { target } => {
                let made = libc::mkdir(target.as_ptr(), 0o555);
                if made < 0 && errno() != libc::EEXIST {
                    return -1;
                }
                libc::mount(
                    c"proc".as_ptr(),
                    target.as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    ptr::null(),
                ) as c_long
            }
        }
    }
}

/// Shows a student's file read-only: opened through no link, checked to be a file, and bound from
/// its descriptor (`/proc/self/fd/N`), so that what is shown is what was opened.
unsafe fn show_file(source: &CStr, target: &CStr, reader: Option<(u32, u32)>) -> c_long {
    // SAFETY (whole function): system calls on C strings and local structures.
    unsafe {
        let fd = copy::open_entry(source, libc::O_RDONLY | libc::O_NONBLOCK, reader);
        if fd < 0 {
            return -1;
        }
        let mut info: libc::stat = std::mem::zeroed();
        let result = if libc::fstat(fd, &mut info) < 0 {
            -1
        } else if info.st_mode & libc::S_IFMT != libc::S_IFREG {
            *libc::__errno_location() = libc::EINVAL;
            -1
        } else {
            match copy::Path::descriptor(fd) {
                Some(path) => bind_read_only(path.as_c_str(), target, false),
                None => -1,
            }
        };
        libc::close(fd);
        result
    }
}

/// Binds a host path read-only, keeping the flags the kernel locks (nosuid, noexec, ... of the
/// original mount): a remount that dropped them would be refused.
unsafe fn bind_read_only(source: &CStr, target: &CStr, dir: bool) -> c_long {
    // SAFETY (whole function): system calls on C strings and local structures.
    unsafe {
        let made = if dir {
            libc::mkdir(target.as_ptr(), 0o755)
        } else {
            let fd = libc::open(target.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC, 0o644);
            if fd >= 0 {
                libc::close(fd);
                0
            } else {
                -1
            }
        };
        if made < 0 && errno() != libc::EEXIST {
            return -1;
        }
        let bind = |flags| libc::mount(source.as_ptr(), target.as_ptr(), ptr::null(), flags, ptr::null());
        // A mount with others under it can only be bound with them (the kernel keeps them locked).
        if bind(libc::MS_BIND) < 0 && (errno() != libc::EINVAL || bind(libc::MS_BIND | libc::MS_REC) < 0) {
            return -1;
        }
        let mut info: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(target.as_ptr(), &mut info) < 0 {
            return -1;
        }
        let mut flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID;
        for (kept, flag) in [
            (libc::ST_NODEV, libc::MS_NODEV),
            (libc::ST_NOEXEC, libc::MS_NOEXEC),
            (libc::ST_NOATIME, libc::MS_NOATIME),
            (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
            (libc::ST_RELATIME, libc::MS_RELATIME),
        ] {
            if info.f_flag & kept != 0 {
                flags |= flag;
            }
        }
        libc::mount(ptr::null(), target.as_ptr(), ptr::null(), flags, ptr::null()) as c_long
    }
}

/// The program's last steps: limits, no way to gain privileges, then its own code.
unsafe fn start_program(plan: &Plan, joins: &[c_int]) -> ! {
    // SAFETY (whole function): system calls on memory the plan owns.
    unsafe {
        libc::close(CTL_IN);
        libc::close(LIFELINE);
        libc::fcntl(CTL_OUT, libc::F_SETFD, libc::FD_CLOEXEC);
        // Into the run's control groups, while still able to (before its own user); then none of
        // their files stays open for the program.
        libc::close(CPU_FILE);
        libc::close(V2_GROUP);
        for &fd in joins {
            if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                send([REC_SETUP_FAILED, SETUP_JOIN, errno() as u64, 0]);
                libc::_exit(127);
            }
            libc::close(fd);
        }
        // Its own process group and session: a `kill 0` of its own reaches nothing of ours.
        libc::setsid();
        become_inside_user();
        for &(resource, value) in &plan.rlimits {
            let limit = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            libc::setrlimit(resource as _, &limit);
        }
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        if plan.program.is_empty() {
            libc::_exit(0);
        }
        libc::execve(plan.program.as_ptr(), plan.argv.as_ptr(), plan.envp.as_ptr());
        send([REC_EXEC_FAILED, errno() as u64, 0, 0]);
        libc::_exit(127)
    }
}
