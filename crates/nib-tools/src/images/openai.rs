//! `ai` images from an OpenAI-compatible image API (`POST {base}/images/generations`): OpenAI
//! itself and the many services and gateways that copy its shape.

use std::time::Duration;

use base64::Engine as _;
use serde::Deserialize;

use super::{AiSettings, ImageProvider, ImageRequest, Orientation, ProvidedImage, ProviderError, store};
use crate::http::{Expect, FetchError, Fetcher, Limits, Request};

/// Generating takes a while (up to a minute for large models); the answer carries the image as
/// base64, a third larger than the file.
const GENERATION_LIMITS: Limits = Limits {
    connect: Duration::from_secs(10),
    read: Duration::from_secs(150),
    deadline: Duration::from_secs(180),
    max_bytes: 40 << 20,
    max_redirects: 0,
};

/// For services that answer with the image's address instead.
const IMAGE_LIMITS: Limits = Limits {
    connect: Duration::from_secs(5),
    read: Duration::from_secs(15),
    deadline: Duration::from_secs(60),
    max_bytes: 30 << 20,
    max_redirects: 5,
};

/// An OpenAI-compatible image generation API.
pub(super) struct OpenAiImages {
    settings: AiSettings,
    http: Fetcher,
    generation_limits: Limits,
    image_limits: Limits,
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Generated>,
}

#[derive(Deserialize)]
struct Generated {
    b64_json: Option<String>,
    url: Option<String>,
}

impl OpenAiImages {
    /// Generates with the service `settings` name.
    pub(super) fn new(settings: AiSettings) -> OpenAiImages {
        OpenAiImages {
            settings,
            http: Fetcher::default(),
            generation_limits: GENERATION_LIMITS,
            image_limits: IMAGE_LIMITS,
        }
    }

    /// The service served by a test server.
    #[cfg(test)]
    pub(super) fn for_test(settings: AiSettings, http: Fetcher, limits: Option<Limits>) -> OpenAiImages {
        OpenAiImages {
            settings,
            http,
            generation_limits: limits.unwrap_or(GENERATION_LIMITS),
            image_limits: limits.unwrap_or(IMAGE_LIMITS),
        }
    }

    /// The size to ask for: the configured one, else the model's size closest to the node's shape.
    fn size(&self, orientation: Option<Orientation>) -> String {
        if let Some(size) = &self.settings.size {
            return size.clone();
        }
        let model = self.settings.model.to_ascii_lowercase();
        let size = match orientation {
            Some(Orientation::Landscape) if model.starts_with("gpt-image") => "1536x1024",
            Some(Orientation::Portrait) if model.starts_with("gpt-image") => "1024x1536",
            Some(Orientation::Landscape) if model == "dall-e-3" => "1792x1024",
            Some(Orientation::Portrait) if model == "dall-e-3" => "1024x1792",
            _ => "1024x1024",
        };
        size.to_owned()
    }

    /// Asks for one image; GPT image models always answer base64 and refuse `response_format`.
    fn generate(&self, prompt: &str, size: &str) -> Result<Vec<u8>, FetchError> {
        let url = format!("{}/images/generations", self.settings.base_url);
        let authorization = format!("Bearer {}", self.settings.api_key);
        let headers = [("authorization", authorization.as_str())];
        let send = |with_format: bool| {
            let mut body = serde_json::json!({"model": self.settings.model, "prompt": prompt, "n": 1, "size": size});
            if with_format {
                body["response_format"] = "b64_json".into();
            }
            let body = body.to_string();
            self.http.fetch(&Request {
                url: &url,
                json_body: Some(body.as_bytes()),
                headers: &headers,
                expect: Expect::Json,
                limits: self.generation_limits,
            })
        };
        let with_format = !self.settings.model.to_ascii_lowercase().starts_with("gpt-image");
        match send(with_format) {
            // Other services copy OpenAI's newer models and refuse the parameter too.
            Err(error @ FetchError::Status { status: 400, .. })
                if with_format && error.service_message().is_some_and(|m| m.contains("response_format")) =>
            {
                send(false)
            }
            other => other,
        }
    }

