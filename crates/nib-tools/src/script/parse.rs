//! From script text to [`Script`]: the pest grammar in `grammar/batch.pest`, then checks that
//! need the whole script (bindings defined before use, argument counts, limits), with errors
//! that name the line, the column, the token found, what was expected, and a hint.

use std::collections::HashMap;
use std::fmt;

use pest::Parser;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

use super::ast::{Expr, ExprKind, Operation, Property, Script, Span, Statement};
use crate::doc::locate::{LineIndex, line_column};

mod grammar {
    #![allow(missing_docs)]
    #[derive(pest_derive::Parser)]
    #[grammar = "../../../grammar/batch.pest"]
    pub(super) struct BatchParser;
}

use grammar::{BatchParser, Rule};

/// Largest script accepted, in bytes.
pub const MAX_SCRIPT_BYTES: usize = 256 * 1024;

/// Deepest nesting of object and array literals accepted.
pub const MAX_NESTING: usize = 32;

/// Statements per call unless configured otherwise. Pen runs longer scripts than the 25 it
/// recommends (26, 28 and 35 in recorded sessions) and refuses none for their length, so nib
/// refuses only what is far beyond any real call: a script this long is already close to
/// [`MAX_SCRIPT_BYTES`], and the answer lists every statement's result.
pub const DEFAULT_MAX_STATEMENTS: usize = 500;

/// Statements per call Pen recommends: longer calls run, with advice to split them (a long
/// all-or-nothing batch is harder to review and to repair when one statement fails).
pub(crate) const RECOMMENDED_STATEMENTS: usize = 25;

/// Names that always refer to the document root.
pub(crate) const ROOT_NAMES: &[&str] = &["document", "root"];

/// A script that cannot run: where, what was found, what was expected, and how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// The offending token as written (`...`, `frame`, `end of script`).
    pub found: String,
    /// What is wrong.
    pub message: String,
    /// What usually fixes it.
    pub hint: Option<String>,
    /// The 0-based index of the statement it belongs to, when known.
    pub statement: Option<usize>,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScriptError {}

/// Parses `source`, allowing at most `max_statements` statements.
///
/// A script over a limit is refused before the grammar runs: one pass over the text measures
/// its nesting and counts its statements. Lines and columns come from one [`LineIndex`], so
/// the whole parse reads the text a fixed number of times however many statements it has.
pub fn parse(source: &str, max_statements: usize) -> Result<Script, ScriptError> {
    if source.len() > MAX_SCRIPT_BYTES {
        return Err(error_at(
            source,
            0,
            format!("the script is {} bytes; the limit is {MAX_SCRIPT_BYTES}", source.len()),
            Some("split the work into several batch_design calls".into()),
        ));
    }
    let outline = outline(source, max_statements)?;
    if let Some(extra) = outline.over_limit {
        return Err(too_many_statements(source, outline.statements, max_statements, extra));
    }
    let mut pairs = BatchParser::parse(Rule::script, source).map_err(|e| syntax_error(source, e))?;
    let script_pair = pairs.next().ok_or_else(|| error_at(source, 0, "the script is empty".into(), None))?;
    let tree = Tree { lines: LineIndex::new(source) };
    let statements: Vec<Statement> = script_pair
        .into_inner()
        .filter(|p| p.as_rule() == Rule::statement)
        .map(|p| tree.statement(p))
        .collect::<Result<_, _>>()?;
    let script = Script { statements };
    check_script(source, &script, max_statements)?;
    Ok(script)
}

/// An error at one byte offset. Each error reads the text up to its offset once; the many
/// spans of a parse tree use a [`LineIndex`] instead.
fn error_at(source: &str, offset: usize, message: String, hint: Option<String>) -> ScriptError {
    let (line, column) = line_column(source, offset as u32);
    ScriptError { line, column, found: token_at(source, offset), message, hint, statement: None }
}

/// The refusal of a script with `count` statements, `max_statements` allowed; the first one
/// over the limit starts at byte `extra`.
fn too_many_statements(source: &str, count: usize, max_statements: usize, extra: usize) -> ScriptError {
    let mut e = error_at(
        source,
        extra,
        format!("the script has {count} statements; at most {max_statements} run in one call"),
        Some(format!(
            "split it into calls of at most {max_statements} statements; bindings do not carry over, so use node ids in later calls"
        )),
    );
    e.statement = Some(max_statements);
    e
}

