//! `othello serve` under load, on loopback and bounded (a measurement, so `--ignored`: run it with
//! `cargo test --test integration -- --ignored server_load --nocapture`): 50 watchers (or
//! `OTHELLO_LOAD_WATCHERS`) on 4 live games, each move's delay from the server to every watcher (p50, p99, worst); then the server's
//! memory over 200 games. It prints its figures and holds them to the bounds.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::server::{add_students, init, serve_with, sign_in};
use crate::common::http;

/// Watchers, unless `OTHELLO_LOAD_WATCHERS` says (to find where the server's limit is).
fn watchers() -> usize {
    std::env::var("OTHELLO_LOAD_WATCHERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(50)
}
const LIVE_GAMES: usize = 4;
const GAMES_FOR_MEMORY: usize = 200;

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

/// A watcher: reads a game's events to its end, and keeps each move's delay (its arrival less the
/// time the server made it), in milliseconds.
fn watch(address: &str, session: &str, game: u64, delays: &Mutex<Vec<u64>>) -> usize {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    write!(
        stream,
        "GET /api/games/{game}/events HTTP/1.0\r\nHost: {address}\r\nCookie: othello_session={session}\r\n\r\n"
    )
    .unwrap();
    let (mut kind, mut moves) = (String::new(), 0);
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { break };
        if let Some(value) = line.strip_prefix("event: ") {
            kind = value.to_string();
        } else if let Some(data) = line.strip_prefix("data: ") {
            let arrived = now_ms();
            if kind == "move" {
                let view: Value = serde_json::from_str(data).unwrap();
                let made = view["clocks"]["at"].as_u64().unwrap();
                delays.lock().unwrap().push(arrived.saturating_sub(made));
                moves += 1;
            }
            if kind == "end" {
                break;
            }
        }
    }
    moves
}

fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap()
}

