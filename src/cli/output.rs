//! Where a command's files go: opened before any work starts (a path that cannot be written fails at
//! once). A whole output (a report, weights) goes to a regular file through a temporary file beside
//! it and a rename, so that readers never see half of it; a stream (a log, a transcript) is written
//! to the named file itself as it is made, so that a run stopped even by SIGKILL keeps every line it
//! finished. Anything that is not a regular file (a FIFO, /dev/stdout, a terminal) is written to
//! directly, never replaced.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::{signals, write_stdout};

pub enum Output {
    Stdout,
    /// A special file or a stream, written as the text comes.
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

/// Takes the advisory lock of a file this run writes as a stream, held as long as the file is open:
/// two runs appending to one file would interleave their lines. Refused, naming the other run's
/// process, when another holds it.
fn lock(file: &File, path: &Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this function's caller owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
        // A file system without locks (some network ones): written as before.
        return Ok(());
    }
    let holder = lock_holder(file).map_or_else(String::new, |pid| format!(" (pid {pid})"));
    bail!(
        "cannot write {}: another run{holder} is writing it; give this one another file, or wait for it",
        path.display()
    )
}

/// The process holding a `flock` on the file, from /proc/locks (`1: FLOCK ADVISORY WRITE PID
/// MAJOR:MINOR:INODE 0 EOF`, the device numbers in hexadecimal).
fn lock_holder(file: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let (major, minor) = (libc::major(meta.dev()), libc::minor(meta.dev()));
    let wanted = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    let locks = fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let at = fields.iter().position(|f| *f == "FLOCK")?;
        let (pid, node) = (fields.get(at + 3)?, fields.get(at + 4)?);
        (*node == wanted).then(|| pid.parse().ok()).flatten()
    })
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
    // A temporary file left by a run killed by SIGKILL is removed by the next one.
    let prefix = format!(".{name}.");
    othello_plumbing::scratch::sweep(folder, &prefix);
    let file = tempfile::Builder::new()
        .prefix(&othello_plumbing::scratch::own_prefix(&prefix))
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
    /// Opens a whole output now, so that a path that cannot be written fails before any work.
    pub fn open(path: &Path) -> Result<Output> {
        if let Some(output) = Output::open_special(path)? {
            return Ok(output);
        }
        let target = resolve(path)?;
        Ok(Output::Atomic(Some(temporary_beside(&target)?), target))
    }

    /// Opens a stream (JSON Lines, a transcript) that is appended to in whole lines: the named file
    /// is emptied now and each line reaches it when it is appended.
    pub fn open_stream(path: &Path) -> Result<Output> {
        if let Some(output) = Output::open_special(path)? {
            return Ok(output);
        }
        // Locked before it is emptied: a file another run is writing is left as it is.
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        lock(&file, path)?;
        file.set_len(0)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Output::Direct(file, path.to_path_buf()))
    }

    /// Stdout, or a special file or folder (links followed): an output that is never replaced.
    fn open_special(path: &Path) -> Result<Option<Output>> {
        if is_stdout(path) {
            return Ok(Some(Output::Stdout));
        }
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => bail!("cannot write {}: it is a folder", path.display()),
            // Opened by its own name: /dev/stdout and /proc/self/fd links name no path to resolve.
            Ok(meta) if !meta.is_file() => OpenOptions::new()
                .write(true)
                .open(path)
                .map(|file| Some(Output::Direct(file, path.to_path_buf())))
                .with_context(|| format!("cannot write {}", path.display())),
            _ => Ok(None),
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
    /// current as a game goes on (stdout or a special file gets it only from `finish`). Not to be
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

/// The files a command reads and writes, checked before any work: an output that is one of the
/// inputs, lies inside an input folder, or is another output would destroy or corrupt what it names
/// (links followed, hard links too).
#[derive(Default)]
pub struct Files {
    inputs: Vec<(String, othello_plumbing::files::Identity)>,
    folders: Vec<(String, PathBuf)>,
    outputs: Vec<(String, othello_plumbing::files::Identity, Option<PathBuf>)>,
}

impl Files {
    pub fn new() -> Files {
        Files::default()
    }

    /// An input file, described as in "the training data d.txt".
    pub fn input(mut self, what: &str, path: &Path) -> Files {
        if let Some(id) = othello_plumbing::files::identity(path) {
            self.inputs.push((format!("{what} {}", path.display()), id));
        }
        self
    }

    /// Input files.
    pub fn inputs<P: AsRef<Path>>(self, what: &str, paths: impl IntoIterator<Item = P>) -> Files {
        paths
            .into_iter()
            .fold(self, |files, path| files.input(what, path.as_ref()))
    }

    /// A folder whose every entry is an input (a class, a case set): no output goes inside it.
    pub fn input_folder(mut self, what: &str, path: &Path) -> Files {
        if let Ok(folder) = fs::canonicalize(path) {
            self.folders.push((format!("{what} {}", path.display()), folder));
        }
        self
    }

    /// An optional output, named by its option (`--log`).
    pub fn output(mut self, option: &str, path: Option<&Path>) -> Files {
        if let Some(path) = path.filter(|p| !is_stdout(p))
            && let Some(id) = othello_plumbing::files::identity(path)
        {
            let full = match &id {
                othello_plumbing::files::Identity::New(full) => Some(full.clone()),
                othello_plumbing::files::Identity::Inode(..) => fs::canonicalize(path).ok(),
            };
            self.outputs.push((format!("{option} {}", path.display()), id, full));
        }
        self
    }

    /// Refuses an output that names an input, lies in an input folder or names an earlier output,
    /// with one line naming both.
    pub fn check(&self) -> Result<()> {
        for (n, (option, id, full)) in self.outputs.iter().enumerate() {
            if let Some((what, _)) = self.inputs.iter().find(|(_, input)| input == id) {
                bail!("bad argument {option}: that file is {what}, which writing it would destroy");
            }
            if let Some((what, _)) = self
                .folders
                .iter()
                .find(|(_, folder)| full.as_ref().is_some_and(|full| full.starts_with(folder)))
            {
                bail!("bad argument {option}: that file is inside {what}, which is read as input; write it elsewhere");
            }
            if let Some((other, ..)) = self.outputs[..n].iter().find(|(_, output, _)| output == id) {
                bail!("bad argument {option}: that file is also {other}; give each output its own file");
            }
        }
        Ok(())
    }
}
