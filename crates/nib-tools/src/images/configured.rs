//! The provider a session uses: each kind goes to its configured service, repeats come from the
//! cache, and when a service is missing or fails the offline image is used and the answer says
//! why. A G() never fails because a service did: the design goes on with a placeholder the agent
//! can replace later.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::cache::ImageCache;
use super::{ImageKind, ImageProvider, ImageRequest, ImageSettings, OfflineImages, ProvidedImage, ProviderError};

/// How long a service that failed as a whole (rejected key, rate limit, timeout, server error)
/// is left alone: a batch with ten G() calls must not wait for ten timeouts.
const PAUSE: Duration = Duration::from_secs(120);

/// Images from the configured services, cached, with offline images as default and fallback.
pub struct ConfiguredImages {
    stock: Option<Service>,
    ai: Option<Service>,
    /// Why a kind has no service, for the answer's note.
    unconfigured: Unconfigured,
    offline: OfflineImages,
    cache: ImageCache,
    pause: Duration,
}

/// One network service.
struct Service {
    /// Identifies the service and its settings in the cache.
    id: String,
    provider: Box<dyn ImageProvider + Send + Sync>,
    /// When it last failed as a whole, and why.
    failed: Mutex<Option<(Instant, String)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unconfigured {
    /// No key is set.
    NoKey,
    /// `NIB_IMAGES=offline`.
    Forced,
    /// A key is set, but this build has no network providers.
    #[cfg_attr(feature = "network-images", allow(dead_code))]
    NoFeature,
}

impl ConfiguredImages {
    /// The providers `settings` choose.
    pub fn new(settings: &ImageSettings) -> ConfiguredImages {
        let mut images = ConfiguredImages {
            stock: None,
            ai: None,
            unconfigured: if settings.offline_only { Unconfigured::Forced } else { Unconfigured::NoKey },
            offline: OfflineImages,
            cache: ImageCache::default(),
            pause: PAUSE,
        };
        if settings.offline_only {
            return images;
        }
        #[cfg(feature = "network-images")]
        {
            images.stock = settings.unsplash_access_key.as_ref().map(|key| Service {
                id: "unsplash".to_owned(),
                provider: Box::new(super::unsplash::Unsplash::new(key.clone())),
                failed: Mutex::new(None),
            });
            images.ai = settings.ai.as_ref().map(|ai| Service {
                id: format!("ai {} {} {}", ai.base_url, ai.model, ai.size.as_deref().unwrap_or("")),
                provider: Box::new(super::openai::OpenAiImages::new(ai.clone())),
                failed: Mutex::new(None),
            });
        }
        #[cfg(not(feature = "network-images"))]
        if settings.unsplash_access_key.is_some() || settings.ai.is_some() {
            images.unconfigured = Unconfigured::NoFeature;
        }
        images
    }

    /// Offline images only, whatever the environment says.
    pub fn offline() -> ConfiguredImages {
        ConfiguredImages::new(&ImageSettings { offline_only: true, ..ImageSettings::default() })
    }

    /// Providers for tests: `stock` and `ai` services with their cache ids, and the pause after
    /// a failure.
    #[cfg(all(test, feature = "network-images"))]
    pub(crate) fn with_services(
        stock: Option<(&str, Box<dyn ImageProvider + Send + Sync>)>,
        ai: Option<(&str, Box<dyn ImageProvider + Send + Sync>)>,
        pause: Duration,
    ) -> ConfiguredImages {
        let service = |(id, provider): (&str, _)| Service { id: id.to_owned(), provider, failed: Mutex::new(None) };
        ConfiguredImages {
            stock: stock.map(service),
            ai: ai.map(service),
            unconfigured: Unconfigured::NoKey,
            offline: OfflineImages,
            cache: ImageCache::default(),
            pause,
        }
    }

    /// The offline image, with `why` as the note.
    fn offline_image(&self, request: &ImageRequest, why: String) -> Result<ProvidedImage, ProviderError> {
        let image = self.offline.image(request)?;
        let drawn = super::offline::what_was_drawn(request.prompt);
        Ok(ProvidedImage { note: Some(format!("{why} {drawn}")), ..image })
    }

    fn unconfigured_note(&self, kind: ImageKind) -> String {
        let placeholder = "a placeholder image was drawn from the prompt";
        match (self.unconfigured, kind) {
            (Unconfigured::Forced, _) => format!("Images are offline (NIB_IMAGES=offline): {placeholder}."),
            (Unconfigured::NoFeature, _) => format!(
                "This nib was built without the network-images feature, so image service keys are not used: {placeholder}."
            ),
            (Unconfigured::NoKey, ImageKind::Stock) => format!(
                "No stock photo service is configured (set UNSPLASH_ACCESS_KEY for Unsplash photos): {placeholder}."
            ),
            (Unconfigured::NoKey, ImageKind::Ai) => format!(
                "No image generation service is configured (set NIB_IMAGE_API_KEY or OPENAI_API_KEY): {placeholder}."
            ),
        }
    }
}

impl ImageProvider for ConfiguredImages {
    fn image(&self, request: &ImageRequest) -> Result<ProvidedImage, ProviderError> {
        let service = match request.kind {
            ImageKind::Stock => &self.stock,
            ImageKind::Ai => &self.ai,
        };
        let Some(service) = service else {
            return self.offline_image(request, self.unconfigured_note(request.kind));
        };
        if let Some(image) = self.cache.get(&service.id, request) {
            return Ok(image);
        }
        let mut failed = service.failed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((when, why)) = failed.as_ref()
            && when.elapsed() < self.pause
        {
            let wait = (self.pause - when.elapsed()).as_secs().max(1);
            let why = format!("{why}; it is not asked again for {wait} s, so an offline image was used instead.");
            drop(failed);
            return self.offline_image(request, why);
        }
        match service.provider.image(request) {
            Ok(image) => {
                *failed = None;
                drop(failed);
                self.cache.put(&service.id, request, &image);
                Ok(image)
            }
            Err(error) => {
                if matches!(error, ProviderError::Unavailable(_)) {
                    *failed = Some((Instant::now(), error.to_string()));
                }
                drop(failed);
                self.offline_image(request, format!("{error}; used an offline image drawn from the prompt instead."))
            }
        }
    }
}
