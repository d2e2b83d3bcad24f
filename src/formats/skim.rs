//! A cautious reader of JSON text for the replay's fast path (docs/performance.md,
//! "Replay"): it finds where a value ends and says whether serde_json would accept it,
//! without building anything. It answers "yes" only for text serde_json surely accepts
//! (RFC 8259's grammar, strings of printable ASCII without escapes, nesting under
//! [`MAX_DEPTH`]) and "don't know" for all else, so a caller that falls back to serde_json
//! on "don't know" keeps serde_json's values and errors.
//!
//! The ignored members of a log line (the `dbw` report, most of the command row) are
//! about a third of its bytes, and serde_json's skipping of them was 30 % of a row's parse.

use std::ops::Range;

/// The deepest nesting [`value_end`] takes: well inside serde_json's limit of 128, with
/// room for the objects it is nested in.
pub const MAX_DEPTH: u32 = 64;

/// One in each byte of a `u64`, and each byte's high bit: the masks of the eight-byte tests.
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The eight bytes of `s` from `j`, as a little-endian `u64`, where `s` has them.
#[inline(always)]
fn word(s: &[u8], j: usize) -> Option<u64> {
    Some(u64::from_le_bytes(s.get(j..j + 8)?.try_into().ok()?))
}

/// The index past JSON whitespace from `i`.
#[inline(always)]
pub fn ws(s: &[u8], mut i: usize) -> usize {
    // Compact JSON has none: one test where the next byte is past the space.
    while s.get(i).is_some_and(|&b| b <= b' ') && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// How many ASCII digits `s` holds from `i` on, eight bytes tested at a time.
fn digits(s: &[u8], i: usize) -> usize {
    let mut j = i;
    while let Some(w) = word(s, j) {
        // A digit becomes 0..=9; a byte of 10 and over gets its high bit (a carry
        // only runs upward, from a byte that is flagged already).
        let x = w ^ (ONES * b'0' as u64);
        let other = (x | x.wrapping_add(ONES * 0x76)) & HIGH;
        if other != 0 {
            return j - i + (other.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    j - i + s[j..].iter().take_while(|b| b.is_ascii_digit()).count()
}

/// The index past the string that opens at `i`, for a string of printable ASCII with no
/// escape; None for anything else (a string serde_json may or may not take). Eight bytes
/// are tested at a time in a `u64` (the strings of a log are keys of a few bytes, where
/// a vectorised search costs more to set up than it saves).
pub fn string_end(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    while let Some(w) = word(s, j) {
        let stop = stops(w);
        if stop != 0 {
            // The lowest flagged byte is a true one (a borrow or carry only runs upward).
            let at = j + (stop.trailing_zeros() / 8) as usize;
            return (s[at] == b'"').then_some(at + 1);
        }
        j += 8;
    }
    loop {
        match *s.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => return None,
            b' '..=b'~' => j += 1,
            _ => return None,
        }
    }
}

/// The high bit of each byte of `w` that may end a plain string: a quote, a backslash, a
/// control byte (under 0x20), DEL or a byte of 0x80 and over. The lowest byte flagged is
/// always one of these; bytes above it may be flagged falsely.
fn stops(w: u64) -> u64 {
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    let del_or_high = (w | w.wrapping_add(ONES)) & HIGH;
    zero(w ^ (ONES * b'"' as u64)) | zero(w ^ (ONES * b'\\' as u64)) | below_space | del_or_high
}

/// The index past the number that starts at `i`, by JSON's grammar (RFC 8259 section 6):
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. What follows it is the
/// caller's to check (in `01` the number is `0`, and the `1` after it is not taken).
fn number_end(s: &[u8], mut i: usize) -> Option<usize> {
    let digits = |i: usize| digits(s, i);
    i += (s.get(i) == Some(&b'-')) as usize;
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        i += (n > 0).then_some(1 + n)?;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1 + matches!(s.get(i + 1), Some(b'+' | b'-')) as usize;
        let n = digits(i);
        i += (n > 0).then_some(n)?;
    }
    Some(i)
}

/// Whether `s` is a number by JSON's grammar, whole.
pub fn json_number(s: &[u8]) -> bool {
    number_end(s, 0) == Some(s.len())
}

/// The index past an object's key that starts at `i` (its colon and the whitespace after
/// it included), with the key's text.
fn key_end(s: &[u8], i: usize) -> Option<(usize, &[u8])> {
    let end = string_end(s, i)?;
    let colon = ws(s, end);
    (s.get(colon) == Some(&b':')).then(|| (ws(s, colon + 1), &s[i + 1..end - 1]))
}

/// The index past the JSON value that starts at `i` (no whitespace before it), or None
/// where serde_json might not take it. Nested objects and arrays are followed on a stack
/// of one bit a level (1: an object), so the walk needs no memory.
pub fn value_end(s: &[u8], mut i: usize) -> Option<usize> {
    let (mut objects, mut depth) = (0u64, 0u32);
    loop {
        // A value starts at i.
        match *s.get(i)? {
            open @ (b'{' | b'[') => {
                if depth == MAX_DEPTH {
                    return None;
                }
                let object = open == b'{';
                i = ws(s, i + 1);
                let close = if object { b'}' } else { b']' };
                if s.get(i) != Some(&close) {
                    objects = objects << 1 | object as u64;
                    depth += 1;
                    if object {
                        i = key_end(s, i)?.0;
                    }
                    continue;
                }
                // An empty one is a whole value: s[i] is its last byte.
            }
            b'"' => i = string_end(s, i)? - 1,
            b't' => i = s[i..].starts_with(b"true").then_some(i + 3)?,
            b'f' => i = s[i..].starts_with(b"false").then_some(i + 4)?,
            b'n' => i = s[i..].starts_with(b"null").then_some(i + 3)?,
            b'-' | b'0'..=b'9' => i = number_end(s, i)? - 1,
            _ => return None,
        }
        // s[i] is the value's last byte: close what ends here, or go on to the next one.
        i += 1;
        loop {
            if depth == 0 {
                return Some(i);
            }
            i = ws(s, i);
            let object = objects & 1 == 1;
            match (*s.get(i)?, object) {
                (b',', _) => {
                    i = ws(s, i + 1);
                    if object {
                        i = key_end(s, i)?.0;
                    }
                    break;
                }
                (b'}', true) | (b']', false) => {
                    objects >>= 1;
                    depth -= 1;
                    i += 1;
                }
                _ => return None,
            }
        }
    }
}

/// Walks the members of the object that starts at `i` (whitespace before it allowed):
/// `member(key, at, value)` gets each one's key, where the member starts and where its
/// value starts, and returns the index past the value. Returns the index past the
/// object's closing brace, or None where the text is not taken.
pub fn members(
    s: &[u8],
    i: usize,
    mut member: impl FnMut(&[u8], usize, usize) -> Option<usize>,
) -> Option<usize> {
    let mut i = ws(s, i);
    if s.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(s, i + 1);
    if s.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        let (value, key) = key_end(s, i)?;
        i = ws(s, member(key, i, value)?);
        match *s.get(i)? {
            b',' => i = ws(s, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Appends the member `s[span]` to the object being written in `out` (a comma first
/// unless it is the object's first member).
pub fn push_member(out: &mut Vec<u8>, s: &[u8], span: Range<usize>) {
    if out.last() != Some(&b'{') {
        out.push(b',');
    }
    out.extend_from_slice(&s[span]);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether serde_json takes `s` whole as one value it ignores.
    fn serde_takes(s: &[u8]) -> bool {
        serde_json::from_slice::<serde::de::IgnoredAny>(s).is_ok()
    }

    #[test]
    fn values_end_where_json_says() {
        for (text, end) in [
            ("0", 1),
            ("-0.5e+3,", 7),
            ("\"a b\"]", 5),
            ("true}", 4),
            ("false", 5),
            ("null ", 4),
            ("[]", 2),
            ("{}", 2),
            ("[ 1 , [ ] , { } ]x", 17),
            (r#"{"a":{"b":[1,2,{"c":null}]},"d":"e"},"#, 36),
            (r#"{ "a" : 1 }"#, 11),
        ] {
            assert_eq!(value_end(text.as_bytes(), 0), Some(end), "{text}");
            assert!(serde_takes(&text.as_bytes()[..end]), "{text}");
        }
    }

    #[test]
    fn what_it_is_unsure_of_is_refused() {
        for text in [
            "",
            "[01]",
            "1.",
            ".5",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "[,1]",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{1:2}",
            "[1}",
            "{\"a\":1]",
            "\"a\\\"b\"",
            "\"é\"",
            "\"tab\t\"",
            "[1",
            "{",
            "\"open",
        ] {
            assert_eq!(value_end(text.as_bytes(), 0), None, "{text:?}");
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(value_end(deep(MAX_DEPTH as usize).as_bytes(), 0).is_some());
        assert_eq!(value_end(deep(MAX_DEPTH as usize + 1).as_bytes(), 0), None);
    }

    /// A JSON value of every kind, nested a few levels.
    pub(crate) fn any_json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            (-1e9f64..1e9).prop_map(|v| serde_json::json!(v)),
            any::<i64>().prop_map(|v| serde_json::json!(v)),
            "[ -~]{0,8}".prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                prop::collection::btree_map("[a-z_]{0,6}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// A byte to put in a JSON text: one of its grammar's most of the time (a close that
    /// does not match, a comma too many), any byte else.
    pub(crate) fn json_byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            3 => prop::sample::select(b"{}[],:\"\\ 0-+.eE\x1f\x7f\xc3".to_vec()),
            1 => any::<u8>(),
        ]
    }

    proptest! {
        /// A number by JSON's grammar is ASCII, whatever bytes surround or replace its
        /// characters (the scan reader takes such a number as text without a UTF-8
        /// check), and it is a number to std's parse.
        #[test]
        fn a_json_number_is_ascii(
            v in prop_oneof![any::<f64>(), -1e6f64..1e6],
            cut in 0usize..32,
            byte in any::<u8>(),
            at in 0usize..32,
        ) {
            let mut text = serde_json::to_vec(&v).unwrap();
            text.truncate(cut.max(1));
            if at < text.len() {
                text[at] = byte;
            } else {
                text.push(byte);
            }
            if json_number(&text) {
                prop_assert!(text.is_ascii());
                let s = std::str::from_utf8(&text).unwrap();
                prop_assert!(s.parse::<f64>().is_ok(), "{}", s);
            }
        }

        /// What it takes, serde_json takes; what serde_json writes (compact or pretty), it
        /// takes whole unless a string holds what it is unsure of.
        #[test]
        fn it_takes_no_more_than_serde_json(
            v in any_json(),
            pretty in any::<bool>(),
            cut in 0usize..64,
            byte in json_byte(),
        ) {
            let mut text = if pretty {
                serde_json::to_vec_pretty(&v).unwrap()
            } else {
                serde_json::to_vec(&v).unwrap()
            };
            let plain = !text.contains(&b'\\');
            if plain {
                prop_assert_eq!(value_end(&text, 0), Some(text.len()));
            }
            // A byte changed: whatever is taken, serde_json takes too.
            if !text.is_empty() {
                let at = cut % text.len();
                text[at] = byte;
                if let Some(end) = value_end(&text, 0) {
                    prop_assert!(serde_takes(&text[..end]), "{:?}", String::from_utf8_lossy(&text));
                }
            }
        }
    }
}