    /// The image bytes of an answer: inline base64, or fetched from the address it gives.
    fn image_bytes(&self, answer: &[u8]) -> Result<Vec<u8>, ProviderError> {
        let answer: Answer = serde_json::from_slice(answer)
            .map_err(|e| ProviderError::Unavailable(format!("the image service's answer is not understood ({e})")))?;
        let first = answer
            .data
            .into_iter()
            .next()
            .ok_or_else(|| ProviderError::Provider("the image service answered without an image".into()))?;
        if let Some(data) = first.b64_json {
            return base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| ProviderError::Provider(format!("the image service's base64 image is broken ({e})")));
        }
        let url =
            first.url.ok_or_else(|| ProviderError::Provider("the image service answered without an image".into()))?;
        self.http
            .fetch(&Request {
                url: &url,
                json_body: None,
                headers: &[],
                expect: Expect::Image,
                limits: self.image_limits,
            })
            .map_err(|e| ProviderError::Provider(format!("the generated image could not be downloaded: {e}")))
    }

    /// What an agent should do about a failed generation.
    fn explain(&self, error: FetchError) -> ProviderError {
        let key = self.settings.key_variable;
        let detail = error.service_message().map(|m| format!(": {m}")).unwrap_or_default();
        match &error {
            FetchError::Status { status: 400, .. } => ProviderError::Provider(format!(
                "the image service refused the request (400{detail}): rephrase the prompt, or check NIB_IMAGE_MODEL and NIB_IMAGE_SIZE"
            )),
            FetchError::Status { status: 401, .. } => {
                ProviderError::Unavailable(format!("{key} is rejected by the image service (401): check the key"))
            }
            FetchError::Status { status: 403, .. } => ProviderError::Unavailable(format!(
                "the image service refused the key (403{detail}): check that {key} may use the model {}",
                self.settings.model
            )),
            FetchError::Status { status: 404, .. } => ProviderError::Unavailable(format!(
                "{}/images/generations is not found (404{detail}): check NIB_IMAGE_BASE_URL and NIB_IMAGE_MODEL",
                self.settings.base_url
            )),
            FetchError::Status { status: 429, .. } => ProviderError::Unavailable(format!(
                "the image service's rate limit or quota is used up (429{detail}): wait, or check the account's plan"
            )),
            FetchError::Status { status: status @ 500.., .. } => {
                ProviderError::Unavailable(format!("the image service is failing ({status}{detail}): try again later"))
            }
            FetchError::Status { status, .. } => {
                ProviderError::Unavailable(format!("the image service answered {status}{detail}"))
            }
            FetchError::BadUrl { .. } | FetchError::Forbidden { .. } => ProviderError::Unavailable(format!(
                "NIB_IMAGE_BASE_URL cannot be used ({error}): nib calls only public https services"
            )),
            FetchError::Timeout { .. } => ProviderError::Unavailable(format!(
                "the image service did not answer within {} s: try again later",
                self.generation_limits.deadline.as_secs()
            )),
            _ => ProviderError::Unavailable(format!("the image service failed: {error}")),
        }
    }
}

impl ImageProvider for OpenAiImages {
    fn image(&self, request: &ImageRequest) -> Result<ProvidedImage, ProviderError> {
        let prompt = request.prompt.trim();
        let size = self.size(request.orientation);
        let identity = format!("ai {} {} {size} {prompt}", self.settings.base_url, self.settings.model);
        let stem = format!("generated-{:016x}", crate::hash::fnv1a(identity.as_bytes()));
        // A file from an earlier session is the same request's answer: no new generation.
        if let Some((url, _)) = store::existing(request.folder, &stem) {
            return Ok(ProvidedImage { url, metadata: None, note: None, created: None });
        }
        let answer = self.generate(prompt, &size).map_err(|e| self.explain(e))?;
        let bytes = self.image_bytes(&answer)?;
        let (url, path) = store::write(request, &stem, &bytes)?;
        Ok(ProvidedImage { url, metadata: None, note: None, created: Some(path) })
    }
}
