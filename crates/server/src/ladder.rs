//! The ladder: while the teacher has it running, scrimmages between the students' active versions,
//! a pair of games at a time for each (colours swapped, from a balanced opening), queued behind
//! every other game; each version rated by Glicko-2 from its pairs, in the order they ended, a
//! pair one rating period. A new version starts afresh at 1500; the old one's rating and history
//! are kept. The ratings are computed from the stored games whenever asked: the same games give the
//! same ratings.

use axum::Json;
use axum::extract::State;
use othello_course::rating::Rating;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::AppState;
use crate::auth::SignedIn;
use crate::db::{self, Role};
use crate::error::{ApiError, ServerError, Valid};
use crate::games::live::ResultView;
use crate::games::seat::Seat;

/// Glicko-2's system constant: how fast a volatility may move (Glickman suggests 0.3 to 1.2).
pub(crate) const TAU: f64 = 0.5;

/// The pairs a version asks for on the ladder: by then its deviation is a fraction of a fresh
/// one's and its rating moves little. Once every active version has had them the ladder rests until
/// a new version comes (which may still meet the others). Each pair takes one of some version's
/// 60, so the stored pairs, and the work of rating them again after each game, stay bounded by the
/// versions uploaded.
pub(crate) const MAX_PAIRS: usize = 60;

/// The ladder as the API shows it.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct LadderView {
    /// Whether new pairs are being queued.
    pub(crate) running: bool,
    /// Every version that has played a pair, best rating first.
    pub(crate) ratings: Vec<VersionRating>,
    /// Every pair that has ended, in the order it ended (the order the ratings follow).
    pub(crate) pairs: Vec<PairView>,
    /// Pairs queued or being played.
    pub(crate) unfinished: usize,
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct VersionRating {
    pub(crate) version: i64,
    pub(crate) student: String,
    /// Its owner's active version (the one the ladder pairs).
    pub(crate) active: bool,
    pub(crate) rating: f64,
    /// The uncertainty: the strength is within two deviations of the rating about 95% of the time.
    pub(crate) deviation: f64,
    pub(crate) volatility: f64,
    pub(crate) pairs: usize,
    /// Points from its games (a win 1, a tie 1/2; a forfeit a loss).
    pub(crate) points: f64,
    /// Its rating and deviation after each of its pairs.
    pub(crate) history: Vec<HistoryPoint>,
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct HistoryPoint {
    /// The pair's place in the order pairs ended, from 1.
    pub(crate) after: i64,
    pub(crate) rating: f64,
    pub(crate) deviation: f64,
}

#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct PairView {
    pub(crate) id: i64,
    /// Its place in the order pairs ended, from 1.
    pub(crate) order: i64,
    /// The two versions; `first` is black in the first game.
    pub(crate) first: i64,
    pub(crate) second: i64,
    /// Its two games.
    pub(crate) games: [i64; 2],
    /// Points of `first` and of `second` over the two games.
    pub(crate) points: [f64; 2],
}

/// A finished pair, read back.
struct Pair {
    id: i64,
    order: i64,
    first: i64,
    second: i64,
    games: [i64; 2],
    points: [f64; 2],
}

/// The pairs that have ended, in the order they ended, with each side's points from the stored
/// results (a forfeit is a loss).
fn finished_pairs(connection: &Connection) -> Result<Vec<Pair>, ServerError> {
    let mut statement = connection.prepare(
        "SELECT ladder_pairs.id, ladder_pairs.done, ladder_pairs.first, ladder_pairs.second,
                games.id, games.black, games.result
         FROM ladder_pairs JOIN games ON games.ladder_pair = ladder_pairs.id
         WHERE ladder_pairs.done IS NOT NULL ORDER BY ladder_pairs.done, games.id",
    )?;
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, i64>(2)?,
            row.get::<_, i64>(3)?,
            row.get::<_, i64>(4)?,
            row.get::<_, String>(5)?,
            row.get::<_, Option<String>>(6)?,
        ))
    })?;
    let mut pairs: Vec<Pair> = Vec::new();
    for row in rows {
        let (id, order, first, second, game, black, result) = row?;
        let result: Option<ResultView> = result.and_then(|text| serde_json::from_str(&text).ok());
        let black_points = result.as_ref().map_or(0.5, ResultView::black_points);
        let first_points = if black == format!("program:{first}") {
            black_points
        } else {
            1.0 - black_points
        };
        match pairs.last_mut() {
            Some(pair) if pair.id == id => {
                pair.games[1] = game;
                pair.points[0] += first_points;
                pair.points[1] += 1.0 - first_points;
            }
            _ => pairs.push(Pair {
                id,
                order,
                first,
                second,
                games: [game, 0],
                points: [first_points, 1.0 - first_points],
            }),
        }
    }
    Ok(pairs)
}

