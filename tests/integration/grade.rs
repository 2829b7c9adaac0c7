//! `othello grade` through the binary, on a class of fake students of our own: each one's verdict under
//! each judge, hangs and crashes that do not stop the run, endless output, files written in the working
//! folder, a stable order whatever the parallelism, and the JSON, CSV and HTML reports.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The honest student: the project's independent Python implementation of the lab.
fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/lab_reference.py")
}

/// The class that tests/support/fake_class.py writes, and each student's verdicts under strict, tolerant
/// and course.
const CLASS: [(&str, [&str; 3]); 12] = [
    ("honest", ["pass", "pass", "pass"]),
    ("counts_own_line", ["fail", "pass", "pass"]),
    ("spaced_upper", ["fail", "pass", "pass"]),
    ("bracketed_moves", ["fail", "pass", "pass"]),
    ("wrong_flip", ["fail", "fail", "fail"]),
    ("missing_move", ["fail", "fail", "fail"]),
    ("wrong_count", ["fail", "fail", "pass"]),
    ("no_moves_at_end", ["fail", "pass", "pass"]),
    ("writes_files", ["pass", "pass", "pass"]),
    ("hangs", ["timeout", "timeout", "timeout"]),
    ("crashes", ["crash", "crash", "crash"]),
    ("floods", ["fail", "fail", "fail"]),
];

/// Writes the class and a small case set covering every kind (the start, passes, blocked tokens,
/// games that end full and with empty squares).
fn setup(dir: &Path) -> (PathBuf, PathBuf) {
    let students = dir.join("students");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake_class.py");
    let status = std::process::Command::new("python3")
        .arg(script)
        .arg(&students)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let mut names: Vec<String> = std::fs::read_dir(&students)
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<&str> = CLASS.iter().map(|(name, _)| *name).collect();
    expected.sort();
    assert_eq!(names, expected);
    let cases = dir.join("cases");
    common::othello(["cases", "--count", "9", "--seed", "4", cases.to_str().unwrap()])
        .assert()
        .success();
    (students, cases)
}

const TEMPLATE: &str = "python3 {}";

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object a line"))
        .collect()
}

