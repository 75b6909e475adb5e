//! What one line of stdin is in JSON-RPC 2.0, and the answer the specification asks for when it
//! is not a message the MCP service can take: -32700 for text that is not JSON, -32600 for JSON
//! that is not a valid request object (too long, too deep, members of the wrong type, an empty
//! batch), -32602 for positional params. Notifications and responses are never answered, as the
//! specification asks; an object too broken to be either is answered with `id: null`. A batch is
//! framed member by member; whether the session takes batches at all is for [`super::batch`].

use rmcp::model::{ClientJsonRpcMessage, ErrorCode, RequestId};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::error::Category;

use super::envelope::{Envelope, Member, describe};
use super::lines::{Line, MAX_MESSAGE_BYTES};
use super::shallow;

/// Deepest nesting of arrays and objects a message may have. serde_json gives up at 128 levels
/// (its guard against overflowing the stack) with an error that reads like a syntax error;
/// refusing below that, here, lets the answer say what is wrong and keeps rmcp's typed parsing
/// and the tools far from the guard. A tools/call uses three levels (message, params,
/// arguments) and no tool's arguments nest more than five more.
pub const MAX_NESTING: usize = 100;

/// What a line of input is.
#[derive(Debug)]
pub enum Framed {
    /// A message for the MCP service.
    Message(Box<ClientJsonRpcMessage>),
    /// Not a message the service can take. `reply_to` is the id to answer (`Value::Null` when
    /// it cannot be read), or `None` when the line must not be answered (a notification or a
    /// response).
    Refused {
        /// What is wrong.
        error: FramingError,
        /// Whom to answer.
        reply_to: Option<Value>,
    },
    /// A JSON array of messages, each framed on its own.
    Batch(Vec<Framed>),
    /// An empty line: nothing to do.
    Blank,
}

/// Why a line is not a message the MCP service can take.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FramingError {
    /// The line is not JSON.
    #[error("Parse error: the line is not JSON: {detail}")]
    NotJson {
        /// The parser's message, with the column.
        detail: String,
    },
    /// The line is longer than [`MAX_MESSAGE_BYTES`]; it was skipped unread.
    #[error(
        "Invalid Request: request too large: {bytes} bytes, more than the {MAX_MESSAGE_BYTES} a message may have; it was skipped"
    )]
    TooLarge {
        /// Length of the line.
        bytes: u64,
    },
    /// Arrays and objects nest deeper than [`MAX_NESTING`].
    #[error("Invalid Request: arrays and objects nest more than {MAX_NESTING} levels deep (at byte {offset})")]
    TooDeep {
        /// Where the level beyond the limit opens.
        offset: usize,
    },
    /// JSON that is neither an object nor an array.
    #[error("Invalid Request: a message is a JSON object, not {found}")]
    NotAnObject {
        /// What was sent instead.
        found: String,
    },
    /// `[]`.
    #[error("Invalid Request: an empty batch")]
    EmptyBatch,
    /// A non-empty array of messages, in a session whose protocol version has no batches.
    #[error(
        "Invalid Request: batches (JSON arrays of messages) are only taken in sessions on protocol version 2025-03-26"
    )]
    Batch,
    /// A request in a batch whose id another request still waiting for its answer has.
    #[error("Invalid Request: the id {id} is already used by another request waiting for its answer")]
    IdInUse {
        /// The id.
        id: String,
    },
    /// `jsonrpc` is missing or not "2.0".
    #[error("Invalid Request: \"jsonrpc\" must be \"2.0\", not {found}")]
    Version {
        /// What was sent instead.
        found: String,
    },
    /// `method` is missing or not a string.
    #[error("Invalid Request: \"method\" must be a string, not {found}")]
    Method {
        /// What was sent instead.
        found: String,
    },
    /// `id` is neither a string nor an integer.
    #[error("Invalid Request: \"id\" must be a string or an integer, not {found}")]
    Id {
        /// What was sent instead.
        found: String,
    },
    /// `params` is neither an object nor an array.
    #[error("Invalid Request: \"params\" must be an object, not {found}")]
    Params {
        /// What was sent instead.
        found: String,
    },
    /// A request that also carries `result` or `error`.
    #[error("Invalid Request: a message with a \"method\" cannot also carry \"result\" or \"error\"")]
    MethodWithResult,
    /// `params` is an array: valid JSON-RPC, but every MCP method takes named params.
    #[error("Invalid params: MCP methods take named params (an object), not an array")]
    PositionalParams,
    /// A valid JSON-RPC request that is not a valid MCP message.
    #[error("Invalid Request: not an MCP message: {detail}")]
    NotMcp {
        /// The MCP parser's message.
        detail: String,
    },
}

