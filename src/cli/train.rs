//! `othello train FILE...`: fits pattern weights to self-play samples and reports the error per
//! stage on held-out games.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use super::output::Output;
use super::write_stdout;
use othello_engine::patterns::{SCALE, STAGES, Weights};
use othello_engine::training::network::{self, NetworkConfig, Rows};
use othello_engine::training::train::{Example, Model, StageErrors, TrainConfig};

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Sample files written by `othello selfplay` (their complete games are read), or game
    /// collections: WTHOR databases (`.wtb`: each position before the depth of the game's
    /// theoretical score labelled by that score, later ones by the result) and Logistello's `.gam`
    /// lines (labelled by the result), either gzipped (`.gz`)
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to write the weights
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Passes over the data
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    epochs: u32,
    /// Games held out for validation: those whose index mod 100 is below this
    #[arg(long, value_name = "PERCENT", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=50))]
    validation_percent: u32,
    /// Shrinkage: a configuration seen n times moves as if seen n + this many times
    #[arg(long, default_value_t = 8.0, value_parser = shrinkage)]
    shrinkage: f32,
    /// Start the fit from the current weights (the built-in ones, or --weights FILE) instead of
    /// zero: configurations the new samples rarely see keep what earlier rounds taught them
    #[arg(long)]
    warm_start: bool,
    /// A sample also teaches the stages (of 5 empty squares each) within this many empty squares
    /// of its own: more positions for each stage's weights, and smoother changes between stages
    #[arg(long, value_name = "EMPTIES", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10))]
    stage_overlap: u32,
    /// Train toward this share of each position's search value (files of `othello selfplay`
    /// version 2) and the rest of its game's result; validation stays on the results
    #[arg(long, value_name = "SHARE", default_value_t = 0.0, value_parser = share)]
    search_weight: f32,
    /// How the least-squares fit is solved: `steps`, full passes in which each weight moves by its
    /// mean residual (--epochs of them; the fit of rounds 1-6), or `cg`, conjugate gradients per
    /// stage (--epochs iterations), which converges where the steps are still moving
    #[arg(long, value_enum, default_value_t = Method::Steps)]
    method: Method,
    /// With --search-weight: replace each search value by its λ-return, (1 - λ) times the value
    /// plus λ times the next position's return, down to the first solved position's exact score
    /// (0: the value itself)
    #[arg(long, value_name = "LAMBDA", default_value_t = 0.0, value_parser = share)]
    lambda: f32,
    /// At most this many positions (training and validation) are read: the fit keeps each in
    /// memory, about 140 bytes a position, so the default of 20 million needs about 3 GB; more
    /// is refused before the fit starts
    #[arg(long, value_name = "N", default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..=4_000_000_000))]
    max_positions: u64,
    /// Fit a network on top of the current weights (the built-in ones, or --weights FILE) instead
    /// of pattern weights: the patterns stay as they are, and a network over their features learns
    /// what they leave of each target (--search-weight and --lambda as for the patterns), at most
    /// --epochs passes, stopping when two bring the held-out error no lower; the file written
    /// holds both
    #[arg(long, conflicts_with_all = ["warm_start", "method", "shrinkage", "stage_overlap"])]
    network: bool,
    /// With --network: the positions it learns and joins the evaluation of, as FIRST-LAST empty
    /// squares
    #[arg(long, value_name = "FIRST-LAST", default_value = "16-50", value_parser = empties_range, requires = "network")]
    network_empties: (u32, u32),
}

/// What the fit keeps of a position: the example, its training row and its share of a stage's
/// members. Measured by `/usr/bin/time -v`: 279 MB at the peak for 1,705,226 positions, 511 MB
/// for 3,402,964 (137 bytes each beyond the first).
const BYTES_PER_POSITION: u64 = 140;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Method {
    Steps,
    Cg,
}

/// A range of empty squares within 1-60, as FIRST-LAST.
fn empties_range(text: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("{text:?} is not a range of empty squares: expected FIRST-LAST within 1-60, such as 16-50");
    let (first, last) = text.split_once('-').ok_or_else(bad)?;
    match (first.parse::<u32>(), last.parse::<u32>()) {
        (Ok(first @ 1..=60), Ok(last @ 1..=60)) if first <= last => Ok((first, last)),
        _ => Err(bad()),
    }
}

/// A share from 0 to 1.
fn share(text: &str) -> std::result::Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("{text:?} is not a share: expected a number from 0 to 1")),
    }
}

/// A finite shrinkage of 0 to 1,000,000 (NaN or a negative one would write NaN weights).
fn shrinkage(text: &str) -> std::result::Result<f32, String> {
    match text.parse::<f32>() {
        Ok(value) if (0.0..=1_000_000.0).contains(&value) => Ok(value),
        _ => Err(format!(
            "{text:?} is not a shrinkage: expected a number from 0 to 1000000"
        )),
    }
}

