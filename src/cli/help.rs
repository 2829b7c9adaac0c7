//! The root help's list of commands, grouped by who uses them, and the suggestion for a mistyped
//! command (a word of three letters or more is never a lab argument, so it can only be a command).

use clap::CommandFactory;

use super::Cli;

/// The commands by user, in the order the root help shows them (every command in one group: a test
/// checks it against clap's list).
const GROUPS: [(&str, &[&str]); 5] = [
    ("For students (beside the lab mode below)", &["diff"]),
    ("For teachers", &["cases", "grade", "lab4", "tournament", "serve"]),
    (
        "For players",
        &[
            "play", "match", "analyze", "replay", "best", "fullgame", "nboard", "gtp",
        ],
    ),
    (
        "For the engine",
        &["solve", "perft", "book", "selfplay", "train", "probcut"],
    ),
    ("Setting up", &["completions", "man"]),
];

/// The groups of commands with their one-line descriptions, as the root help ends.
pub fn command_list() -> String {
    let command = Cli::command();
    let width = GROUPS
        .iter()
        .flat_map(|(_, names)| names.iter())
        .map(|name| name.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (heading, names) in GROUPS {
        out += &format!("{heading}:\n");
        for name in names {
            let about = command
                .find_subcommand(name)
                .and_then(|sub| sub.get_about())
                .map(|about| about.to_string())
                .unwrap_or_default();
            out += &format!("  {name:width$}  {about}\n");
        }
        out.push('\n');
    }
    out
}

/// The command `word` most likely stands for, if it is a word close to one: a letter missing, extra,
/// changed or two swapped (`analyse`, `grde`: the optimal string alignment distance), or the start
/// of only one (`tourn`).
pub fn suggestion(word: &str) -> Option<String> {
    if word.len() < 3 || word.len() == 64 || !word.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let word = word.to_ascii_lowercase();
    let names: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    let mut close: Vec<(usize, &String)> = names
        .iter()
        .map(|name| (strsim::osa_distance(&word, name), name))
        .filter(|&(d, name)| d <= 2 && d < name.len() / 2 + 1)
        .collect();
    close.sort();
    if let Some((_, name)) = close.first() {
        return Some(name.to_string());
    }
    let starting: Vec<&String> = names.iter().filter(|name| name.starts_with(&word)).collect();
    (starting.len() == 1).then(|| starting[0].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_in_one_group() {
        let mut grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, names)| names.iter().copied()).collect();
        grouped.sort_unstable();
        let mut commands: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|sub| sub.get_name().to_string())
            .collect();
        commands.sort_unstable();
        assert_eq!(grouped, commands);
    }

    #[test]
    fn mistyped_commands_are_recognised_and_lab_words_never() {
        for (typed, meant) in [
            ("analyse", "analyze"),
            ("grde", "grade"),
            ("Grade", "grade"),
            ("mtach", "match"),
            ("tourn", "tournament"),
            ("slove", "solve"),
        ] {
            assert_eq!(suggestion(typed).as_deref(), Some(meant), "{typed}");
        }
        for word in ["x", "f5", "19", "-1", "hello", "zzz", "xxxxxxxx"] {
            assert_eq!(suggestion(word), None, "{word}");
        }
    }
}
