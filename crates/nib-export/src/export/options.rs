//! How an export's files look, defined once: the command line flattens [`ExportLook`] into
//! `nib export` (clap, with the `clap` feature), the export tool and execute's `Export` flatten
//! it into their arguments (serde, camelCase, Pen's names for the html-tailwind options), and
//! the library's [`ExportSettings`](super::job::ExportSettings) holds it. A new option is added
//! here and reaches all three.

use serde::{Deserialize, Serialize};

use super::ExportError;
use super::html::tailwind::TailwindOptions;
use super::raster::DEFAULT_QUALITY;
use super::svg::TextMode;
use crate::render::RenderError;

/// The options every target of an export shares.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, rename_all = "camelCase")]
pub struct ExportLook {
    /// Output pixels per canvas pixel (raster sizes, SVG size, PDF page size).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1.0, value_parser = parse_scale))]
    pub scale: f32,
    /// JPEG and WebP quality from 1 to 100 (WebP 100 is lossless).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = DEFAULT_QUALITY, value_parser = parse_quality))]
    pub quality: u8,
    /// SVG text: outlines (exact everywhere) or live (<text> with family names).
    #[cfg_attr(feature = "clap", arg(long, value_enum, default_value_t = TextMode::Outlines))]
    #[serde(deserialize_with = "text_mode")]
    pub text: TextMode,
    /// HTML: put fonts, images and styles inside each page (self-contained files).
    #[cfg_attr(feature = "clap", arg(long))]
    pub embed: bool,
    /// html-tailwind: whole pages with a head linking the compiled stylesheet; --no-scaffold
    /// (includeHtmlScaffold: false) writes only the elements. React: the app's files
    /// (package.json with pinned versions, vite.config.ts, tsconfig.json, index.html, main.tsx)
    /// when the output folder is new or empty; --no-scaffold never writes them.
    #[cfg_attr(feature = "clap", arg(long = "no-scaffold", action = clap::ArgAction::SetFalse))]
    #[serde(rename = "includeHtmlScaffold")]
    pub scaffold: bool,
    /// React: write the app's files even into a folder that has files (--scaffold).
    #[cfg_attr(feature = "clap", arg(long = "scaffold", conflicts_with = "scaffold"))]
    #[serde(rename = "forceScaffold")]
    pub force_scaffold: bool,
    /// html-tailwind: give each element its layer name (data-name).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(rename = "includeLayerNames")]
    pub layer_names: bool,
    /// html-tailwind: each element's node id as data-pen-id; --no-layer-ids (includeLayerIds:
    /// false) leaves it out.
    #[cfg_attr(feature = "clap", arg(long = "no-layer-ids", action = clap::ArgAction::SetFalse))]
    #[serde(rename = "includeLayerIds")]
    pub layer_ids: bool,
    /// React: every element carries its node's id as data-pen-id and each component a penId
    /// prop (what a design review maps back); off by default, as a developer ships the code.
    #[cfg_attr(feature = "clap", arg(long))]
    pub ids: bool,
}

impl Default for ExportLook {
    /// Scale 1, quality 90, text as outlines, HTML with files beside the pages, html-tailwind as
    /// whole pages whose elements carry their ids (what a design review maps back) but no names.
    fn default() -> ExportLook {
        let tailwind = TailwindOptions::default();
        ExportLook {
            scale: 1.0,
            quality: DEFAULT_QUALITY,
            text: TextMode::Outlines,
            embed: false,
            scaffold: tailwind.scaffold,
            layer_names: tailwind.layer_names,
            layer_ids: tailwind.layer_ids,
            force_scaffold: false,
            ids: false,
        }
    }
}

/// The app file whose first line tells nib's own React app from a project's folder
/// ([`ExportLook::scaffold_in`]), and the most of it read to tell.
pub const APP_ENTRY: &str = "main.tsx";
pub const APP_ENTRY_LIMIT: u64 = 64 * 1024;

