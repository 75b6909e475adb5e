//! The requests read from stdin whose answers are not written yet, and the bound past which the
//! reader takes no more (backpressure). rmcp runs every request it is handed at once and queues
//! each answer in a task of its own until the transport takes it, so a client that sends calls
//! without reading the answers used to make nib keep them all: 1,500 unread screenshots held
//! 1 GB, 9,000 held 4 GB. Now stdin is read only while fewer than
//! [`MAX_UNWRITTEN_ANSWERS`] requests wait for their answers to be written; past that, the
//! client's writes fill the pipe and block until it reads.
//!
//! Each request handed to rmcp takes a [`Ticket`], kept under its id until its answer comes
//! back, then carried with the answer's line until the line is written. A cancelled request
//! gets no answer from rmcp, so its ticket is dropped when the cancellation is read.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::RequestId;
use tokio::sync::Notify;

/// Most requests read from stdin whose answers are not written yet. Tools run one at a time,
/// so a client gains nothing from more calls ahead of the one running; 32 answers of the
/// largest kind (a 4 MiB screenshot, 5.6 MB of base64) are under 200 MB. A batch is read
/// whole, so one batch may take the count past it.
pub const MAX_UNWRITTEN_ANSWERS: usize = 32;

/// How many tickets are out, and who waits for one to come back.
#[derive(Debug, Default)]
struct Count {
    out: AtomicUsize,
    returned: Notify,
}

/// A request whose answer is not written yet. Dropping it makes room for another.
#[derive(Debug)]
pub struct Ticket(Arc<Count>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.out.fetch_sub(1, Ordering::AcqRel);
        self.0.returned.notify_waiters();
    }
}

/// The requests of one stdio connection waiting for their answers to be written.
#[derive(Debug)]
pub struct Backlog {
    count: Arc<Count>,
    /// Tickets of requests handed to rmcp whose answers have not come back (or are held in a
    /// batch whose other answers have not).
    waiting: Mutex<HashMap<RequestId, Ticket>>,
    limit: usize,
}

impl Backlog {
    /// A backlog of at most `limit` unwritten answers before the reader waits.
    pub fn new(limit: usize) -> Backlog {
        Backlog { count: Arc::default(), waiting: Mutex::default(), limit: limit.max(1) }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Ticket>> {
        self.waiting.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits until fewer than the limit are out. Cancel-safe: it takes nothing.
    pub async fn room(&self) {
        loop {
            // Made before the check, so a ticket dropped in between still wakes it.
            let returned = self.count.returned.notified();
            if self.count.out.load(Ordering::Acquire) < self.limit {
                return;
            }
            returned.await;
        }
    }

    /// Whether a request with `id` waits for its answer: a second one could not be told apart
    /// from it (rmcp would drop one of the two answers).
    pub fn in_use(&self, id: &RequestId) -> bool {
        self.waiting().contains_key(id)
    }

    /// Takes a ticket for request `id`, handed to rmcp now. The caller checked [`Self::in_use`].
    pub fn take(&self, id: RequestId) {
        self.count.out.fetch_add(1, Ordering::AcqRel);
        let ticket = Ticket(Arc::clone(&self.count));
        self.waiting().insert(id, ticket);
    }

    /// The tickets of the requests a line being sent answers, to drop once it is written.
    pub fn answered<'a>(&self, ids: impl IntoIterator<Item = &'a RequestId>) -> Vec<Ticket> {
        let mut waiting = self.waiting();
        ids.into_iter().filter_map(|id| waiting.remove(id)).collect()
    }

    /// The client cancelled request `id`: rmcp will not answer it.
    pub fn cancelled(&self, id: &RequestId) {
        let ticket = self.waiting().remove(id);
        drop(ticket);
    }

    /// Drops every ticket: a new session starts, and the last one answers nothing more.
    pub fn forget_all(&self) {
        let tickets = std::mem::take(&mut *self.waiting());
        drop(tickets);
    }

    /// How many requests wait for their answers to be written.
    #[cfg(test)]
    pub fn unwritten(&self) -> usize {
        self.count.out.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn the_reader_waits_at_the_limit_until_an_answer_is_written() {
        let backlog = Arc::new(Backlog::new(2));
        backlog.take(RequestId::Number(1));
        backlog.take(RequestId::Number(2));
        assert!(backlog.in_use(&RequestId::Number(1)) && !backlog.in_use(&RequestId::Number(3)));
        let waiting = tokio::spawn({
            let backlog = Arc::clone(&backlog);
            async move { backlog.room().await }
        });
        // The answer to 1 comes back: it is carried with its line, still counted.
        let line = backlog.answered([&RequestId::Number(1)]);
        assert_eq!((line.len(), backlog.unwritten()), (1, 2));
        assert!(!backlog.in_use(&RequestId::Number(1)), "its id may be used again");
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "no room until the line is written");
        drop(line);
        tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap();
        assert_eq!(backlog.unwritten(), 1);
    }

    #[test]
    fn a_cancelled_request_gives_its_place_back_once() {
        let backlog = Backlog::new(4);
        backlog.take(RequestId::Number(7));
        backlog.cancelled(&RequestId::Number(7));
        assert_eq!(backlog.unwritten(), 0);
        // An answer that still comes, and a second cancellation, find nothing to give back.
        assert!(backlog.answered([&RequestId::Number(7)]).is_empty());
        backlog.cancelled(&RequestId::Number(7));
        assert_eq!(backlog.unwritten(), 0);
        backlog.take(RequestId::String("a".into()));
        backlog.forget_all();
        assert_eq!(backlog.unwritten(), 0);
    }
}
