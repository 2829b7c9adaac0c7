//! What a sandboxed program sees of the grader's machine: the system folders, and the installation
//! of the interpreter its command names (a Python under a home folder, a pyenv or a virtual
//! environment included), found once per command word and kept for the process's lifetime.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Folders every program sees read-only, where they exist (or as the links they are).
pub(super) const SYSTEM: [&str; 8] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

/// A program word resolved: what to execute and which folders outside the system ones it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Resolved {
    pub executable: PathBuf,
    pub shown: Vec<PathBuf>,
}

/// Whether a path lies in one of the system folders (after following links).
pub(super) fn is_system(path: &Path) -> bool {
    SYSTEM.iter().any(|folder| {
        let real = std::fs::canonicalize(folder).unwrap_or_else(|_| PathBuf::from(folder));
        path.starts_with(folder) || path.starts_with(real)
    })
}

/// Resolves the first word of a command: found through PATH (or as a path), then, for a Python, the
/// interpreter it really runs (a pyenv shim runs another file); the folders it needs are shown.
pub(super) fn program(word: &str) -> Result<Resolved, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, Result<Resolved, String>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(known) = cache.lock().ok().and_then(|c| c.get(word).cloned()) {
        return known;
    }
    let resolved = resolve(word);
    if let Ok(mut cache) = cache.lock() {
        cache.insert(word.to_string(), resolved.clone());
    }
    resolved
}

fn resolve(word: &str) -> Result<Resolved, String> {
    let found = find(word).ok_or_else(|| {
        if word.contains('/') {
            format!("no such program: {word}")
        } else {
            format!("no such program in PATH: {word}")
        }
    })?;
    let name = found
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if is_python_name(&name) {
        return python(&found);
    }
    let real = std::fs::canonicalize(&found).map_err(|e| format!("cannot resolve {}: {e}", found.display()))?;
    let mut shown = Vec::new();
    if !is_system(&real) {
        shown.push(installation(&real));
    }
    // A script's interpreter, one level down (`#!/opt/tool/bin/tool`).
    if let Some(interpreter) = shebang(&real)
        && !is_system(&interpreter)
        && interpreter.is_absolute()
    {
        shown.push(installation(&interpreter));
    }
    Ok(Resolved {
        executable: if is_system(&found) { found } else { real },
        shown,
    })
}

