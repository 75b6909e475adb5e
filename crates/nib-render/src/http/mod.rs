//! Guarded HTTP for the image providers and for fonts. What a prompt or a document asks for, and
//! the addresses other servers answer with, decide what nib fetches, so every request is bounded: https only, public
//! addresses only (checked after resolving, and the connection goes to the checked address, so a
//! second DNS answer cannot swap it), timeouts and an overall deadline, a size cap while the body
//! streams in, the expected content type, and redirects followed one hop at a time with every hop
//! checked again.

mod address;
mod location;
mod resolver;
#[cfg(any(test, feature = "test-servers"))]
pub mod test_server;

use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::http::Uri;

pub use location::encode_query;

/// The absolute URL `reference` names, seen from the absolute URL `base` (`None` when either is
/// malformed).
pub(crate) fn join_url(base: &str, reference: &str) -> Option<String> {
    location::join(&base.parse::<Uri>().ok()?, reference)
}
use resolver::{GuardedResolver, Refused};

/// Time and size limits of one fetch, redirects included.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest wait for the TCP connection.
    pub connect: Duration,
    /// Longest silence while waiting for the answer or reading its body.
    pub read: Duration,
    /// Longest time for the whole fetch, all hops included.
    pub deadline: Duration,
    /// Largest body accepted, in bytes.
    pub max_bytes: u64,
    /// Most redirects followed.
    pub max_redirects: usize,
}

/// What the answer must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A JSON API answer (`application/json` or `…+json`).
    Json,
    /// A PNG or JPEG image (the formats the renderer draws).
    Image,
    /// A style sheet (`text/css`), such as the Google Fonts API's answer.
    Css,
    /// A font file (TrueType, OpenType, WOFF2; servers often say only `application/octet-stream`,
    /// so the bytes are checked when the font is read).
    Font,
}

/// One fetch: a GET, or a POST of a JSON body.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// An absolute https URL.
    pub url: &'a str,
    /// A JSON body to POST; `None` sends a GET.
    pub json_body: Option<&'a [u8]>,
    /// Headers such as credentials. They are sent only to the first URL's origin, never to a
    /// host a redirect leads to.
    pub headers: &'a [(&'a str, &'a str)],
    /// The content type the answer must have.
    pub expect: Expect,
    /// Time and size limits.
    pub limits: Limits,
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL is malformed or not https.
    #[error("{url} cannot be fetched: {reason}")]
    BadUrl {
        /// The URL (shortened).
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The host resolves to an address nib must not contact.
    #[error("refused to contact {host}: {}", forbidden_detail(host, address, reason))]
    Forbidden {
        /// The host asked for.
        host: String,
        /// The first refused address.
        address: IpAddr,
        /// What kind of address it is.
        reason: &'static str,
    },
    /// A timeout or the deadline passed.
    #[error("{host} did not answer in time")]
    Timeout {
        /// The host asked.
        host: String,
    },
    /// The body is larger than allowed.
    #[error("the answer from {host} is larger than {limit} bytes")]
    TooLarge {
        /// The host asked.
        host: String,
        /// The size limit.
        limit: u64,
    },
    /// The answer has another content type than expected.
    #[error("{host} answered {found:?} where {expected} was expected")]
    WrongType {
        /// The host asked.
        host: String,
        /// The content type found.
        found: String,
        /// What was expected, in words.
        expected: &'static str,
    },
    /// More redirects than allowed, or a redirect that cannot be followed.
    #[error("{host} redirected {reason}")]
    Redirect {
        /// The host that redirected.
        host: String,
        /// What went wrong.
        reason: String,
    },
    /// An answer with a status other than 2xx (redirects are followed).
    #[error("{host} answered {status}")]
    Status {
        /// The host asked.
        host: String,
        /// The HTTP status.
        status: u16,
        /// The start of the body (providers read their error message from it).
        body: String,
        /// A rate-limit header says no requests are left.
        rate_limited: bool,
    },
    /// No connection or a broken answer.
    #[error("could not reach {host}: {detail}")]
    Unreachable {
        /// The host asked.
        host: String,
        /// What the HTTP client said.
        detail: String,
    },
}

/// How much of an error answer's body is kept for its message.
const ERROR_BODY_BYTES: u64 = 8 * 1024;

/// Fetches over HTTPS from public addresses only.
#[derive(Debug, Clone)]
pub struct Fetcher {
    agent: ureq::Agent,
    allowance: Arc<Allowance>,
}

/// Addresses exempt from the guard. Empty outside tests: no setting, flag or environment
/// variable can open it, so nothing a prompt or a server answer says can reach this machine.
#[derive(Debug, Default)]
struct Allowance {
    /// Exact address and port of a test server on loopback, reachable over plain http.
    #[cfg(any(test, feature = "test-servers"))]
    test_servers: Vec<SocketAddr>,
}

