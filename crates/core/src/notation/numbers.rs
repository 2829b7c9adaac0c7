//! Integers in free text as the course's graders and moderators read them: ASCII digits only, signs
//! kept; a program's move is the last integer once numbers with a decimal point are deleted.

use std::sync::LazyLock;

use regex::Regex;

// ASCII digits only: Python's int() would read `٣` as 3, but the course's graders match [0-9].
static SIGNED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"-?[0-9]+").expect("valid pattern"));

/// The integers in a text, signs kept, in order; one too large for i64 reads as i64::MAX (which is
/// no move and no score, so it is wrong wherever it is used).
pub fn integers(text: &str) -> Vec<i64> {
    SIGNED
        .find_iter(text)
        .map(|m| m.as_str().parse().unwrap_or(i64::MAX))
        .collect()
}

static DECIMAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"-?[0-9]*\.[0-9]+").expect("valid pattern"));

/// The move a program printed, as the course's moderators read it: numbers with a decimal point
/// (timing, `took 0.27 s`) are deleted first, then the last integer is the move (the 2021 Lab 4
/// handout: "If you output timing information, that is OK since it will be a non-integer").
/// A last integer too large for any number is no move at all.
pub fn last_move_number(text: &str) -> Option<i64> {
    let text = DECIMAL.replace_all(text, " ");
    SIGNED.find_iter(&text).last()?.as_str().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ascii_digits_are_a_move_and_a_number_too_large_is_none() {
        assert_eq!(last_move_number("٣"), None);
        assert_eq!(last_move_number("19 then ٣"), Some(19));
        assert_eq!(last_move_number("18446744073709551635"), None);
        assert_eq!(last_move_number("move 26, took 0.27 s"), Some(26));
    }
}
