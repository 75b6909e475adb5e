//! stdin and stdout for the MCP service. One thread reads stdin a line at a time and frames it
//! ([`framing`]): messages go on to rmcp, refused lines are answered here. One thread writes
//! every answer, rmcp's and the framing's, a whole line at a time, so lines never interleave.
//! Both outlive an rmcp session, so a failed handshake can be followed by another one. Batches
//! are split here and their answers gathered ([`batch`](super::batch)). Requests are taken from
//! stdin only while few answers wait to be written ([`backlog`](super::backlog)), so a client
//! that stops reading makes nib stop reading too, instead of keeping every answer.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex as StdMutex, MutexGuard};
use std::thread::JoinHandle;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Serialize;
use tokio::sync::{Mutex, mpsc};

use super::backlog::{Backlog, MAX_UNWRITTEN_ANSWERS, Ticket};
use super::batch::{Batches, Gathered, Sending};
use super::framing::{self, Framed, FramingError};
use super::lines::{LineReader, MAX_MESSAGE_BYTES};
use super::outgoing;

/// Lines read ahead of rmcp. Few: a line may be 16 MiB, and when rmcp is busy the reader should
/// wait rather than fill memory.
const INCOMING_QUEUE: usize = 4;

/// Lines waiting for stdout. When the client stops reading, the server waits here instead of
/// piling up answers (and stops reading stdin once [`MAX_UNWRITTEN_ANSWERS`] requests wait).
const OUTGOING_QUEUE: usize = 64;

/// Bytes read from stdin at once: a long line arrives in a few hundred reads, not thousands.
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// What the reader hands on.
enum Incoming {
    /// A message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// A batch, framed member by member.
    Batch(Vec<Framed>),
    /// An answer of the framing layer, a whole line ready for stdout.
    Answer(Vec<u8>),
}

/// A line for stdout, with the tickets of the requests it answers: they are given back once it
/// is written.
struct Outgoing {
    line: Vec<u8>,
    _answers: Vec<Ticket>,
}

impl Outgoing {
    /// A line that answers no request handed to rmcp (a refusal of the framing).
    fn alone(line: Vec<u8>) -> Outgoing {
        Outgoing { line, _answers: Vec::new() }
    }
}

/// The read side shared by successive sessions.
struct Inbox {
    incoming: mpsc::Receiver<Incoming>,
    /// An answer taken from `incoming` (or completed by a cancellation) but not yet handed to
    /// the writer.
    unsent: Option<Outgoing>,
    /// Members of a batch not yet handed to rmcp.
    queued: VecDeque<ClientJsonRpcMessage>,
    /// stdin has ended and everything read from it was handed on.
    ended: bool,
}

/// Framed stdin and serialised stdout.
pub struct Stdio {
    inbox: Arc<Mutex<Inbox>>,
    batches: Arc<StdMutex<Batches>>,
    backlog: Arc<Backlog>,
    outgoing: mpsc::Sender<Outgoing>,
    writer: JoinHandle<io::Result<()>>,
}

impl Stdio {
    /// Starts reading the process's stdin and writing its stdout.
    pub fn start() -> io::Result<Stdio> {
        Stdio::over(io::stdin(), io::stdout())
    }

    /// Starts reading `input` and writing `output`, each on its own thread.
    pub fn over(input: impl Read + Send + 'static, output: impl Write + Send + 'static) -> io::Result<Stdio> {
        Stdio::over_with(input, output, MAX_UNWRITTEN_ANSWERS)
    }

