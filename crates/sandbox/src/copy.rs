//! The init's copies of a student's files into the sandbox: opened through no link at any component
//! (a folder swapped for a link while it is copied gives nothing), read from the open descriptors,
//! and cut off at a byte budget counted as they are written (files grown after the grader sized
//! them cost no more than the budget); as root, with the rights of the entry's owner.
//!
//! Runs in the init, a raw copy of a multithreaded grader: system calls only, on fixed buffers.

use std::ffi::CStr;

use libc::{c_char, c_int, c_long};

fn errno() -> c_int {
    // SAFETY: errno is a thread-local the C library keeps; reading it is always allowed.
    unsafe { *libc::__errno_location() }
}

/// Folders deeper than this are not copied (a student's entry is a few levels at most).
const MAX_DEPTH: u32 = 16;

/// What the copies of one run may still write, and whose they are.
pub(super) struct Budget {
    /// Bytes; a write past it fails with EFBIG.
    pub bytes: u64,
    /// The user and group that own the copies (the program's, which may then change them).
    pub owner: u32,
    /// The user and group (of the run's namespace) whose rights open the entry and everything
    /// under it: its owner's, when the grader is root, so that a hard link in a student's folder to
    /// a file only root may read gives nothing. None: the init's own rights.
    pub reader: Option<(u32, u32)>,
}

/// Calls `open` with the reader's rights (the file system ids only: the init keeps its others),
/// then takes back the init's. Without a reader, or an init that is not root (whose maps a root
/// grader could not write), `open` runs with the init's own rights.
unsafe fn as_reader(reader: Option<(u32, u32)>, open: impl FnOnce() -> c_int) -> c_int {
    // SAFETY (whole function): credential system calls on integers.
    unsafe {
        // setfsuid never fails: it returns the id before, and an invalid id (-1) changes nothing.
        let own = libc::syscall(libc::SYS_setfsuid, -1 as c_long) as u32;
        let Some((uid, gid)) = reader.filter(|_| own == 0) else {
            return open();
        };
        let own_gid = libc::syscall(libc::SYS_setfsgid, gid as c_long) as u32;
        libc::syscall(libc::SYS_setfsuid, uid as c_long);
        let now = libc::syscall(libc::SYS_setfsuid, -1 as c_long) as u32;
        let fd = if now == uid {
            open()
        } else {
            *libc::__errno_location() = libc::EPERM;
            -1
        };
        let error = errno();
        libc::syscall(libc::SYS_setfsuid, own as c_long);
        libc::syscall(libc::SYS_setfsgid, own_gid as c_long);
        *libc::__errno_location() = error;
        fd
    }
}

