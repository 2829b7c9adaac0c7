//! What a stop by SIGINT, SIGTERM or SIGHUP does before it ends the program as it would have: kills
//! the process groups of programs run without a sandbox (sandboxes end by themselves when the grader
//! is gone), and removes each registered temporary file, or staging folder with the files in it
//! (kill, unlink and the directory calls are safe in a signal handler). Only SIGKILL, which nothing
//! can catch, can leave one behind: the next run removes it (othello_plumbing::scratch).

use std::ffi::CString;
use std::path::Path;
use std::ptr;
use std::sync::Once;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Room for the temporary files one run has open at a time.
const SLOTS: usize = 32;

/// Each registered path as a C string after one byte saying what it is: FILE or FOLDER (of files only:
/// a case set being written).
static PATHS: [AtomicPtr<libc::c_char>; SLOTS] = [const { AtomicPtr::new(ptr::null_mut()) }; SLOTS];
const FILE: libc::c_char = b'f' as libc::c_char;
const FOLDER: libc::c_char = b'd' as libc::c_char;
static INSTALL: Once = Once::new();

/// Ends the run's programs and removes what is registered (no allocation: this runs in a handler).
fn remove_all() {
    othello_sandbox::kill_process_groups();
    for slot in &PATHS {
        let entry = slot.load(Ordering::SeqCst);
        if entry.is_null() {
            continue;
        }
        // SAFETY: registered entries are a kind byte and a C string, never freed (see `Registered`).
        unsafe {
            let path = entry.add(1);
            if *entry == FOLDER {
                empty_folder(path);
                libc::rmdir(path);
            } else {
                libc::unlink(path);
            }
        }
    }
}

/// Removes the files of a folder with system calls only (no allocation: this runs in the handler).
unsafe fn empty_folder(path: *const libc::c_char) {
    // SAFETY (whole function): system calls on a C string and a local buffer.
    unsafe {
        let dir = libc::open(
            path,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        );
        if dir < 0 {
            return;
        }
        let mut entries = [0u8; 4096];
        loop {
            // Entries removed since the last read are gone: each read starts again from the front.
            libc::lseek(dir, 0, libc::SEEK_SET);
            let count = libc::syscall(libc::SYS_getdents64, dir, entries.as_mut_ptr(), entries.len());
            if count <= 0 {
                break;
            }
            let mut removed = 0;
            let mut offset = 0usize;
            while offset + 19 < count as usize {
                let length = u16::from_ne_bytes([entries[offset + 16], entries[offset + 17]]) as usize;
                let name = &entries[offset + 19..offset + length];
                offset += length.max(1);
                if name.starts_with(b".\0") || name.starts_with(b"..\0") {
                    continue;
                }
                if libc::unlinkat(dir, name.as_ptr().cast(), 0) == 0 {
                    removed += 1;
                }
            }
            if removed == 0 {
                break;
            }
        }
        libc::close(dir);
    }
}

/// Installs the handler (it stays for the program's lifetime): it cleans up, then the signal does
/// what it would have done (the process ends by it, as its parent sees).
pub fn install() {
    INSTALL.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the action makes only async-signal-safe calls (kill, unlink, the directory
            // calls and signal-hook's emulation of the default action) and allocates nothing.
            let _ = unsafe {
                signal_hook::low_level::register(signal, move || {
                    remove_all();
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                })
            };
        }
    });
}

/// A temporary file that a stopping signal removes, until this is dropped (when the file has been
/// renamed into place or removed).
pub struct Registered(Option<usize>);

/// Registers `path` for removal on SIGINT, SIGTERM and SIGHUP.
pub fn remove_on_stop(path: &Path) -> Registered {
    register(path, false)
}

/// Registers a folder of files (a staging folder) for removal, with its files, on SIGINT, SIGTERM
/// and SIGHUP.
pub fn remove_folder_on_stop(path: &Path) -> Registered {
    register(path, true)
}

fn register(path: &Path, folder: bool) -> Registered {
    install();
    let Some(raw) = leaked(path, if folder { FOLDER } else { FILE }) else {
        return Registered(None);
    };
    let slot = PATHS.iter().position(|slot| {
        slot.compare_exchange(ptr::null_mut(), raw, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    Registered(slot)
}

/// A kind byte and a path as a C string, never freed: the handler may read it at any moment (a few
/// bytes per temporary file).
fn leaked(path: &Path, kind: libc::c_char) -> Option<*mut libc::c_char> {
    let mut bytes = vec![kind as u8];
    bytes.extend_from_slice(path.as_os_str().as_encoded_bytes());
    CString::new(bytes).ok().map(CString::into_raw)
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(slot) = self.0 {
            PATHS[slot].store(ptr::null_mut(), Ordering::SeqCst);
        }
    }
}
