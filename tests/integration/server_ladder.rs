//! `othello serve`'s ladder over HTTP: a class of four playing pairs while the teacher has it
//! running, through a SIGKILL and a new version; the ratings recomputed here from the stored games
//! (each pair's points from its two games' results, Glicko-2 over the pairs in the order they
//! ended) come out as the server gives them.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use othello_course::rating::Rating;
use serde_json::{Value, json};

use super::server::{add_students, example_program, init, serve_with, sign_in, upload};
use crate::common::http;

fn get(address: &str, session: &str, path: &str) -> Value {
    http::get(address, path, Some(&format!("othello_session={session}"))).json()
}

/// Waits until `enough` says the ladder has gone far enough, checking on the way that no student
/// ever has more than one pair in play and the queue stays one pair deep (two games at once).
fn wait_for(address: &str, session: &str, enough: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let ladder = get(address, session, "/api/ladder");
        assert!(ladder["unfinished"].as_u64().unwrap() <= 1, "{ladder}");
        if enough(&ladder) {
            return ladder;
        }
        assert!(start.elapsed() < Duration::from_secs(180), "{ladder}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_ladder_rates_active_versions_and_its_ratings_are_its_stored_games() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher_password = init(&data);
    let students = add_students(&data, &["amy", "ben", "cat", "dan"]);
    let mut server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    let mut faulty = example_program("quickmove");
    faulty.extend_from_slice(
        b"\n_first = quickMove\ndef quickMove(board, token):\n    if token == 'o':\n        raise ValueError('not as white')\n    return _first(board, token)\n",
    );
    let programs: [(&str, Vec<u8>); 4] = [
        ("quickmove", example_program("quickmove")),
        ("argv", example_program("argv")),
        ("strategy", example_program("strategy")),
        ("quickmove", faulty),
    ];
    let mut versions = BTreeMap::new();
    for ((name, password), (form, program)) in students.iter().zip(&programs) {
        let session = sign_in(&address, name, password);
        let version = upload(&address, &session, form, "mine.py", program).json();
        assert_eq!(version["passed"], true, "{name}: {version}");
        versions.insert(name.clone(), version["id"].as_i64().unwrap());
    }
    let amy = sign_in(&address, "amy", &students[0].1);
    let teacher = sign_in(&address, "teacher", &teacher_password);
    let refused = http::json(&address, "PUT", "/api/ladder", Some(&amy), &json!({"running": true}));
    assert_eq!(refused.status, 403);
    let started = http::json(
        &address,
        "PUT",
        "/api/ladder",
        Some(&teacher),
        &json!({"running": true}),
    );
    assert_eq!(started.status, 200, "{started:?}");
    assert_eq!(started.json()["running"], true);

    // A few pairs, then a SIGKILL: the ladder runs on after the restart, the pair that was being
    // played played again.
    wait_for(&address, &teacher, |ladder| {
        ladder["pairs"].as_array().unwrap().len() >= 3
    });
    server.process.kill().unwrap();
    server.process.wait().unwrap();
    let server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    // amy's new version starts afresh; the old one keeps its rating.
    let newer = upload(&address, &amy, "quickmove", "v2.py", &example_program("quickmove")).json();
    assert_eq!(newer["passed"], true, "{newer}");
    let newer = newer["id"].as_i64().unwrap();
    wait_for(&address, &teacher, |ladder| {
        ladder["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["version"] == newer && r["pairs"].as_u64().unwrap() >= 2)
    });
    let stopped = http::json(
        &address,
        "PUT",
        "/api/ladder",
        Some(&teacher),
        &json!({"running": false}),
    )
    .json();
    assert_eq!(stopped["running"], false);
    let ladder = wait_for(&address, &teacher, |ladder| ladder["unfinished"] == 0);
    super::server_games::fits("othello-server-ladder", &ladder);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        get(&address, &teacher, "/api/ladder")["pairs"],
        ladder["pairs"],
        "stopped: no pair after the last"
    );

    // Recomputed from the stored games.
    let pairs = ladder["pairs"].as_array().unwrap();
    assert!(pairs.len() >= 5, "{ladder}");
    let mut rated: BTreeMap<i64, (Rating, Vec<f64>)> = BTreeMap::new();
    for (k, pair) in pairs.iter().enumerate() {
        assert_eq!(pair["order"].as_u64(), Some(k as u64 + 1), "in the order they ended");
        let (first, second) = (pair["first"].as_i64().unwrap(), pair["second"].as_i64().unwrap());
        let mut points = [0.0, 0.0];
        let mut blacks = Vec::new();
        for game in pair["games"].as_array().unwrap() {
            let game = get(&address, &teacher, &format!("/api/games/{game}"));
            assert_eq!(game["status"], "finished", "{game}");
            let black_is_first = game["black"]["seat"] == format!("program:{first}");
            blacks.push(black_is_first);
            let black = match game["result"]["winner"].as_str().unwrap() {
                "black" => 1.0,
                "white" => 0.0,
                _ => 0.5,
            };
            let first_points = if black_is_first { black } else { 1.0 - black };
            points[0] += first_points;
            points[1] += 1.0 - first_points;
        }
        assert_eq!(blacks, [true, false], "colours swapped: {pair}");
        assert_eq!(pair["points"], json!(points), "{pair}");
        let before = [first, second].map(|v| rated.get(&v).map_or_else(Rating::default, |r| r.0));
        for (side, version) in [first, second].into_iter().enumerate() {
            let opponent = before[1 - side];
            let own: f64 = points[side];
            let after = before[side].after(&[(opponent, own.min(1.0)), (opponent, (own - 1.0).max(0.0))], 0.5);
            let entry = rated.entry(version).or_insert((Rating::default(), Vec::new()));
            entry.0 = after;
            entry.1.push(after.rating);
        }
    }
    let ratings = ladder["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), rated.len());
    for r in ratings {
        let version = r["version"].as_i64().unwrap();
        let (expected, history) = &rated[&version];
        assert!((r["rating"].as_f64().unwrap() - expected.rating).abs() < 1e-9, "{r}");
        assert!(
            (r["deviation"].as_f64().unwrap() - expected.deviation).abs() < 1e-9,
            "{r}"
        );
        assert!(
            r["deviation"].as_f64().unwrap() < 350.0,
            "played pairs narrow the uncertainty"
        );
        let got: Vec<f64> = r["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["rating"].as_f64().unwrap())
            .collect();
        assert_eq!(got.len(), history.len(), "{r}");
    }
    let of = |version: i64| ratings.iter().find(|r| r["version"] == version).unwrap().clone();
    assert_eq!(of(versions["amy"])["active"], false, "amy's first version, kept");
    assert_eq!(of(newer)["active"], true);
    // The version that crashes as white loses every game as white: last.
    assert_eq!(ratings.last().unwrap()["student"], "dan", "{ladder}");
    // Fair: among the versions that played throughout, pairs differ by at most two.
    let counts: Vec<u64> = ["ben", "cat", "dan"]
        .iter()
        .map(|s| of(versions[*s])["pairs"].as_u64().unwrap())
        .collect();
    assert!(
        counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 2,
        "{counts:?}"
    );
    let page = http::get(&address, "/ladder", Some(&format!("othello_session={teacher}")));
    assert!(
        page.body.contains("Start the ladder") && page.body.contains("Older versions"),
        "{}",
        page.body
    );
}

/// Versions ask for 60 pairs: the ladder rests, still running, until a new version, which meets
/// the one that has had its pairs.
#[test]
fn the_ladder_rests_once_every_active_version_has_played_its_sixty_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher_password = init(&data);
    let students = add_students(&data, &["amy", "ben"]);
    let server = serve_with(&data, &["--games", "2"]);
    let address = server.address.clone();
    for (name, password) in &students {
        let session = sign_in(&address, name, password);
        let version = upload(
            &address,
            &session,
            "quickmove",
            "mine.py",
            &example_program("quickmove"),
        )
        .json();
        assert_eq!(version["passed"], true, "{version}");
    }
    let teacher = sign_in(&address, "teacher", &teacher_password);
    http::json(
        &address,
        "PUT",
        "/api/ladder",
        Some(&teacher),
        &json!({"running": true}),
    );
    let start = Instant::now();
    let ladder = loop {
        let ladder = get(&address, &teacher, "/api/ladder");
        if ladder["unfinished"] == 0 && ladder["pairs"].as_array().unwrap().len() >= 60 {
            break ladder;
        }
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "{}",
            ladder["pairs"].as_array().unwrap().len()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(ladder["running"], true);
    assert_eq!(ladder["pairs"].as_array().unwrap().len(), 60, "{ladder}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(get(&address, &teacher, "/api/ladder")["unfinished"], 0, "it rests");
    // A new version plays again, against the version that has had its pairs.
    let amy = sign_in(&address, &students[0].0, &students[0].1);
    let newer = upload(&address, &amy, "quickmove", "v2.py", &example_program("quickmove")).json();
    wait_for(&address, &teacher, |ladder| {
        ladder["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["version"] == newer["id"] && r["pairs"].as_u64().unwrap() >= 1)
    });
}