impl ExportLook {
    /// A React export into a folder decides here whether it writes the app's files
    /// (package.json, main.tsx…): into a new or empty folder, or one it wrote them into before
    /// (`main.tsx` is nib's, so exporting again and `--check` see the same files); a folder
    /// with other files is a project's, written into only when `force_scaffold` says so.
    pub fn scaffold_in(&mut self, folder_has_files: bool, main_tsx: Option<&[u8]>) -> &mut Self {
        let nibs_app = main_tsx.is_some_and(|text| text.starts_with(super::html::REACT_APP_MAIN_START.as_bytes()));
        if folder_has_files && !nibs_app && !self.force_scaffold {
            self.scaffold = false;
        }
        self
    }

    /// The html-tailwind options (Pen's).
    pub fn tailwind(&self) -> TailwindOptions {
        TailwindOptions { scaffold: self.scaffold, layer_names: self.layer_names, layer_ids: self.layer_ids }
    }

    /// The options as a run can use them: a scale above 0, a quality from 1 to 100.
    pub fn check(&self) -> Result<(), ExportError> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(RenderError::BadScale(self.scale).into());
        }
        if !(1..=100).contains(&self.quality) {
            return Err(ExportError::BadQuality(self.quality));
        }
        Ok(())
    }
}

pub use crate::render::parse_scale;

/// A text mode in any case (`"Live"` as `"live"`), as the export tool always took it.
fn text_mode<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<TextMode, D::Error> {
    let given = String::deserialize(deserializer)?;
    match given.to_ascii_lowercase().as_str() {
        "outlines" => Ok(TextMode::Outlines),
        "live" => Ok(TextMode::Live),
        _ => Err(serde::de::Error::custom(format!("text must be \"outlines\" or \"live\"; got \"{given}\""))),
    }
}

/// A quality that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{given}' is not a quality; use a whole number from 1 (smallest) to 100 (best)")]
pub struct QualityError {
    /// What was given instead.
    pub given: String,
}

/// Reads a quality: a whole number from 1 to 100.
pub fn parse_quality(text: &str) -> Result<u8, QualityError> {
    match text.trim().parse::<u8>() {
        Ok(quality) if (1..=100).contains(&quality) => Ok(quality),
        _ => Err(QualityError { given: text.to_owned() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_names_and_defaults_read_into_the_one_type() {
        let look: ExportLook = serde_json::from_value(serde_json::json!({})).expect("all optional");
        assert_eq!(look, ExportLook::default());
        let look: ExportLook = serde_json::from_value(serde_json::json!({
            "scale": 2, "quality": 70, "text": "live", "embed": true,
            "includeHtmlScaffold": false, "includeLayerNames": true, "includeLayerIds": false
        }))
        .expect("Pen's names");
        assert_eq!(
            look,
            ExportLook {
                scale: 2.0,
                quality: 70,
                text: TextMode::Live,
                embed: true,
                scaffold: false,
                layer_names: true,
                layer_ids: false,
                force_scaffold: false,
                ids: false
            }
        );
        let bold = serde_json::from_value::<ExportLook>(serde_json::json!({"text": "bold"})).expect_err("no such mode");
        assert!(bold.to_string().contains("text must be \"outlines\" or \"live\"; got \"bold\""), "{bold}");
        let live: ExportLook = serde_json::from_value(serde_json::json!({"text": "Live"})).expect("any case");
        assert_eq!(live.text, TextMode::Live);
    }

    #[test]
    fn a_run_refuses_a_scale_or_quality_it_cannot_use() {
        let bad_scale = ExportLook { scale: f32::INFINITY, ..ExportLook::default() };
        assert_eq!(bad_scale.check(), Err(RenderError::BadScale(f32::INFINITY).into()));
        let bad_quality = ExportLook { quality: 0, ..ExportLook::default() };
        assert_eq!(bad_quality.check(), Err(ExportError::BadQuality(0)));
        assert_eq!(parse_scale(" 2 "), Ok(2.0));
        assert_eq!(
            parse_scale("0").map_err(|e| e.to_string()),
            Err("'0' is not a scale; use a number above 0 such as 0.5, 1 or 2".to_owned())
        );
        assert_eq!(parse_quality("101"), Err(QualityError { given: "101".to_owned() }));
    }
}
