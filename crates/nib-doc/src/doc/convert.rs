//! Conversion between JSON and typed document values, in both directions.
//!
//! Every typed value reads itself from a [`Json`] (reporting errors at the value's offset) and
//! writes itself back through a [`JsonWriter`] so that an unchanged value prints exactly as read.

use std::borrow::Cow;

use super::error::{ErrorKind, MAX_PROBLEMS, ProblemKind, RawProblem, ValueError};
use super::json::{Json, JsonValue, JsonWriter, Member, RawJson, js_enumeration_order};

/// Reads a typed value from JSON.
pub trait FromJson: Sized {
    /// What a valid value looks like, for error messages ("a number").
    fn expected() -> Cow<'static, str>;

    /// Converts `json`, reporting non-fatal findings to `cx`.
    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Self, ValueError>;
}

/// Writes a typed value as JSON.
pub trait ToJson {
    /// Writes the value at the writer's current position.
    fn write_json(&self, w: &mut JsonWriter);
}

/// Collects non-fatal findings while a document is read.
#[derive(Debug, Default)]
pub struct ReadContext {
    /// The findings kept so far: at most twice [`MAX_PROBLEMS`], trimmed to the first ones in
    /// the file by [`ReadContext::into_problems`].
    pub problems: Vec<RawProblem>,
    /// Findings reported in all, kept or not.
    found: usize,
    /// Where the first finding left out is.
    first_left_out: Option<u32>,
    /// Keys read that nib does not know.
    unknown_keys: usize,
    /// The declared type of the variable being read: its values are read as that type.
    pub variable_type: Option<super::values::VariableType>,
    /// Read a `#` color Pen would not parse as Pen does (with a warning) instead of refusing
    /// it: for files, which Pen saved with such colors (`#GGGGGG`); never for what an agent
    /// writes now.
    pub lenient_colors: bool,
    /// Reading a mesh gradient's colors, where Pen reads any string that is no color as
    /// transparent.
    pub in_mesh: bool,
    /// Keep what a newer Pen may write (node, fill and effect types nib does not know, odd
    /// values in instance overrides) verbatim with a warning instead of refusing it: for
    /// files, which must open whatever Pen wrote them; never for what an agent writes now,
    /// where such a type is a typo.
    pub keep_unknown: bool,
}

/// Problems after which unknown keys get no did-you-mean: a file full of unknown keys is not a
/// typo, and looking for one costs an edit distance against every property for each key.
const SUGGESTION_LIMIT: usize = 200;

/// Most keys nib does not know one document may hold. Each is kept verbatim in the Document and
/// copied into the Scene, some 200 bytes in all for a key of 20 bytes in the file, so a file
/// of nothing else would take ten times its size; real files have at most a few dozen.
pub const MAX_UNKNOWN_KEYS: usize = 1_000_000;

impl ReadContext {
    /// The context for reading a file: colors Pen saved though they are not hex are tolerated,
    /// and what a newer Pen writes that nib does not know is kept.
    pub(crate) fn for_files() -> ReadContext {
        ReadContext { lenient_colors: true, keep_unknown: true, ..ReadContext::default() }
    }

    /// Notes a problem with the value at `offset` (the first ones are kept, the rest counted).
    pub fn report(&mut self, offset: u32, kind: ProblemKind) {
        self.found += 1;
        self.problems.push(RawProblem { offset, kind });
        if self.problems.len() >= 2 * MAX_PROBLEMS {
            self.keep_first();
        }
    }

    /// Keeps the first [`MAX_PROBLEMS`] findings in file order (those at one offset in the
    /// order they were found). What is dropped can never come first again: later findings
    /// only add to what precedes it.
    fn keep_first(&mut self) {
        if self.problems.len() <= MAX_PROBLEMS {
            return;
        }
        self.problems.sort_by_key(|p| p.offset);
        let dropped = self.problems[MAX_PROBLEMS].offset;
        self.first_left_out = Some(self.first_left_out.map_or(dropped, |first| first.min(dropped)));
        self.problems.truncate(MAX_PROBLEMS);
    }

