//! The guides as Pen's current surface reads them. The guides are written for the classic
//! tools (`batch_design` scripts, `set_variables` payloads, `snapshot_layout`…); read through
//! `read_skill` they are served where only `execute`, `get_style` and `read_skill` exist, so
//! each example becomes the snippet that does the same and each tool named in the prose
//! becomes what does its work there. A guide that named a tool the surface lacks sent agents
//! looking for it.

/// Tools of the classic surface named in the guides' prose, longest phrases first, with what
/// does their work on the current surface.
const IN_PROSE: &[(&str, &str)] = &[
    (
        "its id is in the answer (`Inserted node \\`abc12\\``)",
        "its id is in the answer's `ids` (`{\"page\": \"abc12\"}`)",
    ),
    (
        "`snapshot_layout` with `problemsOnly: true`",
        "`Get(visitor)` (each node's `ctx.problems`, its box in `ctx.bounds`)",
    ),
    ("`get_screenshot {nodeId, theme: {\"Mode\": \"Dark\"}}`", "`TakeScreenshot(node, {theme: {\"Mode\": \"Dark\"}})`"),
    ("`batch_get` with `patterns: [{reusable: true}]`", "`Get(visitor)` keeping the nodes with `reusable: true`"),
    ("`batch_get` on the screen with `readDepth: 3`", "`Get(screen, {depth: 3})`"),
    ("`snapshot_layout`", "`Get(visitor)` (each node's box in `ctx.bounds`)"),
    ("`get_screenshot`", "`TakeScreenshot(node)`"),
    ("`set_variables`", "`SetVariables(…)`"),
    ("`get_variables`", "`GetVariables()`"),
    ("`get_style_guide`", "`get_style`"),
    ("`batch_get`", "`Get(…)`"),
    ("`find_empty_space_on_canvas`", "`FindEmptySpace(…)`"),
    ("`batch_design`", "`execute`"),
    ("`get_guidelines`", "`read_skill`"),
];

/// The snippet functions of batch_design's operation letters.
const FUNCTIONS: &[(char, &str)] = &[
    ('I', "Insert"),
    ('C', "Copy"),
    ('U', "Update"),
    ('R', "Replace"),
    ('M', "Move"),
    ('D', "Delete"),
    ('G', "Generate"),
];

/// `guide` (Markdown written for the classic tools) for the current surface: examples as
/// `execute` snippets, tools in the prose as what does their work there.
pub(super) fn for_snippets(guide: &str) -> String {
    let mut out = String::with_capacity(guide.len() + guide.len() / 8);
    let mut lines = guide.lines();
    let mut prose = String::new();
    while let Some(line) = lines.next() {
        let fence = line.strip_prefix("```").map(str::trim);
        let Some(kind @ ("batch_design" | "set_variables")) = fence else {
            prose.push_str(line);
            prose.push('\n');
            continue;
        };
        out.push_str(&in_prose(&std::mem::take(&mut prose)));
        let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        out.push_str("```js\n");
        match kind {
            "set_variables" => {
                out.push_str("SetVariables(");
                out.push_str(body.join("\n").trim());
                out.push_str(");\n");
            }
            _ => out.push_str(&snippet(&body)),
        }
        out.push_str("```\n");
    }
    out.push_str(&in_prose(&prose));
    if !guide.ends_with('\n') {
        out.pop();
    }
    out
}

/// Prose with every classic tool it names replaced (a phrase wrapped over two lines is found
/// too: the guides are wrapped at 100 columns) and every operation in a code span written as
/// its snippet function (`U(card + "/" + title, {…})` is `Update(card + "/" + title, {…})`).
/// Fenced blocks other than the examples (CSS, HTML) are kept as they are.
fn in_prose(text: &str) -> String {
    let mut text = text.to_owned();
    for (classic, current) in IN_PROSE {
        text = replace_wrapped(&text, classic, current);
    }
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    let mut prose = String::new();
    for line in text.split_inclusive('\n') {
        if line.starts_with("```") {
            out.push_str(&calls_in_spans(&std::mem::take(&mut prose)));
            fenced = !fenced;
            out.push_str(line);
        } else if fenced {
            out.push_str(line);
        } else {
            prose.push_str(line);
        }
    }
    out.push_str(&calls_in_spans(&prose));
    out
}

/// `text` with each code span that is one operation written as its snippet function.
fn calls_in_spans(text: &str) -> String {
    let parts: Vec<String> = text
        .split('`')
        .enumerate()
        .map(|(index, part)| match (index % 2 == 1).then(|| as_call(part)).flatten() {
            Some(call) => call,
            None => part.to_owned(),
        })
        .collect();
    parts.join("`")
}

