//! The typed values of node properties and document-level settings.
//!
//! Every value reads from JSON and writes back exactly as read; see [`crate::doc::object`] for
//! how objects keep their key order.

mod color;
mod effect;
mod layout;
mod paint;
mod shape;
mod stroke;
mod text;
mod variables;

pub use color::{Color, InvalidColor};
pub use effect::{BackgroundBlur, Effect, Effects, LayerBlur, Shadow, ShadowType};
pub use layout::{AlignItems, JustifyContent, Layout, LayoutPosition, Padding, Sizing};
pub use paint::{
    BlendMode, ColorFill, ColorStop, Fill, Fills, Gradient, GradientType, ImageFill, ImageMode, MeshGradient, Point,
    RelativeSize, ShaderFill, is_placeholder_image, placeholder_image_name,
};
pub use shape::{CornerRadius, FillRule};
pub use stroke::{
    LineCap, Sides, Stroke, StrokeAlign, StrokeAlignment, StrokeCap, StrokeJoin, StrokeObject, Thickness,
};
pub use text::{FontStyle, FontWeight, PEN_WEIGHT_NAMES, TextAlign, TextAlignVertical, TextContent, TextGrowth};
pub(crate) use variables::read_themes;
pub use variables::{
    Imports, ThemeSelection, ThemedValue, Themes, Variable, VariableScalar, VariableType, VariableValue, Variables,
};