/// A version's standing on the ladder as its pairs built it.
#[derive(Default)]
struct Rated {
    rating: Rating,
    pairs: usize,
    points: f64,
    history: Vec<HistoryPoint>,
}

/// Every version's rating after the finished pairs, each pair a rating period of its two games.
fn ratings(pairs: &[Pair]) -> std::collections::BTreeMap<i64, Rated> {
    let mut rated: std::collections::BTreeMap<i64, Rated> = std::collections::BTreeMap::new();
    for pair in pairs {
        let before = [pair.first, pair.second].map(|version| rated.entry(version).or_default().rating);
        for (k, version) in [pair.first, pair.second].into_iter().enumerate() {
            let opponent = before[1 - k];
            // Two games against one opponent: Glicko-2 hears only their scores' sum (the same
            // g and E for both), so any split of the points gives the same rating.
            let own = pair.points[k];
            let results = [(opponent, own.min(1.0)), (opponent, (own - 1.0).max(0.0))];
            let entry = rated.entry(version).or_default();
            entry.rating = before[k].after(&results, TAU);
            entry.pairs += 1;
            entry.points += own;
            entry.history.push(HistoryPoint {
                after: pair.order,
                rating: entry.rating.rating,
                deviation: entry.rating.deviation,
            });
        }
    }
    rated
}

fn running(connection: &Connection) -> Result<Option<i64>, ServerError> {
    Ok(connection
        .query_row("SELECT creator FROM ladder WHERE id = 1 AND running", [], |row| {
            row.get(0)
        })
        .optional()?)
}