/// One operation (`I()`, `card=I(…)`, `U(x, {…})`) as its snippet function, when `span` is one.
fn as_call(span: &str) -> Option<String> {
    let (binding, call) = match span.split_once('=') {
        Some((name, call)) if is_name(name.trim()) => (Some(name.trim()), call.trim_start()),
        _ => (None, span),
    };
    let function = function_call(call)?;
    if !function.ends_with(')') {
        return None;
    }
    Some(match binding {
        Some(name) => format!("const {name} = {function}"),
        None => function,
    })
}

/// `call` with its operation letter written as the snippet function (`I(` → `Insert(`), when it
/// starts with one.
fn function_call(call: &str) -> Option<String> {
    let arguments = call.get(1..).filter(|rest| rest.starts_with('('))?;
    let (_, function) = FUNCTIONS.iter().find(|(letter, _)| call.starts_with(*letter))?;
    Some(format!("{function}{arguments}"))
}

/// `text` with `phrase` replaced by `with`, also where a line break (and the indentation after
/// it) stands for one of the phrase's spaces.
fn replace_wrapped(text: &str, phrase: &str, with: &str) -> String {
    let words: Vec<&str> = phrase.split(' ').collect();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'search: while let Some(start) = rest.find(words[0]) {
        let mut end = start + words[0].len();
        for word in &words[1..] {
            let gap = rest[end..].len() - rest[end..].trim_start_matches([' ', '\n']).len();
            let spaces = &rest[end..end + gap];
            if gap == 0 || spaces.matches('\n').count() > 1 || !rest[end + gap..].starts_with(word) {
                out.push_str(&rest[..start + words[0].len()]);
                rest = &rest[start + words[0].len()..];
                continue 'search;
            }
            end += gap + word.len();
        }
        out.push_str(&rest[..start]);
        out.push_str(with);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A batch_design script (one statement a line, as the guides write them) as a snippet: each
/// `name=I(…)` a `let name = Insert(…);`, a name bound again assigned without `let`.
fn snippet(statements: &[&str]) -> String {
    let mut bound: Vec<&str> = Vec::new();
    let mut out = String::new();
    for statement in statements {
        let statement = statement.trim();
        if statement.is_empty() || statement.starts_with("//") {
            out.push_str(statement);
            out.push('\n');
            continue;
        }
        let (binding, call) = match statement.split_once('=') {
            Some((name, call)) if is_name(name.trim()) => (Some(name.trim()), call.trim_start()),
            _ => (None, statement),
        };
        let call = function_call(call).unwrap_or_else(|| call.to_owned());
        match binding {
            Some(name) if bound.contains(&name) => out.push_str(&format!("{name} = {call};\n")),
            Some(name) => {
                bound.push(name);
                out.push_str(&format!("let {name} = {call};\n"));
            }
            None => out.push_str(&format!("{call};\n")),
        }
    }
    out
}

/// A binding's name: letters, digits and underscores, not starting with a digit.
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_become_snippets_and_payloads_calls() {
        let guide = "Use `batch_design`, then run `snapshot_layout` with\n  `problemsOnly: true`.\n\n```batch_design\npage=I(document, {type:\"frame\"})\nU(page, {name:\"a=b\"})\npage=C(page, document)\n```\n\n```set_variables\n{\"--a\": {\"type\": \"color\", \"value\": \"#fff\"}}\n```\n";
        let converted = for_snippets(guide);
        assert_eq!(
            converted,
            "Use `execute`, then run `Get(visitor)` (each node's `ctx.problems`, its box in `ctx.bounds`).\n\n```js\nlet page = Insert(document, {type:\"frame\"});\nUpdate(page, {name:\"a=b\"});\npage = Copy(page, document);\n```\n\n```js\nSetVariables({\"--a\": {\"type\": \"color\", \"value\": \"#fff\"}});\n```\n"
        );
    }

    #[test]
    fn operations_in_code_spans_become_functions_and_other_fences_stay() {
        let guide = "Call `I()`, bind `card=I(page, {})`, then `U(card + \"/\" + title, {content: \"a\"})`; `U` alone and `{x: 1}` stay.\n```css\n.a { content: `I()`; }\n```\n";
        assert_eq!(
            for_snippets(guide),
            "Call `Insert()`, bind `const card = Insert(page, {})`, then `Update(card + \"/\" + title, {content: \"a\"})`; `U` alone and `{x: 1}` stay.\n```css\n.a { content: `I()`; }\n```\n"
        );
    }

    #[test]
    fn a_phrase_is_replaced_only_where_it_is_whole() {
        assert_eq!(replace_wrapped("a `x` b `x` c", "`x` c", "y"), "a `x` b y");
        assert_eq!(replace_wrapped("`x`\n\nc", "`x` c", "y"), "`x`\n\nc", "a paragraph break is no space");
    }
}
