//! What a stop by SIGINT, SIGTERM or SIGHUP does before it ends the program as it would have: kills
//! the process groups of programs run without a sandbox (sandboxes end by themselves when the grader
//! is gone), and removes each registered temporary file (kill and unlink are safe in a signal
//! handler). Only SIGKILL, which nothing can catch, can leave a temporary file behind: the next run
//! removes it (crate::scratch).

use std::ffi::CString;
use std::path::Path;
use std::ptr;
use std::sync::Once;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Room for the temporary files one run has open at a time.
const SLOTS: usize = 32;

static PATHS: [AtomicPtr<libc::c_char>; SLOTS] = [const { AtomicPtr::new(ptr::null_mut()) }; SLOTS];
static INSTALL: Once = Once::new();

extern "C" fn remove_and_stop(signal: libc::c_int) {
    crate::runner::kill_process_groups();
    for slot in &PATHS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: registered paths are valid C strings that are never freed (see `Registered`).
            unsafe { libc::unlink(path) };
        }
    }
    // SAFETY: restoring the default action and raising the signal again are async-signal-safe.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs the handler (it stays for the program's lifetime).
pub fn install() {
    INSTALL.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only calls async-signal-safe functions.
            unsafe { libc::signal(signal, remove_and_stop as *const () as libc::sighandler_t) };
        }
    });
}

/// A temporary file that a stopping signal removes, until this is dropped (when the file has been
/// renamed into place or removed).
pub struct Registered(Option<usize>);

/// Registers `path` for removal on SIGINT, SIGTERM and SIGHUP.
pub fn remove_on_stop(path: &Path) -> Registered {
    install();
    let Some(raw) = leaked(path) else {
        return Registered(None);
    };
    let slot = PATHS.iter().position(|slot| {
        slot.compare_exchange(ptr::null_mut(), raw, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    Registered(slot)
}

/// A path as a C string that is never freed: the handler may read it at any moment (a few bytes per
/// temporary file).
fn leaked(path: &Path) -> Option<*mut libc::c_char> {
    CString::new(path.as_os_str().as_encoded_bytes())
        .ok()
        .map(CString::into_raw)
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(slot) = self.0 {
            PATHS[slot].store(ptr::null_mut(), Ordering::SeqCst);
        }
    }
}
