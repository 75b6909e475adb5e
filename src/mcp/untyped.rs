//! Requests rmcp could not read as a method it knows. rmcp reads each request into the type of
//! its method and, when the params do not fit that type, falls back to an untyped request, which
//! its default handler answers "method not found" — telling a client that tools/call does not
//! exist when only its params are wrong. Here a method nib serves whose params do not fit is
//! invalid params (-32602), with the reason; any other method stays method not found (-32601).

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CustomRequest, DiscoverRequestParams, ErrorCode, InitializeRequestParams,
    PaginatedRequestParams,
};
use serde::de::DeserializeOwned;
use serde_json::json;

/// The methods nib answers, each with the shape of its params for the hint.
const SERVED: &[(&str, &str)] = &[
    (
        "initialize",
        "{\"protocolVersion\": \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": {\"name\": \"…\", \"version\": \"…\"}}",
    ),
    ("ping", "absent, or {}"),
    ("server/discover", "absent, or {}"),
    ("tools/list", "absent, or {\"cursor\": \"…\"}"),
    ("tools/call", "{\"name\": \"a tool from tools/list\", \"arguments\": {an object of the tool's parameters}}"),
];

/// The error answer to a request rmcp could not read as a method it knows.
pub fn refusal(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    let Some((_, shape)) = SERVED.iter().find(|(served, _)| *served == method) else {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
            Some(
                json!({ "hint": "nib answers initialize, ping, tools/list and tools/call; a tool's name goes in the params of tools/call" }),
            ),
        );
    };
    let reason = match method {
        "initialize" => misfit::<InitializeRequestParams>(request),
        "server/discover" => misfit::<DiscoverRequestParams>(request),
        "tools/list" => misfit::<PaginatedRequestParams>(request),
        "tools/call" => misfit::<CallToolRequestParams>(request),
        _ => None,
    };
    let reason = reason.unwrap_or_else(|| "they do not fit the method's schema".to_owned());
    ErrorData::invalid_params(
        format!("Invalid params for {method}: {reason}"),
        Some(json!({ "hint": format!("the params of {method} are {shape}") })),
    )
}

/// Why the request's params are not a `P`, if they are not.
fn misfit<P: DeserializeOwned>(request: &CustomRequest) -> Option<String> {
    match request.params_as::<P>() {
        Ok(Some(_)) => None,
        Ok(None) => Some("the params are missing".to_owned()),
        Err(error) => Some(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_methods_whose_params_do_not_fit_are_invalid_params() {
        let refused = refusal(&CustomRequest::new("tools/call", Some(json!({ "name": "x", "arguments": "x" }))));
        assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
        assert!(
            refused.message.contains("tools/call") && refused.message.contains("invalid type"),
            "{}",
            refused.message
        );
        let missing = refusal(&CustomRequest::new("tools/call", Some(json!({ "arguments": {} }))));
        assert!(missing.message.contains("missing field `name`"), "{}", missing.message);
        assert_eq!(refusal(&CustomRequest::new("initialize", None)).code, ErrorCode::INVALID_PARAMS);
    }

    #[test]
    fn unknown_methods_stay_method_not_found() {
        let refused = refusal(&CustomRequest::new("foo/bar", None));
        assert_eq!(refused.code, ErrorCode::METHOD_NOT_FOUND);
        assert!(refused.message.contains("foo/bar"));
    }
}
