//! Reports of a whole class's Lab 4 tests and of tournaments of students' programs: a table for
//! people, a CSV gradebook, JSON, and one self-contained HTML page with each student's score, worst
//! games (transcripts and final boards) and failures.

use std::fmt::Write as _;

use super::moderator::{GameLine, Lab4Tally};
use super::report::{board_html, escape};
use super::tournament::{Scoring, Standing};
use crate::programs::rules::Rules;
use othello_core::notation::{condensed, lab_board};

/// One student of a class and how its Lab 4 test went (or why it could not play at all).
#[derive(Clone, Debug)]
pub struct StudentTest {
    pub name: String,
    /// The player as given (`quickmove:alice.py`).
    pub player: String,
    pub result: Result<Lab4Tally, String>,
}

/// `1 game`, `3 games`.
fn counted(count: impl Into<u64>, one: &str, many: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { one } else { many })
}

pub(crate) fn percent(tally: &Lab4Tally) -> String {
    format!("{:.1}%", 100.0 * tally.share())
}

/// `ended at game 3 (code -2)` or `all played`.
pub(crate) fn ending(tally: &Lab4Tally) -> String {
    match &tally.ended_by {
        Some(line) => format!(
            "ended at game {}{}",
            line.number,
            line.codes.map_or(String::new(), |(code, _)| format!(" (code {code})"))
        ),
        None => "all played".to_string(),
    }
}

/// One line for people as a student's test finishes.
pub fn student_line(test: &StudentTest) -> String {
    match &test.result {
        Err(why) => format!("{}: could not play: {why}\n", test.name),
        Ok(tally) => format!(
            "{}: {} of the tokens ({} of {}) in {}, {}-{}-{}, {} forfeited; {}\n",
            test.name,
            percent(tally),
            tally.tokens,
            tally.all_tokens,
            counted(tally.games, "game", "games"),
            tally.wins,
            tally.draws,
            tally.losses,
            tally.forfeits,
            ending(tally)
        ),
    }
}

/// The class table for people (`table::lab4_students`).
pub fn lab4_table(tests: &[StudentTest]) -> String {
    crate::table::text(&crate::table::lab4_students(), tests)
}

/// The gradebook: one row per student (`table::lab4_students`).
pub fn lab4_csv(tests: &[StudentTest]) -> String {
    crate::table::csv(&crate::table::lab4_students(), tests)
}

/// The final board of a condensed transcript, as eight rows of `xo.` (None if it does not replay).
fn final_rows(transcript: &str) -> Option<Vec<String>> {
    let (game, _) = condensed::play(transcript).ok()?;
    let board = lab_board::format(game.position()).to_ascii_lowercase();
    Some((0..8).map(|row| board[row * 8..row * 8 + 8].to_string()).collect())
}

fn game_html(line: &GameLine, heading: &str) -> String {
    let mut out = format!(
        "<div class=\"case\"><p><b>{}</b>: game {} as {}, {}-{} ({:.1}%)</p><p><code>{}</code></p>",
        escape(heading),
        line.number,
        line.color.lab_char(),
        line.tokens,
        line.opponent_tokens,
        100.0 * line.share(),
        escape(&line.transcript)
    );
    if let Some(failure) = &line.failure {
        let _ = write!(out, "<p class=\"fail\">{}</p>", escape(failure));
    }
    if let Some(rows) = final_rows(&line.transcript) {
        out.push_str(&board_html(&rows, &rows, "the board where it ended"));
    }
    out.push_str("</div>\n");
    out
}

fn page_start(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{}</style></head><body>\n<h1>{}</h1>\n",
        escape(title),
        super::report::STYLE,
        escape(title)
    )
}

