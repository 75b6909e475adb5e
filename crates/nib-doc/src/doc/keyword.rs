//! Properties whose value is one of a fixed set of words, and the "did you mean" suggestions
//! that turn a wrong word into an actionable hint.

/// Declares an enum of keywords with their spellings in the file, plus `parse`, `as_str`, the
/// list of all spellings (`ALL`) and JSON conversion that reports invalid words with a hint.
macro_rules! keyword_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident as $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every spelling this key accepts, in declaration order.
            pub const ALL: &'static [&'static str] = &[$($text),+];

            /// The keyword for `text`, if it is one.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $( $text => Some(Self::$variant), )+
                    _ => None,
                }
            }

            /// The spelling written to files.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Self::$variant => $text ),+
                }
            }
        }

        impl $crate::doc::convert::FromJson for $name {
            fn expected() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Owned(format!(
                    "one of {}",
                    Self::ALL.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", ")
                ))
            }

            fn from_json(
                json: $crate::doc::json::Json,
                _cx: &mut $crate::doc::convert::ReadContext,
            ) -> Result<Self, $crate::doc::error::ValueError> {
                let offset = json.offset;
                let text = $crate::doc::convert::expect_string::<Self>(json)?;
                Self::parse(&text).ok_or_else(|| {
                    let hint = $crate::doc::keyword::suggest(&text, Self::ALL)
                        .map(|s| format!("did you mean \"{s}\"?"));
                    $crate::doc::error::ValueError::new(
                        offset,
                        $crate::doc::error::ErrorKind::InvalidKeyword { what: $what, got: text, valid: Self::ALL },
                    )
                    .with_optional_hint(hint)
                })
            }
        }

        impl $crate::doc::convert::ToJson for $name {
            fn write_json(&self, w: &mut $crate::doc::json::JsonWriter) {
                w.string(self.as_str());
            }
        }

        impl $crate::doc::vars::VisitVars for $name {
            fn visit_vars(&mut self, _visit: &mut dyn FnMut(&mut dyn $crate::doc::vars::VarSlot)) {}
        }

        impl $crate::doc::vars::FromVariable for $name {
            fn from_variable(value: &$crate::doc::values::VariableScalar) -> Option<Self> {
                match value {
                    $crate::doc::values::VariableScalar::String(text) => Self::parse(text),
                    _ => None,
                }
            }
        }
    };
}

pub(crate) use keyword_enum;

/// Words agents and CSS use for the same idea as a Pen keyword.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("start", &["flex_start", "left", "top", "begin", "leading"]),
    ("end", &["flex_end", "right", "bottom", "trailing"]),
    ("center", &["middle", "centre", "centered"]),
    ("middle", &["center", "centre"]),
    ("fit_content", &["hug", "hug_contents", "hug_content", "auto", "wrap_content", "fit"]),
    ("fill_container", &["fill", "fill_parent", "match_parent", "stretch", "100%", "expand"]),
    ("fixed-width", &["fixed_width", "wrap"]),
    ("fixed-width-height", &["fixed_width_height", "fixed"]),
    ("inside", &["inner"]),
    ("outside", &["outer"]),
    ("inner", &["inside"]),
    ("outer", &["outside"]),
    ("rectangle", &["rect", "box", "square"]),
    ("ellipse", &["circle", "oval"]),
    ("path", &["svg", "vector"]),
    ("frame", &["div", "container", "view", "stack", "section", "button", "row", "column", "card"]),
    ("text", &["label", "span", "paragraph", "heading", "p", "h1"]),
    ("icon_font", &["icon_font_name", "iconfont"]),
];

/// A valid word close to `got`: the same word in another spelling (`space-between`,
/// `flex-start`, `Center`), a known synonym (`left` → `start`), or one small typo away.
pub fn suggest(got: &str, valid: &[&'static str]) -> Option<&'static str> {
    let normalized = normalize(got);
    if let Some(v) = valid.iter().find(|v| normalize(v) == normalized) {
        return Some(v);
    }
    for (target, words) in SYNONYMS {
        if words.contains(&normalized.as_str())
            && let Some(v) = valid.iter().find(|v| *v == target)
        {
            return Some(v);
        }
    }
    let budget = (normalized.chars().count() / 4).clamp(1, 3);
    valid
        .iter()
        .map(|v| (edit_distance(&normalized, &normalize(v)), *v))
        .filter(|(d, _)| *d <= budget)
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v)
}

fn normalize(word: &str) -> String {
    let lower = word.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    lower.strip_prefix("flex_").map(str::to_owned).filter(|w| w != "start" && w != "end").unwrap_or(lower)
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb { diagonal } else { 1 + diagonal.min(above).min(row[j]) };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALIGN: &[&str] = &["start", "center", "end"];
    const JUSTIFY: &[&str] = &["start", "center", "end", "space_between", "space_around"];

    #[test]
    fn css_spellings_map_to_pencil_words() {
        assert_eq!(suggest("flex_start", ALIGN), Some("start"));
        assert_eq!(suggest("flex-end", ALIGN), Some("end"));
        assert_eq!(suggest("space-between", JUSTIFY), Some("space_between"));
        assert_eq!(suggest("Center", ALIGN), Some("center"));
        assert_eq!(suggest("left", ALIGN), Some("start"));
        assert_eq!(suggest("centre", ALIGN), Some("center"));
    }

    #[test]
    fn typos_are_corrected_and_nonsense_is_not() {
        assert_eq!(suggest("vertcal", &["none", "vertical", "horizontal"]), Some("vertical"));
        assert_eq!(suggest("zigzag", ALIGN), None);
    }

    #[test]
    fn edit_distance_counts_operations() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
