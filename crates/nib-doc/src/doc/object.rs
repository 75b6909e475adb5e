//! Typed JSON objects that remember their key order and keep unknown keys.
//!
//! Fills, strokes, effects and variables are objects with a handful of known keys. They are
//! parsed into structs with one `Option` field per key (absent keys stay absent, so saving does
//! not add defaults), while [`KeyOrder`] records where each key sat and holds keys this engine
//! does not know. Writing replays that order; keys set later go after the recorded ones, in the
//! order the struct declares them, as a JavaScript object would append them.

use super::convert::ReadContext;
use super::error::ValueError;
use super::json::{Json, JsonWriter, Member, RawJson, is_array_index};

/// Where each key of an object sat in the file, and the keys the engine does not interpret.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyOrder {
    slots: Vec<Slot>,
    unknown: Vec<(String, RawJson)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    /// The `"type": "<tag>"` key of a tagged object.
    Tag,
    /// A declared field, by index into `TypedObject::FIELDS`.
    Field(u8),
    /// An unknown key, by index into `KeyOrder::unknown` (u32: a 256 MiB file cannot hold more
    /// keys; u16 wrapped and wrote the wrong keys).
    Unknown(u32),
}

impl KeyOrder {
    /// The keys this engine did not interpret, with their values, in file order.
    pub fn unknown(&self) -> &[(String, RawJson)] {
        &self.unknown
    }
}

/// A JSON object with declared fields; implemented by the [`typed_object!`] macro.
pub(crate) trait TypedObject: Default {
    /// The value of the `type` key for tagged objects (fills, effects), `None` otherwise.
    const TAG: Option<&'static str>;
    /// The declared keys, in the order new objects write them.
    const FIELDS: &'static [&'static str];

    /// Reads the value of the declared key `key` into its field.
    fn read_field(&mut self, key: &str, value: Json, cx: &mut ReadContext) -> Result<(), ValueError>;
    /// True when the declared key `key` has a value.
    fn has_field(&self, key: &str) -> bool;
    /// Writes the value of the declared key `key`; nothing when it is absent.
    fn write_field(&self, key: &str, w: &mut JsonWriter);
    /// The recorded key order.
    fn key_order(&self) -> &KeyOrder;
    /// The recorded key order, mutably.
    fn key_order_mut(&mut self) -> &mut KeyOrder;
}

/// Reads an object's members into a fresh `T`, recording their order. Keys that are not
/// declared are kept verbatim and reported.
pub(crate) fn read_members<T: TypedObject>(members: Vec<Member>, cx: &mut ReadContext) -> Result<T, ValueError> {
    read_members_into(T::default(), members, cx)
}

/// Like [`read_members`], starting from an object some fields of which are already known.
pub(crate) fn read_members_into<T: TypedObject>(
    mut object: T,
    members: Vec<Member>,
    cx: &mut ReadContext,
) -> Result<T, ValueError> {
    let mut order = KeyOrder { slots: Vec::with_capacity(members.len()), unknown: Vec::new() };
    for member in members {
        if member.key == "type" && T::TAG.is_some() {
            order.slots.push(Slot::Tag);
        } else if let Some(index) = T::FIELDS.iter().position(|k| *k == member.key) {
            object.read_field(&member.key, member.value, cx)?;
            order.slots.push(Slot::Field(index as u8));
        } else {
            let suggestion = cx.suggest_key(&member.key, T::FIELDS);
            cx.unknown_key(member.key_offset, &member.key, suggestion)?;
            order.slots.push(Slot::Unknown(order.unknown.len() as u32));
            order.unknown.push((member.key, RawJson::from_json(&member.value)));
        }
    }
    *object.key_order_mut() = order;
    Ok(object)
}

/// Writes `object` in its recorded key order, then any fields set since, in declared order.
pub(crate) fn write_typed_object<T: TypedObject>(object: &T, w: &mut JsonWriter) {
    let order = object.key_order();
    w.begin_object();
    // JavaScript enumerates array-index keys first; only unknown keys can look like that.
    let mut index_keys: Vec<usize> =
        (0..order.unknown.len()).filter(|i| is_array_index(&order.unknown[*i].0)).collect();
    index_keys.sort_by_key(|i| order.unknown[*i].0.parse::<u64>().unwrap_or(0));
    for i in &index_keys {
        let (key, value) = &order.unknown[*i];
        w.unknown_key(key);
        value.write(w);
    }
    if let Some(tag) = T::TAG
        && !order.slots.contains(&Slot::Tag)
    {
        w.key("type");
        w.string(tag);
    }
    let mut written = 0u64;
    for slot in &order.slots {
        match *slot {
            Slot::Tag => {
                w.key("type");
                w.string(T::TAG.unwrap_or_default());
            }
            Slot::Field(index) => {
                let key = T::FIELDS[usize::from(index)];
                written |= 1 << index;
                if object.has_field(key) {
                    w.key(key);
                    object.write_field(key, w);
                }
            }
            Slot::Unknown(index) => {
                if index_keys.contains(&(index as usize)) {
                    continue;
                }
                let (key, value) = &order.unknown[index as usize];
                w.unknown_key(key);
                value.write(w);
            }
        }
    }
    for (index, key) in T::FIELDS.iter().enumerate() {
        if written & (1 << index) == 0 && object.has_field(key) {
            w.key(key);
            object.write_field(key, w);
        }
    }
    w.end_object();
}