    /// The findings to report: the first [`MAX_PROBLEMS`] in the file and, when there were
    /// more, one that counts the rest where the first of them is.
    pub(crate) fn into_problems(mut self) -> Vec<RawProblem> {
        self.keep_first();
        if let Some(offset) = self.first_left_out {
            let count = self.found - self.problems.len();
            self.problems.push(RawProblem { offset, kind: ProblemKind::MoreProblems { count, shown: MAX_PROBLEMS } });
        }
        self.problems
    }

    /// Reports the unknown key `key` at `offset`, with the known key it may mean; an error
    /// past [`MAX_UNKNOWN_KEYS`].
    pub fn unknown_key(&mut self, offset: u32, key: &str, suggestion: Option<&'static str>) -> Result<(), ValueError> {
        self.unknown_keys += 1;
        if self.unknown_keys > MAX_UNKNOWN_KEYS {
            return Err(ValueError::new(offset, ErrorKind::TooManyUnknownKeys { limit: MAX_UNKNOWN_KEYS }).with_hint(
                "keys nib does not know have no effect in Pencil or nib; remove them (nib check lists them)",
            ));
        }
        self.report(offset, ProblemKind::UnknownKey { key: key.to_owned(), suggestion });
        Ok(())
    }

    /// The known key `key` is probably a typo of, while suggestions are still worth making.
    pub(crate) fn suggest_key(&self, key: &str, known: &[&'static str]) -> Option<&'static str> {
        if self.found >= SUGGESTION_LIMIT {
            return None;
        }
        super::keyword::suggest(key, known)
    }
}

/// The error for a value of the wrong JSON type.
pub(crate) fn wrong_type<T: FromJson>(json: &Json) -> ValueError {
    wrong_type_expecting(json, T::expected())
}

pub(crate) fn wrong_type_expecting(json: &Json, expected: Cow<'static, str>) -> ValueError {
    let error = ValueError::new(json.offset, ErrorKind::WrongType { expected, found: json.kind_name() });
    match &json.value {
        JsonValue::String(s) if s.trim_end_matches("px").parse::<f64>().is_ok() => {
            error.with_hint(format!("write the number without quotes or units: {}", s.trim_end_matches("px")))
        }
        _ => error,
    }
}

/// Rewrites a wrong-type error from an inner reader to name what the outer type `T` accepts.
pub(crate) fn restate_expected<T: FromJson>(mut error: ValueError) -> ValueError {
    if let ErrorKind::WrongType { expected, .. } = &mut error.kind {
        *expected = T::expected();
    }
    error
}

/// The string inside `json`, or a wrong-type error naming what `T` expects.
pub(crate) fn expect_string<T: FromJson>(json: Json) -> Result<String, ValueError> {
    match json.value {
        JsonValue::String(s) => Ok(s),
        _ => Err(wrong_type::<T>(&json)),
    }
}

/// The members inside `json`, or a wrong-type error naming what `T` expects.
pub(crate) fn expect_object<T: FromJson>(json: Json) -> Result<(u32, Vec<Member>), ValueError> {
    match json.value {
        JsonValue::Object(members) => Ok((json.offset, members)),
        _ => Err(wrong_type::<T>(&json)),
    }
}

impl FromJson for f64 {
    fn expected() -> Cow<'static, str> {
        "a number".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<f64, ValueError> {
        match json.value {
            JsonValue::Number(n) => Ok(n),
            _ => Err(wrong_type::<f64>(&json)),
        }
    }
}

impl ToJson for f64 {
    fn write_json(&self, w: &mut JsonWriter) {
        w.number(*self);
    }
}

impl FromJson for bool {
    fn expected() -> Cow<'static, str> {
        "true or false".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<bool, ValueError> {
        match json.value {
            JsonValue::Bool(b) => Ok(b),
            _ => Err(wrong_type::<bool>(&json)),
        }
    }
}

impl ToJson for bool {
    fn write_json(&self, w: &mut JsonWriter) {
        w.bool(*self);
    }
}

impl FromJson for String {
    fn expected() -> Cow<'static, str> {
        "a string".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<String, ValueError> {
        expect_string::<String>(json)
    }
}

impl ToJson for String {
    fn write_json(&self, w: &mut JsonWriter) {
        w.string(self);
    }
}

impl FromJson for Json {
    fn expected() -> Cow<'static, str> {
        "any JSON value".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<Json, ValueError> {
        Ok(json)
    }
}

impl ToJson for Json {
    fn write_json(&self, w: &mut JsonWriter) {
        self.write(w);
    }
}

impl FromJson for RawJson {
    fn expected() -> Cow<'static, str> {
        "any JSON value".into()
    }

    fn from_json(json: Json, _cx: &mut ReadContext) -> Result<RawJson, ValueError> {
        Ok(RawJson::from_json(&json))
    }
}

impl ToJson for RawJson {
    fn write_json(&self, w: &mut JsonWriter) {
        self.write(w);
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn expected() -> Cow<'static, str> {
        format!("a list of {}", T::expected()).into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Vec<T>, ValueError> {
        match json.value {
            JsonValue::Array(items) => items.into_iter().map(|item| T::from_json(item, cx)).collect(),
            _ => Err(wrong_type::<Vec<T>>(&json)),
        }
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, w: &mut JsonWriter) {
        w.begin_array();
        for item in self {
            item.write_json(w);
        }
        w.end_array();
    }
}

/// A value written either alone or as a list: `"fill": "#fff"` or `"fill": ["#fff", {...}]`.
/// The form is kept so the value saves as it was written.
#[derive(Debug, Clone, PartialEq)]
pub enum OneOrList<T> {
    /// A single value written without a list.
    One(T),
    /// A list, in order.
    List(Vec<T>),
}

impl<T> OneOrList<T> {
    /// The values in order.
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrList::One(value) => std::slice::from_ref(value),
            OneOrList::List(values) => values,
        }
    }

