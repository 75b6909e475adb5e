//! Images already provided in this session, by (service, kind, shape, prompt): agents repeat
//! prompts (the same hero image on three screens, a retried batch), and a repeat must cost no
//! request and no quota. The file itself is the stored copy; the map keeps where it is and its
//! attribution, which a file name cannot hold.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use super::{ImageKind, ImageRequest, Orientation, ProvidedImage};

/// Provided images of one session.
#[derive(Debug, Default)]
pub(super) struct ImageCache {
    entries: Mutex<HashMap<Key, Entry>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    service: String,
    kind: ImageKind,
    orientation: Option<Orientation>,
    prompt: String,
}

#[derive(Debug, Clone)]
struct Entry {
    /// The name under `images/`.
    file_name: String,
    /// Where the file was stored, to copy it for a document in another folder.
    stored_at: PathBuf,
    metadata: Option<String>,
}

impl ImageCache {
    /// The image `service` provided earlier for the same request, made available in the
    /// request's folder (copied there from where it was stored when needed). `None` when there
    /// is none or its file is gone.
    pub(super) fn get(&self, service: &str, request: &ImageRequest) -> Option<ProvidedImage> {
        let key = key(service, request);
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let entry = entries.get(&key)?.clone();
        let target = request.folder.join("images").join(&entry.file_name);
        let created = if target.is_file() {
            None
        } else {
            match copy_within(&entry.stored_at, request, &entry.file_name) {
                Some(copy) => Some(copy),
                None => {
                    entries.remove(&key);
                    return None;
                }
            }
        };
        Some(ProvidedImage {
            url: format!("./images/{}", entry.file_name),
            metadata: entry.metadata,
            note: None,
            created,
        })
    }

    /// Remembers what `service` provided for `request`.
    pub(super) fn put(&self, service: &str, request: &ImageRequest, image: &ProvidedImage) {
        let Some(file_name) = image.url.strip_prefix("./images/") else { return };
        let entry = Entry {
            file_name: file_name.to_owned(),
            stored_at: request.folder.join("images").join(file_name),
            metadata: image.metadata.clone(),
        };
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).insert(key(service, request), entry);
    }
}

/// Copies a stored image into the request's `images/` folder, inside its confinement; `None`
/// when the stored file is gone or the copy cannot be made.
fn copy_within(stored_at: &std::path::Path, request: &ImageRequest, file_name: &str) -> Option<PathBuf> {
    let bytes = ImageRequest::read_stored(stored_at)?;
    request.store(file_name, &bytes).ok()
}

fn key(service: &str, request: &ImageRequest) -> Key {
    Key {
        service: service.to_owned(),
        kind: request.kind,
        orientation: request.orientation,
        prompt: request.prompt.trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_image_is_copied_to_another_document_folder_and_forgotten_when_deleted() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(first.path().join("images")).unwrap();
        std::fs::write(first.path().join("images/bread-1.jpg"), b"jpeg").unwrap();
        let request = |folder| ImageRequest {
            kind: ImageKind::Stock,
            prompt: "bread",
            folder,
            orientation: None,
            confinement: None,
        };
        let cache = ImageCache::default();
        let image = ProvidedImage {
            url: "./images/bread-1.jpg".into(),
            metadata: Some("{}".into()),
            note: None,
            created: None,
        };
        cache.put("unsplash", &request(first.path()), &image);
        assert_eq!(cache.get("unsplash", &request(first.path())).unwrap(), image);
        assert!(cache.get("other", &request(first.path())).is_none(), "the service is part of the key");
        assert_eq!(cache.get("unsplash", &request(second.path())).unwrap().url, image.url);
        assert_eq!(std::fs::read(second.path().join("images/bread-1.jpg")).unwrap(), b"jpeg");
        std::fs::remove_file(first.path().join("images/bread-1.jpg")).unwrap();
        std::fs::remove_file(second.path().join("images/bread-1.jpg")).unwrap();
        assert!(cache.get("unsplash", &request(first.path())).is_none());
    }
}
