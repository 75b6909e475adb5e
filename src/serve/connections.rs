//! The connections `nib serve` holds, and who gives way when they run out.
//!
//! A connection costs little, but their number is bounded ([`MAX_CONNECTIONS`]), and a client
//! that opens many and sends nothing (or half a request) used to hold every place until it went
//! away: 300 idle sockets on loopback kept `curl /api/files` waiting for minutes.
//! Three rules now keep a place for those who talk:
//!
//! - **Time limits.** Request headers must arrive within [`HEADER_READ_TIMEOUT`], and a kept-alive
//!   connection waiting for its next request is closed after the same time (hyper's header-read
//!   timer runs from the moment a connection waits for a request head). A request body must
//!   arrive within [`BODY_READ_TIMEOUT`] plus a second for every [`BODY_BYTES_PER_SECOND`] of
//!   it (hyper has no body timer: headers and 10 bytes of a 1,000-byte body held a place for
//!   good, and 256 of them locked every client out); past it the request is answered
//!   408 and the connection closed.
//! - **Eviction.** When every place is taken, a new connection takes the place of an idle one
//!   (none of its requests in progress): first one that never completed a request, then one that
//!   never showed the token (beyond loopback) or passed the checks, then the one idle longest.
//!   Then one whose request body is still arriving, the one that received nothing for the longest
//!   first: it is sending slower than a client on the same machine or network would. A
//!   connection serving a request (its body read) or an event stream is never dropped for
//!   another.
//! - **Per peer.** Beyond loopback, one address holds at most [`MAX_PER_PEER`] places; past that,
//!   its own idle connections give way, or the new one is closed. (On loopback every client has
//!   the same address, so there the rules above are what keeps one client from the others.)

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body::Body as _;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// Most connections open at once. A page holds two or three (its requests and the event
/// stream), an MCP client one or two: 256 serves a room full of people and agents, and each
/// idle connection costs a few kilobytes.
pub const MAX_CONNECTIONS: usize = 256;

/// Most connections one remote address holds beyond loopback.
pub const MAX_PER_PEER: usize = 32;

/// How long a client may take to send a request's headers, and how long a kept-alive connection
/// may wait for its next request. Real clients send a request head in one packet; MCP clients
/// and browsers open a new connection when an idle one was closed.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a request body may take to arrive, beyond a second for every
/// [`BODY_BYTES_PER_SECOND`] of it: as long as its headers may take, since real clients send a
/// message right after its headers. `nib serve --body-timeout` changes it.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(15);

/// The slowest a request body may arrive beyond [`BODY_READ_TIMEOUT`]: each 64 KiB received
/// buys a second more, so the largest MCP message (16 MiB) may take 15 + 256 s, as over a
/// 512 kbit/s link, while a client that trickles a few bytes is cut after about 15 s.
pub const BODY_BYTES_PER_SECOND: u64 = 64 * 1024;

/// A request body that did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error(
    "refused: the request body stopped arriving ({bytes} bytes in {seconds} s); a body must arrive within {allowed} s plus 1 s for every 64 KiB of it, and this connection is closed"
)]
pub struct BodyTooSlow {
    /// Bytes received.
    bytes: u64,
    /// Seconds since the body began.
    seconds: u64,
    /// The server's body timeout, in seconds.
    allowed: u64,
}

/// One open connection, as the registry sees it.
#[derive(Debug)]
pub struct Slot {
    id: u64,
    peer: IpAddr,
    /// Requests being served (with their response bodies: an event stream is one long request).
    busy: AtomicU32,
    /// A request of this connection completed or passed the access checks.
    proven: AtomicBool,
    /// A request of this connection was answered at all.
    answered: AtomicBool,
    /// When it last became idle, in milliseconds since the registry started.
    idle_since: AtomicU64,
    /// A request's body is arriving: its head was read, its end not yet.
    receiving: AtomicBool,
    /// When that body began, in milliseconds since the registry started.
    body_began: AtomicU64,
    /// Its bytes so far.
    body_bytes: AtomicU64,
    /// When its last bytes came, in milliseconds since the registry started.
    body_moved: AtomicU64,
    /// Cancelled to drop the connection.
    evict: CancellationToken,
}

