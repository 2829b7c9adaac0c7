//! One definition per results table: a list of columns over typed rows, from which the table for
//! people (text), the gradebook (CSV) and the page's table (HTML) are all drawn, so that a column
//! is one entry in one list. (The JSON of a table is its rows' typed documents in `crate::json`,
//! whose schemas are a published contract: the standings' members are tested to be the CSV's
//! columns.)

use std::fmt::Write as _;

use itertools::Itertools;

use crate::report::{Cell, csv_table, escape};

/// What a cell holds, typed: each form writes it its own way.
#[derive(Clone, Debug, PartialEq)]
pub enum Datum {
    Count(u64),
    /// Shown with its sign (`+12`, `-3`, `+0`) for people; as a plain number in CSV.
    Signed(i64),
    /// A number as it is (points: `3.5`).
    Number(f64),
    /// `passed` of `all`: `3/4` for people; `passed` alone in CSV.
    Fraction(usize, usize),
    /// Seconds: two decimals for people, three in CSV; none known: `-` for people, empty in CSV.
    Seconds(Option<f64>),
    /// Text for people, and spreadsheet-safe text in CSV.
    Text(String),
    /// Text already written as the form wants it (a percentage, a share): never quoted as text.
    Written(String),
    /// Nothing: `-` for people, empty in CSV.
    Missing,
    /// Nothing counted (a student who could not play): `-` for people, `0` in CSV.
    Absent,
}

impl Datum {
    fn for_people(&self) -> String {
        match self {
            Datum::Count(count) => count.to_string(),
            Datum::Signed(value) => format!("{value:+}"),
            Datum::Number(value) => value.to_string(),
            Datum::Fraction(passed, all) => format!("{passed}/{all}"),
            Datum::Seconds(Some(seconds)) => format!("{seconds:.2}"),
            Datum::Seconds(None) | Datum::Missing | Datum::Absent => "-".to_string(),
            Datum::Text(text) | Datum::Written(text) => text.clone(),
        }
    }

    fn for_csv(&self) -> Cell {
        match self {
            Datum::Count(count) => Cell::number(count),
            Datum::Signed(value) => Cell::number(value),
            Datum::Number(value) => Cell::number(value),
            Datum::Fraction(passed, _) => Cell::number(passed),
            Datum::Seconds(seconds) => Cell::number(seconds.map_or(String::new(), |s| format!("{s:.3}"))),
            Datum::Text(text) => Cell::text(text),
            Datum::Written(text) => Cell::number(text),
            Datum::Missing => Cell::number(""),
            Datum::Absent => Cell::number(0),
        }
    }
}

/// Which forms show a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Text, HTML and CSV.
    Everywhere,
    /// Text and HTML only.
    ForPeople,
    /// CSV only.
    InCsv,
}

/// Where a column's text stands in its cell for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column: its name in CSV, its heading for people, and its cell of a row.
pub struct Column<'a, R> {
    /// CSV's header (and the JSON member of the same value).
    pub key: String,
    /// For people (text and HTML).
    pub heading: String,
    pub align: Align,
    /// The least width in text (the heading's and the cells' widths count too).
    pub width: usize,
    pub shown: Shown,
    pub cell: Box<dyn Fn(&R) -> Datum + 'a>,
    /// The class of the cell in HTML (`ok`, `bad`), if any.
    pub mark: Option<Mark<'a, R>>,
}

/// What class a row's cell has in HTML.
pub type Mark<'a, R> = Box<dyn Fn(&R) -> Option<&'static str> + 'a>;