/// The token starting at `offset`, as an agent would recognise it.
fn token_at(source: &str, offset: usize) -> String {
    let rest = source.get(offset..).unwrap_or_default();
    let Some(first) = rest.chars().next() else { return "end of script".into() };
    if rest.starts_with("...") {
        return "...".into();
    }
    if first == '<' {
        return match rest.find('>') {
            Some(end) if rest[..end].chars().count() < 40 => rest[..=end].into(),
            _ => rest.chars().take(24).collect(),
        };
    }
    if first.is_alphanumeric() || first == '_' || first == '$' {
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).unwrap_or(rest.len());
        return rest[..end].into();
    }
    first.to_string()
}

/// What one pass over a script tells before the grammar runs.
struct Outline {
    /// Statements, counted as calls closed at the top level.
    statements: usize,
    /// Where the first statement beyond the limit starts, when there is one.
    over_limit: Option<usize>,
}

/// Counts the statements of `source` and refuses literals nested deeper than [`MAX_NESTING`]
/// (the grammar is recursive), in one pass that skips strings and comments. A statement starts
/// at the first token at the top level and ends with the bracket that closes its call: for a
/// script the grammar accepts, these are exactly its statements.
fn outline(source: &str, max_statements: usize) -> Result<Outline, ScriptError> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut in_statement = false;
    let mut outline = Outline { statements: 0, over_limit: None };
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        let comment = byte == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*'));
        if depth == 0 && !in_statement && !comment && byte != b';' {
            // The grammar's whitespace separates statements; anything else starts one.
            if let Some(space) =
                source.get(i..).and_then(|rest| rest.chars().next()).filter(|c| is_script_whitespace(*c))
            {
                i += space.len_utf8();
                continue;
            }
            in_statement = true;
            if outline.statements == max_statements {
                outline.over_limit = Some(i);
            }
            outline.statements += 1;
        }
        match byte {
            quote @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += source[i..].find("*/").map_or(bytes.len(), |n| n + 1);
            }
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(error_at(
                        source,
                        i,
                        format!("values are nested more than {MAX_NESTING} levels deep"),
                        Some("flatten the structure, or insert deep trees in several statements".into()),
                    ));
                }
            }
            b'}' | b']' | b')' => {
                depth = depth.saturating_sub(1);
                in_statement &= !(depth == 0 && byte == b')');
            }
            _ => {}
        }
        i += 1;
    }
    Ok(outline)
}

/// The characters `WHITESPACE` matches in `grammar/batch.pest`.
fn is_script_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{feff}' | '\u{a0}')
}

fn syntax_error(source: &str, error: pest::error::Error<Rule>) -> ScriptError {
    let offset = match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((start, _)) => start,
    };
    let found = token_at(source, offset);
    let expected = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => describe_expected(positives),
        ErrorVariant::CustomError { message } => message.clone(),
    };
    let shown = if found == "end of script" { found.clone() } else { format!("`{found}`") };
    let hint = syntax_hint(source, offset, &found);
    let (line, column) = line_column(source, offset as u32);
    ScriptError {
        line,
        column,
        message: format!("unexpected {shown}; expected {expected}"),
        found,
        hint,
        statement: None,
    }
}

fn describe_expected(positives: &[Rule]) -> String {
    let mut words: Vec<&str> = positives
        .iter()
        .map(|rule| match rule {
            Rule::expression
            | Rule::string
            | Rule::number
            | Rule::literal
            | Rule::object
            | Rule::array
            | Rule::reference => "a value (a string, number, object, array or binding)",
            Rule::property | Rule::key => "a property name",
            Rule::statement | Rule::binding | Rule::call | Rule::operation | Rule::identifier => {
                "a statement such as `x=I(parent, {...})`"
            }
            Rule::EOI => "the end of the script",
            Rule::arguments => "the arguments",
            Rule::comma => "`,`",
            Rule::colon => "`:`",
            Rule::equals => "`=`",
            Rule::semicolon => "`;` or a new line",
            Rule::plus => "`+`",
            Rule::open_paren => "`(`",
            Rule::close_paren => "`)`",
            Rule::open_brace => "`{`",
            Rule::close_brace => "`}`",
            Rule::open_bracket => "`[`",
            Rule::close_bracket => "`]`",
            _ => "more of the statement",
        })
        .collect();
    words.dedup();
    if words.is_empty() { "`,` or a closing bracket".into() } else { words.join(" or ") }
}

