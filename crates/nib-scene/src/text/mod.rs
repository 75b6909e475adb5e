//! Fonts and icons: which families and icon names exist (the catalog), the fonts text is shaped
//! with (bundled, the document's own, the user's, fetched, the system's), text styles, and
//! shaping and measuring with cosmic-text.

mod bundled;
pub mod cache;
pub mod catalog;
pub mod document_fonts;
pub mod faces;
pub mod files;
pub mod fonts;
pub mod icons;
mod kerning;
mod lucide;
pub mod outline;
mod pieces;
mod registry;
mod relayout;
mod runs;
pub mod shape;
mod shaped;
mod spacing;
pub mod style;

pub use bundled::PARTIAL_FAMILIES;
pub use catalog::{Category, google_family, is_known_family, missing_icon, suggest_family};
pub use document_fonts::DocumentFonts;
pub use faces::Origin;
pub use files::{FontFiles, MemoryFontFiles, SystemFont};
pub use fonts::{FamilyChoice, FontBook, FontOptions, Substitution};
pub use icons::{IconDrawing, LUCIDE_STROKE_WIDTH};
pub use outline::GlyphOutline;
pub use registry::{FaceFile, GlyphFace, UsedFont};
pub(crate) use shape::PreparedText;
pub use shape::{TextEngine, start_shaping_clock, stop_shaping_clock};
pub use shaped::{ShapedGlyph, ShapedText};
pub use style::{TextStyle, text_content};
