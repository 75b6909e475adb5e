//! `ai` images from a server that speaks OpenAI's image generation API.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};

use super::server::{Reply, Seen, TestServer};
use super::{QUICK, png};
use crate::http::Fetcher;
use crate::images::openai::OpenAiImages;
use crate::images::{AiSettings, ConfiguredImages, ImageKind, ImageProvider, ImageRequest, Orientation};

fn settings(server: &TestServer, model: &str) -> AiSettings {
    AiSettings {
        api_key: "sk-test".into(),
        key_variable: "OPENAI_API_KEY",
        base_url: server.url("/v1"),
        model: model.into(),
        size: None,
    }
}

fn ai(server: &TestServer, model: &str) -> ConfiguredImages {
    let provider =
        OpenAiImages::for_test(settings(server, model), Fetcher::for_test_servers(&[server.address]), Some(QUICK));
    ConfiguredImages::with_services(None, Some(("ai", Box::new(provider))), Duration::from_secs(120))
}

fn request<'a>(prompt: &'a str, folder: &'a Path, orientation: Option<Orientation>) -> ImageRequest<'a> {
    ImageRequest { kind: ImageKind::Ai, prompt, folder, orientation, confinement: None }
}

fn body(seen: &Seen) -> Value {
    serde_json::from_slice(&seen.body).unwrap()
}

/// Answers generations with base64 PNG data, or with an address for the prompt "by url".
fn generator(seen: &Seen) -> Reply {
    let host = seen.header("host").unwrap_or_default().to_owned();
    match seen.target.as_str() {
        "/v1/images/generations" if body(seen)["prompt"] == "by url" => Reply::json(
            200,
            json!({"created": 1, "data": [{"url": format!("http://{host}/files/img.png")}]}).to_string(),
        ),
        "/v1/images/generations" => Reply::json(
            200,
            json!({"created": 1, "data": [{"b64_json": base64::engine::general_purpose::STANDARD.encode(png())}]})
                .to_string(),
        ),
        "/files/img.png" => Reply::bytes("image/png", png()),
        _ => Reply::json(404, r#"{"error":{"message":"Unknown route"}}"#),
    }
}

#[test]
fn a_generated_image_is_stored_from_base64_with_the_size_of_the_node() {
    let server = TestServer::start(generator);
    let folder = tempfile::tempdir().unwrap();
    let image =
        ai(&server, "dall-e-3").image(&request("isometric city", folder.path(), Some(Orientation::Portrait))).unwrap();
    assert!(image.url.starts_with("./images/generated-") && image.url.ends_with(".png"), "{}", image.url);
    assert_eq!(std::fs::read(folder.path().join(&image.url[2..])).unwrap(), png());
    assert_eq!((image.metadata, image.note), (None, None));
    let seen = &server.seen()[0];
    assert_eq!((seen.method.as_str(), seen.header("authorization")), ("POST", Some("Bearer sk-test")));
    assert_eq!(
        body(seen),
        json!({"model": "dall-e-3", "prompt": "isometric city", "n": 1, "size": "1024x1792", "response_format": "b64_json"})
    );
}

#[test]
fn gpt_image_models_are_not_sent_response_format() {
    let server = TestServer::start(generator);
    let folder = tempfile::tempdir().unwrap();
    ai(&server, "gpt-image-1").image(&request("city", folder.path(), Some(Orientation::Landscape))).unwrap();
    let sent = body(&server.seen()[0]);
    assert_eq!(sent.get("response_format"), None);
    assert_eq!(sent["size"], "1536x1024");
}

#[test]
fn an_answer_with_an_address_is_downloaded_through_the_guard() {
    let server = TestServer::start(generator);
    let folder = tempfile::tempdir().unwrap();
    let image = ai(&server, "dall-e-2").image(&request("by url", folder.path(), None)).unwrap();
    assert_eq!(std::fs::read(folder.path().join(&image.url[2..])).unwrap(), png());
    assert_eq!(server.seen()[1].target, "/files/img.png");
    assert_eq!(server.seen()[1].header("authorization"), None, "the key goes only to the API");
}

#[test]
fn a_refused_response_format_is_retried_without_it() {
    let server = TestServer::start(|seen| {
        if body(seen).get("response_format").is_some() {
            return Reply::json(
                400,
                r#"{"error":{"message":"Unknown parameter: 'response_format'.","param":"response_format"}}"#,
            );
        }
        generator(seen)
    });
    let folder = tempfile::tempdir().unwrap();
    let image = ai(&server, "some-new-model").image(&request("city", folder.path(), None)).unwrap();
    assert_eq!(image.note, None);
    assert_eq!(server.count(), 2);
}

#[test]
fn an_image_from_an_earlier_session_is_reused_without_a_request() {
    let server = TestServer::start(generator);
    let folder = tempfile::tempdir().unwrap();
    let first = ai(&server, "dall-e-3").image(&request("city", folder.path(), None)).unwrap();
    let later_session = ai(&server, "dall-e-3").image(&request("city", folder.path(), None)).unwrap();
    assert_eq!((first.url, server.count()), (later_session.url, 1));
    ai(&server, "dall-e-2").image(&request("city", folder.path(), None)).unwrap();
    assert_eq!(server.count(), 2, "another model is another image");
}

#[test]
fn errors_name_the_setting_to_check() {
    let cases = [
        (
            401,
            r#"{"error":{"message":"Incorrect API key provided"}}"#,
            "OPENAI_API_KEY is rejected by the image service (401): check the key",
        ),
        (
            400,
            r#"{"error":{"message":"Your request was rejected by the safety system"}}"#,
            "the image service refused the request (400: Your request was rejected by the safety system): rephrase the prompt",
        ),
        (
            404,
            r#"{"error":{"message":"The model does not exist"}}"#,
            "/v1/images/generations is not found (404: The model does not exist): check NIB_IMAGE_BASE_URL and NIB_IMAGE_MODEL",
        ),
        (
            429,
            r#"{"error":{"message":"Billing hard limit has been reached"}}"#,
            "the image service's rate limit or quota is used up (429: Billing hard limit has been reached)",
        ),
        (500, "{}", "the image service is failing (500): try again later"),
    ];
    for (status, answer, advice) in cases {
        let server = TestServer::start(move |_| Reply::json(status, answer));
        let folder = tempfile::tempdir().unwrap();
        let image = ai(&server, "dall-e-3").image(&request("city", folder.path(), None)).unwrap();
        let note = image.note.unwrap();
        assert!(note.contains(advice), "{status}: {note}");
        assert!(
            note.contains(
                "used an offline image drawn from the prompt instead. snapshot_layout lists it as a placeholder"
            ),
            "{note}"
        );
    }
}

#[test]
fn a_plain_http_base_url_is_refused_with_advice() {
    let folder = tempfile::tempdir().unwrap();
    let settings = AiSettings {
        api_key: "k".into(),
        key_variable: "NIB_IMAGE_API_KEY",
        base_url: "http://images.example.com/v1".into(),
        model: "m".into(),
        size: None,
    };
    let provider = OpenAiImages::for_test(settings, Fetcher::default(), Some(QUICK));
    let images = ConfiguredImages::with_services(None, Some(("ai", Box::new(provider))), Duration::from_secs(120));
    let note = images.image(&request("city", folder.path(), None)).unwrap().note.unwrap();
    assert!(note.starts_with("NIB_IMAGE_BASE_URL cannot be used"), "{note}");
    assert!(note.contains("only https addresses are fetched"), "{note}");
}
