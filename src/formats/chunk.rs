//! Chunk files (docs/formats.md "Chunks"): one chunk as JSON, a file of them, or JSON
//! Lines. Numbers that are not finite must reach the checker as a `malformed` verdict for
//! that chunk, at its first bad sample, not fail the whole file: so the bare tokens
//! `NaN`, `Infinity` and `-Infinity` (what Python's `json.dumps` writes for such floats)
//! and literals beyond the range of f64 (`1e400`) are replaced by a marker string before
//! parsing, and the number fields read a marker (or `null`) as NaN.

use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// The string that stands for a number that is not finite.
pub const NON_FINITE: &str = "non-finite";

/// The text with every non-finite number token outside strings replaced by
/// `"non-finite"`; borrowed unchanged where it has none.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            c if c == b'-' || c.is_ascii_digit() || c == b'N' || c == b'I' => {
                let end = token_end(b, i);
                let tok = &text[i..end];
                let bad = match tok {
                    "NaN" | "Infinity" | "-Infinity" => true,
                    _ => tok.parse::<f64>().is_ok_and(|v| !v.is_finite()),
                };
                if bad {
                    let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
                    o.push_str(&text[copied..i]);
                    o.push('"');
                    o.push_str(NON_FINITE);
                    o.push('"');
                    copied = end;
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// The index just past the string that starts at `i` (a quote), escapes included.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of a number or bare-word token starting at `i`.
fn token_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'-' | b'+' | b'.')) {
        i += 1;
    }
    i
}

/// A number, or NaN for `null`, the marker or any other string: the `malformed` rule then
/// names the field and the sample.
pub fn lenient_f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Lenient::deserialize(d)?.0)
}

/// A list of numbers, each as [`lenient_f64`].
pub fn lenient_vec<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    Ok(Vec::<Lenient>::deserialize(d)?
        .into_iter()
        .map(|l| l.0)
        .collect())
}

/// A scan's ranges: `null` is no return, a number its range, anything else NaN (which the
/// scan refuses, so that a bad range is never taken for a free beam).
pub fn lenient_ranges<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<Option<f64>>>, D::Error> {
    Ok(Option::<Vec<Option<Lenient>>>::deserialize(d)?
        .map(|v| v.into_iter().map(|r| r.map(|l| l.0)).collect()))
}

/// A number read leniently.
struct Lenient(f64);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lenient, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Lenient;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Lenient, E> {
                Ok(Lenient(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Lenient, E> {
                Ok(Lenient(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Lenient, E> {
                Ok(Lenient(v as f64))
            }
            fn visit_str<E>(self, _: &str) -> Result<Lenient, E> {
                Ok(Lenient(f64::NAN))
            }
            fn visit_unit<E>(self) -> Result<Lenient, E> {
                Ok(Lenient(f64::NAN))
            }
            fn visit_none<E>(self) -> Result<Lenient, E> {
                Ok(Lenient(f64::NAN))
            }
        }
        d.deserialize_any(V)
    }
}

/// The result of reading one line with a cap on its length.
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// The input has ended.
    End,
    /// A line (without its newline) is in the buffer.
    Line,
    /// The line was longer than the cap: this many bytes were skipped, none kept.
    TooLong(u64),
}

/// Reads one line into `buf` (cleared first), keeping at most `cap` bytes: a longer line
/// is consumed to its newline without being buffered, so memory stays bounded by the cap.
pub fn read_line_capped(
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<LineRead> {
    buf.clear();
    let mut skipped: Option<u64> = None;
    let mut any = false;
    loop {
        let avail = input.fill_buf()?;
        if avail.is_empty() {
            return Ok(match (any, skipped) {
                (false, _) => LineRead::End,
                (true, Some(n)) => LineRead::TooLong(n),
                (true, None) => LineRead::Line,
            });
        }
        any = true;
        let (chunk, done) = match memchr::memchr(b'\n', avail) {
            Some(p) => (&avail[..p], Some(p + 1)),
            None => (avail, None),
        };
        match &mut skipped {
            Some(n) => *n += chunk.len() as u64,
            None if buf.len() + chunk.len() > cap => {
                skipped = Some((buf.len() + chunk.len()) as u64);
                buf.clear();
            }
            None => buf.extend_from_slice(chunk),
        }
        let used = done.unwrap_or(avail.len());
        input.consume(used);
        if done.is_some() {
            return Ok(match skipped {
                Some(n) => LineRead::TooLong(n),
                None => LineRead::Line,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text, escapes and multi-byte characters included: no panic, and a text
        /// without a marked token comes back unchanged; valid JSON stays valid.
        #[test]
        fn sanitize_never_panics_and_keeps_json_valid(
            parts in prop::collection::vec(
                prop::sample::select(vec![
                    "\"", "\\", "é", "☃", "NaN", "-Infinity", "Infinity", "1e400", "-",
                    "1.5", "e", "[", "]", ",", ":", "{", "}", " ", "\\\"", "null", "N", "I",
                ]),
                0..40,
            ),
            values in prop::collection::vec(prop::sample::select(vec![
                "1", "-2.5e3", "NaN", "Infinity", "-Infinity", "1e999", "\"a\\\"NaN\"", "null",
            ]), 1..10),
        ) {
            let text: String = parts.concat();
            let _ = sanitize(&text);
            let json = format!("[{}]", values.join(","));
            let clean = sanitize(&json);
            let v: Vec<serde_json::Value> = serde_json::from_str(&clean).unwrap();
            prop_assert_eq!(v.len(), values.len());
        }
    }

    #[test]
    fn non_finite_tokens_are_marked_outside_strings_only() {
        let t =
            r#"{"a": [1, NaN, -Infinity, Infinity, 1e400, -1e999, 1e-400, 2.5], "s": "NaN 1e400"}"#;
        let s = sanitize(t);
        assert_eq!(
            s,
            r#"{"a": [1, "non-finite", "non-finite", "non-finite", "non-finite", "non-finite", 1e-400, 2.5], "s": "NaN 1e400"}"#
        );
        let clean = r#"{"a": [1.5, -2e10], "b": "Infinity"}"#;
        assert!(matches!(sanitize(clean), Cow::Borrowed(_)));
        // Escaped quotes do not end a string.
        let esc = r#"{"s": "a\"NaN", "x": NaN}"#;
        assert_eq!(sanitize(esc), r#"{"s": "a\"NaN", "x": "non-finite"}"#);
    }

    #[test]
    fn lines_are_capped_without_buffering_them() {
        let text = b"short\n0123456789ABCDEF\nlast";
        let mut input = &text[..];
        let mut buf = Vec::new();
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"short");
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            LineRead::TooLong(16)
        );
        assert!(buf.is_empty());
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"last");
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            LineRead::End
        );
        // Exactly at the cap is kept.
        let mut input = &b"12345678\n"[..];
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"12345678");
    }

    #[test]
    fn a_long_line_across_reads_is_skipped_to_its_newline() {
        let mut text = vec![b'x'; 100_000];
        text.extend_from_slice(b"\nok\n");
        let mut input = std::io::BufReader::with_capacity(64, &text[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 1000).unwrap(),
            LineRead::TooLong(100_000)
        );
        assert!(buf.capacity() <= 2048, "buffered {}", buf.capacity());
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 1000).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"ok");
    }
}
