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
