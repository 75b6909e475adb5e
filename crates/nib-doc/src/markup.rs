//! Text inside XML and HTML: the one escaper the SVG and HTML exports, the diff's HTML report and
//! the JUnit report share. Markup characters become entities; characters XML 1.0 cannot carry
//! even escaped (most control characters, U+FFFE, U+FFFF) are dropped or shown as U+FFFD.

use std::borrow::Cow;

/// How [`escape`] treats what XML cannot hold and line breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Escaping {
    /// Show characters XML cannot carry as U+FFFD (a report says something was there) instead
    /// of dropping them (a drawing has nothing to show for them).
    pub replace_unwritable: bool,
    /// Write line breaks and tabs as character references, which an attribute value needs to keep
    /// them (a parser turns raw ones into spaces).
    pub breaks_as_references: bool,
}

impl Escaping {
    /// For drawings (SVG, HTML pages): unwritable characters dropped, line breaks as they are.
    pub const DRAWING: Escaping = Escaping { replace_unwritable: false, breaks_as_references: false };
    /// For reports read by tools (JUnit): nothing lost silently, every break kept in attributes.
    pub const REPORT: Escaping = Escaping { replace_unwritable: true, breaks_as_references: true };
}

/// `text` safe inside an element or a quoted attribute value (either quote).
pub fn escape(text: &str, how: Escaping) -> Cow<'_, str> {
    let special = |c: char| {
        matches!(c, '&' | '<' | '>' | '"' | '\'')
            || unwritable(c)
            || (how.breaks_as_references && matches!(c, '\n' | '\r' | '\t'))
    };
    if !text.chars().any(special) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            '\n' | '\r' | '\t' if how.breaks_as_references => escaped.push_str(&format!("&#{};", u32::from(c))),
            c if unwritable(c) => {
                if how.replace_unwritable {
                    escaped.push('\u{FFFD}');
                }
            }
            c => escaped.push(c),
        }
    }
    Cow::Owned(escaped)
}

/// Characters XML 1.0 cannot carry, even escaped.
fn unwritable(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_become_entities_and_plain_text_is_borrowed() {
        assert_eq!(escape(r#"a<b>&"c"'d'"#, Escaping::DRAWING), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
        assert!(matches!(escape("plain text\n", Escaping::DRAWING), Cow::Borrowed(_)));
    }

    #[test]
    fn a_drawing_drops_what_xml_cannot_carry_and_a_report_marks_it() {
        let text = "a\u{1b}b\u{ffff}\nc\td";
        assert_eq!(escape(text, Escaping::DRAWING), "ab\nc\td");
        assert_eq!(escape(text, Escaping::REPORT), "a\u{fffd}b\u{fffd}&#10;c&#9;d");
    }
}
