//! Text from others (a student's stderr, an exception's message, a file's name) made safe to show a
//! person: every control character escaped, so that it can neither drive the teacher's terminal
//! (a window title, the clipboard, a cursor moved up over lines already printed) nor split one line
//! of a report into two.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

/// Whether a character is one that `escape` writes as an escape: the C0 and C1 controls and DEL,
/// the line and paragraph separators, and the bidirectional overrides and isolates (which reorder
/// what a terminal or an editor shows).
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The text with every unsafe character escaped: `\t`, `\n`, `\r`, `\\x1b` for the other controls
/// below U+0100, `\u{202e}` above; a backslash stays as it is (the text is for reading, not to be
/// read back).
///
/// ```
/// use othello_plumbing::printable::escape;
/// assert_eq!(escape("ok: 6/6"), "ok: 6/6");
/// assert_eq!(escape("\x1b]0;pwned\x07honest\r\n"), "\\x1b]0;pwned\\x07honest\\r\\n");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if is_unsafe(c) && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_unsafe(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A name that need not be UTF-8 (a file's, from a zip made on Windows), escaped for people: its
/// text escaped as `escape` does, each byte that is not UTF-8 as `\xe9`.
///
/// ```
/// use std::ffi::OsStr;
/// use std::os::unix::ffi::OsStrExt;
/// use othello_plumbing::printable::name;
/// assert_eq!(name(OsStr::from_bytes(b"Jos\xe9.py")), "Jos\\xe9.py");
/// ```
pub fn name(name: &OsStr) -> String {
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(&escape(chunk.valid()));
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_and_line_breaks_are_escaped() {
        assert_eq!(
            escape("\x1b[1A\x1b[2Khonest: strict 6/6"),
            "\\x1b[1A\\x1b[2Khonest: strict 6/6"
        );
        assert_eq!(escape("a\0b\x7fc\u{9b}d"), "a\\x00b\\x7fc\\x9bd");
        assert_eq!(escape("evil\u{202e}yp.txt"), "evil\\u{202e}yp.txt");
        assert_eq!(escape("tab\there"), "tab\\there");
        assert!(matches!(escape("plain ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn names_keep_their_bytes_visible() {
        assert_eq!(name(OsStr::from_bytes(b"a\nb\xff.py")), "a\\nb\\xff.py");
        assert_eq!(name(OsStr::new("alice.py")), "alice.py");
    }
}
