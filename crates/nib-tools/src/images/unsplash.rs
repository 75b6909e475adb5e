//! `stock` images from Unsplash: search photos for the prompt, download the best match into
//! `images/`, tell Unsplash it was used (their API terms ask for it), and credit the
//! photographer in the node's metadata the way Pen does.

use std::time::Duration;

use serde::Deserialize;

use super::{ImageProvider, ImageRequest, ProvidedImage, ProviderError, store};
use crate::http::{Expect, FetchError, Fetcher, Limits, Request, encode_query};

/// Unsplash's API.
const API: &str = "https://api.unsplash.com";

/// Search answers are small JSON.
const API_LIMITS: Limits = Limits {
    connect: Duration::from_secs(5),
    read: Duration::from_secs(10),
    deadline: Duration::from_secs(15),
    max_bytes: 2 << 20,
    max_redirects: 3,
};

/// `urls.regular` photos are 1080 px wide, a few hundred kB.
const IMAGE_LIMITS: Limits = Limits {
    connect: Duration::from_secs(5),
    read: Duration::from_secs(15),
    deadline: Duration::from_secs(30),
    max_bytes: 15 << 20,
    max_redirects: 5,
};

/// Results asked for; the first that downloads is used (Unsplash orders by relevance).
const RESULTS: usize = 5;
/// Downloads tried before giving up on a prompt.
const DOWNLOAD_TRIES: usize = 3;

/// Unsplash photo search.
pub(super) struct Unsplash {
    access_key: String,
    api: String,
    http: Fetcher,
    api_limits: Limits,
    image_limits: Limits,
}

#[derive(Deserialize)]
struct Search {
    results: Vec<Photo>,
}

#[derive(Deserialize)]
struct Photo {
    id: String,
    urls: Urls,
    user: User,
    #[serde(default)]
    links: PhotoLinks,
}

#[derive(Deserialize)]
struct Urls {
    regular: Option<String>,
    raw: Option<String>,
}

#[derive(Deserialize)]
struct User {
    username: String,
    name: Option<String>,
    #[serde(default)]
    links: UserLinks,
}

#[derive(Deserialize, Default)]
struct UserLinks {
    html: Option<String>,
}

#[derive(Deserialize, Default)]
struct PhotoLinks {
    download_location: Option<String>,
}

impl Unsplash {
    /// Searches Unsplash with `access_key`.
    pub(super) fn new(access_key: String) -> Unsplash {
        Unsplash {
            access_key,
            api: API.to_owned(),
            http: Fetcher::default(),
            api_limits: API_LIMITS,
            image_limits: IMAGE_LIMITS,
        }
    }

    /// Unsplash's API shapes served by a test server at `api`.
    #[cfg(test)]
    pub(super) fn for_test(access_key: &str, api: String, http: Fetcher, limits: Option<Limits>) -> Unsplash {
        Unsplash {
            access_key: access_key.to_owned(),
            api,
            http,
            api_limits: limits.unwrap_or(API_LIMITS),
            image_limits: limits.unwrap_or(IMAGE_LIMITS),
        }
    }

    fn search(&self, request: &ImageRequest) -> Result<Vec<Photo>, ProviderError> {
        let mut url = format!(
            "{}/search/photos?query={}&per_page={RESULTS}&content_filter=high",
            self.api,
            encode_query(request.prompt.trim())
        );
        if let Some(orientation) = request.orientation {
            url.push_str("&orientation=");
            url.push_str(orientation.as_str());
        }
        let authorization = format!("Client-ID {}", self.access_key);
        let headers = [("authorization", authorization.as_str()), ("accept-version", "v1")];
        let answer = self
            .http
            .fetch(&Request {
                url: &url,
                json_body: None,
                headers: &headers,
                expect: Expect::Json,
                limits: self.api_limits,
            })
            .map_err(explain)?;
        let search: Search = serde_json::from_slice(&answer)
            .map_err(|e| ProviderError::Unavailable(format!("Unsplash's search answer is not understood ({e})")))?;
        Ok(search.results)
    }