    /// The values, mutably, in order.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            OneOrList::One(value) => std::slice::from_mut(value),
            OneOrList::List(values) => values,
        }
    }
}

impl<T: FromJson> FromJson for OneOrList<T> {
    fn expected() -> Cow<'static, str> {
        T::expected()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<OneOrList<T>, ValueError> {
        match json.value {
            JsonValue::Array(items) => {
                items.into_iter().map(|item| T::from_json(item, cx)).collect::<Result<_, _>>().map(OneOrList::List)
            }
            _ => T::from_json(json, cx).map(OneOrList::One),
        }
    }
}

impl<T: ToJson> ToJson for OneOrList<T> {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            OneOrList::One(value) => value.write_json(w),
            OneOrList::List(values) => values.write_json(w),
        }
    }
}

/// A reference to a document variable, written `"$name"` (the name keeps any `alias:` prefix
/// of an imported file, e.g. `h:--foreground`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VarRef(pub String);

impl VarRef {
    /// The variable's name as written after `$`.
    pub fn name(&self) -> &str {
        &self.0
    }
}

/// A value that is either given directly or taken from a variable.
#[derive(Debug, Clone, PartialEq)]
pub enum VarOr<T> {
    /// A literal value.
    Value(T),
    /// A `"$variable"` reference, resolved later against the document's variables and themes.
    Var(VarRef),
}

impl<T> VarOr<T> {
    /// The literal value, or `None` for a variable reference.
    pub fn value(&self) -> Option<&T> {
        match self {
            VarOr::Value(v) => Some(v),
            VarOr::Var(_) => None,
        }
    }
}

/// A string that starts with `$` names a variable.
pub(crate) fn as_var_ref(json: &Json) -> Option<VarRef> {
    match &json.value {
        JsonValue::String(s) if s.len() > 1 && s.starts_with('$') => Some(VarRef(s[1..].to_owned())),
        _ => None,
    }
}

impl<T: FromJson> FromJson for VarOr<T> {
    fn expected() -> Cow<'static, str> {
        format!("{} or a \"$variable\"", T::expected()).into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<VarOr<T>, ValueError> {
        if let Some(var) = as_var_ref(&json) {
            return Ok(VarOr::Var(var));
        }
        T::from_json(json, cx).map(VarOr::Value).map_err(restate_expected::<Self>)
    }
}

impl<T: ToJson> ToJson for VarOr<T> {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            VarOr::Value(v) => v.write_json(w),
            VarOr::Var(var) => {
                let mut text = String::with_capacity(var.0.len() + 1);
                text.push('$');
                text.push_str(&var.0);
                w.string(&text);
            }
        }
    }
}

