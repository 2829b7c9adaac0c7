//! The protocols GUIs and other programs use to reach an engine: NBoard and GTP, each a session on
//! a reader and a writer (stdin and stdout from the command line), every reply flushed at once.

pub mod gtp;
pub mod nboard;

use std::io::{self, BufRead, Write};
use std::sync::mpsc::{Receiver, channel};

/// Lines read on a thread of their own, so that a session can listen while it searches; the
/// channel closes at the end of the input. A line that is not UTF-8 is read as far as it goes.
fn lines_of(mut input: impl BufRead + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match input.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
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

/// Writes one reply and flushes it: a GUI waits for it.
fn send(output: &mut impl Write, text: &str) -> io::Result<()> {
    output.write_all(text.as_bytes())?;
    output.flush()
}