impl Slot {
    /// Marks the connection as one that showed the token or passed the checks: it gives way
    /// after the connections that did not.
    pub fn prove(&self) {
        self.proven.store(true, Ordering::Relaxed);
    }

    /// Cancelled when the connection must close to make room.
    pub fn evicted(&self) -> &CancellationToken {
        &self.evict
    }
}

/// Every open connection, and the places left.
#[derive(Debug)]
pub struct Connections {
    slots: Mutex<HashMap<u64, Arc<Slot>>>,
    next: AtomicU64,
    freed: Notify,
    started: Instant,
    limit: usize,
    per_peer: usize,
    /// [`BODY_READ_TIMEOUT`] or what `--body-timeout` says.
    body_timeout: Duration,
}

impl Connections {
    /// A registry of at most `limit` connections, `per_peer` of them from one address beyond
    /// loopback, whose request bodies must arrive within `body_timeout` (plus a second for every
    /// [`BODY_BYTES_PER_SECOND`]).
    pub fn new(limit: usize, per_peer: usize, body_timeout: Duration) -> Arc<Connections> {
        Arc::new(Connections {
            slots: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            freed: Notify::new(),
            started: Instant::now(),
            limit: limit.max(1),
            per_peer: per_peer.max(1),
            body_timeout,
        })
    }

    /// A place for a new connection from `peer`: free, or taken from an idle connection, or
    /// (when every connection is busy) the first one freed. `None` when the peer has all its
    /// places busy: the new connection is closed.
    pub async fn admit(self: &Arc<Self>, peer: SocketAddr) -> Option<Arc<Slot>> {
        loop {
            let freed = self.freed.notified();
            {
                let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
                let peer_ip = peer.ip();
                if !peer_ip.is_loopback() {
                    let from_peer: Vec<&Arc<Slot>> = slots.values().filter(|s| s.peer == peer_ip).collect();
                    if from_peer.len() >= self.per_peer {
                        let victim = self.victim(from_peer.into_iter())?;
                        self.drop_slot(&mut slots, &victim);
                    }
                }
                if slots.len() >= self.limit
                    && let Some(victim) = self.victim(slots.values())
                {
                    self.drop_slot(&mut slots, &victim);
                }
                if slots.len() < self.limit {
                    let slot = Arc::new(Slot {
                        id: self.next.fetch_add(1, Ordering::Relaxed),
                        peer: peer_ip,
                        busy: AtomicU32::new(0),
                        proven: AtomicBool::new(false),
                        answered: AtomicBool::new(false),
                        idle_since: AtomicU64::new(self.now()),
                        receiving: AtomicBool::new(false),
                        body_began: AtomicU64::new(0),
                        body_bytes: AtomicU64::new(0),
                        body_moved: AtomicU64::new(0),
                        evict: CancellationToken::new(),
                    });
                    slots.insert(slot.id, Arc::clone(&slot));
                    return Some(slot);
                }
            }
            // Every connection is serving a request: wait for one to end.
            freed.await;
        }
    }

    /// Gives the place of `slot` back (its connection closed).
    pub fn release(&self, slot: &Slot) {
        let removed = self.slots.lock().unwrap_or_else(|e| e.into_inner()).remove(&slot.id).is_some();
        if removed {
            self.freed.notify_waiters();
        }
    }

    /// How many connections are open.
    #[cfg(test)]
    pub fn open(&self) -> usize {
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The connection to drop first among `candidates`, if any is idle or still receiving a
    /// request body: idle ones first, then the body that moved least recently.
    fn victim<'a>(&self, candidates: impl Iterator<Item = &'a Arc<Slot>>) -> Option<Arc<Slot>> {
        candidates
            .filter(|slot| {
                let receiving = slot.receiving.load(Ordering::Relaxed);
                (receiving || slot.busy.load(Ordering::Relaxed) == 0) && !slot.evict.is_cancelled()
            })
            .min_by_key(|slot| {
                let receiving = slot.receiving.load(Ordering::Relaxed);
                let since = if receiving { &slot.body_moved } else { &slot.idle_since };
                (
                    receiving,
                    slot.answered.load(Ordering::Relaxed),
                    slot.proven.load(Ordering::Relaxed),
                    since.load(Ordering::Relaxed),
                    slot.id,
                )
            })
            .cloned()
    }

