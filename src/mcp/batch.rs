//! JSON-RPC batches, for sessions on the one MCP version that has them (2025-03-26, which says
//! servers must accept them; 2025-06-18 took them out again). The members of a batch go to rmcp
//! one by one; their answers are held back and written together, as one array, when the last
//! one is ready. In every other session a batch is an invalid request.

use std::collections::{HashSet, VecDeque};

use rmcp::model::{
    ClientJsonRpcMessage, JsonRpcMessage, ProtocolVersion, RequestId, ServerJsonRpcMessage, ServerResult,
};
use serde::Serialize;
use serde_json::Value;

use super::framing::{Framed, FramingError};

/// The batches of one connection.
#[derive(Debug, Default)]
pub struct Batches {
    /// The session negotiated a protocol version with batches.
    allowed: bool,
    /// Batches with requests still waiting for their answers.
    open: Vec<OpenBatch>,
}

/// A batch whose answers are being gathered.
#[derive(Debug, Default)]
struct OpenBatch {
    waiting: HashSet<RequestId>,
    /// Every request of the batch handed to rmcp, so that the line can say whom it answers.
    requests: Vec<RequestId>,
    /// The answers so far, each as JSON text.
    answers: Vec<Vec<u8>>,
}

impl OpenBatch {
    fn answer(&mut self, answer: &impl Serialize) {
        match serde_json::to_vec(answer) {
            Ok(text) => self.answers.push(text),
            Err(error) => tracing::error!("an answer in a batch could not be written as JSON: {error}"),
        }
    }

    /// The answers as one line holding an array, or `None` when there are none: an empty
    /// array is never sent.
    fn into_line(self) -> Option<Gathered> {
        if self.answers.is_empty() {
            return None;
        }
        let mut line = b"[".to_vec();
        line.extend(self.answers.join(&b","[..]));
        line.extend_from_slice(b"]\n");
        Some(Gathered { line, requests: self.requests })
    }
}

/// A batch's answers, ready to write.
#[derive(Debug)]
pub struct Gathered {
    /// One line holding the array of answers.
    pub line: Vec<u8>,
    /// The batch's requests that rmcp was handed (answered here, or cancelled).
    pub requests: Vec<RequestId>,
}

/// What a batch turns into when it arrives.
#[derive(Debug, Default)]
pub struct Opened {
    /// Its messages, for rmcp, in order.
    pub messages: VecDeque<ClientJsonRpcMessage>,
    /// A line to write now: the whole answer when no member waits for rmcp, or the refusal of
    /// the whole batch.
    pub line_now: Option<Vec<u8>>,
}

/// What becomes of a message nib sends.
#[derive(Debug)]
pub enum Sending {
    /// Written as it is.
    Alone(Box<ServerJsonRpcMessage>),
    /// Held back: the answer to a member of a batch whose other answers are not ready.
    Held,
    /// The last answer of a batch: the line with all of the batch's answers.
    Completed(Gathered),
}

impl Batches {
    /// Takes a batch of framed members (not empty) from the client. A request whose id
    /// `in_use` says another request outside the batch still waits with is refused.
    pub fn open(&mut self, members: Vec<Framed>, in_use: impl Fn(&RequestId) -> bool) -> Opened {
        if !self.allowed {
            let mut refusal = OpenBatch::default();
            refusal.answer(&FramingError::Batch.answer(Value::Null));
            // One answer for the whole line, not an array.
            let line_now = refusal.answers.pop().map(|mut text| {
                text.push(b'\n');
                text
            });
            return Opened { messages: VecDeque::new(), line_now };
        }
        let mut batch = OpenBatch::default();
        let mut messages = VecDeque::new();
        for member in members {
            match member {
                Framed::Message(message) => {
                    if let JsonRpcMessage::Request(request) = message.as_ref() {
                        let in_use =
                            in_use(&request.id) || self.open.iter().any(|open| open.waiting.contains(&request.id));
                        if in_use || !batch.waiting.insert(request.id.clone()) {
                            // Its answer could not be told from the other request's.
                            let id = request.id.clone();
                            batch.answer(&FramingError::IdInUse { id: id.to_string() }.answer(id.into_json_value()));
                            continue;
                        }
                        batch.requests.push(request.id.clone());
                    }
                    messages.push_back(*message);
                }
                Framed::Refused { error, reply_to: Some(id) } => batch.answer(&error.answer(id)),
                // A member is never a batch itself: an array in a batch is refused as not an object.
                Framed::Refused { reply_to: None, .. } | Framed::Blank | Framed::Batch(_) => {}
            }
        }
        let line_now = if batch.waiting.is_empty() {
            // Only notifications and refusals: answered now, or not at all.
            batch.into_line().map(|gathered| gathered.line)
        } else {
            self.open.push(batch);
            None
        };
        Opened { messages, line_now }
    }

    /// Takes note that the client cancelled request `id`: rmcp sends no answer to a cancelled
    /// request, so its batch stops waiting for one. The batch's line when that completes it.
    pub fn cancelled(&mut self, id: &RequestId) -> Option<Gathered> {
        let at = self.open.iter().position(|open| open.waiting.contains(id))?;
        self.open[at].waiting.remove(id);
        if !self.open[at].waiting.is_empty() {
            return None;
        }
        self.open.swap_remove(at).into_line()
    }