/// Whether a file's name is a Python interpreter's (`python`, `python3`, `python3.12`): the one the
/// teacher's command names (on PATH, in a system folder, or a `--run` template's own first word) is
/// asked where it is installed. A student's file is never asked, whatever its name
/// (`command_line`); a student's `python_bot.py` is not even named like one.
pub(super) fn is_python_name(name: &str) -> bool {
    name.strip_prefix("python")
        .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The file a command word runs: a path as given, or the first match in PATH.
fn find(word: &str) -> Option<PathBuf> {
    if word.contains('/') {
        let path = std::path::absolute(word).ok()?;
        return path.is_file().then_some(path);
    }
    on_path(word)
}

/// The first file of this name in PATH's absolute folders: a relative entry (`.`, or the empty one
/// that means it) would find a student's file named `python3` in the folder the grader runs in.
pub(super) fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The folder a program is installed in: the one holding its `bin` folder, else its own folder.
fn installation(file: &Path) -> PathBuf {
    let folder = file.parent().unwrap_or(Path::new("/"));
    match folder.file_name() {
        Some(name) if name == "bin" => folder.parent().unwrap_or(folder).to_path_buf(),
        _ => folder.to_path_buf(),
    }
}

fn shebang(file: &Path) -> Option<PathBuf> {
    use std::io::Read as _;
    let mut start = [0u8; 256];
    let count = std::fs::File::open(file).ok()?.read(&mut start).ok()?;
    let text = std::str::from_utf8(start.get(..count)?.strip_prefix(b"#!")?).ok()?;
    let line = text.lines().next()?;
    line.split_whitespace().next().map(PathBuf::from)
}

/// Asks a Python where it is installed: the interpreter it runs, its prefixes and the folders on its
/// module path (neither PYTHON* variables nor the user's site folder: the sandbox has neither).
fn python(found: &Path) -> Result<Resolved, String> {
    const ASK: &str = "import os, sys\n\
        print(sys.executable)\n\
        print(os.path.realpath(sys.executable))\n\
        for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}: print('prefix', p)\n\
        for p in sys.path: print('path', p)\n";
    let mut child = Command::new(found)
        .args(["-E", "-s", "-c", ASK])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", found.display()))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{} did not say where it is installed", found.display()));
            }
        }
    };
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        use std::io::Read as _;
        let _ = out.read_to_string(&mut text);
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    if !status.success() || lines.len() < 2 {
        return Err(format!("{} did not say where it is installed", found.display()));
    }
    let (executable, real_executable) = (PathBuf::from(lines[0]), PathBuf::from(lines[1]));
    let tagged = |tag: &str| -> Vec<PathBuf> {
        let tag = format!("{tag} ");
        lines
            .iter()
            .filter_map(|l| l.strip_prefix(tag.as_str()))
            .map(PathBuf::from)
            .collect()
    };
    // Its own folders: where it is installed and its prefixes (the standard library and the
    // site-packages lie in them). A module path outside them came from a `.pth` (an editable
    // install: a course's folder, answer key and all) and is not shown.
    let real = |path: &PathBuf| std::fs::canonicalize(path).ok().filter(|p| p.is_dir());
    let own: Vec<PathBuf> = std::iter::once(installation(&real_executable))
        .chain(tagged("prefix"))
        .filter_map(|p| real(&p))
        .collect();
    let mut shown: Vec<PathBuf> = Vec::new();
    for path in tagged("path") {
        let Some(real) = real(&path) else {
            continue;
        };
        if !own.iter().any(|o| real.starts_with(o)) {
            left_out(found, &real);
            continue;
        }
        if !is_system(&real) && !shown.iter().any(|s| real.starts_with(s)) {
            shown.retain(|s| !s.starts_with(&real));
            shown.push(real);
        }
    }
    for folder in &own {
        if !is_system(folder) && !shown.iter().any(|s| folder.starts_with(s)) {
            shown.retain(|s| !s.starts_with(folder));
            shown.push(folder.clone());
        }
    }
    // Its own path when it is a link in a virtual environment (which needs to be run as itself).
    if !is_system(&executable) && !shown.iter().any(|s| executable.starts_with(s)) {
        shown.push(installation(&executable));
    }
    Ok(Resolved { executable, shown })
}

/// Notes for the teacher that a folder on an interpreter's module path is not shown to programs.
fn left_out(interpreter: &Path, folder: &Path) {
    super::notice(format!(
        "{} is on {}'s module path but not part of its installation (a .pth file put it there): programs were not shown it (--visible {} would show it)",
        othello_plumbing::printable::name(folder.as_os_str()),
        othello_plumbing::printable::name(interpreter.as_os_str()),
        othello_plumbing::printable::name(folder.as_os_str())
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_program_needs_nothing_more() {
        let sh = program("sh").unwrap();
        assert!(sh.shown.is_empty(), "{sh:?}");
        assert!(is_system(&sh.executable));
    }

    #[test]
    fn a_missing_program_is_named() {
        assert_eq!(
            program("no-such-program-anywhere").unwrap_err(),
            "no such program in PATH: no-such-program-anywhere"
        );
    }

    #[test]
    fn python_names_the_interpreter_it_runs() {
        let python = program("python3").unwrap();
        assert!(python.executable.is_file(), "{python:?}");
        assert!(python.shown.iter().all(|folder| folder.is_dir()), "{python:?}");
    }

    #[test]
    fn only_an_interpreters_name_is_a_pythons() {
        for name in ["python", "python3", "python3.12"] {
            assert!(is_python_name(name), "{name}");
        }
        for name in ["python_bot", "python3_lab.py", "pythonbot", "mypython3", "python3-x"] {
            assert!(!is_python_name(name), "{name}");
        }
    }

    #[test]
    fn an_installation_is_the_folder_above_bin() {
        assert_eq!(installation(Path::new("/opt/py/bin/python3")), Path::new("/opt/py"));
        assert_eq!(installation(Path::new("/opt/tool/run")), Path::new("/opt/tool"));
    }
}
