//! `othello serve`'s tournaments over HTTP: a class of four (two sound programs, one that plays an
//! illegal move as white, one that hangs as white) in a round robin killed by SIGKILL in the middle
//! and finished after a restart (every game played exactly once), then a Swiss tournament; the
//! standings and every forfeit's reason checked against the stored games.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::server::{add_students, example_program, init, serve_with, sign_in, upload};
use crate::common::http;

fn get(address: &str, session: &str, path: &str) -> Value {
    http::get(address, path, Some(&format!("othello_session={session}"))).json()
}

/// The example quickmove program, which as white does `white` instead (it passes its check game,
/// where it plays black).
fn as_white(white: &str) -> Vec<u8> {
    let mut program = example_program("quickmove");
    program.extend_from_slice(
        format!("\n_first = quickMove\ndef quickMove(board, token):\n    if token == 'o':\n{white}\n    return _first(board, token)\n").as_bytes(),
    );
    program
}

fn wait_finished(address: &str, session: &str, id: &Value, within: Duration) -> Value {
    let start = Instant::now();
    loop {
        let tournament = get(address, session, &format!("/api/tournaments/{id}"));
        if tournament["status"] == "finished" {
            return tournament;
        }
        assert!(start.elapsed() < within, "tournament {id} did not end: {tournament}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Checks the standings against the tournament's games as the API keeps them: each player's
/// points, games, forfeits and the reasons of every forfeit.
fn check_standings(address: &str, session: &str, tournament: &Value) {
    let mut points: BTreeMap<String, (f64, u64, u64)> = BTreeMap::new();
    for line in tournament["list"].as_array().unwrap() {
        assert_eq!(line["status"], "finished", "{line}");
        let game = get(address, session, &format!("/api/games/{}", line["id"]));
        let result = &game["result"];
        // A game names a side `amy's program #3`; the standings, the student.
        let owner = |side: &str| {
            line[side]
                .as_str()
                .unwrap()
                .split("'s program")
                .next()
                .unwrap()
                .to_string()
        };
        let (black, white) = (owner("black"), owner("white"));
        let failed = result["forfeit"]["side"].as_str();
        let (b, w) = match failed {
            Some("black") => (0, 64),
            Some(_) => (64, 0),
            None => (result["black"].as_u64().unwrap(), result["white"].as_u64().unwrap()),
        };
        let score = |own: u64, other: u64| match own.cmp(&other) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
        for (name, own, other, side) in [(black, b, w, "black"), (white, w, b, "white")] {
            let entry = points.entry(name).or_default();
            entry.0 += score(own, other);
            entry.1 += 1;
            entry.2 += u64::from(failed == Some(side));
        }
    }
    for standing in tournament["standings"].as_array().unwrap() {
        let name = standing["player"].as_str().unwrap();
        let byes = standing["byes"].as_u64().unwrap();
        let (expected, games, forfeits) = points[name];
        assert_eq!(
            standing["points"].as_f64().unwrap(),
            expected + 2.0 * byes as f64,
            "{name}: {standing}"
        );
        assert_eq!(standing["games"].as_u64().unwrap(), games + 2 * byes);
        assert_eq!(standing["forfeits"].as_u64().unwrap(), forfeits);
        assert_eq!(
            standing["forfeit_reasons"].as_array().unwrap().len() as u64,
            forfeits,
            "every reason: {standing}"
        );
    }
}

#[test]
fn a_class_tournament_survives_a_sigkill_plays_every_game_once_and_its_standings_are_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher_password = init(&data);
    let students = add_students(&data, &["amy", "ben", "dan", "eve"]);
    let mut server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    let programs: [(&str, Vec<u8>); 4] = [
        ("quickmove", example_program("quickmove")),
        ("argv", example_program("argv")),
        ("quickmove", as_white("        return 99")),
        ("quickmove", as_white("        while True: pass")),
    ];
    for ((name, password), (form, program)) in students.iter().zip(&programs) {
        let session = sign_in(&address, name, password);
        let version = upload(&address, &session, form, "mine.py", program).json();
        assert_eq!(version["passed"], true, "{name}: {version}");
    }
    let teacher = sign_in(&address, "teacher", &teacher_password);
    let refused = http::json(
        &address,
        "POST",
        "/api/tournaments",
        Some(&sign_in(&address, "amy", &students[0].1)),
        &json!({"name": "mine", "format": "round robin", "rounds": 1}),
    );
    assert_eq!(refused.status, 403, "a student starts none");
    let bad = http::json(
        &address,
        "POST",
        "/api/tournaments",
        Some(&teacher),
        &json!({"name": "x", "format": "knockout", "rounds": 1}),
    );
    assert_eq!(bad.status, 400);
    assert!(bad.json()["error"].as_str().unwrap().contains("knockout"));

    let started = http::json(
        &address,
        "POST",
        "/api/tournaments",
        Some(&teacher),
        &json!({"name": "Lab 6 <b>round robin</b>", "format": "round robin", "rounds": 1}),
    );
    assert_eq!(started.status, 200, "{started:?}");
    let tournament = started.json();
    let id = tournament["id"].clone();
    assert_eq!(tournament["games"], 12, "six pairings, two games each: {tournament}");
    assert_eq!(tournament["players"], json!(["amy", "ben", "dan", "eve"]));

    // Killed once a few games are over, and started again: it goes on to its end.
    let start = Instant::now();
    let finished = loop {
        let finished = get(&address, &teacher, &format!("/api/tournaments/{id}"))["finished"]
            .as_u64()
            .unwrap();
        if finished >= 3 {
            break finished;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no game ended");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(finished < 12, "killed in the middle, not after the end");
    server.process.kill().unwrap();
    server.process.wait().unwrap();
    let server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    let over = wait_finished(&address, &teacher, &id, Duration::from_secs(240));
    assert_eq!(over["games"], 12, "none added, none lost: {over}");
    // Each pairing's two games, one with each colour, each played to its end once.
    let mut seen = std::collections::BTreeSet::new();
    for line in over["list"].as_array().unwrap() {
        assert_eq!(line["status"], "finished");
        assert!(
            seen.insert((line["black"].to_string(), line["white"].to_string())),
            "twice: {line}"
        );
    }
    assert_eq!(seen.len(), 12);
    check_standings(&address, &teacher, &over);
    super::server_games::fits("othello-server-tournament", &over);
    super::server_games::fits(
        "othello-server-tournaments",
        &get(&address, &teacher, "/api/tournaments"),
    );
    let standing = |name: &str| {
        over["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == name)
            .unwrap()
            .clone()
    };
    // dan and eve forfeit every game they play as white, with its reason and the server's code.
    for (name, reason, code) in [("dan", "illegal move 99", -2), ("eve", "time-out", -4)] {
        let reasons = standing(name)["forfeit_reasons"].as_array().unwrap().clone();
        assert_eq!(reasons.len(), 3, "{name}: {reasons:?}");
        for r in &reasons {
            assert_eq!(r["color"], "white");
            assert!(r["failure"].as_str().unwrap().contains(reason), "{name}: {r}");
            assert_eq!(r["server_code"], code, "{name}: {r}");
        }
    }
    let csv = http::get(
        &address,
        &format!("/api/tournaments/{id}/csv"),
        Some(&format!("othello_session={teacher}")),
    );
    assert_eq!(csv.status, 200);
    assert!(csv.body.starts_with("rank,player,points"), "{}", csv.body);
    assert_eq!(csv.body.lines().count(), 5);
    let page = http::get(
        &address,
        &format!("/tournaments/{id}"),
        Some(&format!("othello_session={teacher}")),
    );
    assert!(page.body.contains("Lab 6 &lt;b&gt;round robin&lt;/b&gt;"), "escaped");
    assert!(page.body.contains("12 of 12 games played"), "{}", page.body);

    // A Swiss tournament of two rounds: two pairings a round, no rematch.
    let swiss = http::json(
        &address,
        "POST",
        "/api/tournaments",
        Some(&teacher),
        &json!({"name": "Swiss", "format": "swiss", "rounds": 2}),
    )
    .json();
    assert_eq!(swiss["games"], 4, "its first round: {swiss}");
    let over = wait_finished(&address, &teacher, &swiss["id"], Duration::from_secs(240));
    assert_eq!(over["games"], 8, "{over}");
    check_standings(&address, &teacher, &over);
    let mut pairs = std::collections::BTreeSet::new();
    for line in over["list"].as_array().unwrap() {
        let mut pair = [line["black"].to_string(), line["white"].to_string()];
        pair.sort();
        pairs.insert(pair);
    }
    assert_eq!(pairs.len(), 4, "four different pairings over two rounds: {pairs:?}");
}

#[test]
fn lab_checks_run_on_every_active_and_every_new_version_and_make_a_gradebook() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher_password = init(&data);
    let students = add_students(&data, &["amy", "dan", "zoe"]);
    let server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    let session = |k: usize| sign_in(&address, &students[k].0, &students[k].1);
    let (amy, dan) = (session(0), session(1));
    assert_eq!(
        upload(&address, &amy, "quickmove", "a.py", &example_program("quickmove")).json()["passed"],
        true
    );
    let faulty = upload(&address, &dan, "quickmove", "d.py", &as_white("        return 99")).json();
    assert_eq!(faulty["passed"], true, "{faulty}");
    let teacher = sign_in(&address, "teacher", &teacher_password);
    let body = json!({"name": "Lab 4: half the discs against random", "opponent": "random", "games": 4, "measure": "discs", "pass": 0.5});
    assert_eq!(
        http::json(&address, "POST", "/api/checks", Some(&amy), &body).status,
        403
    );
    let bad = http::json(
        &address,
        "POST",
        "/api/checks",
        Some(&teacher),
        &json!({"name": "x", "opponent": "random", "games": 4, "measure": "speed", "pass": 0.5}),
    );
    assert_eq!(bad.status, 400);
    let check = http::json(&address, "POST", "/api/checks", Some(&teacher), &body);
    assert_eq!(check.status, 200, "{check:?}");
    assert_eq!(
        check.json()["runs"].as_array().unwrap().len(),
        2,
        "amy's and dan's, not zoe's (no program)"
    );
    let done = |want: usize| {
        let start = Instant::now();
        loop {
            let checks = get(&address, &teacher, "/api/checks");
            let runs = checks[0]["runs"].as_array().unwrap().clone();
            if runs.len() == want && runs.iter().all(|r| !r["passed"].is_null()) {
                super::server_games::fits("othello-server-checks", &checks);
                return runs;
            }
            assert!(start.elapsed() < Duration::from_secs(120), "{checks}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let runs = done(2);
    let of = |runs: &[Value], student: &str| runs.iter().find(|r| r["student"] == student).unwrap().clone();
    assert_eq!(of(&runs, "amy")["passed"], true, "{runs:?}");
    // dan's program loses every game as white 0 to 64: under half the discs.
    let dan_run = of(&runs, "dan");
    assert_eq!(dan_run["passed"], false, "{dan_run}");
    assert!(dan_run["share"].as_f64().unwrap() < 0.5);
    // A new version that passes its check game is checked by itself.
    let fixed = upload(&address, &dan, "quickmove", "d2.py", &example_program("quickmove")).json();
    let runs = done(3);
    let newest = runs.iter().find(|r| r["program"] == fixed["id"]).unwrap();
    assert_eq!(newest["passed"], true, "{runs:?}");
    // The gradebook: each student's best run; zoe has none.
    let csv = http::get(&address, "/api/grades.csv", Some(&format!("othello_session={teacher}")));
    assert_eq!(csv.status, 200);
    let lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(
        lines[0],
        "student,Lab 4: half the discs against random (share),Lab 4: half the discs against random (passed)"
    );
    assert!(
        lines[1].starts_with("amy,") && lines[1].ends_with(",yes"),
        "{}",
        csv.body
    );
    assert!(
        lines[2].starts_with("dan,") && lines[2].ends_with(",yes"),
        "{}",
        csv.body
    );
    assert_eq!(lines[3], "zoe,,");
    let results = get(&address, &teacher, "/api/students/dan/results.json");
    assert_eq!(results["score"], 1, "{results}");
    assert_eq!(results["tests"][0]["max_score"], 1);
    assert!(results["tests"][0]["output"].as_str().unwrap().contains("of the discs"));
    assert_eq!(get(&address, &teacher, "/api/students/zoe/results.json")["score"], 0);
    assert_eq!(
        http::get(&address, "/api/grades.csv", Some(&format!("othello_session={amy}"))).status,
        403
    );
}
