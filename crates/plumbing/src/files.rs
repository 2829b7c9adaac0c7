//! Reading the files a command is given, so that no input can hang or exhaust it: only regular
//! files (a FIFO, a terminal or /dev/zero is refused before a byte is read), whole files up to a
//! size, lines up to a length; and which paths name the same file, links followed.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The most a file read whole may hold: logs (a game is about 2.7 kB a line: some 400,000 games),
/// transcripts, positions.
pub const MAX_FILE_BYTES: u64 = 1 << 30;
/// The longest line a line-by-line reader accepts (sample files have lines of ~40 bytes).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    // The cause is in the message, so it is not also a `source` (anyhow would print it twice).
    #[error("cannot read {}: {cause}", path.display())]
    Io { path: PathBuf, cause: io::Error },
    #[error("cannot read {}: it is {what}, not a regular file", path.display())]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("cannot read {}: it holds more than {} MiB", path.display(), limit >> 20)]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("cannot read {} line {line}: longer than {} KiB", path.display(), MAX_LINE_BYTES >> 10)]
    LineTooLong { path: PathBuf, line: usize },
    #[error("cannot read {}: not UTF-8 text", path.display())]
    NotText { path: PathBuf },
}

impl ReadError {
    /// Whether the file does not exist (for inputs that are optional).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io { cause, .. } if cause.kind() == io::ErrorKind::NotFound)
    }
}

/// What kind of file a file type is, for a message.
fn kind(file_type: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// Writes `bytes` as the whole of `path` (its folders made as needed): written beside it, flushed
/// to the disk, then renamed into place, so that a stop at any moment leaves the old file or the
/// new one, never half of one.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let folder = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder)?;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".part-{}", std::process::id()));
    let part = folder.join(name);
    let mut file = File::create(&part)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fs::rename(&part, path)
}

/// The paths of the entries of folder `dir` that `keep` keeps, sorted (an entry that cannot be
/// read is left out).
pub fn sorted_entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| keep(path))
        .collect();
    paths.sort();
    Ok(paths)
}

/// Opens a regular file for reading (links followed). It is opened without waiting (a FIFO with no
/// writer would block the open itself) and checked on the open file, so that it cannot be swapped
/// between the check and the read.
pub(crate) fn open_regular(path: &Path) -> Result<File, ReadError> {
    let io_error = |cause| ReadError::Io {
        path: path.to_path_buf(),
        cause,
    };
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io_error)?;
    let meta = file.metadata().map_err(io_error)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            what: kind(meta.file_type()),
        });
    }
    Ok(file)
}

/// The bytes of a regular file of at most `limit` bytes.
pub fn read_bytes_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path)?;
    read_limited(file, path, limit)
}

/// At most `limit` bytes of a reader (a file that grows while it is read is still cut off).
pub fn read_limited(reader: impl Read, path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|cause| ReadError::Io {
            path: path.to_path_buf(),
            cause,
        })?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// The bytes of a regular file of at most [`MAX_FILE_BYTES`].
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_bytes_limited(path, MAX_FILE_BYTES)
}

/// The text of a regular file of at most [`MAX_FILE_BYTES`].
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path)?).map_err(|_| ReadError::NotText {
        path: path.to_path_buf(),
    })
}

/// A regular file's bytes as a stream, unzipped on the way if its name ends in `.gz` (any case):
/// a collection kept gzipped is read without a copy unzipped first. A gzip stream that is damaged
/// shows as a read error where the damage is met.
pub fn stream(path: &Path) -> Result<Box<dyn BufRead>, ReadError> {
    let file = open_regular(path)?;
    Ok(if is_gzipped(path) {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(BufReader::new(file))))
    } else {
        Box::new(BufReader::new(file))
    })
}

/// Whether a file's name says it is gzipped (`.gz`, any case).
pub fn is_gzipped(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("gz"))
}

/// The extension a file's name has under a `.gz` one, if it is gzipped (`games.gam.gz`: `gam`),
/// else its own.
pub fn inner_extension(path: &Path) -> Option<&std::ffi::OsStr> {
    if is_gzipped(path) {
        Path::new(path.file_stem()?).extension()
    } else {
        path.extension()
    }
}

