//! Who may talk to `nib serve`: the checks in front of every route. A local development server
//! is reachable by every web page the person visits (through their browser) and, beyond
//! loopback, by every machine on the network, so:
//! - `Host` must name this server (a DNS-rebinding page has its own name there);
//! - `Origin`, when a browser sends one, must be this server's own (or one allowed on the
//!   command line), and `Sec-Fetch-Site` must not say another site sent the request;
//! - beyond loopback, a token: `Authorization: Bearer …` from MCP clients, or the cookie a
//!   browser gets from the one-time link (or from typing the token at `/login`);
//! - bodies are bounded before anything reads them.

use std::net::SocketAddr;
use std::sync::Mutex;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::{AppState, ServeError, ServeOptions};

/// Largest body a page request (`/api/…`, `/login`) may have: a selection of
/// [`crate::tools::MAX_SELECTED`] ids of ~100 bytes each is 100 KB; MCP messages have their own
/// bound, [`crate::mcp::MAX_MESSAGE_BYTES`].
pub const MAX_API_BODY_BYTES: usize = 256 * 1024;

/// Shortest token accepted from `--token`: 16 characters of a random word are enough against
/// guessing over a network (the generated ones have 32 hexadecimal digits, 128 bits).
pub const MIN_TOKEN_CHARS: usize = 16;

/// Random bytes in a generated token or cookie secret: 128 bits.
const SECRET_BYTES: usize = 16;

/// The cookie that carries a logged-in browser's secret.
const COOKIE_NAME: &str = "nib_session";

/// Why a request was refused.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// No `Host` header, or one that is not this server's name.
    #[error(
        "refused: the Host header {0:?} does not name this server (protection against DNS rebinding); connect to the address nib serve printed, or start it with --allow-host NAME"
    )]
    Host(String),
    /// A browser page of another origin sent the request.
    #[error(
        "refused: requests from the web page origin {0:?} are not allowed; open the page nib serve printed, or start it with --allow-origin ORIGIN"
    )]
    Origin(String),
    /// `Sec-Fetch-Site` says another site made the browser send this.
    #[error("refused: another web site asked for this ({0}); open the page nib serve printed")]
    CrossSite(String),
    /// The token is missing or wrong.
    #[error(
        "refused: this server needs its token: send the header Authorization: Bearer TOKEN (the token nib serve printed), or open the page's one-time link"
    )]
    Token,
    /// The body is larger than allowed.
    #[error("refused: the request body has {0} bytes, more than the {1} allowed here")]
    TooLarge(u64, usize),
}

impl Refusal {
    fn status(&self) -> StatusCode {
        match self {
            Refusal::Host(_) => StatusCode::MISDIRECTED_REQUEST,
            Refusal::Origin(_) | Refusal::CrossSite(_) => StatusCode::FORBIDDEN,
            Refusal::Token => StatusCode::UNAUTHORIZED,
            Refusal::TooLarge(..) => StatusCode::PAYLOAD_TOO_LARGE,
        }
    }
}

impl Refusal {
    /// The answer: a JSON-RPC error to an MCP client, text to anyone else.
    fn answer(self, mcp: bool) -> Response {
        if !mcp {
            return self.into_response();
        }
        let mut response = super::mcp_errors::refusal(self.status(), &self.to_string());
        if matches!(self, Refusal::Token) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut response = (self.status(), self.to_string()).into_response();
        if matches!(self, Refusal::Token) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// The access rules of one running server.
pub struct Access {
    /// Host names answered to (lower case, IPv6 in brackets); `None`: any, which only happens
    /// beyond loopback on an unspecified address, where the token is the protection.
    hosts: Option<Vec<String>>,
    /// The port in `Host` must be this one when given.
    port: u16,
    /// Origins allowed beside the server's own.
    origins: Vec<String>,
    /// The bearer token, when required.
    token: Option<String>,
    /// What a logged-in browser's cookie holds.
    cookie_secret: Option<String>,
    /// The code of the one-time login link, until it is used.
    one_time: Mutex<Option<String>>,
    /// Where the page is.
    base_url: String,
}

impl Access {
    /// The rules for a server asked for `options`, listening at `address`.
    pub fn new(options: &ServeOptions, address: SocketAddr) -> Result<Access, ServeError> {
        let loopback = address.ip().is_loopback();
        let token = match (&options.token, loopback) {
            (Some(token), _) => Some(token.clone()),
            (None, true) => None,
            (None, false) => Some(random_secret()?),
        };
        let mut hosts: Vec<String> = options.allowed_hosts.iter().map(|h| h.to_ascii_lowercase()).collect();
        let any_host = address.ip().is_unspecified() && hosts.is_empty();
        if loopback || address.ip().is_unspecified() {
            hosts.extend(["localhost", "127.0.0.1", "[::1]"].map(str::to_owned));
        }
        if !address.ip().is_unspecified() {
            hosts.push(host_of(address));
        }
        let (cookie_secret, one_time) = match &token {
            Some(_) => (Some(random_secret()?), Some(random_secret()?)),
            None => (None, None),
        };
        let shown = if address.ip().is_unspecified() {
            SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), address.port())
        } else {
            address
        };
        Ok(Access {
            hosts: (!any_host).then_some(hosts),
            port: address.port(),
            origins: options.allowed_origins.iter().map(|o| o.trim_end_matches('/').to_ascii_lowercase()).collect(),
            token,
            cookie_secret,
            one_time: Mutex::new(one_time),
            base_url: format!("http://{shown}"),
        })
    }

