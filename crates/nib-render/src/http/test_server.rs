//! A small HTTP/1.1 server on loopback inside the test process, answering the way the image
//! services do. It records every request so tests can count them, handles at most
//! `MAX_CONNECTIONS`, and stops when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// Connections served before the server stops on its own.
const MAX_CONNECTIONS: usize = 100;

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    /// A header's value (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// How to answer.
pub enum Reply {
    /// Status, headers and body, with a Content-Length.
    Full { status: u16, headers: Vec<(String, String)>, body: Vec<u8> },
    /// Wait, then answer.
    Late(Duration, Box<Reply>),
    /// Headers without a length, then `chunks` pieces of `chunk` bytes every `every`, closing the
    /// connection at the end: a body whose size shows only while it streams.
    Stream { content_type: &'static str, chunk: usize, chunks: usize, every: Duration },
}

impl Reply {
    pub fn json(status: u16, body: impl Into<String>) -> Reply {
        Reply::Full {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into().into_bytes(),
        }
    }

    pub fn bytes(content_type: &str, body: Vec<u8>) -> Reply {
        Reply::Full { status: 200, headers: vec![("Content-Type".into(), content_type.into())], body }
    }

    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::Full { status, headers: vec![("Location".into(), location.into())], body: Vec::new() }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Full { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

type Handler = dyn Fn(&Seen) -> Reply + Send + Sync;

/// The running server.
pub struct TestServer {
    pub address: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl TestServer {
    /// Serves `handler` on a free loopback port.
    pub fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (seen_by_server, stop_by_server) = (seen.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming().take(MAX_CONNECTIONS) {
                if stop_by_server.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (handler, seen) = (handler.clone(), seen_by_server.clone());
                thread::spawn(move || serve(stream, &*handler, &seen));
            }
        });
        TestServer { address, seen, stop }
    }

    /// `http://127.0.0.1:port` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// The requests served so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// How many requests were served so far.
    pub fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_millis(200));
    }
}

fn serve(stream: TcpStream, handler: &Handler, seen: &Mutex<Vec<Seen>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or("").to_owned(), parts.next().unwrap_or("").to_owned());
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length.min(1 << 20)];
    let _ = reader.read_exact(&mut body);
    let request = Seen { method, target, headers, body };
    seen.lock().unwrap().push(request.clone());
    let reply = handler(&request);
    let mut stream = reader.into_inner();
    let _ = answer(&mut stream, reply);
}

fn answer(stream: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    match reply {
        Reply::Late(wait, reply) => {
            thread::sleep(wait);
            answer(stream, *reply)
        }
        Reply::Full { status, headers, body } => {
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                reason(status),
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            stream.write_all(head.as_bytes())?;
            stream.write_all(&body)
        }
        Reply::Stream { content_type, chunk, chunks, every } => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n");
            stream.write_all(head.as_bytes())?;
            let piece = vec![0xffu8; chunk];
            for _ in 0..chunks {
                stream.write_all(&piece)?;
                stream.flush()?;
                thread::sleep(every);
            }
            Ok(())
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Status",
    }
}
