//! A listener that holds at most [`MAX_CONNECTIONS`] connections open: past that, new ones wait
//! in the system's queue until one closes, so a client opening connections without end (or
//! holding them open, sending nothing) cannot make the server hold unbounded memory.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Most connections open at once. A page holds two or three (its requests and the event
/// stream), an MCP client one or two: 256 serves a room full of people and agents, and each
/// idle connection costs a few kilobytes.
pub const MAX_CONNECTIONS: usize = 256;

/// A TCP listener that accepts a connection only while fewer than its limit are open.
pub struct BoundedListener {
    inner: TcpListener,
    permits: Arc<Semaphore>,
}

impl BoundedListener {
    /// Bounds `inner` to `limit` open connections.
    pub fn new(inner: TcpListener, limit: usize) -> BoundedListener {
        BoundedListener { inner, permits: Arc::new(Semaphore::new(limit)) }
    }
}

/// An accepted connection; closing it lets the listener accept another.
pub struct Connection {
    stream: TcpStream,
    _permit: Option<OwnedSemaphorePermit>,
}

impl axum::serve::Listener for BoundedListener {
    type Io = Connection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Connection, SocketAddr) {
        // The semaphore is never closed, so a permit always comes.
        let permit = Arc::clone(&self.permits).acquire_owned().await.ok();
        let (stream, address) = axum::serve::Listener::accept(&mut self.inner).await;
        (Connection { stream, _permit: permit }, address)
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

impl AsyncRead for Connection {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use axum::serve::Listener;

    use super::*;

    #[tokio::test]
    async fn no_connection_is_accepted_past_the_limit_until_one_closes() {
        let inner = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = inner.local_addr().unwrap();
        let mut listener = BoundedListener::new(inner, 2);
        let _clients: Vec<TcpStream> = vec![
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
        ];
        let first = listener.accept().await.0;
        let _second = listener.accept().await.0;
        let mut third = Box::pin(listener.accept());
        let polled = std::future::poll_fn(|cx| Poll::Ready(third.as_mut().poll(cx).is_pending())).await;
        assert!(polled, "a third connection waits while two are open");
        drop(first);
        third.await;
    }
}
