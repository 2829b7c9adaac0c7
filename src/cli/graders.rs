//! Tools for graders: `othello diff` (strict or tolerant transcript comparison) and `othello cases`
//! (lab test cases from random legal games).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;

use super::{Refused, write_stdout};
use crate::lab::{cases, diff};
use crate::log::write_atomically;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The reference transcript (`-` for stdin)
    expected: PathBuf,
    /// The transcript to check (`-` for stdin)
    actual: PathBuf,
    /// Compare as the course's graders do: board characters only, `*` as `.`, case, spacing and
    /// punctuation ignored, possible moves as a set, "moves to" as "plays to"
    #[arg(long)]
    tolerant: bool,
}

fn read_input(path: &Path, stdin_taken: &mut bool) -> Result<String> {
    if path.as_os_str() == "-" {
        if *stdin_taken {
            bail!("bad argument \"-\": only one of the two transcripts can come from stdin");
        }
        *stdin_taken = true;
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).context("cannot read stdin")?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

pub fn run_diff(args: DiffArgs) -> Result<()> {
    let mut stdin_taken = false;
    let expected = read_input(&args.expected, &mut stdin_taken)?;
    let actual = read_input(&args.actual, &mut stdin_taken)?;
    let difference = if args.tolerant {
        diff::tolerant(&expected, &actual)
    } else {
        diff::strict(&expected, &actual)
    };
    match difference {
        None => Ok(()),
        Some(report) => {
            write_stdout(&format!("{report}\n"))?;
            let how = if args.tolerant {
                "as a grader reads them"
            } else {
                "byte for byte"
            };
            Err(Refused(anyhow!("the transcripts differ {how}")).into())
        }
    }
}

#[derive(Args, Debug)]
pub struct CasesArgs {
    /// How many cases to write
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    count: u32,
    /// Seed: the same seed writes the same cases
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// At most this many moves per case (one case in eight plays its game to the end)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=60))]
    max_moves: u32,
    /// The folder to write NAME.args and NAME.out into (created if needed)
    dir: PathBuf,
}

pub fn run_cases(args: CasesArgs) -> Result<()> {
    std::fs::create_dir_all(&args.dir).with_context(|| format!("cannot create {}", args.dir.display()))?;
    let width = args.count.to_string().len().max(3);
    for index in 0..args.count {
        let case = cases::generate(args.seed, u64::from(index), args.max_moves);
        let name = args.dir.join(format!("case-{:0width$}", index + 1));
        let lines: String = case.args.iter().map(|arg| format!("{arg}\n")).collect();
        write_atomically(&name.with_extension("args"), &lines)
            .and_then(|()| write_atomically(&name.with_extension("out"), &case.stdout))
            .with_context(|| format!("cannot write {}", name.display()))?;
    }
    write_stdout(&format!(
        "wrote {} cases to {} (seed {}); check a program with: scripts/check-transcripts.sh {} -- COMMAND\n",
        args.count,
        args.dir.display(),
        args.seed,
        args.dir.display()
    ))
}
