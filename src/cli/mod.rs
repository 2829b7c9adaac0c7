//! The command line: the lab mode by default, subcommands by name; maps every failure to an exit status.

use std::ffi::OsString;
use std::io::{self, Write};

use anyhow::{Context, Result, anyhow};

use crate::lab::{self, LabIllegalMove, LabRequest};

/// Exit statuses: 0 success, 1 the rules refused a well-formed request, 2 bad input.
pub const EXIT_REFUSED: u8 = 1;
pub const EXIT_BAD_INPUT: u8 = 2;

/// An error that the rules raised rather than the input: exit status 1.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Refused(#[from] pub anyhow::Error);

/// The exit status for an error that reached `main`.
pub fn exit_status(error: &anyhow::Error) -> u8 {
    let refused = error.chain().any(|cause| cause.is::<LabIllegalMove>() || cause.is::<Refused>());
    if refused { EXIT_REFUSED } else { EXIT_BAD_INPUT }
}

const HELP: &str = "\
othello: Othello (Reversi) for the course's labs, with strategies and an exact engine

Lab mode (the course's Othello 1-3 snapshots, byte for byte):
  othello [BOARD] [TOKEN] [MOVES...] [--lab1]
    BOARD   64 characters from xXoO. (default: the start position)
    TOKEN   x or o, the side to play first (default: by parity, passing if it cannot move)
    MOVES   0..63 or a1..h8; negative numbers are ignored
    --lab1  Othello 1's first snapshot: the token keeps the turn, `No moves possible`

Exit status: 0 ok, 1 an illegal move (the snapshots before it are printed), 2 a bad argument.
";

/// Runs the program on its arguments (without the program name), writing to stdout.
pub fn run(args: Vec<OsString>) -> Result<()> {
    let args: Vec<String> = args
        .into_iter()
        .map(|arg| arg.into_string().map_err(|raw| anyhow!("bad argument {raw:?}: not valid UTF-8")))
        .collect::<Result<_>>()?;
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        return write_stdout(HELP);
    }
    if args.iter().any(|arg| arg == "--version" || arg == "-V") {
        return write_stdout(&format!("othello {}\n", env!("CARGO_PKG_VERSION")));
    }
    run_lab(&args)
}

fn run_lab(args: &[String]) -> Result<()> {
    let request = LabRequest::parse(args)?;
    let mut out = String::with_capacity(256 * (request.moves.len() + 1));
    let outcome = lab::run(&request, &mut out);
    write_stdout(&out)?;
    Ok(outcome?)
}

/// Writes all of `text` to stdout; a closed pipe (`othello ... | head`) is not an error.
pub fn write_stdout(text: &str) -> Result<()> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}