/// Declares a typed object: a struct with one optional field per JSON key plus its
/// [`KeyOrder`], and its JSON conversion.
///
/// ```ignore
/// typed_object! {
///     /// A point in a node's unit box.
///     pub struct Point as "a point {x, y}" {
///         tag: None,
///         "x" => x: VarOr<f64>,
///         "y" => y: VarOr<f64>,
///     }
/// }
/// ```
macro_rules! typed_object {
    // `read: custom` leaves `FromJson` to the caller, for objects whose fields depend on each other.
    (
        $(#[$meta:meta])*
        pub struct $name:ident as $what:literal {
            tag: $tag:expr,
            read: custom,
            $( $(#[$fmeta:meta])* $key:literal => $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $name {
            $(
                #[doc = concat!("The `", $key, "` key; `None` when absent.")]
                $(#[$fmeta])*
                pub $field: Option<$ty>,
            )*
            /// Where each key sat in the file, and keys nib does not interpret.
            pub keys: $crate::doc::object::KeyOrder,
        }

        impl $crate::doc::object::TypedObject for $name {
            const TAG: Option<&'static str> = $tag;
            const FIELDS: &'static [&'static str] = &[$($key),*];

            fn read_field(
                &mut self,
                key: &str,
                value: $crate::doc::json::Json,
                cx: &mut $crate::doc::convert::ReadContext,
            ) -> Result<(), $crate::doc::error::ValueError> {
                match key {
                    $( $key => self.$field = Some($crate::doc::convert::FromJson::from_json(value, cx)?), )*
                    _ => {}
                }
                Ok(())
            }

            fn has_field(&self, key: &str) -> bool {
                match key {
                    $( $key => self.$field.is_some(), )*
                    _ => false,
                }
            }

            fn write_field(&self, key: &str, w: &mut $crate::doc::json::JsonWriter) {
                match key {
                    $( $key => if let Some(value) = &self.$field {
                        $crate::doc::convert::ToJson::write_json(value, w)
                    }, )*
                    _ => {}
                }
            }

            fn key_order(&self) -> &$crate::doc::object::KeyOrder {
                &self.keys
            }

            fn key_order_mut(&mut self) -> &mut $crate::doc::object::KeyOrder {
                &mut self.keys
            }
        }

        impl $crate::doc::convert::ToJson for $name {
            fn write_json(&self, w: &mut $crate::doc::json::JsonWriter) {
                $crate::doc::object::write_typed_object(self, w)
            }
        }

        impl $crate::doc::vars::VisitVars for $name {
            fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn $crate::doc::vars::VarSlot)) {
                $( $crate::doc::vars::VisitVars::visit_vars(&mut self.$field, visit); )*
                let _ = visit;
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident as $what:literal {
            tag: $tag:expr,
            $( $(#[$fmeta:meta])* $key:literal => $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $crate::doc::object::typed_object! {
            $(#[$meta])*
            pub struct $name as $what {
                tag: $tag,
                read: custom,
                $( $(#[$fmeta])* $key => $field: $ty, )*
            }
        }

        impl $crate::doc::convert::FromJson for $name {
            fn expected() -> std::borrow::Cow<'static, str> {
                $what.into()
            }

            fn from_json(
                json: $crate::doc::json::Json,
                cx: &mut $crate::doc::convert::ReadContext,
            ) -> Result<Self, $crate::doc::error::ValueError> {
                let (_, members) = $crate::doc::convert::expect_object::<Self>(json)?;
                $crate::doc::object::read_members(members, cx)
            }
        }
    };
}

pub(crate) use typed_object;

#[cfg(test)]
mod tests {
    use crate::doc::convert::VarOr;
    use crate::doc::convert::testing::*;

    typed_object! {
        /// A test object.
        pub struct Sample as "a sample" {
            tag: Some("sample"),
            "a" => a: VarOr<f64>,
            "b" => b: String,
        }
    }

    #[test]
    fn unchanged_objects_write_back_in_their_order_with_unknown_keys() {
        assert_round_trip::<Sample>(
            "{\n  \"b\": \"x\",\n  \"extra\": [\n    1\n  ],\n  \"type\": \"sample\",\n  \"a\": 1\n}",
        );
    }

    #[test]
    fn new_fields_follow_recorded_ones_and_tags_lead_new_objects() {
        let mut s: Sample = read("{\"b\": \"x\", \"type\": \"sample\"}").unwrap();
        s.a = Some(VarOr::Value(2.0));
        assert_eq!(write(&s), "{\n  \"b\": \"x\",\n  \"type\": \"sample\",\n  \"a\": 2\n}");
        let fresh = Sample { a: Some(VarOr::Value(1.0)), ..Sample::default() };
        assert_eq!(write(&fresh), "{\n  \"type\": \"sample\",\n  \"a\": 1\n}");
    }

    #[test]
    fn removed_fields_disappear() {
        let mut s: Sample = read("{\"type\": \"sample\", \"a\": 1, \"b\": \"x\"}").unwrap();
        s.a = None;
        assert_eq!(write(&s), "{\n  \"type\": \"sample\",\n  \"b\": \"x\"\n}");
    }

    #[test]
    fn field_errors_propagate() {
        assert!(read::<Sample>("{\"a\": true}").is_err());
        assert!(read::<Sample>("[]").is_err());
    }
}
