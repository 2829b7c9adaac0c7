//! Temporary files removed when the program is stopped by SIGINT, SIGTERM or SIGHUP: the handler
//! unlinks every registered path (unlink is safe in a signal handler), then lets the signal end the
//! program as it would have. Only SIGKILL, which nothing can catch, can leave one behind.

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
    for slot in &PATHS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: a registered path is a valid C string that is never freed (see `Registered`).
            unsafe { libc::unlink(path) };
        }
    }
    // SAFETY: restoring the default action and raising the signal again are async-signal-safe.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

fn install() {
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
    let Ok(path) = CString::new(path.as_os_str().as_encoded_bytes()) else {
        return Registered(None);
    };
    // Never freed: the handler may read it at any moment; a few bytes per temporary file.
    let raw = path.into_raw();
    let slot = PATHS.iter().position(|slot| {
        slot.compare_exchange(ptr::null_mut(), raw, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    Registered(slot)
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(slot) = self.0 {
            PATHS[slot].store(ptr::null_mut(), Ordering::SeqCst);
        }
    }
}
