//! Tools for graders: `othello diff` (two outputs of the lab mode compared by a judge) and `othello cases` (lab test
//! cases from random legal games, written as a whole set or not at all).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;

use super::{Refused, write_stdout};
use othello_course::cases::{self, Form, Lab5Mix, Options};
use othello_course::judge::Judge;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The reference transcript (`-` for stdin)
    expected: PathBuf,
    /// The transcript to check (`-` for stdin)
    actual: PathBuf,
    /// strict (byte for byte), tolerant (every snapshot, layout forgiven: board characters only, `*`
    /// as `.`, case, spacing and punctuation ignored, counts on their own line, moves as a set) or
    /// course (the last board and the last possible moves, as the course's Lab A grader)
    #[arg(long, default_value = "strict", conflicts_with = "tolerant")]
    judge: Judge,
    /// Short for --judge tolerant
    #[arg(long)]
    tolerant: bool,
    /// Differences shown at most
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    max: u32,
}

fn read_input(path: &Path, stdin_taken: &mut bool) -> Result<String> {
    if path.as_os_str() == "-" {
        if *stdin_taken {
            bail!("bad argument \"-\": only one of the two outputs can come from stdin");
        }
        *stdin_taken = true;
        let bytes = othello_plumbing::files::read_limited(
            std::io::stdin(),
            Path::new("stdin"),
            othello_plumbing::files::MAX_FILE_BYTES,
        )?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    let bytes = othello_plumbing::files::read_bytes(path)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub fn run_diff(args: DiffArgs) -> Result<()> {
    let mut stdin_taken = false;
    let expected = read_input(&args.expected, &mut stdin_taken)?;
    let actual = read_input(&args.actual, &mut stdin_taken)?;
    let judge = if args.tolerant { Judge::Tolerant } else { args.judge };
    if judge == Judge::Lab5 {
        bail!(
            "bad argument \"lab5\": the lab5 judge marks an output against its case's position; use othello grade --judge lab5"
        );
    }
    let differences = judge.compare(&expected, &actual);
    if differences.is_empty() {
        return Ok(());
    }
    let mut report = String::new();
    for difference in differences.iter().take(args.max as usize) {
        report.push_str(&format!("{difference}\n"));
    }
    let shown = differences.len().min(args.max as usize);
    report.push_str(&format!(
        "{} difference{} (judge {judge}){}\n",
        differences.len(),
        if differences.len() == 1 { "" } else { "s" },
        if shown < differences.len() {
            format!("; the first {shown} shown")
        } else {
            String::new()
        }
    ));
    write_stdout(&report)?;
    Err(Refused(anyhow!("the outputs differ (judge {judge})")).into())
}

#[derive(Args, Debug)]
pub struct CasesArgs {
    /// How many cases to write (every set starts with one case of each kind the course tests)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    count: u32,
    /// Seed: the same seed writes the same cases
    #[arg(long, default_value_t = 1, value_parser = super::seed)]
    seed: u64,
    /// At most this many moves per random case (one case in eight plays its game to the end)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=60))]
    max_moves: u32,
    /// Any arguments the lab mode accepts, beyond the handout's form: the token after the moves,
    /// leading zeros such as 019
    #[arg(long, conflicts_with = "lab1")]
    varied: bool,
    /// Othello 1 cases: a board and a token only, the expected output as with --lab1
    #[arg(long)]
    lab1: bool,
    /// The moves as one condensed transcript (4445_9-157: two characters a move, -1 a pass)
    #[arg(long, conflicts_with = "lab1")]
    condensed: bool,
    /// Lab 5 cases: a board with 1 to 10 empty squares and the token to play, in the course's mix
    /// (the 2021 handout's: ten boards with 1 to 10 empty squares, then 1 to 9 in turn, so that only
    /// the 10th has 10); grade them with --judge lab5
    #[arg(long, conflicts_with_all = ["lab1", "varied", "condensed"])]
    lab5: bool,
    /// Lab 5's boards with 1 to 10 empty squares in turn (ten of each count in a hundred) rather
    /// than the course's mix
    #[arg(long, requires = "lab5")]
    uniform: bool,
    /// Replace the cases already in DIR (the old set is removed)
    #[arg(long)]
    replace: bool,
    /// The folder to write NAME.args and NAME.out into: new, empty, or holding a set to --replace
    dir: PathBuf,
}

pub fn run_cases(args: CasesArgs) -> Result<()> {
    let existing = existing_cases(&args.dir)?;
    if existing > 0 && !args.replace {
        bail!(
            "bad argument {:?}: the folder already holds {existing} case files; add --replace to replace that set",
            args.dir.display().to_string()
        );
    }
    let options = Options {
        form: if args.lab5 {
            Form::Lab5
        } else if args.lab1 {
            Form::Lab1
        } else if args.varied {
            Form::Varied
        } else {
            Form::Handout
        },
        condensed: args.condensed,
        max_moves: args.max_moves,
        lab5_mix: if args.uniform {
            Lab5Mix::Uniform
        } else {
            Lab5Mix::Course
        },
    };
    // The set is written whole into a new folder beside DIR, then renamed: no half set, ever.
    let parent = args
        .dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    // A set left half-written by a killed run is removed first (its name carries the run's pid).
    othello_plumbing::scratch::sweep(parent, CASES_STAGING);
    let staging = tempfile::Builder::new()
        .prefix(&othello_plumbing::scratch::own_prefix(CASES_STAGING))
        .tempdir_in(parent)
        .with_context(|| format!("cannot write into {}", parent.display()))?;
    // Stopped by a signal, the half-written set goes with it.
    let _staged = super::signals::remove_folder_on_stop(staging.path());
    let width = args.count.to_string().len().max(3);
    for index in 0..args.count {
        let case = cases::generate(args.seed, u64::from(index), options);
        let name = staging.path().join(format!("case-{:0width$}", index + 1));
        let lines: String = case.args.iter().map(|arg| format!("{arg}\n")).collect();
        std::fs::write(name.with_extension("args"), lines)
            .and_then(|()| std::fs::write(name.with_extension("out"), &case.stdout))
            .with_context(|| format!("cannot write the cases in {}", parent.display()))?;
    }
    replace_folder(staging, &args.dir)?;
    let (judge, run) = match (args.lab1, args.lab5) {
        (true, _) => ("", "othello --lab1"),
        (_, true) => (" --judge lab5", "othello --lab5"),
        _ => ("", "othello"),
    };
    write_stdout(&format!(
        "wrote {} cases to {} (seed {}); grade a program with: othello grade {}{judge} -- COMMAND (the reference: {run})\n",
        args.count,
        args.dir.display(),
        args.seed,
        args.dir.display(),
    ))
}

/// The staging folder of a case set being written, beside its folder.
const CASES_STAGING: &str = ".othello-cases-";

/// How many case files DIR holds; an error when it holds anything else.
fn existing_cases(dir: &Path) -> Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut cases = 0;
    for entry in entries {
        let path = entry.with_context(|| format!("cannot read {}", dir.display()))?.path();
        let is_case = path.is_file()
            && path
                .extension()
                .is_some_and(|ext| ["args", "out", "status", "err"].iter().any(|known| ext == *known));
        if !is_case {
            bail!(
                "bad argument {:?}: the folder holds {}, which is not a case file; choose a new or empty folder",
                dir.display().to_string(),
                path.display()
            );
        }
        cases += 1;
    }
    Ok(cases)
}

/// Puts the finished set in DIR's place; the old set, if any, is removed only once the new one stands.
fn replace_folder(staging: tempfile::TempDir, dir: &Path) -> Result<()> {
    let cannot = || format!("cannot put the cases in {}", dir.display());
    if !dir.exists() || std::fs::remove_dir(dir).is_ok() {
        std::fs::rename(staging.path(), dir).with_context(cannot)?;
        std::mem::forget(staging);
        return Ok(());
    }
    let old = dir.with_file_name(format!(
        ".{}.old-{}",
        dir.file_name().map_or_else(Default::default, |n| n.to_string_lossy()),
        std::process::id()
    ));
    std::fs::rename(dir, &old).with_context(cannot)?;
    if let Err(error) = std::fs::rename(staging.path(), dir) {
        let _ = std::fs::rename(&old, dir);
        return Err(error).with_context(cannot);
    }
    std::mem::forget(staging);
    std::fs::remove_dir_all(&old).with_context(|| format!("cannot remove the old set, now in {}", old.display()))
}