/// Opens a student's entry: the folders on the way through no link with the init's rights (the
/// grader resolved and checked them), the entry itself with the reader's (see `Budget::reader`).
pub(super) unsafe fn open_entry(path: &CStr, flags: c_int, reader: Option<(u32, u32)>) -> c_int {
    let bytes = path.to_bytes();
    // SAFETY (whole function): system calls on C strings of fixed buffers.
    unsafe {
        let Some(slash) = bytes.iter().rposition(|&b| b == b'/') else {
            *libc::__errno_location() = libc::EINVAL;
            return -1;
        };
        let (Some(parent), Some(name)) = (Path::new(&bytes[..slash.max(1)]), Path::new(&bytes[slash + 1..])) else {
            *libc::__errno_location() = libc::ENAMETOOLONG;
            return -1;
        };
        let dir = open_no_links(parent.as_c_str(), libc::O_PATH | libc::O_DIRECTORY);
        if dir < 0 {
            return -1;
        }
        let fd = as_reader(reader, || {
            libc::openat(dir, name.as_ptr(), flags | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        });
        let error = errno();
        libc::close(dir);
        *libc::__errno_location() = error;
        fd
    }
}

/// Opens an absolute path without following a link at any component: `openat2` with
/// RESOLVE_NO_SYMLINKS where the kernel has it (5.6 and later), else a walk of `O_NOFOLLOW` opens
/// from `/`, a component at a time. `flags` are the last component's (`O_NOFOLLOW` added).
pub(super) unsafe fn open_no_links(path: &CStr, flags: c_int) -> c_int {
    let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY (whole function): system calls on C strings and local buffers.
    unsafe {
        // struct open_how { u64 flags, mode, resolve; }
        let how: [u64; 3] = [flags as u64, 0, libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS];
        let fd = libc::syscall(
            libc::SYS_openat2,
            libc::AT_FDCWD,
            path.as_ptr(),
            how.as_ptr(),
            std::mem::size_of_val(&how),
        );
        if fd >= 0 || errno() != libc::ENOSYS {
            return fd as c_int;
        }
        walk_no_links(path.to_bytes(), flags)
    }
}

/// The walk of `open_no_links` for kernels without `openat2`.
unsafe fn walk_no_links(path: &[u8], flags: c_int) -> c_int {
    // SAFETY (whole function): system calls on local buffers.
    unsafe {
        let mut dir = libc::open(c"/".as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC);
        if dir < 0 {
            return -1;
        }
        let mut parts = path.split(|&b| b == b'/').filter(|p| !p.is_empty()).peekable();
        let mut name = [0u8; 256];
        while let Some(part) = parts.next() {
            if part.len() >= name.len() || part == b".." {
                libc::close(dir);
                *libc::__errno_location() = libc::EINVAL;
                return -1;
            }
            name[..part.len()].copy_from_slice(part);
            name[part.len()] = 0;
            let last = parts.peek().is_none();
            let open_flags = if last {
                flags
            } else {
                libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC
            };
            let next = libc::openat(dir, name.as_ptr().cast(), open_flags);
            libc::close(dir);
            if next < 0 {
                return -1;
            }
            dir = next;
        }
        dir
    }
}

/// Copies what `source` is (a file, or a folder with everything under it) to `target`, or only a
/// folder's entries into the existing folder `target` when `contents`. A link, a device or a pipe is
/// not copied, at the top as beneath it.
pub(super) unsafe fn copy(source: &CStr, target: &CStr, contents: bool, budget: &mut Budget) -> c_long {
    // SAFETY (whole function): system calls on C strings and local buffers.
    unsafe {
        let flags = if contents {
            libc::O_RDONLY | libc::O_DIRECTORY
        } else {
            libc::O_RDONLY | libc::O_NONBLOCK
        };
        let fd = open_entry(source, flags, budget.reader);
        if fd < 0 {
            return -1;
        }
        let Some(mut to) = Path::new(target.to_bytes()) else {
            libc::close(fd);
            return -1;
        };
        let mut buffer = [0u8; 16 << 10];
        let result = if contents {
            copy_folder(fd, &mut to, &mut buffer, 0, budget)
        } else {
            copy_open(fd, &mut to, &mut buffer, 0, budget)
        };
        libc::close(fd);
        result
    }
}

/// Copies the open file or folder `fd` to `to`.
unsafe fn copy_open(fd: c_int, to: &mut Path, buffer: &mut [u8], depth: u32, budget: &mut Budget) -> c_long {
    // SAFETY (whole function): system calls on local buffers.
    unsafe {
        let mut info: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut info) < 0 {
            return -1;
        }
        match info.st_mode & libc::S_IFMT {
            libc::S_IFREG => copy_file(fd, to, info.st_mode, buffer, budget),
            libc::S_IFDIR => {
                if libc::mkdir(to.as_ptr(), 0o755) < 0 {
                    return -1;
                }
                libc::lchown(to.as_ptr(), budget.owner, budget.owner);
                copy_folder(fd, to, buffer, depth, budget)
            }
            _ => 0,
        }
    }
}

unsafe fn copy_file(from: c_int, to: &Path, mode: libc::mode_t, buffer: &mut [u8], budget: &mut Budget) -> c_long {
    // SAFETY (whole function): system calls on C strings and a local buffer.
    unsafe {
        let to = libc::open(
            to.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
            (mode & 0o777) | 0o600,
        );
        if to < 0 {
            return -1;
        }
        // The program's own copy: its user may change it.
        libc::fchown(to, budget.owner, budget.owner);
        let result;
        'copy: loop {
            let read = libc::read(from, buffer.as_mut_ptr().cast(), buffer.len());
            if read < 0 && (errno() == libc::EINTR || errno() == libc::EAGAIN) {
                continue;
            }
            if read <= 0 {
                result = read as c_long;
                break;
            }
            if read as u64 > budget.bytes {
                *libc::__errno_location() = libc::EFBIG;
                result = -1;
                break;
            }
            budget.bytes -= read as u64;
            let mut done = 0;
            while done < read as usize {
                let written = libc::write(to, buffer[done..].as_ptr().cast(), read as usize - done);
                if written < 0 && errno() != libc::EINTR {
                    result = -1;
                    break 'copy;
                }
                done += written.max(0) as usize;
            }
        }
        libc::close(to);
        result
    }
}