fn syntax_hint(source: &str, offset: usize, found: &str) -> Option<String> {
    let before = source[..offset.min(source.len())].trim_end();
    let word_before =
        before.rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).next().unwrap_or_default();
    if matches!(word_before, "const" | "let" | "var") {
        return Some("write bindings without a keyword: `card=I(parent, {...})`".into());
    }
    Some(match found {
        "..." => "`...` is a placeholder: write the real properties, or leave the object empty: {}".into(),
        f if f.starts_with('<') => {
            format!("`{f}` is a placeholder: put a real value here (node ids go in quotes, e.g. \"k8eKw\")")
        }
        "end of script" => "the script ends inside a statement: a bracket or a quote is not closed".into(),
        "const" | "let" | "var" => "write bindings without a keyword: `card=I(parent, {...})`".into(),
        f if f.chars().next().is_some_and(|c| c.is_alphabetic() || c == '"' || c == '\'')
            && (before.ends_with('"')
                || before.ends_with('\'')
                || before.ends_with('}')
                || before.ends_with(']')
                || before.ends_with(|c: char| c.is_alphanumeric())) =>
        {
            "a comma is missing between two properties or arguments".into()
        }
        f if f.chars().next().is_some_and(|c| c.is_alphabetic())
            && source[offset..]
                .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_')
                .trim_start()
                .starts_with('(') =>
        {
            "operations are single capital letters: I, C, U, R, M, D, G".into()
        }
        "=" if before.ends_with(|c: char| c.is_alphanumeric()) => {
            "properties are written `key: value`, not `key = value`".into()
        }
        "}" | "]" | ")" => "a value is missing before the closing bracket".into(),
        _ => return None,
    })
}

/// The children of `pair` that are `rule`, skipping punctuation.
fn only(pair: Pair<Rule>, rule: Rule) -> impl Iterator<Item = Pair<Rule>> {
    pair.into_inner().filter(move |p| p.as_rule() == rule)
}

/// Turns the parse tree into statements, with the line and column of every span.
struct Tree<'s> {
    lines: LineIndex<'s>,
}

