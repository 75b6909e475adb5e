//! The page itself: three static files built into the binary (no JavaScript toolchain, nothing
//! fetched from elsewhere), served with a content security policy that allows only this server.

use axum::Router;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::AppState;

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");

/// Scripts, styles, images and connections from this server only; frame images are blobs.
const POLICY: &str = "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// The page's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(|| async { asset(INDEX, "text/html; charset=utf-8") }))
        .route("/app.js", get(|| async { asset(SCRIPT, "text/javascript; charset=utf-8") }))
        .route("/style.css", get(|| async { asset(STYLE, "text/css; charset=utf-8") }))
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response =
        ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body).into_response();
    response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    response
}

/// Any other path: what exists, for a person or an agent that guessed.
pub async fn not_found(uri: Uri) -> Response {
    let message = format!(
        "nothing at {}: the page is at /, the MCP endpoint at /mcp, the page's requests under /api/",
        uri.path()
    );
    (StatusCode::NOT_FOUND, message).into_response()
}
