//! The options several commands share, and their values' parsers: how students' programs run
//! (the sandbox and its limits) and on which clocks, seeds, sizes and seconds.

use super::*;
pub use othello_course::programs::setup::seconds;
use othello_course::programs::setup::{PlayerSetup, TimeFor};

/// How students' programs run: in a sandbox of their own (the default) and with which limits, or
/// without one. Every command that runs them has these options.
#[derive(clap::Args, Debug, Clone)]
pub struct SandboxArgs {
    /// Run programs without the sandbox: as this user, seeing everything it can, in a process group
    /// that is killed whole, with wall-clock time limits; every report then says so
    #[arg(long)]
    no_sandbox: bool,
    /// Memory a program may hold in all, every process and file of its run together (its control
    /// group's limit; with --per-process-limits each process's address space): bytes, or with k, M,
    /// G (powers of 1000) or KiB, MiB, GiB
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = size, conflicts_with = "no_sandbox")]
    memory_limit: u64,
    /// The largest file a program may write
    #[arg(long, value_name = "SIZE", default_value = "10MiB", value_parser = size, conflicts_with = "no_sandbox")]
    file_size_limit: u64,
    /// Files each process of a program may have open at once
    #[arg(long, value_name = "N", default_value_t = 500, value_parser = clap::value_parser!(u64).range(16..=1 << 20), conflicts_with = "no_sandbox")]
    open_files: u64,
    /// Processes (threads included) a program may run at once
    #[arg(long, value_name = "N", default_value_t = 128, value_parser = clap::value_parser!(u64).range(1..=1 << 16), conflicts_with = "no_sandbox")]
    processes: u64,
    /// A file or folder that every program sees read-only at its own path (again for more)
    #[arg(long, value_name = "PATH", conflicts_with = "no_sandbox")]
    visible: Vec<std::path::PathBuf>,
    /// Sandbox the programs without a control group, where the kernel gives none: memory and
    /// processes limited per process, CPU time counted from the processes the init sees, nothing
    /// frozen between a player's moves; every report then says so
    #[arg(long, conflicts_with = "no_sandbox")]
    per_process_limits: bool,
}

impl SandboxArgs {
    /// How programs are to run, as the options say (for reports; [`SandboxArgs::apply`] before
    /// running any).
    pub fn isolation(&self) -> othello_sandbox::Isolation {
        use othello_sandbox::{Isolation, Resources};
        if self.no_sandbox {
            return Isolation::ProcessGroup;
        }
        Isolation::Sandbox(Resources {
            memory: self.memory_limit,
            file_size: self.file_size_limit,
            open_files: self.open_files,
            processes: self.processes,
            whole_run: !self.per_process_limits,
            visible: self
                .visible
                .iter()
                .filter_map(|p| std::path::absolute(p).ok())
                .collect(),
        })
    }

    /// How programs run, checked to work here: a clear refusal (exit 2) naming what the kernel
    /// lacks, never a silent fallback.
    pub fn apply(&self) -> Result<othello_sandbox::Isolation> {
        for path in &self.visible {
            if !path.exists() {
                bail!(
                    "bad argument {:?}: --visible takes an existing file or folder",
                    path.display().to_string()
                );
            }
        }
        let isolation = self.isolation();
        if !isolation.is_sandbox() {
            // A stop must not leave the programs' process groups running.
            signals::install();
        }
        isolation.check()?;
        Ok(isolation)
    }
}

