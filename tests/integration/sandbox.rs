//! The sandbox's edges through the binary: a kernel without user namespaces gets a clear refusal,
//! `--no-sandbox` runs and says in every report that nothing was isolated, and a grader stopped by
//! SIGTERM or killed by SIGKILL takes every sandbox with it and keeps what it had finished.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn othello_binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("othello")
}

/// Cases and a class holding the honest student, and a student of ours when given.
fn class(dir: &Path, other: Option<(&str, &str)>) -> (PathBuf, PathBuf) {
    let (cases, class) = (dir.join("cases"), dir.join("class"));
    std::fs::create_dir(&class).unwrap();
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py");
    std::fs::copy(reference, class.join("honest.py")).unwrap();
    if let Some((name, source)) = other {
        std::fs::write(class.join(format!("{name}.py")), source).unwrap();
    }
    common::othello(["cases", "--count", "3", "--seed", "2"])
        .arg(&cases)
        .assert()
        .success();
    (cases, class)
}

/// A command run in a user namespace of its own whose root allows no user namespace below it: a
/// kernel where they are turned off, as far as the command can tell.
fn without_user_namespaces(args: &[&str]) -> Command {
    let mut command = Command::new("unshare");
    command
        .args([
            "-U",
            "-r",
            "sh",
            "-c",
            "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"",
        ])
        .arg(othello_binary())
        .args(args);
    command
}

#[test]
fn without_user_namespaces_the_sandbox_is_refused_with_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, class) = class(dir.path(), None);
    let (cases, class) = (cases.to_str().unwrap(), class.to_str().unwrap());
    let player = format!("argv:python3 {}", dir.path().join("class/honest.py").display());
    for args in [
        vec!["grade", cases, "--class", class, "--run", "python3 {}"],
        vec!["lab4", &player, "--games", "1"],
    ] {
        let output = without_user_namespaces(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(output.stdout, b"", "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains("user.max_user_namespaces is 0"), "{stderr}");
        assert!(stderr.contains("--no-sandbox"), "{stderr}");
    }
    // With --no-sandbox the same machine grades, and says the runs were not isolated.
    let output = without_user_namespaces(&["grade", cases, "--class", class, "--run", "python3 {}", "--no-sandbox"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("NOT ISOLATED"));
}

/// A container's /proc has paths masked by other mounts (Docker's and Podman's default: /dev/null on
/// /proc/timer_list, /proc/kcore, ...), and the kernel then lets no namespace below mount a /proc
/// of its own: the sandbox cannot start, and the one line says why and what lifts it.
#[test]
fn a_container_s_masked_proc_is_named_as_what_stops_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, class) = class(dir.path(), None);
    assert!(
        Path::new("/proc/timer_list").exists(),
        "the test masks /proc/timer_list, as Docker does"
    );
    let output = Command::new("unshare")
        .args(["-U", "-r", "-m", "sh", "-c"])
        .arg("mount --bind /dev/null /proc/timer_list && exec \"$0\" \"$@\"")
        .arg(othello_binary())
        .arg("grade")
        .arg(&cases)
        // As root of its own namespace only, it may make no control group: as in a container.
        .args(["--per-process-limits", "--", "python3"])
        .arg(class.join("honest.py"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("could not mount /proc")
            && stderr.contains("masked paths")
            && stderr.contains("systempaths=unconfined"),
        "{stderr}"
    );
}

#[test]
fn every_report_says_when_the_runs_were_not_isolated() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, class) = class(dir.path(), None);
    let (json, csv, html) = (
        dir.path().join("r.jsonl"),
        dir.path().join("g.csv"),
        dir.path().join("r.html"),
    );
    for (flag, isolated) in [(None, true), (Some("--no-sandbox"), false)] {
        let output = common::othello(["grade"])
            .arg(&cases)
            .arg("--class")
            .arg(&class)
            .args(["--run", "python3 {}", "--json"])
            .arg(&json)
            .arg("--csv")
            .arg(&csv)
            .arg("--html")
            .arg(&html)
            .args(flag)
            .output()
            .unwrap();
        assert!(output.status.success());
        let text = String::from_utf8_lossy(&output.stdout);
        let summary: serde_json::Value = std::fs::read_to_string(&json)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|o| o["type"] == "summary")
            .unwrap();
        let csv = std::fs::read_to_string(&csv).unwrap();
        let html = std::fs::read_to_string(&html).unwrap();
        assert_eq!(summary["isolated"], isolated);
        assert_eq!(text.contains("NOT ISOLATED"), !isolated, "{text}");
        assert_eq!(html.contains("NOT ISOLATED"), !isolated);
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .ends_with(if isolated { ",yes" } else { ",no" }),
            "{csv}"
        );
        // CPU time is measured in the sandbox only.
        assert_eq!(summary["cpu_seconds"].is_number(), isolated, "{summary}");
    }
}

