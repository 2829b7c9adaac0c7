//! A control group for each run's program: its memory (everything it holds: anonymous memory,
//! tmpfs, memfd, page cache) and process count limited as a whole, its CPU time read from the
//! group (every process it ever had, reaped by anyone or no one), its processes frozen between a
//! player's moves. cgroup v2 where the grader's group can have children with the controllers
//! (root, or a delegated subtree such as `systemd-run --user --scope -p Delegate=yes` gives), v1
//! hierarchies for what v2 lacks (machines that mount both): each controller from where it is.
//!
//! The program joins its groups itself, before its `exec`, by the descriptors of their
//! `cgroup.procs` files (`Group::joins`); the sandbox's init stays outside, so that a frozen
//! program never stops the init from answering the grader.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which kind of hierarchy a controller is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Version {
    V1,
    V2,
}

/// Where a controller's run groups are made: the grader's own group in its hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Place {
    pub version: Version,
    pub dir: PathBuf,
}

/// The four controllers a run needs, each from the hierarchy that has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Controllers {
    pub(super) memory: Place,
    pub(super) pids: Place,
    pub(super) cpu: Place,
    pub(super) freezer: Place,
}

impl Controllers {
    /// `memory v1, pids v1, cpu v2, freezer v2`: for reports.
    pub fn describe(&self) -> String {
        let v = |place: &Place| match place.version {
            Version::V1 => "v1",
            Version::V2 => "v2",
        };
        format!(
            "memory {}, pids {}, cpu {}, freezer {}",
            v(&self.memory),
            v(&self.pids),
            v(&self.cpu),
            v(&self.freezer)
        )
    }
}

/// What the kernel offers, read once: the controllers, or one line saying what is missing and the
/// command that gives it.
pub fn controllers() -> Result<Controllers, String> {
    static FOUND: OnceLock<Result<Controllers, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
            let membership = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
            let found = find(&hierarchies(&mountinfo, &membership), &probe_v2);
            if let Ok(controllers) = &found {
                sweep(controllers);
            }
            found
        })
        .clone()
}

/// A hierarchy mounted here, and the grader's group in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Hierarchy {
    pub version: Version,
    /// The v1 controllers it holds (none for v2: see `V2Offers`).
    pub controllers: Vec<String>,
    /// The grader's group's folder.
    pub dir: PathBuf,
    /// Whether that group is the hierarchy's root (a v2 root may enable controllers for children
    /// whatever processes it holds).
    pub is_root: bool,
}

/// The hierarchies of `/proc/self/mountinfo`, with the grader's place in each from
/// `/proc/self/cgroup` (`ID:CONTROLLERS:PATH`; `0::PATH` for v2).
pub(super) fn hierarchies(mountinfo: &str, membership: &str) -> Vec<Hierarchy> {
    let mut found: Vec<Hierarchy> = Vec::new();
    for line in mountinfo.lines() {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let (fields, tail): (Vec<&str>, Vec<&str>) = (left.split(' ').collect(), right.split(' ').collect());
        let (Some(root), Some(mountpoint), Some(fstype)) = (fields.get(3), fields.get(4), tail.first()) else {
            continue;
        };
        let (version, controllers) = match *fstype {
            "cgroup2" => (Version::V2, Vec::new()),
            "cgroup" => {
                let options = tail.get(2).copied().unwrap_or_default();
                let known = ["memory", "pids", "cpuacct", "freezer"];
                let controllers: Vec<String> = options
                    .split(',')
                    .filter(|o| known.contains(o))
                    .map(String::from)
                    .collect();
                if controllers.is_empty() {
                    continue;
                }
                (Version::V1, controllers)
            }
            _ => continue,
        };
        // The grader's path in this hierarchy.
        let path = membership.lines().find_map(|entry| {
            let mut parts = entry.splitn(3, ':');
            let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
            let matches = match version {
                Version::V2 => names.is_empty(),
                Version::V1 => names.split(',').any(|n| controllers.iter().any(|c| c == n)),
            };
            matches.then(|| path.to_string())
        });
        let Some(path) = path else { continue };
        let mountpoint = unescape(mountpoint);
        let root = unescape(root);
        // Mounted from inside the hierarchy (a container): the path is below the mount's root.
        let Some(relative) = Path::new(&path).strip_prefix(&root).ok() else {
            continue;
        };
        let dir = Path::new(&mountpoint).join(relative);
        if found.iter().any(|h| h.dir == dir) {
            continue;
        }
        found.push(Hierarchy {
            version,
            controllers,
            is_root: relative.as_os_str().is_empty(),
            dir,
        });
    }
    found
}