/// A size in bytes: a whole number, optionally with k, M, G (powers of 1000) or KiB, MiB, GiB.
pub fn size(text: &str) -> std::result::Result<u64, String> {
    let bad = || format!("{text:?} is not a size: expected bytes, or a number with k, M, G, KiB, MiB or GiB");
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let factor: u64 = match unit {
        "" | "B" => 1,
        "k" | "K" | "kB" | "KB" => 1000,
        "M" | "MB" => 1_000_000,
        "G" | "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(bad()),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|&n| n >= 4096)
        .ok_or_else(bad)
}

/// The time a program player has (`argv:`, `quickmove:`, `strategy:`); built-in strategies ignore it.
#[derive(clap::Args, Debug, Clone)]
pub struct ClockArgs {
    /// Seconds a program has for each move (the course's defaults: argv 0.5, strategy 1, quickmove
    /// none but its game's time): wall time for argv and strategy programs, as the course's 2020
    /// moderator and tournament server measure it (--cpu-time for CPU time), CPU time for quickmove.
    /// SECONDS for every program, FORM=SECONDS for one form's (argv=3), N=SECONDS for the Nth player
    /// named (2=1); again for more
    #[arg(long, value_name = "[WHO=]SECONDS", value_parser = time_for, allow_hyphen_values = true)]
    move_time: Vec<TimeFor>,
    /// Seconds of CPU time a quickmove program has for all its moves in a game (default 0.3), as the
    /// course's 2023 moderator measures it (time.process_time()); other forms have no game clock.
    /// A timed engine (engine[:MS]) plays on this clock of wall time instead of its time a move, and
    /// loses a game it overruns. [WHO=] as for --move-time
    #[arg(long, value_name = "[WHO=]SECONDS", value_parser = time_for, allow_hyphen_values = true)]
    game_time: Vec<TimeFor>,
    /// Seconds of CPU time a Python file has to import (default 10)
    #[arg(long, value_name = "SECONDS", value_parser = seconds, allow_hyphen_values = true)]
    import_time: Option<std::time::Duration>,
    /// Count the CPU time of argv and strategy players too, not the wall time their course rules use
    /// (quickmove players' time is always CPU time, as the course's moderator measures it)
    #[arg(long)]
    cpu_time: bool,
    /// Give each program a copy of its file's whole folder (a student's own folder, with their other
    /// modules), not of the file alone
    #[arg(long)]
    whole_folder: bool,
    /// Call a quickmove program's quickMove('', N) once before its games, as the later labs'
    /// moderators pass the hole limit (below which the program should solve exactly)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=64))]
    hole_limit: Option<u32>,
    /// Send programs the board in upper case (.XO), as the 2018 moderators did (default lower case)
    #[arg(long)]
    upper_board: bool,
    /// Play by one year's rules of the course: lab4-2021 (argv, 0.5 s a move, 100 games, time
    /// hoarding), lab4-2024 (quickMove, 0.3 s of CPU time a game, 500 games, a time-out ends the
    /// test) or server (the tournament server: 5 s a move, 1 s in tournaments, at most 15, 1 s to
    /// import). Default: for each program, the most recent rules of its form (argv lab4-2021,
    /// quickmove lab4-2024, strategy server)
    #[arg(long, value_name = "RULES")]
    rules: Option<othello_course::programs::rules::Rules>,
    /// Carry a program's unused time over to its next move, in whole seconds, as the server's runoff
    #[arg(long)]
    runoff: bool,
    /// Set by the tournament command: the server's rules give tournaments 1 s a move
    #[arg(skip)]
    pub tournament: bool,
    #[command(flatten)]
    sandbox: SandboxArgs,
}

impl ClockArgs {
    /// The players' settings these options give, programs run as `isolation` says.
    fn setup(&self, isolation: othello_sandbox::Isolation) -> PlayerSetup {
        PlayerSetup {
            rules: self.rules,
            move_time: self.move_time.clone(),
            game_time: self.game_time.clone(),
            import_time: self.import_time,
            cpu_time: self.cpu_time,
            whole_folder: self.whole_folder,
            hole_limit: self.hole_limit,
            upper_board: self.upper_board,
            runoff: self.runoff,
            tournament: self.tournament,
            isolation,
        }
    }

    /// The strategy with these times, checked that it can play at all (a program in the sandbox,
    /// the sandbox checked to work here first); `nth` is its place among the players named on the
    /// command line, from 1.
    pub fn prepare(
        &self,
        spec: &othello_course::strategy::StrategySpec,
        nth: usize,
    ) -> Result<othello_course::strategy::StrategySpec> {
        let isolation = match spec {
            othello_course::strategy::StrategySpec::Program(_) => self.sandbox.apply()?,
            _ => self.sandbox.isolation(),
        };
        Ok(self.setup(isolation).prepare(spec, nth)?)
    }

    /// How the programs run, as the options say: what reports name.
    pub fn isolation(&self) -> othello_sandbox::Isolation {
        self.sandbox.isolation()
    }

    /// Refuses what would give a class's students more than their own entry: `--whole-folder` on
    /// a class member's file is the whole class folder, every classmate's work in it.
    pub fn check_for_class(&self) -> Result<()> {
        if self.whole_folder {
            bail!(
                "bad argument --whole-folder: with --class it would give every student the whole class folder (their classmates' files); a student who hands in a folder gets that folder whole without it"
            );
        }
        Ok(())
    }

    /// The rules asked for with --rules, if any.
    pub fn rules(&self) -> Option<othello_course::programs::rules::Rules> {
        self.rules
    }

    /// The rules asked for, or the most recent rules of this player's form (lab4-2024 for a
    /// built-in strategy: the most recent course).
    pub fn rules_for(&self, spec: &othello_course::strategy::StrategySpec) -> othello_course::programs::rules::Rules {
        self.setup(self.isolation()).rules_for(spec)
    }
}

/// `SECONDS`, `FORM=SECONDS` or `N=SECONDS`: a time for some players.
fn time_for(text: &str) -> std::result::Result<TimeFor, String> {
    text.parse()
}

/// The threads asked for, or one per core.
pub fn threads_or_cores(asked: Option<u32>) -> usize {
    asked.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |n| n as usize,
    )
}

/// A seed: any whole number from 0 to 2^64 - 1.
pub fn seed(text: &str) -> std::result::Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a seed: expected a whole number 0..{}", u64::MAX))
}