    /// [`Stdio::over`] taking no more requests while `unwritten` wait for their answers.
    fn over_with(
        input: impl Read + Send + 'static,
        output: impl Write + Send + 'static,
        unwritten: usize,
    ) -> io::Result<Stdio> {
        let (to_inbox, incoming) = mpsc::channel(INCOMING_QUEUE);
        let (outgoing, to_write) = mpsc::channel(OUTGOING_QUEUE);
        // The reader is never joined: it may sit in a read of stdin when the session ends.
        std::thread::Builder::new()
            .name("nib-mcp-stdin".into())
            .spawn(move || read_lines(BufReader::with_capacity(READ_BUFFER_BYTES, input), to_inbox))?;
        let writer =
            std::thread::Builder::new().name("nib-mcp-stdout".into()).spawn(move || write_lines(to_write, output))?;
        let inbox = Inbox { incoming, unsent: None, queued: VecDeque::new(), ended: false };
        let backlog = Arc::new(Backlog::new(unwritten));
        Ok(Stdio { inbox: Arc::new(Mutex::new(inbox)), batches: Arc::default(), backlog, outgoing, writer })
    }

    /// A transport for one rmcp session.
    pub fn transport(&self) -> StdioTransport {
        // A session that failed its handshake answers nothing more.
        self.backlog.forget_all();
        StdioTransport {
            inbox: self.inbox.clone(),
            batches: self.batches.clone(),
            backlog: self.backlog.clone(),
            outgoing: self.outgoing.clone(),
        }
    }

    /// Whether stdin has ended or stdout is closed: no session can follow.
    pub async fn ended(&self) -> bool {
        self.outgoing.is_closed() || self.inbox.lock().await.ended
    }

    /// Waits until everything sent has been written. Call it once every transport is dropped
    /// (the runtime that ran the sessions is shut down), or it waits for them.
    pub fn finish(self) {
        drop(self.outgoing);
        match self.writer.join() {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!("writing to stdout failed: {error}"),
            Err(_) => tracing::error!("the stdout writer panicked"),
        }
    }
}

/// One session's view of [`Stdio`].
pub struct StdioTransport {
    inbox: Arc<Mutex<Inbox>>,
    batches: Arc<StdMutex<Batches>>,
    backlog: Arc<Backlog>,
    outgoing: mpsc::Sender<Outgoing>,
}

impl StdioTransport {
    fn batches(&self) -> MutexGuard<'_, Batches> {
        self.batches.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes note of `message` if it is a cancellation (rmcp will not answer the request), and
    /// answers the batch it completes, as a line to write.
    fn on_cancel(&self, message: &ClientJsonRpcMessage) -> Option<Outgoing> {
        let JsonRpcMessage::Notification(notification) = message else { return None };
        let ClientNotification::CancelledNotification(cancelled) = &notification.notification else { return None };
        let id = cancelled.params.request_id.as_ref()?;
        self.backlog.cancelled(id);
        let gathered = self.batches().cancelled(id)?;
        Some(self.gathered(gathered))
    }

    /// A batch's line, with the tickets of its requests.
    fn gathered(&self, gathered: Gathered) -> Outgoing {
        Outgoing { line: gathered.line, _answers: self.backlog.answered(&gathered.requests) }
    }

    /// `message` handed to rmcp: a request takes a ticket; a request whose id another one still
    /// waits with is answered here instead, since the two answers could not be told apart.
    fn hand_on(&self, message: ClientJsonRpcMessage) -> Result<ClientJsonRpcMessage, Outgoing> {
        if let JsonRpcMessage::Request(request) = &message {
            if self.backlog.in_use(&request.id) {
                let id = request.id.clone();
                tracing::warn!(%id, "a request reuses the id of one still waiting for its answer");
                let refusal = FramingError::IdInUse { id: id.to_string() }.answer(id.into_json_value());
                return Err(Outgoing::alone(encode(&refusal).unwrap_or_default()));
            }
            self.backlog.take(request.id.clone());
        }
        Ok(message)
    }
}

/// The id of the request `message` answers, if it is an answer.
fn answered_id(message: &ServerJsonRpcMessage) -> Option<&RequestId> {
    match message {
        JsonRpcMessage::Response(response) => Some(&response.id),
        JsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    }
}

impl Transport<RoleServer> for StdioTransport {
    type Error = io::Error;