/// Copies the entries of the open folder `dir` into the existing folder `to`: each opened relative
/// to `dir` without following a link, so that nothing reached is outside the folder first opened.
unsafe fn copy_folder(dir: c_int, to: &mut Path, buffer: &mut [u8], depth: u32, budget: &mut Budget) -> c_long {
    if depth > MAX_DEPTH {
        return 0;
    }
    // SAFETY (whole function): system calls on C strings and local buffers.
    unsafe {
        let mut entries = [0u8; 4096];
        loop {
            let count = libc::syscall(libc::SYS_getdents64, dir, entries.as_mut_ptr(), entries.len());
            if count <= 0 {
                return if count < 0 { -1 } else { 0 };
            }
            let mut offset = 0usize;
            while offset + 19 < count as usize {
                let length = u16::from_ne_bytes([entries[offset + 16], entries[offset + 17]]) as usize;
                let kind = entries[offset + 18];
                let name_start = offset + 19;
                let name_end = (name_start..offset + length)
                    .find(|&i| entries[i] == 0)
                    .unwrap_or(name_start);
                let name_with_nul = &entries[name_start..=name_end];
                offset += length.max(1);
                let name = &name_with_nul[..name_with_nul.len() - 1];
                if name.is_empty() || name == b"." || name == b".." {
                    continue;
                }
                // Only files and folders are opened (a link, a pipe or a device never is).
                let flags = match kind {
                    libc::DT_REG => libc::O_RDONLY | libc::O_NONBLOCK,
                    libc::DT_DIR => libc::O_RDONLY | libc::O_DIRECTORY,
                    libc::DT_UNKNOWN => libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY,
                    _ => continue,
                };
                let fd = as_reader(budget.reader, || {
                    libc::openat(
                        dir,
                        name_with_nul.as_ptr().cast::<c_char>(),
                        flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                    )
                });
                if fd < 0 {
                    // Gone, or swapped for a link, since the folder was read: not copied.
                    if errno() == libc::ELOOP || errno() == libc::ENOENT || errno() == libc::ENOTDIR {
                        continue;
                    }
                    return -1;
                }
                let before = to.len;
                let result = if to.push(name) {
                    copy_open(fd, to, buffer, depth + 1, budget)
                } else {
                    -1
                };
                to.truncate(before);
                libc::close(fd);
                if result < 0 {
                    return -1;
                }
            }
        }
    }
}

/// A path built in a fixed buffer, always NUL-terminated.
pub(super) struct Path {
    bytes: [u8; libc::PATH_MAX as usize],
    len: usize,
}

impl Path {
    pub(super) fn new(start: &[u8]) -> Option<Path> {
        let mut path = Path {
            bytes: [0; libc::PATH_MAX as usize],
            len: 0,
        };
        path.push_bytes(start).then_some(path)
    }

    fn push_bytes(&mut self, bytes: &[u8]) -> bool {
        let end = self.len + bytes.len();
        if end >= self.bytes.len() {
            return false;
        }
        self.bytes[self.len..end].copy_from_slice(bytes);
        self.bytes[end] = 0;
        self.len = end;
        true
    }

    fn push(&mut self, name: &[u8]) -> bool {
        self.push_bytes(b"/") && self.push_bytes(name)
    }

    /// `/oldroot/proc/self/fd/N`: the file the init has open as `fd`, while it builds the new root.
    pub(super) fn descriptor(fd: c_int) -> Option<Path> {
        let mut path = Path::new(b"/oldroot/proc/self/fd/")?;
        path.push_number(fd as u64).then_some(path)
    }

    /// The digits of a number appended.
    fn push_number(&mut self, mut number: u64) -> bool {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (number % 10) as u8;
            count += 1;
            number /= 10;
            if number == 0 {
                break;
            }
        }
        digits[..count].reverse();
        self.push_bytes(&digits[..count])
    }

    fn truncate(&mut self, len: usize) {
        self.len = len;
        self.bytes[len] = 0;
    }

    pub(super) fn as_ptr(&self) -> *const c_char {
        self.bytes.as_ptr().cast()
    }

    pub(super) fn as_c_str(&self) -> &CStr {
        // SAFETY: the buffer always holds a NUL at `len`.
        unsafe { CStr::from_ptr(self.as_ptr()) }
    }
}
