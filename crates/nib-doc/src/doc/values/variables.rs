//! Document-level variables, theme axes and imports.

use std::borrow::Cow;

use super::color::Color;
use crate::doc::convert::{FromJson, OrderedMap, ReadContext, ToJson, VarRef, as_var_ref, expect_object, wrong_type};
use crate::doc::error::{ErrorKind, ValueError};
use crate::doc::json::{Json, JsonValue, JsonWriter};
use crate::doc::keyword::keyword_enum;
use crate::doc::object::{read_members_into, typed_object};

keyword_enum! {
    /// The kind of value a variable holds.
    pub enum VariableType as "variable type" {
        /// true / false
        Boolean = "boolean",
        /// A color.
        Color = "color",
        /// A number.
        Number = "number",
        /// A string (font families, labels).
        String = "string",
    }
}

/// Theme axes and their values: `{"Mode": ["Light", "Dark"]}`. The first value of each axis
/// is the default.
pub type Themes = OrderedMap<Vec<String>>;

/// Import aliases and the relative paths of the files they name: `{"h": "../lib.pen"}`.
pub type Imports = OrderedMap<String>;

/// The variables of a document by name (`--primary`; referenced as `"$--primary"`).
pub type Variables = OrderedMap<Variable>;

/// A choice of value per theme axis: `{"Mode": "Dark"}` on a node or a variable entry.
pub type ThemeSelection = OrderedMap<String>;

/// One value of a variable, typed by the variable's declared type.
#[derive(Debug, Clone, PartialEq)]
pub enum VariableScalar {
    /// A boolean variable's value.
    Boolean(bool),
    /// A number variable's value.
    Number(f64),
    /// A color variable's value.
    Color(Color),
    /// A string variable's value.
    String(String),
    /// Another variable, `"$--base"`.
    Var(VarRef),
}

impl FromJson for VariableScalar {
    fn expected() -> Cow<'static, str> {
        "a variable value".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<VariableScalar, ValueError> {
        if let Some(var) = as_var_ref(&json) {
            return Ok(VariableScalar::Var(var));
        }
        let expected = match cx.variable_type {
            Some(VariableType::Boolean) => {
                return bool::from_json(json, cx).map(VariableScalar::Boolean);
            }
            Some(VariableType::Number) => {
                return f64::from_json(json, cx).map(VariableScalar::Number);
            }
            Some(VariableType::Color) => {
                return Color::from_json(json, cx).map(VariableScalar::Color);
            }
            Some(VariableType::String) => {
                return String::from_json(json, cx).map(VariableScalar::String);
            }
            None => "a value matching the variable's type",
        };
        Err(ValueError::new(json.offset, ErrorKind::WrongType { expected: expected.into(), found: json.kind_name() }))
    }
}

impl ToJson for VariableScalar {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            VariableScalar::Boolean(b) => w.bool(*b),
            VariableScalar::Number(n) => w.number(*n),
            VariableScalar::Color(c) => c.write_json(w),
            VariableScalar::String(s) => w.string(s),
            VariableScalar::Var(var) => crate::doc::convert::VarOr::<f64>::Var(var.clone()).write_json(w),
        }
    }
}

typed_object! {
    /// A variable value that applies under a theme: `{"value": "#60A5FA", "theme": {"Mode": "Dark"}}`.
    /// An entry without `theme` is the fallback.
    pub struct ThemedValue as "a themed value {value, theme}" {
        tag: None,
        "value" => value: VariableScalar,
        "theme" => theme: ThemeSelection,
    }
}

/// A variable's value: one for all themes, or a list of themed entries.
#[derive(Debug, Clone, PartialEq)]
pub enum VariableValue {
    /// The same in every theme.
    Plain(VariableScalar),
    /// Chosen per theme.
    Themed(Vec<ThemedValue>),
}