/// While the ladder runs: pairs queued until `places` games (the server's games at once) have
/// one each, a version in one pair at a time. So the queue stays shallow, and each new pair is
/// chosen among most of the class: the first is the free version with the fewest pairs (then the
/// longest without one); its opponent the free one nearest its rating, not the one it met last if
/// another is free (then the fewest pairs, then the oldest).
pub(crate) fn top_up(connection: &Connection, places: usize) -> Result<(), ServerError> {
    let Some(creator) = running(connection)? else {
        return Ok(());
    };
    let transaction = connection.unchecked_transaction()?;
    let rated = ratings(&finished_pairs(&transaction)?);
    // The students playing a pair (with this version or an older one).
    let busy: Vec<i64> = {
        let mut statement = transaction.prepare(
            "SELECT programs.owner FROM ladder_pairs JOIN programs ON programs.id IN (ladder_pairs.first, ladder_pairs.second)
             WHERE ladder_pairs.done IS NULL",
        )?;
        let rows = statement.query_map([], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    // (version, pairs so far, its last pair's id, its last opponent)
    let mut free: Vec<(i64, usize, i64, Option<i64>)> = Vec::new();
    for (version, owner) in db::active_versions(&transaction)? {
        if busy.contains(&owner) {
            continue;
        }
        let last: Option<(i64, i64)> = transaction
            .query_row(
                "SELECT id, CASE WHEN first = ?1 THEN second ELSE first END FROM ladder_pairs
                 WHERE first = ?1 OR second = ?1 ORDER BY id DESC LIMIT 1",
                params![version],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let pairs = rated.get(&version).map_or(0, |r| r.pairs);
        free.push((
            version,
            pairs,
            last.map_or(0, |(id, _)| id),
            last.map(|(_, other)| other),
        ));
    }
    let rating = |version: i64| {
        rated
            .get(&version)
            .map_or(Rating::default().rating, |r| r.rating.rating)
    };
    let mut unfinished = busy.len() / 2;
    while free.len() >= 2 && unfinished < places.div_ceil(2) {
        free.sort_by_key(|&(version, pairs, last, _)| (pairs, last, version));
        // A pair needs one version under its pairs (a new one may meet a version that has had
        // its fill).
        if free[0].1 >= MAX_PAIRS {
            break;
        }
        unfinished += 1;
        let (first, _, _, last_opponent) = free.remove(0);
        let others = free.iter().filter(|f| Some(f.0) != last_opponent).count();
        let at = (0..free.len())
            .filter(|&k| others == 0 || Some(free[k].0) != last_opponent)
            .min_by(|&x, &y| {
                let distance = |k: usize| (rating(free[k].0) - rating(first)).abs();
                distance(x)
                    .total_cmp(&distance(y))
                    .then((free[x].1, free[x].2, free[x].0).cmp(&(free[y].1, free[y].2, free[y].0)))
            })
            .expect("two or more were free");
        let (second, ..) = free.remove(at);
        add_pair(&transaction, creator, first, second)?;
    }
    transaction.commit()?;
    Ok(())
}

fn add_pair(connection: &Connection, creator: i64, first: i64, second: i64) -> Result<(), ServerError> {
    connection.execute(
        "INSERT INTO ladder_pairs (first, second) VALUES (?1, ?2)",
        params![first, second],
    )?;
    let pair = connection.last_insert_rowid();
    let seats = [first, second].map(|version| Seat::stored(connection, &format!("program:{version}")));
    let [first_seat, second_seat] = seats;
    let (first_seat, second_seat) = (first_seat?, second_seat?);
    let openings = othello_course::matches::OpeningList::balanced(pair as u32);
    let opening = othello_core::notation::transcript::format(openings.for_pair(pair as u32 - 1));
    for seats in [[&first_seat, &second_seat], [&second_seat, &first_seat]] {
        let (game, _) = db::add_game(connection, creator, seats, &opening, None)?;
        connection.execute("UPDATE games SET ladder_pair = ?1 WHERE id = ?2", params![pair, game])?;
    }
    Ok(())
}

/// After a game: if it ends its ladder pair, the pair takes its place in the order, and the
/// ladder is topped up.
pub(crate) fn after_game(connection: &Connection, game: i64, places: usize) -> Result<(), ServerError> {
    let pair: Option<i64> = connection
        .query_row("SELECT ladder_pair FROM games WHERE id = ?1", params![game], |row| {
            row.get(0)
        })
        .optional()?
        .flatten();
    let Some(pair) = pair else {
        return Ok(());
    };
    connection.execute(
        "UPDATE ladder_pairs SET done = (SELECT coalesce(max(done), 0) + 1 FROM ladder_pairs)
         WHERE id = ?1 AND done IS NULL
         AND NOT EXISTS (SELECT 1 FROM games WHERE ladder_pair = ?1 AND status != 'finished')",
        params![pair],
    )?;
    top_up(connection, places)
}

/// The ladder as it stands.
pub(crate) fn view(connection: &Connection) -> Result<LadderView, ServerError> {
    let pairs = finished_pairs(connection)?;
    let rated = ratings(&pairs);
    let active: std::collections::BTreeSet<i64> = db::active_versions(connection)?
        .into_iter()
        .map(|(version, _)| version)
        .collect();
    let mut ratings = Vec::new();
    for (version, r) in rated {
        let owner = db::program_seat(connection, version)?.map_or_else(String::new, |seat| seat.owner);
        ratings.push(VersionRating {
            version,
            student: owner,
            active: active.contains(&version),
            rating: r.rating.rating,
            deviation: r.rating.deviation,
            volatility: r.rating.volatility,
            pairs: r.pairs,
            points: r.points,
            history: r.history,
        });
    }
    ratings.sort_by(|a, b| b.rating.total_cmp(&a.rating).then(a.version.cmp(&b.version)));
    let unfinished = connection.query_row("SELECT count(*) FROM ladder_pairs WHERE done IS NULL", [], |row| {
        row.get::<_, i64>(0)
    })? as usize;
    Ok(LadderView {
        running: running(connection)?.is_some(),
        ratings,
        pairs: pairs
            .into_iter()
            .map(|p| PairView {
                id: p.id,
                order: p.order,
                first: p.first,
                second: p.second,
                games: p.games,
                points: p.points,
            })
            .collect(),
        unfinished,
    })
}

/// `GET /api/ladder`: the ratings, their histories and the pairs they come from.
pub(crate) async fn get(State(state): State<AppState>, SignedIn(_): SignedIn) -> Result<Json<LadderView>, ApiError> {
    Ok(Json(state.with_db(view).await?))
}

#[derive(Deserialize)]
pub(crate) struct LadderBody {
    running: bool,
}

/// `PUT /api/ladder` (the teacher's): `{"running": true}` starts queuing pairs, false stops it
/// (pairs not begun are taken out of the queue; those begun are played to their end).
pub(crate) async fn set(
    State(state): State<AppState>,
    SignedIn(user): SignedIn,
    Valid(Json(body)): Valid<Json<LadderBody>>,
) -> Result<Json<LadderView>, ApiError> {
    if user.role != Role::Teacher {
        return Err(ApiError::forbidden("only the teacher starts or stops the ladder"));
    }
    let places = state.runner.cores.places();
    let view = state
        .with_db(move |connection| -> Result<LadderView, ServerError> {
            let transaction = connection.unchecked_transaction()?;
            transaction.execute(
                "INSERT INTO ladder (id, running, creator) VALUES (1, ?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET running = ?1, creator = ?2",
                params![body.running, user.id],
            )?;
            if !body.running {
                db::drop_unbegun_pairs(&transaction, |_| true)?;
            }
            let action = if body.running {
                "started the ladder"
            } else {
                "stopped the ladder"
            };
            db::audit(&transaction, &user.name, action, "ladder")?;
            transaction.commit()?;
            top_up(connection, places)?;
            view(connection)
        })
        .await?;
    state.runner.ring();
    Ok(Json(view))
}
