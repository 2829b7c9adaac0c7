//! Settings are values: one process holds engines of different weights and sandboxes of different
//! limits at the same time, each as it would be alone (no process-wide default to race for).

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use othello_core::board::Board;
use othello_core::rng::SeededRng;
use othello_engine::patterns::{self, Weights};
use othello_engine::search::engine::{Budget, Engine, EngineChoice, EngineStyle};
use othello_engine::settings::EngineSettings;
use othello_sandbox::{Ending, Isolation, Job, Limits, Resources, Timing, Word};

/// Midgame positions of one seeded random game.
fn positions() -> Vec<Board> {
    let mut rng = SeededRng::new(11);
    let mut board = Board::START;
    let mut found = Vec::new();
    while found.len() < 6 && !board.moves().is_empty() {
        let moves: Vec<_> = board.moves().squares().collect();
        board = board.play(moves[rng.below(moves.len() as u64) as usize]);
        if board.empty_count() < 50 && !board.moves().is_empty() {
            found.push(board);
        }
    }
    found
}

/// The engine's choices at a node budget (the same on every machine), one engine for them all.
fn choices(settings: &EngineSettings, boards: &[Board]) -> Vec<EngineChoice> {
    let mut engine = Engine::with_style(Budget::Nodes(3000), EngineStyle::default(), settings);
    boards.iter().map(|&board| engine.choose(board)).collect()
}

/// The built-in weights' patterns turned around: an evaluation that wants what the real one
/// shuns, loaded from a file as `--weights` loads one.
fn contrary_weights(dir: &std::path::Path) -> EngineSettings {
    let stages = patterns::builtin()
        .stages()
        .iter()
        .map(|stage| stage.iter().map(|w| w.saturating_neg()).collect())
        .collect();
    let path = dir.join("contrary.bin");
    std::fs::write(&path, Weights::new(stages, None).to_bytes()).unwrap();
    EngineSettings {
        weights: Some(patterns::load(&path).unwrap()),
        book: None,
    }
}

/// A run that reads a file and then holds 300 MB.
fn reader_and_hog(file: &std::path::Path) -> Job {
    let script = format!(
        "cat {}; python3 -c 'b = bytearray(300 << 20); print(\"held\", len(b) >> 20)'",
        file.display()
    );
    Job {
        command: ["sh", "-c", &script].map(Word::text).to_vec(),
        env: Vec::new(),
    }
}

fn sandbox(memory: u64, visible: &[&std::path::Path]) -> Limits {
    Limits {
        time: Duration::from_secs(60),
        timing: Timing::Wall,
        isolation: Isolation::Sandbox(Resources {
            memory,
            visible: visible.iter().map(|p| p.to_path_buf()).collect(),
            ..Resources::default()
        }),
        ..Limits::default()
    }
}

#[test]
fn two_engines_of_other_weights_and_two_sandboxes_of_other_limits_run_at_once_in_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let boards = positions();
    let (builtin, contrary) = (EngineSettings::default(), contrary_weights(dir.path()));
    // Alone, one after the other: what each setting gives.
    let alone = [choices(&builtin, &boards), choices(&contrary, &boards)];
    assert_ne!(
        alone[0].iter().map(|c| c.best).collect::<Vec<_>>(),
        alone[1].iter().map(|c| c.best).collect::<Vec<_>>(),
        "weights turned around play other moves"
    );
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::write(shared.join("note.txt"), "seen\n").unwrap();
    let note = shared.join("note.txt");
    let limits = [sandbox(1 << 30, &[&shared]), sandbox(100 << 20, &[])];
    // Together: the four start at once, on threads of one process.
    let start = Arc::new(Barrier::new(4));
    let engines: Vec<_> = [builtin, contrary]
        .into_iter()
        .map(|settings| {
            let (start, boards) = (start.clone(), boards.clone());
            thread::spawn(move || {
                start.wait();
                choices(&settings, &boards)
            })
        })
        .collect();
    let runs: Vec<_> = limits
        .iter()
        .cloned()
        .map(|limits| {
            let (start, job) = (start.clone(), reader_and_hog(&note));
            thread::spawn(move || {
                start.wait();
                othello_sandbox::run(&job, &limits)
            })
        })
        .collect();
    let together: Vec<_> = engines.into_iter().map(|e| e.join().unwrap()).collect();
    assert_eq!(together, alone, "each engine plays as it does alone");
    let [roomy, small] = <[_; 2]>::try_from(runs.into_iter().map(|r| r.join().unwrap()).collect::<Vec<_>>()).unwrap();
    assert_eq!(roomy.ending, Ending::Exited(0), "{roomy:?}");
    assert_eq!(String::from_utf8_lossy(&roomy.stdout), "seen\nheld 300\n");
    assert_eq!(small.ending, Ending::MemoryLimit, "{small:?}");
    assert!(
        !String::from_utf8_lossy(&small.stdout).contains("seen"),
        "the second sandbox does not see the first one's visible folder: {small:?}"
    );
    assert_eq!(small.ending.describe(&limits[1]), "memory limit 100 MiB");
}
