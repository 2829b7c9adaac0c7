//! The init's watch over the program once it runs: its CPU time against the limit, the grader's
//! commands between moves, and the record of how it ended.

use super::*;

/// The limits the init enforces, as the grader last set them.
pub(super) struct Limits {
    /// The CPU time, in ns, at which the run is stopped.
    cpu: u64,
    /// The CLOCK_MONOTONIC time, in ns, at which the run is stopped.
    wall: u64,
    /// Wall time, in ns, without any growth of the CPU time after which the run is stopped (0: never).
    stall: u64,
}

impl From<[u64; 4]> for Limits {
    fn from(command: [u64; 4]) -> Limits {
        Limits {
            cpu: command[1],
            wall: command[2],
            stall: command[3],
        }
    }
}

fn now() -> u64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut time) };
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

/// A command from the grader; None when it is gone.
pub(super) unsafe fn receive() -> Option<[u64; 4]> {
    let mut command = [0u64; 4];
    loop {
        // SAFETY: reads at most 32 bytes into a local array.
        let read = unsafe { libc::read(CTL_IN, command.as_mut_ptr().cast(), 32) };
        if read == 32 {
            return Some(command);
        }
        if read < 0 && errno() == libc::EINTR {
            continue;
        }
        return None;
    }
}

/// Waits for the program, answers the grader, and stops everything at a limit; then reports how the
/// run ended and exits, which ends every process left in the namespace.
/// Where the run's CPU time is read: its control group's file, or the processes the init sees.
pub(super) struct Cpu {
    pub(super) proc_fd: c_int,
    pub(super) tick_ns: u64,
    pub(super) from: u64,
}

impl Cpu {
    unsafe fn time(&self) -> u64 {
        // SAFETY: reads into local buffers.
        unsafe {
            match self.from {
                CPU_FROM_PROCESSES => cpu_time(self.proc_fd, self.tick_ns),
                from => {
                    let mut text = [0u8; 512];
                    let read = libc::pread(CPU_FILE, text.as_mut_ptr().cast(), text.len(), 0);
                    if read <= 0 {
                        return 0;
                    }
                    crate::cgroup::cpu_nanoseconds(&text[..read as usize], from == CPU_FROM_V2)
                }
            }
        }
    }
}

pub(super) unsafe fn supervise(program: libc::pid_t, cpu_source: &Cpu, limits: &mut Limits) -> ! {
    // SAFETY (whole function): system calls on local memory.
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, program, 0) as c_int;
        let mut status = 0;
        let mut program_done = false;
        let mut last_cpu = 0;
        let mut last_growth = now();
        let reason = loop {
            loop {
                let mut wait_status = 0;
                let reaped = libc::waitpid(-1, &mut wait_status, libc::WNOHANG);
                if reaped <= 0 {
                    break;
                }
                if reaped == program {
                    status = wait_status;
                    program_done = true;
                }
            }
            if program_done {
                break END_EXITED;
            }
            let cpu = cpu_source.time();
            let time = now();
            if cpu > last_cpu {
                last_cpu = cpu;
                last_growth = time;
            }
            if cpu >= limits.cpu {
                break END_CPU;
            }
            if time >= limits.wall {
                break END_WALL;
            }
            if limits.stall > 0 && time - last_growth >= limits.stall {
                break END_STALLED;
            }
            // Look again well before the CPU limit can be reached (by two processes at once), and
            // at the wall deadline; only the grader and the program's end wake the init otherwise.
            let mut wait_ns = u64::MAX;
            if limits.cpu != NEVER {
                wait_ns = ((limits.cpu - cpu) / 4).clamp(1_000_000, 50_000_000);
            }
            if limits.wall != NEVER {
                wait_ns = wait_ns.min(limits.wall - time);
            }
            if limits.stall > 0 {
                wait_ns = wait_ns.min(limits.stall.min(200_000_000));
            }
            if pidfd < 0 {
                wait_ns = wait_ns.min(5_000_000);
            }
            let timeout = if wait_ns == u64::MAX {
                -1
            } else {
                (wait_ns.div_ceil(1_000_000)).min(i32::MAX as u64) as c_int
            };
            let mut polled = [
                libc::pollfd {
                    fd: LIFELINE,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: CTL_IN,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: pidfd,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            let count = if pidfd < 0 { 2 } else { 3 };
            if libc::poll(polled.as_mut_ptr(), count, timeout) <= 0 {
                continue;
            }
            if polled[0].revents != 0 {
                // The grader is gone: so is the run.
                libc::kill(-1, libc::SIGKILL);
                libc::_exit(0);
            }
            if polled[1].revents != 0 {
                let Some(command) = receive() else {
                    libc::kill(-1, libc::SIGKILL);
                    libc::_exit(0);
                };
                match command[0] {
                    CMD_STOP => break END_STOPPED,
                    CMD_LIMITS => {
                        *limits = Limits::from(command);
                        last_growth = now();
                    }
                    CMD_QUERY => send([REC_READING, cpu_source.time(), 0, 0]),
                    _ => {}
                }
            }
        };
        // Everything else in the namespace, then its CPU time from the reaped processes' accounts.
        libc::kill(-1, libc::SIGKILL);
        loop {
            let mut wait_status = 0;
            let reaped = libc::waitpid(-1, &mut wait_status, 0);
            if reaped == program && !program_done {
                status = wait_status;
                program_done = true;
            }
            if reaped < 0 && errno() != libc::EINTR {
                break;
            }
        }
        send([REC_FINAL, reason, status as u64, cpu_source.time()]);
        libc::_exit(0)
    }
}

