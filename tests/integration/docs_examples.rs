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
