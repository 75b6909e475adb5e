//! The guarded fetcher against the loopback test server: limits, content types, redirects and
//! the address guard. Forbidden addresses are refused before any connection is attempted.

use std::time::{Duration, Instant};

use super::server::{Reply, TestServer};
use super::{QUICK, jpeg};
use crate::http::{Expect, FetchError, Fetcher, Limits, Request};

fn get<'a>(url: &'a str, expect: Expect, limits: Limits) -> Request<'a> {
    Request { url, json_body: None, headers: &[], expect, limits }
}

fn fetcher(server: &TestServer) -> Fetcher {
    Fetcher::for_test_servers(&[server.address])
}

#[test]
fn an_image_and_a_json_answer_arrive_whole() {
    let image = jpeg(3000);
    let body = image.clone();
    let server = TestServer::start(move |seen| match seen.target.as_str() {
        "/photo.jpg" => Reply::bytes("image/jpeg", body.clone()),
        _ => Reply::json(200, r#"{"ok":true}"#),
    });
    let http = fetcher(&server);
    let url = server.url("/photo.jpg");
    let answer = http.fetch(&get(&url, Expect::Image, QUICK)).unwrap();
    assert_eq!(answer, image);
    let url = server.url("/api");
    let post = Request {
        json_body: Some(b"{\"a\":1}"),
        headers: &[("authorization", "Bearer k")],
        ..get(&url, Expect::Json, QUICK)
    };
    assert_eq!(http.fetch(&post).unwrap(), br#"{"ok":true}"#);
    let seen = server.seen();
    assert_eq!((seen[1].method.as_str(), seen[1].body.as_slice()), ("POST", b"{\"a\":1}".as_slice()));
    assert_eq!(seen[1].header("authorization"), Some("Bearer k"));
    assert_eq!(seen[1].header("content-type"), Some("application/json"));
}

#[test]
fn a_wrong_content_type_is_refused() {
    let server = TestServer::start(|seen| match seen.target.as_str() {
        "/page" => Reply::bytes("text/html; charset=utf-8", b"<html>".to_vec()),
        "/gif" => Reply::bytes("image/gif", b"GIF89a".to_vec()),
        _ => Reply::bytes("image/png", b"\x89PNG".to_vec()),
    });
    let http = fetcher(&server);
    for (path, expect) in [("/page", Expect::Image), ("/gif", Expect::Image), ("/png", Expect::Json)] {
        let url = server.url(path);
        let error = http.fetch(&get(&url, expect, QUICK)).unwrap_err();
        assert!(matches!(error, FetchError::WrongType { .. }), "{path}: {error}");
    }
}

#[test]
fn oversized_bodies_are_refused_declared_or_streamed() {
    let server = TestServer::start(|seen| match seen.target.as_str() {
        "/declared" => Reply::bytes("image/jpeg", jpeg(200_000)),
        // 1 MiB in 64 KiB pieces without a length: the cap must stop reading, not the end.
        _ => Reply::Stream { content_type: "image/jpeg", chunk: 64 << 10, chunks: 16, every: Duration::from_millis(1) },
    });
    let http = fetcher(&server);
    for path in ["/declared", "/streamed"] {
        let url = server.url(path);
        let error = http.fetch(&get(&url, Expect::Image, QUICK)).unwrap_err();
        assert!(matches!(error, FetchError::TooLarge { limit: 65536, .. }), "{path}: {error}");
    }
}

#[test]
fn a_silent_server_times_out_and_a_trickling_one_meets_the_deadline() {
    let server = TestServer::start(|seen| match seen.target.as_str() {
        "/late" => Reply::Late(Duration::from_secs(2), Box::new(Reply::json(200, "{}"))),
        // Each piece comes well within the read timeout; the whole takes far longer than the deadline.
        _ => Reply::Stream { content_type: "image/jpeg", chunk: 10, chunks: 40, every: Duration::from_millis(100) },
    });
    let http = fetcher(&server);
    for path in ["/late", "/trickle"] {
        let url = server.url(path);
        let started = Instant::now();
        let error = http.fetch(&get(&url, Expect::Image, QUICK)).unwrap_err();
        assert!(matches!(error, FetchError::Timeout { .. }), "{path}: {error}");
        assert!(started.elapsed() < Duration::from_millis(2500), "{path} took {:?}", started.elapsed());
    }
}

#[test]
fn error_statuses_carry_the_service_message_and_the_rate_limit() {
    let server = TestServer::start(|seen| match seen.target.as_str() {
        "/401" => Reply::json(401, r#"{"errors":["OAuth error: The access token is invalid"]}"#),
        "/403" => Reply::json(403, "Rate Limit Exceeded").with_header("X-Ratelimit-Remaining", "0"),
        _ => Reply::json(500, r#"{"error":{"message":"The server had an error"}}"#),
    });
    let http = fetcher(&server);
    let fetch = |path: &str| http.fetch(&get(&server.url(path), Expect::Json, QUICK)).unwrap_err();
    let unauthorized = fetch("/401");
    assert!(matches!(unauthorized, FetchError::Status { status: 401, rate_limited: false, .. }));
    assert_eq!(unauthorized.service_message().unwrap(), "OAuth error: The access token is invalid");
    assert!(matches!(fetch("/403"), FetchError::Status { status: 403, rate_limited: true, .. }));
    assert_eq!(fetch("/500").service_message().unwrap(), "The server had an error");
}

#[test]
fn redirects_are_followed_hop_by_hop_and_credentials_stay_with_the_first_origin() {
    let other = TestServer::start(|_| Reply::bytes("image/png", b"\x89PNG\r\n\x1a\nrest".to_vec()));
    let elsewhere = other.url("/final.png");
    let server = TestServer::start(move |seen| match seen.target.as_str() {
        "/start" => Reply::redirect(302, "/middle"),
        "/middle" => Reply::redirect(307, &elsewhere),
        "/loop" => Reply::redirect(301, "/loop"),
        _ => Reply::json(404, "{}"),
    });
    let http = Fetcher::for_test_servers(&[server.address, other.address]);
    let url = server.url("/start");
    let request = Request { headers: &[("authorization", "Client-ID secret")], ..get(&url, Expect::Image, QUICK) };
    assert!(http.fetch(&request).unwrap().starts_with(b"\x89PNG"));
    assert_eq!(server.seen()[1].header("authorization"), Some("Client-ID secret"), "same origin keeps it");
    assert_eq!(other.seen()[0].header("authorization"), None, "another origin never gets it");
    let url = server.url("/loop");
    let error = http.fetch(&get(&url, Expect::Image, QUICK)).unwrap_err();
    assert!(matches!(error, FetchError::Redirect { .. }), "{error}");
    assert_eq!(server.count(), 2 + 4, "the first request and three redirects");
}

#[test]
fn a_redirect_to_a_forbidden_address_is_refused_before_connecting() {
    let outside = TestServer::start(|_| Reply::json(200, "{}"));
    let forbidden = [
        format!("https://{}/not-allowed-port", outside.address),
        format!("http://{}/plain-http", outside.address),
        "https://169.254.169.254/latest/meta-data/".to_owned(),
        "https://10.0.0.1/".to_owned(),
        "https://[::ffff:127.0.0.1]/".to_owned(),
        "https://[fd00:ec2::254]/".to_owned(),
        "https://localhost/".to_owned(),
    ];
    let targets = forbidden.clone();
    let server = TestServer::start(move |seen| {
        let index: usize = seen.target.trim_start_matches('/').parse().unwrap_or(0);
        Reply::redirect(302, &targets[index])
    });
    let http = fetcher(&server);
    for (index, target) in forbidden.iter().enumerate() {
        let url = server.url(&format!("/{index}"));
        let error = http.fetch(&get(&url, Expect::Json, QUICK)).unwrap_err();
        if target.starts_with("http:") {
            assert!(matches!(error, FetchError::BadUrl { reason: "only https addresses are fetched", .. }), "{error}");
        } else {
            assert!(matches!(error, FetchError::Forbidden { .. }), "{target}: {error}");
        }
    }
    assert_eq!(outside.count(), 0, "the server outside the allowance was never reached");
}

#[test]
fn without_the_test_allowance_loopback_and_plain_http_are_refused() {
    let server = TestServer::start(|_| Reply::json(200, "{}"));
    let http = Fetcher::default();
    let https = format!("https://{}/", server.address);
    let error = http.fetch(&get(&https, Expect::Json, QUICK)).unwrap_err();
    assert!(matches!(error, FetchError::Forbidden { reason: "a loopback address", .. }), "{error}");
    assert_eq!(error.to_string(), format!("refused to contact {}: it is a loopback address", server.address));
    let named = format!("https://localhost:{}/", server.address.port());
    let error = http.fetch(&get(&named, Expect::Json, QUICK)).unwrap_err().to_string();
    assert!(
        error.contains("refused to contact localhost:") && error.contains("it resolves to a loopback address ("),
        "{error}"
    );
    let error = http.fetch(&get(&server.url("/"), Expect::Json, QUICK)).unwrap_err();
    assert!(matches!(error, FetchError::BadUrl { reason: "only https addresses are fetched", .. }), "{error}");
    for url in ["https://user:pw@example.com/", "ftp://example.com/", "not a url"] {
        assert!(matches!(http.fetch(&get(url, Expect::Json, QUICK)).unwrap_err(), FetchError::BadUrl { .. }), "{url}");
    }
    assert_eq!(server.count(), 0);
}