impl Tree<'_> {
    fn span(&self, pest_span: pest::Span) -> Span {
        let (line, column) = self.lines.line_column(pest_span.start());
        Span { start: pest_span.start(), end: pest_span.end(), line, column }
    }

    fn statement(&self, pair: Pair<Rule>) -> Result<Statement, ScriptError> {
        let statement_span = self.span(pair.as_span());
        let mut binding = None;
        let mut operation = Operation::Insert;
        let mut arguments = Vec::new();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::binding => binding = Some(part.as_str().to_owned()),
                Rule::call => {
                    for inner in part.into_inner() {
                        match inner.as_rule() {
                            Rule::operation => {
                                operation = Operation::from_letter(inner.as_str()).unwrap_or(Operation::Insert)
                            }
                            Rule::arguments => {
                                arguments = only(inner, Rule::expression).map(|e| self.expression(e)).collect()
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(Statement { binding, operation, arguments, span: statement_span })
    }

    fn expression(&self, pair: Pair<Rule>) -> Expr {
        let whole = self.span(pair.as_span());
        let mut terms: Vec<Expr> =
            pair.into_inner().filter(|p| p.as_rule() != Rule::plus).map(|t| self.term(t)).collect();
        if terms.len() == 1 {
            return terms.pop().unwrap_or(Expr { kind: ExprKind::Undefined, span: whole });
        }
        Expr { kind: ExprKind::Concat(terms), span: whole }
    }

    fn term(&self, pair: Pair<Rule>) -> Expr {
        let at = self.span(pair.as_span());
        let kind = match pair.as_rule() {
            Rule::string => ExprKind::String(decode_string(pair.as_str())),
            Rule::number => ExprKind::Number(parse_number(pair.as_str())),
            Rule::literal => match pair.as_str() {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                "null" => ExprKind::Null,
                _ => ExprKind::Undefined,
            },
            Rule::reference => ExprKind::Reference(pair.as_str().to_owned()),
            Rule::array => ExprKind::Array(only(pair, Rule::expression).map(|e| self.expression(e)).collect()),
            Rule::object => ExprKind::Object(only(pair, Rule::property).map(|p| self.property(p)).collect()),
            _ => ExprKind::Undefined,
        };
        Expr { kind, span: at }
    }

    fn property(&self, pair: Pair<Rule>) -> Property {
        let mut inner = pair.into_inner().filter(|p| p.as_rule() != Rule::colon);
        let (key, key_span) = match inner.next() {
            Some(key) => {
                let key_span = self.span(key.as_span());
                let text = match key.clone().into_inner().next() {
                    Some(k) if k.as_rule() == Rule::string => decode_string(k.as_str()),
                    Some(k) if k.as_rule() == Rule::number => {
                        let mut text = String::new();
                        crate::doc::json::write_js_number(&mut text, parse_number(k.as_str()));
                        text
                    }
                    _ => key.as_str().to_owned(),
                };
                (text, key_span)
            }
            None => (String::new(), Span::default()),
        };
        let value =
            inner.next().map(|v| self.expression(v)).unwrap_or(Expr { kind: ExprKind::Undefined, span: key_span });
        Property { key, key_span, value }
    }
}

/// A JavaScript number literal; the grammar admits only well-formed ones.
fn parse_number(text: &str) -> f64 {
    let normalized = if text.ends_with('.') { format!("{text}0") } else { text.to_owned() };
    let normalized = normalized.replace("-.", "-0.");
    let normalized = if normalized.starts_with('.') { format!("0{normalized}") } else { normalized };
    normalized.parse().unwrap_or(0.0)
}

/// Decodes a quoted JavaScript string literal (with its quotes).
fn decode_string(quoted: &str) -> String {
    let body = &quoted[1..quoted.len().saturating_sub(1).max(1)];
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escaped) = chars.next() else { break };
        match escaped {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '0' => out.push('\0'),
            '\n' => {} // a line continuation
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('\u{fffd}'));
            }
            'u' => out.push(decode_unicode_escape(&mut chars)),
            other => out.push(other),
        }
    }
    out
}

/// `\uXXXX` (with a following low surrogate when needed) or `\u{X…}`.
fn decode_unicode_escape(chars: &mut std::iter::Peekable<std::str::Chars>) -> char {
    let read_hex = |chars: &mut std::iter::Peekable<std::str::Chars>, n: usize| -> Option<u32> {
        let hex: String = chars.by_ref().take(n).collect();
        u32::from_str_radix(&hex, 16).ok()
    };
    if chars.peek() == Some(&'{') {
        chars.next();
        let hex: String = chars.by_ref().take_while(|c| *c != '}').collect();
        let code = u32::from_str_radix(&hex, 16).ok();
        return code
            .and_then(|code| crate::doc::json::surrogates::stand_in(code).or_else(|| char::from_u32(code)))
            .unwrap_or('\u{fffd}');
    }
    let Some(first) = read_hex(chars, 4) else { return '\u{fffd}' };
    if (0xD800..0xDC00).contains(&first) {
        let mut lookahead = chars.clone();
        if lookahead.next() == Some('\\')
            && lookahead.next() == Some('u')
            && let Some(low) = read_hex(&mut lookahead, 4).filter(|low| (0xDC00..0xE000).contains(low))
        {
            *chars = lookahead;
            return char::from_u32(0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)).unwrap_or('\u{fffd}');
        }
    }
    // Half a pair alone is kept, as JavaScript keeps it and as a file's are (its stand-in).
    crate::doc::json::surrogates::stand_in(first).or_else(|| char::from_u32(first)).unwrap_or('\u{fffd}')
}

