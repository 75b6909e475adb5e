//! A run's value as JSON: what cannot be JSON (an object inside itself, a BigInt) is named by
//! its place in the value, and a string with half of a UTF-16 pair, which no UTF-8 text can
//! hold, is repaired with U+FFFD and counted.

/// JavaScript that turns a value into `{json}` (text, absent for `undefined`) or `{problem}`:
/// where in the value JSON stopped and why. It is compiled before the caller's code runs and
/// kept out of its globals, so a run cannot replace it.
pub(super) const TO_JSON: &str = r#"(function (value) {
  try {
    return { json: JSON.stringify(value) };
  } catch (error) {
    const ancestors = [];
    const find = (v, path) => {
      if (typeof v === "bigint") return `${path} is a BigInt (${v}n), which JSON cannot hold: return Number(…) or String(…) of it`;
      if (v === null || typeof v !== "object") return null;
      if (typeof v.toJSON === "function") v = v.toJSON();
      if (v === null || typeof v !== "object") return null;
      if (ancestors.includes(v)) return `${path} is an object that holds itself (a circular reference): return plain data, such as ids or {id, name}`;
      ancestors.push(v);
      const list = Array.isArray(v);
      for (const key of Object.keys(v)) {
        const name = list ? `${path}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
        const found = find(v[key], name);
        if (found) return found;
      }
      ancestors.pop();
      return null;
    };
    let found = null;
    try { found = find(value, "result"); } catch (ignored) {}
    return { problem: found || String(error) };
  }
})"#;

/// `json` with every lone surrogate escape (`\uD800` not followed by its low half, or a low
/// half alone) replaced by `\uFFFD`, and how many were replaced. JSON.stringify writes such
/// halves as escapes, which serde_json (rightly) refuses.
pub(super) fn well_formed(json: &str) -> (std::borrow::Cow<'_, str>, usize) {
    if !json.contains("\\u") {
        return (json.into(), 0);
    }
    let bytes = json.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        if bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u') {
            std::str::from_utf8(bytes.get(at + 2..at + 6)?).ok().and_then(|hex| u16::from_str_radix(hex, 16).ok())
        } else {
            None
        }
    };
    let high = |u: u16| (0xD800..0xDC00).contains(&u);
    let low = |u: u16| (0xDC00..0xE000).contains(&u);
    let mut out = String::with_capacity(json.len());
    let mut repaired = 0;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(u) if high(u) && unit(i + 6).is_some_and(low) => i += 12,
            Some(u) if high(u) || low(u) => {
                out.push_str(&json[copied..i]);
                out.push_str("\\uFFFD");
                repaired += 1;
                i += 6;
                copied = i;
            }
            // Any other escape (`\\`, `\"`, `\u0041`) is two characters or six: skip the
            // escaped character so an escaped backslash is not read as one.
            _ => i += 2,
        }
    }
    if repaired == 0 {
        return (json.into(), 0);
    }
    out.push_str(&json[copied..]);
    (out.into(), repaired)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_halves_are_repaired_and_pairs_and_escaped_backslashes_kept() {
        assert_eq!(well_formed(r#"["a\ud800b"]"#), (r#"["a\uFFFDb"]"#.into(), 1));
        assert_eq!(well_formed(r#"{"\udc00":"\ud83d\ude00"}"#), (r#"{"\uFFFD":"\ud83d\ude00"}"#.into(), 1));
        assert_eq!(well_formed(r#"["\\ud800", "\u0041"]"#), (r#"["\\ud800", "\u0041"]"#.into(), 0));
        assert_eq!(well_formed(r#""\ud800\ud800""#), (r#""\uFFFD\uFFFD""#.into(), 2));
    }
}