/// A file read line by line, each line at most [`MAX_LINE_BYTES`]; lines keep their newline, so
/// that a caller can tell a last line cut off in the middle.
pub struct Lines<R> {
    reader: R,
    path: PathBuf,
    number: usize,
}

impl Lines<BufReader<File>> {
    /// The lines of a regular file.
    pub fn open(path: &Path) -> Result<Self, ReadError> {
        Ok(Lines::new(BufReader::new(open_regular(path)?), path))
    }
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R, path: &Path) -> Self {
        Lines {
            reader,
            path: path.to_path_buf(),
            number: 0,
        }
    }

    /// The next line (1-based number, text with its newline if it had one), or None at the end.
    pub fn next_line(&mut self) -> Result<Option<(usize, String)>, ReadError> {
        let mut bytes = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(|cause| ReadError::Io {
                path: self.path.clone(),
                cause,
            })?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        if bytes.len() > MAX_LINE_BYTES {
            return Err(ReadError::LineTooLong {
                path: self.path.clone(),
                line: self.number,
            });
        }
        let text = String::from_utf8(bytes).map_err(|_| ReadError::NotText {
            path: self.path.clone(),
        })?;
        Ok(Some((self.number, text)))
    }
}

/// What makes two paths the same file: the device and inode of an existing file, or the full
/// path a new one would get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    Inode(u64, u64),
    New(PathBuf),
}

/// The file `path` names (links followed), or None for what is not a file that can be overwritten
/// by mistake: a special file (/dev/null twice is fine), or a path whose folder does not exist.
pub fn identity(path: &Path) -> Option<Identity> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() || meta.is_dir() => Some(Identity::Inode(meta.dev(), meta.ino())),
        Ok(_) => None,
        Err(_) => {
            // A dangling link names the file it would create.
            let target = match fs::read_link(path) {
                Ok(target) if target.is_relative() => path.parent().unwrap_or(Path::new("")).join(target),
                Ok(target) => target,
                Err(_) => path.to_path_buf(),
            };
            let folder = target
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let folder = fs::canonicalize(folder).ok()?;
            Some(Identity::New(folder.join(target.file_name()?)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = read_text(&fifo).unwrap_err();
        assert!(
            error.to_string().ends_with("it is a FIFO, not a regular file"),
            "{error}"
        );
    }

    #[test]
    fn dev_zero_is_refused() {
        let error = read_text(Path::new("/dev/zero")).unwrap_err();
        assert!(
            matches!(error, ReadError::NotRegular { what: "a device", .. }),
            "{error}"
        );
    }

    #[test]
    fn a_file_over_the_limit_is_refused() {
        let file = tempfile::NamedTempFile::new().unwrap();
        fs::write(file.path(), "0123456789").unwrap();
        assert!(matches!(
            read_bytes_limited(file.path(), 9),
            Err(ReadError::TooLarge { .. })
        ));
        assert_eq!(read_bytes_limited(file.path(), 10).unwrap(), b"0123456789");
    }

    #[test]
    fn a_huge_line_is_refused_with_its_number() {
        let text = format!("short\n{}\n", "x".repeat(MAX_LINE_BYTES + 1));
        let mut lines = Lines::new(text.as_bytes(), Path::new("f"));
        assert_eq!(lines.next_line().unwrap(), Some((1, "short\n".to_string())));
        let error = lines.next_line().unwrap_err();
        assert!(matches!(error, ReadError::LineTooLong { line: 2, .. }), "{error}");
    }

    #[test]
    fn a_line_at_the_limit_is_read() {
        let text = format!("{}\n", "x".repeat(MAX_LINE_BYTES - 1));
        let mut lines = Lines::new(text.as_bytes(), Path::new("f"));
        assert_eq!(lines.next_line().unwrap().unwrap().1.len(), MAX_LINE_BYTES);
        assert_eq!(lines.next_line().unwrap(), None);
    }

    #[test]
    fn a_link_and_its_target_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("d.txt");
        fs::write(&file, "x").unwrap();
        std::os::unix::fs::symlink(&file, dir.path().join("link")).unwrap();
        assert_eq!(identity(&file), identity(&dir.path().join("link")));
        assert_eq!(
            identity(&dir.path().join("new")),
            identity(&dir.path().join(".").join("new"))
        );
        assert_ne!(identity(&file), identity(&dir.path().join("new")));
        assert_eq!(identity(Path::new("/dev/null")), None);
    }
}