/// Checks that need the whole script: separators, limits, argument counts, bindings.
fn check_script(source: &str, script: &Script, max_statements: usize) -> Result<(), ScriptError> {
    if script.statements.is_empty() {
        return Err(error_at(
            source,
            source.len(),
            "the script has no statements".into(),
            Some("write operations such as `frame=I(document, {type: \"frame\", width: 400, height: 300})`".into()),
        ));
    }
    if script.statements.len() > max_statements {
        // `outline` refuses these first; this holds whatever it counted.
        let extra = script.statements[max_statements].span.start;
        return Err(too_many_statements(source, script.statements.len(), max_statements, extra));
    }
    let mut defined: HashMap<&str, usize> = HashMap::new();
    for (index, statement) in script.statements.iter().enumerate() {
        let fail = |e: ScriptError| ScriptError { statement: Some(index), ..e };
        if index > 0 {
            let previous = &script.statements[index - 1];
            let between = &source[previous.span.end..statement.span.start];
            if !between.contains(';') && !between.contains('\n') {
                return Err(fail(error_at(
                    source,
                    statement.span.start,
                    "two statements on one line".into(),
                    Some("separate statements with a new line or `;`".into()),
                )));
            }
        }
        let (fewest, most) = statement.operation.arity();
        let count = statement.arguments.len();
        if count < fewest || count > most {
            let takes = if fewest == most { format!("{fewest}") } else { format!("{fewest} to {most}") };
            return Err(fail(error_at(
                source,
                statement.span.start,
                format!("{}() takes {takes} arguments, found {count}", statement.operation),
                Some(format!("write {}", statement.operation.form())),
            )));
        }
        for argument in &statement.arguments {
            check_references(source, script, argument, &defined, index, true).map_err(fail)?;
            if let Some(number) = non_finite_number(argument) {
                return Err(fail(error_at(
                    source,
                    number.span.start,
                    format!("the number {} is too large", &source[number.span.start..number.span.end]),
                    Some("numbers must fit a 64-bit float (about ±1.8e308)".into()),
                )));
            }
        }
        if let Some(binding) = &statement.binding {
            if ROOT_NAMES.contains(&binding.as_str()) {
                return Err(fail(error_at(
                    source,
                    statement.span.start,
                    format!("`{binding}` always means the document root and cannot be a binding"),
                    Some("choose another name".into()),
                )));
            }
            defined.insert(binding, index);
        }
    }
    Ok(())
}

/// The first number literal in `expr` that does not fit a 64-bit float (`1e999`): it would
/// become infinity, which a .pen file cannot hold.
fn non_finite_number(expr: &Expr) -> Option<&Expr> {
    match &expr.kind {
        ExprKind::Number(n) if !n.is_finite() => Some(expr),
        ExprKind::Object(properties) => properties.iter().find_map(|p| non_finite_number(&p.value)),
        ExprKind::Array(items) | ExprKind::Concat(items) => items.iter().find_map(non_finite_number),
        _ => None,
    }
}

