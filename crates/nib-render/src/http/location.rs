//! The URL text the fetcher needs: where a redirect's `Location` leads from the current URL, and
//! query values written safely into a URL.

use ureq::http::Uri;

/// The absolute URL `location` names, seen from `base` (RFC 3986 reference resolution for the
/// forms servers send: absolute, scheme-relative, absolute path, relative path, query only).
pub(crate) fn join(base: &Uri, location: &str) -> Option<String> {
    let location = location.trim();
    let scheme = base.scheme_str()?;
    let authority = base.authority()?.as_str();
    if location.contains("://") {
        return Some(location.to_owned());
    }
    if let Some(rest) = location.strip_prefix("//") {
        return Some(format!("{scheme}://{rest}"));
    }
    if location.starts_with('/') {
        return Some(format!("{scheme}://{authority}{location}"));
    }
    if location.starts_with('?') {
        return Some(format!("{scheme}://{authority}{}{location}", base.path()));
    }
    let path = base.path();
    let folder = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let folder = if folder.is_empty() { "/" } else { folder };
    Some(format!("{scheme}://{authority}{folder}{location}"))
}

/// `value` percent-encoded for a query string: everything but unreserved characters.
pub fn encode_query(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_resolve_against_the_current_url() {
        let base: Uri = "https://api.example.com/v1/photos/abc?x=1".parse().unwrap();
        let join = |l| join(&base, l).unwrap();
        assert_eq!(join("https://cdn.example.org/a.jpg"), "https://cdn.example.org/a.jpg");
        assert_eq!(join("//cdn.example.org/a.jpg"), "https://cdn.example.org/a.jpg");
        assert_eq!(join("/b.jpg"), "https://api.example.com/b.jpg");
        assert_eq!(join("c.jpg"), "https://api.example.com/v1/photos/c.jpg");
        assert_eq!(join("?page=2"), "https://api.example.com/v1/photos/abc?page=2");
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode_query("warm bakery & café/1"), "warm%20bakery%20%26%20caf%C3%A9%2F1");
        assert_eq!(encode_query("a-b_c.d~e"), "a-b_c.d~e");
    }
}
