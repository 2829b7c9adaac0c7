//! `othello serve`'s tournaments over HTTP: a class of eight programs of the three forms (two
//! faulty: one crashes as white, one hangs as white) in a round robin killed by SIGKILL in the
//! middle and finished after a restart (every game played exactly once), then a Swiss tournament
//! scored as the course's server did, then a Lab 4 check graded for every student; the standings,
//! crosstables and every forfeit's reason checked against the stored games.

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

/// Checks the standings and the crosstable against the tournament's games as the API keeps them,
/// computed here from the rules of its scoring: each player's points, games, forfeits, every
/// forfeit's reason, the cumulative points (the games in the order listed), and each pair's points.
fn check_standings(address: &str, session: &str, tournament: &Value) {
    let course_server = tournament["scoring"] == "course-server";
    let players: Vec<String> = tournament["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    #[derive(Default)]
    struct Tally {
        points: f64,
        games: u64,
        cumulative: f64,
        reasons: Vec<(u64, String, String)>,
        against: BTreeMap<String, f64>,
    }
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
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
        let ties = course_server && result["forfeit"]["server_code"].as_i64().is_some_and(|code| code <= -4);
        let (b, w) = match failed {
            Some(_) if ties => (0, 0),
            Some("black") => (0, 64),
            Some(_) => (64, 0),
            None => (result["black"].as_u64().unwrap(), result["white"].as_u64().unwrap()),
        };
        let score = |own: u64, other: u64| match own.cmp(&other) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
        for (name, opponent, own, other, side) in [(&black, &white, b, w, "black"), (&white, &black, w, b, "white")] {
            let entry = tally.entry(name.clone()).or_default();
            entry.points += score(own, other);
            entry.games += 1;
            entry.cumulative += entry.points;
            *entry.against.entry(opponent.clone()).or_default() += score(own, other);
            if failed == Some(side) {
                let reason = result["forfeit"]["reason"].as_str().unwrap().to_string();
                entry
                    .reasons
                    .push((line["round"].as_u64().unwrap(), side.to_string(), reason));
            }
        }
    }
    let standings = tournament["standings"].as_array().unwrap();
    assert_eq!(standings.len(), players.len());
    for standing in standings {
        let name = standing["player"].as_str().unwrap();
        let byes = standing["byes"].as_u64().unwrap();
        let expected = &tally[name];
        assert_eq!(
            standing["points"].as_f64().unwrap(),
            expected.points + 2.0 * byes as f64,
            "{name}: {standing}"
        );
        assert_eq!(standing["games"].as_u64().unwrap(), expected.games + 2 * byes);
        let reasons: Vec<(u64, String, String)> = standing["forfeit_reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["round"].as_u64().unwrap(),
                    r["color"].as_str().unwrap().to_string(),
                    r["failure"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(standing["forfeits"].as_u64().unwrap(), expected.reasons.len() as u64);
        assert_eq!(reasons.len(), expected.reasons.len(), "every reason: {standing}");
        for (got, want) in reasons.iter().zip(&expected.reasons) {
            assert_eq!((got.0, &got.1), (want.0, &want.1), "{name}");
            assert!(want.2.starts_with(&got.2), "{name}: {got:?} is the game's {want:?}");
        }
        if course_server {
            assert_eq!(standing["cumulative"].as_f64().unwrap(), expected.cumulative, "{name}");
        }
    }
    // Ranked by points, then the scoring's tie-break.
    for pair in standings.windows(2) {
        let key = |s: &Value| {
            (
                s["points"].as_f64().unwrap(),
                s["cumulative"].as_f64().unwrap(),
                s["discs"].as_i64().unwrap(),
            )
        };
        let (a, b) = (key(&pair[0]), key(&pair[1]));
        assert!(a.0 >= b.0, "{pair:?}");
        if a.0 == b.0 {
            assert!(if course_server { a.1 >= b.1 } else { a.2 >= b.2 }, "{pair:?}");
        }
    }
    for (i, row) in tournament["crosstable"].as_array().unwrap().iter().enumerate() {
        for (j, cell) in row.as_array().unwrap().iter().enumerate() {
            let expected = tally.get(&players[i]).and_then(|t| t.against.get(&players[j]).copied());
            assert_eq!(cell.as_f64(), expected, "{} against {}", players[i], players[j]);
        }
    }
}

#[test]
fn a_class_tournament_survives_a_sigkill_plays_every_game_once_and_its_standings_are_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher_password = init(&data);
    let names = ["amy", "ben", "cat", "dan", "eve", "fay", "gus", "hal"];
    let students = add_students(&data, &names);
    let mut server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    let programs: [(&str, Vec<u8>); 8] = [
        ("quickmove", example_program("quickmove")),
        ("argv", example_program("argv")),
        ("strategy", example_program("strategy")),
        ("quickmove", as_white("        raise ValueError('not as white')")),
        ("quickmove", as_white("        while True: pass")),
        ("argv", example_program("argv")),
        ("strategy", example_program("strategy")),
        ("quickmove", example_program("quickmove")),
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
    for (body, bad) in [
        (json!({"name": "x", "format": "knockout", "rounds": 1}), "knockout"),
        (
            json!({"name": "x", "format": "swiss", "rounds": 1, "scoring": "fide"}),
            "fide",
        ),
        (
            json!({"name": "x", "format": "swiss", "rounds": 1, "scoring": "course-server", "bye_opponent": "me"}),
            "me",
        ),
    ] {
        let refused = http::json(&address, "POST", "/api/tournaments", Some(&teacher), &body);
        assert_eq!(refused.status, 400, "{body}");
        assert!(refused.json()["error"].as_str().unwrap().contains(bad), "{refused:?}");
    }

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
    assert_eq!(tournament["games"], 56, "28 pairings, two games each: {tournament}");
    assert_eq!(tournament["players"], json!(names));
    assert_eq!(tournament["scoring"], "othello");

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
    assert!(finished < 56, "killed in the middle, not after the end");
    server.process.kill().unwrap();
    server.process.wait().unwrap();
    let server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    let over = wait_finished(&address, &teacher, &id, Duration::from_secs(400));
    assert_eq!(over["games"], 56, "none added, none lost: {over}");
    // Each pairing's two games, one with each colour, each played to its end once.
    let mut seen = std::collections::BTreeSet::new();
    for line in over["list"].as_array().unwrap() {
        assert_eq!(line["status"], "finished");
        assert!(
            seen.insert((line["black"].to_string(), line["white"].to_string())),
            "twice: {line}"
        );
    }
    assert_eq!(seen.len(), 56);
    check_standings(&address, &teacher, &over);
    super::server_games::fits("othello-server-tournament", &over);
    super::server_games::fits(
        "othello-server-tournaments",
        &get(&address, &teacher, "/api/tournaments"),
    );
    let standing = |over: &Value, name: &str| {
        over["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == name)
            .unwrap()
            .clone()
    };
    // dan and eve forfeit every game they play as white, with its reason and the server's code.
    for (name, reason, code) in [("dan", "not as white", -2), ("eve", "time-out", -4)] {
        let reasons = standing(&over, name)["forfeit_reasons"].as_array().unwrap().clone();
        assert_eq!(reasons.len(), 7, "{name}: {reasons:?}");
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
    assert_eq!(csv.body.lines().count(), 9);
    assert!(
        csv.body
            .lines()
            .all(|line| line.contains(",othello,") || line.contains(",scoring,"))
    );
    let page = http::get(
        &address,
        &format!("/tournaments/{id}"),
        Some(&format!("othello_session={teacher}")),
    );
    assert!(page.body.contains("Lab 6 &lt;b&gt;round robin&lt;/b&gt;"), "escaped");
    assert!(page.body.contains("56 of 56 games played"), "{}", page.body);
    assert!(
        page.body.contains("Scoring: othello&#39;s scoring") || page.body.contains("Scoring: othello's scoring"),
        "{}",
        page.body
    );

    // A Swiss tournament of three rounds scored as the course's server did: eve's time-outs tie,
    // ties in points go by the cumulative points, rounds pair by points (3 < 8 - 1: each with
    // the next one not met, so no rematch here).
    let swiss = http::json(
        &address,
        "POST",
        "/api/tournaments",
        Some(&teacher),
        &json!({"name": "Swiss", "format": "swiss", "rounds": 3, "scoring": "course-server"}),
    )
    .json();
    assert_eq!(swiss["games"], 8, "its first round: {swiss}");
    assert_eq!(swiss["scoring"], "course-server");
    let over = wait_finished(&address, &teacher, &swiss["id"], Duration::from_secs(240));
    assert_eq!(over["games"], 24, "{over}");
    check_standings(&address, &teacher, &over);
    let mut pairs = std::collections::BTreeSet::new();
    for line in over["list"].as_array().unwrap() {
        let mut pair = [line["black"].to_string(), line["white"].to_string()];
        pair.sort();
        pairs.insert(pair);
    }
    assert_eq!(
        pairs.len(),
        12,
        "twelve different pairings over three rounds: {pairs:?}"
    );
    let eve = standing(&over, "eve");
    assert!(eve["forfeits"].as_u64().unwrap() > 0, "{eve}");
    assert_eq!(
        eve["losses"].as_u64().unwrap() + eve["draws"].as_u64().unwrap() + eve["wins"].as_u64().unwrap(),
        6
    );
    assert!(
        eve["draws"].as_u64().unwrap() >= eve["forfeits"].as_u64().unwrap(),
        "her time-outs tie: {eve}"
    );
    let page = http::get(
        &address,
        &format!("/tournaments/{}", swiss["id"]),
        Some(&format!("othello_session={teacher}")),
    );
    assert!(page.body.contains("<th>cumulative</th>"), "{}", page.body);

    // A Lab 4 check, graded for every student: the two faulty programs lose as white.
    let check = http::json(
        &address,
        "POST",
        "/api/checks",
        Some(&teacher),
        &json!({"name": "Lab 4", "opponent": "random", "games": 4, "measure": "discs", "pass": 0.5}),
    );
    assert_eq!(check.status, 200, "{check:?}");
    let start = Instant::now();
    let runs = loop {
        let runs = get(&address, &teacher, "/api/checks")[0]["runs"]
            .as_array()
            .unwrap()
            .clone();
        if runs.len() == 8 && runs.iter().all(|r| !r["passed"].is_null()) {
            break runs;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{runs:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    for name in names {
        let run = runs.iter().find(|r| r["student"] == name).unwrap();
        assert_eq!(run["passed"], !["dan", "eve"].contains(&name), "{name}: {run}");
    }
    let grades = http::get(&address, "/api/grades.csv", Some(&format!("othello_session={teacher}")));
    assert_eq!(grades.body.lines().count(), 9, "{}", grades.body);
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
    // The class page: each student's best run of each check.
    let class = http::get(&address, "/class", Some(&format!("othello_session={teacher}"))).body;
    assert!(
        class.contains("Lab 4: half the discs against random (best run)"),
        "{class}"
    );
    assert!(
        class.contains(&format!("#{}</a> <span class=\"ok\">passed</span>", fixed["id"])),
        "{class}"
    );
}

#[test]
fn the_teacher_sees_a_version_disables_versions_and_students_and_every_change_is_in_the_audit_log() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher_password = init(&data);
    let students = add_students(&data, &["amy", "ben", "cat"]);
    // One game at a time, so that a long game keeps the others queued.
    let server = serve_with(&data, &["--games", "1"]);
    let address = server.address.clone();
    let session = |k: usize| sign_in(&address, &students[k].0, &students[k].1);
    let (amy, ben, cat) = (session(0), session(1), session(2));
    let id = |reply: http::Reply| {
        let version = reply.json();
        assert_eq!(version["passed"], true, "{version}");
        version["id"].as_i64().unwrap()
    };
    let amy_v1 = id(upload(
        &address,
        &amy,
        "quickmove",
        "a.py",
        &example_program("quickmove"),
    ));
    let amy_v2 = id(upload(
        &address,
        &amy,
        "strategy",
        "a2.py",
        &example_program("strategy"),
    ));
    let ben_v = id(upload(
        &address,
        &ben,
        "quickmove",
        "b.py",
        &as_white("        raise ValueError('not as white')"),
    ));
    id(upload(&address, &cat, "argv", "c.py", &example_program("argv")));
    let teacher = sign_in(&address, "teacher", &teacher_password);
    let cookie = |session: &str| format!("othello_session={session}");
    let page = |session: &str, path: &str| http::get(&address, path, Some(&cookie(session)));

    // ben's version as the teacher and ben see it: its game as white lost, with its stderr.
    let game = http::json(
        &address,
        "POST",
        "/api/games",
        Some(&teacher),
        &json!({"black": "random", "white": ben_v}),
    )
    .json();
    let start = Instant::now();
    while get(&address, &teacher, &format!("/api/games/{}", game["id"]))["status"] != "finished" {
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(100));
    }
    let detail = get(&address, &ben, &format!("/api/programs/{ben_v}"));
    super::server_games::fits("othello-server-version", &detail);
    assert_eq!(detail["active"], true);
    let played = &detail["games"][0];
    assert_eq!(
        (played["side"].as_str(), played["outcome"].as_str()),
        (Some("white"), Some("lost")),
        "{detail}"
    );
    assert!(played["failure"].as_str().unwrap().contains("not as white"), "{played}");
    assert!(played["stderr"].as_str().unwrap().contains("ValueError"), "{played}");
    assert_eq!(
        http::get(&address, &format!("/api/programs/{ben_v}"), Some(&cookie(&amy))).status,
        403
    );
    let shown = page(&ben, &format!("/programs/{ben_v}")).body;
    assert!(
        shown.contains("not as white") && shown.contains("class=\"stderr\""),
        "{shown}"
    );

    // The queue: a long game running, amy's newer version's game queued behind it.
    let long = http::json(
        &address,
        "POST",
        "/api/games",
        Some(&teacher),
        &json!({"black": "engine:6", "white": "engine:6"}),
    )
    .json();
    let queued = http::json(
        &address,
        "POST",
        "/api/games",
        Some(&amy),
        &json!({"black": amy_v2, "white": "random"}),
    )
    .json();
    let queue = get(&address, &teacher, "/api/queue");
    super::server_games::fits("othello-server-games", &queue);
    let ids: Vec<&Value> = queue.as_array().unwrap().iter().map(|g| &g["id"]).collect();
    assert_eq!(ids, [&long["id"], &queued["id"]], "{queue}");
    assert_eq!(queue[1]["asked_by"], "amy");
    assert_eq!(queue[1]["kind"], "asked");
    assert_eq!(http::get(&address, "/api/queue", Some(&cookie(&amy))).status, 403);
    assert!(page(&teacher, "/queue").body.contains(&format!("#{}", queued["id"])));

    // Disabling amy's newer version: her older one is active again, the queued game leaves the
    // queue, and the version can be chosen no more.
    let refused = http::json(
        &address,
        "PUT",
        &format!("/api/programs/{amy_v2}"),
        Some(&amy),
        &json!({"disabled": true}),
    );
    assert_eq!(refused.status, 403);
    let done = http::json(
        &address,
        "PUT",
        &format!("/api/programs/{amy_v2}"),
        Some(&teacher),
        &json!({"disabled": true}),
    );
    assert_eq!(done.status, 200, "{done:?}");
    assert_eq!(
        get(&address, &teacher, &format!("/api/games/{}", queued["id"]))["status"],
        "interrupted"
    );
    let class = get(&address, &teacher, "/api/students");
    let of = |class: &Value, name: &str| {
        class
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(of(&class, "amy")["active"], amy_v1);
    let chosen = http::json(
        &address,
        "POST",
        "/api/games",
        Some(&amy),
        &json!({"black": amy_v2, "white": "random"}),
    );
    assert_eq!(chosen.status, 400);
    assert!(
        chosen.json()["error"].as_str().unwrap().contains("disabled"),
        "{chosen:?}"
    );

    // Disabling cat: her session ends, she cannot sign in, she has no active version; enabled
    // again, she can.
    let done = http::json(
        &address,
        "PUT",
        "/api/students/cat",
        Some(&teacher),
        &json!({"disabled": true}),
    );
    assert_eq!(done.status, 200, "{done:?}");
    assert_eq!(http::get(&address, "/api/me", Some(&cookie(&cat))).status, 401);
    let again = http::json(
        &address,
        "POST",
        "/api/session",
        None,
        &json!({"name": "cat", "password": students[2].1}),
    );
    assert_eq!(again.status, 401);
    let class = get(&address, &teacher, "/api/students");
    assert_eq!(
        (
            of(&class, "cat")["disabled"].as_bool(),
            of(&class, "cat")["active"].is_null()
        ),
        (Some(true), true)
    );
    assert_eq!(
        http::json(&address, "PUT", "/api/students/cat", Some(&teacher), &json!({})).status,
        400,
        "nothing to change"
    );
    http::json(
        &address,
        "PUT",
        "/api/students/cat",
        Some(&teacher),
        &json!({"disabled": false}),
    );
    sign_in(&address, "cat", &students[2].1);

    // Every change, who made it and when.
    let audit = get(&address, &teacher, "/api/audit");
    super::server_games::fits("othello-server-audit", &audit);
    let lines: Vec<(String, String, String)> = audit
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|line| {
            assert!(line["at"].as_str().unwrap().starts_with("20"), "{line}");
            let text = |key: &str| line[key].as_str().unwrap().to_string();
            (text("actor"), text("action"), text("target"))
        })
        .collect();
    let line = |actor: &str, action: &str, target: &str| (actor.to_string(), action.to_string(), target.to_string());
    for expected in [
        line("command line", "made the teacher's account", "teacher"),
        line("command line", "added the student", "cat"),
        line("amy", "uploaded a strategy program", &format!("version #{amy_v2}")),
        line("teacher", "disabled the version", &format!("version #{amy_v2}")),
        line("teacher", "disabled the student", "cat"),
        line("teacher", "enabled the student", "cat"),
    ] {
        assert!(lines.contains(&expected), "{expected:?} in {lines:?}");
    }
    assert!(lines.iter().any(|(actor, action, target)| actor == "amy"
        && action.starts_with("asked for a game")
        && *target == format!("game #{}", queued["id"])));
    let order = |wanted: &(String, String, String)| lines.iter().position(|l| l == wanted).unwrap();
    assert!(
        order(&line("teacher", "disabled the student", "cat")) < order(&line("teacher", "enabled the student", "cat"))
    );
    assert_eq!(http::get(&address, "/api/audit", Some(&cookie(&amy))).status, 403);
    // A name made of markup shows as text on the pages that list it.
    let hostile = "<script>alert(1)</script>\"'";
    let check = http::json(
        &address,
        "POST",
        "/api/checks",
        Some(&teacher),
        &json!({"name": hostile, "opponent": "random", "games": 1, "measure": "wins", "pass": 0.5}),
    );
    assert_eq!(check.status, 200, "{check:?}");
    for path in ["/checks", "/audit", "/class"] {
        let body = page(&teacher, path).body;
        assert!(!body.contains("<script>alert"), "{path}: {body}");
    }
    assert!(
        page(&teacher, "/checks")
            .body
            .contains("&lt;script&gt;alert(1)&lt;/script&gt;")
    );
    for path in ["/audit", "/students/amy", "/class", "/queue", "/ladder"] {
        assert_eq!(page(&teacher, path).status, 200, "{path}");
    }
    for path in ["/audit", "/students/amy", "/class", "/queue"] {
        assert_eq!(page(&amy, path).status, 403, "{path} is the teacher's");
    }
    assert!(
        page(&teacher, "/students/amy")
            .body
            .contains("class=\"disable-version\"")
    );
}