impl FromJson for VariableValue {
    fn expected() -> Cow<'static, str> {
        "a value, or a list of {value, theme} entries".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<VariableValue, ValueError> {
        match json.value {
            JsonValue::Array(_) => Vec::<ThemedValue>::from_json(json, cx).map(VariableValue::Themed),
            _ => VariableScalar::from_json(json, cx).map(VariableValue::Plain),
        }
    }
}

impl ToJson for VariableValue {
    fn write_json(&self, w: &mut JsonWriter) {
        match self {
            VariableValue::Plain(value) => value.write_json(w),
            VariableValue::Themed(entries) => entries.write_json(w),
        }
    }
}

typed_object! {
    /// A variable: `{"type": "color", "value": ...}`.
    pub struct Variable as "a variable {type, value}" {
        tag: None,
        read: custom,
        "type" => var_type: VariableType,
        "value" => value: VariableValue,
    }
}

impl FromJson for Variable {
    fn expected() -> Cow<'static, str> {
        "a variable {type, value}".into()
    }

    fn from_json(json: Json, cx: &mut ReadContext) -> Result<Variable, ValueError> {
        let (offset, members) = expect_object::<Variable>(json)?;
        // The values are read as the declared type, wherever `type` sits in the object.
        let declared = members.iter().find(|m| m.key == "type").map(|m| m.value.clone());
        let Some(declared) = declared else {
            return Err(ValueError::new(offset, ErrorKind::MissingKey { what: "a variable", key: "type" })
                .with_hint("declare the type: \"boolean\", \"color\", \"number\" or \"string\""));
        };
        let var_type = VariableType::from_json(declared, cx)?;
        let previous = cx.variable_type.replace(var_type);
        let variable = read_members_into(Variable { var_type: Some(var_type), ..Variable::default() }, members, cx);
        cx.variable_type = previous;
        variable
    }
}

/// Checks a theme axis list: a list of distinct strings.
pub(crate) fn read_themes(json: Json, cx: &mut ReadContext) -> Result<Themes, ValueError> {
    if !matches!(json.value, JsonValue::Object(_)) {
        return Err(wrong_type::<Themes>(&json));
    }
    crate::doc::convert::read_map(json, "an object of theme axes", cx, |_, values, cx| {
        let offset = values.offset;
        let values = Vec::<String>::from_json(values, cx)?;
        if values.is_empty() {
            return Err(ValueError::new(
                offset,
                ErrorKind::WrongLength { what: "a theme axis", expected: "at least 1", got: 0 },
            )
            .with_hint("list the axis' values, e.g. [\"Light\", \"Dark\"]; the first is the default"));
        }
        Ok(values)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::*;

    #[test]
    fn variables_read_values_as_their_declared_type() {
        let v: Variable = read(
            r##"{"value": [{"value": "#2563EB", "theme": {"Mode": "Light"}}, {"value": "$--x"}], "type": "color"}"##,
        )
        .unwrap();
        match v.value {
            Some(VariableValue::Themed(entries)) => {
                assert!(matches!(entries[0].value, Some(VariableScalar::Color(_))));
                assert!(matches!(entries[1].value, Some(VariableScalar::Var(_))));
            }
            other => panic!("{other:?}"),
        }
        assert_round_trip::<Variable>("{\n  \"type\": \"number\",\n  \"value\": 8\n}");
        assert_round_trip::<Variable>("{\n  \"type\": \"string\",\n  \"value\": \"Inter\"\n}");
    }

    #[test]
    fn variable_values_must_match_the_type() {
        let e = read::<Variable>(r##"{"type": "color", "value": "#1535850"}"##).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::InvalidColor { .. }));
        let e = read::<Variable>(r#"{"type": "number", "value": "8px"}"#).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::WrongType { .. }));
        let e = read::<Variable>(r#"{"value": 1}"#).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::MissingKey { key: "type", .. }));
        let e = read::<Variable>(r#"{"type": "colour", "value": 1}"#).unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean \"color\"?"));
    }
}
