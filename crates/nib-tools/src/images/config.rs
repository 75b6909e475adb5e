//! Which image services G() uses, read from environment variables: MCP clients and shells set
//! those easily, and keys stay out of documents and command lines.

use std::fmt;

/// `NIB_IMAGE_BASE_URL` when unset.
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// `NIB_IMAGE_MODEL` when unset.
pub(crate) const DEFAULT_MODEL: &str = "gpt-image-1";

/// The image settings of a session.
#[derive(Clone, Default, PartialEq)]
pub struct ImageSettings {
    /// Every G() draws an offline image (`NIB_IMAGES=offline`), whatever keys are set.
    pub offline_only: bool,
    /// Unsplash access key for `stock` images (`UNSPLASH_ACCESS_KEY`).
    pub unsplash_access_key: Option<String>,
    /// The image generation service for `ai` images.
    pub ai: Option<AiSettings>,
    /// Settings that were not understood, in words for the user.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// An OpenAI-compatible image generation service.
#[derive(Clone, PartialEq)]
pub struct AiSettings {
    /// The API key (`NIB_IMAGE_API_KEY`, else `OPENAI_API_KEY`).
    pub api_key: String,
    /// The variable the key came from, named in error messages.
    pub key_variable: &'static str,
    /// The API's base URL without a trailing slash (`NIB_IMAGE_BASE_URL`).
    pub base_url: String,
    /// The model (`NIB_IMAGE_MODEL`).
    pub model: String,
    /// The image size to ask for, e.g. `1024x1024` (`NIB_IMAGE_SIZE`); `None` picks one from the
    /// node's shape and the model.
    pub size: Option<String>,
}

impl ImageSettings {
    /// Reads the settings from the process environment.
    pub fn from_env() -> ImageSettings {
        ImageSettings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the settings through `lookup` (a variable's value by name); blank values count as
    /// unset.
    pub(crate) fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> ImageSettings {
        let get = |name: &str| lookup(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let mut warnings = Vec::new();
        let offline_only = match get("NIB_IMAGES").as_deref() {
            None | Some("auto") => false,
            Some("offline") => true,
            Some(other) => {
                warnings.push(crate::diagnostic::Diagnostic::warning(
                    "image-setting",
                    format!(
                        "NIB_IMAGES is {other:?}; it takes \"offline\" or \"auto\" (the default), so \"auto\" is used"
                    ),
                ));
                false
            }
        };
        let key = get("NIB_IMAGE_API_KEY")
            .map(|key| (key, "NIB_IMAGE_API_KEY"))
            .or_else(|| get("OPENAI_API_KEY").map(|key| (key, "OPENAI_API_KEY")));
        let ai = key.map(|(api_key, key_variable)| AiSettings {
            api_key,
            key_variable,
            base_url: get("NIB_IMAGE_BASE_URL")
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned())
                .trim_end_matches('/')
                .to_owned(),
            model: get("NIB_IMAGE_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            size: get("NIB_IMAGE_SIZE"),
        });
        ImageSettings { offline_only, unsplash_access_key: get("UNSPLASH_ACCESS_KEY"), ai, warnings }
    }
}

/// Keys never appear in logs or debug output.
impl fmt::Debug for ImageSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImageSettings")
            .field("offline_only", &self.offline_only)
            .field("unsplash_access_key", &self.unsplash_access_key.as_ref().map(|_| "<set>"))
            .field("ai", &self.ai)
            .field("warnings", &self.warnings)
            .finish()
    }
}

impl fmt::Debug for AiSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiSettings")
            .field("api_key", &"<set>")
            .field("key_variable", &self.key_variable)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("size", &self.size)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> ImageSettings {
        ImageSettings::from_lookup(|name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn nothing_set_means_offline_images_without_warnings() {
        assert_eq!(settings(&[]), ImageSettings::default());
        assert_eq!(settings(&[("UNSPLASH_ACCESS_KEY", "  "), ("OPENAI_API_KEY", "")]), ImageSettings::default());
    }

    #[test]
    fn keys_choose_the_services_and_the_nib_key_wins() {
        let s = settings(&[
            ("UNSPLASH_ACCESS_KEY", "u-key"),
            ("OPENAI_API_KEY", "o-key"),
            ("NIB_IMAGE_API_KEY", "n-key"),
            ("NIB_IMAGE_BASE_URL", "https://images.example.com/v1/"),
        ]);
        assert_eq!(s.unsplash_access_key.as_deref(), Some("u-key"));
        let ai = s.ai.unwrap();
        assert_eq!((ai.api_key.as_str(), ai.key_variable), ("n-key", "NIB_IMAGE_API_KEY"));
        assert_eq!(ai.base_url, "https://images.example.com/v1");
        assert_eq!(ai.model, DEFAULT_MODEL);
        let openai = settings(&[("OPENAI_API_KEY", "o-key"), ("NIB_IMAGE_MODEL", "dall-e-3")]).ai.unwrap();
        assert_eq!(
            (openai.key_variable, openai.base_url.as_str(), openai.model.as_str()),
            ("OPENAI_API_KEY", DEFAULT_BASE_URL, "dall-e-3")
        );
    }

    #[test]
    fn offline_is_forced_by_nib_images_and_unknown_values_warn() {
        assert!(settings(&[("NIB_IMAGES", "offline"), ("UNSPLASH_ACCESS_KEY", "k")]).offline_only);
        let odd = settings(&[("NIB_IMAGES", "unsplash")]);
        assert!(!odd.offline_only);
        assert!(odd.warnings[0].message.contains("\"offline\" or \"auto\""), "{:?}", odd.warnings);
    }

    #[test]
    fn debug_output_hides_the_keys() {
        let s = settings(&[("UNSPLASH_ACCESS_KEY", "secret-u"), ("OPENAI_API_KEY", "secret-o")]);
        let text = format!("{s:?}");
        assert!(!text.contains("secret"), "{text}");
    }
}
