//! `othello serve`'s games over HTTP on 127.0.0.1: a scrimmage of a student's program against the
//! engine to its end with its events stream, a person's game through `/moves`, the records
//! (a JSON log and a GGF that `othello replay` accepts), the stderr's 403s, and a SIGKILL in the
//! middle of games.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::server::{add_students, init, serve, serve_with, sign_in, upload};
use crate::common::{self, http};

/// Holds an answer to its documented schema (docs/schemas/NAME.json).
pub(crate) fn fits(name: &str, value: &Value) {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/schemas/{name}.json")))
            .unwrap(),
    )
    .unwrap();
    let mut errors = Vec::new();
    crate::json_outputs::check(&schema, &schema, value, "", &mut errors);
    assert!(errors.is_empty(), "{name}: {errors:?}\n{value}");
}

fn cookie(session: &str) -> String {
    format!("othello_session={session}")
}

fn get(address: &str, session: &str, path: &str) -> http::Reply {
    http::get(address, path, Some(&cookie(session)))
}

fn new_game(address: &str, session: &str, black: Value, white: Value) -> http::Reply {
    http::json(
        address,
        "POST",
        "/api/games",
        Some(session),
        &json!({"black": black, "white": white}),
    )
}

/// The game once `done` says so, asked every 20 ms for at most `within`.
fn wait_for(address: &str, session: &str, id: &Value, within: Duration, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let game = get(address, session, &format!("/api/games/{id}")).json();
        if done(&game) {
            return game;
        }
        assert!(
            start.elapsed() < within,
            "game {id} did not get there in {within:?}: {game}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The course's quickmove fixture, writing to stderr on every move (and the cores it may run on).
fn talkative_program() -> Vec<u8> {
    let mut program = super::server::example_program("quickmove");
    program.extend_from_slice(
        b"\nimport sys as _sys\n_first = quickMove\ndef quickMove(board, player):\n    print('ann thinks hard', file=_sys.stderr)\n    print([l for l in open('/proc/self/status') if l.startswith('Cpus_allowed_list')][0].strip(), file=_sys.stderr)\n    return _first(board, player)\n",
    );
    program
}

#[test]
fn a_scrimmage_plays_to_its_end_with_every_move_on_its_events_and_a_record_othello_replay_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher = init(&data);
    let students = add_students(&data, &["ann", "bob"]);
    let server = serve(&data);
    let address = &server.address;
    let (ann, bob) = (
        sign_in(address, "ann", &students[0].1),
        sign_in(address, "bob", &students[1].1),
    );
    let program = upload(address, &ann, "quickmove", "mine.py", &talkative_program()).json();
    assert_eq!(program["passed"], true, "{program}");
    let failing = upload(address, &ann, "strategy", "broken.py", b"class Strategy(:\n").json();

    // Choosing players: what is refused, and why.
    let refused = |session: &str, black: Value, white: Value, status: u16, says: &str| {
        let reply = new_game(address, session, black, white);
        assert_eq!(reply.status, status, "{reply:?}");
        let error = reply.json()["error"].as_str().unwrap().to_string();
        assert!(error.contains(says), "{error}");
    };
    refused(&ann, failing["id"].clone(), json!("random"), 400, "did not pass");
    refused(&bob, program["id"].clone(), json!("random"), 403, "has not opened");
    refused(&ann, json!("strategy:/etc/passwd"), json!("random"), 400, "bad player");
    refused(&ann, json!("engine:7"), json!("random"), 400, "bad player");
    refused(&ann, json!("me"), json!("me"), 400, "at most one person");
    refused(&ann, json!(9999), json!("random"), 404, "no program 9999");
    // The teacher opens ann's programs to the class: bob may now choose them.
    let teacher = sign_in(address, "teacher", &teacher);
    let opened = http::json(address, "PUT", "/api/students/ann", Some(&bob), &json!({"open": true}));
    assert_eq!(opened.status, 403);
    let opened = http::json(
        address,
        "PUT",
        "/api/students/ann",
        Some(&teacher),
        &json!({"open": true}),
    );
    assert_eq!(opened.status, 200, "{opened:?}");
    // The class as the teacher sees it; not a student's to see.
    let class = get(address, &teacher, "/api/students").json();
    fits("othello-server-students", &class);
    assert_eq!(class[0]["name"], "ann");
    assert_eq!((&class[0]["open"], &class[0]["versions"]), (&json!(true), &json!(2)));
    assert_eq!(
        class[0]["active"], program["id"],
        "the failing version is the latest, not the active"
    );
    assert_eq!(class[0]["latest"], failing["id"]);
    assert_eq!(class[1]["open"], false);
    assert_eq!(get(address, &bob, "/api/students").status, 403);

    // A newer version that passed is ann's active one: classmates play that one only.
    let newer = upload(address, &ann, "quickmove", "mine.py", &talkative_program()).json();
    refused(
        &bob,
        program["id"].clone(),
        json!("random"),
        403,
        "not ann's active version",
    );
    let program = newer;
    let game = new_game(address, &bob, program["id"].clone(), json!("engine:1"));
    assert_eq!(game.status, 200, "{game:?}");
    let game = game.json();
    let id = game["id"].clone();
    assert_eq!(game["black"]["name"], format!("ann's program #{}", program["id"]));
    assert_eq!(game["white"]["seat"], "engine:1");
    assert!(game["result"].is_null());

    // Watched from its start: a state, then every turn once, in order, then the end.
    let events = http::events(
        address,
        &format!("/api/games/{id}/events"),
        &cookie(&ann),
        "end",
        Duration::from_secs(120),
    );
    assert_eq!(events.first().map(|e| e.kind.as_str()), Some("state"), "{events:?}");
    assert_eq!(events.last().map(|e| e.kind.as_str()), Some("end"), "{events:?}");
    let views: Vec<Value> = events.iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    // Each event holds the whole game: each one's moves go on from the one before, a move (with
    // the pass it forces) at a time, to the end, which repeats the last with the result.
    // (A watcher that came before the game started hears it start: a state with no move.)
    for (pair, event) in views.windows(2).zip(&events[1..]) {
        let (before, after) = (
            pair[0]["moves"].as_array().unwrap(),
            pair[1]["moves"].as_array().unwrap(),
        );
        assert_eq!(&after[..before.len()], before.as_slice());
        let added = after.len() - before.len();
        let passes = after[before.len()..].iter().filter(|m| m["square"].is_null()).count();
        let expected = if event.kind == "move" { passes + 1 } else { 0 };
        assert_eq!(added, expected, "{} event: {added} turns at once", event.kind);
    }
    assert!(events[1..].iter().filter(|e| e.kind == "state").count() <= 1);
    let played = views.last().unwrap()["moves"].as_array().unwrap().len();
    assert!(played >= 20, "a whole game: {played} turns");
    for view in &views {
        fits("othello-server-game", view);
    }
    let end = views.last().unwrap();
    assert_eq!(end["status"], "finished");
    assert!(end["result"]["winner"].is_string(), "{end}");
    assert!(end["to_move"].is_null() && end["legal"].as_array().unwrap().is_empty());

    // The game as the API keeps it, and its records.
    let kept = get(address, &bob, &format!("/api/games/{id}")).json();
    assert_eq!(kept["moves"], end["moves"]);
    assert_eq!(kept["result"], end["result"]);
    assert!(kept["moves"][0]["seconds"].is_number(), "{kept}");
    let log = get(address, &bob, &format!("/api/games/{id}/log"));
    assert_eq!(log.status, 200);
    let ggf = get(address, &bob, &format!("/api/games/{id}/ggf"));
    assert!(ggf.body.starts_with("(;GM[Othello]"), "{}", ggf.body);
    for (name, text) in [("game.json", &log.body), ("game.ggf", &ggf.body)] {
        let file = dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        let replayed = common::othello(["replay"]).arg(&file).output().unwrap();
        assert!(
            replayed.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&replayed.stderr)
        );
    }
    // A finished game's events: its end at once.
    let again = http::events(
        address,
        &format!("/api/games/{id}/events"),
        &cookie(&bob),
        "end",
        Duration::from_secs(10),
    );
    assert_eq!(again.len(), 1);

    // The program's stderr: ann's and the teacher's to read, not bob's (who asked for the game).
    let stderr = get(address, &ann, &format!("/api/games/{id}/stderr"));
    assert_eq!(stderr.status, 200, "{stderr:?}");
    assert!(
        stderr.json()["black"].as_str().unwrap().contains("ann thinks hard"),
        "{stderr:?}"
    );
    assert!(stderr.json()["white"].is_null(), "the engine has no stderr");
    // A game of programs runs pinned to one core.
    let pinned = stderr.json()["black"]
        .as_str()
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    // (The tail shows a tab as \\t.)
    let cores = pinned
        .strip_prefix("Cpus_allowed_list:")
        .unwrap()
        .trim_start_matches("\\t")
        .trim();
    assert!(cores.parse::<usize>().is_ok(), "one core: {pinned:?}");
    assert_eq!(get(address, &teacher, &format!("/api/games/{id}/stderr")).status, 200);
    let hidden = get(address, &bob, &format!("/api/games/{id}/stderr"));
    assert_eq!(hidden.status, 403, "{hidden:?}");
    assert!(!hidden.body.contains("thinks"));
    // And the lists.
    let listed = get(address, &bob, "/api/games").json();
    fits("othello-server-games", &listed);
    fits("othello-server-program", &program);
    fits("othello-server-programs", &get(address, &ann, "/api/programs").json());
    fits("othello-server-error", &hidden.json());
    assert_eq!(listed[0]["id"], id);
    assert_eq!(get(address, "nobody", &format!("/api/games/{id}")).status, 401);
    assert_eq!(get(address, &bob, "/api/games/abc").status, 400);
    assert_eq!(get(address, &bob, "/api/games/12345").status, 404);
}