#[test]
fn a_class_is_graded_by_every_judge_as_the_course_would() {
    let dir = tempfile::tempdir().unwrap();
    let (students, cases) = setup(dir.path());
    let (json, csv, html) = (
        dir.path().join("r.jsonl"),
        dir.path().join("g.csv"),
        dir.path().join("r.html"),
    );
    let output = common::othello([
        "grade",
        cases.to_str().unwrap(),
        "--class",
        students.to_str().unwrap(),
        "--run",
        TEMPLATE,
        "--judge",
        "strict,tolerant,course",
        "--timeout",
        "1",
        "--output-limit",
        "100000",
        "--jobs",
        "4",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "some students fail: {stdout}");

    // Verdicts: every case of a student under a judge is either the expected verdict or a pass (a
    // wrong flip or a missing move cannot show where the game has no move left to get wrong).
    let objects = json_lines(&std::fs::read_to_string(&json).unwrap());
    let mut verdicts: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for object in objects.iter().filter(|o| o["type"] == "case") {
        for key in ["case", "program", "verdict", "judge", "differences", "seconds", "args"] {
            assert!(!object[key].is_null(), "{key} missing in {object}");
        }
        let key = (
            object["program"].as_str().unwrap().to_string(),
            object["judge"].as_str().unwrap().to_string(),
        );
        verdicts
            .entry(key)
            .or_default()
            .push(object["verdict"].as_str().unwrap().to_string());
    }
    for (name, expected) in CLASS {
        for (judge, verdict) in ["strict", "tolerant", "course"].iter().zip(expected) {
            let got = &verdicts[&(name.to_string(), judge.to_string())];
            assert_eq!(got.len(), 9, "{name}: one verdict per case");
            // After 3 time-outs in a row, the rest are not run.
            let got: &Vec<String> = &if verdict == "timeout" {
                assert_eq!(got[3..], ["not-run"; 6], "{name}, {judge}: {got:?}");
                got[..3].to_vec()
            } else {
                got.clone()
            };
            assert!(
                got.iter().all(|v| v == verdict || v == "pass"),
                "{name}, {judge}: {got:?}"
            );
            assert!(
                got.iter().any(|v| v == verdict),
                "{name}, {judge}: never {verdict}: {got:?}"
            );
        }
    }

    // With several judges the summary line counts the failures of each: wrong_count fails no case
    // under the course's judge.
    let line = stdout.lines().find(|l| l.starts_with("wrong_count: ")).unwrap();
    assert!(
        line.contains("; failed: strict ") && line.contains(", course 0,"),
        "{line}"
    );
    // The crash shows its traceback, the flood was stopped at the cap, the hang did not hold anything up.
    assert!(stdout.contains("KeyError: 'board'"), "{stdout}");
    assert!(stdout.contains("more than 100000 bytes"), "{stdout}");
    let summary = |name: &str| {
        objects
            .iter()
            .find(|o| o["type"] == "summary" && o["program"] == name)
            .unwrap_or_else(|| panic!("no summary for {name}"))
            .clone()
    };
    assert_eq!(
        (&summary("hangs")["timeouts"], &summary("hangs")["not_run"]),
        (&3.into(), &6.into())
    );
    assert_eq!(summary("crashes")["crashes"], 9);
    assert_eq!(summary("honest")["passed"]["strict"], 9);
    assert_eq!(summary("wrong_count")["passed"]["course"], 9);
    // `failed` names its judges: wrong_count fails the strict and tolerant judges, not course.
    let failed_by = &summary("wrong_count")["failed_by"];
    assert_eq!(
        (&failed_by["strict"], &failed_by["course"]),
        (&9.into(), &0.into()),
        "{failed_by}"
    );
    assert!(!students.join("writes_files/runs.txt").exists(), "runs work on copies");

    // The gradebook: a header and one row per student, in the class table's order.
    let csv = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "program,cases,strict_passed,tolerant_passed,course_passed,failed,strict_failed,tolerant_failed,course_failed,timeouts,limits,crashes,not_run,seconds,cpu_seconds,isolated"
    );
    assert_eq!(rows.len(), 1 + CLASS.len());
    assert!(
        rows.iter().any(|r| r.starts_with("honest,9,9,9,9,0,0,0,0,0,0,0,0,")),
        "{csv}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with("wrong_count,9,0,0,9,9,9,9,0,")),
        "{csv}"
    );
    assert!(
        rows.iter().all(|r| r.ends_with(",yes") || r.ends_with(",isolated")),
        "{csv}"
    );

    // The page: the class table, every student, and boards drawn with the differing squares marked.
    let html = std::fs::read_to_string(&html).unwrap();
    for (name, _) in CLASS {
        assert!(html.contains(&format!(">{name}</a>")), "{name} in the table");
    }
    assert!(html.contains("class=\"board\"") && html.contains(" diff\""));
    assert!(!html.contains("http"), "no outside resource");
}

/// Without the timing fields, what a run reports: the same whatever the number of jobs.
fn stable_report(jobs: &str, cases: &Path, students: &Path) -> Vec<Value> {
    let output = common::othello([
        "grade",
        cases.to_str().unwrap(),
        "--class",
        students.to_str().unwrap(),
        "--run",
        "python3 {}",
        "--judge",
        "tolerant,course",
        "--jobs",
        jobs,
        "--json",
        "-",
    ])
    .output()
    .unwrap();
    let mut objects = json_lines(&String::from_utf8_lossy(&output.stdout));
    for object in &mut objects {
        let object = object.as_object_mut().unwrap();
        object.remove("seconds");
        object.remove("cpu_seconds");
        // A traceback names the run's scratch folder: keep only how many lines there were.
        if let Some(tail) = object.remove("stderr_tail") {
            object.insert("stderr_lines".into(), tail.as_array().unwrap().len().into());
        }
    }
    objects
}

#[test]
fn results_come_in_case_order_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let (students, cases) = setup(dir.path());
    // Keep the quick students only.
    for name in ["hangs", "floods", "writes_files"] {
        let path = students.join(format!("{name}.py"));
        if path.exists() {
            std::fs::remove_file(path).unwrap();
        } else {
            std::fs::remove_dir_all(students.join(name)).unwrap();
        }
    }
    let one = stable_report("1", &cases, &students);
    assert_eq!(one.len(), 9 * (9 * 2 + 1));
    let five = stable_report("5", &cases, &students);
    for (a, b) in one.iter().zip(&five) {
        assert_eq!(a, b);
    }
    assert_eq!(one.len(), five.len());
}

