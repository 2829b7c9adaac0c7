//! Scratch files and folders named after the process that made them (`PREFIX<pid>-...`), so that a
//! later run removes what a run killed by SIGKILL (which nothing can catch) left behind.

use std::path::Path;

/// The name prefix for this process's scratch entries made under `prefix`.
pub fn own_prefix(prefix: &str) -> String {
    format!("{prefix}{}-", std::process::id())
}

/// Whether the process with this id is gone.
fn is_gone(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only asks whether the process exists.
    pid > 0 && unsafe { libc::kill(pid, 0) } < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// The process id in a scratch entry's name, if it is one made under `prefix`.
fn owner(name: &str, prefix: &str) -> Option<i32> {
    name.strip_prefix(prefix)?.split('-').next()?.parse().ok()
}

/// Removes the entries of `folder` made under `prefix` by processes that are gone. Best effort: what
/// cannot be removed stays.
pub fn sweep(folder: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if owner(&name, prefix).is_some_and(is_gone) {
            let path = entry.path();
            let _ = match entry.file_type() {
                Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
                _ => std::fs::remove_file(&path),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_entries_of_dead_processes_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        // A pid above the kernel's limit (4194304) never exists.
        let dead = dir.path().join(".x-9999999-abc");
        let alive = dir.path().join(own_prefix(".x-") + "abc");
        let other = dir.path().join(".y-9999999-abc");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("f"), "").unwrap();
        std::fs::write(&alive, "").unwrap();
        std::fs::write(&other, "").unwrap();
        sweep(dir.path(), ".x-");
        assert!(!dead.exists());
        assert!(alive.exists() && other.exists());
    }
}
