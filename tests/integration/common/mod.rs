//! Helpers shared by the integration tests: the mailbox reference and driving the binary.
// Each test binary uses only part of these helpers.
#![allow(dead_code)]

pub mod http;
pub mod mailbox;

use assert_cmd::Command;

/// The `othello` binary with these arguments; it dies with the test (see `dies_with_test`).
pub fn othello<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut command = Command::from_std(othello_std());
    command.args(args);
    command
}

/// The `othello` binary as a std command that dies with the test.
pub fn othello_std() -> std::process::Command {
    dies_with_test(std::process::Command::new(assert_cmd::cargo::cargo_bin("othello")))
}

/// The command's process gets SIGKILL when the thread that started it ends: a test that fails, or a
/// test runner that is killed, leaves nothing running (a four-billion-game match once ran on).
/// It also starts with the stopping signals at their default actions, as a terminal's foreground
/// job has them, whatever the tests inherited: a script's background job starts with SIGINT
/// ignored, the program keeps that, and a match the test meant to stop by SIGINT played on and
/// wrote 18 GB of log.
pub fn dies_with_test(mut command: std::process::Command) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: prctl, signal and getppid are async-signal-safe; nothing is allocated after the fork.
    unsafe {
        command.pre_exec(move || {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                libc::signal(signal, libc::SIG_DFL);
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            // The test ended between the fork and the prctl: nothing would signal this process.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    command
}

/// A child process that is killed and reaped when this is dropped, however the test ends.
pub struct Running(pub std::process::Child);

/// Starts `command` (built with `dies_with_test` or `othello_std`) as a `Running`.
pub fn spawn(command: &mut std::process::Command) -> Running {
    Running(command.spawn().expect("the command starts"))
}

impl std::ops::Deref for Running {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for Running {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The exact value of `board` for its side to move by visiting every line of play, with `final_score`
/// valuing finished games: the reference the solvers are checked against.
pub fn exhaustive(board: othello_core::Board, final_score: fn(othello_core::Board) -> i32) -> i32 {
    let moves = board.moves();
    if moves.is_empty() {
        return if board.opponent_moves().is_empty() {
            final_score(board)
        } else {
            -exhaustive(board.pass(), final_score)
        };
    }
    moves
        .squares()
        .map(|square| -exhaustive(board.play(square), final_score))
        .max()
        .unwrap()
}

/// Plays a two-game match of `a` against `b` logged in `dir`: the log's path and its text.
pub fn logged_games(dir: &std::path::Path, a: &str, b: &str) -> (std::path::PathBuf, String) {
    let log = dir.join("games.jsonl");
    othello(["match", a, b, "--games", "2", "--log", log.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&log).unwrap();
    (log, text)
}

/// Plays a two-game match (random against greedy) logged in `dir`: the log's path and its first game.
pub fn logged_match(dir: &std::path::Path) -> (std::path::PathBuf, serde_json::Value) {
    let (log, text) = logged_games(dir, "random", "greedy");
    let first = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    (log, first)
}

/// The command lines (NULs as spaces) of the processes whose command line holds `marker`: what a
/// test left running, or a student's program left behind.
pub fn processes_with(marker: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
        .filter(|cmdline| cmdline.contains(marker))
        .collect()
}

/// The fixture board where parity names o, o cannot move, and x can.
pub fn blocked_board() -> String {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lab/default-token-passes-when-blocked.args");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string()
}

/// The othello binary's path, for commands that run it as the program graded.
pub fn othello_path() -> String {
    assert_cmd::cargo::cargo_bin("othello").display().to_string()
}

/// Writes `count` lab cases drawn with `seed` into `dir/cases` (`othello cases`), and returns that folder.
pub fn lab_cases(dir: &std::path::Path, count: u32, seed: u64) -> std::path::PathBuf {
    let cases = dir.join("cases");
    othello([
        "cases",
        "--count",
        &count.to_string(),
        "--seed",
        &seed.to_string(),
        cases.to_str().unwrap(),
    ])
    .assert()
    .success();
    cases
}

/// Python: the first legal move of `board` for `token`.
pub const FIRST_LEGAL: &str = r#"
def first_legal(board, token):
    other = 'o' if token == 'x' else 'x'
    for sq in range(64):
        if board[sq] != '.':
            continue
        r, c = divmod(sq, 8)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc, n = r + dr, c + dc, 0
                while (dr or dc) and 0 <= rr < 8 and 0 <= cc < 8 and board[rr * 8 + cc] == other:
                    rr, cc, n = rr + dr, cc + dc, n + 1
                if n and 0 <= rr < 8 and 0 <= cc < 8 and board[rr * 8 + cc] == token:
                    return sq
"#;

/// The DOM of a page after its scripts ran, from headless Chromium (which `.ci/run` installs).
pub fn rendered(page: &std::path::Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let output = dies_with_test(std::process::Command::new("chromium"))
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=2000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs the page tests (.ci/run installs Debian's chromium)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Checks a JUnit report against docs/schemas/junit.xsd (Ant's format) with xmllint, from Debian's
/// libxml2-utils (which `.ci/run` installs); returns xmllint's complaint when it is not valid.
pub fn junit_complaint(xml: &str) -> Option<String> {
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schemas/junit.xsd");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), xml).unwrap();
    let output = dies_with_test(std::process::Command::new("xmllint"))
        .args(["--noout", "--schema"])
        .arg(&schema)
        .arg(file.path())
        .output()
        .expect("xmllint checks the JUnit reports (.ci/run installs Debian's libxml2-utils)");
    (!output.status.success()).then(|| String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Asserts that a JUnit report is valid under Ant's schema.
pub fn assert_valid_junit(xml: &str) {
    if let Some(complaint) = junit_complaint(xml) {
        panic!("not valid under docs/schemas/junit.xsd:\n{complaint}\n{xml}");
    }
}

/// The verdicts `grade --json` gave one program, case by case (one judge's objects).
pub fn verdicts(objects: &[serde_json::Value], program: &str) -> Vec<String> {
    objects
        .iter()
        .filter(|o| o["type"] == "case" && o["program"] == program)
        .map(|o| o["verdict"].as_str().unwrap().to_string())
        .collect()
}