/// Every binding used must be created by an earlier statement of the same call.
fn check_references(
    source: &str,
    script: &Script,
    expr: &Expr,
    defined: &HashMap<&str, usize>,
    index: usize,
    as_argument: bool,
) -> Result<(), ScriptError> {
    match &expr.kind {
        ExprKind::Reference(name) => {
            if ROOT_NAMES.contains(&name.as_str()) || defined.contains_key(name.as_str()) {
                return Ok(());
            }
            let later = script.statements[index..].iter().find(|s| s.binding.as_deref() == Some(name));
            let (message, hint) = match later {
                Some(later) => (
                    format!("binding `{name}` is used before it is created"),
                    format!("`{name}` is created on line {}; move that statement first", later.span.line),
                ),
                None if as_argument => (
                    format!("binding `{name}` is not defined in this call"),
                    format!(
                        "bindings do not outlive a call: address the node by its id in quotes, e.g. \"{name}Id\", or create `{name}` earlier in this script"
                    ),
                ),
                None => (format!("unknown binding `{name}`"), format!("did you mean the string \"{name}\"?")),
            };
            let mut e = error_at(source, expr.span.start, message, Some(hint));
            e.found = name.clone();
            Err(e)
        }
        ExprKind::Concat(parts) => {
            parts.iter().try_for_each(|part| check_references(source, script, part, defined, index, as_argument))
        }
        ExprKind::Array(items) => {
            items.iter().try_for_each(|item| check_references(source, script, item, defined, index, false))
        }
        ExprKind::Object(properties) => properties
            .iter()
            .try_for_each(|property| check_references(source, script, &property.value, defined, index, false)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(source: &str) -> Script {
        parse(source, DEFAULT_MAX_STATEMENTS).unwrap_or_else(|e| panic!("{source}\n{e}"))
    }

    fn err(source: &str) -> ScriptError {
        parse(source, DEFAULT_MAX_STATEMENTS).expect_err("should fail")
    }

    #[test]
    fn numbers_beyond_a_float_are_refused_where_they_are() {
        let e = err("a=I(document, {type: \"frame\", children: [{type: \"text\", fontSize: 1e999}]})");
        assert_eq!(e.message, "the number 1e999 is too large");
        assert_eq!((e.line, e.column), (1, 67));
        assert_eq!(e.statement, Some(0));
        ok("a=I(document, {type: \"frame\", width: 1.7e308})");
    }

    #[test]
    fn statements_with_and_without_bindings() {
        let script = ok("a=I(document, {type: \"frame\"})\nI(a, {type:'text', content:`hi`,});U(a,{gap:-1.5e1})");
        assert_eq!(script.statements.len(), 3);
        assert_eq!(script.statements[0].binding.as_deref(), Some("a"));
        assert_eq!(script.statements[1].binding, None);
        assert_eq!(script.statements[2].operation, Operation::Update);
        assert_eq!(script.statements[2].span.line, 2);
    }

    #[test]
    fn values_decode_like_javascript() {
        let script = ok(
            r#"x=I("p", {"quoted key": "a\"b\n\u25BC\u{1F600}\x41", 'single': 'it\'s', n: .5, m: 1e3, t: true, u: undefined, z: null, l: [1, 2,], 3: "x"})"#,
        );
        let ExprKind::Object(props) = &script.statements[0].arguments[1].kind else { panic!() };
        assert_eq!(props[0].key, "quoted key");
        assert_eq!(props[0].value.kind, ExprKind::String("a\"b\n▼😀A".into()));
        assert_eq!(props[1].value.kind, ExprKind::String("it's".into()));
        assert_eq!(props[2].value.kind, ExprKind::Number(0.5));
        assert_eq!(props[3].value.kind, ExprKind::Number(1000.0));
        assert_eq!(props[5].value.kind, ExprKind::Undefined);
        assert_eq!(props[8].key, "3");
    }

    #[test]
    fn concatenation_builds_paths() {
        let script = ok("card=I(\"p\",{type:\"ref\",ref:\"c\"})\nU(card+\"/title\"+\"/x\",{content:\"t\"})");
        let ExprKind::Concat(parts) = &script.statements[1].arguments[0].kind else { panic!() };
        assert_eq!(parts.len(), 3);
    }

    #[test]
    fn comments_and_blank_lines() {
        ok("// a comment\n\n/* block\n comment */ x=I(root, {type: \"frame\"}) // trailing\n;;\n");
    }

    #[test]
    fn placeholders_get_positioned_errors() {
        let e = err("item=I(sidebar, {type: \"ref\", descendants: {...}})");
        assert_eq!((e.line, e.column, e.found.as_str()), (1, 45, "..."));
        assert!(e.hint.unwrap().contains("placeholder"));
        let e = err("btn=I(document,{type:\"ref\",ref:\"<组件ID>\"})\nU(btn, {padding: <卡片padding>})");
        assert_eq!(e.line, 2);
        assert_eq!(e.found, "<卡片padding>");
    }

    #[test]
    fn unquoted_words_and_stale_bindings_are_named() {
        let e = err("x=I(document, {type: frame})");
        assert_eq!(e.message, "unknown binding `frame`");
        assert_eq!(e.hint.as_deref(), Some("did you mean the string \"frame\"?"));
        assert_eq!((e.line, e.column), (1, 22));
        let e = err("I(container, {type: \"frame\"})");
        assert_eq!(e.message, "binding `container` is not defined in this call");
        assert!(e.hint.unwrap().contains("do not outlive a call"));
        let e = err("U(b, {gap: 1})\nb=I(document, {type: \"frame\"})");
        assert!(e.message.contains("before it is created"));
    }

    #[test]
    fn syntax_mistakes_have_hints() {
        assert!(err("x=I(document, {type: \"frame\" name: \"a\"})").hint.unwrap().contains("comma is missing"));
        assert!(err("x=I(document, {type: \"frame\"").hint.unwrap().contains("not closed"));
        assert!(err("const x=I(document, {})").hint.unwrap().contains("without a keyword"));
        assert!(err("x=Insert(document, {})").hint.unwrap().contains("capital letters"));
        assert!(err("I(document, {type: \"frame\"}) I(document, {type: \"frame\"})").message.contains("one line"));
    }

    #[test]
    fn ten_thousand_statements_are_refused_before_the_full_parse() {
        // Before, every span read the script from its start: 10,000 statements, 110,000 spans
        // of 220 KB took minutes in a debug build, only to be refused.
        let script = "I(document,{x:1,y:2})\n".repeat(10_000);
        let e = err(&script);
        assert_eq!(e.message, "the script has 10000 statements; at most 500 run in one call");
        assert_eq!((e.statement, e.line, e.column, e.found.as_str()), (Some(500), 501, 1, "I"));
        let many = parse(&script, 10_000).expect("accepted when allowed");
        assert_eq!(many.statements.len(), 10_000);
        let last = &many.statements[9_999];
        assert_eq!((last.span.line, last.span.column), (10_000, 1));
        let ExprKind::Object(properties) = &last.arguments[1].kind else { panic!() };
        assert_eq!((properties[1].key_span.line, properties[1].key_span.column), (10_000, 17));
    }

    #[test]
    fn a_one_line_script_of_256_kib_gets_its_positions_in_one_pass() {
        // One statement of 24,000 properties on one line: before, each of its 72,000 spans
        // counted the characters of the line up to it.
        let properties: Vec<String> = (0..24_000).map(|i| format!("p{i}:0")).collect();
        let script = format!("a=I(document, {{type: \"frame\", name: \"é\", {}, last: frame}})", properties.join(", "));
        assert!(script.len() > 200 * 1024 && script.len() <= MAX_SCRIPT_BYTES, "{}", script.len());
        let e = err(&script);
        assert_eq!(e.message, "unknown binding `frame`");
        let at = script.rfind("frame").unwrap();
        assert_eq!((e.line, e.column), (1, at as u32), "columns count characters: é is two bytes");
        let fixed = script.replace("last: frame", "last: 0");
        let parsed = ok(&fixed);
        let ExprKind::Object(all) = &parsed.statements[0].arguments[1].kind else { panic!() };
        let last = all.last().unwrap();
        assert_eq!((last.key.as_str(), last.key_span.line, last.key_span.column), ("last", 1, at as u32 - 6));
    }

    #[test]
    fn the_outline_counts_the_statements_the_grammar_finds() {
        let scripts = [
            "a=I(document, {type: \"frame\"})\nI(a, {type:'text', content:`hi)(`,});U(a,{gap:-1.5e1})",
            "// a comment (with a bracket\n\n/* block ) \n comment */ x=I(root, {type: \"frame\"}) // trailing (\n;;\n",
            "\u{feff}\u{a0}D(\"a;b\")\n  ;  D('it\\'s)')\r\nD(\"x\" + \"(\")",
            "x=I(document, {a: [1, [2, {b: 3}]], c: \"/* not a comment */\"})\nD(x)",
        ];
        for script in scripts {
            let parsed = ok(script).statements.len();
            assert_eq!(outline(script, usize::MAX).expect("outline").statements, parsed, "{script}");
            let starts: Vec<usize> = ok(script).statements.iter().map(|s| s.span.start).collect();
            for (limit, start) in starts.iter().enumerate() {
                let over = parse(script, limit).expect_err("over the limit");
                assert_eq!(outline(script, limit).expect("outline").over_limit, Some(*start), "{script}");
                assert_eq!(over.statement, Some(limit));
            }
        }
    }

    #[test]
    fn arity_and_limits() {
        let e = err("U(\"a\")");
        assert_eq!(e.message, "U() takes 2 arguments, found 1");
        let many = "D(\"a\")\n".repeat(DEFAULT_MAX_STATEMENTS + 1);
        let e = err(&many);
        assert_eq!(e.statement, Some(DEFAULT_MAX_STATEMENTS));
        assert!(parse(&many, DEFAULT_MAX_STATEMENTS + 5).is_ok());
        assert_eq!(parse(&"D(\"a\")\n".repeat(26), 25).expect_err("over a configured cap").statement, Some(25));
        let deep = format!("I(document, {})", "[".repeat(40));
        assert!(err(&deep).message.contains("nested"));
        assert!(err("").message.contains("no statements"));
        assert!(err("document=I(root, {type: \"frame\"})").message.contains("document root"));
    }
}