/// The class's page: the table, then each student's failure and lowest-scoring games.
pub fn lab4_html(title: &str, tests: &[StudentTest], rules: Rules, isolation: &str) -> String {
    let mut out = page_start(title);
    let _ = writeln!(
        out,
        "<p>Rules {} ({}). Runs: {}.</p>",
        rules.name(),
        escape(rules.source()),
        escape(isolation)
    );
    out += &crate::table::html(&crate::table::lab4_students(), tests, Some("s"));
    for (index, test) in tests.iter().enumerate() {
        let _ = writeln!(
            out,
            "<h2 id=\"s{index}\">{}</h2><p><code>{}</code></p>",
            escape(&test.name),
            escape(&test.player)
        );
        match &test.result {
            Err(why) => {
                let _ = writeln!(out, "<p class=\"fail\">Could not play: {}</p>", escape(why));
            }
            Ok(tally) => {
                let _ = writeln!(
                    out,
                    "<p>{} of the tokens ({} of {}) in {}: {}, {}, {}; {} forfeited.</p>",
                    percent(tally),
                    tally.tokens,
                    tally.all_tokens,
                    counted(tally.games, "game", "games"),
                    counted(tally.wins, "win", "wins"),
                    counted(tally.draws, "draw", "draws"),
                    counted(tally.losses, "loss", "losses"),
                    tally.forfeits
                );
                if let Some(line) = &tally.ended_by {
                    out.push_str(&game_html(line, "the failure that ended the test"));
                }
                for line in &tally.worst {
                    out.push_str(&game_html(line, "a lowest-scoring game"));
                }
            }
        }
    }
    out.push_str("</body></html>\n");
    out
}

/// A tournament's page: the standings, each forfeit's reason, and who was left out (and why).
pub fn tournament_html(
    title: &str,
    names: &[String],
    standings: &[Standing],
    scoring: Scoring,
    left_out: &[String],
    isolation: &str,
) -> String {
    let mut out = page_start(title);
    let _ = writeln!(out, "<p>Runs: {}.</p>", escape(isolation));
    let _ = writeln!(out, "<p>Scoring: {}.</p>", escape(scoring.describe()));
    if !left_out.is_empty() {
        out.push_str("<p class=\"warning\">Left out, their programs could not play:</p><ul>");
        for why in left_out {
            let _ = write!(out, "<li>{}</li>", escape(why));
        }
        out.push_str("</ul>\n");
    }
    let ranked: Vec<_> = (1..).zip(standings).collect();
    out += &crate::table::html(&crate::table::standings(names, scoring), &ranked, None);
    for s in standings.iter().filter(|s| s.forfeits > 0) {
        let _ = writeln!(
            out,
            "<h2>{}: {} forfeited</h2><ul>",
            escape(&names[s.player]),
            s.forfeits
        );
        for note in &s.forfeit_notes {
            let _ = writeln!(out, "<li>{}</li>", escape(&note.describe(names)));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// Forfeits a player's text lists by their reasons (JSON, CSV and the HTML page give every one).
const TEXT_NOTES: usize = 5;

/// A tournament's standings for people: a title line, the table, each forfeit's reason (the first
/// few a player), and whether the same seed gives the same games.
pub fn standings_text(
    title: &str,
    names: &[String],
    standings: &[Standing],
    scoring: Scoring,
    games: usize,
    seed: u64,
    reproducible: bool,
) -> String {
    let mut out = format!(
        "{title}: {} players, {games} games (seed {seed})\n{}\n",
        standings.len(),
        scoring.describe()
    );
    let ranked: Vec<_> = (1..).zip(standings).collect();
    out += &crate::table::text(&crate::table::standings(names, scoring), &ranked);
    let forfeited: Vec<&Standing> = standings.iter().filter(|s| s.forfeits > 0).collect();
    if !forfeited.is_empty() {
        out += "Forfeits:\n";
        for s in forfeited {
            let _ = writeln!(out, "  {} ({}):", names[s.player], s.forfeits);
            for note in s.forfeit_notes.iter().take(TEXT_NOTES) {
                let _ = writeln!(out, "    {}", note.describe(names));
            }
            let more = s.forfeit_notes.len().saturating_sub(TEXT_NOTES);
            if more > 0 {
                let _ = writeln!(out, "    ... and {more} more (--json and --csv give every one)");
            }
        }
    }
    if !reproducible {
        out += "(a program or a timed engine plays: the same seed may not give the same games)\n";
    }
    out
}