#[test]
fn one_program_passes_its_own_cases_and_bad_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 120, 9);
    let othello = assert_cmd::cargo::cargo_bin("othello");
    common::othello([
        "grade",
        cases.to_str().unwrap(),
        "--judge",
        "strict,tolerant,course",
        "--",
    ])
    .arg(&othello)
    .assert()
    .success()
    .stdout(predicates::str::contains(
        "strict 120/120, tolerant 120/120, course 120/120",
    ));
    // The golden transcripts, exit statuses and stderr patterns included.
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lab");
    common::othello(["grade", golden.to_str().unwrap(), "--judge", "strict", "--"])
        .arg(&othello)
        .assert()
        .success();
    for (args, message) in [
        (
            vec!["grade", "/no/such/folder", "--", "true"],
            "cannot read the case folder",
        ),
        (vec!["grade", cases.to_str().unwrap()], "no program to grade"),
        (
            vec!["grade", cases.to_str().unwrap(), "--", "no-such-program-here"],
            "no such program",
        ),
        (
            vec!["grade", cases.to_str().unwrap(), "--judge", "lenient", "--", "true"],
            "unknown judge",
        ),
        (
            vec!["grade", cases.to_str().unwrap(), "--timeout", "-1", "--", "true"],
            "seconds",
        ),
        (
            vec![
                "grade",
                cases.to_str().unwrap(),
                "--html",
                "/no/such/dir/r.html",
                "--",
                "true",
            ],
            "cannot write",
        ),
        (
            vec!["grade", cases.to_str().unwrap(), "--class", "/tmp", "--run", "python3"],
            "{}",
        ),
    ] {
        common::othello(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains(message));
    }
}

#[test]
fn cases_refuse_to_mix_sets_and_replace_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    let path = cases.to_str().unwrap();
    common::othello(["cases", "--count", "12", path]).assert().success();
    common::othello(["cases", "--count", "3", path])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--replace"));
    common::othello(["cases", "--count", "3", "--replace", path])
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "case-001.args",
            "case-001.out",
            "case-002.args",
            "case-002.out",
            "case-003.args",
            "case-003.out"
        ]
    );
    // A folder with other files is never written into; nothing is left beside it.
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    common::othello(["cases", "--count", "3", "--replace", dir.path().to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a case file"));
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 2, "cases/ and notes.txt only");
}

#[test]
fn condensed_and_othello_1_cases_pass_against_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, command) in [("--condensed", vec![]), ("--lab1", vec!["--lab1"])] {
        let cases = dir.path().join(flag.trim_start_matches('-'));
        common::othello(["cases", "--count", "40", flag, cases.to_str().unwrap()])
            .assert()
            .success();
        let output = common::othello(["grade", cases.to_str().unwrap(), "--judge", "strict", "--", "python3"])
            .arg(reference())
            .args(&command)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
}