impl Allowance {
    #[cfg(any(test, feature = "test-servers"))]
    fn covers(&self, address: SocketAddr) -> bool {
        self.test_servers.contains(&address)
    }

    #[cfg(not(any(test, feature = "test-servers")))]
    fn covers(&self, _address: SocketAddr) -> bool {
        false
    }
}

impl Default for Fetcher {
    fn default() -> Self {
        Fetcher::with_allowance(Allowance::default())
    }
}

impl Fetcher {
    /// A fetcher that may also reach the test servers at `addresses` (exactly those ports) over
    /// plain http.
    #[cfg(any(test, feature = "test-servers"))]
    pub fn for_test_servers(addresses: &[SocketAddr]) -> Fetcher {
        Fetcher::with_allowance(Allowance { test_servers: addresses.to_vec() })
    }

    fn with_allowance(allowance: Allowance) -> Fetcher {
        let allowance = Arc::new(allowance);
        let config = ureq::Agent::config_builder()
            // Redirects are followed below, one checked hop at a time.
            .max_redirects(0)
            .http_status_as_error(false)
            // A proxy would resolve names itself, out of the guard's sight.
            .proxy(None)
            .user_agent(concat!("nib/", env!("CARGO_PKG_VERSION")))
            .build();
        let resolver = GuardedResolver::new(allowance.clone());
        let agent = ureq::Agent::with_parts(config, ureq::unversioned::transport::DefaultConnector::new(), resolver);
        Fetcher { agent, allowance }
    }

    /// Fetches `request`, following redirects within its limits, and returns the body.
    pub fn fetch(&self, request: &Request) -> Result<Vec<u8>, FetchError> {
        let started = Instant::now();
        let first = self.checked_uri(request.url)?;
        let mut uri = first.clone();
        for _ in 0..=request.limits.max_redirects {
            let host = host_of(&uri);
            let remaining = request
                .limits
                .deadline
                .checked_sub(started.elapsed())
                .ok_or_else(|| FetchError::Timeout { host: host.clone() })?;
            let headers = if same_origin(&uri, &first) { request.headers } else { &[] };
            let mut response = self.send_once(&uri, request, headers, remaining)?;
            let status = response.status().as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                if request.json_body.is_some() {
                    return Err(FetchError::Redirect { host, reason: format!("a POST ({status})") });
                }
                let location =
                    response.headers().get("location").and_then(|v| v.to_str().ok()).ok_or_else(|| {
                        FetchError::Redirect { host: host.clone(), reason: "without a Location".into() }
                    })?;
                let next = location::join(&uri, location)
                    .ok_or_else(|| FetchError::Redirect { host: host.clone(), reason: "to a malformed URL".into() })?;
                uri = self.checked_uri(&next)?;
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(status_error(host, status, &mut response));
            }
            return read_body(host, &mut response, request);
        }
        Err(FetchError::Redirect {
            host: host_of(&uri),
            reason: format!("more than {} times", request.limits.max_redirects),
        })
    }

    fn send_once(
        &self,
        uri: &Uri,
        request: &Request,
        headers: &[(&str, &str)],
        remaining: Duration,
    ) -> Result<ureq::http::Response<ureq::Body>, FetchError> {
        let limits = &request.limits;
        let accept = match request.expect {
            Expect::Json => "application/json",
            Expect::Image => "image/jpeg, image/png",
            Expect::Css => "text/css",
            Expect::Font => "font/ttf, font/otf, font/woff2, application/octet-stream",
        };
        let result = match request.json_body {
            Some(body) => {
                let mut builder = self.agent.post(uri.clone()).header("accept", accept);
                for (name, value) in headers {
                    builder = builder.header(*name, *value);
                }
                builder
                    .header("content-type", "application/json")
                    .config()
                    .timeout_global(Some(remaining))
                    .timeout_connect(Some(limits.connect))
                    .timeout_per_read(Some(limits.read))
                    .build()
                    .send(body)
            }
            None => {
                let mut builder = self.agent.get(uri.clone()).header("accept", accept);
                for (name, value) in headers {
                    builder = builder.header(*name, *value);
                }
                builder
                    .config()
                    .timeout_global(Some(remaining))
                    .timeout_connect(Some(limits.connect))
                    .timeout_per_read(Some(limits.read))
                    .build()
                    .call()
            }
        };
        result.map_err(|e| transport_error(host_of(uri), e, limits.max_bytes))
    }

    /// Parses `url` and refuses what must never be fetched before anything is resolved.
    fn checked_uri(&self, url: &str) -> Result<Uri, FetchError> {
        let bad = |reason| FetchError::BadUrl { url: shorten(url), reason };
        let uri: Uri = url.parse().map_err(|_| bad("it is not a URL"))?;
        let authority = uri.authority().ok_or_else(|| bad("it has no host"))?;
        if authority.as_str().contains('@') {
            return Err(bad("it carries a user name or password"));
        }
        match uri.scheme_str() {
            Some("https") => Ok(uri),
            Some("http") if self.plain_http_allowed(&uri) => Ok(uri),
            _ => Err(bad("only https addresses are fetched")),
        }
    }

    /// Plain http only for a test server named by its address.
    fn plain_http_allowed(&self, uri: &Uri) -> bool {
        let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
        match (host.parse::<IpAddr>(), uri.port_u16()) {
            (Ok(ip), Some(port)) => self.allowance.covers(SocketAddr::new(ip, port)),
            _ => false,
        }
    }
}

