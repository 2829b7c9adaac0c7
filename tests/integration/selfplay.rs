//! `othello selfplay`: the same data on any thread count, shards that add up to the whole, a stopped
//! run that continues where it was, and settings that must match the file's.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use predicates::prelude::*;

/// Quick settings for tests: a shallow player, few solved squares.
const QUICK: [&str; 6] = [
    "--player",
    "alphabeta:2:mobility",
    "--exact-empties",
    "10",
    "--seed",
    "9",
];

fn selfplay(file: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    let mut args = vec!["selfplay", file.to_str().unwrap()];
    args.extend(QUICK);
    args.extend(extra);
    common::othello(args).assert()
}

/// `othello train DATA --out OUT` with `extra` options.
fn train(data: &Path, out: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    let mut args = vec!["train", data.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend(extra);
    common::othello(args).assert()
}

/// Twelve games of an engine, whose files carry its search values.
fn engine_selfplay(file: &Path) -> assert_cmd::assert::Assert {
    let args = ["--games", "12", "--player", "engine:nodes=2000", "--exact-empties", "8"];
    common::othello(["selfplay", file.to_str().unwrap()].into_iter().chain(args)).assert()
}

/// Each game's block of lines (its `#done` line included), by game index; the header apart.
fn blocks(text: &str) -> (String, BTreeMap<u64, String>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let mut blocks: BTreeMap<u64, String> = BTreeMap::new();
    for line in lines {
        let game = line
            .trim_start_matches("#done ")
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        *blocks.entry(game).or_default() += &format!("{line}\n");
    }
    (header, blocks)
}

#[test]
fn the_data_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one.txt"), dir.path().join("two.txt"));
    selfplay(&one, &["--games", "6", "--threads", "1"])
        .success()
        .stdout(predicates::str::contains("shard 0/1: 6 games with"));
    selfplay(&two, &["--games", "6", "--threads", "2"]).success();
    let text = std::fs::read_to_string(&one).unwrap();
    assert_eq!(text, std::fs::read_to_string(&two).unwrap());
    let header =
        "# othello selfplay 2: player=alphabeta:2:mobility opening=2..12 random=5% exact=10 seed=9 shard=0/1\n";
    assert!(text.starts_with(header), "{text:.200}");
    let (_, games) = blocks(&text);
    assert_eq!(games.keys().copied().collect::<Vec<_>>(), (0..6).collect::<Vec<_>>());
    // Every position line reads back, exact ones only at 10 empties or fewer.
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        let (_, sample) = othello_course::selfplay::samples::parse_line(line).expect(line);
        assert!(!sample.exact || sample.board.empty_count() <= 10, "{line}");
    }
}

#[test]
fn shards_add_up_to_the_one_machine_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.txt");
    selfplay(&whole, &["--games", "7"]).success();
    let mut union = BTreeMap::new();
    for k in 0..3 {
        let part = dir.path().join(format!("part{k}.txt"));
        let shard = format!("{k}/3");
        selfplay(&part, &["--games", "7", "--shard", &shard]).success();
        let (_, games) = blocks(&std::fs::read_to_string(&part).unwrap());
        assert!(games.keys().all(|game| game % 3 == k), "{shard}: {:?}", games.keys());
        union.extend(games);
    }
    assert_eq!(union, blocks(&std::fs::read_to_string(&whole).unwrap()).1);
}

#[test]
fn a_stopped_run_continues_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, resumed) = (dir.path().join("whole.txt"), dir.path().join("resumed.txt"));
    selfplay(&whole, &["--games", "5"]).success();
    selfplay(&resumed, &["--games", "3"]).success();
    // A run killed in the middle of writing game 3: half its lines, no #done.
    let expected = std::fs::read_to_string(&whole).unwrap();
    let (_, games) = blocks(&expected);
    let half = &games[&3][..games[&3].len() / 2];
    let mut file = std::fs::OpenOptions::new().append(true).open(&resumed).unwrap();
    std::io::Write::write_all(&mut file, half.as_bytes()).unwrap();
    drop(file);
    selfplay(&resumed, &["--games", "5"])
        .success()
        .stdout(predicates::str::contains("2 games with").and(predicates::str::contains("(3 games there before)")));
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), expected);
    // Asking again for what is there adds nothing.
    selfplay(&resumed, &["--games", "5"])
        .success()
        .stdout(predicates::str::contains("0 games"));
    assert_eq!(std::fs::read_to_string(&resumed).unwrap(), expected);
}