impl<'a, R> Column<'a, R> {
    /// A right-aligned column shown everywhere, its key and heading the same.
    pub fn new(key: impl Into<String>, cell: impl Fn(&R) -> Datum + 'a) -> Column<'a, R> {
        let key = key.into();
        Column {
            heading: key.clone(),
            key,
            align: Align::Right,
            width: 0,
            shown: Shown::Everywhere,
            cell: Box::new(cell),
            mark: None,
        }
    }

    pub fn heading(mut self, heading: impl Into<String>) -> Self {
        self.heading = heading.into();
        self
    }

    pub fn left(mut self) -> Self {
        self.align = Align::Left;
        self
    }

    pub fn width(mut self, width: usize) -> Self {
        self.width = width;
        self
    }

    pub fn shown(mut self, shown: Shown) -> Self {
        self.shown = shown;
        self
    }

    pub fn mark(mut self, mark: impl Fn(&R) -> Option<&'static str> + 'a) -> Self {
        self.mark = Some(Box::new(mark));
        self
    }

    fn for_people(&self) -> bool {
        self.shown != Shown::InCsv
    }
}

/// The table for people: a header line, then a line per row; columns two spaces apart, each as
/// wide as its widest cell (or its least width); a last left-aligned column is not padded.
///
/// ```
/// use othello_course::table::{Column, Datum, text};
/// let columns = [
///     Column::new("player", |r: &(&str, i64)| Datum::Text(r.0.to_string())).left(),
///     Column::new("discs", |r: &(&str, i64)| Datum::Signed(r.1)),
/// ];
/// assert_eq!(text(&columns, &[("ann", 12), ("bob", -3)]), "player  discs\nann       +12\nbob        -3\n");
/// ```
pub fn text<R>(columns: &[Column<R>], rows: &[R]) -> String {
    let columns: Vec<&Column<R>> = columns.iter().filter(|c| c.for_people()).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| columns.iter().map(|c| (c.cell)(row).for_people()).collect())
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let widest = cells.iter().map(|row| row[i].chars().count()).max().unwrap_or(0);
            c.width.max(c.heading.chars().count()).max(widest)
        })
        .collect();
    let line = |texts: &mut dyn Iterator<Item = &str>| {
        let mut out = String::new();
        for (i, text) in texts.enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            let width = widths[i];
            match columns[i].align {
                Align::Left if i + 1 == columns.len() => out.push_str(text),
                Align::Left => {
                    let _ = write!(out, "{text:<width$}");
                }
                Align::Right => {
                    let _ = write!(out, "{text:>width$}");
                }
            }
        }
        out.push('\n');
        out
    };
    let mut out = line(&mut columns.iter().map(|c| c.heading.as_str()));
    for row in &cells {
        out += &line(&mut row.iter().map(String::as_str));
    }
    out
}

/// The gradebook: RFC 4180, text cells spreadsheet-safe (see `report::csv_table`).
pub fn csv<R>(columns: &[Column<R>], rows: &[R]) -> String {
    let columns: Vec<&Column<R>> = columns.iter().filter(|c| c.shown != Shown::ForPeople).collect();
    let header: Vec<&str> = columns.iter().map(|c| c.key.as_str()).collect();
    csv_table(
        &header,
        rows.iter()
            .map(|row| columns.iter().map(|c| (c.cell)(row).for_csv()).collect()),
    )
}

