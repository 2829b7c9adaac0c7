//! Every `console` example in the README and in docs/ is run, and its output must be the one shown:
//! lines starting with `$ ` are commands (run by `sh` in the repository, with this build's `othello`
//! first on PATH, stderr into stdout), the lines after one are what it prints.

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
        for (command, expected, line) in examples(&text) {
            let output = common::dies_with_test(std::process::Command::new("sh"))
                .args(["-c", &format!("exec 2>&1\n{command}")])
                .current_dir(root)
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            let actual = String::from_utf8_lossy(&output.stdout);
            assert_eq!(
                actual,
                expected,
                "{}:{line}: `{command}` printed something else",
                document.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "the README has examples");
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