#[test]
fn a_file_made_otherwise_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.txt");
    selfplay(&file, &["--games", "2"]).success();
    let before = std::fs::read_to_string(&file).unwrap();
    common::othello(["selfplay", file.to_str().unwrap(), "--games", "4", "--seed", "10"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("made with other settings"));
    selfplay(&file, &["--games", "4", "--shard", "1/2"])
        .code(2)
        .stderr(predicates::str::contains("shard=1/2"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    common::othello([
        "selfplay",
        file.to_str().unwrap(),
        "--games",
        "4",
        "--player",
        "engine:10",
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains("depend on the machine"));
    // Values of a timed search are refused; another value player's games do not join the file.
    selfplay(&file, &["--games", "4", "--values", "engine:10"])
        .code(2)
        .stderr(predicates::str::contains(
            "--values engine:10: its values depend on the machine",
        ));
    selfplay(&file, &["--games", "4", "--values", "engine:nodes=3000"])
        .code(2)
        .stderr(predicates::str::contains("values=engine:nodes=3000"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    for (option, value) in [("--shard", "2/2"), ("--opening", "5..3"), ("--random-percent", "101")] {
        common::othello(["selfplay", "x.txt", "--games", "4", option, value])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(value));
    }
    common::othello(["selfplay", "x.txt", "--games", "0"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--games"));
    common::othello(["selfplay", "no/such/dir/x.txt", "--games", "4"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot write no/such/dir/x.txt"));
}

#[test]
fn train_fits_weights_that_load_and_reports_each_stage() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    let weights = dir.path().join("weights.bin");
    selfplay(&data, &["--games", "30"]).success();
    common::othello([
        "train",
        data.to_str().unwrap(),
        "--out",
        weights.to_str().unwrap(),
        "--epochs",
        "3",
    ])
    .assert()
    .success()
    .stdout(
        predicates::str::contains("guess 0  hand-made  built-in  trained")
            .and(predicates::str::contains(" 1-5 "))
            .and(predicates::str::contains("56-60"))
            // 3 passes over 30 games cannot beat the built-in weights, and train says so.
            .and(predicates::str::contains(
                "The new weights are WORSE than the built-in ones",
            ))
            .and(predicates::str::contains(format!(
                "Games decide which is stronger: othello match engine:nodes=20000:weights={} engine:nodes=20000",
                weights.display()
            ))),
    );
    let bytes = std::fs::read(&weights).unwrap();
    let loaded = othello_engine::patterns::Weights::from_bytes(&bytes).expect("the weights load");
    assert_eq!(loaded.stages().len(), othello_engine::patterns::STAGES);
    // A file that is not sample data, and too little data, are refused before anything is written.
    let other = dir.path().join("other.bin");
    common::othello(["train", weights.to_str().unwrap(), "--out", other.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a sample file"));
    let empty = dir.path().join("empty.txt");
    selfplay(&empty, &["--games", "1"]).success();
    common::othello(["train", empty.to_str().unwrap(), "--out", other.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("too few to fit"));
    assert!(!other.exists());
}

/// The fit keeps every position in memory: `--max-positions` bounds them, and one position more
/// than it is refused (exit 2, the option named) with nothing written.
#[test]
fn train_refuses_more_positions_than_max_positions() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    selfplay(&data, &["--games", "20"]).success();
    let out = dir.path().join("w.bin");
    let train = |max: u64| {
        let mut command = common::othello([
            "train",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--epochs",
            "1",
            "--max-positions",
        ]);
        command.arg(max.to_string());
        command.assert()
    };
    let report = train(1_000_000).success().get_output().stdout.clone();
    let report = String::from_utf8(report).unwrap();
    let words: Vec<&str> = report.split_whitespace().collect();
    assert_eq!(words[1..3], ["training", "and"], "{report}");
    let total: u64 = words[0].parse::<u64>().unwrap() + words[3].parse::<u64>().unwrap();
    std::fs::remove_file(&out).unwrap();
    train(total).success();
    std::fs::remove_file(&out).unwrap();
    train(total - 1).code(2).stderr(
        predicates::str::contains(format!("more than {} positions", total - 1))
            .and(predicates::str::contains("--max-positions")),
    );
    assert!(!out.exists());
}

/// `--warm-start` fits from the current weights, not from zero: with a shrinkage that holds every
/// weight in place, the weights written are the built-in ones (a cold start would write zeros).
#[test]
fn a_warm_start_begins_at_the_built_in_weights() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    selfplay(&data, &["--games", "30"]).success();
    let fit = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        train(
            &data,
            &out,
            &[&["--epochs", "1", "--shrinkage", "1000000"], extra].concat(),
        )
        .success();
        othello_engine::patterns::Weights::from_bytes(&std::fs::read(out).unwrap()).expect("the weights load")
    };
    let (warm, cold) = (fit("warm.bin", &["--warm-start"]), fit("cold.bin", &[]));
    // A pattern fit's file has no network: it starts at the built-in patterns alone.
    let builtin = othello_engine::training::network::patterns_only(othello_engine::patterns::builtin());
    let mut board = othello_core::board::Board::START;
    for _ in 0..40 {
        let Some(square) = board.moves().squares().last() else {
            break;
        };
        board = board.play(square);
        assert!((warm.evaluate(board) - builtin.evaluate(board)).abs() <= 2, "{board:?}");
        assert!(cold.evaluate(board).abs() <= 2, "{board:?}");
    }
    assert!(builtin.evaluate(board) != 0);
}

/// `train --network` keeps the current weights' patterns and fits a network on top: the file holds
/// both, loads, evaluates otherwise than the patterns alone in the network's empties only, and the
/// same games give the same file twice; options that only a pattern fit takes, or a range that is
/// none, are refused.
#[test]
fn train_network_fits_a_network_on_top_of_the_current_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    selfplay(&data, &["--games", "30"]).success();
    let options = ["--network", "--epochs", "3", "--network-empties", "20-40"];
    let fit = |name: &str, extra: &[&str]| train(&data, &dir.path().join(name), &[&options[..], extra].concat());
    fit("a.bin", &[])
        .success()
        .stderr(predicates::str::contains("pass 1: held-out error"));
    fit("b.bin", &[]).success();
    let bytes = std::fs::read(dir.path().join("a.bin")).unwrap();
    assert_eq!(bytes, std::fs::read(dir.path().join("b.bin")).unwrap());
    let loaded = othello_engine::patterns::Weights::from_bytes(&bytes).expect("the weights load");
    let builtin = othello_engine::training::network::patterns_only(othello_engine::patterns::builtin());
    assert!(loaded.network().is_some());
    assert!(
        loaded.stages() == builtin.stages(),
        "the patterns are the built-in ones"
    );
    // Within 20-40 empties the evaluation is the patterns' and the network's value (the float
    // reference, rounded); elsewhere the patterns' alone.
    let network = loaded.network().unwrap();
    let layout = othello_engine::patterns::Layout::get();
    let mut board = othello_core::board::Board::START;
    let mut seen = 0;
    while !board.is_game_over() {
        board = match board.moves().squares().nth(1).or(board.moves().squares().next()) {
            Some(square) => board.play(square),
            None => board.pass(),
        };
        let empties = board.empty_count();
        let added = loaded.evaluate(board) - builtin.evaluate(board);
        if (20..=40).contains(&empties) {
            let mut row = Vec::new();
            layout.row(board, |index| row.push(index));
            let value = network.value_of_row(&row) * f64::from(othello_engine::patterns::SCALE);
            assert!(
                value != 0.0 && (f64::from(added) - value).abs() <= 1.0,
                "{added} against {value}"
            );
            seen += 1;
        } else {
            assert_eq!(added, 0, "{empties} empties");
        }
    }
    assert!(seen > 10, "{seen}");
    for (extra, message) in [
        (&["--warm-start"][..], "cannot be used with"),
        (&["--method", "cg"][..], "cannot be used with"),
    ] {
        fit("c.bin", extra).code(2).stderr(predicates::str::contains(message));
    }
    let out = dir.path().join("c.bin");
    train(&data, &out, &["--network", "--network-empties", "40-20"])
        .code(2)
        .stderr(predicates::str::contains("\"40-20\" is not a range of empty squares"));
    train(&data, &out, &["--network-empties", "20-40"])
        .code(2)
        .stderr(predicates::str::contains("--network"));
    assert!(!dir.path().join("c.bin").exists());
}

/// Trained weights are tried without a rebuild: `engine:...:weights=FILE` for one player, `--weights
/// FILE` for every search; a copy of the built-in weights plays as the built-in ones do, other weights
/// play otherwise, and a file that is no weights file is named.
#[test]
fn weights_from_a_file_play_without_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.bin");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("weights/patterns.bin"),
        &copy,
    )
    .unwrap();
    let data = dir.path().join("data.txt");
    let trained = dir.path().join("trained.bin");
    selfplay(&data, &["--games", "20"]).success();
    common::othello([
        "train",
        data.to_str().unwrap(),
        "--out",
        trained.to_str().unwrap(),
        "--epochs",
        "2",
    ])
    .assert()
    .success();
    // The engine's values through a game: they differ as soon as the evaluation does.
    let values = |args: &[&str]| {
        let output = common::othello(["analyze", "f5d6c3d3c4f4c5b3c2", "--depth", "4", "--exact-empties", "0"])
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let builtin = values(&[]);
    assert_eq!(values(&["--weights", copy.to_str().unwrap()]), builtin);
    assert_ne!(values(&["--weights", trained.to_str().unwrap()]), builtin);
    // One player with other weights: the games' moves follow.
    let game = |spec: &str| {
        let output = common::othello(["match", spec, "engine:nodes=3000", "--games", "2", "--json"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        (
            report["a_discs"].clone(),
            report["b_discs"].clone(),
            report["a"]["nodes_per_move"].clone(),
        )
    };
    let copied = format!("engine:nodes=3000:weights={}", copy.display());
    assert_eq!(game(&copied), game("engine:nodes=3000"));
    let other = format!("engine:nodes=3000:weights={}", trained.display());
    assert_ne!(game(&other), game("engine:nodes=3000"));
    common::othello([
        "best",
        "--strategy",
        &format!("engine:nodes=3000:weights={}", data.display()),
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains("is not a weights file"));
    common::othello(["analyze", "--weights", "/no/such/weights.bin"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/no/such/weights.bin"));
}

#[test]
fn probcut_fits_its_spread_on_self_play_positions_the_same_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    selfplay(&data, &["--games", "12"]).success();
    let fit = |threads: &str| {
        let output = common::othello([
            "probcut",
            data.to_str().unwrap(),
            "--positions",
            "120",
            "--depth",
            "5",
            "--threads",
            threads,
        ])
        .output()
        .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let report = fit("1");
    assert!(report.starts_with("120 positions ("), "{report}");
    assert!(
        report.contains("empties  deep  shallow  count    mean   sigma  fitted"),
        "{report}"
    );
    // Depths 3 to 5, each with its shallow depth, in every group of empties with enough positions.
    assert!(
        report.contains("      3        1  ") && report.contains("      5        3  "),
        "{report}"
    );
    assert!(
        report.lines().any(|line| line.starts_with("MIDGAME_SIGMA_MODEL = [")),
        "{report}"
    );
    assert_eq!(fit("2"), report);
    common::othello(["probcut", dir.path().join("missing.txt").to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot read"));
}

#[test]
fn a_shrinkage_that_would_write_nan_weights_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.txt");
    let out = dir.path().join("w.bin");
    common::othello(["selfplay", data.to_str().unwrap(), "--games", "2", "--player", "greedy"])
        .assert()
        .success();
    for value in ["NaN", "-1", "inf", "1e30"] {
        common::othello([
            "train",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--shrinkage",
            value,
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!("\"{value}\" is not a shrinkage")));
    }
    assert!(!out.exists(), "no weights written");
}

/// Files of version 2 carry each position's search value; `--search-weight` trains toward it, and
/// files of version 1 (no values) still train: as version 2 files do at weight 0.
#[test]
fn train_reads_version_1_files_and_blends_search_values_into_the_targets() {
    let dir = tempfile::tempdir().unwrap();
    let v2 = dir.path().join("v2.txt");
    engine_selfplay(&v2).success();
    let text = std::fs::read_to_string(&v2).unwrap();
    assert!(
        text.starts_with("# othello selfplay 2: player=engine:nodes=2000 "),
        "{text:.200}"
    );
    // Every result line has a value, a solved line none.
    let mut v1 = String::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        match fields.get(4) {
            Some(&"r") => assert!(fields[5].parse::<i8>().is_ok(), "{line}"),
            Some(&"x") => assert_eq!(fields[5], "-", "{line}"),
            _ => {}
        }
        let line = if line.starts_with('#') {
            line.replacen("selfplay 2:", "selfplay 1:", 1)
        } else if fields.len() == 6 {
            fields[..5].join(" ")
        } else {
            line.to_string()
        };
        v1 += &line;
        v1 += "\n";
    }
    let v1_path = dir.path().join("v1.txt");
    std::fs::write(&v1_path, v1).unwrap();
    let fit = |data: &Path, weight: &str| {
        let out = dir.path().join(format!(
            "w-{weight}-{}.bin",
            data.file_stem().unwrap().to_str().unwrap()
        ));
        common::othello([
            "train",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--epochs",
            "2",
            "--search-weight",
            weight,
        ])
        .assert()
        .success();
        std::fs::read(out).unwrap()
    };
    let results = fit(&v2, "0");
    assert_eq!(fit(&v1_path, "0"), results);
    assert_eq!(fit(&v1_path, "1"), results, "a version 1 file has no values to blend");
    assert_ne!(fit(&v2, "1"), results);
    for option in ["--search-weight", "--lambda"] {
        for value in ["-0.1", "1.5", "NaN"] {
            common::othello(["train", v2.to_str().unwrap(), "--out", "w.bin", option, value])
                .assert()
                .code(2)
                .stderr(predicates::str::contains(format!("\"{value}\" is not a share")));
        }
    }
}

/// `--lambda` moves the targets only where there are search values to chain, and `--method cg`
/// is another fit of the same targets: both write weights, each its own.
#[test]
fn train_chains_values_by_lambda_and_fits_by_conjugate_gradients() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    engine_selfplay(&data).success();
    let fit = |extra: &[&str]| {
        let out = dir.path().join(format!("w{}.bin", extra.join("_")));
        let mut args = vec![
            "train",
            data.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--epochs",
            "3",
        ];
        args.extend_from_slice(extra);
        common::othello(args).assert().success();
        std::fs::read(out).unwrap()
    };
    let values = fit(&["--search-weight", "1"]);
    assert_eq!(fit(&["--search-weight", "1", "--lambda", "0"]), values);
    assert_ne!(fit(&["--search-weight", "1", "--lambda", "0.5"]), values);
    // Without values in the targets, lambda has nothing to chain.
    assert_eq!(fit(&["--lambda", "0.5"]), fit(&[]));
    let cg = fit(&["--method", "cg"]);
    assert_ne!(cg, fit(&[]));
    assert_eq!(cg, fit(&["--method", "cg"]), "the same fit on the same data");
    common::othello(["train", data.to_str().unwrap(), "--out", "w.bin", "--method", "newton"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("newton"));
}

/// A file's header names the engine's weights by their fingerprint: continuing it with other
/// weights (new ones built in, or `--weights`) is refused, the same weights from a file continue it.
#[test]
fn a_file_is_continued_only_with_the_weights_that_made_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.txt");
    let run = |games: &str, weights: Option<&Path>| {
        let mut args = vec![
            "selfplay",
            data.to_str().unwrap(),
            "--games",
            games,
            "--player",
            "engine:nodes=300",
        ];
        args.extend(["--exact-empties", "8", "--threads", "1"]);
        let mut command = common::othello(args);
        if let Some(weights) = weights {
            command.args(["--weights", weights.to_str().unwrap()]);
        }
        command.assert()
    };
    run("2", None).success();
    let header = std::fs::read_to_string(&data)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let fingerprint = othello_engine::patterns::builtin().fingerprint();
    assert!(
        header.contains(&format!("player=engine:nodes=300 weights={fingerprint:016x} ")),
        "{header}"
    );
    // A copy of the built-in weights is the same evaluation.
    let copy = dir.path().join("copy.bin");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("weights/patterns.bin"),
        &copy,
    )
    .unwrap();
    run("3", Some(&copy))
        .success()
        .stdout(predicates::str::contains("(2 games there before)"));
    // Other weights play other games: refused, the file left alone.
    let other = dir.path().join("other.bin");
    common::othello([
        "train",
        data.to_str().unwrap(),
        "--out",
        other.to_str().unwrap(),
        "--epochs",
        "1",
        "--validation-percent",
        "1",
    ])
    .assert()
    .success();
    let before = std::fs::read_to_string(&data).unwrap();
    run("4", Some(&other))
        .code(2)
        .stderr(predicates::str::contains("made with other settings"));
    assert_eq!(std::fs::read_to_string(&data).unwrap(), before);
}

/// The six pinned node-budget games, a transcript a line: recorded games to replay.
fn pinned_games() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/engine/node-budget-games.txt"
    ))
    .unwrap()
}

/// `othello selfplay FILE --replay GAMES` as the replay tests label: short searches, solved from 8.
fn replay_games(file: &Path, games: &Path, shard: &str) -> assert_cmd::assert::Assert {
    let args = [
        "--games",
        "100",
        "--player",
        "engine:nodes=2000",
        "--exact-empties",
        "8",
        "--shard",
        shard,
    ];
    common::othello(
        ["selfplay", file.to_str().unwrap(), "--replay", games.to_str().unwrap()]
            .into_iter()
            .chain(args),
    )
    .assert()
}

/// Games recorded elsewhere, labelled as the engine's own: a games file of transcripts (here the
/// six pinned node-budget games), sharded and continued like a played run, and refused whole if
/// a game in it is not a legal one.
#[test]
fn recorded_games_are_labelled_by_shard_and_continued() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.txt");
    let pinned = pinned_games();
    let first_four: String = pinned.lines().take(4).map(|line| format!("{line}\n")).collect();
    std::fs::write(&games, &first_four).unwrap();
    let file = dir.path().join("labelled.txt");
    let replay = |file: &Path, shard: &str| replay_games(file, &games, shard);
    replay(&file, "0/1")
        .success()
        .stdout(predicates::str::contains("shard 0/1: 4 games with"));
    let (header, labelled) = blocks(&std::fs::read_to_string(&file).unwrap());
    assert!(
        header.starts_with("# othello selfplay 2: replay=games.txt player=engine:nodes=2000 "),
        "{header}"
    );
    assert_eq!(labelled.keys().copied().collect::<Vec<_>>(), [0, 1, 2, 3]);
    for block in labelled.values() {
        // Every game starts from the start position, and the engine valued its unsolved ones.
        assert!(
            block
                .lines()
                .next()
                .unwrap()
                .contains(" 0000000810000000 0000001008000000 "),
            "{block}"
        );
        assert!(
            block
                .lines()
                .filter(|line| line.contains(" r "))
                .all(|line| !line.ends_with(" -"))
        );
    }
    // The rest of the file's games, once they are there; an odd shard takes the odd games.
    std::fs::write(&games, &pinned).unwrap();
    replay(&file, "0/1").success().stdout(
        predicates::str::contains("shard 0/1: 2 games with").and(predicates::str::contains("(4 games there before)")),
    );
    let odd = dir.path().join("odd.txt");
    replay(&odd, "1/2").success();
    let (_, all) = blocks(&std::fs::read_to_string(&file).unwrap());
    let (_, odd_games) = blocks(&std::fs::read_to_string(&odd).unwrap());
    assert_eq!(odd_games.keys().copied().collect::<Vec<_>>(), [1, 3, 5]);
    assert!(odd_games.iter().all(|(game, block)| all[game] == *block));
    // A game that breaks the rules is refused before anything is written.
    std::fs::write(&games, format!("{first_four}7 f5f5\n")).unwrap();
    let refused = dir.path().join("refused.txt");
    replay(&refused, "0/1").code(2).stderr(predicates::str::contains(
        "line 5: game 7: move 2 (f5) is not legal there",
    ));
    assert!(!refused.exists());
}

/// A games line that ends with its player's values: they label the positions they are given for,
/// the player's search the rest, and a bad value or a count other than one a move is refused.
#[test]
fn recorded_values_label_the_positions_they_are_given_for() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.txt");
    let pinned = pinned_games();
    let transcript = pinned.lines().next().unwrap();
    let moves = transcript.len() / 2;
    // No value for the first two moves (an opening the player was handed), then 7.6 discs a move.
    let values: Vec<&str> = (0..moves).map(|ply| if ply < 2 { "-" } else { "+7.6" }).collect();
    std::fs::write(&games, format!("5 {transcript} {}\n", values.join(","))).unwrap();
    let replay = |file: &Path| replay_games(file, &games, "0/1");
    let file = dir.path().join("labelled.txt");
    replay(&file)
        .success()
        .stdout(predicates::str::contains("shard 0/1: 1 game with"));
    let (header, labelled) = blocks(&std::fs::read_to_string(&file).unwrap());
    assert!(header.contains(" values=recorded"), "{header}");
    let unsolved: Vec<&str> = labelled[&5].lines().filter(|line| line.contains(" r ")).collect();
    assert_eq!(unsolved.len(), moves - 8, "{}", labelled[&5]);
    // The engine valued the first two (anything but the recorded 8), the record the rest.
    assert!(
        unsolved[..2]
            .iter()
            .all(|line| !line.ends_with(" -") && !line.ends_with(" +8"))
    );
    assert!(
        unsolved[2..].iter().all(|line| line.ends_with(" +8")),
        "{}",
        labelled[&5]
    );
    // A value that is not a number, or one value too few, is refused before anything is written.
    let refused = dir.path().join("refused.txt");
    std::fs::write(&games, format!("5 {transcript} {},x1\n", values[1..].join(","))).unwrap();
    replay(&refused).code(2).stderr(predicates::str::contains(
        "line 1: \"x1\" is not a value: expected a number of discs",
    ));
    std::fs::write(&games, format!("5 {transcript} {}\n", values[1..].join(","))).unwrap();
    replay(&refused).code(2).stderr(predicates::str::contains(format!(
        "line 1: game 5: {} values for {moves} moves: expected one a move",
        moves - 1
    )));
    assert!(!refused.exists());
}

/// The collections are training data too: a WTHOR database and gzipped `.gam` lines, written here
/// from a match's games, train weights that load; each file's games 0-9 (of 100) are held out.
#[test]
fn train_reads_wthor_databases_and_gzipped_gam_lines() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    common::othello([
        "match",
        "random",
        "greedy",
        "--games",
        "24",
        "--log",
        log.to_str().unwrap(),
    ])
    .assert()
    .success();
    let log = log.to_str().unwrap();
    let database = dir.path().join("GAMES.wtb");
    common::othello(["replay", log, "--wthor-out", database.to_str().unwrap()])
        .assert()
        .success();
    let gam = common::othello(["replay", log, "--to", "gam"]).output().unwrap().stdout;
    let zipped = dir.path().join("book.gam.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&gam).unwrap();
    std::fs::write(&zipped, encoder.finish().unwrap()).unwrap();
    // replay reads the gzipped lines as the games they are.
    let transcripts = |path: &str| {
        String::from_utf8(
            common::othello(["replay", path, "--to", "transcript"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap()
    };
    let games = transcripts(log);
    assert_eq!(games.lines().count(), 24);
    assert_eq!(transcripts(zipped.to_str().unwrap()), games);
    // A position a move: the first ten games of each file held out, the rest trained on.
    let moves: Vec<usize> = games.lines().map(|line| line.trim().len() / 2).collect();
    let held: usize = moves[..10].iter().sum::<usize>() * 2;
    let trained: usize = moves[10..].iter().sum::<usize>() * 2;
    let weights = dir.path().join("weights.bin");
    let mut args = vec![
        "train",
        database.to_str().unwrap(),
        zipped.to_str().unwrap(),
        "--out",
        weights.to_str().unwrap(),
        "--epochs",
        "2",
    ];
    common::othello(args.clone())
        .assert()
        .success()
        .stdout(predicates::str::contains(format!(
            "{trained} training and {held} validation positions"
        )));
    let bytes = std::fs::read(&weights).unwrap();
    othello_engine::patterns::Weights::from_bytes(&bytes).expect("the weights load");
    // A damaged gzip stream: one line naming the file, exit 2, nothing written.
    std::fs::write(&zipped, b"\x1f\x8b\x08\x00not gzip at all").unwrap();
    std::fs::remove_file(&weights).unwrap();
    let output = common::othello(args.clone()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("book.gam.gz"), "{stderr}");
    assert!(!weights.exists());
    // A line that is not a game names its line and byte.
    let bad = dir.path().join("bad.gam");
    std::fs::write(&bad, "+f5-d6+c3: +02 1\n+f5-f5: +00 1\n").unwrap();
    args[1] = bad.to_str().unwrap();
    args.remove(2);
    let output = common::othello(args).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.gam line 2: byte 4: f5 is not legal for white"),
        "{stderr}"
    );
}