/// The complete games' samples of one file, split into training examples (toward a blend of
/// result and search value) and validation ones (toward the result). Refused as soon as the two
/// together would pass `max_positions`: the fit holds every position in memory.
fn read(
    path: &std::path::Path,
    (percent, search_weight, lambda, max_positions): (u64, f32, f32, u64),
    train: &mut Vec<Example>,
    valid: &mut Vec<Example>,
    mut held: Option<&mut Vec<Example>>,
) -> Result<()> {
    let mut add = |index: u64, samples: Vec<othello_engine::training::train::Sample>| {
        let total = (train.len() + valid.len() + samples.len()) as u64;
        if total > max_positions {
            bail!(
                "{}: more than {max_positions} positions in the training files (--max-positions; the fit \
                 keeps about {BYTES_PER_POSITION} bytes a position in memory): give fewer games, or raise \
                 --max-positions where the memory is there",
                path.display()
            );
        }
        if index % 100 < percent {
            if let Some(held) = held.as_deref_mut() {
                held.extend(Example::game_targets(&samples, search_weight, lambda));
            }
            valid.extend(samples.into_iter().map(Example::from));
        } else {
            train.extend(Example::game_targets(&samples, search_weight, lambda));
        }
        Ok(())
    };
    if super::collections::kind(path).is_some() {
        // A collection's games carry no search values: each position's label is what the
        // collection says of the game's end (othello_engine::training::collections).
        return super::collections::for_each(path, |collected| {
            add(
                collected.index,
                othello_engine::training::collections::samples(&collected.game, collected.ending),
            )
        });
    }
    othello_course::selfplay::samples::read_games(path, add)
}

pub fn run(args: TrainArgs, engine: &othello_engine::settings::EngineSettings) -> Result<()> {
    super::output::Files::new()
        .inputs("the training data", &args.files)
        .output("--out", Some(&args.out))
        .check()?;
    let output = Output::open(&args.out)?;
    let (mut train, mut valid, mut held) = (Vec::new(), Vec::new(), Vec::new());
    for path in &args.files {
        read(
            path,
            (
                u64::from(args.validation_percent),
                args.search_weight,
                args.lambda,
                args.max_positions,
            ),
            &mut train,
            &mut valid,
            args.network.then_some(&mut held),
        )?;
    }
    if train.is_empty() || valid.is_empty() {
        bail!(
            "{} training and {} validation samples: too few to fit (make more with othello selfplay)",
            train.len(),
            valid.len()
        );
    }
    let zero = StageErrors::of(&valid, |_| 0.0);
    let handmade = StageErrors::of(&valid, |board| {
        othello_engine::search::engine::static_estimate(board) as f32
    });
    // The weights the program has now: the error before this round.
    let builtin = StageErrors::of(&valid, |board| {
        othello_engine::patterns::builtin().evaluate(board) as f32 / SCALE as f32
    });
    let (weights, fitted) = if args.network {
        fit_network(&args, &train, &held, engine.weights())?
    } else {
        fit_patterns(&args, &train, &valid, engine.weights())
    };
    let trained = StageErrors::of(&valid, |board| weights.evaluate(board) as f32 / SCALE as f32);
    let mut report = errors_report(train.len(), &valid, [&zero, &handmade, &builtin, &trained, &fitted]);
    output.finish_bytes(&weights.to_bytes())?;
    report += &format!(
        "weights written to {}; try them with --weights {0} or engine:...:weights={0}\n",
        args.out.display()
    );
    if !args.network && engine.weights().network().is_some() {
        report += "the current weights' network is not in the new file (it was fitted on top of their patterns): fit one on top of these with --weights FILE train ... --network\n";
    }
    // The held-out error is against game results, whose noise (most of all in the random
    // openings) can hide a gain that games show: a match is the judge.
    report += &format!(
        "Games decide which is stronger: othello match engine:nodes=20000:weights={} engine:nodes=20000 --games 2048 --openings 8\n",
        args.out.display()
    );
    if args.network {
        // A network costs time a node: equal nodes flatter it (docs/history.md, "The network in
        // the engine": 58% at equal nodes, about even at equal time).
        report += &format!(
            "and at equal time, as the network costs time a node: othello match engine:100:weights={} engine:100 --games 400 --openings 8\n",
            args.out.display()
        );
    }
    write_stdout(&report)
}