/// Grades the honest student and one that hangs (asleep, its own sleep beside it), waits for the
/// honest student's summary, then sends `signal` to the grader.
fn stop_grading(signal: i32, tag: &str) -> (PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let hangs = format!("import subprocess, time\nsubprocess.Popen(['sleep', '{tag}'])\ntime.sleep(600)\n");
    let (cases, class) = class(dir.path(), Some(("sleeper", &hangs)));
    let json = dir.path().join("r.jsonl");
    let mut grader = common::Running(
        common::dies_with_test(Command::new(othello_binary()))
            .arg("grade")
            .arg(&cases)
            .arg("--class")
            .arg(&class)
            .args(["--run", "python3 {}", "--timeout", "60", "--json"])
            .arg(&json)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&json).is_ok_and(|t| t.contains("\"type\":\"summary\"")) {
        assert!(Instant::now() < deadline, "the honest student was graded");
        std::thread::sleep(Duration::from_millis(50));
    }
    while common::processes_with(tag).is_empty() {
        assert!(Instant::now() < deadline, "the hanging student started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: kill takes plain integers; the grader is our child, not yet reaped.
    unsafe { libc::kill(grader.id() as i32, signal) };
    let status = grader.wait().unwrap();
    assert!(!status.success());
    (json, dir)
}

#[test]
fn sigterm_during_grading_ends_every_sandbox_and_keeps_what_was_finished() {
    let tag = format!("1{}.4142", std::process::id() % 10_000);
    let (json, _dir) = stop_grading(libc::SIGTERM, &tag);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        common::processes_with(&tag),
        Vec::<String>::new(),
        "nothing of the run is left"
    );
    let text = std::fs::read_to_string(&json).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4, "the honest student's three cases and summary: {text}");
}

#[test]
fn a_sigkilled_grader_takes_its_sandboxes_with_it() {
    let tag = format!("2{}.7182", std::process::id() % 10_000);
    let _ = stop_grading(libc::SIGKILL, &tag);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !common::processes_with(&tag).is_empty() {
        assert!(Instant::now() < deadline, "the sandboxes died with the grader");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_during_lab4_match_or_tournament_leaves_no_player_running() {
    let dir = tempfile::tempdir().unwrap();
    for (number, command) in ["lab4", "match", "tournament"].iter().enumerate() {
        let tag = format!("3{number}{}.1732", std::process::id() % 10_000);
        // A player that starts a process of its own when imported, then takes its time.
        let player = dir.path().join(format!("{command}_player.py"));
        std::fs::write(
            &player,
            format!(
                "import subprocess, time\nsubprocess.Popen(['sleep', '{tag}'])\ndef quickMove(board, token):\n    time.sleep(0.05)\n    return [s for s in range(64) if board[s] == '.'][0]\n"
            ),
        )
        .unwrap();
        let spec = format!("quickmove:{}", player.display());
        let mut args = vec![command.to_string(), spec];
        args.extend(match *command {
            "lab4" => vec!["--games".to_string(), "50".to_string(), "--forfeit".to_string()],
            "match" => vec!["random".to_string(), "--games".to_string(), "50".to_string()],
            _ => vec![
                "random".to_string(),
                "greedy".to_string(),
                "--rounds".to_string(),
                "20".to_string(),
            ],
        });
        let mut running = common::Running(
            common::dies_with_test(Command::new(othello_binary()))
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        while common::processes_with(&tag).is_empty() {
            assert!(Instant::now() < deadline, "{command}: the player started");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: kill takes plain integers; the command is our child, not yet reaped.
        unsafe { libc::kill(running.id() as i32, libc::SIGTERM) };
        assert!(!running.wait().unwrap().success(), "{command}");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !common::processes_with(&tag).is_empty() {
            assert!(Instant::now() < deadline, "{command}: the player's processes ended");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn a_test_child_dies_with_its_test_however_the_test_ends() {
    // A test that fails between spawning and killing its child: the thread ends by a panic.
    let started = std::thread::spawn(|| {
        let child = common::othello_std()
            .args(["match", "random", "random", "--games", "4000000000", "--threads", "1"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id() as libc::pid_t;
        std::mem::forget(child);
        std::panic::panic_any(pid);
    })
    .join();
    let pid = *started.unwrap_err().downcast::<libc::pid_t>().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let mut status = 0;
        // SAFETY: waitpid on our own child, with a valid pointer.
        if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
            assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the match outlived its test");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    // A guard that goes out of scope kills and reaps its child.
    let pid = {
        let running = common::spawn(
            common::othello_std()
                .args(["match", "random", "random", "--games", "4000000000"])
                .stdout(std::process::Stdio::null()),
        );
        running.id() as libc::pid_t
    };
    // SAFETY: kill with signal 0 only asks whether the process exists.
    assert_eq!(unsafe { libc::kill(pid, 0) }, -1, "reaped and gone");
}

/// A program reached through a linked folder, or that is itself a link (a class folder of links to
/// the students' files), is copied as the file the link points to: inside the sandbox the host's
/// files are under another root, where an absolute link points nowhere.
#[test]
fn a_program_reached_through_links_runs_as_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let player = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/players/quickmove_player.py");
    std::fs::copy(&player, real.join("player.py")).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(real.join("player.py"), dir.path().join("link.py")).unwrap();
    for path in ["linked/player.py", "link.py"] {
        let output = common::othello(["lab4", &format!("quickmove:{path}"), "--games", "2"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
