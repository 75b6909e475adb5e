//! JSON-RPC batches, for sessions on the one MCP version that has them (2025-03-26, which says
//! servers must accept them; 2025-06-18 took them out again). The members of a batch go to rmcp
//! one by one; their answers are held back and written together, as one array, when the last
//! one is ready. In every other session a batch is an invalid request.

use std::collections::{HashSet, VecDeque};

use rmcp::model::{
    ClientJsonRpcMessage, JsonRpcMessage, ProtocolVersion, RequestId, ServerJsonRpcMessage, ServerResult,
};
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
#[derive(Debug)]
struct OpenBatch {
    waiting: HashSet<RequestId>,
    answers: Vec<Value>,
}

/// What a batch turns into when it arrives.
#[derive(Debug, Default)]
pub struct Opened {
    /// Its messages, for rmcp, in order.
    pub messages: VecDeque<ClientJsonRpcMessage>,
    /// Answers to write now: the whole answer when no member waits for rmcp, or the refusal
    /// of the whole batch. `None` when there is nothing to write now.
    pub answer_now: Option<Value>,
}

/// What becomes of a message nib sends.
#[derive(Debug)]
pub enum Sending {
    /// Written as it is.
    Alone(Box<ServerJsonRpcMessage>),
    /// Held back: the answer to a member of a batch whose other answers are not ready.
    Held,
    /// The last answer of a batch: the batch's answers, to be written as one array.
    Completed(Vec<Value>),
}

impl Batches {
    /// Takes a batch of framed members (not empty) from the client.
    pub fn open(&mut self, members: Vec<Framed>) -> Opened {
        if !self.allowed {
            let refusal = FramingError::Batch.answer(Value::Null);
            return Opened { messages: VecDeque::new(), answer_now: serde_json::to_value(refusal).ok() };
        }
        let mut batch = OpenBatch { waiting: HashSet::new(), answers: Vec::new() };
        let mut messages = VecDeque::new();
        for member in members {
            match member {
                Framed::Message(message) => {
                    if let JsonRpcMessage::Request(request) = message.as_ref() {
                        let in_use = self.open.iter().any(|open| open.waiting.contains(&request.id));
                        if in_use || !batch.waiting.insert(request.id.clone()) {
                            // Its answer could not be told from the other request's.
                            let refusal = FramingError::IdInUse { id: request.id.to_string() }
                                .answer(request.id.clone().into_json_value());
                            batch.answers.extend(serde_json::to_value(refusal));
                            continue;
                        }
                    }
                    messages.push_back(*message);
                }
                Framed::Refused { error, reply_to: Some(id) } => {
                    batch.answers.extend(serde_json::to_value(error.answer(id)));
                }
                // A member is never a batch itself: an array in a batch is refused as not an object.
                Framed::Refused { reply_to: None, .. } | Framed::Blank | Framed::Batch(_) => {}
            }
        }
        let answer_now = if batch.waiting.is_empty() {
            // Only notifications and refusals: answered now, or not at all when nothing in it
            // gets an answer (an empty array is never sent).
            (!batch.answers.is_empty()).then_some(Value::Array(batch.answers))
        } else {
            self.open.push(batch);
            None
        };
        Opened { messages, answer_now }
    }

    /// Takes note that the client cancelled request `id`: rmcp sends no answer to a cancelled
    /// request, so its batch stops waiting for one. The batch's answers when that completes it.
    pub fn cancelled(&mut self, id: &RequestId) -> Option<Vec<Value>> {
        let at = self.open.iter().position(|open| open.waiting.contains(id))?;
        self.open[at].waiting.remove(id);
        if !self.open[at].waiting.is_empty() {
            return None;
        }
        let answers = self.open.swap_remove(at).answers;
        (!answers.is_empty()).then_some(answers)
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
        match serde_json::to_value(&message) {
            Ok(answer) => batch.answers.push(answer),
            Err(error) => tracing::error!("an answer in a batch could not be written as JSON: {error}"),
        }
        if batch.waiting.is_empty() { Sending::Completed(self.open.swap_remove(at).answers) } else { Sending::Held }
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

    fn empty_answer(id: i64) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::response(ServerResult::EmptyResult(EmptyResult {}), RequestId::Number(id))
    }

    #[test]
    fn outside_2025_03_26_a_batch_is_an_invalid_request() {
        let opened = Batches::default().open(members(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#));
        assert!(opened.messages.is_empty());
        let answer = opened.answer_now.unwrap();
        assert_eq!((answer["error"]["code"].clone(), answer["id"].clone()), (json!(-32600), Value::Null));
    }

    #[test]
    fn answers_are_gathered_into_one_array_when_the_last_is_ready() {
        let mut batches = in_a_2025_03_26_session();
        let opened = batches.open(members(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},
                {"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":5},7,
                {"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        ));
        assert_eq!(opened.messages.len(), 3, "two requests and the notification go on");
        assert!(opened.answer_now.is_none());
        assert!(matches!(batches.sending(empty_answer(2)), Sending::Held));
        let unrelated = ServerJsonRpcMessage::error(ErrorData::internal_error("x", None), Some(RequestId::Number(9)));
        assert!(matches!(batches.sending(unrelated), Sending::Alone(_)));
        let Sending::Completed(answers) = batches.sending(empty_answer(1)) else { panic!("the batch is complete") };
        let ids: Vec<Value> = answers.iter().map(|answer| answer["id"].clone()).collect();
        // The refusals come first (the bad member, the non-object, the repeated id), then rmcp's.
        assert_eq!(ids, [json!(3), Value::Null, json!(1), json!(2), json!(1)]);
        assert_eq!(answers[2]["error"]["code"], -32600);
        assert!(batches.open.is_empty());
    }

    #[test]
    fn a_cancelled_member_is_not_waited_for() {
        let mut batches = in_a_2025_03_26_session();
        batches.open(members(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#));
        assert!(matches!(batches.sending(empty_answer(1)), Sending::Held));
        let answers = batches.cancelled(&RequestId::Number(2)).expect("the batch is complete");
        assert_eq!(answers.len(), 1);
        assert!(batches.cancelled(&RequestId::Number(2)).is_none());
        assert!(matches!(batches.sending(empty_answer(2)), Sending::Alone(_)));
    }

    #[test]
    fn a_batch_of_notifications_gets_no_answer() {
        let mut batches = in_a_2025_03_26_session();
        let opened = batches
            .open(members(r#"[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":4,"result":{}}]"#));
        assert_eq!(opened.messages.len(), 2);
        assert!(opened.answer_now.is_none());
        let refused = batches.open(members(r#"[1,{"jsonrpc":"2.0","method":"notifications/x"}]"#));
        assert_eq!(refused.answer_now.unwrap().as_array().unwrap().len(), 1);
    }
}
