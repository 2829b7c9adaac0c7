//! Every `console` example in the README and in docs/ is run, and its output must be the one shown:
//! lines starting with `$ ` are commands (run by `sh`, stderr into stdout, with this build's
//! `othello` first on PATH, in a folder of their own per document where the repository's files are
//! linked, so that a document's commands build on each other and write nowhere else), the lines
//! after one are what it prints. As in trycmd, `[..]` in a line stands for any text (a time), and a
//! line `...` for any lines (a progress report).

use crate::common;

use std::path::{Path, PathBuf};

/// The markdown files whose examples are checked.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The (command, expected output, line number) of each example in a markdown text.
fn examples(text: &str) -> Vec<(String, String, usize)> {
    let mut found = Vec::new();
    let mut in_console = false;
    let mut current: Option<(String, String, usize)> = None;
    for (number, line) in text.lines().enumerate() {
        if !in_console {
            in_console = line.trim_end() == "```console";
            continue;
        }
        if line.starts_with("```") {
            in_console = false;
            found.extend(current.take());
        } else if let Some(command) = line.strip_prefix("$ ") {
            found.extend(current.take());
            current = Some((command.to_string(), String::new(), number + 1));
        } else if let Some((_, output, _)) = &mut current {
            output.push_str(line);
            output.push('\n');
        }
    }
    found
}

#[test]
fn every_console_example_in_the_readme_and_docs_prints_what_it_shows() {
    let binary = assert_cmd::cargo::cargo_bin("othello");
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let folder = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(root).unwrap() {
            let name = entry.unwrap().file_name();
            if name != "target" && name != ".git" {
                std::os::unix::fs::symlink(root.join(&name), folder.path().join(&name)).unwrap();
            }
        }
        for (command, expected, line) in examples(&text) {
            let output = common::dies_with_test(std::process::Command::new("sh"))
                .args(["-c", &format!("exec 2>&1\n{command}")])
                .current_dir(folder.path())
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            let actual = String::from_utf8_lossy(&output.stdout);
            assert!(
                shows(&expected, &actual),
                "{}:{line}: `{command}` printed something else:\n{actual}\nnot what the example shows:\n{expected}",
                document.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "the README has examples");
}

/// Whether `actual` is what `expected` shows, `...` lines and `[..]` in lines standing for anything.
fn shows(expected: &str, actual: &str) -> bool {
    let expected: Vec<&str> = expected.lines().collect();
    let actual: Vec<&str> = actual.lines().collect();
    lines_match(&expected, &actual)
}

fn lines_match(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((line, rest)) => {
            actual.first().is_some_and(|first| line_matches(line, first)) && lines_match(rest, &actual[1..])
        }
    }
}

fn line_matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

#[test]
fn wildcards_stand_for_text_in_a_line_and_for_lines() {
    assert!(shows("a\n", "a\n"));
    assert!(!shows("a\n", "a\nb\n"));
    assert!(shows("took [..] s\n", "took 0.79 s\n"));
    assert!(!shows("took [..] s\n", "took 0.79 ms\n"));
    assert!(shows("x [..] y [..] z\n", "x 1 y 2 z\n"));
    assert!(shows("first\n...\nlast\n", "first\nlast\n"));
    assert!(shows("first\n...\nlast\n", "first\n1\n2\nlast\n"));
    assert!(!shows("first\n...\nlast\n", "first\n1\n"));
}

#[test]
fn examples_are_read_from_console_blocks_only() {
    let text = "```sh\n$ not run\n```\n```console\n$ echo a\na\n$ echo b\nb\n```\n";
    assert_eq!(
        examples(text),
        vec![
            ("echo a".to_string(), "a\n".to_string(), 5),
            ("echo b".to_string(), "b\n".to_string(), 7),
        ]
    );
}

/// The `othello` command lines of the `sh` blocks of the README and docs (continuation lines
/// joined, each cut at the first `|`, `>`, `&&`, `;` or comment), split into words as `sh` would.
fn sh_commands(text: &str) -> Vec<(Vec<String>, usize)> {
    let mut found = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<(String, usize)> = None;
    for (number, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim_end() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let (mut joined, start) = pending.take().unwrap_or((String::new(), number + 1));
        joined.push_str(line.trim_end().trim_end_matches('\\'));
        joined.push(' ');
        if line.trim_end().ends_with('\\') {
            pending = Some((joined, start));
            continue;
        }
        if let Some(words) = shell_words(&joined)
            && words.first().is_some_and(|w| w == "othello")
        {
            found.push((words[1..].to_vec(), start));
        }
    }
    found
}

/// The words of a command line up to its first operator or comment; `None` for what this simple
/// reader does not follow (`$`, backquotes).
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\'' | '"' => {
                let text = word.get_or_insert_with(String::new);
                for inner in chars.by_ref() {
                    if inner == ch {
                        break;
                    }
                    text.push(inner);
                }
            }
            '$' | '`' => return None,
            '|' | '>' | '<' | ';' | '&' | '#' if word.is_none() => break,
            ' ' | '\t' => words.extend(word.take()),
            _ => word.get_or_insert_with(String::new).push(ch),
        }
    }
    words.extend(word);
    Some(words)
}

#[test]
fn every_othello_command_in_the_readme_and_docs_is_one_it_accepts() {
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        for (words, line) in sh_commands(&text) {
            let args: Vec<&str> = words.iter().map(String::as_str).collect();
            // The lab mode takes any words; its examples are console ones, run above.
            if args
                .first()
                .is_none_or(|first| first.len() <= 2 || first.len() == 64 || first.starts_with('-'))
            {
                continue;
            }
            // Files an example makes or assumes (a student's program, trained weights) need not exist here.
            if let Err(error) = othello::cli::accepts(&args)
                && !error.to_string().contains("No such file or directory")
            {
                panic!("{}:{line}: `othello {}`: {error}", document.display(), words.join(" "));
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} commands found");
}

#[test]
fn sh_lines_are_read_as_sh_would_split_them() {
    let text = "```sh\nothello grade cases/ --run 'python3 {}' \\\n    --json r.jsonl   # one\nls | othello x\n```\n";
    assert_eq!(
        sh_commands(text),
        vec![(
            ["grade", "cases/", "--run", "python3 {}", "--json", "r.jsonl"]
                .map(String::from)
                .to_vec(),
            2
        )]
    );
    assert_eq!(
        shell_words("othello a > f"),
        Some(vec!["othello".to_string(), "a".to_string()])
    );
}