#[test]
fn a_person_plays_a_whole_game_through_moves_and_only_their_own_legal_moves_count() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init(&data);
    let students = add_students(&data, &["ann", "bob"]);
    let server = serve(&data);
    let address = &server.address;
    let (ann, bob) = (
        sign_in(address, "ann", &students[0].1),
        sign_in(address, "bob", &students[1].1),
    );
    let game = new_game(address, &ann, json!("engine:2"), json!("me")).json();
    let id = game["id"].clone();
    assert_eq!(game["white"]["name"], "ann");
    assert_eq!(game["white"]["clock"], "10 min a move");
    let moves = format!("/api/games/{id}/moves");
    let play =
        |session: &str, square: &str| http::json(address, "POST", &moves, Some(session), &json!({"square": square}));
    // Black (the engine) moves first: until it has, ann's move is refused.
    let mine = wait_for(address, &ann, &id, Duration::from_secs(30), |g| g["to_move"] == "white");
    assert_eq!(mine["moves"].as_array().unwrap().len(), 1);
    let legal: Vec<String> = mine["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    let not_legal = ["a1", "b2", "h8", "d4"]
        .into_iter()
        .find(|s| !legal.iter().any(|l| l == s))
        .unwrap();
    let refused = play(&ann, not_legal);
    assert_eq!(refused.status, 400, "{refused:?}");
    assert!(refused.json()["error"].as_str().unwrap().contains("not a legal move"));
    assert_eq!(play(&ann, "z9").status, 400);
    assert_eq!(play(&bob, &legal[0]).status, 403, "not bob's game");
    let mut turns = 0;
    let over = loop {
        let game = wait_for(address, &ann, &id, Duration::from_secs(60), |g| {
            g["to_move"] == "white" || !g["result"].is_null()
        });
        if !game["result"].is_null() {
            break game;
        }
        let square = game["legal"][0].as_str().unwrap().to_string();
        let reply = play(&ann, &square);
        assert_eq!(reply.status, 200, "{reply:?}");
        let after = reply.json();
        assert_eq!(after["id"], id);
        let last = after["moves"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["side"] == "white")
            .unwrap()
            .clone();
        assert_eq!(
            last["square"],
            square.as_str(),
            "the answer has the move on the board: {after}"
        );
        // Twice the same move: the second is not ann's turn any more (or no longer legal).
        assert!(matches!(play(&ann, &square).status, 400 | 409));
        turns += 1;
        assert!(turns <= 40);
    };
    assert_eq!(over["status"], "finished");
    fits("othello-server-game", &over);
    assert!(over["result"]["forfeit"].is_null(), "{over}");
    let (black, white) = (
        over["result"]["black"].as_u64().unwrap(),
        over["result"]["white"].as_u64().unwrap(),
    );
    assert!(black + white > 4 && turns >= 5, "{over}");
    assert_eq!(play(&ann, "a1").status, 409, "a game over takes no move");
    // A person has no stderr to read: nobody may.
    assert_eq!(get(address, &ann, &format!("/api/games/{id}/stderr")).status, 403);
}

