//! The protocols GUIs and other programs use to reach an engine: NBoard and GTP, each a session on
//! a reader and a writer (stdin and stdout from the command line), every reply flushed at once.

pub mod gtp;
pub mod nboard;

use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{Receiver, sync_channel};

/// The longest line read whole (a GGF game is under 2 kB); the rest of a longer line is skipped.
const MAX_LINE: u64 = 64 << 10;

/// Lines read on a thread of their own, so that a session can listen while it searches; the
/// channel closes at the end of the input. A line that is not UTF-8 is read as far as it goes. The
/// channel is bounded: a controller that floods the engine waits, and memory does not grow.
fn lines_of(mut input: impl BufRead + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = sync_channel(1024);
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match (&mut input).take(MAX_LINE).read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if !bytes.ends_with(b"\n") && skip_line(&mut input).is_err() {
                        break;
                    }
                    let line = String::from_utf8_lossy(&bytes).trim().to_string();
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    receiver
}

/// Skips the rest of a line that was too long, up to its newline (or the end of the input).
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let all = buffer.len();
                input.consume(all);
            }
        }
    }
}

/// Writes one reply and flushes it: a GUI waits for it.
fn send(output: &mut impl Write, text: &str) -> io::Result<()> {
    output.write_all(text.as_bytes())?;
    output.flush()
}

/// A session's engine, made on a thread of its own from the session's start: making one maps its
/// tables (about 90 MB at a second a move, a quarter of a second of the kernel's time), which the
/// first move would otherwise pay inside its own time, and a controller's clock with it. Taken
/// away while it searches, put back after.
enum Prepared<T> {
    Building(std::thread::JoinHandle<T>),
    Ready(T),
    /// None here (away searching, or never made): the next `take` makes one.
    Absent,
}

impl<T: Send + 'static> Prepared<T> {
    fn build(make: impl FnOnce() -> T + Send + 'static) -> Prepared<T> {
        Prepared::Building(std::thread::spawn(make))
    }

    /// The value, waiting for it if it is still being made; `make` makes another if the thread
    /// making it failed or there is none.
    fn take(&mut self, make: impl FnOnce() -> T) -> T {
        match std::mem::replace(self, Prepared::Absent) {
            Prepared::Building(handle) => handle.join().unwrap_or_else(|_| make()),
            Prepared::Ready(value) => value,
            Prepared::Absent => make(),
        }
    }

    fn put(&mut self, value: T) {
        *self = Prepared::Ready(value);
    }
}

#[cfg(test)]
mod tests {
    use super::Prepared;

    #[test]
    fn a_prepared_value_is_the_one_its_thread_made_then_the_one_put_back() {
        let mut prepared = Prepared::build(|| 7);
        assert_eq!(prepared.take(|| 0), 7);
        // Taken away: asked again before it is back, another is made.
        assert_eq!(prepared.take(|| 1), 1);
        prepared.put(9);
        assert_eq!(prepared.take(|| 0), 9);
        let mut failed: Prepared<i32> = Prepared::build(|| panic!("no engine"));
        assert_eq!(failed.take(|| 3), 3);
    }
}