#[test]
fn lab5_cases_are_marked_as_the_course_marks_them() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    common::othello(["cases", "--lab5", "--count", "30", cases.to_str().unwrap()])
        .assert()
        .success();
    let othello = assert_cmd::cargo::cargo_bin("othello").display().to_string();
    let students = dir.path().join("students");
    std::fs::create_dir(&students).unwrap();
    // Each runs the lab mode's own --lab5 answer and changes one thing.
    for (name, change) in [
        ("honest", ""),
        ("wrong_score", " | sed -E 's/Min score: -?[0-9]+/Min score: 99/'"),
        // Only the first move of the line: a legal sequence that does not reach the end.
        ("short_line", " | sed -E 's/\\[.*, (-?[0-9]+)\\]/[\\1]/'"),
        // A one-ply greedy move printed last (so it is the move), whatever it is worth.
        ("greedy_move", " ; echo; echo \"my move: $(greedy \"$1\" \"$2\")\""),
    ] {
        let script = format!(
            "greedy() {{ {othello} best --depth 1 --eval discs \"$1\" \"$2\" --json | sed 's/.*\"move\":\\([0-9]*\\).*/\\1/'; }}\n{othello} \"$@\" --lab5{change}\n"
        );
        std::fs::write(students.join(format!("{name}.sh")), script).unwrap();
    }
    let output = common::othello([
        "grade",
        cases.to_str().unwrap(),
        "--class",
        students.to_str().unwrap(),
        "--run",
        "sh {}",
        "--visible",
        othello.as_str(),
        "--judge",
        "lab5",
        "--json",
        "-",
    ])
    .output()
    .unwrap();
    let objects = json_lines(&String::from_utf8_lossy(&output.stdout));
    let marks = |name: &str| -> Vec<f64> {
        objects
            .iter()
            .filter(|o| o["type"] == "case" && o["program"] == name)
            .map(|o| o["marks"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(marks("honest"), vec![1.0; 30]);
    assert_eq!(marks("wrong_score"), vec![0.75; 30], "the score's .25 only");
    let short = marks("short_line");
    assert!(short.iter().all(|&m| m == 0.75 || m == 1.0), "{short:?}");
    assert!(
        short.iter().filter(|&&m| m == 0.75).count() >= 20,
        "most lines are longer than one move: {short:?}"
    );
    let greedy = marks("greedy_move");
    assert!(greedy.iter().all(|&m| m == 0.5 || m == 1.0), "{greedy:?}");
    assert!(greedy.contains(&0.5), "some greedy moves are not optimal: {greedy:?}");
    let summary = objects
        .iter()
        .find(|o| o["type"] == "summary" && o["program"] == "honest")
        .unwrap();
    assert_eq!(summary["marks"], 30.0);
}

#[test]
fn lab5_cases_come_in_the_courses_mix_and_other_cases_are_refused_by_its_judge() {
    let dir = tempfile::tempdir().unwrap();
    let lab5 = dir.path().join("lab5");
    common::othello(["cases", "--lab5", "--count", "100", lab5.to_str().unwrap()])
        .assert()
        .success();
    let mut holes = [0usize; 11];
    for entry in std::fs::read_dir(&lab5).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "args") {
            let board = std::fs::read_to_string(&path).unwrap();
            holes[board.lines().next().unwrap().matches('.').count()] += 1;
        }
    }
    // The 2021 handout's mix: one board with 10 empty squares, the rest 1 to 9.
    assert_eq!(holes[10], 1, "{holes:?}");
    assert!(holes[1..10].iter().all(|&n| n == 11), "{holes:?}");
    // A set of ordinary cases (56 empty squares and more) is refused at once, not solved for ever.
    let ordinary = dir.path().join("ordinary");
    common::othello(["cases", "--count", "3", ordinary.to_str().unwrap()])
        .assert()
        .success();
    common::othello(["grade", ordinary.to_str().unwrap(), "--judge", "lab5", "--", "true"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("the lab5 judge solves every case exactly"));
}

#[test]
fn the_tolerant_judge_reads_the_exit_status_where_no_board_is_expected() {
    // A refused request: no output expected, exit status 2. Garbage on stdout shows the tolerant
    // judge nothing, so the status decides.
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    std::fs::create_dir(&cases).unwrap();
    std::fs::write(cases.join("bad.args"), "zzz\n").unwrap();
    std::fs::write(cases.join("bad.out"), "").unwrap();
    std::fs::write(cases.join("bad.status"), "2\n").unwrap();
    for (status, verdict) in [("1", "fail"), ("2", "pass")] {
        let output = common::othello([
            "grade",
            cases.to_str().unwrap(),
            "--judge",
            "tolerant",
            "--json",
            "-",
            "--",
        ])
        .args(["sh", "-c", &format!("echo garbage; exit {status}")])
        .output()
        .unwrap();
        let first: Value =
            serde_json::from_str(String::from_utf8_lossy(&output.stdout).lines().next().unwrap()).unwrap();
        assert_eq!(first["verdict"], verdict, "exit {status}: {first}");
    }
}

#[test]
fn cases_that_cannot_be_written_leave_nothing_half_made() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    // Files may hold 4 kB at most: a whole game's transcript is longer, so a write fails midway.
    let script = format!(
        "trap '' XFSZ; ulimit -f 8; exec {} cases --count 200 {}",
        assert_cmd::cargo::cargo_bin("othello").display(),
        cases.display()
    );
    let output = std::process::Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!cases.exists(), "no case folder");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "and nothing beside it"
    );
}

#[test]
fn a_case_folder_with_a_special_dangling_or_impossible_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    common::othello(["cases", cases.to_str().unwrap(), "--count", "2"])
        .assert()
        .success();
    let file = |name: &str| cases.join(name);
    let grade = || {
        let mut command = common::othello(["grade", cases.to_str().unwrap(), "--", &common::othello_path()]);
        command.timeout(std::time::Duration::from_secs(30));
        command
    };
    let out = std::fs::read(file("case-001.out")).unwrap();
    std::fs::remove_file(file("case-001.out")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", file("case-001.out")).unwrap();
    grade().assert().code(2).stderr(predicates::str::contains(
        "case-001.out: it is a device, not a regular file",
    ));
    std::fs::remove_file(file("case-001.out")).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(file("case-001.out"))
            .status()
            .unwrap()
            .success()
    );
    grade()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("case-001.out: it is a FIFO"));
    std::fs::remove_file(file("case-001.out")).unwrap();
    std::fs::write(file("case-001.out"), out).unwrap();

    std::os::unix::fs::symlink("nowhere.args", file("case-003.args")).unwrap();
    grade().assert().code(2).stderr(predicates::str::contains(
        "case-003.args: a link to a file that does not exist",
    ));
    std::fs::remove_file(file("case-003.args")).unwrap();

    for status in ["256", "-1"] {
        std::fs::write(file("case-001.status"), status).unwrap();
        grade().assert().code(2).stderr(predicates::str::contains(format!(
            "case-001.status: \"{status}\" is not an exit status"
        )));
    }
    std::fs::remove_file(file("case-001.status")).unwrap();

    let args = std::fs::read(file("case-002.args")).unwrap();
    std::fs::write(file("case-002.args"), b"a\0b\n").unwrap();
    grade()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("case-002.args: an argument holds a NUL byte"));
    let many: String = (0..200_000).map(|n| format!("{n}\n")).collect();
    std::fs::write(file("case-002.args"), many).unwrap();
    grade()
        .assert()
        .code(2)
        .stderr(predicates::str::contains("case-002.args: 200000 arguments"));
    std::fs::write(file("case-002.args"), args).unwrap();
    grade().assert().success();
}