/// mountinfo's octal escapes (`\040` for a space).
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .and_then(|digits| std::str::from_utf8(digits).ok());
        if bytes[i] == b'\\'
            && let Some(Ok(value)) = octal.map(|digits| u8::from_str_radix(digits, 8))
        {
            out.push(value);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a v2 group offers its children, found by making one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct V2Offers {
    pub memory: bool,
    pub pids: bool,
    pub cpu: bool,
    pub freezer: bool,
}

/// Makes a child of the grader's v2 group (enabling memory and pids for children where it may)
/// and sees which files it has; removes it.
fn probe_v2(hierarchy: &Hierarchy) -> V2Offers {
    let dir = &hierarchy.dir;
    let control = std::fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
    let available = std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
    for controller in ["memory", "pids"] {
        let enabled = control.split_whitespace().any(|c| c == controller);
        if !enabled && available.split_whitespace().any(|c| c == controller) {
            // Refused (EBUSY) in a group that holds processes, unless it is the root.
            let _ = write(&dir.join("cgroup.subtree_control"), &format!("+{controller}"));
        }
    }
    let probe = dir.join(format!("othello-{}-probe", std::process::id()));
    if std::fs::create_dir(&probe).is_err() {
        return V2Offers::default();
    }
    let has = |file: &str| probe.join(file).is_file();
    let offers = V2Offers {
        memory: has("memory.max") && has("memory.events"),
        pids: has("pids.max"),
        cpu: has("cpu.stat"),
        freezer: has("cgroup.freeze"),
    };
    let _ = std::fs::remove_dir(&probe);
    offers
}

/// Each controller from a hierarchy that has it, v2 first; or what is missing.
pub(super) fn find(hierarchies: &[Hierarchy], probe: &dyn Fn(&Hierarchy) -> V2Offers) -> Result<Controllers, String> {
    let v2 = hierarchies.iter().find(|h| h.version == Version::V2);
    let offers = v2.map(probe).unwrap_or_default();
    let place = |v2_has: bool, v1_name: &str| -> Option<Place> {
        match v2 {
            Some(h) if v2_has => Some(Place {
                version: Version::V2,
                dir: h.dir.clone(),
            }),
            _ => hierarchies
                .iter()
                .find(|h| h.version == Version::V1 && h.controllers.iter().any(|c| c == v1_name))
                .filter(|h| is_writable(&h.dir))
                .map(|h| Place {
                    version: Version::V1,
                    dir: h.dir.clone(),
                }),
        }
    };
    let memory = place(offers.memory, "memory");
    let pids = place(offers.pids, "pids");
    let cpu = place(offers.cpu, "cpuacct");
    let freezer = place(offers.freezer, "freezer");
    match (memory, pids, cpu, freezer) {
        (Some(memory), Some(pids), Some(cpu), Some(freezer)) => Ok(Controllers {
            memory,
            pids,
            cpu,
            freezer,
        }),
        (memory, pids, cpu, freezer) => {
            let missing: Vec<&str> = [
                (memory.is_none(), "memory"),
                (pids.is_none(), "pids"),
                (cpu.is_none(), "cpu"),
                (freezer.is_none(), "freezer"),
            ]
            .into_iter()
            .filter(|(absent, _)| *absent)
            .map(|(_, name)| name)
            .collect();
            let place = v2.map_or_else(
                || "no cgroup v2 hierarchy is mounted".to_string(),
                |h| format!("the group {} cannot have children with them", h.dir.display()),
            );
            Err(format!(
                "no control group for the runs: the {} controller{} {} missing ({place}); run othello in a delegated group (`systemd-run --user --scope -p Delegate=yes othello ...`, or as root), or give --per-process-limits to go on with each process's own limits",
                missing.join(", "),
                if missing.len() == 1 { "" } else { "s" },
                if missing.len() == 1 { "is" } else { "are" },
            ))
        }
    }
}

fn is_writable(dir: &Path) -> bool {
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: access reads a C string.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    OpenOptions::new().write(true).open(path)?.write_all(text.as_bytes())
}

/// The groups of a run's program: one folder per hierarchy used, removed when dropped (after its
/// processes are gone).
pub(super) struct Group {
    controllers: Controllers,
    /// Each hierarchy's folder for this run, once.
    dirs: Vec<(Version, PathBuf)>,
}

/// The run groups' names: `othello-PID-N`, swept when PID is gone.
const PREFIX: &str = "othello-";

impl Group {
    /// Makes the run's groups with its limits: `memory` bytes in all (no swap), `processes` at once.
    pub fn new(controllers: &Controllers, memory: u64, processes: u64) -> Result<Group, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "{PREFIX}{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut dirs: Vec<(Version, PathBuf)> = Vec::new();
        for place in [
            &controllers.memory,
            &controllers.pids,
            &controllers.cpu,
            &controllers.freezer,
        ] {
            let dir = place.dir.join(&name);
            if !dirs.iter().any(|(_, d)| *d == dir) {
                dirs.push((place.version, dir));
            }
        }
        let group = Group {
            controllers: controllers.clone(),
            dirs: Vec::new(),
        };
        let mut group = group;
        for (version, dir) in dirs {
            std::fs::create_dir(&dir).map_err(|e| format!("cannot make the control group {}: {e}", dir.display()))?;
            group.dirs.push((version, dir));
        }
        let set = |place: &Place, file: &str, value: &str| -> Result<(), String> {
            let path = place.dir.join(&name).join(file);
            write(&path, value).map_err(|e| format!("cannot set {}: {e}", path.display()))
        };
        let memory = memory.to_string();
        match controllers.memory.version {
            Version::V2 => {
                set(&controllers.memory, "memory.max", &memory)?;
                // No swap: the limit is what it holds (the file is absent without swap accounting).
                let _ = set(&controllers.memory, "memory.swap.max", "0");
            }
            Version::V1 => {
                set(&controllers.memory, "memory.limit_in_bytes", &memory)?;
                let _ = set(&controllers.memory, "memory.memsw.limit_in_bytes", &memory);
            }
        }
        set(&controllers.pids, "pids.max", &processes.to_string())?;
        Ok(group)
    }

    /// The files the program joins the run's groups by, open for writing: it writes `0` to each
    /// before its `exec`, and is in its groups from then on. v1's `tasks` (a single thread, the
    /// program before its `exec`, moves without the kernel's lock on every thread group, which
    /// costs a grace period of its own), v2's `cgroup.procs`, last.
    pub fn joins(&self) -> Result<Vec<File>, String> {
        let mut dirs: Vec<&(Version, PathBuf)> = self.dirs.iter().collect();
        dirs.sort_by_key(|(version, _)| *version == Version::V2);
        dirs.into_iter()
            .map(|(version, dir)| {
                let path = dir.join(match version {
                    Version::V1 => "tasks",
                    Version::V2 => "cgroup.procs",
                });
                OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| format!("cannot open {}: {e}", path.display()))
            })
            .collect()
    }

    /// The run's v2 group's folder, open, when it has one (for `CLONE_INTO_CGROUP`): its
    /// `cgroup.procs` is then the last of `joins`.
    pub fn v2_dir(&self) -> Result<Option<File>, String> {
        let Some((_, dir)) = self.dirs.iter().find(|(version, _)| *version == Version::V2) else {
            return Ok(None);
        };
        use std::os::unix::fs::OpenOptionsExt;
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY)
            .open(dir)
            .map(Some)
            .map_err(|e| format!("cannot open {}: {e}", dir.display()))
    }

    /// The file the run's CPU time is read from, open (see `cpu_nanoseconds`).
    pub fn cpu_file(&self) -> Result<File, String> {
        let path = self
            .dir(&self.controllers.cpu)
            .join(match self.controllers.cpu.version {
                Version::V2 => "cpu.stat",
                Version::V1 => "cpuacct.usage",
            });
        File::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))
    }

    /// Whether the CPU file is v2's `cpu.stat` (else v1's `cpuacct.usage`).
    pub fn cpu_is_v2(&self) -> bool {
        self.controllers.cpu.version == Version::V2
    }

    fn dir(&self, place: &Place) -> PathBuf {
        let name = self.dirs[0].1.file_name().map(PathBuf::from).unwrap_or_default();
        place.dir.join(name)
    }

    /// Freezes every process of the run (a player between its moves), or thaws them.
    pub fn freeze(&self, frozen: bool) {
        let dir = self.dir(&self.controllers.freezer);
        let _ = match self.controllers.freezer.version {
            Version::V2 => write(&dir.join("cgroup.freeze"), if frozen { "1" } else { "0" }),
            Version::V1 => write(&dir.join("freezer.state"), if frozen { "FROZEN" } else { "THAWED" }),
        };
    }

    /// Whether the kernel killed a process of the run for want of memory at the group's limit (its
    /// own event counter; v1 kernels before 4.13 have none, and say whether the limit was reached).
    pub fn hit_memory_limit(&self) -> bool {
        let dir = self.dir(&self.controllers.memory);
        match self.controllers.memory.version {
            Version::V2 => std::fs::read_to_string(dir.join("memory.events"))
                .is_ok_and(|text| counter(&text, "oom_kill") > 0 || counter(&text, "oom") > 0),
            Version::V1 => {
                let control = std::fs::read_to_string(dir.join("memory.oom_control")).unwrap_or_default();
                if control.contains("oom_kill ") {
                    counter(&control, "oom_kill") > 0
                } else {
                    std::fs::read_to_string(dir.join("memory.failcnt"))
                        .is_ok_and(|text| text.trim().parse::<u64>().is_ok_and(|n| n > 0))
                }
            }
        }
    }
}

