//! Places in the caller's source: from the engine's stack traces, and, where the engine keeps
//! none (a thrown value that is not an Error), from the words of the source itself.

/// Where the caller's source starts in the script the engine runs: after `lines` lines nib
/// wrote (the API, the line that opens the function). The source starts on a line of its own,
/// so columns need no shifting.
#[derive(Debug, Clone, Copy)]
pub(super) struct Offset {
    pub(super) lines: u32,
}

/// The first frame of `stack` that is in the caller's source, as a place in it (1-based line
/// and column). Frames in the lines nib put before it (the API's own functions) are skipped,
/// and so are leading frames of `constructors`: an error made by a class of the snippet
/// (`class Invalid extends Error`) has its constructor's frames on top, and the place that
/// matters is where it was made.
pub(super) fn place(stack: &str, offset: Offset, constructors: &[String]) -> (Option<u32>, Option<u32>) {
    let mut leading = true;
    for frame in stack.lines() {
        let Some(at) = frame.find("eval_script:") else { continue };
        let function = frame.trim_start().strip_prefix("at ").and_then(|f| f.split(" (").next()).unwrap_or("");
        if leading && constructors.iter().any(|c| c == function) {
            continue;
        }
        leading = false;
        let rest = &frame[at + "eval_script:".len()..];
        let mut numbers = rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
        let Some(line) = numbers.next().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if line <= offset.lines {
            continue;
        }
        let column = numbers.next().and_then(|n| n.parse::<u32>().ok());
        return (Some(line - offset.lines), column);
    }
    (None, None)
}

/// The places (1-based line and column) where `word` occurs as a word of code in `source`:
/// not inside a string, a template's text or a comment. A regular expression literal is read
/// as code; a quote inside one can hide the words after it, so callers say "at line N" only
/// as a pointer, never as the engine's word.
pub(super) fn word_places(source: &str, word: &str) -> Vec<(u32, u32)> {
    let chars: Vec<char> = source.chars().collect();
    let mut found = Vec::new();
    let (mut line, mut column) = (1u32, 1u32);
    // The brace depths at which a template's `${…}` was opened: its `}` goes back to the text.
    let mut templates: Vec<u32> = Vec::new();
    let mut depth = 0u32;
    let mut i = 0;
    let advance = |c: char, line: &mut u32, column: &mut u32| {
        if c == '\n' {
            *line += 1;
            *column = 1;
        } else {
            *column += 1;
        }
    };
    // Skips the text of a string or template from `i` (after its opening quote) to its end;
    // answers true when a template's `${` was reached.
    let skip_text = |i: &mut usize, quote: char, line: &mut u32, column: &mut u32| -> bool {
        while let Some(&c) = chars.get(*i) {
            *i += 1;
            advance(c, line, column);
            match c {
                '\\' => {
                    if let Some(&next) = chars.get(*i) {
                        *i += 1;
                        advance(next, line, column);
                    }
                }
                '$' if quote == '`' && chars.get(*i) == Some(&'{') => {
                    *i += 1;
                    advance('{', line, column);
                    return true;
                }
                c if c == quote => return false,
                '\n' if quote != '`' => return false,
                _ => {}
            }
        }
        false
    };
    while let Some(&c) = chars.get(i) {
        match c {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while let Some(&c) = chars.get(i) {
                    if c == '\n' {
                        break;
                    }
                    i += 1;
                    advance(c, &mut line, &mut column);
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                column += 2;
                while let Some(&c) = chars.get(i) {
                    if c == '*' && chars.get(i + 1) == Some(&'/') {
                        i += 2;
                        column += 2;
                        break;
                    }
                    i += 1;
                    advance(c, &mut line, &mut column);
                }
            }
            '"' | '\'' | '`' => {
                i += 1;
                column += 1;
                if skip_text(&mut i, c, &mut line, &mut column) {
                    templates.push(depth);
                }
            }
            '{' => {
                depth += 1;
                i += 1;
                column += 1;
            }
            '}' => {
                i += 1;
                column += 1;
                if templates.last() == Some(&depth) {
                    templates.pop();
                    if skip_text(&mut i, '`', &mut line, &mut column) {
                        templates.push(depth);
                    }
                } else {
                    depth = depth.saturating_sub(1);
                }
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let start = (line, column);
                let from = i;
                while chars.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '$') {
                    i += 1;
                    column += 1;
                }
                // `a.throw` is a property, not the keyword.
                let after_dot = from > 0 && chars[..from].iter().rev().find(|c| !c.is_whitespace()) == Some(&'.');
                if !after_dot && chars[from..i].iter().copied().eq(word.chars()) {
                    found.push(start);
                }
            }
            c => {
                i += 1;
                advance(c, &mut line, &mut column);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_is_read_past_nibs_lines_and_an_error_classes_constructors() {
        let stack = "    at E (eval_script:63:1)\n    at F (eval_script:64:38)\n    at g (eval_script:65:27)\n    at <eval> (eval_script:69:1)\n";
        let offset = Offset { lines: 60 };
        assert_eq!(place(stack, offset, &[]), (Some(3), Some(1)));
        assert_eq!(place(stack, offset, &["F".into(), "E".into()]), (Some(5), Some(27)));
        assert_eq!(place("    at Insert (eval_script:12:3)\n", offset, &[]), (None, None));
    }

    #[test]
    fn words_are_found_in_code_only() {
        let source = "let a = \"throw\"; // throw\nif (a) throw 1;\n/* throw */ const t = `x ${b ? 'throw' : c} throw`;\nx.throw(); throwing(); throw `${1}`;";
        assert_eq!(word_places(source, "throw"), vec![(2, 8), (4, 24)]);
        assert_eq!(word_places("return {a: {b: 1}};\n  return 2", "return"), vec![(1, 1), (2, 3)]);
    }
}
