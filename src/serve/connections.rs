//! The connections `nib serve` holds, and who gives way when they run out.
//!
//! A connection costs little, but their number is bounded ([`MAX_CONNECTIONS`]), and a client
//! that opens many and sends nothing (or half a request) used to hold every place until it went
//! away: 300 idle sockets on loopback kept `curl /api/files` waiting for minutes (issue 25).
//! Three rules now keep a place for those who talk:
//!
//! - **Time limits.** Request headers must arrive within [`HEADER_READ_TIMEOUT`], and a kept-alive
//!   connection waiting for its next request is closed after the same time (hyper's header-read
//!   timer runs from the moment a connection waits for a request head).
//! - **Eviction.** When every place is taken, a new connection takes the place of an idle one
//!   (none of its requests in progress): first one that never completed a request, then one that
//!   never showed the token (beyond loopback) or passed the checks, then the one idle longest.
//!   A connection serving a request or an event stream is never dropped for another.
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
use axum::response::Response;
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
}

impl Connections {
    /// A registry of at most `limit` connections, `per_peer` of them from one address beyond
    /// loopback.
    pub fn new(limit: usize, per_peer: usize) -> Arc<Connections> {
        Arc::new(Connections {
            slots: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            freed: Notify::new(),
            started: Instant::now(),
            limit: limit.max(1),
            per_peer: per_peer.max(1),
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

    /// The idle connection to drop first among `candidates`, if any is idle.
    fn victim<'a>(&self, candidates: impl Iterator<Item = &'a Arc<Slot>>) -> Option<Arc<Slot>> {
        candidates
            .filter(|slot| slot.busy.load(Ordering::Relaxed) == 0 && !slot.evict.is_cancelled())
            .min_by_key(|slot| {
                (
                    slot.answered.load(Ordering::Relaxed),
                    slot.proven.load(Ordering::Relaxed),
                    slot.idle_since.load(Ordering::Relaxed),
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
}

/// A request in progress; dropped with its response body.
struct Busy {
    registry: Arc<Connections>,
    slot: Arc<Slot>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.slot.answered.store(true, Ordering::Relaxed);
        self.slot.idle_since.store(self.registry.now(), Ordering::Relaxed);
        if self.slot.busy.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.registry.freed.notify_waiters();
        }
    }
}

/// Runs `request` through `router` as a request of `slot`: busy until the response body ends,
/// with the slot in the request's extensions (so the access checks can mark it proven).
async fn serve_request(
    registry: Arc<Connections>,
    slot: Arc<Slot>,
    router: axum::Router,
    mut request: Request,
) -> Response {
    use tower::ServiceExt as _;
    let busy = registry.started(&slot);
    request.extensions_mut().insert(Arc::clone(&slot));
    let response = match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    response.map(|body| Body::new(Tracked { body, _busy: busy }))
}

/// Accepts connections on `listener` and serves `router` on each, under the rules of this
/// module, until `stop` is cancelled; then lets open requests finish (the caller bounds how
/// long it waits).
pub async fn serve(listener: tokio::net::TcpListener, router: axum::Router, stop: CancellationToken) {
    let registry = Connections::new(MAX_CONNECTIONS, MAX_PER_PEER);
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
        let registry = Connections::new(2, 8);
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
        let registry = Connections::new(1, 8);
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
    async fn one_address_beyond_loopback_holds_a_bounded_share() {
        let registry = Connections::new(100, 2);
        let first = registry.admit(address([10, 0, 0, 9], 1)).await.unwrap();
        let second = registry.admit(address([10, 0, 0, 9], 2)).await.unwrap();
        let _busy = (registry.started(&first), registry.started(&second));
        assert!(registry.admit(address([10, 0, 0, 9], 3)).await.is_none(), "its places are all busy");
        assert!(registry.admit(address([10, 0, 0, 7], 1)).await.is_some(), "another address gets in");
    }
}
