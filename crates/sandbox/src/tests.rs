use super::*;

fn shell_job(script: &str) -> Job {
    Job {
        command: ["sh", "-c", script].map(|w| Word::Text(w.to_string())).to_vec(),
        env: Vec::new(),
    }
}

fn shell(script: &str, limits: impl std::borrow::Borrow<Limits>) -> Run {
    run(&shell_job(script), limits.borrow())
}

fn both() -> [Isolation; 2] {
    [Isolation::default(), Isolation::ProcessGroup]
}

/// Wall-clock limits generous enough for a busy machine, for tests not about time.
fn quick(isolation: Isolation) -> Limits {
    Limits {
        time: Duration::from_secs(20),
        timing: Timing::Wall,
        isolation,
        ..Limits::default()
    }
}

/// A wall-clock limit that a hang reaches soon.
fn short(isolation: Isolation) -> Limits {
    Limits {
        time: Duration::from_millis(500),
        ..quick(isolation.clone())
    }
}

fn sandboxed() -> Limits {
    Limits {
        time: Duration::from_secs(5),
        isolation: Isolation::default(),
        ..Limits::default()
    }
}

#[test]
fn output_and_status_are_captured() {
    for isolation in both() {
        let run = shell("echo out; echo err >&2; exit 3", quick(isolation.clone()));
        assert_eq!(
            (run.stdout.as_slice(), run.stderr.as_slice()),
            (&b"out\n"[..], &b"err\n"[..]),
            "{isolation:?}"
        );
        assert_eq!(run.ending, Ending::Exited(3), "{isolation:?}");
    }
}

#[test]
fn a_hang_is_stopped_with_its_children() {
    let marker = tempfile::NamedTempFile::new().unwrap();
    let path = marker.path().display().to_string();
    // Without a sandbox, the child of the shell would write the marker after a second if it
    // survived the kill (in one, it cannot see the file at all).
    let run = shell(
        &format!("(sleep 1; echo alive > {path}) & sleep 30"),
        short(Isolation::ProcessGroup),
    );
    // Stopped, not run for 30 s (the bounds allow for a busy machine).
    assert_eq!(run.ending, Ending::TimedOut);
    assert!(run.elapsed < Duration::from_secs(20));
    let run = shell("sleep 30", short(Isolation::default()));
    assert_eq!(run.ending, Ending::TimedOut);
    assert!(run.elapsed < Duration::from_secs(20));
    thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "",
        "the group was killed whole"
    );
}

#[test]
fn endless_output_is_cut_at_the_cap() {
    for isolation in both() {
        let limits = Limits {
            stdout: 10_000,
            ..quick(isolation.clone())
        };
        let run = shell("yes", &limits);
        assert_eq!(run.ending, Ending::OutputLimit, "{isolation:?}");
        assert_eq!(run.stdout.len(), 10_000, "{isolation:?}");
    }
}

#[test]
fn stderr_keeps_its_tail_and_a_signal_is_named() {
    for isolation in both() {
        let limits = Limits {
            stderr: 100,
            ..quick(isolation.clone())
        };
        let run = shell("seq 1 10000 >&2; kill -SEGV $$", &limits);
        assert_eq!(run.ending, Ending::Signalled(libc::SIGSEGV), "{isolation:?}");
        assert!(run.stderr.len() <= 200);
        assert_eq!(run.stderr_tail(1), ["10000"]);
        assert!(run.ending.describe(&limits).contains("SIGSEGV"));
    }
}

#[test]
fn a_missing_program_is_reported() {
    for isolation in both() {
        let job = Job {
            command: vec![Word::Text("/no/such/program".to_string())],
            env: Vec::new(),
        };
        assert!(
            matches!(run(&job, &quick(isolation.clone())).ending, Ending::NotStarted(_)),
            "{isolation:?}"
        );
    }
}

#[test]
fn a_busy_loop_is_stopped_at_its_cpu_time() {
    let limits = Limits {
        time: Duration::from_millis(300),
        ..sandboxed()
    };
    let run = shell("while :; do :; done", &limits);
    assert_eq!(run.ending, Ending::TimedOut);
    let cpu = run.cpu.unwrap();
    assert!(
        cpu >= Duration::from_millis(300) && cpu < Duration::from_millis(600),
        "{cpu:?}"
    );
    assert!(run.ending.describe(&limits).contains("CPU time limit of 0.3 s"));
}