/// The errors per stage of guessing 0, the hand-made evaluation, the built-in weights, the trained
/// ones (on the validation games, then on the training positions), and whether the new weights
/// beat the built-in ones.
fn errors_report(trained_on: usize, valid: &[Example], errors: [&StageErrors; 5]) -> String {
    let [zero, handmade, builtin, trained, fitted] = errors;
    let mut report = format!(
        "{trained_on} training and {} validation positions; error in discs (root mean square), validation games\n",
        valid.len()
    );
    report += "empties  positions  guess 0  hand-made  built-in  trained  (on training)\n";
    for s in 0..STAGES {
        report += &format!(
            "{:>2}-{:<2}   {:>9} {:>8.2} {:>10.2} {:>9.2} {:>8.2} {:>13.2}\n",
            s * 5 + 1,
            s * 5 + 5,
            zero.counts[s],
            zero.rmse[s],
            handmade.rmse[s],
            builtin.rmse[s],
            trained.rmse[s],
            fitted.rmse[s]
        );
    }
    report += &format!(
        "all      {:>9} {:>8.2} {:>10.2} {:>9.2} {:>8.2} {:>13.2}\n",
        valid.len(),
        mean_rmse(zero),
        mean_rmse(handmade),
        mean_rmse(builtin),
        mean_rmse(trained),
        mean_rmse(fitted)
    );
    let (new, old) = (mean_rmse(trained), mean_rmse(builtin));
    report += &if format!("{new:.2}") == format!("{old:.2}") {
        format!("The new weights do as well as the built-in ones on these validation games ({new:.2} discs).\n")
    } else if new > old {
        format!(
            "The new weights are WORSE than the built-in ones on these validation games ({new:.2} against {old:.2} discs): more games, or other settings, may help.\n"
        )
    } else {
        format!(
            "The new weights are better than the built-in ones on these validation games ({new:.2} against {old:.2} discs).\n"
        )
    };
    report
}

/// Pattern weights fitted to `train` (`valid` shows the steps' progress), and their error on it;
/// a warm start begins from `current`.
fn fit_patterns(args: &TrainArgs, train: &[Example], valid: &[Example], current: &Weights) -> (Weights, StageErrors) {
    let config = TrainConfig {
        epochs: args.epochs,
        shrinkage: args.shrinkage,
        overlap: args.stage_overlap,
        ..TrainConfig::default()
    };
    let mut model = if args.warm_start {
        Model::from_weights(current)
    } else {
        Model::new()
    };
    match args.method {
        Method::Steps => {
            for epoch in 1..=config.epochs {
                model.step(train, &config);
                if epoch % 10 == 0 || epoch == config.epochs {
                    let errors = StageErrors::of(valid, |board| model.predict(board));
                    let mean = mean_rmse(&errors);
                    eprintln!("epoch {epoch}: validation error {mean:.2} discs");
                }
            }
        }
        Method::Cg => model.fit(train, &config, config.epochs, |stage| {
            eprintln!("stage {} of {STAGES} fitted", stage + 1)
        }),
    }
    let fitted = StageErrors::of(train, |board| model.predict(board));
    (model.to_weights(), fitted)
}

/// The `current` weights' patterns with a network fitted to `train` on top, keeping the pass
/// that does best on `held` (the validation games' positions, toward the training targets), and
/// their error on `train`.
fn fit_network(
    args: &TrainArgs,
    train: &[Example],
    held: &[Example],
    current: &Weights,
) -> Result<(Weights, StageErrors)> {
    let config = NetworkConfig {
        empties: args.network_empties,
        epochs: args.epochs,
        ..NetworkConfig::default()
    };
    let patterns = network::patterns_only(current);
    let rows = Rows::of(train, &patterns, &config);
    let held_rows = Rows::of(held, &patterns, &config);
    let Some(network) = network::fit(&rows, &held_rows, &config, |pass, error| {
        eprintln!("pass {pass}: held-out error {error:.3} discs against the training targets")
    }) else {
        bail!(
            "{} training and {} validation positions with {}-{} empty squares: too few to fit a network",
            rows.len(),
            held_rows.len(),
            config.empties.0,
            config.empties.1
        );
    };
    let weights = Weights::new(patterns.stages().to_vec(), Some(network));
    let fitted = StageErrors::of(train, |board| weights.evaluate(board) as f32 / SCALE as f32);
    Ok((weights, fitted))
}

/// The root mean square error over all stages together.
fn mean_rmse(errors: &StageErrors) -> f64 {
    let (sum, n) = errors
        .rmse
        .iter()
        .zip(&errors.counts)
        .filter(|(_, n)| **n > 0)
        .fold((0.0, 0), |(sum, total), (&rmse, &n)| {
            (sum + rmse * rmse * n as f64, total + n)
        });
    (sum / n.max(1) as f64).sqrt()
}