#[test]
fn a_sigkill_keeps_finished_games_marks_running_ones_interrupted_and_the_queue_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init(&data);
    let students = add_students(&data, &["ann"]);
    let mut server = serve_with(&data, &["--games", "1"]);
    let address = server.address.clone();
    let ann = sign_in(&address, "ann", &students[0].1);
    let quick = new_game(&address, &ann, json!("greedy"), json!("random")).json();
    let finished = wait_for(&address, &ann, &quick["id"], Duration::from_secs(30), |g| {
        g["status"] == "finished"
    });
    // One core: the first scrimmage runs, the second waits for it.
    let long = new_game(&address, &ann, json!("engine:6"), json!("engine:6")).json();
    let waiting = new_game(&address, &ann, json!("weighted"), json!("engine:1")).json();
    let person = new_game(&address, &ann, json!("me"), json!("random")).json();
    let started = wait_for(&address, &ann, &long["id"], Duration::from_secs(30), |g| {
        g["moves"].as_array().is_some_and(|m| m.len() >= 2)
    });
    assert_eq!(started["status"], "running");
    assert_eq!(
        get(&address, &ann, &format!("/api/games/{}", waiting["id"])).json()["status"],
        "queued"
    );
    let reply = http::json(
        &address,
        "POST",
        &format!("/api/games/{}/moves", person["id"]),
        Some(&ann),
        &json!({"square": "d3"}),
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    wait_for(&address, &ann, &person["id"], Duration::from_secs(30), |g| {
        g["moves"].as_array().unwrap().len() >= 2
    });

    server.process.kill().unwrap();
    server.process.wait().unwrap();
    let server = serve_with(&data, &["--games", "1"]);
    let address = server.address.clone();
    // The session survived too.
    let kept = get(&address, &ann, &format!("/api/games/{}", quick["id"])).json();
    assert_eq!(kept["moves"], finished["moves"]);
    assert_eq!(kept["result"], finished["result"]);
    for game in [&long, &person] {
        let stopped = get(&address, &ann, &format!("/api/games/{}", game["id"])).json();
        assert_eq!(stopped["status"], "interrupted", "{stopped}");
        assert!(stopped["result"].is_null(), "not scored: {stopped}");
        assert!(
            stopped["moves"].as_array().unwrap().len() >= 2,
            "its moves kept: {stopped}"
        );
    }
    let played = wait_for(&address, &ann, &waiting["id"], Duration::from_secs(60), |g| {
        g["status"] == "finished"
    });
    assert!(played["result"]["winner"].is_string(), "{played}");
}

