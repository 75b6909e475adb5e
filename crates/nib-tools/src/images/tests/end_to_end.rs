//! G() through the workspace's batch_design with the test services: the file lands next to the
//! document, the node gets the image fill and the attribution, and a repeat costs no request.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::QUICK;
use super::server::TestServer;
use super::unsplash::unsplash;
use crate::http::Fetcher;
use crate::images::ConfiguredImages;
use crate::images::unsplash::Unsplash;
use crate::tools::{Workspace, call};

const DOCUMENT: &str = r#"{
  "version": "2.11",
  "children": [
    {"type": "frame", "id": "hero", "x": 0, "y": 0, "width": 1200, "height": 600},
    {"type": "frame", "id": "banner", "x": 0, "y": 700, "width": 1200, "height": 400},
    {"type": "rectangle", "id": "thumb", "x": 0, "y": 1200, "width": 300, "height": 300}
  ]
}"#;

fn node<'a>(saved: &'a Value, id: &str) -> &'a Value {
    saved["children"].as_array().unwrap().iter().find(|n| n["id"] == id).unwrap()
}

#[test]
fn batch_design_stores_the_photo_next_to_the_document_and_credits_it() {
    let server = TestServer::start(unsplash);
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("designs");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("home.pen");
    std::fs::write(&path, DOCUMENT).unwrap();
    let mut workspace = Workspace::new(root.path());
    let provider =
        Unsplash::for_test("test-key", server.url(""), Fetcher::for_test_servers(&[server.address]), Some(QUICK));
    workspace.images = Arc::new(ConfiguredImages::with_services(
        Some(("unsplash", Box::new(provider))),
        None,
        Duration::from_secs(120),
    ));

    let script = "G(\"hero\", \"stock\", \"mountain lake at dawn\")";
    let answer =
        call(&mut workspace, "batch_design", json!({"filePath": "designs/home.pen", "operations": script})).unwrap();
    let text = answer["text"].as_str().unwrap();
    assert!(text.contains("- Added image to node `hero` with prompt: `mountain lake at dawn`\n"), "{text}");
    assert!(!text.contains("offline"), "{text}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let hero = node(&saved, "hero");
    let url = hero["fill"]["url"].as_str().unwrap();
    assert!(url.starts_with("./images/mountain-lake-at-dawn-") && url.ends_with(".jpg"), "{url}");
    assert_eq!(hero["fill"]["type"], "image");
    assert_eq!(hero["fill"]["mode"], "fill");
    assert!(folder.join(&url[2..]).is_file(), "stored next to the document");
    assert_eq!(
        hero["metadata"],
        json!({"type": "unsplash", "username": "user_abc", "link": "https://unsplash.com/@user_abc", "author": "Photographer abc"})
    );
    assert!(server.seen()[0].target.contains("orientation=landscape"), "the frame's shape chose the orientation");

    // The same prompt for a node of the same shape is served from the cache.
    let requests = server.count();
    let again = "G(\"banner\", \"stock\", \"mountain lake at dawn\")";
    call(&mut workspace, "batch_design", json!({"filePath": "designs/home.pen", "operations": again})).unwrap();
    assert_eq!(server.count(), requests);
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(node(&saved, "banner")["fill"]["url"], url);
    assert_eq!(node(&saved, "banner")["metadata"]["username"], "user_abc");

    // An unconfigured kind falls back to the offline image, and the answer says how to configure it.
    let generated = "G(\"thumb\", \"ai\", \"abstract waves\")";
    let answer =
        call(&mut workspace, "batch_design", json!({"filePath": "designs/home.pen", "operations": generated})).unwrap();
    let text = answer["text"].as_str().unwrap();
    assert!(
        text.contains("No image generation service is configured (set NIB_IMAGE_API_KEY or OPENAI_API_KEY)"),
        "{text}"
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let thumb_url = node(&saved, "thumb")["fill"]["url"].as_str().unwrap().to_owned();
    assert!(folder.join(&thumb_url[2..]).is_file());
}
