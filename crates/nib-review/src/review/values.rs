//! Property values as the text a reviewer reads: compact JSON, compared by content (not by the
//! order keys happen to sit in), and shortened when they are too long for one line.

use crate::doc::convert::ToJson;
use crate::doc::json::JsonWriter;

/// Longest value shown whole on a line of an outline or a report; longer values (path data,
/// long texts, replaced subtrees) show their start, their length and a hash, so that two
/// different long values still read as different.
pub(crate) const SHOWN_VALUE_CHARS: usize = 120;

/// `value` as compact JSON, as it would be saved (without whitespace).
pub(crate) fn compact<T: ToJson + ?Sized>(value: &T) -> String {
    let mut w = JsonWriter::compact();
    value.write_json(&mut w);
    w.finish()
}

/// True when `a` and `b` say the same: equal values, or values that differ only in the order of
/// keys inside objects (which no reader of the file can see).
pub(crate) fn same<T: PartialEq + ToJson + ?Sized>(a: &T, b: &T) -> bool {
    a == b || same_json(&compact(a), &compact(b))
}

/// True when two compact JSON texts hold the same content, objects compared as maps.
pub(crate) fn same_json(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // Without objects there is no key order to differ in: different text is a different value.
    if !a.contains('{') || !b.contains('{') {
        return false;
    }
    match (serde_json::from_str::<serde_json::Value>(a), serde_json::from_str::<serde_json::Value>(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `text` cut to [`SHOWN_VALUE_CHARS`] characters when longer, ending in `…` with its length and
/// a hash of the whole: `"M0 0 L10 …" (5123 chars, #9f3a61c2)`.
pub fn shorten(text: &str) -> String {
    if text.chars().count() <= SHOWN_VALUE_CHARS {
        return text.to_owned();
    }
    let start: String = text.chars().take(SHOWN_VALUE_CHARS - 20).collect();
    format!("{start}… ({} chars, #{:08x})", text.chars().count(), fingerprint(text) as u32)
}

/// A stable 64-bit FNV-1a hash: the same text gives the same number on every machine and in
/// every release (std's hasher promises neither).
pub fn fingerprint(text: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    text.bytes().fold(OFFSET, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_with_the_same_members_in_another_order_are_the_same() {
        assert!(same_json(r#"{"a":1,"b":[1,{"c":2,"d":3}]}"#, r#"{"b":[1,{"d":3,"c":2}],"a":1}"#));
        assert!(!same_json(r#"{"a":1}"#, r#"{"a":2}"#));
        assert!(!same_json("[1,2]", "[2,1]"));
    }

    #[test]
    fn long_values_keep_their_start_length_and_a_hash() {
        let long = "x".repeat(500);
        let shown = shorten(&long);
        assert!(shown.starts_with("xxxx") && shown.contains("(500 chars, #"), "{shown}");
        assert!(shown.chars().count() < 140);
        assert_ne!(shorten(&long), shorten(&format!("{}y", "x".repeat(499))));
        assert_eq!(shorten("short"), "short");
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
