//! The sandbox's edges, attacked as a hostile class would: a student's file that would run on the
//! host, copies through links, a whole class folder handed to each student, floods, memory outside
//! any process, processes busy between moves, hidden children, what a report shows of students'
//! names and words. Each hostile student or player plays beside an honest one, whose verdicts stay
//! right; each test is named after what it stops.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use common::FIRST_LEGAL;

/// A quickmove player's Python file that plays the first legal move.
fn quickmove_source() -> String {
    format!("{FIRST_LEGAL}\ndef quickMove(board, token):\n    return first_legal(board, token)\n")
}

/// `DIR/class`, holding the course's reference program as `honest.py`.
fn class_with_honest(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py");
    std::fs::copy(reference, class.join("honest.py")).unwrap();
    class
}

/// `lab4 --class CLASS --form FORM --run RUN --games 2 --move-time 5 --json`: its output.
fn lab4_class(class: &Path, form: &str, run: &str) -> std::process::Output {
    common::othello(["lab4", "--class"])
        .arg(class)
        .args([
            "--form",
            form,
            "--run",
            run,
            "--games",
            "2",
            "--move-time",
            "5",
            "--json",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap()
}

/// A match of the quickmove player `player` against random, logged: the log's path.
fn logged_match(dir: &Path, player: &Path, games: u32) -> PathBuf {
    let log = dir.join("games.jsonl");
    common::othello(["match", &format!("quickmove:{}", player.display()), "random", "--games"])
        .arg(games.to_string())
        .arg("--log")
        .arg(&log)
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    log
}

/// An executable Python script at `path` (an argv player: `BOARD TOKEN` in, a move out) that first
/// appends its arguments to `marker` if it can: only on the host can it reach that file.
fn argv_player(path: &Path, marker: &Path) {
    let source = format!(
        "#!/usr/bin/env python3\nimport sys\n{FIRST_LEGAL}\ntry:\n    open({:?}, 'a').write(repr(sys.argv) + '\\n')\nexcept OSError:\n    pass\nif len(sys.argv) == 3 and len(sys.argv[1]) == 64:\n    print(first_legal(sys.argv[1], sys.argv[2]))\nelse:\n    print(sys.executable)\n",
        marker.display().to_string()
    );
    std::fs::write(path, source).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// What reached the host's marker file (nothing, when every run stayed in its sandbox).
fn reached(marker: &Path) -> String {
    std::fs::read_to_string(marker).unwrap_or_default()
}

/// The JSON Lines of a command's stdout.
fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// A class folder of argv players: `honest` and one whose file is named `python3` (as `python`
/// and `python3.12` would be); the marker each appends to when it runs outside a sandbox.
fn class_with_a_python3(dir: &Path) -> (PathBuf, PathBuf) {
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    let marker = dir.join("reached-the-host.txt");
    argv_player(&class.join("honest"), &marker);
    argv_player(&class.join("python3"), &marker);
    (class, marker)
}

/// A file named `python3` was taken for the interpreter and run on the host, as the teacher, to
/// ask where it is installed: in `lab4 --class`, `tournament --class`, `match argv:PATH` and
/// `grade -- PATH` it is now a student's program, run in the sandbox like any other.
#[test]
fn a_students_file_named_python3_is_never_run_on_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let (class, marker) = class_with_a_python3(dir.path());
    let output = lab4_class(&class, "argv", "{}");
    assert_eq!(reached(&marker), "", "lab4 --class ran a student's file on the host");
    let students = json_lines(&output.stdout);
    assert_eq!(students.len(), 2, "{}", String::from_utf8_lossy(&output.stderr));
    for student in &students {
        assert_eq!(student["played"], 2, "{student}");
        assert_eq!(student["forfeits"], 0, "{student}");
    }

    let output = common::othello(["tournament", "--class"])
        .arg(&class)
        .args([
            "--form",
            "argv",
            "--run",
            "{}",
            "--rounds",
            "1",
            "--move-time",
            "5",
            "--json",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(
        reached(&marker),
        "",
        "tournament --class ran a student's file on the host"
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["players"].as_array().unwrap().len(), 2, "{report}");

    let player = format!("argv:{}", class.join("python3").display());
    common::othello(["match", &player, "random", "--games", "2", "--move-time", "5"])
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    assert_eq!(reached(&marker), "", "match argv:PATH ran a student's file on the host");

    let cases = common::lab_cases(dir.path(), 1, 3);
    let output = common::othello(["grade"])
        .arg(&cases)
        .arg("--")
        .arg(class.join("python3"))
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(reached(&marker), "", "grade -- PATH ran a student's file on the host");
}

/// A quickmove class of two: `classmate` plays; `peek` plays too, but fails to import when it can
/// see a classmate's file beside its own.
fn peeking_class(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    let player = quickmove_source();
    std::fs::write(class.join("classmate.py"), &player).unwrap();
    let peek = format!(
        "import os\nseen = os.listdir(os.path.dirname(os.path.abspath(__file__)))\nif 'classmate.py' in seen:\n    raise ImportError('saw a classmate: ' + ' '.join(sorted(seen)))\n{player}"
    );
    std::fs::write(class.join("peek.py"), peek).unwrap();
    class
}

/// `--whole-folder` gave each class member a copy of the whole class folder, classmates' files
/// and all, in `lab4 --class` and `tournament --class`: it is refused there, and without it each
/// student sees only their own file.
#[test]
fn whole_folder_with_a_class_is_refused_and_each_student_sees_only_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let class = peeking_class(dir.path());
    for (command, count) in [("lab4", "--games"), ("tournament", "--rounds")] {
        let output = common::othello([command, "--class"])
            .arg(&class)
            .args(["--form", "quickmove", count, "1", "--whole-folder"])
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
        assert!(stderr.contains("--whole-folder"), "{command}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{command}: {stderr}");
    }
    let output = lab4_class(&class, "quickmove", "python3 {}");
    let students = json_lines(&output.stdout);
    assert_eq!(students.len(), 2);
    for student in &students {
        assert_eq!(student["played"], 2, "{student}");
    }
}

/// A class folder holding the course's reference program as `honest.py`, and a folder outside it
/// with the teacher's secret (as `~/.ssh/id_rsa` or `/etc/shadow` would be): (class, secrets).
fn class_beside_a_secret(dir: &Path) -> (PathBuf, PathBuf) {
    let class = class_with_honest(dir);
    let secrets = dir.join("teacher");
    std::fs::create_dir(&secrets).unwrap();
    std::fs::write(secrets.join("secret.txt"), "TEACHER-SECRET-7731\n").unwrap();
    (class, secrets)
}

/// `grade --class` of a class with `--timeout 5` (unless `extra` gives one), JSON and CSV to files: (exit status, stdout, the
/// JSON objects, every report's text together).
fn grade_class(dir: &Path, class: &Path, cases: &Path, extra: &[&str]) -> (i32, String, Vec<Value>, String) {
    let json = dir.join("grades.jsonl");
    let csv = dir.join("grades.csv");
    let output = common::othello(["grade"])
        .arg(cases)
        .arg("--class")
        .arg(class)
        .args(["--run", "python3 {}", "--jobs", "2", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .args(if extra.contains(&"--timeout") {
            &[][..]
        } else {
            &["--timeout", "5"][..]
        })
        .args(extra)
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let json_text = std::fs::read_to_string(&json).unwrap_or_default();
    let objects = json_lines(json_text.as_bytes());
    let all = format!(
        "{stdout}{}{json_text}{}",
        String::from_utf8_lossy(&output.stderr),
        std::fs::read_to_string(&csv).unwrap_or_default()
    );
    (output.status.code().unwrap_or(-1), stdout, objects, all)
}

/// A class entry that was a link to a file outside the class folder was copied for the student,
/// and Python's traceback put its first line in every report: it is refused, named, and its
/// target never read.
#[test]
fn a_class_entry_linked_to_outside_the_class_is_refused_and_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let (class, secrets) = class_beside_a_secret(dir.path());
    std::os::unix::fs::symlink(secrets.join("secret.txt"), class.join("thief.py")).unwrap();
    let cases = common::lab_cases(dir.path(), 2, 5);
    let (status, stdout, objects, all) = grade_class(dir.path(), &class, &cases, &[]);
    assert_eq!(status, 1, "{stdout}");
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"; 2], "{stdout}");
    assert_eq!(common::verdicts(&objects, "thief"), ["crash"; 2], "{stdout}");
    assert!(!all.contains("TEACHER-SECRET"), "the secret reached a report: {all}");
    assert!(
        stdout.contains("thief.py is a link to") && stdout.contains("outside the class folder"),
        "{stdout}"
    );
    // lab4 and tournament leave it out the same way.
    let output = lab4_class(&class, "strategy", "python3 {}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("TEACHER-SECRET"), "{text}");
    let thief = json_lines(&output.stdout)
        .into_iter()
        .find(|s| s["student"] == "thief")
        .unwrap();
    assert!(
        thief["could_not_play"]
            .as_str()
            .unwrap()
            .contains("outside the class folder"),
        "{thief}"
    );
}

/// As root, a student's folder holding a hard link to a file only root may read (made by anyone
/// who could, as `/etc/shadow`'s) gave that file to the student: a root grader reads each entry
/// with its owner's rights, and the honest student beside it, owned alike, is graded as before.
#[test]
fn a_root_grader_copies_an_entry_with_its_owners_rights() {
    // SAFETY: geteuid only reads.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not run: only a root grader reads files its students' owner may not");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (class, secrets) = class_beside_a_secret(dir.path());
    let linker = class.join("linker");
    std::fs::create_dir(&linker).unwrap();
    std::fs::write(
        linker.join("__main__.py"),
        "import os, sys\nsys.exit(open(os.path.join(os.path.dirname(__file__), 'key')).read())\n",
    )
    .unwrap();
    std::fs::hard_link(secrets.join("secret.txt"), linker.join("key")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(secrets.join("secret.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    // The class is a teacher's (uid 1000); the linked file stays root's.
    for path in [&class, &class.join("honest.py"), &linker, &linker.join("__main__.py")] {
        std::os::unix::fs::chown(path, Some(1000), Some(1000)).unwrap();
    }
    let cases = common::lab_cases(dir.path(), 2, 5);
    let (status, stdout, objects, all) = grade_class(dir.path(), &class, &cases, &[]);
    assert!(!all.contains("TEACHER-SECRET"), "the secret reached a report: {all}");
    assert_eq!(status, 1, "{all}");
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"; 2], "{all}");
    assert_eq!(common::verdicts(&objects, "linker"), ["crash"; 2], "{all}");
    assert!(stdout.contains("Permission denied"), "{stdout}");
}

/// One student's folder too large to copy made the whole class run exit 2 with no grade for
/// anyone: that student alone is refused, the others graded.
#[test]
fn a_class_member_too_large_to_copy_is_refused_alone() {
    let dir = tempfile::tempdir().unwrap();
    let class = class_with_honest(dir.path());
    let hoarder = class.join("hoarder");
    std::fs::create_dir(&hoarder).unwrap();
    std::fs::copy(class.join("honest.py"), hoarder.join("__main__.py")).unwrap();
    std::fs::File::create(hoarder.join("blob"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let cases = common::lab_cases(dir.path(), 2, 5);
    let (status, stdout, objects, all) = grade_class(dir.path(), &class, &cases, &[]);
    assert_eq!(status, 1, "{all}");
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"; 2], "{all}");
    assert_eq!(common::verdicts(&objects, "hoarder"), ["crash"; 2], "{all}");
    assert!(stdout.contains("too large to copy"), "{stdout}");
}

/// Exchanges two paths (a folder or file and a link) as fast as the kernel allows, until told to
/// stop: the number of exchanges.
fn keep_exchanging(
    a: PathBuf,
    b: PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
        let (a, b) = (c(&a), c(&b));
        let mut swaps = 0u64;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            // SAFETY: renameat2 on two C strings that outlive the call.
            let done = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    a.as_ptr(),
                    libc::AT_FDCWD,
                    b.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            };
            assert_eq!(done, 0, "{}", std::io::Error::last_os_error());
            swaps += 1;
        }
        swaps
    })
}

/// Two students swapping what they handed in for links while it was copied: `racer`'s sub-folder
/// for a link to the teacher's folder (a root-only file reached the student in 16 runs of 300),
/// `leak.py` itself for a link to the teacher's file (each run followed the link again, and
/// Python's traceback printed the file's first line). Every copy opens each component without
/// following a link, from the path resolved once: a swap gives them nothing.
#[test]
fn entries_swapped_for_links_during_the_copies_give_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (class, secrets) = class_beside_a_secret(dir.path());
    let racer = class.join("racer");
    std::fs::create_dir_all(racer.join("sub")).unwrap();
    std::fs::write(racer.join("sub/harmless.txt"), "nothing here\n").unwrap();
    std::fs::write(
        racer.join("__main__.py"),
        "import os, sys\nfor root, _, files in os.walk(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'sub')):\n    for name in files:\n        sys.stderr.write(open(os.path.join(root, name)).read())\nsys.exit(1)\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&secrets, racer.join("swap")).unwrap();
    std::fs::write(class.join("leak.py"), "import sys\nsys.exit(1)\n").unwrap();
    // Hidden from the class listing (a dot), exchanged with leak.py.
    std::os::unix::fs::symlink(secrets.join("secret.txt"), class.join(".swap")).unwrap();
    let cases = common::lab_cases(dir.path(), 40, 9);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swappers = [
        keep_exchanging(racer.join("sub"), racer.join("swap"), stop.clone()),
        keep_exchanging(class.join("leak.py"), class.join(".swap"), stop.clone()),
    ];
    let (status, stdout, objects, all) = grade_class(dir.path(), &class, &cases, &[]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for swapper in swappers {
        let swaps = swapper.join().unwrap();
        assert!(swaps > 1000, "swapped only {swaps} times: {all}");
    }
    assert_eq!(status, 1, "{all}");
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"; 40], "{stdout}");
    assert_eq!(common::verdicts(&objects, "racer").len(), 40);
    assert_eq!(common::verdicts(&objects, "leak").len(), 40);
    assert!(!all.contains("TEACHER-SECRET"), "the teacher's file reached a student");
}

/// A student's folder of a few bytes when it was sized, grown (or sparse: 1 GB that takes no
/// disk) by the time of its copy, was copied whole for every run: 80 cases took 95 s instead of 3,
/// and memory with them. Copies stop at their budget, and the run says why.
#[test]
fn copies_stop_at_their_budget_however_large_the_entry_has_become() {
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("bot");
    std::fs::create_dir(&bot).unwrap();
    std::fs::write(
        bot.join("__main__.py"),
        format!("import sys\n{FIRST_LEGAL}\nprint(first_legal(sys.argv[1], sys.argv[2]))\n"),
    )
    .unwrap();
    let blob = std::fs::File::create(bot.join("blob")).unwrap();
    blob.set_len(1 << 30).unwrap();
    let player = format!("argv:python3 {}", bot.display());
    let started = std::time::Instant::now();
    let output = common::othello(["lab4", &player, "--games", "2", "--move-time", "5", "--json"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("no report: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(output.status.code(), Some(1), "{report}");
    let text = report.to_string();
    assert!(text.contains("more than 64 MiB to copy"), "{report}");
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    // The same folder without its blob plays.
    std::fs::remove_file(bot.join("blob")).unwrap();
    let output = common::othello(["lab4", &player, "--games", "2", "--move-time", "5", "--json"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (&report["played"], &report["forfeits"]),
        (&2.into(), &0.into()),
        "{report}"
    );
}

/// Runs `command` to its end, reading the resident memory of its process every 20 ms: (its
/// output, the most resident memory seen, in bytes).
fn peak_memory(mut command: std::process::Command) -> (std::process::Output, u64) {
    use std::io::Read as _;
    let mut child = common::spawn(
        command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
    );
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        out.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        err.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "it did not end");
        let resident = std::fs::read_to_string(&status_file)
            .unwrap_or_default()
            .lines()
            .find_map(|l| {
                l.strip_prefix("VmRSS:")
                    .map(|v| v.trim().trim_end_matches(" kB").parse::<u64>().unwrap_or(0))
            })
            .unwrap_or(0);
        peak = peak.max(resident << 10);
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = std::process::Output {
        status,
        stdout: reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    };
    (output, peak)
}

/// A quickmove player that wrote its answers pipe without end, from a thread of its own while the
/// opponent thought, grew the moderator by 300 MB a second (a tournament was OOM-killed at 4 GiB):
/// what the moderator holds of a player's answers is bounded, and the flood ends the player with a
/// reason of its own. Beside it, an honest player against the same slow opponent.
#[test]
fn a_player_flooding_its_answers_is_ended_and_the_moderator_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let legal =
        format!("{FIRST_LEGAL}\ndef quickMove(board, token):\n    start()\n    return first_legal(board, token)\n");
    // From just after its first move on, a thread writes the answers' pipe: lines, or one line
    // without end.
    let flooder = |name: &str, line: &str| {
        let path = dir.path().join(name);
        let source = format!(
            "import __main__, threading, time\nline = {line}\ndef flood():\n    time.sleep(0.2)\n    while True:\n        __main__.answers.write(line)\n        __main__.answers.flush()\nstarted = []\ndef start():\n    if not started:\n        started.append(threading.Thread(target=flood, daemon=True))\n        started[0].start()\n{legal}"
        );
        std::fs::write(&path, source).unwrap();
        path
    };
    let lines = flooder("lines.py", "'move 19 ' + 'x' * 4000 + '\\n'");
    let endless = flooder("endless.py", "'x' * 65536");
    let honest = dir.path().join("honest.py");
    std::fs::write(&honest, legal.replace("    start()\n", "")).unwrap();
    // The opponent takes a second of wall time (little CPU time) a move.
    let slow = dir.path().join("slow.py");
    std::fs::write(
        &slow,
        legal.replace("    start()\n", "    import time\n    time.sleep(1)\n"),
    )
    .unwrap();
    let opponent = format!("quickmove:{}", slow.display());
    for (player, failure) in [
        (&lines, "flooded its answers"),
        (&endless, "flooded its answers"),
        (&honest, ""),
    ] {
        let mut command = common::othello_std();
        // The honest player needs no slow opponent: nothing of its own runs between its moves.
        let opponent = if failure.is_empty() {
            "random"
        } else {
            opponent.as_str()
        };
        command.args([
            "lab4",
            &format!("quickmove:{}", player.display()),
            "--opponent",
            opponent,
        ]);
        command.args(["--games", "1", "--game-time", "20", "--json"]);
        let (output, peak) = peak_memory(command);
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|_| panic!("no report: {}", String::from_utf8_lossy(&output.stderr)));
        assert!(
            peak < 64 << 20,
            "{}: the moderator grew to {} MB",
            player.display(),
            peak >> 20
        );
        if failure.is_empty() {
            assert_eq!(
                (&report["played"], &report["forfeits"]),
                (&1.into(), &0.into()),
                "{report}"
            );
        } else {
            assert_eq!(report["forfeits"], 1, "{report}");
            let text = report["ended_by"]["failure"].as_str().unwrap_or_default();
            assert!(text.contains(failure), "{}: {report}", player.display());
        }
    }
}

/// What a hostile student writes to reach the teacher's terminal, as a Python literal: a window
/// title (OSC 0), the clipboard (OSC 52), the cursor moved up and the line erased, and a forged
/// summary line over it.
const TERMINAL_TRICKS: &str = r"'\x1b]0;pwned\x07\x1b]52;c;cGF3bmVk\x07\x1b[1A\x1b[2K\rhonest: tolerant 9/9 FORGED'";

/// Whether a report for people holds a control character other than a line's end, or the forged
/// line at the start of a line.
fn unsafe_for_a_terminal(text: &str) -> Option<String> {
    if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\n') {
        return Some(format!("a control character {c:?}"));
    }
    text.lines()
        .find(|line| line.starts_with("honest: ") && line.contains("FORGED"))
        .map(|line| format!("a forged line: {line:?}"))
}

/// A class whose hostile members are named with terminal controls and a line break, and whose
/// stderr and exception messages carry the tricks, beside the honest reference.
fn terminal_class(dir: &Path) -> PathBuf {
    let class = class_with_honest(dir);
    let tricks = TERMINAL_TRICKS;
    // As a lab program it crashes with the tricks on stderr; as a quickmove player, its import does.
    let source = format!("import sys\nsys.stderr.write({tricks} + '\\n')\nraise ValueError({tricks})\n");
    std::fs::write(class.join("\x1b]0;title\x07\x1b[2Jeve.py"), &source).unwrap();
    std::fs::write(class.join("split\nhonest: tolerant 9 of 9 FORGED.py"), &source).unwrap();
    class
}

/// Terminal escapes in students' stderr, file names and import errors reached the teacher's
/// terminal raw in the text reports of grade, lab4, tournament and replay, and a line break in a
/// name split a report's line: every control character of theirs is shown escaped.
#[test]
fn students_text_reaches_the_terminal_escaped_in_every_report() {
    let dir = tempfile::tempdir().unwrap();
    let class = terminal_class(dir.path());
    let cases = common::lab_cases(dir.path(), 2, 5);
    let (status, stdout, objects, _) = grade_class(dir.path(), &class, &cases, &["--show", "5"]);
    assert_eq!(status, 1, "{stdout}");
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"; 2], "{stdout}");
    assert_eq!(unsafe_for_a_terminal(&stdout), None, "grade: {stdout}");
    assert!(
        stdout.contains("\\x1b]0;pwned\\x07"),
        "the tricks are shown escaped: {stdout}"
    );
    assert!(stdout.contains("split\\nhonest"), "{stdout}");
    for (command, count) in [("lab4", "--games"), ("tournament", "--rounds")] {
        let output = common::othello([command, "--class"])
            .arg(&class)
            .args(["--form", "quickmove", count, "1"])
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(unsafe_for_a_terminal(&text), None, "{command}: {text}");
        assert_eq!(unsafe_for_a_terminal(&stderr), None, "{command}: {stderr}");
        assert!(
            text.contains("eve") || stderr.contains("eve"),
            "{command}: {text}{stderr}"
        );
    }
    // A log whose player is named with the tricks, replayed.
    let player = dir.path().join(format!("{}.py", "\x1b[1A\x1b[2Kplayer"));
    std::fs::write(&player, quickmove_source()).unwrap();
    let log = logged_match(dir.path(), &player, 2);
    let output = common::othello(["replay"]).arg(&log).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert_eq!(unsafe_for_a_terminal(&text), None, "replay: {text}");
    assert!(text.contains("\\x1b[1A"), "{text}");
}

/// The cells of a CSV text (RFC 4180: quoted cells may hold commas, quotes and line breaks).
fn csv_cells(text: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted, mut chars) = (Vec::new(), String::new(), false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',' | '\n', false) => cells.push(std::mem::take(&mut cell)),
            (c, _) => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// A student named `=HYPERLINK(...)` (or `+`, `-`, `@` first) was a live formula in the grade,
/// lab4 and tournament gradebooks: such a cell starts with `'`, as OWASP's rule says.
#[test]
fn gradebook_cells_never_start_a_formula() {
    let dir = tempfile::tempdir().unwrap();
    // The same names twice: lab programs for grade, quickmove players for lab4 and tournament.
    let (class, players) = (dir.path().join("class"), dir.path().join("players"));
    std::fs::create_dir(&class).unwrap();
    std::fs::create_dir(&players).unwrap();
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py");
    let player = quickmove_source();
    for name in ["honest", "=HYPERLINK(\"x.example\",\"y\")", "+SUM(1,2)", "-2+3", "@cmd"] {
        std::fs::copy(&reference, class.join(format!("{name}.py"))).unwrap();
        std::fs::write(players.join(format!("{name}.py")), &player).unwrap();
    }
    let cases = common::lab_cases(dir.path(), 1, 5);
    let (status, stdout, objects, _) = grade_class(dir.path(), &class, &cases, &[]);
    assert_eq!(status, 0, "{stdout}");
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"]);
    let mut books = vec![std::fs::read_to_string(dir.path().join("grades.csv")).unwrap()];
    for (command, count) in [("lab4", "--games"), ("tournament", "--rounds")] {
        let output = common::othello([command, "--class"])
            .arg(&players)
            .args(["--form", "quickmove", count, "1", "--csv", "-"])
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        books.push(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    for (k, book) in books.iter().enumerate() {
        let cells = csv_cells(book);
        assert!(
            cells.iter().any(|c| c == "honest" || c.ends_with("/honest.py")),
            "{book}"
        );
        // The tournament names players by their files' paths, which start with the form.
        if k < 2 {
            assert!(cells.iter().any(|c| c.starts_with("'=HYPERLINK")), "{book}");
        }
        let live: Vec<&String> = cells.iter().filter(|c| c.starts_with(['=', '+', '-', '@'])).collect();
        assert!(live.is_empty(), "formulas {live:?} in {book}");
    }
}

/// A player named `<!--<script>.py` emptied the replay page (none of its games listed): the
/// page's data holds no `<`, `>` or `&`, and the page lists every game with the name as text.
#[test]
fn a_player_named_like_markup_leaves_the_replay_page_whole() {
    let dir = tempfile::tempdir().unwrap();
    let player = dir.path().join("<!--<script>.py");
    std::fs::write(&player, quickmove_source()).unwrap();
    let log = logged_match(dir.path(), &player, 3);
    let page = dir.path().join("page.html");
    common::othello(["replay"])
        .arg(&log)
        .arg("--html")
        .arg(&page)
        .assert()
        .success();
    let dom = common::rendered(&page);
    assert_eq!(dom.matches("<option").count(), 3, "every game is listed: {dom}");
    assert!(
        dom.contains("&lt;!--&lt;script&gt;"),
        "the name is shown as text: {dom}"
    );
}

/// Two graders writing one `--json` file interleaved their lines (3 broken lines of 82): the
/// second is refused, naming the first's process, and the first's lines are whole.
#[test]
fn a_second_grader_writing_the_same_json_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 3, 5);
    let busy = dir.path().join("busy.py");
    std::fs::write(
        &busy,
        "import time\nend = time.time() + 1\nwhile time.time() < end:\n    pass\n",
    )
    .unwrap();
    let json = dir.path().join("grades.jsonl");
    let grade = |json: &Path| {
        let mut command = common::othello_std();
        command
            .arg("grade")
            .arg(&cases)
            .args(["--timeout", "5", "--jobs", "1", "--json"])
            .arg(json)
            .arg("--")
            .arg("python3")
            .arg(&busy);
        command
    };
    let mut first = common::spawn(grade(&json).stdout(std::process::Stdio::null()));
    let started = std::time::Instant::now();
    while !std::fs::read_to_string("/proc/locks")
        .unwrap()
        .contains(&format!(" {} ", first.id()))
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the first grader took no lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = grade(&json).output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("pid {}", first.id())), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(first.wait().unwrap().code(), Some(1));
    let text = std::fs::read_to_string(&json).unwrap();
    let objects = json_lines(text.as_bytes());
    assert_eq!(objects.iter().filter(|o| o["type"] == "case").count(), 3, "{text}");
}

/// `cases --replace` stopped by SIGTERM or SIGHUP left its staging folder beside the set (23-29
/// thousand files): it goes with the run, and the old set stays whole.
#[test]
fn cases_stopped_by_a_signal_leave_no_staging_folder() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 3, 1);
    let before = std::fs::read_dir(&cases).unwrap().count();
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        let mut command = common::othello_std();
        command.args(["cases", "--count", "100000", "--replace"]).arg(&cases);
        let running = common::spawn(command.stdout(std::process::Stdio::null()));
        // Until the staging folder holds some cases.
        let started = std::time::Instant::now();
        let staged = || {
            std::fs::read_dir(dir.path())
                .unwrap()
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with(".othello-cases-"))
                .map(|e| e.path())
                .collect::<Vec<_>>()
        };
        while !staged()
            .iter()
            .any(|s| std::fs::read_dir(s).map_or(0, Iterator::count) > 100)
        {
            assert!(started.elapsed() < Duration::from_secs(60), "no staging folder");
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: kill takes plain integers; the child is ours and not reaped yet.
        unsafe { libc::kill(running.id() as libc::pid_t, signal) };
        let mut running = running;
        let status = running.wait().unwrap();
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(signal));
        assert_eq!(staged(), Vec::<PathBuf>::new(), "signal {signal}");
        assert_eq!(std::fs::read_dir(&cases).unwrap().count(), before, "the old set stays");
    }
}

/// An honest student whose file's name is not UTF-8 (`Jos\xe9.py`, as zips made on Windows unpack)
/// got 0: a crash in grade, "could not play" in lab4, left out of a tournament. Names stay bytes
/// from the class listing to the run, and reports show them escaped.
#[test]
fn a_name_that_is_not_utf8_is_graded_like_any_other() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let latin1 = std::ffi::OsStr::from_bytes(b"Jos\xe9.py");
    let (class, players) = (dir.path().join("class"), dir.path().join("players"));
    std::fs::create_dir(&class).unwrap();
    std::fs::create_dir(&players).unwrap();
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py");
    let player = quickmove_source();
    for name in [latin1, std::ffi::OsStr::new("ascii.py")] {
        std::fs::copy(&reference, class.join(name)).unwrap();
        std::fs::write(players.join(name), &player).unwrap();
    }
    let cases = common::lab_cases(dir.path(), 2, 5);
    let (status, stdout, objects, _) = grade_class(dir.path(), &class, &cases, &[]);
    assert_eq!(status, 0, "{stdout}");
    assert_eq!(common::verdicts(&objects, "ascii"), ["pass"; 2], "{stdout}");
    assert_eq!(common::verdicts(&objects, "Jos\\xe9"), ["pass"; 2], "{stdout}");
    for form in ["quickmove", "strategy"] {
        let source = if form == "quickmove" {
            player.clone()
        } else {
            format!(
                "{FIRST_LEGAL}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        best_move.value = first_legal(board, player)\n"
            )
        };
        for name in [latin1, std::ffi::OsStr::new("ascii.py")] {
            std::fs::write(players.join(name), &source).unwrap();
        }
        let output = lab4_class(&players, form, "python3 {}");
        let students = json_lines(&output.stdout);
        assert_eq!(students.len(), 2, "{}", String::from_utf8_lossy(&output.stderr));
        for student in &students {
            assert_eq!(
                (&student["played"], &student["forfeits"]),
                (&2.into(), &0.into()),
                "{form}: {student}"
            );
        }
        assert!(students.iter().any(|s| s["student"] == "Jos\\xe9"), "{students:?}");
    }
    let output = common::othello(["tournament", "--class"])
        .arg(&players)
        .args(["--form", "strategy", "--rounds", "1", "--move-time", "5", "--json"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(report["players"].as_array().unwrap().len(), 2, "{report}");
    assert_eq!(report["left_out"].as_array().map_or(0, Vec::len), 0, "{report}");
    // An argv class, through the template.
    let argv = dir.path().join("argv");
    std::fs::create_dir(&argv).unwrap();
    argv_player(&argv.join(latin1), &dir.path().join("unused-marker"));
    let output = lab4_class(&argv, "argv", "python3 {}");
    let students = json_lines(&output.stdout);
    assert_eq!(
        (&students[0]["played"], &students[0]["forfeits"]),
        (&2.into(), &0.into()),
        "{}",
        students[0]
    );
}

/// A virtual environment with an editable install of the course's tools (a `.pth` file naming
/// the course's folder) showed that folder to every student, and a student read the answer key:
/// a run sees only its interpreter's own folders, and the teacher is told what was left out.
#[test]
fn a_folder_a_pth_file_puts_on_the_module_path_is_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let course = dir.path().join("course");
    std::fs::create_dir(&course).unwrap();
    std::fs::write(course.join("answers.txt"), "ANSWER-KEY-4242\n").unwrap();
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("site-packages");
    std::fs::write(site.join("course_tools.pth"), format!("{}\n", course.display())).unwrap();
    let class = class_with_honest(dir.path());
    std::fs::write(
        class.join("cheat.py"),
        "import os, sys\nfor folder in sys.path:\n    try:\n        sys.stderr.write(open(os.path.join(folder, 'answers.txt')).read())\n    except OSError:\n        pass\nsys.exit(1)\n",
    )
    .unwrap();
    let cases = common::lab_cases(dir.path(), 2, 5);
    let run = format!("{} {{}}", venv.join("bin/python3").display());
    let json = dir.path().join("grades.jsonl");
    let output = common::othello(["grade"])
        .arg(&cases)
        .arg("--class")
        .arg(&class)
        .args(["--run", &run, "--timeout", "5", "--json"])
        .arg(&json)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    let text = std::fs::read_to_string(&json).unwrap();
    let objects = json_lines(text.as_bytes());
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"; 2], "{stdout}{stderr}");
    assert_eq!(common::verdicts(&objects, "cheat"), ["crash"; 2], "{stdout}");
    assert!(
        !format!("{stdout}{text}").contains("ANSWER-KEY"),
        "the answer key reached a student"
    );
    let course = std::fs::canonicalize(&course).unwrap();
    assert!(
        stderr.contains(&format!("{} is on", course.display())) && stderr.contains("not shown it"),
        "{stderr}"
    );
}

/// `grade --class` of the reference as `honest.py` beside one hostile student (its Python source),
/// 2 cases: (exit status, stdout, the hostile student's case objects); the honest one passes.
fn graded_beside_honest(name: &str, source: &str, extra: &[&str]) -> (i32, String, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let class = class_with_honest(dir.path());
    std::fs::write(class.join(format!("{name}.py")), source).unwrap();
    let cases = common::lab_cases(dir.path(), 2, 5);
    let (status, stdout, objects, _) = grade_class(dir.path(), &class, &cases, extra);
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"; 2], "{stdout}");
    let hostile = objects
        .into_iter()
        .filter(|o| o["type"] == "case" && o["program"] == name)
        .collect();
    (status, stdout, hostile)
}

/// Memory no process holds: 400 MB written into a `memfd_create` file passed a per-process limit
/// of 200 MB (the audit's 2.5 GB under 1 GB), and so would a tmpfs mounted in a user namespace of
/// the program's own. The run's control group counts it, and its own counter gives the verdict;
/// no user namespace can be made inside.
#[test]
fn memory_outside_any_process_counts_and_no_namespace_can_be_made_inside() {
    // Files of 8 MiB each, under the file size limit, 50 of them.
    let memfd = "import os, sys\nchunk = b'x' * (1 << 20)\nfds = []\nfor _ in range(50):\n    fds.append(os.memfd_create('hoard'))\n    for _ in range(8):\n        os.write(fds[-1], chunk)\nsys.stderr.write('hoarded 400 MiB\\n')\n";
    let (_, stdout, cases) = graded_beside_honest("hoard", memfd, &["--memory-limit", "200M"]);
    for case in &cases {
        assert_eq!(case["verdict"], "limit", "{stdout}");
        assert_eq!(case["ending"], "memory limit 200 MB", "{case}");
    }
    let nested = "import subprocess, sys\nr = subprocess.run(['unshare', '-Urm', 'true'], capture_output=True)\nsys.stderr.write('unshare exit %d\\n' % r.returncode)\n";
    let (_, stdout, cases) = graded_beside_honest("nested", nested, &[]);
    for case in &cases {
        let tail = case["stderr_tail"].to_string();
        assert!(
            tail.contains("unshare exit 1"),
            "a user namespace was made inside: {tail} {stdout}"
        );
    }
}

/// A program that ignores SIGCHLD has its children reaped by the kernel, and their CPU time was
/// counted nowhere: 3.69 s of CPU measured as 0.48 s, passing `--timeout 1`. The run's CPU time
/// is its control group's: every process it ever had.
#[test]
fn cpu_time_of_children_nobody_reaps_is_counted() {
    let reference =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py")).unwrap();
    // Six children, one after another, burn 0.3 s of CPU each and are reaped by the kernel
    // (never more than 0.3 s alive at once); then it answers rightly.
    let hidden = format!(
        "import os, signal, time\nsignal.signal(signal.SIGCHLD, signal.SIG_IGN)\nfor _ in range(6):\n    pid = os.fork()\n    if pid == 0:\n        end = time.process_time() + 0.3\n        while time.process_time() < end:\n            pass\n        os._exit(0)\n    while True:\n        try:\n            os.kill(pid, 0)\n        except ProcessLookupError:\n            break\n        time.sleep(0.01)\n{reference}"
    );
    let (_, stdout, cases) = graded_beside_honest("hidden", &hidden, &["--timeout", "1"]);
    for case in &cases {
        assert_eq!(case["verdict"], "timeout", "{stdout}");
    }
}

/// A quickmove player whose 60 processes ran only while its opponent thought (each in a session
/// of its own, so that the scheduler's groups by session do not hold them back) made an honest
/// strategy player (wall-clock time, as the server measures it) forfeit every game: a player's
/// processes are frozen between its moves. The control: the same player without its helpers.
#[test]
fn a_players_processes_are_frozen_between_its_moves() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = dir.path().join("hostile.py");
    std::fs::write(
        &hostile,
        format!(
            "import mmap, os, time\n{FIRST_LEGAL}\nflag = mmap.mmap(-1, 1)\nstarted = []\ndef spin():\n    os.setsid()\n    while True:\n        if flag[0]:\n            for _ in range(10000):\n                pass\n        else:\n            time.sleep(0.001)\ndef quickMove(board, token):\n    flag[0] = 0\n    if not started:\n        started.append(1)\n        for _ in range(60):\n            if os.fork() == 0:\n                spin()\n    move = first_legal(board, token)\n    flag[0] = 1\n    return move\n"
        ),
    )
    .unwrap();
    let calm = dir.path().join("calm.py");
    std::fs::write(&calm, quickmove_source()).unwrap();
    // 0.1 s of CPU time a move, in 1 s of wall time: beside 60 busy processes on two cores it
    // would need about 3 s.
    let honest = dir.path().join("honest.py");
    std::fs::write(
        &honest,
        format!("import time\n{FIRST_LEGAL}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        end = time.process_time() + 0.1\n        while time.process_time() < end:\n            pass\n        best_move.value = first_legal(board, player)\n"),
    )
    .unwrap();
    for (opponent, what) in [(&hostile, "beside busy helpers"), (&calm, "the control")] {
        let log = dir.path().join("games.jsonl");
        let output = common::othello(["match"])
            .arg(format!("quickmove:{}", opponent.display()))
            .arg(format!("strategy:{}", honest.display()))
            .args(["--games", "1", "--move-time", "2=1", "--game-time", "1=30", "--log"])
            .arg(&log)
            .timeout(Duration::from_secs(300))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(
            !text.contains("time-out"),
            "{what}: the honest player timed out: {text}"
        );
    }
}

/// Where no control group can be had (here the cgroup file systems are hidden from othello in a
/// mount namespace of its own), the sandbox refuses in one line naming what is missing and the
/// command that gives it; `--per-process-limits` goes on without, and every report says so.
#[test]
fn without_control_groups_the_sandbox_refuses_or_goes_on_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 2, 5);
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py");
    let hidden = |extra: &str| {
        let script = format!(
            "mount -t tmpfs none /sys/fs/cgroup && exec \"$0\" grade {} --json - {extra} -- python3 {}",
            cases.display(),
            reference.display()
        );
        common::dies_with_test(std::process::Command::new("unshare"))
            .args(["-m", "sh", "-c", &script])
            .arg(common::othello_path())
            .output()
            .unwrap()
    };
    let refused = hidden("");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for part in [
        "no control group for the runs",
        "systemd-run --user --scope -p Delegate=yes",
        "--per-process-limits",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    let fallback = hidden("--per-process-limits");
    assert_eq!(
        fallback.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fallback.stderr)
    );
    let objects = json_lines(&fallback.stdout);
    let summary = objects.iter().find(|o| o["type"] == "summary").unwrap();
    assert!(
        summary["isolation"]
            .as_str()
            .unwrap()
            .contains("PER-PROCESS LIMITS ONLY"),
        "{summary}"
    );
}