/// `--gradescope` and `--junit`: Gradescope's results.json with a test per case (its points from a
/// points file) and JUnit XML with a suite per program, both read back by parsers; a program that
/// prints something else fails each case, one that hangs errs.
#[test]
fn gradescope_and_junit_reports_score_every_case_and_parse() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 3, 5);
    let points = dir.path().join("points.txt");
    std::fs::write(
        &points,
        "# the first case is worth most\ncase-001 3\ncase-002 0.5 after_due_date\n",
    )
    .unwrap();
    let (gradescope, junit) = (dir.path().join("results.json"), dir.path().join("junit.xml"));
    let run = |program: &[&str]| {
        common::othello(["grade", cases.to_str().unwrap(), "--judge", "strict", "--timeout", "1"])
            .arg("--points")
            .arg(&points)
            .arg("--gradescope")
            .arg(&gradescope)
            .arg("--junit")
            .arg(&junit)
            .arg("--")
            .args(program)
            .output()
            .unwrap()
    };

    let reference = reference();
    let output = run(&["python3", reference.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let results: Value = serde_json::from_slice(&std::fs::read(&gradescope).unwrap()).unwrap();
    assert_eq!(results["score"], 4.5, "3 + 0.5 + 1 (not named: 1)");
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    assert_eq!(tests[0]["name"], "case-001");
    assert_eq!(tests[0]["max_score"], 3.0);
    assert_eq!(tests[1]["max_score"], 0.5);
    // Each test's visibility from the points file (visible where it names none), and plain text.
    let visibility: Vec<&Value> = tests.iter().map(|t| &t["visibility"]).collect();
    assert_eq!(visibility, ["visible", "after_due_date", "visible"]);
    assert_eq!(results["output_format"], "text");
    assert!(tests.iter().all(|t| t["output_format"] == "text"));
    assert!(
        tests
            .iter()
            .all(|t| t["status"] == "passed" && t["score"] == t["max_score"])
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    common::assert_valid_junit(&xml);
    let document = roxmltree::Document::parse(&xml).unwrap();
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suite = root.children().find(|n| n.has_tag_name("testsuite")).unwrap();
    assert_eq!(
        (
            suite.attribute("tests"),
            suite.attribute("failures"),
            suite.attribute("id")
        ),
        (Some("3"), Some("0"), Some("0"))
    );
    // Ant's format gives every suite when (a date and time, no zone) and where it ran, and the
    // grading settings as its properties.
    let shape = regex::Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$").unwrap();
    let timestamp = suite.attribute("timestamp").expect("a timestamp");
    assert!(shape.is_match(timestamp), "{timestamp}");
    let host = suite.attribute("hostname").expect("a hostname");
    assert!(!host.is_empty() && !host.contains(char::is_whitespace), "{host:?}");
    let property = |name: &str| {
        suite
            .descendants()
            .find(|n| n.has_tag_name("property") && n.attribute("name") == Some(name))
            .and_then(|n| n.attribute("value"))
            .map(str::to_string)
    };
    assert_eq!(property("judges").as_deref(), Some("strict"));
    assert_eq!(property("time-limit").as_deref(), Some("1 s of CPU time"));
    assert!(property("isolation").unwrap().starts_with("sandboxed"), "{xml}");
    // The schema is strict: what Ant's format has no place for is refused (the wrapper's own
    // counts, which this report wrote until it was checked), so the checks above can fail.
    let complaint = common::junit_complaint(&xml.replacen("<testsuites>", "<testsuites tests=\"3\">", 1));
    assert!(
        complaint.is_some_and(|c| c.contains("tests")),
        "an attribute Ant has not was let through"
    );

    let output = run(&["sh", "-c", "echo '<nope & \"more\">'"]);
    assert_eq!(output.status.code(), Some(1));
    let results: Value = serde_json::from_slice(&std::fs::read(&gradescope).unwrap()).unwrap();
    assert_eq!(results["score"], 0.0);
    for test in results["tests"].as_array().unwrap() {
        assert_eq!(test["status"], "failed");
        assert!(test["output"].as_str().unwrap().contains("nope"), "{test}");
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    common::assert_valid_junit(&xml);
    let document = roxmltree::Document::parse(&xml).unwrap();
    let failures: Vec<_> = document.descendants().filter(|n| n.has_tag_name("failure")).collect();
    assert_eq!(failures.len(), 3);
    assert!(
        failures[0].text().unwrap().contains("<nope & \\\"more\\\">"),
        "{:?}",
        failures[0].text()
    );

    let output = run(&["sh", "-c", "sleep 30"]);
    assert_eq!(output.status.code(), Some(1));
    let xml = std::fs::read_to_string(&junit).unwrap();
    common::assert_valid_junit(&xml);
    let document = roxmltree::Document::parse(&xml).unwrap();
    let errors: Vec<_> = document.descendants().filter(|n| n.has_tag_name("error")).collect();
    assert_eq!(errors.len(), 3);
    assert_eq!(errors[0].attribute("type"), Some("timeout"));
}

#[test]
fn points_that_cannot_be_are_refused_before_any_case_runs() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 2, 5);
    let points = dir.path().join("points.txt");
    for (text, message) in [
        ("case-009 2\n", "no case named \"case-009\""),
        ("case-001 lots\n", "bad points \"lots\""),
        ("case-001\n", "expected `NAME POINTS`"),
        (
            "case-001 2 secret\n",
            "bad visibility \"secret\": expected visible, hidden, after_due_date, after_published",
        ),
    ] {
        std::fs::write(&points, text).unwrap();
        common::othello([
            "grade",
            cases.to_str().unwrap(),
            "--points",
            points.to_str().unwrap(),
            "--",
            "true",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(message));
    }
    common::othello(["grade", cases.to_str().unwrap(), "--points", "-1", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad --points -1"));
}

/// `grade --json`: a difference of lines holds the lines themselves, as a reader of JSON wants them,
/// not the quoted form the report for people shows.
#[test]
fn json_differences_hold_the_text_itself() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 1, 5);
    let output = common::othello(["grade", cases.to_str().unwrap(), "--judge", "strict", "--json", "-"])
        .args(["--", "sh", "-c", "printf 'say \"hi\"\\n'"])
        .output()
        .unwrap();
    let first: Value = serde_json::from_str(String::from_utf8_lossy(&output.stdout).lines().next().unwrap()).unwrap();
    let difference = &first["differences"][0];
    assert_eq!(difference["text"], true, "{difference}");
    assert_eq!(
        difference["actual"], "say \"hi\"\n",
        "the line as printed, newline kept"
    );
    let expected = std::fs::read_to_string(cases.join("case-001.out")).unwrap();
    assert!(
        expected.starts_with(difference["expected"].as_str().unwrap()),
        "{difference}"
    );
}

/// A looping student used 270 s of CPU time of a class run: after `--max-timeouts` (3) time-outs in
/// a row its remaining cases are not run, a verdict of their own in every report, and it costs at
/// most 3 time limits however many cases run at a time; `--max-timeouts 0` runs every case.
#[test]
fn a_looping_student_stops_after_three_time_outs_in_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::copy(reference(), class.join("honest.py")).unwrap();
    std::fs::write(class.join("looper.py"), "while True:\n    pass\n").unwrap();
    let cases = common::lab_cases(dir.path(), 7, 3);
    let grade = |extra: &[&str]| {
        let (json, csv, junit) = (
            dir.path().join("g.jsonl"),
            dir.path().join("g.csv"),
            dir.path().join("g.xml"),
        );
        let html = dir.path().join("g.html");
        let output = common::othello(["grade"])
            .arg(&cases)
            .arg("--class")
            .arg(&class)
            .args(["--run", TEMPLATE, "--timeout", "1", "--jobs", "2", "--json"])
            .arg(&json)
            .arg("--csv")
            .arg(&csv)
            .arg("--junit")
            .arg(&junit)
            .arg("--html")
            .arg(&html)
            .args(extra)
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let read = |path: &Path| std::fs::read_to_string(path).unwrap();
        (
            String::from_utf8(output.stdout).unwrap(),
            json_lines(&read(&json)),
            read(&csv),
            read(&junit),
            read(&html),
        )
    };
    let verdicts = common::verdicts;
    let (text, objects, csv, junit, html) = grade(&[]);
    assert_eq!(verdicts(&objects, "honest"), ["pass"; 7], "{text}");
    let mut expected = vec!["timeout"; 3];
    expected.extend(["not-run"; 4]);
    assert_eq!(verdicts(&objects, "looper"), expected, "{text}");
    let summary = objects
        .iter()
        .find(|o| o["type"] == "summary" && o["program"] == "looper")
        .unwrap();
    assert_eq!(
        (&summary["timeouts"], &summary["not_run"]),
        (&3.into(), &4.into()),
        "{summary}"
    );
    let cpu = summary["cpu_seconds"].as_f64().unwrap();
    assert!(cpu <= 3.0 * 1.2, "the looper used {cpu} s of CPU time");
    let not_run = objects.iter().find(|o| o["verdict"] == "not-run").unwrap();
    assert_eq!(not_run["ending"], "not run: 3 time-outs in a row", "{not_run}");
    assert!(text.contains("NOT RUN  case-004"), "{text}");
    assert!(text.contains("not run: 3 time-outs in a row"), "{text}");
    assert!(text.contains("3 time-outs, 0 crashes, 4 not run;"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("program") && l.contains("not run")),
        "{text}"
    );
    assert!(
        csv.starts_with("program,cases,tolerant_passed,failed,tolerant_failed,timeouts,limits,crashes,not_run,"),
        "{csv}"
    );
    assert!(csv.lines().any(|l| l.starts_with("looper,7,0,0,0,3,0,0,4,")), "{csv}");
    common::assert_valid_junit(&junit);
    assert!(junit.contains("skipped=\"4\""), "{junit}");
    assert!(
        junit.contains("<skipped message=\"NOT RUN  case-004")
            && junit.contains("  not run: 3 time-outs in a row\n</skipped>"),
        "{junit}"
    );
    assert!(html.contains("<th>not run</th>") && html.contains("NOT RUN"), "{html}");
    // Every case, when asked.
    let (text, objects, ..) = grade(&["--max-timeouts", "0", "--judge", "tolerant"]);
    assert_eq!(verdicts(&objects, "looper"), ["timeout"; 7], "{text}");
    assert!(!text.contains("not run"), "{text}");
}

/// A `.args` written with Windows line endings made every run a crash (`bad argument "19\r"`)
/// while the report showed `args: 19 34`: case files are read with CRLF as with LF, a `.out` with
/// CRLF gets one warning line, and so does a set that mixes them.
#[test]
fn cases_written_with_windows_line_endings_grade_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 3, 8);
    let grade = || {
        let output = common::othello(["grade"])
            .arg(&cases)
            .args(["--judge", "strict,tolerant", "--"])
            .arg(assert_cmd::cargo::cargo_bin("othello"))
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let crlf = |name: &str| {
        let path = cases.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace('\n', "\r\n")).unwrap();
    };
    // Every .args with CRLF, as a teacher on Windows would write them all.
    for name in ["case-001.args", "case-002.args", "case-003.args"] {
        crlf(name);
    }
    let (status, stdout, stderr) = grade();
    assert_eq!(status, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("strict 3/3, tolerant 3/3"), "{stdout}");
    assert!(
        stderr.contains("the cases mix line endings: 3 files with CRLF")
            && stderr.contains("case-001.args the first), 3 with LF (")
            && stderr.contains("all are read as LF"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("warning").count(), 1, "{stderr}");
    // Every file with CRLF: one warning, for the expected outputs.
    for name in ["case-001.out", "case-002.out", "case-003.out"] {
        crlf(name);
    }
    let (status, stdout, stderr) = grade();
    assert_eq!(status, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("strict 3/3, tolerant 3/3"), "{stdout}");
    assert!(
        stderr.contains("othello: warning: 3 expected outputs (.out) have Windows line endings (CRLF), ")
            && stderr.contains("case-001.out the first: read as LF, as programs print on Linux"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().filter(|l| l.contains("warning")).count(), 1, "{stderr}");
}

/// `grade cases -- python3 nonexist.py` ran every case and reported each a crash, where
/// `-- nosuchprog` was refused up front: a script that is not there is refused before any case
/// runs, in grade as for an argv player.
#[test]
fn a_script_that_is_not_there_is_refused_before_any_case_runs() {
    let dir = tempfile::tempdir().unwrap();
    let cases = common::lab_cases(dir.path(), 2, 1);
    for command in [
        &["python3", "nonexist.py"][..],
        &["python3", "-u", "-W", "ignore", "nonexist.py"],
    ] {
        let output = common::othello(["grade"])
            .arg(&cases)
            .arg("--")
            .args(command)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_eq!(
            stderr,
            "othello: bad argument \"nonexist.py\": no such file (python3 would be given it as its program)\n"
        );
        assert!(
            output.stdout.is_empty(),
            "a case ran: {}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
    let output = common::othello(["match", "argv:python3 nonexist.py", "greedy", "--games", "1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("\"nonexist.py\": no such file"));
    // A script that is there, and a command that runs no file, are graded as before.
    std::fs::write(dir.path().join("there.py"), "print('hello')\n").unwrap();
    for command in [&["python3", "there.py"][..], &["python3", "-c", "print('hello')"]] {
        let output = common::othello(["grade"])
            .arg(&cases)
            .arg("--")
            .args(command)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// The HTML report hid the most common error: a wrong possible-moves list drew two identical
/// boards, a timed-out program's output was not shown, and every case stood alone. A class of
/// four written from scratch (right, no diagonals, crashing on A1 names, looping after a word):
/// the boards carry each side's possible-move marks with the differing ones ringed and the
/// snapshot named, the failures are grouped, the looper's last words are shown, and no path of
/// the teacher's is in the page. Rendered in Chromium.
#[test]
fn the_html_report_shows_what_went_wrong_most_often() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let source = std::fs::read_to_string(reference()).unwrap();
    std::fs::write(class.join("right.py"), &source).unwrap();
    let no_diagonals = source.replace(
        "DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]",
        "DIRS = [(-1, 0), (0, -1), (0, 1), (1, 0)]",
    );
    assert_ne!(no_diagonals, source);
    std::fs::write(class.join("nodiag.py"), no_diagonals).unwrap();
    let a1 = "seq.append((int(arg[1]) - 1) * 8 + \"abcdefgh\".index(arg[0].lower()))";
    assert!(source.contains(a1));
    std::fs::write(class.join("a1crash.py"), source.replace(a1, "seq.append(int(arg))")).unwrap();
    std::fs::write(
        class.join("loop.py"),
        "print('thinking', flush=True)\nwhile True:\n    pass\n",
    )
    .unwrap();
    let cases = common::lab_cases(dir.path(), 12, 3);
    let page = dir.path().join("report.html");
    let output = common::othello(["grade"])
        .arg(&cases)
        .arg("--class")
        .arg(&class)
        .args(["--run", "python3 {}", "--timeout", "1", "--html"])
        .arg(&page)
        .arg("--junit")
        .arg(dir.path().join("junit.xml"))
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains(&dir.path().display().to_string()),
        "a teacher's path in the page"
    );
    assert!(html.contains("<code>python3 nodiag.py</code>"), "{html}");
    let dom = common::rendered(&page);
    let section = |name: &str| {
        let start = dom
            .find(&format!(">{name}</h2>"))
            .unwrap_or_else(|| panic!("no {name} in {dom}"));
        let end = dom[start..].find("<h2").map_or(dom.len(), |end| start + end);
        dom[start..end].to_string()
    };
    let nodiag = section("nodiag");
    assert!(
        nodiag.contains(": wrong part E, the possible moves (first: "),
        "{nodiag}"
    );
    assert!(
        nodiag.contains("expected, snapshot ") && nodiag.contains("actual, snapshot "),
        "{nodiag}"
    );
    // A possible move the reference lists and the student does not: marked and ringed.
    assert!(nodiag.contains("<td class=\"mark diff\">"), "{nodiag}");
    let a1crash = section("a1crash");
    assert!(a1crash.contains("cases: ValueError at line "), "{a1crash}");
    let looper = section("loop");
    assert!(
        looper.contains("3 cases: a time-out") && looper.contains("cases: not run"),
        "{looper}"
    );
    assert!(
        looper.contains("What it had printed when it was stopped") && looper.contains("thinking"),
        "{looper}"
    );
    // JUnit has it too, in the looper's suite.
    let xml = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    common::assert_valid_junit(&xml);
    let document = roxmltree::Document::parse(&xml).unwrap();
    let suite = document
        .root_element()
        .children()
        .find(|n| n.attribute("name") == Some("loop"))
        .unwrap();
    let out = suite.children().find(|n| n.has_tag_name("system-out")).unwrap();
    assert!(out.text().unwrap_or("").starts_with("case-001:\nthinking\n"), "{xml}");
}