/// The CPU time (user and system) of everything the run started: the reaped processes (the init's
/// children's account, which holds their own reaped children), and each live one's own and reaped
/// children's time.
unsafe fn cpu_time(proc_fd: c_int, tick_ns: u64) -> u64 {
    // SAFETY (whole function): system calls on local buffers.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        let mut total = (micros(usage.ru_utime) + micros(usage.ru_stime)) * 1000;
        libc::lseek(proc_fd, 0, libc::SEEK_SET);
        let mut entries = [0u8; 4096];
        loop {
            let count = libc::syscall(libc::SYS_getdents64, proc_fd, entries.as_mut_ptr(), entries.len());
            if count <= 0 {
                break;
            }
            let mut offset = 0usize;
            while offset + 19 < count as usize {
                let length = u16::from_ne_bytes([entries[offset + 16], entries[offset + 17]]) as usize;
                let mut pid: i64 = 0;
                let mut index = offset + 19;
                while index < offset + length && entries[index].is_ascii_digit() {
                    pid = pid * 10 + (entries[index] - b'0') as i64;
                    index += 1;
                }
                let numeric = index > offset + 19 && index < offset + length && entries[index] == 0;
                offset += length.max(1);
                if numeric && pid > 1 && pid < i32::MAX as i64 {
                    total += process_time(pid as libc::pid_t, proc_fd, tick_ns);
                }
            }
        }
        total
    }
}

/// One live process's CPU time: its own, to the nanosecond, and its reaped children's, to the tick.
unsafe fn process_time(pid: libc::pid_t, proc_fd: c_int, tick_ns: u64) -> u64 {
    // SAFETY (whole function): system calls on local buffers.
    unsafe {
        // The process CPU clock of another process: (~pid << 3) | CPUCLOCK_SCHED.
        let clock = ((!pid) << 3) | 2;
        let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        let own = if libc::clock_gettime(clock, &mut time) == 0 {
            time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
        } else {
            0
        };
        // "<pid>/stat"
        let mut path = [0u8; 32];
        let mut digits = [0u8; 12];
        let mut count = 0;
        let mut rest = pid as u32;
        loop {
            digits[count] = b'0' + (rest % 10) as u8;
            count += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        for i in 0..count {
            path[i] = digits[count - 1 - i];
        }
        path[count..count + 5].copy_from_slice(b"/stat");
        let fd = libc::openat(proc_fd, path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return own;
        }
        let mut stat = [0u8; 1024];
        let read = libc::read(fd, stat.as_mut_ptr().cast(), stat.len());
        libc::close(fd);
        if read <= 0 {
            return own;
        }
        let stat = &stat[..read as usize];
        // Fields after the command's closing parenthesis: state is field 3, cutime 16, cstime 17.
        let Some(close) = stat.iter().rposition(|&b| b == b')') else {
            return own;
        };
        let mut field = 2;
        let mut value: u64 = 0;
        let mut children_ticks = 0;
        for &byte in &stat[close + 1..] {
            if byte == b' ' {
                if field == 16 || field == 17 {
                    children_ticks += value;
                }
                field += 1;
                value = 0;
                if field > 17 {
                    break;
                }
            } else if byte.is_ascii_digit() {
                value = value.saturating_mul(10).saturating_add((byte - b'0') as u64);
            }
        }
        own + children_ticks.saturating_mul(tick_ns)
    }
}
