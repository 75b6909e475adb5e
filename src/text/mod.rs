//! Fonts and icons: which families and icon names exist (the catalog), the bundled font
//! database, text styles, and shaping and measuring with cosmic-text.

pub mod catalog;
pub mod fonts;
pub mod icons;
mod lucide;
pub mod outline;
pub mod shape;
pub mod style;

pub use catalog::{IconSet, is_known_family, suggest_family};
pub use fonts::{FamilyChoice, FontBook, FontOptions};
pub use icons::{IconDrawing, LUCIDE_STROKE_WIDTH};
pub use outline::{Decorations, GlyphOutline};
pub use shape::{PreparedText, ShapedGlyph, ShapedLine, ShapedText, TextEngine};
pub use style::{TextStyle, text_content, text_growth};
