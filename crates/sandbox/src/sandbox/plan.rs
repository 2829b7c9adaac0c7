//! What a run's sandbox is built from: the steps that make its root (system folders, devices, the
//! copies, what is visible) and its program's words, made before the clone.

use super::*;

/// A command made ready for the sandbox; an empty command is the probe: the sandbox is built and
/// its program's process ends at once, without running anything.
pub(crate) fn plan(
    command: &[Word],
    env: &[(String, String)],
    resources: &Resources,
    cpu_seconds: Option<u64>,
) -> Result<Plan, String> {
    let mut steps = vec![Step::Tmpfs {
        target: c("/newroot"),
        options: c("mode=0755,size=1m,nr_inodes=4096"),
    }];
    for folder in resolve::SYSTEM {
        let path = Path::new(folder);
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        let target = inside_path(path);
        if meta.file_type().is_symlink() {
            let link = std::fs::read_link(path).map_err(|e| format!("cannot read {folder}: {e}"))?;
            steps.push(Step::Symlink {
                target: c_path(&link),
                path: target,
            });
        } else if meta.is_dir() {
            steps.push(Step::Bind {
                source: host_path(path),
                target,
                dir: true,
            });
        }
    }
    // The program and its words: the copies, and the interpreter where it is installed.
    let home = Path::new(HOME);
    let copies = crate::copies(command);
    let words = crate::words_in(command, home);
    let (executable, shown) = match command.first() {
        None => (CString::default(), Vec::new()),
        Some(Word::Text(text)) => {
            let resolved = resolve::program(text)?;
            (c_path(&resolved.executable), resolved.shown)
        }
        Some(Word::Copy { .. }) => (c_bytes(words[0].as_bytes()), Vec::new()),
    };
    let mut shown_sorted: Vec<PathBuf> = shown
        .into_iter()
        .chain(resources.visible.iter().filter_map(|p| std::fs::canonicalize(p).ok()))
        .filter(|p| !resolve::is_system(p))
        .collect();
    shown_sorted.sort();
    shown_sorted.dedup();
    let nested: Vec<PathBuf> = shown_sorted
        .iter()
        .filter(|p| shown_sorted.iter().any(|q| q != *p && p.starts_with(q)))
        .cloned()
        .collect();
    shown_sorted.retain(|p| !nested.contains(p));
    steps.push(Step::Tmpfs {
        target: c("/newroot/dev"),
        options: c("mode=0755,size=64k,nr_inodes=64"),
    });
    for device in ["null", "zero", "full", "random", "urandom"] {
        let path = Path::new("/dev").join(device);
        if path.exists() {
            steps.push(Step::Bind {
                source: host_path(&path),
                target: inside_path(&path),
                dir: false,
            });
        }
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        steps.push(Step::Symlink {
            target: c(target),
            path: c(&format!("/newroot/dev/{name}")),
        });
    }
    let small = format!("size={WRITABLE},nr_inodes=16384");
    steps.push(Step::Tmpfs {
        target: c("/newroot/dev/shm"),
        options: c(&format!("mode=1777,{small}")),
    });
    steps.push(Step::Tmpfs {
        target: c("/newroot/tmp"),
        options: c(&format!("mode=1777,{small}")),
    });
    steps.push(Step::Dir {
        path: c("/newroot/home"),
    });
    let shown_in_place = |source: &Path, contents: bool| {
        !contents && std::fs::metadata(source).is_ok_and(|m| m.is_file() && m.len() > COPIED_AT_MOST)
    };
    let copied: u64 = copies
        .iter()
        .filter(|(source, contents, _)| !shown_in_place(source, *contents))
        .map(|(source, _, _)| crate::entry_size(source).unwrap_or(0))
        .sum::<u64>()
        .min(MAX_COPIED);
    steps.push(Step::Tmpfs {
        target: inside_path(Path::new(HOME)),
        options: c(&format!(
            "mode=0755,uid={id},gid={id},size={},nr_inodes=16384",
            WRITABLE + copied,
            id = inside::INSIDE_ID
        )),
    });
    // After the tmpfs mounts, so that a folder shown under /tmp stays visible.
    for shown in &shown_sorted {
        let mut parent = PathBuf::from("/");
        for part in shown.parent().into_iter().flat_map(Path::components).skip(1) {
            parent.push(part);
            steps.push(Step::Dir {
                path: inside_path(&parent),
            });
        }
        steps.push(Step::Bind {
            source: host_path(shown),
            target: inside_path(shown),
            dir: shown.is_dir(),
        });
    }
    for (source, contents, relative) in &copies {
        // Its links were resolved when the word was made (`Word::copy_into`), where they point:
        // inside, the host's files are under another root. The init opens it through no link.
        match std::fs::symlink_metadata(source) {
            Ok(meta) if meta.is_file() || meta.is_dir() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} became a link: nothing is copied through a link",
                    source.display()
                ));
            }
            Ok(_) => return Err(format!("not a file or folder: {}", source.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("no such file or folder: {}", source.display()));
            }
            Err(e) => return Err(format!("cannot read {}: {e}", source.display())),
        }
        let in_place = shown_in_place(source, *contents);
        let (source, target) = (host_path(source), inside_path(&home.join(relative)));
        steps.push(if *contents {
            Step::CopyContents { source, target }
        } else if in_place {
            Step::ShowFile { source, target }
        } else {
            Step::Copy { source, target }
        });
    }
    steps.push(Step::Proc {
        target: c("/newroot/proc"),
    });

    let mut path_env: Vec<String> = shown_sorted
        .iter()
        .filter(|shown| shown.is_dir())
        .map(|folder| folder.join("bin"))
        .filter(|bin| bin.is_dir())
        .map(|bin| bin.to_string_lossy().into_owned())
        .collect();
    path_env.extend(["/usr/local/bin", "/usr/bin", "/bin"].map(String::from));
    let lang = std::env::var("LANG")
        .ok()
        .filter(|l| l.chars().all(|ch| ch.is_ascii_alphanumeric() || "._-@".contains(ch)))
        .unwrap_or_else(|| "C.UTF-8".to_string());
    let mut environment = vec![
        ("PATH".to_string(), path_env.join(":")),
        ("HOME".to_string(), HOME.to_string()),
        ("LANG".to_string(), lang),
        ("TMPDIR".to_string(), "/tmp".to_string()),
    ];
    for (key, value) in env {
        environment.retain(|(k, _)| k != key);
        environment.push((key.clone(), value.clone()));
    }

    let mut strings: Vec<CString> = Vec::new();
    let argv_strings: Vec<CString> = words.iter().map(|a| c_bytes(a.as_bytes())).collect();
    let env_strings: Vec<CString> = environment.iter().map(|(k, v)| c(&format!("{k}={v}"))).collect();
    let argv: Vec<*const libc::c_char> = argv_strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let envp: Vec<*const libc::c_char> = env_strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    strings.extend(argv_strings);
    strings.extend(env_strings);

    // Each process's address space is limited as well as the run's memory (the course server's
    // rule, and an allocation past it fails at once rather than after the group reclaims); the
    // processes are the group's to count, or each user's without one.
    let mut rlimits = vec![
        (libc::RLIMIT_AS as c_int, resources.memory),
        (libc::RLIMIT_FSIZE as c_int, resources.file_size),
        (libc::RLIMIT_NOFILE as c_int, resources.open_files),
        (libc::RLIMIT_CORE as c_int, 0),
    ];
    if !resources.whole_run {
        rlimits.push((libc::RLIMIT_NPROC as c_int, resources.processes));
    }
    if let Some(seconds) = cpu_seconds {
        rlimits.push((libc::RLIMIT_CPU as c_int, seconds));
    }
    // A hard limit can only be lowered.
    for (resource, value) in &mut rlimits {
        // SAFETY: getrlimit writes the structure it is given.
        let mut current: libc::rlimit = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrlimit(*resource as _, &mut current) } == 0 {
            *value = (*value).min(current.rlim_max);
        }
    }
    // SAFETY: sysconf only reads a value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let reader_host = entry_owner(copies.iter().map(|(source, _, _)| source.as_path()));
    Ok(Plan {
        steps,
        program: executable,
        argv,
        envp,
        workdir: c(HOME),
        rlimits,
        copy_budget: MAX_COPIED,
        reader: reader_host.map(|(uid, gid)| (reader_id(uid), reader_id(gid))),
        reader_host,
        tick_ns: 1_000_000_000 / ticks,
        wipe: own_strings(),
        _strings: strings,
    })
}

/// Where this process's command line and environment strings are (fields 48-51 of
/// /proc/self/stat), read once.
fn own_strings() -> Vec<(usize, usize)> {
    static REGIONS: OnceLock<Vec<(usize, usize)>> = OnceLock::new();
    REGIONS
        .get_or_init(|| {
            let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
                return Vec::new();
            };
            let Some((_, fields)) = stat.rsplit_once(')') else {
                return Vec::new();
            };
            // Field 3 is the first after the command's parenthesis.
            let field = |n: usize| {
                fields
                    .split_whitespace()
                    .nth(n - 3)
                    .and_then(|f| f.parse::<usize>().ok())
            };
            match (field(48), field(49), field(50), field(51)) {
                (Some(a), Some(b), Some(c), Some(d)) if a < b && c < d => vec![(a, b), (c, d)],
                _ => Vec::new(),
            }
        })
        .clone()
}
