//! Where a command's files go: opened before any work starts (a path that cannot be written fails at
//! once), regular files written through a temporary file beside them and a rename (readers never see
//! half a file), symbolic links followed to the file they name, and anything that is not a regular
//! file (a FIFO, /dev/stdout, a terminal) written to directly, never replaced.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::{signals, write_stdout};

pub enum Output {
    Stdout,
    /// A special file, written as the text comes.
    Direct(File, PathBuf),
    /// A regular file (new or to replace), built in a temporary file in the same folder.
    Atomic(Option<Temporary>, PathBuf),
}

/// `-` names stdout.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The file a path finally names, symbolic links followed (the last one may name a file not yet made).
fn resolve(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target =
                    fs::read_link(&current).with_context(|| format!("cannot read the link {}", current.display()))?;
                current = match current.parent() {
                    Some(folder) if target.is_relative() => folder.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    bail!("cannot write {}: too many symbolic links", path.display())
}

/// A temporary file, removed if a signal stops the program before it is renamed into place.
pub struct Temporary {
    file: tempfile::NamedTempFile,
    _registered: signals::Registered,
}

impl Temporary {
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.file.write_all(bytes)
    }

    /// Syncs the file and renames it to `path`.
    fn persist(self, path: &Path) -> Result<()> {
        self.file
            .as_file()
            .sync_all()
            .with_context(|| format!("cannot write {}", path.display()))?;
        self.file
            .persist(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }
}

/// A temporary file in the folder of `path`, with the permissions `path` has (a new file: rw-r--r--).
fn temporary_beside(path: &Path) -> Result<Temporary> {
    use std::os::unix::fs::PermissionsExt;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
    // The temporary file's own name is of no use to anyone: the message names the path asked for.
    let cannot = |error: std::io::Error| {
        let message = error.to_string();
        let message = message.split(" at path ").next().unwrap_or_default().to_string();
        anyhow::anyhow!("cannot write {}: {message}", path.display())
    };
    let file = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(cannot)?;
    let permissions = fs::metadata(path).map_or_else(|_| fs::Permissions::from_mode(0o644), |meta| meta.permissions());
    file.as_file().set_permissions(permissions).map_err(cannot)?;
    let registered = signals::remove_on_stop(file.path());
    Ok(Temporary {
        file,
        _registered: registered,
    })
}

impl Output {
    /// Opens the output now, so that a path that cannot be written fails before any work.
    pub fn open(path: &Path) -> Result<Output> {
        Output::open_as(path, false)
    }

    /// Opens a log that is appended to in whole lines (JSON Lines): a run stopped by a signal renames
    /// what it has into place, so that it keeps every game it finished.
    pub fn open_lines(path: &Path) -> Result<Output> {
        Output::open_as(path, true)
    }

    fn open_as(path: &Path, keep_on_stop: bool) -> Result<Output> {
        if is_stdout(path) {
            return Ok(Output::Stdout);
        }
        let target = resolve(path)?;
        match fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => bail!("cannot write {}: it is a folder", path.display()),
            Ok(meta) if !meta.is_file() => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                Ok(Output::Direct(file, target))
            }
            _ => {
                let mut temporary = temporary_beside(&target)?;
                if keep_on_stop {
                    temporary._registered = signals::keep_on_stop(temporary.file.path(), &target);
                }
                Ok(Output::Atomic(Some(temporary), target))
            }
        }
    }

    /// Adds text; for a regular file it shows when the output is finished (or published).
    pub fn append(&mut self, text: &str) -> Result<()> {
        match self {
            Output::Stdout => write_stdout(text),
            Output::Direct(file, path) => file
                .write_all(text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display())),
            Output::Atomic(temporary, path) => match temporary {
                Some(file) => file
                    .write_all(text.as_bytes())
                    .with_context(|| format!("cannot write {}", path.display())),
                None => bail!("cannot append to {}: it was published whole", path.display()),
            },
        }
    }

    /// Puts the whole of `text` in place now, replacing what an earlier call put there: a log kept
    /// current as a game goes on (a special file gets it only when the output is finished). Not to be
    /// mixed with `append`. No temporary file waits between two calls.
    pub fn publish(&mut self, text: &str) -> Result<()> {
        let Output::Atomic(temporary, path) = self else {
            return Ok(());
        };
        let mut file = match temporary.take() {
            Some(file) => file,
            None => temporary_beside(path)?,
        };
        file.write_all(text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        file.persist(path)
    }

    /// Writes what is left and puts a regular file in place.
    pub fn finish(self, text: &str) -> Result<()> {
        self.finish_bytes(text.as_bytes())
    }

    /// `finish` for bytes that need not be text.
    pub fn finish_bytes(self, bytes: &[u8]) -> Result<()> {
        match self {
            Output::Stdout => std::io::stdout()
                .lock()
                .write_all(bytes)
                .context("cannot write to stdout"),
            Output::Direct(mut file, path) => file
                .write_all(bytes)
                .and_then(|()| file.flush())
                .with_context(|| format!("cannot write {}", path.display())),
            Output::Atomic(temporary, path) => {
                let mut file = match temporary {
                    Some(file) => file,
                    None => temporary_beside(&path)?,
                };
                file.write_all(bytes)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                file.persist(&path)
            }
        }
    }
}