    /// The token, when one is required.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The page's address: with a token, the one-time link that logs a browser in.
    pub fn page_url(&self) -> String {
        match self.one_time.lock().unwrap_or_else(|p| p.into_inner()).as_deref() {
            Some(code) => format!("{}/login?code={code}", self.base_url),
            None => format!("{}/", self.base_url),
        }
    }

    /// Checks a request's Host, Origin, Sec-Fetch-Site and credentials.
    fn check(&self, method: &Method, path: &str, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = header_text(headers, header::HOST).unwrap_or_default().to_ascii_lowercase();
        if !self.host_allowed(&host) {
            return Err(Refusal::Host(host));
        }
        if let Some(origin) = header_text(headers, header::ORIGIN) {
            let origin = origin.to_ascii_lowercase();
            if origin != format!("http://{host}") && !self.origins.contains(&origin) {
                return Err(Refusal::Origin(origin));
            }
        }
        if let Some(site) = header_text(headers, "sec-fetch-site") {
            // A link from another site may open the page itself; nothing else.
            let navigation = *method == Method::GET && path == "/";
            let allowed = matches!(site, "same-origin" | "none") || navigation;
            if !allowed
                && header_text(headers, header::ORIGIN).is_none_or(|o| !self.origins.contains(&o.to_ascii_lowercase()))
            {
                return Err(Refusal::CrossSite(site.to_owned()));
            }
        }
        // The login form and its style sheet are what a browser without the cookie needs.
        let open = path == "/login" || path == "/style.css";
        if self.token.is_some() && !open && !self.authenticated(headers) {
            return Err(Refusal::Token);
        }
        Ok(())
    }

    fn host_allowed(&self, host: &str) -> bool {
        let Some(hosts) = &self.hosts else { return !host.is_empty() };
        let (name, port) = split_host(host);
        hosts.iter().any(|h| h == name) && port.is_none_or(|p| p == self.port.to_string())
    }

    /// True when the request carries the token or a logged-in browser's cookie.
    fn authenticated(&self, headers: &HeaderMap) -> bool {
        let bearer = header_text(headers, header::AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "));
        if let (Some(given), Some(token)) = (bearer, &self.token)
            && same_secret(given.trim(), token)
        {
            return true;
        }
        let Some(secret) = &self.cookie_secret else { return false };
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(name, value)| name == COOKIE_NAME && same_secret(value, secret))
    }

    /// Takes the one-time code when `code` is it: the link works once.
    fn redeem(&self, code: &str) -> bool {
        let mut one_time = self.one_time.lock().unwrap_or_else(|p| p.into_inner());
        if one_time.as_deref().is_some_and(|expected| same_secret(code, expected)) {
            *one_time = None;
            return true;
        }
        false
    }

    /// The answer that logs a browser in: its cookie, and the way to the page.
    fn logged_in(&self) -> Response {
        let secret = self.cookie_secret.as_deref().unwrap_or_default();
        let cookie = format!("{COOKIE_NAME}={secret}; HttpOnly; SameSite=Strict; Path=/");
        let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        response
    }
}

