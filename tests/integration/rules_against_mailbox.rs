//! The bitboard rules agree with a slow mailbox implementation over 10,000 random games:
//! legal moves of both sides, the flips of every legal move, passes, game over and counts.

use crate::common;

use common::mailbox::{Cell, Mailbox};
use othello_core::rng::SeededRng;
use othello_core::{Bitboard, Color, Position, Square};

fn cell_of(color: Color) -> Cell {
    match color {
        Color::Black => Cell::Black,
        Color::White => Cell::White,
    }
}

fn squares(board: Bitboard) -> Vec<usize> {
    board.squares().map(Square::index).collect()
}

fn assert_same(position: Position, mailbox: &Mailbox, context: &str) {
    for color in [Color::Black, Color::White] {
        let discs: Vec<usize> = (0..64)
            .filter(|&sq| mailbox.cells[sq / 8][sq % 8] == cell_of(color))
            .collect();
        assert_eq!(squares(position.discs(color)), discs, "{context}: {color} discs");
    }
    let side = cell_of(position.to_move);
    let expected_moves = mailbox.legal_moves(side);
    assert_eq!(squares(position.moves()), expected_moves, "{context}: moves");
    assert_eq!(
        squares(position.board.opponent_moves()),
        mailbox.legal_moves(side.other()),
        "{context}: opponent moves"
    );
    for square in Square::all() {
        let expected = mailbox.flips(side, square.row() as usize, square.col() as usize);
        if mailbox.cells[square.row() as usize][square.col() as usize] == Cell::Empty {
            assert_eq!(
                squares(position.board.flips(square)),
                expected,
                "{context}: flips of {square}"
            );
        }
        assert_eq!(
            position.try_play(square).is_ok(),
            !expected.is_empty(),
            "{context}: legality of {square}"
        );
    }
}

#[test]
fn bitboard_rules_match_the_mailbox_over_ten_thousand_random_games() {
    let mut rng = SeededRng::new(20261122);
    let (mut passes, mut unfinished_boards) = (0, 0);
    for game in 0..10_000 {
        let mut position = Position::START;
        let mut mailbox = Mailbox::start();
        let mut ply = 0;
        loop {
            let context = format!("game {game} ply {ply}");
            assert_same(position, &mailbox, &context);
            let moves = position.moves();
            if moves.is_empty() {
                if position.board.opponent_moves().is_empty() {
                    assert!(position.is_game_over(), "{context}");
                    break;
                }
                assert!(position.board.must_pass(), "{context}");
                passes += 1;
                position = position.pass();
                continue;
            }
            let square = rng.pick_square(moves);
            mailbox.play(cell_of(position.to_move), square.index());
            position = position.try_play(square).expect("a legal move plays");
            ply += 1;
        }
        let (black, white) = position.counts();
        assert_eq!(
            (black as usize, white as usize),
            (mailbox.count(Cell::Black), mailbox.count(Cell::White))
        );
        if black + white < 64 {
            unfinished_boards += 1;
        }
    }
    // The sample must reach the rare cases it is meant to check.
    assert!(passes > 100, "only {passes} passes");
    assert!(
        unfinished_boards > 10,
        "only {unfinished_boards} games ended with empty squares"
    );
}