/// The value of `NAME N` in a flat-keyed cgroup file (`memory.events`, `cpu.stat`).
pub(super) fn counter(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|line| {
            let (key, value) = line.split_once(' ')?;
            (key == name).then(|| value.trim().parse().ok()).flatten()
        })
        .unwrap_or(0)
}

impl Drop for Group {
    /// Thawed (a frozen v1 process cannot die), every process killed, the folders removed.
    fn drop(&mut self) {
        self.freeze(false);
        for (_, dir) in self.dirs.iter().rev() {
            remove(dir);
        }
    }
}

/// Kills what is left in a run's group and removes its folder (a group empties a moment after its
/// last process is killed).
fn remove(dir: &Path) {
    for attempt in 0..200 {
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return;
        }
        if attempt == 0 && write(&dir.join("cgroup.kill"), "1").is_err() {
            let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
            for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                // SAFETY: kill takes plain integers; the processes are the run's.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Removes the empty groups that runs of processes now gone left (a grader killed by SIGKILL).
fn sweep(controllers: &Controllers) {
    for place in [
        &controllers.memory,
        &controllers.pids,
        &controllers.cpu,
        &controllers.freezer,
    ] {
        let Ok(entries) = std::fs::read_dir(&place.dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(PREFIX))
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<i32>().ok())
            else {
                continue;
            };
            // SAFETY: kill with signal 0 only asks whether the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0
                || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
            if !alive {
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    }
}

/// CPU time in nanoseconds from a run's CPU file's text: `usage_usec N` of v2's `cpu.stat`, or
/// v1's `cpuacct.usage`, a number of nanoseconds. Also done, without allocating, by the init.
pub(super) fn cpu_nanoseconds(text: &[u8], v2: bool) -> u64 {
    let number = |digits: &[u8]| {
        digits
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .fold(0u64, |n, b| n.saturating_mul(10).saturating_add(u64::from(b - b'0')))
    };
    if !v2 {
        return number(text);
    }
    let key = b"usage_usec ";
    let mut start = 0;
    while start < text.len() {
        let line = &text[start..];
        if line.starts_with(key) {
            return number(&line[key.len()..]).saturating_mul(1000);
        }
        match line.iter().position(|&b| b == b'\n') {
            Some(end) => start += end + 1,
            None => break,
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This machine's kind: v1 hierarchies for memory, pids, cpuacct and freezer beside a v2 one.
    const HYBRID_MOUNTINFO: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
    const HYBRID_CGROUP: &str = "\
9:name=systemd:/
8:pids:/
6:freezer:/
4:memory:/process_api/549b8baf
2:cpuacct:/
1:cpu:/
0::/
";

    /// A current distribution's: v2 only, the teacher in a systemd user scope.
    const V2_MOUNTINFO: &str = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
    const V2_CGROUP: &str = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope\n";

    #[test]
    fn the_hierarchies_and_the_graders_place_in_each_are_read() {
        let found = hierarchies(HYBRID_MOUNTINFO, HYBRID_CGROUP);
        let dirs: Vec<(&Path, bool)> = found.iter().map(|h| (h.dir.as_path(), h.is_root)).collect();
        assert_eq!(
            dirs,
            [
                (Path::new("/sys/fs/cgroup/cpuacct"), true),
                (Path::new("/sys/fs/cgroup/memory/process_api/549b8baf"), false),
                (Path::new("/sys/fs/cgroup/freezer"), true),
                (Path::new("/sys/fs/cgroup/pids"), true),
                (Path::new("/sys/fs/cgroup/unified"), true),
            ]
        );
        assert_eq!(found[1].controllers, ["memory"]);
        let v2 = hierarchies(V2_MOUNTINFO, V2_CGROUP);
        assert_eq!(v2.len(), 1);
        assert_eq!(
            v2[0].dir,
            Path::new("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope")
        );
        assert_eq!((v2[0].version, v2[0].is_root), (Version::V2, false));
    }

    #[test]
    fn each_controller_comes_from_the_hierarchy_that_has_it() {
        let found = hierarchies(V2_MOUNTINFO, V2_CGROUP);
        let all = |_: &Hierarchy| V2Offers {
            memory: true,
            pids: true,
            cpu: true,
            freezer: true,
        };
        let controllers = find(&found, &all).unwrap();
        assert_eq!(controllers.describe(), "memory v2, pids v2, cpu v2, freezer v2");
        // A scope that was not delegated: no memory or pids for its children.
        let undelegated = |_: &Hierarchy| V2Offers {
            cpu: true,
            freezer: true,
            ..V2Offers::default()
        };
        let missing = find(&found, &undelegated).unwrap_err();
        assert!(
            missing.starts_with("no control group for the runs: the memory, pids controllers are missing"),
            "{missing}"
        );
        assert!(
            missing.contains("systemd-run --user --scope -p Delegate=yes") && missing.contains("--per-process-limits")
        );
        // Nothing mounted at all.
        assert!(
            find(&[], &all)
                .unwrap_err()
                .contains("no cgroup v2 hierarchy is mounted")
        );
    }

    #[test]
    fn recorded_files_are_read() {
        let stat = b"usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\nnice_usec 0\n";
        assert_eq!(cpu_nanoseconds(stat, true), 1_234_567_000);
        assert_eq!(cpu_nanoseconds(b"3690000000\n", false), 3_690_000_000);
        let events = "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n";
        assert_eq!((counter(events, "oom_kill"), counter(events, "max")), (1, 12));
        assert_eq!(counter("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "oom_kill"), 2);
        assert_eq!(unescape(r"/sys/fs/my\040cgroup"), "/sys/fs/my cgroup");
    }
}