    fn drop_slot(&self, slots: &mut HashMap<u64, Arc<Slot>>, victim: &Slot) {
        tracing::info!(peer = %victim.peer, "a connection gave way to a new one (every place was taken)");
        victim.evict.cancel();
        slots.remove(&victim.id);
    }

    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Marks a request of `slot` as started; the returned guard marks it done when dropped.
    fn started(self: &Arc<Self>, slot: &Arc<Slot>) -> Busy {
        slot.busy.fetch_add(1, Ordering::Relaxed);
        Busy { registry: Arc::clone(self), slot: Arc::clone(slot) }
    }

    /// Marks the body of `slot`'s request as arriving from now.
    fn body_begins(&self, slot: &Slot) {
        let now = self.now();
        slot.body_bytes.store(0, Ordering::Relaxed);
        slot.body_began.store(now, Ordering::Relaxed);
        slot.body_moved.store(now, Ordering::Relaxed);
        slot.receiving.store(true, Ordering::Relaxed);
    }

    /// When the body arriving on `slot` must be whole, in milliseconds since the registry
    /// started: the timeout, and a second more for each [`BODY_BYTES_PER_SECOND`] received.
    fn body_deadline(&self, slot: &Slot) -> u64 {
        let earned = slot.body_bytes.load(Ordering::Relaxed).saturating_mul(1000) / BODY_BYTES_PER_SECOND;
        let timeout = u64::try_from(self.body_timeout.as_millis()).unwrap_or(u64::MAX);
        slot.body_began.load(Ordering::Relaxed).saturating_add(timeout).saturating_add(earned)
    }

    /// Ends when the body arriving on `slot` is past its deadline; never while none arrives.
    async fn stalled(self: Arc<Self>, slot: Arc<Slot>) {
        loop {
            if !slot.receiving.load(Ordering::Relaxed) {
                // Its request is served now: only the request's own end stops it.
                return std::future::pending().await;
            }
            let (deadline, now) = (self.body_deadline(&slot), self.now());
            if now >= deadline {
                return;
            }
            tokio::time::sleep(Duration::from_millis(deadline - now)).await;
        }
    }

    /// The answer to a request whose body did not arrive in time: 408, a JSON-RPC error for an
    /// MCP client, and the connection closed (the rest of the body is never read).
    fn too_slow(&self, slot: &Slot, mcp: bool) -> Response {
        let refusal = BodyTooSlow {
            bytes: slot.body_bytes.load(Ordering::Relaxed),
            seconds: self.now().saturating_sub(slot.body_began.load(Ordering::Relaxed)) / 1000,
            allowed: self.body_timeout.as_secs(),
        };
        tracing::info!(peer = %slot.peer, "{refusal}");
        let message = refusal.to_string();
        let mut response = if mcp {
            super::mcp_errors::refusal(StatusCode::REQUEST_TIMEOUT, &message)
        } else {
            (StatusCode::REQUEST_TIMEOUT, message).into_response()
        };
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    }
}

/// A request in progress; dropped with its response body.
struct Busy {
    registry: Arc<Connections>,
    slot: Arc<Slot>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.slot.receiving.store(false, Ordering::Relaxed);
        self.slot.answered.store(true, Ordering::Relaxed);
        self.slot.idle_since.store(self.registry.now(), Ordering::Relaxed);
        if self.slot.busy.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.registry.freed.notify_waiters();
        }
    }
}