fn wait_finished(address: &str, session: &str, id: u64) {
    let start = Instant::now();
    loop {
        let game = http::get(
            address,
            &format!("/api/games/{id}"),
            Some(&format!("othello_session={session}")),
        )
        .json();
        if game["status"] == "finished" {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "game {id} never ended");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
#[ignore = "a measurement: run by name with --ignored"]
fn server_load_fifty_watchers_on_four_games_and_memory_over_two_hundred_games() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init(&data);
    let students = add_students(&data, &["ann", "bob"]);
    let server = serve_with(&data, &["--games", "4"]);
    let address = server.address.clone();
    let ann = sign_in(&address, "ann", &students[0].1);
    let bob = sign_in(&address, "bob", &students[1].1);

    // Four games of the engine against itself, long enough to watch, all running at once.
    let games: Vec<u64> = (0..LIVE_GAMES)
        .map(|_| {
            let reply = http::json(
                &address,
                "POST",
                "/api/games",
                Some(&ann),
                &json!({"black": "engine:5", "white": "engine:5"}),
            );
            assert_eq!(reply.status, 200, "{reply:?}");
            reply.json()["id"].as_u64().unwrap()
        })
        .collect();
    let delays = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let count = watchers();
    let watchers: Vec<_> = (0..count)
        .map(|k| {
            let (address, session, delays) = (address.clone(), bob.clone(), Arc::clone(&delays));
            let game = games[k % LIVE_GAMES];
            std::thread::spawn(move || watch(&address, &session, game, &delays))
        })
        .collect();
    let heard: usize = watchers.into_iter().map(|w| w.join().unwrap()).sum();
    let mut delays = delays.lock().unwrap().clone();
    delays.sort_unstable();
    let at = |share: f64| delays[((delays.len() as f64 * share) as usize).min(delays.len() - 1)];
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .map(|name| name.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_default();
    println!(
        "{count} watchers on {LIVE_GAMES} games (engine:5 against itself, --games 4) on {} cores of {cpu}: {heard} moves heard in {:.1} s; delay from the server to a watcher p50 {} ms, p99 {} ms, worst {} ms",
        std::thread::available_parallelism().map_or(1, usize::from),
        started.elapsed().as_secs_f64(),
        at(0.5),
        at(0.99),
        delays.last().unwrap()
    );
    assert!(heard >= count * 20, "every watcher heard its whole game: {heard}");
    assert!(at(0.99) <= 100, "p99 {} ms", at(0.99));

    // Memory over 200 quick games: measured after the first 20 and after all.
    let mut samples = Vec::new();
    for k in 0..GAMES_FOR_MEMORY {
        let reply = http::json(
            &address,
            "POST",
            "/api/games",
            Some(&ann),
            &json!({"black": "greedy", "white": "random"}),
        );
        assert_eq!(reply.status, 200, "{reply:?}");
        wait_finished(&address, &ann, reply.json()["id"].as_u64().unwrap());
        if k + 1 == 20 || k + 1 == GAMES_FOR_MEMORY {
            samples.push(resident_kib(server.process.id()));
        }
    }
    println!(
        "the server's resident memory: {} KiB after 20 games, {} KiB after {GAMES_FOR_MEMORY} (+{} KiB)",
        samples[0],
        samples[1],
        samples[1].saturating_sub(samples[0])
    );
    assert!(
        samples[1] <= samples[0] + 16 * 1024,
        "memory grew by more than 16 MiB: {samples:?}"
    );
}

/// A round robin of 30 programs (ten of each form, the course's example players) on the server:
/// its games an hour and their CPU time, with `OTHELLO_LOAD_GAMES` games at once (2: one a core,
/// pinned; 4: two a core, as the course's server runs four unpinned).
#[test]
#[ignore = "a measurement: run by name with --ignored"]
fn server_load_round_robin_of_thirty_programs() {
    let at_once = std::env::var("OTHELLO_LOAD_GAMES").unwrap_or_else(|_| "2".to_string());
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher_password = init(&data);
    let names: Vec<String> = (1..=30).map(|k| format!("s{k:02}")).collect();
    let students = add_students(&data, &names.iter().map(String::as_str).collect::<Vec<_>>());
    let server = serve_with(&data, &["--games", &at_once]);
    let address = server.address.clone();
    let (quickmove, argv, strategy) = (
        super::server::example_program("quickmove"),
        super::server::example_program("argv"),
        super::server::example_program("strategy"),
    );
    for (k, (name, password)) in students.iter().enumerate() {
        let session = sign_in(&address, name, password);
        let (form, program) = match k % 3 {
            0 => ("quickmove", &quickmove),
            1 => ("argv", &argv),
            _ => ("strategy", &strategy),
        };
        let version = super::server::upload(&address, &session, form, "p.py", program).json();
        assert_eq!(version["passed"], true, "{name}: {version}");
    }
    let teacher = sign_in(&address, "teacher", &teacher_password);
    let started = Instant::now();
    let tournament = http::json(
        &address,
        "POST",
        "/api/tournaments",
        Some(&teacher),
        &json!({"name": "throughput", "format": "round robin", "rounds": 1}),
    )
    .json();
    let id = tournament["id"].clone();
    let over = loop {
        let now = http::get(
            &address,
            &format!("/api/tournaments/{id}"),
            Some(&format!("othello_session={teacher}")),
        )
        .json();
        if now["status"] == "finished" {
            break now;
        }
        assert!(
            started.elapsed() < Duration::from_secs(3600),
            "it did not end: {}",
            now["finished"]
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let wall = started.elapsed().as_secs_f64();
    let games = over["list"].as_array().unwrap();
    let (mut cpu, mut longest) = (Vec::new(), 0.0f64);
    for line in games {
        let game = http::get(
            &address,
            &format!("/api/games/{}", line["id"]),
            Some(&format!("othello_session={teacher}")),
        )
        .json();
        cpu.push(game["clocks"]["black"].as_f64().unwrap() + game["clocks"]["white"].as_f64().unwrap());
        for step in game["moves"].as_array().unwrap() {
            longest = longest.max(step["seconds"].as_f64().unwrap_or(0.0));
        }
    }
    cpu.sort_by(f64::total_cmp);
    let mean = cpu.iter().sum::<f64>() / cpu.len() as f64;
    println!(
        "30 programs, round robin ({} games) with --games {at_once}: {wall:.1} s, {:.0} games an hour; the programs' CPU a game mean {mean:.3} s, median {:.3} s, the longest move {longest:.3} s",
        games.len(),
        games.len() as f64 * 3600.0 / wall,
        cpu[cpu.len() / 2]
    );
    assert_eq!(games.len(), 870);
}
