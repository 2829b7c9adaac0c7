//! What to run: a command's words (text, or a copy of the grader's file), the jobs, and the
//! checks made before a run (is the program there, is it an interpreter's script).

use super::*;

/// One word of a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Text(String),
    /// A file or folder of the grader's that the run gets its own copy of, in its working folder (a
    /// folder's entries go into the working folder itself when `contents`); the word is `template`
    /// with each `{}` replaced by the copy's path. Made with `Word::copy_into`.
    Copy {
        /// As it was named: the copy's name, and what reports show.
        source: PathBuf,
        /// Its links followed once, when the word was made: each run opens this path through no
        /// link, so that an entry swapped for a link later is not followed.
        resolved: PathBuf,
        contents: bool,
        template: OsString,
    },
}

impl Word {
    pub fn text(text: impl Into<String>) -> Word {
        Word::Text(text.into())
    }

    /// A copy of `source` (its entries when `contents`), the word `template` with `{}` for its path.
    pub fn copy_into(source: &Path, contents: bool, template: impl Into<OsString>) -> Word {
        let source = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
        Word::Copy {
            resolved: std::fs::canonicalize(&source).unwrap_or_else(|_| source.clone()),
            source,
            contents,
            template: template.into(),
        }
    }

    /// A copy of `path` exactly, its links not followed now nor later: a path already resolved and
    /// checked (a class member's entry, see `template_words`).
    pub fn copy_resolved(path: &Path, contents: bool, template: impl Into<OsString>) -> Word {
        Word::Copy {
            source: path.to_path_buf(),
            resolved: path.to_path_buf(),
            contents,
            template: template.into(),
        }
    }

    /// A copy of a file or folder, the word its path.
    pub fn copy(source: impl AsRef<Path>) -> Word {
        Word::copy_into(source.as_ref(), false, "{}")
    }

    /// A copy of a file, alone or with everything in its folder; the word the copy's path.
    pub fn copy_of(file: &Path, whole_folder: bool) -> Word {
        match (whole_folder, file.parent(), file.file_name()) {
            (true, Some(folder), Some(name)) => {
                let mut template = OsString::from("{}/");
                template.push(name);
                Word::copy_into(folder, true, template)
            }
            _ => Word::copy(file),
        }
    }
}

/// A `--run` template's words for a class member's entry, already resolved and checked: a word
/// holding `{}` is a copy of the entry (of its contents, when it is a folder: `python3 {}` then
/// runs its `__main__.py`), every other word is the teacher's own text (its first word an
/// interpreter found on PATH).
pub fn template_words(template: &[String], entry: &Path) -> Vec<Word> {
    template
        .iter()
        .map(|word| {
            if word.contains("{}") {
                Word::copy_resolved(entry, entry.is_dir(), word)
            } else {
                Word::text(word.clone())
            }
        })
        .collect()
}

/// `template` with each `{}` replaced by `path` (bytes, not text: a name need not be UTF-8).
pub fn fill(template: &OsStr, path: &Path) -> OsString {
    let (template, path) = (template.as_bytes(), path.as_os_str().as_bytes());
    let mut filled = Vec::with_capacity(template.len() + path.len());
    let mut rest = template;
    while let Some(at) = rest.windows(2).position(|pair| pair == b"{}") {
        filled.extend_from_slice(&rest[..at]);
        filled.extend_from_slice(path);
        rest = &rest[at + 2..];
    }
    filled.extend_from_slice(rest);
    OsString::from_vec(filled)
}

/// A command line given for one program (`grade -- COMMAND`, `argv:COMMAND`): its first word, when
/// given as a path, is the student's program and is copied, whatever its name (a file named
/// `python3` is a student's like any other: only a name found on PATH, or a file in a system folder,
/// is an interpreter, asked where it is installed); later words that name files or folders are
/// copied (options are not); a file with its whole folder when `whole_folder`.
pub fn command_line(words: &[String], whole_folder: bool) -> Vec<Word> {
    words
        .iter()
        .enumerate()
        .map(|(index, word)| {
            let path = Path::new(word);
            let copied = if index == 0 {
                word.contains('/') && path.is_file() && !std::path::absolute(path).is_ok_and(|p| resolve::is_system(&p))
            } else {
                !word.starts_with('-') && (path.is_file() || path.is_dir())
            };
            if copied {
                let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
                Word::copy_of(&absolute, whole_folder && absolute.is_file())
            } else {
                Word::text(word.clone())
            }
        })
        .collect()
}