    fn send(&mut self, item: ServerJsonRpcMessage) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        let id = answered_id(&item).cloned();
        let sending = self.batches().sending(item);
        let line = match sending {
            Sending::Alone(message) => {
                let answers = self.backlog.answered(id.as_ref());
                outgoing::to_json(*message)
                    .map(|json| Some(Outgoing { line: as_line(json), _answers: answers }))
                    .map_err(io::Error::from)
            }
            // Its ticket stays with the batch's other requests until their line is written.
            Sending::Held => Ok(None),
            Sending::Completed(gathered) => Ok(Some(self.gathered(gathered))),
        };
        async move {
            let Some(line) = line? else { return Ok(()) };
            outgoing.send(line).await.map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        // rmcp polls this in a select! and may drop it at any await: nothing taken from the
        // queue is lost, since an answer stays in `unsent` until the writer has room for it,
        // and nothing is taken while the backlog is full.
        let mut inbox = self.inbox.lock().await;
        loop {
            if inbox.unsent.is_some() {
                let permit = self.outgoing.reserve().await.ok()?;
                if let Some(line) = inbox.unsent.take() {
                    permit.send(line);
                }
            }
            if let Some(message) = inbox.queued.pop_front() {
                // The members of a batch took their tickets when it was opened.
                inbox.unsent = self.on_cancel(&message);
                return Some(message);
            }
            // Backpressure: while enough answers wait to be written, stdin is not read (a
            // cancellation behind them waits too; nib sends no request of its own that a
            // client's message would have to answer first).
            self.backlog.room().await;
            match inbox.incoming.recv().await {
                Some(Incoming::Message(message)) => match self.hand_on(*message) {
                    Ok(message) => {
                        inbox.unsent = self.on_cancel(&message);
                        return Some(message);
                    }
                    Err(refusal) => inbox.unsent = Some(refusal),
                },
                Some(Incoming::Batch(members)) => {
                    let opened = self.batches().open(members, |id| self.backlog.in_use(id));
                    for message in &opened.messages {
                        if let JsonRpcMessage::Request(request) = message {
                            self.backlog.take(request.id.clone());
                        }
                    }
                    inbox.queued = opened.messages;
                    inbox.unsent = opened.line_now.map(Outgoing::alone);
                }
                Some(Incoming::Answer(line)) => inbox.unsent = Some(Outgoing::alone(line)),
                None => {
                    inbox.ended = true;
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        // The streams stay open for the next session; they end with the process.
        Ok(())
    }
}

/// Reads lines from `input` until it ends, handing on messages and answers to refused lines.
fn read_lines(input: impl BufRead, inbox: mpsc::Sender<Incoming>) {
    let mut lines = LineReader::new(input, MAX_MESSAGE_BYTES);
    let mut number = 0u64;
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                tracing::error!("reading stdin failed: {error}");
                break;
            }
        };
        number += 1;
        let incoming = match framing::frame(line) {
            Framed::Message(message) => Incoming::Message(message),
            Framed::Batch(members) => {
                tracing::debug!(line = number, members = members.len(), "a batch");
                Incoming::Batch(members)
            }
            Framed::Blank => continue,
            Framed::Refused { error, reply_to: None } => {
                tracing::warn!(line = number, "not answered (a notification or a response): {error}");
                continue;
            }
            Framed::Refused { error, reply_to: Some(id) } => {
                tracing::warn!(line = number, code = error.code().0, "{error}");
                match encode(&error.answer(id)) {
                    Ok(answer) => Incoming::Answer(answer),
                    Err(error) => {
                        tracing::error!("an answer could not be written as JSON: {error}");
                        continue;
                    }
                }
            }
        };
        if inbox.blocking_send(incoming).is_err() {
            return;
        }
    }
    tracing::debug!(lines = number, "stdin ended");
}

/// Writes each line whole and flushes it, until every sender is gone or `output` fails. A
/// line's tickets are given back once it is written.
fn write_lines(mut lines: mpsc::Receiver<Outgoing>, mut output: impl Write) -> io::Result<()> {
    while let Some(outgoing) = lines.blocking_recv() {
        output.write_all(&outgoing.line)?;
        output.flush()?;
    }
    Ok(())
}

