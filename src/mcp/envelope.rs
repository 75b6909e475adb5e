//! The members of a JSON-RPC message that say what it is (`jsonrpc`, `id`, `method`, and
//! whether there are `params`, a `result` or an `error`), read without building the params or
//! the result: checking a 15 MiB message costs a skim of its text, not a copy of it.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The members of a message that say what it is; `None` for a member that is absent.
#[derive(Debug, Default, Deserialize)]
pub struct Envelope {
    /// `jsonrpc`.
    #[serde(default, deserialize_with = "present")]
    pub jsonrpc: Option<Member>,
    /// `id`.
    #[serde(default, deserialize_with = "present")]
    pub id: Option<Member>,
    /// `method`.
    #[serde(default, deserialize_with = "present")]
    pub method: Option<Member>,
    /// `params`.
    #[serde(default, deserialize_with = "present")]
    pub params: Option<Member>,
    /// `result`.
    #[serde(default, deserialize_with = "present")]
    pub result: Option<Member>,
    /// `error`.
    #[serde(default, deserialize_with = "present")]
    pub error: Option<Member>,
}

/// A member's value: a scalar in full, an array or object only by its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    /// An object (its members skipped).
    Object,
    /// An array (its items skipped).
    Array,
    /// A string, number, boolean or null.
    Scalar(Value),
}

impl Member {
    /// The scalar, if the member is one.
    pub fn scalar(&self) -> Option<&Value> {
        match self {
            Member::Scalar(value) => Some(value),
            _ => None,
        }
    }

    /// The string, if the member is one.
    pub fn as_str(&self) -> Option<&str> {
        self.scalar().and_then(Value::as_str)
    }
}

/// A short description of a member for an error message: "missing", "an array", `"1.0"`.
pub fn describe(member: Option<&Member>) -> String {
    /// Characters of a value quoted in a message; enough to recognise it.
    const QUOTED_CHARS: usize = 40;
    match member {
        None => "missing".to_owned(),
        Some(Member::Array) => "an array".to_owned(),
        Some(Member::Object) => "an object".to_owned(),
        Some(Member::Scalar(value)) => {
            let text = value.to_string();
            match text.char_indices().nth(QUOTED_CHARS) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text,
            }
        }
    }
}

/// A member that is present, even when it is `null` (which `Option` alone would read as absent).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Member>, D::Error> {
    Member::deserialize(deserializer).map(Some)
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Member, D::Error> {
        deserializer.deserialize_any(MemberVisitor)
    }
}

struct MemberVisitor;

impl<'de> Visitor<'de> for MemberVisitor {
    type Value = Member;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Member, E> {
        Ok(Member::Scalar(Value::Bool(value)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Member, E> {
        Ok(Member::Scalar(Value::from(value)))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Member, E> {
        Ok(Member::Scalar(Value::from(value)))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Member, E> {
        Ok(Member::Scalar(Value::from(value)))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Member, E> {
        Ok(Member::Scalar(Value::String(value.to_owned())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Member, E> {
        Ok(Member::Scalar(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Member, A::Error> {
        // Skipping is iterative in serde_json, so no depth inside can overflow the stack.
        while items.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Member::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Member, A::Error> {
        while members.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Member::Object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_are_read_and_compound_values_only_named() {
        let text = r#"{"jsonrpc":"2.0","id":null,"method":5,"params":{"a":[1,{"b":2}]},"result":[],"extra":{}}"#;
        let envelope: Envelope = serde_json::from_str(text).unwrap();
        assert_eq!(envelope.jsonrpc.as_ref().and_then(Member::as_str), Some("2.0"));
        assert_eq!(envelope.id, Some(Member::Scalar(Value::Null)), "a null id is present");
        assert_eq!(envelope.method, Some(Member::Scalar(json!(5))));
        assert_eq!(envelope.params, Some(Member::Object));
        assert_eq!(envelope.result, Some(Member::Array));
        assert_eq!(envelope.error, None);
        let from_value = Envelope::deserialize(&serde_json::from_str::<Value>(text).unwrap()).unwrap();
        assert_eq!(from_value.params, Some(Member::Object));
    }

    #[test]
    fn members_are_described_briefly() {
        assert_eq!(describe(None), "missing");
        assert_eq!(describe(Some(&Member::Scalar(json!("1.0")))), "\"1.0\"");
        let long = describe(Some(&Member::Scalar(Value::String("x".repeat(500)))));
        assert!(long.chars().count() <= 41, "{long}");
    }
}
