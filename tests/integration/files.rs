//! Files in and out: outputs that are inputs refused before any work, special and endless inputs
//! refused before a byte is read, logs through FIFOs and symlinks, and what a killed run left
//! behind swept by the next.

use crate::common;
use std::os::unix::fs::FileTypeExt;

#[test]
fn an_output_that_is_an_input_or_another_output_is_refused_and_nothing_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    common::othello(["selfplay", &path("d.txt"), "--games", "4", "--player", "greedy"])
        .assert()
        .success();
    let data = std::fs::read(path("d.txt")).unwrap();
    std::os::unix::fs::symlink(path("d.txt"), path("link")).unwrap();
    for out in ["d.txt", "link"] {
        common::othello(["train", &path("d.txt"), "--out", &path(out)])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "bad argument --out {}: that file is the training data {}",
                path(out),
                path("d.txt")
            )));
    }
    assert_eq!(
        std::fs::read(path("d.txt")).unwrap(),
        data,
        "the training data is intact"
    );

    common::othello(["cases", &path("cases"), "--count", "2"])
        .assert()
        .success();
    let expected = std::fs::read(path("cases/case-001.out")).unwrap();
    common::othello([
        "grade",
        &path("cases"),
        "--json",
        &path("cases/case-001.out"),
        "--",
        &common::othello_path(),
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains("that file is the case file"));
    assert_eq!(std::fs::read(path("cases/case-001.out")).unwrap(), expected);

    std::fs::write(path("X"), "OLD\n").unwrap();
    common::othello([
        "match",
        "greedy",
        "random",
        "--log",
        &path("X"),
        "--record",
        &path("./X"),
    ])
    .assert()
    .code(2)
    .stdout("")
    .stderr(predicates::str::contains("give each output its own file"));
    assert_eq!(std::fs::read_to_string(path("X")).unwrap(), "OLD\n");

    let player = path("player.py");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/players/quickmove_player.py"),
        &player,
    )
    .unwrap();
    let source = std::fs::read(&player).unwrap();
    common::othello(["lab4", &format!("quickmove:{player}"), "--games", "2", "--log", &player])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("that file is the player's file"));
    assert_eq!(
        std::fs::read(&player).unwrap(),
        source,
        "the student's program is intact"
    );
}

#[test]
fn endless_or_special_inputs_are_refused_before_a_byte_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo = fifo.to_str().unwrap();
    let w = dir.path().join("w.bin");
    let w = w.to_str().unwrap();
    for args in [
        vec!["train", "/dev/zero", "--out", w],
        vec!["train", fifo, "--out", w],
        vec!["probcut", "/dev/zero"],
        vec!["selfplay", "/dev/full", "--games", "1"],
        vec!["selfplay", fifo, "--games", "1"],
        vec!["analyze", "/dev/zero"],
        vec!["replay", fifo],
        vec!["diff", "/dev/zero", "/dev/zero"],
        vec!["solve", "--obf", "/dev/zero"],
    ] {
        common::othello(&args)
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains("regular file"));
    }
    assert!(!std::path::Path::new(w).exists());

    // One endless line in an otherwise good file.
    let big = dir.path().join("big.txt");
    std::fs::write(&big, format!("# othello selfplay 1: x\n{}\n", "0".repeat(1 << 20))).unwrap();
    common::othello(["train", big.to_str().unwrap(), "--out", w])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("line 2: longer than 64 KiB"));
}

#[test]
fn what_a_killed_run_left_behind_is_removed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    // A pid above the kernel's limit (4194304) never runs: these were left by dead runs.
    let stale_cases = dir.path().join(".othello-cases-9999999-AbCdEf");
    std::fs::create_dir(&stale_cases).unwrap();
    std::fs::write(stale_cases.join("case-001.args"), "").unwrap();
    let stale_report = dir.path().join(".r.csv.9999999-AbCdEf.tmp");
    std::fs::write(&stale_report, "half").unwrap();
    common::othello(["cases", "--count", "2"])
        .arg(dir.path().join("cases"))
        .assert()
        .success();
    assert!(!stale_cases.exists(), "the half-written case set was removed");
    common::othello(["grade", "--csv"])
        .arg(dir.path().join("r.csv"))
        .arg(dir.path().join("cases"))
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("othello"))
        .assert()
        .success();
    assert!(!stale_report.exists(), "the half-written report was removed");
    assert!(dir.path().join("r.csv").is_file());
}

#[test]
fn logs_write_through_fifos_and_follow_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    common::othello([
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--log",
        fifo.to_str().unwrap(),
    ])
    .assert()
    .success();
    let written = reader.join().unwrap();
    assert_eq!(written.lines().count(), 2, "both games went through the FIFO");
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "the FIFO is still a FIFO"
    );

    let target = dir.path().join("real.jsonl");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink("real.jsonl", &link).unwrap();
    common::othello([
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--log",
        link.to_str().unwrap(),
    ])
    .assert()
    .success();
    assert!(
        std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "the link stays a link"
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap().lines().count(),
        2,
        "its target holds the log"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
