//! Hostile students, each graded beside an honest one (the project's Python lab): a cheat reading the
//! grader's folders through /proc, a vandal, daemons, process-group escapes, fork bombs, memory and
//! disk hogs, floods, signals to the grader, forgers and a snoop. In every one the honest student
//! passes, the hostile one gets its own verdict, and nothing of theirs is left running or changed.
//! Then the same tricks from players (argv, quickmove, strategy) in lab4.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use common::FIRST_LEGAL;

/// A class of two (honest.py and the hostile student) and four cases.
struct Class {
    dir: tempfile::TempDir,
}

impl Class {
    fn new(name: &str, source: &str) -> Class {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        std::fs::create_dir(&class).unwrap();
        let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py");
        std::fs::copy(reference, class.join("honest.py")).unwrap();
        std::fs::write(class.join(format!("{name}.py")), source).unwrap();
        common::othello(["cases", "--count", "4", "--seed", "7"])
            .arg(dir.path().join("cases"))
            .assert()
            .success();
        Class { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `othello grade` of the class with the tolerant judge, 0.5 s of CPU time a case (a limit that
    /// holds on a busy machine), JSON and CSV to files: (exit status, the JSON objects, stdout).
    fn grade(&self, extra: &[&str]) -> (i32, Vec<Value>, String) {
        self.grade_within("0.5", extra)
    }

    fn grade_within(&self, timeout: &str, extra: &[&str]) -> (i32, Vec<Value>, String) {
        let output = common::othello(["grade"])
            .arg(self.path("cases"))
            .arg("--class")
            .arg(self.path("class"))
            .args(["--run", "python3 {}", "--timeout", timeout, "--jobs", "2", "--json"])
            .arg(self.path("grades.jsonl"))
            .arg("--csv")
            .arg(self.path("grades.csv"))
            .args(extra)
            .env("OTHELLO_TEST_SECRET", "hunter2-do-not-leak")
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        let text = std::fs::read_to_string(self.path("grades.jsonl")).unwrap();
        let objects = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (
            output.status.code().unwrap_or(-1),
            objects,
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    }
}

/// Each program's verdicts, case by case.
fn verdicts(objects: &[Value]) -> BTreeMap<String, Vec<String>> {
    let mut verdicts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for object in objects.iter().filter(|o| o["type"] == "case") {
        verdicts
            .entry(object["program"].as_str().unwrap().to_string())
            .or_default()
            .push(object["verdict"].as_str().unwrap().to_string());
    }
    verdicts
}

/// Grades the class and checks that the honest student passed every case; returns the hostile
/// student's verdicts, the JSON objects and stdout.
fn graded(class: &Class, hostile: &str, extra: &[&str]) -> (Vec<String>, Vec<Value>, String) {
    // Every case runs, however many time out: these are the runs under test.
    let extra = [extra, &["--max-timeouts", "0"]].concat();
    let (status, objects, stdout) = class.grade(&extra);
    assert_eq!(status, 1, "the hostile student does not pass: {stdout}");
    let verdicts = verdicts(&objects);
    assert_eq!(verdicts["honest"], ["pass"; 4], "{stdout}");
    (verdicts[hostile].clone(), objects, stdout)
}

/// Every file under a folder with its contents, to see that nothing changed.
fn snapshot(folder: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// A marker for a test's processes: a sleep of this many seconds is nobody else's.
fn marker(test: u32) -> String {
    format!("{test}{}.{:04}", 777, std::process::id() % 10_000)
}

#[test]
fn a_cheat_reading_the_graders_folders_through_proc_finds_nothing() {
    let cheat = r#"
import os, sys
args, found = sys.argv[1:], []
def look(folder):
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name.endswith('.args') and open(path).read().splitlines() == args:
                found.append(path[:-5] + '.out')
        except OSError:
            pass
ppid = os.getppid()
for link in ('cwd', 'root'):
    try:
        look(os.readlink('/proc/%d/%s' % (ppid, link)))
    except OSError:
        pass
try:
    for word in open('/proc/%d/cmdline' % ppid).read().split('\0'):
        look(word)
except OSError:
    pass
if found:
    sys.stdout.write(open(found[0]).read())
else:
    sys.stderr.write('found nothing\n')
"#;
    let class = Class::new("cheat", cheat);
    let (verdicts, objects, _) = graded(&class, "cheat", &[]);
    assert_eq!(verdicts, ["fail"; 4]);
    let tail = objects.iter().find(|o| o["program"] == "cheat").unwrap()["stderr_tail"].to_string();
    assert!(tail.contains("found nothing"), "{tail}");
    // Without the sandbox the same cheat gets full marks: the test has teeth. (Its limits are on the
    // wall clock then: a generous one.)
    let (status, objects, stdout) = class.grade_within("30", &["--no-sandbox"]);
    assert_eq!(status, 0, "{stdout}");
    assert_eq!(verdicts_of(&objects, "cheat"), ["pass"; 4], "{stdout}");
}

fn verdicts_of(objects: &[Value], program: &str) -> Vec<String> {
    verdicts(objects).remove(program).unwrap_or_default()
}

#[test]
fn a_vandal_changes_neither_the_cases_nor_the_class() {
    let vandal = |cases: &Path, class: &Path| {
        format!(
            r#"
import os
for folder in ({cases:?}, {class:?}):
    for root, dirs, files in os.walk(folder):
        for name in files:
            try:
                with open(os.path.join(root, name), 'w') as f:
                    f.write('vandalised\n')
            except OSError:
                pass
print('done')
"#
        )
    };
    // The vandal knows the folders' paths (its source names them).
    let class = Class::new("vandal", "");
    let source = vandal(&class.path("cases"), &class.path("class"));
    std::fs::write(class.path("class/vandal.py"), source).unwrap();
    let (cases_before, class_before) = (snapshot(&class.path("cases")), snapshot(&class.path("class")));
    let (verdicts, _, _) = graded(&class, "vandal", &[]);
    assert_eq!(verdicts, ["fail"; 4]);
    assert_eq!(snapshot(&class.path("cases")), cases_before, "the cases are unchanged");
    assert_eq!(snapshot(&class.path("class")), class_before, "the class is unchanged");
}

#[test]
fn a_daemon_and_a_late_forger_leave_nothing_running_and_the_gradebook_unchanged() {
    let tag = marker(1);
    let class = Class::new("daemon", "");
    let source = format!(
        r#"
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1)
        for path in ({grades:?}, {json:?}):
            try:
                with open(path, 'a') as f:
                    f.write('daemon,4,4,4,0,0,0,0,0.1,0.1,yes FORGED\n')
            except OSError:
                pass
        os.execvp('sleep', ['sleep', '{tag}'])
    os._exit(0)
print('nothing to see')
"#,
        grades = class.path("grades.csv"),
        json = class.path("grades.jsonl"),
    );
    std::fs::write(class.path("class/daemon.py"), source).unwrap();
    let (verdicts, _, _) = graded(&class, "daemon", &[]);
    assert_eq!(verdicts, ["fail"; 4]);
    let gradebook = std::fs::read(class.path("grades.csv")).unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(common::processes_with(&tag), Vec::<String>::new(), "no daemon left");
    assert_eq!(std::fs::read(class.path("grades.csv")).unwrap(), gradebook);
    assert!(
        !std::fs::read_to_string(class.path("grades.jsonl"))
            .unwrap()
            .contains("FORGED")
    );
}

#[test]
fn a_child_in_a_process_group_of_its_own_is_gone_with_the_run() {
    let tag = marker(2);
    let source = format!(
        "import os, subprocess\nsubprocess.Popen(['sleep', '{tag}'], preexec_fn=lambda: os.setpgid(0, 0))\nprint('x')\n"
    );
    let class = Class::new("escapes", &source);
    let (verdicts, _, _) = graded(&class, "escapes", &[]);
    assert_eq!(verdicts, ["fail"; 4]);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(common::processes_with(&tag), Vec::<String>::new());
}

#[test]
fn a_program_that_ignores_sigterm_is_stopped_at_its_cpu_time() {
    let tag = marker(3);
    let source = format!(
        "import signal, subprocess\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsubprocess.Popen(['sleep', '{tag}'])\nwhile True:\n    pass\n"
    );
    let class = Class::new("stubborn", &source);
    let (verdicts, objects, _) = graded(&class, "stubborn", &[]);
    assert_eq!(verdicts, ["timeout"; 4]);
    let ending = objects.iter().find(|o| o["program"] == "stubborn").unwrap()["ending"].clone();
    assert_eq!(ending, "stopped at the CPU time limit of 0.5 s");
    assert_eq!(common::processes_with(&tag), Vec::<String>::new());
}

#[test]
fn a_fork_bomb_is_bounded_and_cleared() {
    let source = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n";
    let class = Class::new("bomb", source);
    let (verdicts, _, _) = graded(&class, "bomb", &["--processes", "32"]);
    assert!(verdicts.iter().all(|v| v == "timeout"), "{verdicts:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(common::processes_with("bomb.py"), Vec::<String>::new());
}

#[test]
fn a_memory_hog_gets_the_memory_limit_verdict() {
    let class = Class::new("hog", "x = bytearray(1_500_000_000)\nprint('got it')\n");
    let (verdicts, objects, stdout) = graded(&class, "hog", &[]);
    assert_eq!(verdicts, ["limit"; 4]);
    let ending = objects.iter().find(|o| o["program"] == "hog").unwrap()["ending"].clone();
    assert_eq!(ending, "memory limit 1 GB");
    assert!(
        stdout.contains("LIMIT") && stdout.contains("memory limit 1 GB"),
        "{stdout}"
    );
}

#[test]
fn a_disk_filler_gets_the_file_size_limit_and_leaves_nothing_in_tmp() {
    let name = format!("othello-filler-{}", marker(4));
    let source = format!(
        "with open('/tmp/{name}', 'wb') as f:\n    for i in range(50):\n        f.write(b'x' * 1000000)\nprint('filled')\n"
    );
    let class = Class::new("filler", &source);
    let (verdicts, objects, _) = graded(&class, "filler", &[]);
    assert_eq!(verdicts, ["limit"; 4]);
    let ending = objects.iter().find(|o| o["program"] == "filler").unwrap()["ending"].clone();
    assert_eq!(ending, "file size limit 10 MiB");
    assert!(!std::env::temp_dir().join(&name).exists());
    assert!(!Path::new("/tmp").join(&name).exists());
}

#[test]
fn floods_on_stdout_and_stderr_are_stopped() {
    let class = Class::new("floods", "while True:\n    print('x' * 100)\n");
    let (verdicts, _, stdout) = graded(&class, "floods", &["--output-limit", "100000"]);
    assert_eq!(verdicts, ["fail"; 4]);
    assert!(stdout.contains("more than 100000 bytes"), "{stdout}");
    let class = Class::new("shouts", "import sys\nwhile True:\n    sys.stderr.write('e' * 10000)\n");
    let (verdicts, objects, _) = graded(&class, "shouts", &[]);
    assert_eq!(verdicts, ["timeout"; 4]);
    let tail = objects.iter().find(|o| o["program"] == "shouts").unwrap()["stderr_tail"].to_string();
    assert!(tail.len() < 200_000, "only a tail of stderr is kept");
}

#[test]
fn stopping_or_killing_the_parent_does_not_touch_the_grader() {
    let source = "import os, signal\nfor s in (signal.SIGSTOP, signal.SIGKILL):\n    try:\n        os.kill(os.getppid(), s)\n    except OSError:\n        pass\nprint('still here')\n";
    let class = Class::new("killer", source);
    let (verdicts, _, stdout) = graded(&class, "killer", &[]);
    assert_eq!(verdicts, ["fail"; 4]);
    assert!(stdout.contains("killer: tolerant 0/4"), "{stdout}");
    let csv = std::fs::read_to_string(class.path("grades.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
}

#[test]
fn a_forger_through_proc_fd_reaches_no_report() {
    let source = r#"
import os
pids = [str(os.getppid())] + [p for p in os.listdir('/proc') if p.isdigit()]
for pid in pids:
    try:
        fds = os.listdir('/proc/%s/fd' % pid)
    except OSError:
        continue
    for fd in fds:
        try:
            with open('/proc/%s/fd/%s' % (pid, fd), 'a') as f:
                f.write('forger,4,4,4,0,0,0,0,0.1,0.1,yes FORGED\n')
        except OSError:
            pass
print('x')
"#;
    let class = Class::new("forger", source);
    let (verdicts, _, stdout) = graded(&class, "forger", &[]);
    assert_eq!(verdicts, ["fail"; 4]);
    for report in ["grades.csv", "grades.jsonl"] {
        let text = std::fs::read_to_string(class.path(report)).unwrap();
        assert!(!text.contains("FORGED"), "{report}: {text}");
    }
    assert!(!stdout.contains("FORGED"));
}

#[test]
fn a_snoop_sees_neither_other_runs_nor_the_graders_environment() {
    let source = r#"
import os, sys
seen = []
for folder in ('/tmp', '/home', '/root', '/work', '/proc/1/cwd', '/proc/1/root'):
    try:
        seen += [folder + '/' + name for name in os.listdir(folder)]
    except OSError:
        pass
for pid in os.listdir('/proc'):
    if pid.isdigit():
        try:
            seen.append(open('/proc/%s/environ' % pid).read())
        except OSError:
            pass
seen += ['%s=%s' % item for item in os.environ.items()]
seen.append(open('/proc/1/cmdline').read().replace('\0', ' '))
sys.stderr.write('snooped: ' + ' | '.join(seen) + '\n')
"#;
    let class = Class::new("snoop", source);
    let (verdicts, objects, _) = graded(&class, "snoop", &[]);
    assert_eq!(verdicts, ["fail"; 4]);
    let seen: Vec<String> = objects
        .iter()
        .filter(|o| o["program"] == "snoop" && o["type"] == "case")
        .map(|o| o["stderr_tail"].to_string())
        .collect();
    assert_eq!(seen.len(), 4);
    for seen in seen {
        assert!(seen.contains("snooped: "), "the snoop ran: {seen}");
        for secret in ["hunter2", "honest.py", "othello-", "grades.csv", "cases", "--class"] {
            assert!(!seen.contains(secret), "the snoop saw {secret}: {seen}");
        }
    }
}

/// `othello lab4 PLAYER --games 4 --forfeit --json`: (exit status, the report).
fn lab4(player: &str) -> (i32, Value) {
    // 5 s a move: time is not what these tests are about (a busy machine).
    let output = common::othello([
        "lab4",
        player,
        "--games",
        "4",
        "--forfeit",
        "--json",
        "--move-time",
        "5",
    ])
    .timeout(Duration::from_secs(120))
    .output()
    .unwrap();
    let report = serde_json::from_str(&String::from_utf8_lossy(&output.stdout)).unwrap_or_else(|_| {
        panic!("no report: {}", String::from_utf8_lossy(&output.stderr));
    });
    (output.status.code().unwrap_or(-1), report)
}

/// A daemon started in a new session, then SIGKILL and SIGSTOP to the parent.
fn tricks(tag: &str) -> String {
    format!(
        "import os, signal, subprocess\nsubprocess.Popen(['sleep', '{tag}'], start_new_session=True)\nfor s in (signal.SIGSTOP, signal.SIGKILL):\n    try:\n        os.kill(os.getppid(), s)\n    except OSError:\n        pass\n"
    )
}

/// A student's program whose name begins with "python" (`python_bot`, given as a path) was taken
/// for an interpreter and run outside the sandbox to ask where it is installed: it is the
/// student's program, copied and run in the sandbox like any other.
#[test]
fn a_program_named_like_python_is_not_run_outside_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let escaped = dir.path().join("escaped.txt");
    let path = dir.path().join("python_bot");
    let source = format!(
        "#!/usr/bin/env python3\nimport sys\n{FIRST_LEGAL}\ntry:\n    open({:?}, 'a').write(repr(sys.argv) + '\\n')\nexcept OSError:\n    pass\nprint(first_legal(sys.argv[1], sys.argv[2]))\n",
        escaped.display().to_string()
    );
    std::fs::write(&path, source).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (status, report) = lab4(&format!("argv:{}", path.display()));
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        (&report["played"], &report["forfeits"]),
        (&4.into(), &0.into()),
        "{report}"
    );
    assert!(
        !escaped.exists(),
        "the program ran outside the sandbox: {}",
        std::fs::read_to_string(&escaped).unwrap_or_default()
    );
}

#[test]
fn players_that_start_daemons_or_kill_their_parent_play_on_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (form, test) in [("argv", 5), ("quickmove", 6), ("strategy", 7)] {
        let tag = marker(test);
        let source = match form {
            "argv" => format!(
                "import sys\n{FIRST_LEGAL}\n{}\nprint(first_legal(sys.argv[1], sys.argv[2]))\n",
                tricks(&tag)
            ),
            "quickmove" => format!(
                "{FIRST_LEGAL}\n{}\ndef quickMove(board, token):\n    exec(TRICKS)\n    return first_legal(board, token)\nTRICKS = {:?}\n",
                tricks(&tag),
                tricks(&tag)
            ),
            _ => format!(
                "{FIRST_LEGAL}\n{}\nclass Strategy:\n    def best_strategy(self, board, player, best_move, still_running):\n        exec(TRICKS)\n        best_move.value = first_legal(board, player)\nTRICKS = {:?}\n",
                tricks(&tag),
                tricks(&tag)
            ),
        };
        let path = dir.path().join(format!("{form}_tricks.py"));
        std::fs::write(&path, source).unwrap();
        let player = match form {
            "argv" => format!("argv:python3 {}", path.display()),
            _ => format!("{form}:{}", path.display()),
        };
        let (status, report) = lab4(&player);
        assert_eq!(status, 0, "{form}: {report}");
        assert_eq!(report["played"], 4, "{form}: {report}");
        // An argv or quickmove program's parent is the sandbox's init, which no signal from inside
        // reaches; a strategy runs in a child of the course's helper, and killing that forfeits.
        let forfeits = if form == "strategy" { 4 } else { 0 };
        assert_eq!(report["forfeits"], forfeits, "{form}: {report}");
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(common::processes_with(&tag), Vec::<String>::new(), "{form}");
    }
    // A match of two of them goes on too.
    let tag = marker(8);
    let source = format!(
        "import sys\n{FIRST_LEGAL}\n{}\nprint(first_legal(sys.argv[1], sys.argv[2]))\n",
        tricks(&tag)
    );
    let path = dir.path().join("match_tricks.py");
    std::fs::write(&path, source).unwrap();
    let player = format!("argv:python3 {}", path.display());
    common::othello(["match", &player, "random", "--games", "2"])
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(common::processes_with(&tag), Vec::<String>::new(), "match");
}