/// `message` as one line of JSON.
fn encode(message: &impl Serialize) -> io::Result<Vec<u8>> {
    Ok(as_line(serde_json::to_vec(message)?))
}

/// JSON text ended as a line.
fn as_line(mut json: Vec<u8>) -> Vec<u8> {
    json.push(b'\n');
    json
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::io::Cursor;

    /// An output the test can read after the writer is done.
    #[derive(Clone, Default)]
    struct Shared(Arc<StdMutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn messages_reach_the_session_and_refused_lines_are_answered_in_whole_lines() {
        let input = concat!(
            "not json\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
            "\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":5}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        );
        let output = Shared::default();
        let stdio = Stdio::over(Cursor::new(input.as_bytes().to_vec()), output.clone()).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let received = runtime.block_on(async {
            let mut transport = stdio.transport();
            let mut received = Vec::new();
            while let Some(message) = transport.receive().await {
                received.push(serde_json::to_value(&message).unwrap());
            }
            transport
                .send(ServerJsonRpcMessage::error(rmcp::ErrorData::internal_error("x", None), None))
                .await
                .unwrap();
            assert!(stdio.ended().await);
            received
        });
        drop(runtime);
        stdio.finish();
        assert_eq!(received.len(), 2, "{received:?}");
        assert_eq!(received[0]["method"], "ping");
        assert_eq!(received[1]["method"], "notifications/initialized");
        let written = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
        let answers: Vec<Value> = written.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(answers.len(), 3, "{written}");
        assert_eq!((answers[0]["id"].clone(), answers[0]["error"]["code"].clone()), (Value::Null, json!(-32700)));
        assert_eq!((answers[1]["id"].clone(), answers[1]["error"]["code"].clone()), (json!(2), json!(-32600)));
        assert_eq!(answers[2]["error"]["code"], -32603);
    }

    #[test]
    fn no_request_is_taken_while_the_backlog_is_full_and_a_written_answer_makes_room() {
        let ping = |id: u64| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        let input: String = (1..=3).map(ping).collect::<String>() + &ping(1);
        let output = Shared::default();
        let stdio = Stdio::over_with(Cursor::new(input.into_bytes()), output.clone(), 2).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async {
            let mut transport = stdio.transport();
            for _ in 0..2 {
                assert!(matches!(transport.receive().await, Some(JsonRpcMessage::Request(_))));
            }
            let waited = tokio::time::timeout(std::time::Duration::from_millis(200), transport.receive()).await;
            assert!(waited.is_err(), "two answers are unwritten: the third request waits");
            let pong = |id: i64| {
                ServerJsonRpcMessage::response(
                    rmcp::model::ServerResult::EmptyResult(rmcp::model::EmptyResult {}),
                    RequestId::Number(id),
                )
            };
            transport.send(pong(1)).await.unwrap();
            let Some(JsonRpcMessage::Request(third)) = transport.receive().await else { panic!("the third request") };
            assert_eq!(third.id, RequestId::Number(3));
            // The fourth reuses 1, answered and written: its id is free again. Then 2 answers.
            transport.send(pong(2)).await.unwrap();
            let Some(JsonRpcMessage::Request(fourth)) = transport.receive().await else { panic!("the fourth request") };
            assert_eq!(fourth.id, RequestId::Number(1));
        });
        drop(runtime);
        stdio.finish();
    }

    #[test]
    fn a_request_reusing_the_id_of_one_waiting_for_its_answer_is_refused() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n".repeat(2);
        let output = Shared::default();
        let stdio = Stdio::over(Cursor::new(input.into_bytes()), output.clone()).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let received = runtime.block_on(async {
            let mut transport = stdio.transport();
            let mut received = 0;
            while transport.receive().await.is_some() {
                received += 1;
            }
            received
        });
        drop(runtime);
        stdio.finish();
        assert_eq!(received, 1, "the second is answered here, not handed on");
        let written = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
        let answer: Value = serde_json::from_str(written.trim()).unwrap();
        assert_eq!((answer["id"].clone(), answer["error"]["code"].clone()), (json!(5), json!(-32600)), "{written}");
    }
}
