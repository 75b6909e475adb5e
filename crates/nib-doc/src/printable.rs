//! Text from a document made safe to print on one line: names, ids and values are the author's,
//! and a name such as `"\u{1b}]0;t\u{7}\u{1b}[2K\rFAKE"` printed raw rewrites a terminal's title
//! and line, while a newline starts a new line (or a new list item in Markdown) that looks like
//! nib's own output. Every report for people (outline, diff, layout) passes such text through
//! [`one_line`].

use std::borrow::Cow;

/// `text` with line breaks and every other control character escaped as Rust escapes them
/// (`\n`, `\u{1b}`), so it stays on its line and sends no command to a terminal.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars().map(|c| if needs_escape(c) { c.escape_default().to_string() } else { c.to_string() }).collect(),
    )
}

/// `text` with every control character but line breaks and tabs escaped: what the command line
/// writes to a terminal, whatever a report forgot to pass through [`one_line`] (a theme axis
/// name in a summary, a type nib does not know), so no document string ever sends ESC or BEL.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    let sent = |c: char| needs_escape(c) && c != '\n' && c != '\t';
    if !text.chars().any(sent) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| if sent(c) { c.escape_default().to_string() } else { c.to_string() }).collect())
}

/// Control characters, and the Unicode line and paragraph separators some terminals break on.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_commands_and_line_breaks_are_shown_not_sent() {
        let hostile = "\u{1b}]0;t\u{7}\u{1b}[2K\rFAKE\nline";
        let shown = one_line(hostile);
        assert!(!shown.chars().any(char::is_control), "{shown}");
        assert_eq!(shown, "\\u{1b}]0;t\\u{7}\\u{1b}[2K\\rFAKE\\nline");
        assert!(matches!(one_line("Hero — 日本"), Cow::Borrowed("Hero — 日本")));
        assert_eq!(for_terminal("a\tb\n\u{1b}[2J\u{7}\r"), "a\tb\n\\u{1b}[2J\\u{7}\\r");
        assert!(matches!(for_terminal("line\n\tnext"), Cow::Borrowed(_)));
    }
}