    /// Sees a message nib sends: answers to batch members are gathered, and the answer to
    /// `initialize` says whether batches are allowed from now on.
    pub fn sending(&mut self, message: ServerJsonRpcMessage) -> Sending {
        let id = match &message {
            JsonRpcMessage::Response(response) => {
                if let ServerResult::InitializeResult(result) = &response.result {
                    self.allowed = result.protocol_version == ProtocolVersion::V_2025_03_26;
                }
                Some(&response.id)
            }
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        let Some(at) = id.and_then(|id| self.open.iter().position(|open| open.waiting.contains(id))) else {
            return Sending::Alone(Box::new(message));
        };
        let batch = &mut self.open[at];
        if let Some(id) = id {
            batch.waiting.remove(id);
        }
        batch.answer(&message);
        if !batch.waiting.is_empty() {
            return Sending::Held;
        }
        // The batch just got an answer, so its line is never empty.
        self.open.swap_remove(at).into_line().map_or(Sending::Held, Sending::Completed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::framing::frame;
    use crate::mcp::lines::Line;
    use rmcp::model::{EmptyResult, ErrorData, InitializeResult, ServerCapabilities};
    use serde_json::json;

    fn members(text: &str) -> Vec<Framed> {
        match frame(Line::Whole(text.as_bytes().to_vec())) {
            Framed::Batch(members) => members,
            other => panic!("{other:?}"),
        }
    }

    fn in_a_2025_03_26_session() -> Batches {
        let mut batches = Batches::default();
        let mut result = InitializeResult::new(ServerCapabilities::default());
        result.protocol_version = ProtocolVersion::V_2025_03_26;
        let response = ServerJsonRpcMessage::response(ServerResult::InitializeResult(result), RequestId::Number(0));
        assert!(matches!(batches.sending(response), Sending::Alone(_)));
        batches
    }

    /// A written line as JSON, checking it is one line.
    fn parsed(line: &[u8]) -> Value {
        assert_eq!(line.iter().filter(|&&byte| byte == b'\n').count(), 1);
        assert_eq!(line.last(), Some(&b'\n'));
        serde_json::from_slice(line).unwrap()
    }

    fn empty_answer(id: i64) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::response(ServerResult::EmptyResult(EmptyResult {}), RequestId::Number(id))
    }

    #[test]
    fn outside_2025_03_26_a_batch_is_an_invalid_request() {
        let opened = Batches::default().open(members(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#), |_| false);
        assert!(opened.messages.is_empty());
        let answer = parsed(&opened.line_now.unwrap());
        assert_eq!((answer["error"]["code"].clone(), answer["id"].clone()), (json!(-32600), Value::Null));
    }

    #[test]
    fn answers_are_gathered_into_one_array_when_the_last_is_ready() {
        let mut batches = in_a_2025_03_26_session();
        let opened = batches.open(
            members(
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},
                {"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":5},7,
                {"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            ),
            |_| false,
        );
        assert_eq!(opened.messages.len(), 3, "two requests and the notification go on");
        assert!(opened.line_now.is_none());
        assert!(matches!(batches.sending(empty_answer(2)), Sending::Held));
        let unrelated = ServerJsonRpcMessage::error(ErrorData::internal_error("x", None), Some(RequestId::Number(9)));
        assert!(matches!(batches.sending(unrelated), Sending::Alone(_)));
        let Sending::Completed(gathered) = batches.sending(empty_answer(1)) else { panic!("the batch is complete") };
        assert_eq!(gathered.requests, [RequestId::Number(1), RequestId::Number(2)], "whom the line answers");
        let answers = parsed(&gathered.line).as_array().cloned().unwrap();
        let ids: Vec<Value> = answers.iter().map(|answer| answer["id"].clone()).collect();
        // The refusals come first (the bad member, the non-object, the repeated id), then rmcp's.
        assert_eq!(ids, [json!(3), Value::Null, json!(1), json!(2), json!(1)]);
        assert_eq!(answers[2]["error"]["code"], -32600);
        assert!(batches.open.is_empty());
    }

    #[test]
    fn a_cancelled_member_is_not_waited_for() {
        let mut batches = in_a_2025_03_26_session();
        batches.open(
            members(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#),
            |_| false,
        );
        assert!(matches!(batches.sending(empty_answer(1)), Sending::Held));
        let gathered = batches.cancelled(&RequestId::Number(2)).expect("the batch is complete");
        assert_eq!(parsed(&gathered.line).as_array().map(Vec::len), Some(1));
        assert_eq!(gathered.requests.len(), 2);
        assert!(batches.cancelled(&RequestId::Number(2)).is_none());
        assert!(matches!(batches.sending(empty_answer(2)), Sending::Alone(_)));
    }

    #[test]
    fn an_id_a_request_outside_the_batch_waits_with_is_refused() {
        let mut batches = in_a_2025_03_26_session();
        let opened = batches.open(
            members(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#),
            |id| *id == RequestId::Number(1),
        );
        assert_eq!(opened.messages.len(), 1, "only 2 goes on");
        let Sending::Completed(gathered) = batches.sending(empty_answer(2)) else { panic!("the batch is complete") };
        let answers = parsed(&gathered.line);
        assert_eq!((answers[0]["id"].clone(), answers[0]["error"]["code"].clone()), (json!(1), json!(-32600)));
        assert_eq!(gathered.requests, [RequestId::Number(2)]);
    }

    #[test]
    fn a_batch_of_notifications_gets_no_answer() {
        let mut batches = in_a_2025_03_26_session();
        let opened = batches.open(
            members(r#"[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":4,"result":{}}]"#),
            |_| false,
        );
        assert_eq!(opened.messages.len(), 2);
        assert!(opened.line_now.is_none());
        let refused = batches.open(members(r#"[1,{"jsonrpc":"2.0","method":"notifications/x"}]"#), |_| false);
        assert_eq!(parsed(&refused.line_now.unwrap()).as_array().map(Vec::len), Some(1));
    }
}