/// Markup in students' names and words stays text in every HTML report (grade, lab4, tournament),
/// as Chromium renders them: no element of theirs appears in the page.
#[test]
fn markup_in_names_stays_text_in_every_html_report() {
    let dir = tempfile::tempdir().unwrap();
    let marked = "<img src=x onerror=alert(1)>";
    let class = class_with_honest(dir.path());
    // It crashes, printing more markup on stderr.
    let loud = "import sys\nsys.stderr.write('<script>document.title=\"PWNED\"</script>\\n')\nsys.exit(1)\n";
    std::fs::write(class.join(format!("{marked}.py")), loud).unwrap();
    let players = dir.path().join("players");
    std::fs::create_dir(&players).unwrap();
    for name in ["honest", marked] {
        std::fs::write(players.join(format!("{name}.py")), quickmove_source()).unwrap();
    }
    let cases = common::lab_cases(dir.path(), 1, 5);
    let pages = [
        dir.path().join("grade.html"),
        dir.path().join("lab4.html"),
        dir.path().join("tournament.html"),
    ];
    let (_, stdout, objects, _) = grade_class(dir.path(), &class, &cases, &["--html", pages[0].to_str().unwrap()]);
    assert_eq!(common::verdicts(&objects, "honest"), ["pass"], "{stdout}");
    for (command, count, page) in [("lab4", "--games", &pages[1]), ("tournament", "--rounds", &pages[2])] {
        common::othello([command, "--class"])
            .arg(&players)
            .args(["--form", "quickmove", count, "1", "--html"])
            .arg(page)
            .timeout(Duration::from_secs(120))
            .assert()
            .success();
    }
    for page in &pages {
        let dom = common::rendered(page);
        assert!(!dom.contains("<img"), "{}: {dom}", page.display());
        assert!(
            !dom.contains("<title>PWNED") && !dom.contains("<script>document"),
            "{}: {dom}",
            page.display()
        );
        assert!(
            dom.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{}: {dom}",
            page.display()
        );
    }
}