impl FramingError {
    /// The JSON-RPC error code of the answer.
    pub fn code(&self) -> ErrorCode {
        match self {
            FramingError::NotJson { .. } => ErrorCode::PARSE_ERROR,
            FramingError::PositionalParams => ErrorCode::INVALID_PARAMS,
            _ => ErrorCode::INVALID_REQUEST,
        }
    }

    /// What the client can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            FramingError::NotJson { .. } => {
                "send one JSON-RPC message per line, as UTF-8 JSON with no raw newline inside it"
            }
            FramingError::TooLarge { .. } => {
                "send less in one call: split batch_design operations over several calls, or ask for less"
            }
            FramingError::TooDeep { .. } => {
                "no tool takes arguments nested this deep; check how the arguments are built"
            }
            FramingError::NotAnObject { .. } | FramingError::Method { .. } | FramingError::MethodWithResult => {
                "a request is {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {...}}"
            }
            FramingError::EmptyBatch | FramingError::Batch => "send each message on its own line",
            FramingError::IdInUse { .. } => "give every request its own id",
            FramingError::Version { .. } => "every message carries \"jsonrpc\": \"2.0\"",
            FramingError::Id { .. } => {
                "MCP request ids are strings or integers, never null; leave the id out only for a notification"
            }
            FramingError::Params { .. } | FramingError::PositionalParams => {
                "params are an object of named values, e.g. {\"name\": \"get_editor_state\", \"arguments\": {}}"
            }
            FramingError::NotMcp { .. } => "check the request against the MCP schema of its method",
        }
    }

    /// The JSON-RPC error response to the request with id `id`.
    pub fn answer(&self, id: Value) -> Answer {
        Answer {
            jsonrpc: "2.0",
            id,
            error: AnswerError {
                code: self.code().0,
                message: self.to_string(),
                data: AnswerData { hint: self.hint() },
            },
        }
    }
}

/// A JSON-RPC error response, its members in the order clients print them.
#[derive(Debug, Serialize)]
pub struct Answer {
    jsonrpc: &'static str,
    /// `null` when the request's id could not be read, as JSON-RPC 2.0 asks.
    id: Value,
    error: AnswerError,
}

#[derive(Debug, Serialize)]
struct AnswerError {
    code: i32,
    message: String,
    data: AnswerData,
}

#[derive(Debug, Serialize)]
struct AnswerData {
    hint: &'static str,
}

/// What `line` is.
pub fn frame(line: Line) -> Framed {
    match line {
        Line::TooLong { start, bytes } => {
            // Skipped unread, so whether it was a notification is unknown: it is answered, with
            // its id when the id came first.
            let top = shallow::top_level(without_bom(&start));
            let id = top.id.filter(is_request_id).unwrap_or(Value::Null);
            refused(FramingError::TooLarge { bytes }, Some(id))
        }
        Line::Whole(text) => frame_text(&text),
    }
}

fn frame_text(text: &[u8]) -> Framed {
    let text = without_bom(text).trim_ascii();
    if text.is_empty() {
        return Framed::Blank;
    }
    if let Some(offset) = shallow::nesting_beyond(text, MAX_NESTING) {
        // Skipping values is not recursive, so this checks the syntax at any depth.
        if let Err(error) = serde_json::from_slice::<IgnoredAny>(text) {
            return refused(FramingError::NotJson { detail: error.to_string() }, Some(Value::Null));
        }
        let top = shallow::top_level(text);
        let reply_to = match (top.has_id, top.has_method) {
            (true, _) => Some(top.id.filter(is_request_id).unwrap_or(Value::Null)),
            (false, true) => None,
            (false, false) => Some(Value::Null),
        };
        return refused(FramingError::TooDeep { offset }, reply_to);
    }
    if text[0] == b'{' {
        // The common case, read straight from the text: the envelope is skimmed, and the
        // message is built once, by rmcp.
        return match serde_json::from_slice::<Envelope>(text) {
            Ok(envelope) => frame_object(envelope, || serde_json::from_slice(text)),
            Err(error) => unreadable(error),
        };
    }
    match serde_json::from_slice::<Value>(text) {
        Err(error) => refused(FramingError::NotJson { detail: error.to_string() }, Some(Value::Null)),
        Ok(Value::Array(items)) if items.is_empty() => refused(FramingError::EmptyBatch, Some(Value::Null)),
        Ok(Value::Array(members)) => Framed::Batch(members.into_iter().map(frame_member).collect()),
        Ok(other) => frame_member(other),
    }
}

/// A message in a batch, or a top-level value that is not an object.
fn frame_member(message: Value) -> Framed {
    if !message.is_object() {
        let found = match message {
            Value::Array(_) => "an array".to_owned(),
            scalar => describe(Some(&Member::Scalar(scalar))),
        };
        return refused(FramingError::NotAnObject { found }, Some(Value::Null));
    }
    match Envelope::deserialize(&message) {
        Ok(envelope) => frame_object(envelope, || ClientJsonRpcMessage::deserialize(message)),
        Err(error) => unreadable(error),
    }
}