fn read_body(
    host: String,
    response: &mut ureq::http::Response<ureq::Body>,
    request: &Request,
) -> Result<Vec<u8>, FetchError> {
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (fits, expected) = match request.expect {
        Expect::Json => (content_type == "application/json" || content_type.ends_with("+json"), "JSON"),
        Expect::Image => {
            (matches!(content_type.as_str(), "image/jpeg" | "image/jpg" | "image/png"), "a PNG or JPEG image")
        }
        Expect::Css => (content_type == "text/css", "a style sheet"),
        Expect::Font => (
            content_type.starts_with("font/")
                || matches!(
                    content_type.as_str(),
                    "application/octet-stream"
                        | "application/font-sfnt"
                        | "application/x-font-ttf"
                        | "application/font-woff2"
                ),
            "a font file",
        ),
    };
    if !fits {
        return Err(FetchError::WrongType { host, found: content_type, expected });
    }
    let limit = request.limits.max_bytes;
    // A declared length over the cap is refused before reading anything.
    let declared = response.headers().get("content-length").and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(FetchError::TooLarge { host, limit });
    }
    response.body_mut().with_config().limit(limit).read_to_vec().map_err(|e| transport_error(host, e, limit))
}

fn status_error(host: String, status: u16, response: &mut ureq::http::Response<ureq::Body>) -> FetchError {
    let rate_limited = response.headers().iter().any(|(name, value)| {
        name.as_str().starts_with("x-ratelimit-remaining") && value.to_str().is_ok_and(|v| v.trim() == "0")
    });
    // The error text is only for the message; a body that does not arrive leaves it empty.
    let mut body = Vec::new();
    let _ = response.body_mut().as_reader().take(ERROR_BODY_BYTES).read_to_end(&mut body);
    FetchError::Status { host, status, body: String::from_utf8_lossy(&body).into_owned(), rate_limited }
}

fn transport_error(host: String, error: ureq::Error, limit: u64) -> FetchError {
    match error {
        ureq::Error::Timeout(_) => FetchError::Timeout { host },
        ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge { host, limit },
        ureq::Error::Other(inner) => match inner.downcast::<Refused>() {
            Ok(refused) => FetchError::Forbidden { host, address: refused.address, reason: refused.reason },
            Err(other) => FetchError::Unreachable { host, detail: other.to_string() },
        },
        ureq::Error::HostNotFound => FetchError::Unreachable { host, detail: "no such host".into() },
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => FetchError::Timeout { host },
        other => FetchError::Unreachable { host, detail: other.to_string() },
    }
}

/// The address only when the host is a name that resolved to it.
fn forbidden_detail(host: &str, address: &IpAddr, reason: &str) -> String {
    let literal = host.trim_start_matches('[').split(']').next().unwrap_or(host);
    let literal = if host.starts_with('[') { literal } else { host.split(':').next().unwrap_or(host) };
    if literal.parse::<IpAddr>().is_ok_and(|ip| ip == *address) {
        format!("it is {reason}")
    } else {
        format!("it resolves to {reason} ({address})")
    }
}

fn host_of(uri: &Uri) -> String {
    uri.authority().map(|a| a.as_str().to_owned()).unwrap_or_default()
}

fn same_origin(a: &Uri, b: &Uri) -> bool {
    a.scheme_str() == b.scheme_str() && a.authority() == b.authority()
}

fn shorten(url: &str) -> String {
    match url.char_indices().nth(80) {
        Some((end, _)) => format!("{}…", &url[..end]),
        None => url.to_owned(),
    }
}

impl FetchError {
    /// The service's own error message from an error answer's JSON body (`{"error": {"message"}}`,
    /// `{"error": "…"}`, `{"errors": ["…"]}`, `{"message": "…"}`), shortened and on one line.
    pub fn service_message(&self) -> Option<String> {
        let FetchError::Status { body, .. } = self else { return None };
        let json: serde_json::Value = serde_json::from_str(body).ok()?;
        let text = [
            json.pointer("/error/message"),
            json.get("error"),
            json.pointer("/errors/0"),
            json.get("message"),
            json.get("detail"),
        ]
        .into_iter()
        .flatten()
        .find_map(|v| v.as_str())?;
        let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).take(200).collect();
        Some(line.trim().to_owned()).filter(|l| !l.is_empty())
    }
}