/// A JSON object used as a map from names to values, kept in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderedMap<V> {
    /// The entries in the order they were read or added.
    pub entries: Vec<(String, V)>,
}

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap { entries: Vec::new() }
    }
}

impl<V> OrderedMap<V> {
    /// The value for `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// How a map's values are read: the key is passed along for values whose checks depend on it.
pub(crate) fn read_map<V>(
    json: Json,
    expected: &'static str,
    cx: &mut ReadContext,
    mut read_value: impl FnMut(&str, Json, &mut ReadContext) -> Result<V, ValueError>,
) -> Result<OrderedMap<V>, ValueError> {
    match json.value {
        JsonValue::Object(members) => {
            let mut entries = Vec::with_capacity(members.len());
            for member in members {
                let value = read_value(&member.key, member.value, cx)?;
                entries.push((member.key, value));
            }
            Ok(OrderedMap { entries })
        }
        _ => Err(wrong_type_expecting(&json, expected.into())),
    }
}

impl<V: FromJson> FromJson for OrderedMap<V> {
    fn expected() -> Cow<'static, str> {
        format!("an object whose values are {}", V::expected()).into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<OrderedMap<V>, ValueError> {
        if !matches!(json.value, JsonValue::Object(_)) {
            return Err(wrong_type::<Self>(&json));
        }
        read_map(json, "an object", cx, |_, value, cx| V::from_json(value, cx))
    }
}

impl<V: ToJson> ToJson for OrderedMap<V> {
    fn write_json(&self, w: &mut JsonWriter) {
        w.begin_object();
        for i in js_enumeration_order(self.entries.iter().map(|(k, _)| k.as_str())) {
            let (key, value) = &self.entries[i];
            w.key(key);
            value.write_json(w);
        }
        w.end_object();
    }
}

#[cfg(any(test, feature = "testing"))]
pub mod testing {
    //! Helpers for unit tests of typed values.
    use super::*;

    /// Reads `text` as JSON and converts it to `T`.
    pub fn read<T: FromJson>(text: &str) -> Result<T, ValueError> {
        let json = crate::doc::json::parse(text).expect("valid JSON").value.expect("a value");
        T::from_json(json, &mut ReadContext::default())
    }

    /// Reads `text` as a file's value (see [`ReadContext::for_files`]), with what was reported.
    #[cfg(test)]
    pub(crate) fn read_as_file<T: FromJson>(text: &str) -> (Result<T, ValueError>, Vec<RawProblem>) {
        let json = crate::doc::json::parse(text).expect("valid JSON").value.expect("a value");
        let mut cx = ReadContext::for_files();
        let value = T::from_json(json, &mut cx);
        (value, cx.into_problems())
    }

    /// Writes `value` and returns the text.
    pub fn write<T: ToJson>(value: &T) -> String {
        let mut w = JsonWriter::new();
        value.write_json(&mut w);
        w.finish()
    }

    /// Reads and writes `text`, asserting it comes back unchanged.
    #[cfg(test)]
    pub(crate) fn assert_round_trip<T: FromJson + ToJson>(text: &str) {
        let value: T = read(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(write(&value), text);
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn variables_are_recognised_in_any_typed_position() {
        let v: VarOr<f64> = read("\"$--radius\"").unwrap();
        assert_eq!(v, VarOr::Var(VarRef("--radius".into())));
        assert_round_trip::<VarOr<f64>>("\"$h:--gap\"");
        assert_round_trip::<VarOr<f64>>("12.5");
    }

    #[test]
    fn wrong_types_name_the_alternatives() {
        let e = read::<VarOr<f64>>("true").unwrap_err();
        assert_eq!(e.kind.to_string(), "expected a number or a \"$variable\", found a boolean");
        let e = read::<VarOr<f64>>("\"12px\"").unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("write the number without quotes or units: 12"));
    }

    #[test]
    fn maps_keep_order_and_enumerate_like_javascript() {
        let map: OrderedMap<f64> = read("{\"b\": 1, \"a\": 2}").unwrap();
        assert_eq!(map.entries[0].0, "b");
        assert_eq!(write(&map), "{\n  \"b\": 1,\n  \"a\": 2\n}");
    }
}