    /// Downloads `photo` to `images/<slug>-<hash>.jpg`, or finds it there from an earlier run;
    /// answers its URL and, when it was written now, its path.
    fn download(
        &self,
        request: &ImageRequest,
        photo: &Photo,
    ) -> Result<(String, Option<std::path::PathBuf>), ProviderError> {
        let stem = format!(
            "{}-{:016x}",
            store::slug(request.prompt),
            crate::hash::fnv1a(format!("unsplash {}", photo.id).as_bytes())
        );
        if let Some((url, _)) = store::existing(request.folder, &stem) {
            return Ok((url, None));
        }
        let source = photo
            .urls
            .regular
            .clone()
            .or_else(|| {
                // Raw photos can be huge; Unsplash resizes on request.
                let raw = photo.urls.raw.as_ref()?;
                Some(format!("{raw}{}w=1080&fm=jpg&q=80", if raw.contains('?') { '&' } else { '?' }))
            })
            .ok_or_else(|| ProviderError::Provider("the photo has no download address".into()))?;
        let answer = self
            .http
            .fetch(&Request {
                url: &source,
                json_body: None,
                headers: &[],
                expect: Expect::Image,
                limits: self.image_limits,
            })
            .map_err(|e| match e {
                FetchError::Timeout { .. } | FetchError::Unreachable { .. } => {
                    ProviderError::Unavailable(format!("could not download the Unsplash photo: {e}"))
                }
                other => ProviderError::Provider(format!("the Unsplash photo could not be used: {other}")),
            })?;
        let (url, path) = store::write(request, &stem, &answer)?;
        Ok((url, Some(path)))
    }

    /// Tells Unsplash the photo was used. Only to Unsplash's own API (the key goes with it), and
    /// a failure costs the design nothing, so it is not reported.
    fn register_download(&self, photo: &Photo) {
        let Some(location) = &photo.links.download_location else { return };
        if !location.starts_with(&format!("{}/", self.api)) {
            return;
        }
        let authorization = format!("Client-ID {}", self.access_key);
        let headers = [("authorization", authorization.as_str()), ("accept-version", "v1")];
        let _ = self.http.fetch(&Request {
            url: location,
            json_body: None,
            headers: &headers,
            expect: Expect::Json,
            limits: self.api_limits,
        });
    }
}

impl ImageProvider for Unsplash {
    fn image(&self, request: &ImageRequest) -> Result<ProvidedImage, ProviderError> {
        let photos = self.search(request)?;
        if photos.is_empty() {
            return Err(ProviderError::Provider(format!(
                "Unsplash has no photo for {:?}: try fewer, more general words",
                request.prompt.trim()
            )));
        }
        let mut last_error = None;
        for photo in photos.iter().take(DOWNLOAD_TRIES) {
            match self.download(request, photo) {
                Ok((url, created)) => {
                    self.register_download(photo);
                    return Ok(ProvidedImage { url, metadata: Some(metadata(&photo.user)), note: None, created });
                }
                Err(error @ (ProviderError::Unavailable(_) | ProviderError::File(_))) => return Err(error),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| ProviderError::Provider("no Unsplash photo could be downloaded".into())))
    }
}

/// `{type, username, link, author}` as Pen writes it: the link is the photographer's page.
fn metadata(user: &User) -> String {
    let link = user.links.html.clone().unwrap_or_else(|| format!("https://unsplash.com/@{}", user.username));
    let text = |s: &str| serde_json::to_string(s).unwrap_or_default();
    format!(
        "{{\"type\":\"unsplash\",\"username\":{},\"link\":{},\"author\":{}}}",
        text(&user.username),
        text(&link),
        text(user.name.as_deref().unwrap_or(&user.username))
    )
}

/// What an agent should do about a failed search.
fn explain(error: FetchError) -> ProviderError {
    let detail = error.service_message().map(|m| format!(": {m}")).unwrap_or_default();
    ProviderError::Unavailable(match &error {
        FetchError::Status { status: 401, .. } => {
            "UNSPLASH_ACCESS_KEY is rejected by Unsplash (401): check the key (the Access Key of an Unsplash app)".into()
        }
        FetchError::Status { status: 403 | 429, rate_limited: true, .. } | FetchError::Status { status: 429, .. } => {
            "Unsplash's rate limit for this key is used up (demo keys allow 50 requests an hour): wait for the hourly reset or apply for production access".into()
        }
        FetchError::Status { status: 403, .. } => format!("Unsplash refused the request (403{detail}): check the key's permissions"),
        FetchError::Status { status: status @ 500.., .. } => format!("Unsplash is failing ({status}{detail}): try again later"),
        FetchError::Status { status, .. } => format!("Unsplash answered {status}{detail}"),
        FetchError::Timeout { .. } => "Unsplash did not answer in time: check the network or try again later".into(),
        FetchError::Unreachable { .. } => format!("could not reach Unsplash ({error}): check the network"),
        other => format!("Unsplash's answer was refused: {other}"),
    })
}