/// The page's table (`class="class"`); the first column's cells link to `#{anchor}{index}` when
/// an anchor is given (each row's section further down the page).
pub fn html<R>(columns: &[Column<R>], rows: &[R], anchor: Option<&str>) -> String {
    let columns: Vec<&Column<R>> = columns.iter().filter(|c| c.for_people()).collect();
    let mut out = String::from("<table class=\"class\"><tr>");
    for (i, column) in columns.iter().enumerate() {
        let left = if i > 0 && column.align == Align::Left {
            " style=\"text-align:left\""
        } else {
            ""
        };
        let _ = write!(out, "<th{left}>{}</th>", escape(&column.heading));
    }
    out.push_str("</tr>\n");
    for (index, row) in rows.iter().enumerate() {
        out.push_str("<tr>");
        for (i, column) in columns.iter().enumerate() {
            let mut attributes = String::new();
            if let Some(class) = column.mark.as_ref().and_then(|mark| mark(row)) {
                let _ = write!(attributes, " class=\"{class}\"");
            }
            // The first column stands left by the page's style; another left one says so.
            if i > 0 && column.align == Align::Left {
                attributes.push_str(" style=\"text-align:left\"");
            }
            let content = escape(&(column.cell)(row).for_people());
            match anchor.filter(|_| i == 0) {
                Some(anchor) => {
                    let _ = write!(out, "<td{attributes}><a href=\"#{anchor}{index}\">{content}</a></td>");
                }
                None => {
                    let _ = write!(out, "<td{attributes}>{content}</td>");
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}

// The tables. Each is one list of columns: a column added here shows in every form that shows it.

use crate::class_report::StudentTest;
use crate::grade::{Program, Summary};
use crate::judge::Judge;
use crate::tournament::{Scoring, Standing};
use othello_sandbox::Isolation;

/// A tournament's standings, best first (`names` the players' names, by index), scored by
/// `scoring` (its cumulative points shown to people when it breaks ties; named in the CSV).
pub fn standings<'a>(names: &'a [String], scoring: Scoring) -> Vec<Column<'a, (usize, &'a Standing)>> {
    type Row<'r> = (usize, &'r Standing);
    let count = |value: fn(&Standing) -> u32| move |(_, s): &Row| Datum::Count(value(s).into());
    vec![
        Column::new("rank", |(rank, _): &Row| Datum::Count(*rank as u64)),
        Column::new("player", |(_, s): &Row| Datum::Text(names[s.player].clone())).left(),
        Column::new("points", |(_, s): &Row| Datum::Number(s.points())),
        Column::new("games", count(|s| s.games)),
        Column::new("wins", count(|s| s.wins)),
        Column::new("draws", count(|s| s.draws)),
        Column::new("losses", count(|s| s.losses)),
        Column::new("forfeits", count(|s| s.forfeits)).mark(|(_, s): &Row| (s.forfeits > 0).then_some("bad")),
        Column::new("byes", count(|s| s.byes)).shown(Shown::InCsv),
        Column::new("discs", |(_, s): &Row| Datum::Signed(s.discs)),
        Column::new("cumulative", |(_, s): &Row| Datum::Number(s.cumulative)).shown(match scoring {
            Scoring::CourseServer => Shown::Everywhere,
            Scoring::Othello => Shown::InCsv,
        }),
        Column::new("scoring", move |_: &Row| Datum::Text(scoring.name().to_string())).shown(Shown::InCsv),
        Column::new("forfeit_reasons", |(_, s): &Row| {
            Datum::Text(s.forfeit_notes.iter().map(|n| n.describe(names)).join("; "))
        })
        .shown(Shown::InCsv),
    ]
}

/// A grading's summary, a row per program; `isolation` is how its runs were kept apart. Cases
/// not run after a streak of time-outs have a column for people only where some were.
pub(crate) fn grade_summaries<'a>(
    judges: &'a [Judge],
    rows: &[(&Program, &Summary)],
    isolation: &'a Isolation,
) -> Vec<Column<'a, (&'a Program, &'a Summary)>> {
    type Row<'r> = (&'r Program, &'r Summary);
    let count = |value: fn(&Summary) -> usize| move |(_, s): &Row| Datum::Count(value(s) as u64);
    let mut columns = vec![
        Column::new("program", |(p, _): &Row| Datum::Text(p.name.clone()))
            .left()
            .width(7),
        Column::new("cases", count(|s| s.cases)).shown(Shown::InCsv),
    ];
    for judge in judges {
        let passed = move |s: &Summary| s.passed.get(judge).copied().unwrap_or(0);
        columns.push(
            Column::new(format!("{judge}_passed"), move |(_, s): &Row| {
                Datum::Fraction(passed(s), s.cases)
            })
            .heading(judge.name())
            .width(9)
            .mark(move |(_, s): &Row| Some(if passed(s) == s.cases { "ok" } else { "bad" })),
        );
    }
    if judges.contains(&Judge::Lab5) {
        columns.push(
            Column::new("lab5_marks", |(_, s): &Row| Datum::Number(s.marks))
                .heading("marks")
                .width(7),
        );
    }
    // `failed`: cases some judge failed; then each judge's own count.
    columns.push(Column::new("failed", count(|s| s.failed)));
    for judge in judges {
        columns.push(
            Column::new(format!("{judge}_failed"), move |(_, s): &Row| {
                Datum::Count(s.failed_by.get(judge).copied().unwrap_or(0) as u64)
            })
            .shown(Shown::InCsv),
        );
    }
    columns.extend([
        Column::new("timeouts", count(|s| s.timeouts)),
        Column::new("limits", count(|s| s.limits)),
        Column::new("crashes", count(|s| s.crashes)),
        Column::new("not_run", count(|s| s.not_run)).heading("not run").shown(
            if rows.iter().any(|(_, s)| s.not_run > 0) {
                Shown::Everywhere
            } else {
                Shown::InCsv
            },
        ),
        Column::new("seconds", |(_, s): &Row| Datum::Seconds(Some(s.seconds)))
            .heading("wall")
            .width(7),
        Column::new("cpu_seconds", |(_, s): &Row| Datum::Seconds(s.cpu_seconds))
            .heading("cpu")
            .width(7),
        Column::new("isolated", move |_: &Row| {
            Datum::Written(if isolation.is_sandbox() { "yes" } else { "no" }.to_string())
        })
        .shown(Shown::InCsv),
    ]);
    columns
}

/// The game whose failure ended a student's test, if one did.
fn ended(test: &StudentTest) -> Option<&crate::moderator::GameLine> {
    test.result.as_ref().ok().and_then(|tally| tally.ended_by.as_ref())
}