/// Runs `request` through `router` as a request of `slot`: busy until the response body ends,
/// with the slot in the request's extensions (so the access checks can mark it proven). A body
/// that does not arrive in time ends the request with 408, whatever the route was doing.
async fn serve_request(
    registry: Arc<Connections>,
    slot: Arc<Slot>,
    router: axum::Router,
    request: Request,
) -> Response {
    use tower::ServiceExt as _;
    let busy = registry.started(&slot);
    let mcp = super::mcp_errors::is_mcp(request.uri().path());
    let mut request = if request.body().is_end_stream() {
        request
    } else {
        registry.body_begins(&slot);
        let (registry, slot) = (Arc::clone(&registry), Arc::clone(&slot));
        request.map(|body| Body::new(Arriving { body, registry, slot }))
    };
    request.extensions_mut().insert(Arc::clone(&slot));
    let response = tokio::select! {
        response = router.oneshot(request) => match response {
            Ok(response) => response,
            Err(never) => match never {},
        },
        () = Arc::clone(&registry).stalled(Arc::clone(&slot)) => registry.too_slow(&slot, mcp),
    };
    response.map(|body| Body::new(Tracked { body, _busy: busy }))
}

/// Accepts connections on `listener` and serves `router` on each, under the rules of this
/// module, until `stop` is cancelled; then lets open requests finish (the caller bounds how
/// long it waits).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    body_timeout: Duration,
    stop: CancellationToken,
) {
    let registry = Connections::new(MAX_CONNECTIONS, MAX_PER_PEER, body_timeout);
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of descriptors or a connection reset before it was accepted: go on.
                Err(error) => {
                    tracing::warn!("accepting a connection failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let admitted = tokio::select! {
            slot = registry.admit(peer) => slot,
            () = stop.cancelled() => break,
        };
        let Some(slot) = admitted else {
            tracing::info!(%peer, "connection refused: this address has {MAX_PER_PEER} connections serving requests");
            continue;
        };
        while tasks.try_join_next().is_some() {}
        tasks.spawn(connection(Arc::clone(&registry), slot, stream, router.clone(), stop.clone()));
    }
    drop(listener);
    while tasks.join_next().await.is_some() {}
}

/// Serves one connection until it closes, times out, gives way or the server stops.
async fn connection(
    registry: Arc<Connections>,
    slot: Arc<Slot>,
    stream: tokio::net::TcpStream,
    router: axum::Router,
    stop: CancellationToken,
) {
    let service = {
        let (registry, slot) = (Arc::clone(&registry), Arc::clone(&slot));
        hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
            let request = request.map(Body::new);
            let served = serve_request(Arc::clone(&registry), Arc::clone(&slot), router.clone(), request);
            async move { Ok::<_, std::convert::Infallible>(served.await) }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT).keep_alive(true);
    let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!("connection ended: {error}");
            }
        }
        () = slot.evicted().cancelled() => {}
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
    registry.release(&slot);
}

/// A request body as it arrives: its bytes and their time are noted on its connection's slot,
/// for the body's deadline and for eviction.
struct Arriving {
    body: Body,
    registry: Arc<Connections>,
    slot: Arc<Slot>,
}

impl http_body::Body for Arriving {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let polled = std::pin::Pin::new(&mut this.body).poll_frame(cx);
        match &polled {
            std::task::Poll::Ready(Some(Ok(frame))) => {
                let bytes = frame.data_ref().map_or(0, |data| data.len() as u64);
                this.slot.body_bytes.fetch_add(bytes, Ordering::Relaxed);
                this.slot.body_moved.store(this.registry.now(), Ordering::Relaxed);
            }
            std::task::Poll::Ready(_) => this.slot.receiving.store(false, Ordering::Relaxed),
            std::task::Poll::Pending => {}
        }
        if this.body.is_end_stream() {
            this.slot.receiving.store(false, Ordering::Relaxed);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Arriving {
    /// A body the route let go of is no longer waited for: the request is being served.
    fn drop(&mut self) {
        self.slot.receiving.store(false, Ordering::Relaxed);
    }
}

/// A response body that keeps its connection busy until it ends.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(ip: [u8; 4], port: u16) -> SocketAddr {
        SocketAddr::from((ip, port))
    }

