//! `stock` images from a server that speaks Unsplash's API: search, download, the download
//! event, attribution, errors and the cache.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::server::{Reply, Seen, TestServer};
use super::{QUICK, jpeg};
use crate::http::Fetcher;
use crate::images::unsplash::Unsplash;
use crate::images::{ConfiguredImages, ImageKind, ImageProvider, ImageRequest, Orientation, ProvidedImage};

fn photo(host: &str, id: &str, image_path: &str) -> serde_json::Value {
    json!({
        "id": id,
        "urls": {"raw": format!("http://{host}/raw/{id}?ixid=1"), "regular": format!("http://{host}{image_path}")},
        "user": {"username": format!("user_{id}"), "name": format!("Photographer {id}"), "links": {"html": format!("https://unsplash.com/@user_{id}")}},
        "links": {"html": format!("https://unsplash.com/photos/{id}"), "download_location": format!("http://{host}/photos/{id}/download?ixid=1")}
    })
}

/// Unsplash as it answers a valid key: two results for every query but "nothing"; the photo
/// `broken` is served as HTML.
pub(super) fn unsplash(seen: &Seen) -> Reply {
    let host = seen.header("host").unwrap_or_default().to_owned();
    let path = seen.target.split('?').next().unwrap_or_default();
    match path {
        "/search/photos" if seen.target.contains("query=nothing") => Reply::json(200, r#"{"total":0,"results":[]}"#),
        "/search/photos" if seen.target.contains("query=broken") => Reply::json(
            200,
            json!({"results": [photo(&host, "broken", "/photos/broken.jpg"), photo(&host, "good", "/photos/good.jpg")]}).to_string(),
        ),
        "/search/photos" => Reply::json(
            200,
            json!({"total": 2, "results": [photo(&host, "abc", "/photos/abc.jpg"), photo(&host, "def", "/photos/def.jpg")]}).to_string(),
        ),
        "/photos/broken.jpg" => Reply::bytes("text/html", b"<html>".to_vec()),
        p if p.ends_with(".jpg") => Reply::bytes("image/jpeg", jpeg(2000)),
        p if p.ends_with("/download") => Reply::json(200, r#"{"url":"https://images.example/x"}"#),
        _ => Reply::json(404, r#"{"errors":["Not found"]}"#),
    }
}

fn stock(server: &TestServer, pause: Duration) -> ConfiguredImages {
    let provider =
        Unsplash::for_test("test-key", server.url(""), Fetcher::for_test_servers(&[server.address]), Some(QUICK));
    ConfiguredImages::with_services(Some(("unsplash", Box::new(provider))), None, pause)
}

fn request<'a>(prompt: &'a str, folder: &'a Path) -> ImageRequest<'a> {
    ImageRequest {
        kind: ImageKind::Stock,
        prompt,
        folder,
        orientation: Some(Orientation::Landscape),
        confinement: None,
    }
}

fn note(image: &ProvidedImage) -> &str {
    image.note.as_deref().unwrap_or("")
}

#[test]
fn the_best_match_is_stored_credited_and_reported_as_downloaded() {
    let server = TestServer::start(unsplash);
    let folder = tempfile::tempdir().unwrap();
    let image =
        stock(&server, Duration::from_secs(120)).image(&request("Warm bakery, morning", folder.path())).unwrap();
    assert!(image.url.starts_with("./images/warm-bakery-morning-") && image.url.ends_with(".jpg"), "{}", image.url);
    assert_eq!(std::fs::read(folder.path().join(&image.url[2..])).unwrap(), jpeg(2000));
    assert_eq!(
        image.metadata.as_deref(),
        Some(
            r#"{"type":"unsplash","username":"user_abc","link":"https://unsplash.com/@user_abc","author":"Photographer abc"}"#
        )
    );
    assert_eq!(image.note, None);
    let seen = server.seen();
    let targets: Vec<&str> = seen.iter().map(|s| s.target.split('?').next().unwrap()).collect();
    assert_eq!(targets, ["/search/photos", "/photos/abc.jpg", "/photos/abc/download"]);
    assert!(seen[0].target.contains("query=Warm%20bakery%2C%20morning"), "{}", seen[0].target);
    assert!(seen[0].target.contains("orientation=landscape") && seen[0].target.contains("per_page=5"));
    assert_eq!(seen[0].header("authorization"), Some("Client-ID test-key"));
    assert_eq!(seen[2].header("authorization"), Some("Client-ID test-key"), "the download event is authorised");
}

#[test]
fn a_repeated_prompt_costs_no_request_even_for_another_document() {
    let server = TestServer::start(unsplash);
    let images = stock(&server, Duration::from_secs(120));
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = images.image(&request("mountain lake", first.path())).unwrap();
    let requests = server.count();
    let again = images.image(&request("mountain lake", first.path())).unwrap();
    let elsewhere = images.image(&request("mountain lake", second.path())).unwrap();
    assert_eq!(server.count(), requests, "no request for a repeat");
    assert!(a.created.is_some(), "the first answer wrote the file");
    assert_eq!((&again, &elsewhere.url), (&ProvidedImage { created: None, ..a.clone() }, &a.url));
    assert!(elsewhere.created.is_some(), "the copy next to the other document is new there");
    assert!(second.path().join(&a.url[2..]).is_file(), "copied next to the other document");
    images.image(&request("desert road", first.path())).unwrap();
    assert_eq!(server.count(), requests + 3, "a new prompt asks again");
}

#[test]
fn a_photo_that_is_not_an_image_is_skipped_for_the_next_match() {
    let server = TestServer::start(unsplash);
    let folder = tempfile::tempdir().unwrap();
    let image = stock(&server, Duration::from_secs(120)).image(&request("broken", folder.path())).unwrap();
    assert!(image.metadata.unwrap().contains("user_good"));
}

#[test]
fn no_match_falls_back_to_an_offline_image_and_says_what_to_do() {
    let server = TestServer::start(unsplash);
    let folder = tempfile::tempdir().unwrap();
    let images = stock(&server, Duration::from_secs(120));
    let image = images.image(&request("nothing", folder.path())).unwrap();
    assert!(image.url.starts_with("./images/placeholder-"), "{}", image.url);
    assert!(folder.path().join(&image.url[2..]).is_file());
    assert_eq!(image.metadata, None);
    assert!(
        note(&image).starts_with("Unsplash has no photo for \"nothing\": try fewer, more general words"),
        "{}",
        note(&image)
    );
    assert!(
        note(&image)
            .contains("used an offline image drawn from the prompt instead. snapshot_layout lists it as a placeholder")
    );
    images.image(&request("mountain", folder.path())).unwrap();
    assert_eq!(server.count(), 1 + 3, "a prompt without a match does not pause the service");
}

fn failing(status: u16, body: &'static str, header: Option<(&'static str, &'static str)>) -> TestServer {
    TestServer::start(move |_| {
        let reply = Reply::json(status, body);
        match header {
            Some((name, value)) => reply.with_header(name, value),
            None => reply,
        }
    })
}

#[test]
fn service_errors_fall_back_with_their_advice_and_pause_the_service() {
    let cases = [
        (
            failing(401, r#"{"errors":["OAuth error: The access token is invalid"]}"#, None),
            "UNSPLASH_ACCESS_KEY is rejected by Unsplash (401): check the key",
        ),
        (
            failing(403, "Rate Limit Exceeded", Some(("X-Ratelimit-Remaining", "0"))),
            "Unsplash's rate limit for this key is used up",
        ),
        (
            failing(403, r#"{"errors":["Forbidden"]}"#, None),
            "Unsplash refused the request (403: Forbidden): check the key's permissions",
        ),
        (failing(500, "oops", None), "Unsplash is failing (500): try again later"),
        (
            TestServer::start(|_| Reply::Late(Duration::from_secs(2), Box::new(Reply::json(200, "{}")))),
            "Unsplash did not answer in time",
        ),
    ];
    for (server, advice) in cases {
        let folder = tempfile::tempdir().unwrap();
        let images = stock(&server, Duration::from_secs(120));
        let image = images.image(&request("bread", folder.path())).unwrap();
        assert!(note(&image).starts_with(advice), "{advice}: {}", note(&image));
        assert!(
            note(&image).contains(
                "used an offline image drawn from the prompt instead. snapshot_layout lists it as a placeholder"
            ),
            "{}",
            note(&image)
        );
        assert!(folder.path().join(&image.url[2..]).is_file());
        let next = images.image(&request("croissant", folder.path())).unwrap();
        assert_eq!(server.count(), 1, "{advice}: paused after the failure");
        assert!(
            note(&next).starts_with(advice) && note(&next).contains("it is not asked again for"),
            "{}",
            note(&next)
        );
    }
}

#[test]
fn after_the_pause_the_service_is_asked_again() {
    let server = failing(500, "oops", None);
    let folder = tempfile::tempdir().unwrap();
    let images = stock(&server, Duration::ZERO);
    images.image(&request("bread", folder.path())).unwrap();
    images.image(&request("bread", folder.path())).unwrap();
    assert_eq!(server.count(), 2, "a failure is not cached");
}