#[test]
fn the_cpu_time_of_children_counts() {
    // The same work done by one child, then by four, while the parent waits.
    let work = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done";
    let children = |n: usize| {
        let run = shell(&format!("for n in $(seq {n}); do ( {work} ) & done; wait"), sandboxed());
        assert_eq!(run.ending, Ending::Exited(0));
        run.cpu.unwrap().as_secs_f64()
    };
    // A first run pays for loading the shell from a cold cache and once made `one` too large; the
    // mean of two is steadier on a busy machine, where four children once took 5.7 times one.
    children(1);
    let one = (children(1) + children(1)) / 2.0;
    let four = children(4);
    // Without the children's time it would be a few per cent of one (the parent only waits);
    // counted twice, about eight times.
    assert!(four > 2.5 * one && four < 6.5 * one, "{one} {four}");
}

#[test]
fn a_sleeper_is_stopped_for_making_no_progress() {
    let limits = Limits {
        time: Duration::from_millis(200),
        ..sandboxed()
    };
    let run = shell("sleep 30", &limits);
    assert!(matches!(run.ending, Ending::NoProgress { .. }), "{:?}", run.ending);
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    assert!(run.ending.describe(&limits).starts_with("no progress"));
}

#[test]
fn the_sandbox_shows_only_the_system_and_the_copies() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("answers.txt");
    std::fs::write(&secret, "the answer key").unwrap();
    let mine = dir.path().join("mine.txt");
    std::fs::write(&mine, "my own file").unwrap();
    let job = Job {
        command: vec![
            Word::Text("sh".to_string()),
            Word::Text("-c".to_string()),
            Word::Text(format!(
                "cat \"$1\"; echo; pwd; id -u; cat {} 2>/dev/null || echo hidden; \
                 touch /usr/x 2>/dev/null || echo read-only; cat /proc/1/environ 2>/dev/null || echo no-environ; \
                 ls /proc | grep -c '^[0-9]'; echo \"$HOME $SECRET_TOKEN\"",
                secret.display()
            )),
            Word::Text("sh".to_string()),
            Word::copy(mine),
        ],
        env: Vec::new(),
    };
    // SAFETY: set before the run, read by nothing else in this test binary.
    unsafe { std::env::set_var("SECRET_TOKEN", "do-not-leak") };
    let run = run(&job, &sandboxed());
    let out = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        run.ending,
        Ending::Exited(0),
        "{out} {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "my own file");
    assert_eq!(lines[1], HOME);
    assert_eq!(lines[2], "1000");
    assert_eq!(lines[3], "hidden");
    assert_eq!(lines[4], "read-only");
    assert_eq!(lines[5], "no-environ");
    // The init, the shell, and ls (grep's process may be counted or not).
    let processes: u32 = lines[6].parse().unwrap();
    assert!((2..=4).contains(&processes), "{processes}");
    assert_eq!(lines[7].trim(), HOME, "the environment is cleared");
}

#[test]
fn nothing_started_in_a_sandbox_outlives_it() {
    let tag = format!("4{}.25", std::process::id());
    let run = shell(
        &format!("setsid sh -c 'sleep {tag}' & (sleep {tag} &) ; echo started"),
        sandboxed(),
    );
    assert_eq!(run.ending, Ending::Exited(0));
    thread::sleep(Duration::from_millis(100));
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&tag))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_file_past_the_size_limit_is_named() {
    let limits = Limits {
        isolation: Isolation::Sandbox(Resources {
            file_size: 1 << 20,
            ..Resources::default()
        }),
        ..sandboxed()
    };
    let run = shell("echo start; head -c 3000000 /dev/zero > big", &limits);
    assert_eq!(run.ending, Ending::FileSizeLimit, "{run:?}");
    assert_eq!(run.ending.describe(&limits), "file size limit 1 MiB");
}