#[test]
fn a_program_that_fails_mid_game_forfeits_with_its_reason_never_a_tie() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init(&data);
    let students = add_students(&data, &["ann"]);
    let server = serve(&data);
    let address = &server.address;
    let ann = sign_in(address, "ann", &students[0].1);
    // It plays black well (so it passes its check game, where it is black) and, as white, an
    // illegal move after telling stderr.
    let mut program = super::server::example_program("quickmove");
    program.extend_from_slice(
        b"\nimport sys as _sys\n_first = quickMove\ndef quickMove(board, token):\n    if token == 'o':\n        print('white is not my colour', file=_sys.stderr)\n        return 99\n    return _first(board, token)\n",
    );
    let version = upload(address, &ann, "quickmove", "two-faced.py", &program).json();
    assert_eq!(version["passed"], true, "{version}");
    let game = new_game(address, &ann, json!("greedy"), version["id"].clone()).json();
    let over = wait_for(address, &ann, &game["id"], Duration::from_secs(60), |g| {
        g["status"] == "finished"
    });
    fits("othello-server-game", &over);
    let result = &over["result"];
    assert_eq!(result["winner"], "black", "a forfeit is a loss, not a tie: {over}");
    assert_eq!(result["forfeit"]["side"], "white");
    assert_eq!(result["forfeit"]["code"], -3);
    let reason = result["forfeit"]["reason"].as_str().unwrap();
    assert!(reason.contains("illegal move 99"), "{reason}");
    assert!(
        !over.to_string().contains("colour"),
        "its stderr is not for everyone: {over}"
    );
    let stderr = get(address, &ann, &format!("/api/games/{}/stderr", game["id"])).json();
    assert!(
        stderr["white"].as_str().unwrap().contains("white is not my colour"),
        "{stderr}"
    );
}

/// The two caps on games asked for: four unfinished an account, 256 on the whole server (the
/// queue and the games in memory are bounded whatever a class asks). People's games against the
/// engine wait for their first move: they hold their place without using a core.
#[test]
fn asking_past_four_games_an_account_or_256_on_the_server_is_refused_with_429() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init(&data);
    let names: Vec<String> = (0..65).map(|k| format!("s{k:02}")).collect();
    let students = add_students(&data, &names.iter().map(String::as_str).collect::<Vec<_>>());
    let server = serve(&data);
    let address = server.address.clone();
    let mut sessions: Vec<String> = students
        .iter()
        .map(|(name, password)| sign_in(&address, name, password))
        .collect();
    let last = sessions.pop().unwrap();
    for (k, session) in sessions.iter().enumerate() {
        for game in 0..4 {
            let reply = new_game(&address, session, json!("me"), json!("engine:1"));
            assert_eq!(reply.status, 200, "student {k}, game {game}: {reply:?}");
        }
        if k == 0 {
            let refused = new_game(&address, session, json!("me"), json!("engine:1"));
            assert_eq!(refused.status, 429);
            assert!(
                refused.json()["error"].as_str().unwrap().contains("you have 4 games"),
                "{refused:?}"
            );
        }
    }
    // 64 students, four each: the server's 256.
    let refused = new_game(&address, &last, json!("me"), json!("engine:1"));
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(
        refused.json()["error"].as_str().unwrap().contains("256 games"),
        "{refused:?}"
    );
    // Still serving: the list and a page answer.
    assert_eq!(get(&address, &last, "/api/games").status, 200);
}