    #[tokio::test]
    async fn a_new_connection_takes_the_place_of_one_that_never_sent_a_request() {
        let registry = Connections::new(2, 8, BODY_READ_TIMEOUT);
        let silent = registry.admit(address([127, 0, 0, 1], 1)).await.unwrap();
        let talking = registry.admit(address([127, 0, 0, 1], 2)).await.unwrap();
        drop(registry.started(&talking));
        talking.prove();
        let newcomer = registry.admit(address([127, 0, 0, 1], 3)).await.unwrap();
        assert!(silent.evicted().is_cancelled(), "the silent one gave way");
        assert!(!talking.evicted().is_cancelled());
        assert_eq!(registry.open(), 2);
        // Unproven before proven, then the longest idle.
        let unproven = newcomer;
        drop(registry.started(&unproven));
        let _fourth = registry.admit(address([127, 0, 0, 1], 4)).await.unwrap();
        assert!(unproven.evicted().is_cancelled() && !talking.evicted().is_cancelled());
    }

    #[tokio::test]
    async fn busy_connections_are_never_dropped_and_a_newcomer_waits_for_one_to_end() {
        let registry = Connections::new(1, 8, BODY_READ_TIMEOUT);
        let serving = registry.admit(address([127, 0, 0, 1], 1)).await.unwrap();
        let busy = registry.started(&serving);
        let waiting = tokio::spawn({
            let registry = Arc::clone(&registry);
            async move { registry.admit(address([127, 0, 0, 1], 2)).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "no place while the only connection serves");
        drop(busy);
        registry.release(&serving);
        let admitted = tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap();
        assert!(admitted.is_some() && !serving.evicted().is_cancelled());
    }

    #[tokio::test]
    async fn a_connection_whose_body_stalls_gives_way_after_the_idle_ones() {
        let registry = Connections::new(2, 8, BODY_READ_TIMEOUT);
        let idle = registry.admit(address([127, 0, 0, 1], 1)).await.unwrap();
        drop(registry.started(&idle));
        idle.prove();
        let stalled = registry.admit(address([127, 0, 0, 1], 2)).await.unwrap();
        let _receiving = registry.started(&stalled);
        registry.body_begins(&stalled);
        let serving = registry.admit(address([127, 0, 0, 1], 3)).await.unwrap();
        assert!(idle.evicted().is_cancelled() && !stalled.evicted().is_cancelled(), "the idle one first");
        let _busy = registry.started(&serving);
        let _fourth = registry.admit(address([127, 0, 0, 1], 4)).await.unwrap();
        assert!(stalled.evicted().is_cancelled(), "then the one whose body stalls");
        assert!(!serving.evicted().is_cancelled(), "never one serving a request");
    }

    #[test]
    fn every_64_kib_received_buys_a_second() {
        let registry = Connections::new(2, 8, Duration::from_secs(10));
        let slot = Slot {
            id: 0,
            peer: [127, 0, 0, 1].into(),
            busy: AtomicU32::new(1),
            proven: AtomicBool::new(false),
            answered: AtomicBool::new(false),
            idle_since: AtomicU64::new(0),
            receiving: AtomicBool::new(false),
            body_began: AtomicU64::new(0),
            body_bytes: AtomicU64::new(0),
            body_moved: AtomicU64::new(0),
            evict: CancellationToken::new(),
        };
        registry.body_begins(&slot);
        let began = slot.body_began.load(Ordering::Relaxed);
        assert_eq!(registry.body_deadline(&slot) - began, 10_000);
        slot.body_bytes.store(2 * BODY_BYTES_PER_SECOND + 10, Ordering::Relaxed);
        assert_eq!(registry.body_deadline(&slot) - began, 12_000);
    }

    #[tokio::test]
    async fn one_address_beyond_loopback_holds_a_bounded_share() {
        let registry = Connections::new(100, 2, BODY_READ_TIMEOUT);
        let first = registry.admit(address([10, 0, 0, 9], 1)).await.unwrap();
        let second = registry.admit(address([10, 0, 0, 9], 2)).await.unwrap();
        let _busy = (registry.started(&first), registry.started(&second));
        assert!(registry.admit(address([10, 0, 0, 9], 3)).await.is_none(), "its places are all busy");
        assert!(registry.admit(address([10, 0, 0, 7], 1)).await.is_some(), "another address gets in");
    }
}
