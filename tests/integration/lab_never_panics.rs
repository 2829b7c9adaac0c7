//! Arbitrary argument lists never make the lab mode panic: the library answers with snapshots, a bad
//! argument or an illegal move, and the binary exits 0, 1 or 2 with the streams that status promises.

use crate::common;

use othello_course::lab::{self, LabRequest};
use proptest::prelude::*;

const DEFAULT_BOARD: &str = "...........................ox......xo...........................";

/// Arguments near the valid ones, where classification mistakes would hide.
fn argument() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => (0u64..70).prop_map(|n| n.to_string()),
        2 => "[a-iA-I][0-9]",
        1 => "-?[0-9]{1,40}",
        1 => "[+-]?[0-9]+(\\.[0-9]*)?",
        1 => "[xXoO.]{0,3}",
        1 => "[xXoO.]{62,66}",
        1 => (0usize..64, "[^xXoO.]").prop_map(|(i, c)| {
            let mut board: Vec<char> = DEFAULT_BOARD.chars().collect();
            board[i] = c.chars().next().unwrap();
            board.into_iter().collect()
        }),
        1 => Just(DEFAULT_BOARD.to_string()),
        1 => Just(String::new()),
        1 => Just("--lab1".to_string()),
        1 => "--?[a-z0-9]{0,6}",
        1 => "\\PC{0,12}",
        1 => any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_library_never_panics(args in prop::collection::vec(argument(), 0..12)) {
        if let Ok(request) = LabRequest::parse(&args) {
            let mut out = String::new();
            let result = lab::run(&request, &mut out);
            prop_assert!(!out.is_empty(), "at least the first snapshot is written");
            if let Err(lab::LabError::Illegal(illegal)) = result {
                prop_assert!(request.moves.contains(&illegal.square));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn the_binary_exits_0_1_or_2(args in prop::collection::vec(argument(), 0..8)) {
        // A command line cannot carry a NUL byte.
        let args: Vec<String> = args.into_iter().map(|arg| arg.replace('\0', " ")).collect();
        let output = common::othello(&args).output().expect("the binary runs");
        let code = output.status.code();
        prop_assert!(matches!(code, Some(0..=2)), "exit status {:?} for {:?}", code, args);
        let stderr_lines = output.stderr.iter().filter(|&&b| b == b'\n').count();
        match code {
            Some(0) => prop_assert!(output.stderr.is_empty() && !output.stdout.is_empty()),
            Some(1) => prop_assert!(stderr_lines == 1 && !output.stdout.is_empty()),
            _ => prop_assert!(stderr_lines == 1 && output.stdout.is_empty()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Any board, however unlike a game, is answered by every command without a panic.
    #[test]
    fn the_commands_never_panic_on_arbitrary_boards(board in "[xo.]{64}", token in "[xo]") {
        for args in [
            vec!["solve", &board, &token, "--time-limit", "0.05"],
            vec!["best", "--strategy", "engine:10", &board, &token],
            vec!["best", "--depth", "2", &board, &token],
            vec!["perft", "2", &board, &token],
            vec!["fullgame", "--depth", "1", &board, &token],
            vec![&board, &token, "--lab4", "--lab5", "--holes", "9"],
        ] {
            let output = common::othello(&args).output().expect("the binary runs");
            prop_assert!(matches!(output.status.code(), Some(0..=2)), "{:?}: {}", args, String::from_utf8_lossy(&output.stderr));
        }
    }
}