/// `name[:port]` split; IPv6 names keep their brackets.
fn split_host(host: &str) -> (&str, Option<&str>) {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(end) => (&host[..=end], host[end + 1..].strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (host, None),
    }
}

/// The Host name of an address as a browser writes it.
fn host_of(address: SocketAddr) -> String {
    match address {
        SocketAddr::V4(v4) => v4.ip().to_string(),
        SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
    }
}

fn header_text(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Compares secrets in time that does not depend on where they differ, so that response times
/// do not reveal how much of a guess was right.
fn same_secret(given: &str, expected: &str) -> bool {
    let (given, expected) = (given.as_bytes(), expected.as_bytes());
    let mut difference = u8::from(given.len() != expected.len());
    for (index, byte) in expected.iter().enumerate() {
        difference |= byte ^ given.get(index).copied().unwrap_or(0);
    }
    difference == 0
}

/// 128 random bits from the operating system, as hexadecimal.
fn random_secret() -> Result<String, ServeError> {
    let mut bytes = [0u8; SECRET_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| ServeError::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Checks every request before any route sees it, and adds the headers every answer carries.
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let access = &state.access;
    let path = request.uri().path().to_owned();
    let mcp = super::mcp_errors::is_mcp(&path);
    if let Err(refusal) = access.check(request.method(), &path, request.headers()) {
        tracing::info!(%path, "{refusal}");
        // A person opening the page without the cookie is shown the way in, not an error.
        if matches!(refusal, Refusal::Token) && request.method() == Method::GET && path == "/" {
            return (StatusCode::SEE_OTHER, [(header::LOCATION, "/login")]).into_response();
        }
        return refusal.answer(mcp);
    }
    // The connection showed it may talk here: it gives way after those that did not.
    if let Some(slot) = request.extensions().get::<std::sync::Arc<super::connections::Slot>>() {
        slot.prove();
    }
    let limit = if mcp { crate::mcp::MAX_MESSAGE_BYTES } else { MAX_API_BODY_BYTES };
    let declared = header_text(request.headers(), header::CONTENT_LENGTH).and_then(|v| v.parse::<u64>().ok());
    if let Some(length) = declared.filter(|length| *length > limit as u64) {
        return Refusal::TooLarge(length, limit).answer(mcp);
    }
    // A body without a length (chunked) is cut off at the limit as it streams; MCP messages are
    // read and checked whole (with a JSON-RPC error for what is wrong with them).
    let mut response = if mcp {
        super::mcp_errors::checked(request, next).await
    } else {
        next.run(request.map(|body| Body::new(http_body_util::Limited::new(body, limit)))).await
    };
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// The login routes: the one-time link and the token form.
pub fn routes() -> Router<AppState> {
    Router::new().route("/login", get(login_link).post(login_form))
}

#[derive(Deserialize)]
struct LoginLink {
    code: Option<String>,
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

/// `GET /login?code=…`: the one-time link; without a valid code, the form.
async fn login_link(State(state): State<AppState>, Query(link): Query<LoginLink>) -> Response {
    let access = &state.access;
    if access.token.is_none() {
        return (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
    }
    match link.code {
        Some(code) if access.redeem(&code) => access.logged_in(),
        Some(_) => (
            StatusCode::UNAUTHORIZED,
            Html(login_page("That link was used already or is not this server's. Enter the token nib serve printed.")),
        )
            .into_response(),
        None => Html(login_page("This server needs its token (nib serve printed it).")).into_response(),
    }
}

/// `POST /login` with `token=…`: logs the browser in when the token is right.
async fn login_form(State(state): State<AppState>, axum::Form(form): axum::Form<LoginForm>) -> Response {
    let access = &state.access;
    match &access.token {
        Some(token) if same_secret(form.token.trim(), token) => access.logged_in(),
        Some(_) => {
            (StatusCode::UNAUTHORIZED, Html(login_page("That is not the token. Enter the token nib serve printed.")))
                .into_response()
        }
        None => (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response(),
    }
}

fn login_page(message: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>nib — log in</title><link rel=\"stylesheet\" href=\"/style.css\"></head>\
         <body class=\"login\"><form method=\"post\" action=\"/login\"><h1>nib serve</h1><p>{message}</p>\
         <label>Token <input name=\"token\" type=\"password\" autocomplete=\"off\" autofocus></label> <button>Open</button></form></body></html>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(listen: &str) -> (ServeOptions, SocketAddr) {
        let address: SocketAddr = listen.parse().unwrap();
        let options = ServeOptions {
            root: ".".into(),
            listen: address,
            token: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            fonts: Default::default(),
            tools: Default::default(),
            body_timeout: super::super::BODY_READ_TIMEOUT,
        };
        (options, address)
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn loopback_answers_only_loopback_names_on_its_port() {
        let (options, address) = options("127.0.0.1:7777");
        let access = Access::new(&options, address).unwrap();
        let ok = |host: &str| access.check(&Method::GET, "/", &headers(&[("host", host)])).is_ok();
        assert!(ok("127.0.0.1:7777") && ok("localhost:7777") && ok("LOCALHOST") && ok("[::1]:7777"));
        assert!(!ok("evil.example:7777") && !ok("127.0.0.1:8888") && !ok("") && !ok("[::1"));
        assert!(access.token().is_none());
    }

    #[test]
    fn a_foreign_origin_or_cross_site_fetch_is_refused() {
        let (mut options, address) = options("127.0.0.1:7777");
        options.allowed_origins = vec!["http://localhost:6274/".into()];
        let access = Access::new(&options, address).unwrap();
        let check = |pairs: &[(&'static str, &str)]| access.check(&Method::POST, "/mcp", &headers(pairs));
        assert!(check(&[("host", "127.0.0.1:7777"), ("origin", "http://127.0.0.1:7777")]).is_ok());
        assert!(check(&[("host", "127.0.0.1:7777"), ("origin", "http://localhost:6274")]).is_ok());
        assert!(matches!(
            check(&[("host", "127.0.0.1:7777"), ("origin", "https://evil.example")]),
            Err(Refusal::Origin(_))
        ));
        assert!(matches!(check(&[("host", "127.0.0.1:7777"), ("origin", "null")]), Err(Refusal::Origin(_))));
        assert!(matches!(
            check(&[("host", "127.0.0.1:7777"), ("sec-fetch-site", "cross-site")]),
            Err(Refusal::CrossSite(_))
        ));
        // A link from elsewhere may open the page itself.
        let navigation = headers(&[("host", "127.0.0.1:7777"), ("sec-fetch-site", "cross-site")]);
        assert!(access.check(&Method::GET, "/", &navigation).is_ok());
    }

    #[test]
    fn beyond_loopback_a_token_is_generated_and_required() {
        let (options, address) = options("0.0.0.0:7777");
        let access = Access::new(&options, address).unwrap();
        let token = access.token().unwrap().to_owned();
        assert_eq!(token.len(), 2 * SECRET_BYTES);
        let check = |pairs: &[(&'static str, &str)]| access.check(&Method::POST, "/mcp", &headers(pairs));
        assert!(matches!(check(&[("host", "10.1.2.3:7777")]), Err(Refusal::Token)));
        assert!(access.check(&Method::GET, "/login", &headers(&[("host", "10.1.2.3:7777")])).is_ok());
        assert!(matches!(access.check(&Method::GET, "/", &headers(&[("host", "10.1.2.3:7777")])), Err(Refusal::Token)));
        assert!(matches!(check(&[("host", "10.1.2.3:7777"), ("authorization", "Bearer wrong")]), Err(Refusal::Token)));
        assert!(check(&[("host", "10.1.2.3:7777"), ("authorization", &format!("Bearer {token}"))]).is_ok());
        // The one-time link works once, and its cookie lets the browser in.
        let url = access.page_url();
        let code = url.split("code=").nth(1).unwrap().to_owned();
        assert!(access.redeem(&code) && !access.redeem(&code));
        let cookie = access.logged_in().headers()[header::SET_COOKIE].to_str().unwrap().to_owned();
        assert!(cookie.contains("HttpOnly"));
        let pair = cookie.split(';').next().unwrap();
        assert!(check(&[("host", "10.1.2.3:7777"), ("cookie", &format!("theme=dark; {pair}"))]).is_ok());
        assert!(matches!(check(&[("host", "10.1.2.3:7777"), ("cookie", "nib_session=guess")]), Err(Refusal::Token)));
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abcdef", "abcdef"));
        assert!(!same_secret("abcde", "abcdef") && !same_secret("abcdefg", "abcdef") && !same_secret("", "abcdef"));
    }
}
