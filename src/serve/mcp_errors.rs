//! What an MCP client gets when its HTTP request to `/mcp` is wrong: a JSON-RPC error object it
//! can parse (`{"jsonrpc": "2.0", "id": null, "error": {code, message, data}}`) with a fitting
//! HTTP status, as `nib mcp` answers a bad line on standard input, instead of the plain text
//! the SDK's transport writes (a chunked 40 MiB body got a 500, malformed JSON a 415 text).
//!
//! POST bodies are read here first, within [`MAX_MESSAGE_BYTES`], and checked for being JSON
//! sent as JSON; what the SDK still refuses after that (a JSON value that is no JSON-RPC
//! message, a missing `Accept`) is rewritten into the same shape on the way out.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::mcp::MAX_MESSAGE_BYTES;

/// JSON-RPC: the body is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the JSON is not a valid request.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's range for server errors: refused by the server's rules (size, access).
const REFUSED: i64 = -32000;

/// Whether a request to `path` is for the MCP endpoint (its errors are JSON-RPC errors).
pub fn is_mcp(path: &str) -> bool {
    path == "/mcp" || path.starts_with("/mcp/")
}

/// A JSON-RPC error answer with `status`.
pub fn error(status: StatusCode, code: i64, message: &str, hint: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message, "data": {"httpStatus": status.as_u16(), "hint": hint}},
    });
    let mut response = (status, body.to_string()).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A refusal of the access checks (Host, Origin, token, size) as a JSON-RPC error.
pub fn refusal(status: StatusCode, message: &str) -> Response {
    error(status, REFUSED, message, "see the message; the request was not run")
}

/// Reads and checks a POST body to `/mcp`, runs the request, and rewrites a plain-text error
/// of the SDK into a JSON-RPC error.
pub async fn checked(request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return rewrite(next.run(request).await).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
        Ok(bytes) => bytes,
        Err(failure) => {
            let too_large = std::error::Error::source(&failure)
                .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
            return if too_large {
                error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    REFUSED,
                    &format!("the request body is larger than the {MAX_MESSAGE_BYTES} bytes a message may have"),
                    "send smaller messages: split a large batch_design into several calls",
                )
            } else {
                error(
                    StatusCode::BAD_REQUEST,
                    PARSE_ERROR,
                    &format!("the request body could not be read: {failure}"),
                    "send the whole body",
                )
            };
        }
    };
    let json_type = parts.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|value| {
        value.split(';').next().is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json_type {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            PARSE_ERROR,
            "Parse error: an MCP message is JSON sent with Content-Type: application/json",
            "set the header Content-Type: application/json",
        );
    }
    if let Err(problem) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
        return error(
            StatusCode::BAD_REQUEST,
            PARSE_ERROR,
            &format!("Parse error: the body is not JSON: {problem}"),
            "send one JSON-RPC 2.0 message (or a batch) as the body",
        );
    }
    let request = Request::from_parts(parts, Body::from(bytes));
    rewrite(next.run(request).await).await
}

/// `response` as it is when it succeeded or is JSON or an event stream already; else its text
/// inside a JSON-RPC error with a fitting status.
async fn rewrite(response: Response) -> Response {
    let status = response.status();
    let content_type =
        response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    if !(status.is_client_error() || status.is_server_error())
        || content_type.starts_with("application/json")
        || content_type.starts_with("text/event-stream")
    {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), 64 * 1024).await.unwrap_or_else(|_| Bytes::new());
    let text = String::from_utf8_lossy(&text).into_owned();
    match status {
        // The SDK's word for JSON that is no JSON-RPC message.
        StatusCode::UNSUPPORTED_MEDIA_TYPE => error(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            &format!("Invalid Request: the body is JSON but not a JSON-RPC 2.0 message ({text})"),
            "send {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": …, \"params\": …}",
        ),
        StatusCode::NOT_ACCEPTABLE => error(
            status,
            INVALID_REQUEST,
            &format!("Invalid Request: {text}"),
            "send the header Accept: application/json, text/event-stream",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => {
            error(status, REFUSED, &text, "send smaller messages: split a large batch_design into several calls")
        }
        _ if text.contains(super::sessions::FULL) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            REFUSED,
            text.find(super::sessions::FULL).map_or(text.as_str(), |at| &text[at..]),
            "close MCP clients you no longer use, or try again in a few seconds",
        ),
        _ if status.is_client_error() => error(status, INVALID_REQUEST, &text, "see the message"),
        _ => error(status, -32603, &format!("Internal error: {text}"), "try again; the server log has details"),
    }
}
