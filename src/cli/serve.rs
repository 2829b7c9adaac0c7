//! `othello serve`: the class's server (othello_server), its data folder made by `init`, its
//! students added from a roster. It runs as an executable of its own, `othello-serve` beside
//! `othello` (src/bin/othello-serve.rs): `othello serve` runs that with the same words.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ServeArgs {
    #[command(subcommand)]
    command: Option<ServeCommand>,
    /// The server's data folder (made by `othello serve init --data DIR`)
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// The address to listen on; the server says where it listens on its first line (port 0: one
    /// the system chooses)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Games of programs played at once, each pinned to a core of its own [default: the cores this
    /// process may use; more share them, which costs the programs CPU time: see docs/server.md]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    games: Option<u32>,
}

#[derive(Subcommand, Debug)]
enum ServeCommand {
    /// Make a data folder: the database and the teacher's account, whose password is printed once
    Init {
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
    },
    /// Add a student account for each name of ROSTER (a name a line: letters, digits, . _ -);
    /// prints name,password lines, each password once
    AddStudents {
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        roster: PathBuf,
    },
}

/// `othello serve WORDS`: runs `othello-serve WORDS` in this process's place.
pub fn forward(words: &[String]) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let own = std::env::current_exe().context("cannot find this program's own path")?;
    let server = own.with_file_name("othello-serve");
    if !server.is_file() {
        bail!(
            "othello serve runs {}, which is not there: build it with cargo build --release --bins (cargo install --path . installs both)",
            server.display()
        );
    }
    let error = std::process::Command::new(&server).args(words).exec();
    Err(error).with_context(|| format!("cannot run {}", server.display()))
}

/// The most names a roster may hold.
const MAX_ROSTER: usize = 10_000;

pub fn run(args: ServeArgs) -> Result<()> {
    match args.command {
        Some(ServeCommand::Init { data }) => {
            let teacher = othello_server::init(&data)?;
            super::write_stdout(&format!(
                "data folder {} made\nname: {}\npassword: {}\n(the password is shown this once: the teacher changes it after signing in)\n",
                data.display(),
                teacher.name,
                teacher.password
            ))
        }
        Some(ServeCommand::AddStudents { data, roster }) => {
            let text = othello_plumbing::files::read_text(&roster)?;
            let names: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(str::to_string)
                .collect();
            if names.is_empty() || names.len() > MAX_ROSTER {
                bail!(
                    "bad roster {}: expected 1 to {MAX_ROSTER} names, a name a line, and it has {}",
                    roster.display(),
                    names.len()
                );
            }
            let accounts = othello_server::add_students(&data, &names)
                .with_context(|| format!("no account added from {}", roster.display()))?;
            let lines: String = accounts
                .iter()
                .map(|account| format!("{},{}\n", account.name, account.password))
                .collect();
            super::write_stdout(&format!("name,password\n{lines}"))
        }
        None => {
            let Some(data) = args.data else {
                bail!("othello serve needs its data folder: --data DIR (made by othello serve init --data DIR)");
            };
            let games = args.games.map_or_else(
                || std::thread::available_parallelism().map_or(1, usize::from),
                |games| games as usize,
            );
            let options = othello_server::ServeOptions {
                data,
                listen: args.listen,
                games,
            };
            othello_server::serve(&options, |address| {
                let mut stdout = std::io::stdout();
                let _ = writeln!(stdout, "listening on http://{address}");
                let _ = stdout.flush();
            })?;
            Ok(())
        }
    }
}