/// Where each copy of a command goes in a working folder: (what to copy, contents, path relative
/// to the folder, empty for the folder itself), in the order of first mention, each source once.
pub(crate) fn copies(command: &[Word]) -> Vec<(PathBuf, bool, OsString)> {
    let mut copies: Vec<(PathBuf, bool, OsString)> = Vec::new();
    for word in command {
        let Word::Copy {
            source,
            resolved,
            contents,
            ..
        } = word
        else {
            continue;
        };
        if copies.iter().any(|(r, c, _)| r == resolved && c == contents) {
            continue;
        }
        let relative = if *contents {
            OsString::new()
        } else {
            let name = source
                .file_name()
                .map_or_else(|| OsString::from("program"), OsStr::to_os_string);
            let mut relative = name.clone();
            let mut number = 1;
            while copies.iter().any(|(_, _, taken)| *taken == relative) {
                number += 1;
                relative = OsString::from(format!("{number}-"));
                relative.push(&name);
            }
            relative
        };
        copies.push((resolved.clone(), *contents, relative));
    }
    copies
}

/// The command's words with each copy's path in a working folder.
pub(crate) fn words_in(command: &[Word], folder: &Path) -> Vec<OsString> {
    let copies = copies(command);
    command
        .iter()
        .map(|word| match word {
            Word::Text(text) => OsString::from(text),
            Word::Copy {
                resolved,
                contents,
                template,
                ..
            } => {
                let relative = copies
                    .iter()
                    .find(|(r, c, _)| r == resolved && c == contents)
                    .map_or(OsStr::new(""), |(_, _, relative)| relative.as_os_str());
                let path = if relative.is_empty() {
                    folder.to_path_buf()
                } else {
                    folder.join(relative)
                };
                fill(template, &path)
            }
        })
        .collect()
}

/// One program to run: its command (the program, then its arguments) and extra environment.
#[derive(Clone, Debug)]
pub struct Job {
    pub command: Vec<Word>,
    pub env: Vec<(String, String)>,
}

/// Whether a command word names a program that can be started: a file when it holds a slash, else a
/// file in one of PATH's folders.
pub fn is_runnable(word: &str) -> bool {
    if word.contains('/') {
        return Path::new(word).is_file();
    }
    resolve::on_path(word).is_some()
}

/// Why a command cannot run, before any run of it: its program is not there, or it starts an
/// interpreter (`python3 nonexist.py`) on a script that is not there, which every run would
/// report as a crash of its own. None when it can be started.
pub fn command_refused(words: &[String]) -> Option<String> {
    let first = words.first()?;
    if !is_runnable(first) {
        let where_ = if first.contains('/') { "" } else { " in PATH" };
        return Some(format!("bad argument {first:?}: no such program{where_}"));
    }
    let script = interpreter_script(words)?;
    if Path::new(script).exists() {
        return None;
    }
    let name = Path::new(first)
        .file_name()
        .map_or(first.as_str(), |n| n.to_str().unwrap_or(first));
    Some(format!(
        "bad argument {script:?}: no such file ({name} would be given it as its program)"
    ))
}

/// The script an interpreter's command line runs (`python3 -u bot.py 19` -> `bot.py`): its first
/// word that is not an option; None for a program that is no interpreter known here, or a command
/// that runs no file (`python3 -c CODE`, `-m MODULE`, `-`).
fn interpreter_script(words: &[String]) -> Option<&str> {
    let name = Path::new(words.first()?).file_name()?.to_str()?;
    let python = name.starts_with("python") || name.starts_with("pypy");
    let known = python
        || [
            "sh", "bash", "dash", "zsh", "node", "ruby", "perl", "php", "lua", "Rscript", "julia",
        ]
        .contains(&name);
    if !known {
        return None;
    }
    let mut rest = words[1..].iter();
    while let Some(word) = rest.next() {
        match word.as_str() {
            "-c" | "-m" | "-e" | "-" => return None,
            "--" => return rest.next().map(String::as_str),
            // Python's options that take a value.
            "-W" | "-X" if python => {
                rest.next();
            }
            option if option.starts_with('-') => {}
            script => return Some(script),
        }
    }
    None
}

/// The size in bytes of a file or folder (everything under it), to refuse copying a huge one.
/// Links are not followed, and what vanishes while it is sized (a student's folder changing under
/// the grader) counts nothing: the copies are cut at their budget whatever this says.
pub fn entry_size(entry: &Path) -> std::io::Result<u64> {
    let meta = std::fs::symlink_metadata(entry)?;
    if !meta.is_dir() {
        return Ok(meta.len());
    }
    let gone = |error: &std::io::Error| {
        matches!(
            error.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
        )
    };
    let children = match std::fs::read_dir(entry) {
        Ok(children) => children,
        Err(error) if gone(&error) => return Ok(0),
        Err(error) => return Err(error),
    };
    children.into_iter().try_fold(0, |total, child| {
        let size = match child.and_then(|child| entry_size(&child.path())) {
            Ok(size) => size,
            Err(error) if gone(&error) => 0,
            Err(error) => return Err(error),
        };
        Ok(total + size)
    })
}