/// An object whose envelope could not be read: not JSON, or JSON with a member twice.
fn unreadable(error: serde_json::Error) -> Framed {
    let error = match error.classify() {
        Category::Syntax | Category::Eof => FramingError::NotJson { detail: error.to_string() },
        Category::Data | Category::Io => FramingError::NotMcp { detail: error.to_string() },
    };
    refused(error, Some(Value::Null))
}

/// An object whose envelope is `envelope`; `message` reads it as an MCP message.
fn frame_object(
    envelope: Envelope,
    message: impl FnOnce() -> Result<ClientJsonRpcMessage, serde_json::Error>,
) -> Framed {
    if envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some()) {
        return frame_response(&envelope, message);
    }
    if let Some(error) = envelope_error(&envelope) {
        // An id of the wrong type cannot be echoed as an id: such a request is answered with null.
        let id = envelope.id.as_ref().and_then(Member::scalar).filter(|id| is_request_id(id));
        return refused(error, Some(id.cloned().unwrap_or(Value::Null)));
    }
    // From here on the object is a valid request; without an id it is a notification, which is
    // never answered, even when its method or params are wrong.
    let reply_to = envelope.id.as_ref().and_then(Member::scalar).cloned();
    if envelope.params == Some(Member::Array) {
        return refused(FramingError::PositionalParams, reply_to);
    }
    match message() {
        Ok(message) => Framed::Message(Box::new(message)),
        Err(error) => refused(FramingError::NotMcp { detail: error.to_string() }, reply_to),
    }
}

/// A response from the client (to a request nib sent): passed on when it is well formed,
/// dropped otherwise; never answered.
fn frame_response(
    envelope: &Envelope,
    message: impl FnOnce() -> Result<ClientJsonRpcMessage, serde_json::Error>,
) -> Framed {
    if let Some(error) = version_error(envelope) {
        return refused(error, None);
    }
    match message() {
        Ok(message) => Framed::Message(Box::new(message)),
        Err(error) => refused(FramingError::NotMcp { detail: error.to_string() }, None),
    }
}

/// What makes `envelope` not that of a valid JSON-RPC 2.0 request object, if anything.
fn envelope_error(envelope: &Envelope) -> Option<FramingError> {
    if let Some(error) = version_error(envelope) {
        return Some(error);
    }
    if envelope.method.as_ref().and_then(Member::as_str).is_none() {
        return Some(FramingError::Method { found: describe(envelope.method.as_ref()) });
    }
    if let Some(id) = &envelope.id
        && !id.scalar().is_some_and(is_request_id)
    {
        return Some(FramingError::Id { found: describe(Some(id)) });
    }
    if let Some(params @ Member::Scalar(_)) = &envelope.params {
        return Some(FramingError::Params { found: describe(Some(params)) });
    }
    if envelope.result.is_some() || envelope.error.is_some() {
        return Some(FramingError::MethodWithResult);
    }
    None
}

fn version_error(envelope: &Envelope) -> Option<FramingError> {
    match envelope.jsonrpc.as_ref().and_then(Member::as_str) {
        Some("2.0") => None,
        _ => Some(FramingError::Version { found: describe(envelope.jsonrpc.as_ref()) }),
    }
}

/// Whether `id` is an id MCP allows (a string or an integer; rmcp decides).
fn is_request_id(id: &Value) -> bool {
    RequestId::deserialize(id).is_ok()
}

fn without_bom(text: &[u8]) -> &[u8] {
    text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text)
}