/// A class's Lab 4 tests, a row per student (one that could not play: `-` for people, zeros in
/// the gradebook, and why).
pub(crate) fn lab4_students<'a>() -> Vec<Column<'a, StudentTest>> {
    let count = |value: fn(&crate::moderator::Lab4Tally) -> u64| {
        move |test: &StudentTest| {
            test.result
                .as_ref()
                .map_or(Datum::Absent, |tally| Datum::Count(value(tally)))
        }
    };
    vec![
        Column::new("student", |test: &StudentTest| Datum::Text(test.name.clone()))
            .left()
            .width(7),
        Column::new("player", |test: &StudentTest| Datum::Text(test.player.clone())).shown(Shown::InCsv),
        Column::new("score", |test: &StudentTest| {
            test.result.as_ref().map_or(Datum::Missing, |tally| {
                Datum::Written(crate::class_report::percent(tally))
            })
        })
        .shown(Shown::ForPeople)
        .width(6),
        Column::new("games", count(|t| t.games.into())),
        Column::new("tokens", count(|t| t.tokens)).shown(Shown::InCsv),
        Column::new("all_tokens", count(|t| t.all_tokens)).shown(Shown::InCsv),
        Column::new("share", |test: &StudentTest| {
            test.result
                .as_ref()
                .map_or(Datum::Missing, |tally| Datum::Written(format!("{:.4}", tally.share())))
        })
        .shown(Shown::InCsv),
        Column::new("wins", count(|t| t.wins.into())),
        Column::new("draws", count(|t| t.draws.into())),
        Column::new("losses", count(|t| t.losses.into())),
        Column::new("forfeits", count(|t| t.forfeits.into())),
        Column::new("ended", |test: &StudentTest| match &test.result {
            Err(why) => Datum::Text(format!("could not play: {why}")),
            Ok(tally) => Datum::Text(crate::class_report::ending(tally)),
        })
        .left()
        .shown(Shown::ForPeople)
        .mark(|test: &StudentTest| {
            Some(match &test.result {
                Ok(tally) if tally.ended_by.is_none() && tally.forfeits == 0 => "ok",
                _ => "bad",
            })
        }),
        Column::new("ended_at_game", |test: &StudentTest| {
            ended(test).map_or(Datum::Missing, |line| Datum::Count(line.number.into()))
        })
        .shown(Shown::InCsv),
        Column::new("code", |test: &StudentTest| {
            ended(test)
                .and_then(|line| line.codes)
                .map_or(Datum::Missing, |(code, _)| Datum::Signed(code.into()))
        })
        .shown(Shown::InCsv),
        Column::new("failure", |test: &StudentTest| match &test.result {
            Err(why) => Datum::Text(format!("could not play: {why}")),
            Ok(_) => Datum::Text(ended(test).and_then(|line| line.failure.clone()).unwrap_or_default()),
        })
        .shown(Shown::InCsv),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::ForfeitNote;
    use othello_core::color::Color;

    fn standing() -> Standing {
        Standing {
            player: 1,
            games: 4,
            wins: 1,
            draws: 1,
            losses: 2,
            forfeits: 1,
            byes: 0,
            discs: -7,
            cumulative: 3.5,
            against: [(0, 1.5)].into(),
            forfeit_notes: vec![ForfeitNote {
                round: 0,
                opponent: 0,
                color: Color::White,
                ply: 3,
                code: -4,
                server_code: -2,
                failure: "no move given".to_string(),
                stderr: None,
            }],
        }
    }

    #[test]
    fn the_standings_csv_columns_are_the_json_members() {
        let names = ["ann".to_string(), "=bob".to_string()];
        let standing = standing();
        let csv = csv(&standings(&names, Scoring::Othello), &[(1, &standing)]);
        // The scoring is the whole tournament's in JSON, named on each row of the CSV.
        let header: Vec<&str> = csv
            .lines()
            .next()
            .unwrap()
            .split(',')
            .filter(|&c| c != "scoring")
            .collect();
        let json = serde_json::to_value(crate::json::StandingJson::new(1, &standing, &names)).unwrap();
        let members: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        let (mut header_sorted, mut members_sorted) = (header.clone(), members.clone());
        header_sorted.sort();
        members_sorted.sort();
        assert_eq!(header_sorted, members_sorted);
        // The name is kept from being a formula; the margin stays a number.
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .starts_with("1,'=bob,1.5,4,1,1,2,1,0,-7,3.5,othello,"),
            "{csv}"
        );
    }

    #[test]
    fn each_form_shows_its_columns_and_marks_its_cells() {
        let names = ["ann".to_string(), "bob".to_string()];
        let standing = standing();
        let rows = [(1, &standing)];
        let text = text(&standings(&names, Scoring::Othello), &rows);
        assert_eq!(
            text,
            "rank  player  points  games  wins  draws  losses  forfeits  discs\n   1  bob        1.5      4     1      1       2         1     -7\n"
        );
        let html = html(&standings(&names, Scoring::Othello), &rows, None);
        assert!(html.contains("<td class=\"bad\">1</td><td>-7</td></tr>"), "{html}");
        assert!(!html.contains("byes") && !text.contains("byes") && !text.contains("cumulative"));
        // The course server's tie-break is shown to people when it breaks ties.
        let text = crate::table::text(&standings(&names, Scoring::CourseServer), &rows);
        assert!(text.lines().next().unwrap().ends_with("discs  cumulative"), "{text}");
        assert!(text.lines().nth(1).unwrap().ends_with("-7         3.5"), "{text}");
    }
}