#[test]
fn memory_past_the_limit_is_named() {
    let limits = Limits {
        isolation: Isolation::Sandbox(Resources {
            memory: 200_000_000,
            ..Resources::default()
        }),
        ..sandboxed()
    };
    let job = Job {
        command: ["python3", "-c", "x = bytearray(400_000_000)"]
            .map(|w| Word::Text(w.to_string()))
            .to_vec(),
        env: Vec::new(),
    };
    let run = run(&job, &limits);
    assert_eq!(
        run.ending,
        Ending::MemoryLimit,
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(run.ending.describe(&limits), "memory limit 200 MB");
}

#[test]
fn a_session_answers_and_counts_its_cpu_time() {
    let job = Job {
        command: [
            "python3",
            "-u",
            "-c",
            "import sys\nfor line in sys.stdin:\n    n = int(line)\n    s = sum(range(n))\n    print(s)\n",
        ]
        .map(|w| Word::Text(w.to_string()))
        .to_vec(),
        env: Vec::new(),
    };
    let mut session = Session::start(&job, &sandboxed()).unwrap();
    let before = session.limit(Some(Duration::from_secs(5)), Timing::Cpu).unwrap();
    assert!(session.send("3000000"));
    assert_eq!(session.receive(Duration::from_secs(30)).unwrap(), "4499998500000");
    let after = session.limit(None, Timing::Cpu).unwrap();
    assert!(after > before, "{before:?} {after:?}");
    // A request past its CPU limit ends the session, and says why.
    session.limit(Some(Duration::from_millis(50)), Timing::Cpu).unwrap();
    assert!(session.send("10000000000"));
    assert_eq!(session.receive(Duration::from_secs(30)), Err(Silence::Ended));
    assert_eq!(session.ending(), Some(Ending::TimedOut));
}

#[test]
fn sizes_read_as_given() {
    assert_eq!(size_text(1_000_000_000), "1 GB");
    assert_eq!(size_text(10 << 20), "10 MiB");
    assert_eq!(size_text(1500), "1500 bytes");
}

#[test]
fn open_files_past_the_limit_are_named() {
    let limits = Limits {
        isolation: Isolation::Sandbox(Resources {
            open_files: 32,
            ..Resources::default()
        }),
        ..sandboxed()
    };
    let job = Job {
        command: ["python3", "-c", "files = [open('/dev/null') for _ in range(100)]"]
            .map(|w| Word::Text(w.to_string()))
            .to_vec(),
        env: Vec::new(),
    };
    let run = run(&job, &limits);
    assert_eq!(
        run.ending,
        Ending::OpenFilesLimit,
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(run.ending.describe(&limits), "open files limit 32");
}

#[test]
fn everything_printed_before_the_end_is_read() {
    // 900 kB written at once just before the program exits: read to the end, whatever the timing.
    for isolation in both() {
        let run = shell("head -c 900000 /dev/zero | tr '\\0' x", quick(isolation.clone()));
        assert_eq!(run.ending, Ending::Exited(0), "{isolation:?}");
        assert_eq!(run.stdout.len(), 900_000, "{isolation:?}");
    }
}

#[test]
fn a_sandboxed_program_reaches_no_network() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let job = Job {
        command: vec![
            Word::text("python3"),
            Word::text("-c"),
            Word::text(format!(
                "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), 2)\n    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)"
            )),
        ],
        env: Vec::new(),
    };
    let run = run(&job, &sandboxed());
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(out.starts_with("refused"), "{out}");
    // The same program outside the sandbox connects (the test has teeth).
    let open = super::run(&job, &quick(Isolation::ProcessGroup));
    assert_eq!(String::from_utf8_lossy(&open.stdout).trim(), "connected");
}

/// Regression: without a sandbox, a copied script run while other threads start programs failed
/// now and then with "Text file busy" (5 games of 512 forfeited in a two-thread match).
#[test]
fn a_copied_program_starts_while_other_threads_start_theirs() {
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("player.sh");
    std::fs::write(&script, "#!/bin/sh\necho 19\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let job = Job {
        command: vec![Word::copy(&script)],
        env: Vec::new(),
    };
    for isolation in both() {
        let failures: usize = thread::scope(|scope| {
            let runs: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        (0..60)
                            .filter(|_| run(&job, &quick(isolation.clone())).ending != Ending::Exited(0))
                            .count()
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).sum()
        });
        assert_eq!(
            failures, 0,
            "{isolation:?}: runs that did not start or end well, of 480"
        );
    }
}