fn refused(error: FramingError, reply_to: Option<Value>) -> Framed {
    Framed::Refused { error, reply_to }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn framed(text: &str) -> Framed {
        frame(Line::Whole(text.as_bytes().to_vec()))
    }

    /// The error code and id of the answer `text` gets, or None when it is not answered.
    fn answer(text: &str) -> Option<(i32, Value)> {
        match framed(text) {
            Framed::Refused { error, reply_to } => reply_to.map(|id| (error.code().0, id)),
            Framed::Message(message) => panic!("{text} was taken as {message:?}"),
            Framed::Blank => panic!("{text} was taken as blank"),
            Framed::Batch(_) => panic!("{text} was taken as a batch"),
        }
    }

    #[test]
    fn valid_messages_pass() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\r",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{"a":[1]}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":"no/such/method","params":{"a":1}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ] {
            assert!(matches!(framed(text), Framed::Message(_)), "{text}");
        }
        assert!(matches!(framed("  \t"), Framed::Blank));
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error_with_a_null_id() {
        assert_eq!(answer("this is not JSON"), Some((-32700, Value::Null)));
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":1,"method":"ping""#), Some((-32700, Value::Null)));
        let Framed::Refused { error, .. } = framed("{\"id\": tru}") else { panic!() };
        assert!(error.to_string().contains("column"), "{error}");
    }

    #[test]
    fn invalid_request_objects_are_answered_with_their_id_when_it_can_be_read() {
        assert_eq!(
            answer(r#"{"jsonrpc":"2.0","id":10,"method":"tools/list","params":"x"}"#),
            Some((-32600, json!(10)))
        );
        assert_eq!(answer(r#"{"jsonrpc":"1.0","id":"b","method":"tools/list"}"#), Some((-32600, json!("b"))));
        assert_eq!(answer(r#"{"id":11,"method":"tools/list"}"#), Some((-32600, json!(11))));
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":12,"method":5}"#), Some((-32600, json!(12))));
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":13}"#), Some((-32600, json!(13))));
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":14,"method":"ping","result":{}}"#), Some((-32600, json!(14))));
        for id in [r#"{"a":1}"#, "[1]", "null", "true", "1.5"] {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
            assert_eq!(answer(&text), Some((-32600, Value::Null)), "{text}");
        }
        for text in ["[]", "42", "\"text\"", "null", "{}"] {
            assert_eq!(answer(text), Some((-32600, Value::Null)), "{text}");
        }
        // Not a request object at all, so not a notification either: the JSON-RPC 2.0
        // specification's own example answers it with a null id.
        assert_eq!(answer(r#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#), Some((-32600, Value::Null)));
    }

    #[test]
    fn a_batch_is_framed_member_by_member() {
        let Framed::Batch(members) =
            framed(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, 7, {"jsonrpc":"2.0","id":2}]"#)
        else {
            panic!("a batch")
        };
        assert!(matches!(members[0], Framed::Message(_)));
        assert!(matches!(&members[1], Framed::Refused { reply_to: Some(Value::Null), .. }));
        assert!(matches!(&members[2], Framed::Refused { reply_to: Some(id), .. } if *id == json!(2)));
    }

    #[test]
    fn positional_params_are_invalid_params() {
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":22,"method":"tools/list","params":[]}"#), Some((-32602, json!(22))));
    }

    #[test]
    fn notifications_and_responses_are_never_answered() {
        for text in [
            r#"{"jsonrpc":"2.0","method":"tools/list","params":[1]}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}"#,
            r#"{"jsonrpc":"1.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":{},"error":{}}"#,
        ] {
            let answered = matches!(framed(text), Framed::Refused { reply_to: Some(_), .. } | Framed::Blank);
            assert!(!answered, "{text}");
        }
    }

    #[test]
    fn deep_nesting_is_answered_with_the_id_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let request = format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"get_editor_state","arguments":{{"a":{deep}}}}},"id":19}}"#
        );
        assert_eq!(answer(&request), Some((-32600, json!(19))));
        let Framed::Refused { error, .. } = framed(&request) else { panic!() };
        assert!(matches!(error, FramingError::TooDeep { .. }), "{error}");
        let notification = format!(r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":{deep}}}}}"#);
        assert_eq!(answer(&notification), None);
        assert_eq!(answer(&format!("{deep}]")), Some((-32700, Value::Null)), "deep and broken is a parse error");
        // Just within the limit is parsed as usual.
        let within = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
            "[".repeat(MAX_NESTING - 3),
            "]".repeat(MAX_NESTING - 3)
        );
        assert!(matches!(framed(&within), Framed::Message(_)));
    }

    #[test]
    fn a_line_too_long_is_answered_with_the_id_it_starts_with() {
        let answer_to = |start: &str| match frame(Line::TooLong { start: start.as_bytes().to_vec(), bytes: 20 << 20 }) {
            Framed::Refused { error: FramingError::TooLarge { bytes }, reply_to } => {
                assert_eq!(bytes, 20 << 20);
                reply_to
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(answer_to(r#"{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"na"#), Some(json!(24)));
        assert_eq!(answer_to(r#"{"jsonrpc":"2.0","method":"tools/call","params":{"na"#), Some(Value::Null));
        assert_eq!(answer_to("xxxxxxxxx"), Some(Value::Null));
    }

    #[test]
    fn answers_are_json_rpc_errors_with_a_hint() {
        let answer = serde_json::to_value(FramingError::Batch.answer(Value::Null)).unwrap();
        assert_eq!(answer["jsonrpc"], "2.0");
        assert!(answer.as_object().unwrap().contains_key("id") && answer["id"].is_null());
        assert_eq!(answer["error"]["code"], -32600);
        assert!(answer["error"]["data"]["hint"].as_str().is_some_and(|hint| !hint.is_empty()));
    }
}
