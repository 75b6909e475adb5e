//! Finding the variable references inside typed values, and filling them with values.
//!
//! Any value may be `"$name"`; [`VisitVars`] walks a value and hands every such reference to a
//! callback as a [`VarSlot`], which can assign the variable's value converted to the type the
//! slot holds (a color for a fill, a number for a gap). Resolution (themes, imports) lives in
//! `resolve`; this module only knows where references are and how to convert values.

use super::convert::{OneOrList, OrderedMap, VarOr, VarRef};
use super::json::{Json, RawJson};
use super::node::{NodeTree, NodeType};
use super::props::{Props, Value};
use super::values::*;

/// A place that holds a variable reference.
pub trait VarSlot {
    /// The variable referenced, or `None` when the place already holds a value.
    fn reference(&self) -> Option<&VarRef>;
    /// Replaces the reference by `value` converted to the place's type; false when the value has
    /// the wrong type (the reference is left).
    fn assign(&mut self, value: &VariableScalar) -> bool;
}

/// Values that may contain variable references.
pub trait VisitVars {
    /// Calls `visit` for every place that holds a variable reference or could.
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot));
}

/// Types a variable's value converts to.
pub(crate) trait FromVariable: Sized {
    /// The value as this type, if it fits.
    fn from_variable(value: &VariableScalar) -> Option<Self>;
}

impl<T: FromVariable> VarSlot for VarOr<T> {
    fn reference(&self) -> Option<&VarRef> {
        match self {
            VarOr::Var(reference) => Some(reference),
            VarOr::Value(_) => None,
        }
    }

    fn assign(&mut self, value: &VariableScalar) -> bool {
        match T::from_variable(value) {
            Some(value) => {
                *self = VarOr::Value(value);
                true
            }
            None => false,
        }
    }
}

impl<T: FromVariable> VisitVars for VarOr<T> {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        if matches!(self, VarOr::Var(_)) {
            visit(self);
        }
    }
}

impl FromVariable for f64 {
    fn from_variable(value: &VariableScalar) -> Option<f64> {
        match value {
            VariableScalar::Number(n) => Some(*n),
            _ => None,
        }
    }
}

impl FromVariable for bool {
    fn from_variable(value: &VariableScalar) -> Option<bool> {
        match value {
            VariableScalar::Boolean(b) => Some(*b),
            _ => None,
        }
    }
}

impl FromVariable for String {
    fn from_variable(value: &VariableScalar) -> Option<String> {
        match value {
            VariableScalar::String(s) => Some(s.clone()),
            _ => None,
        }
    }
}

impl FromVariable for Color {
    fn from_variable(value: &VariableScalar) -> Option<Color> {
        match value {
            VariableScalar::Color(color) => Some(*color),
            VariableScalar::String(text) => Color::parse(text).ok(),
            _ => None,
        }
    }
}

impl FromVariable for Sizing {
    fn from_variable(value: &VariableScalar) -> Option<Sizing> {
        match value {
            VariableScalar::Number(n) => Some(Sizing::Fixed(*n)),
            VariableScalar::String(text) => Sizing::parse_keyword(text),
            _ => None,
        }
    }
}

impl FromVariable for FontWeight {
    fn from_variable(value: &VariableScalar) -> Option<FontWeight> {
        match value {
            VariableScalar::Number(n) if n.fract() == 0.0 && (1.0..=1000.0).contains(n) => {
                Some(FontWeight::new(*n as u16))
            }
            VariableScalar::String(text) => FontWeight::parse_text(text),
            _ => None,
        }
    }
}

/// Values without references inside.
macro_rules! no_vars {
    ($($ty:ty),* $(,)?) => {
        $(impl VisitVars for $ty {
            fn visit_vars(&mut self, _visit: &mut dyn FnMut(&mut dyn VarSlot)) {}
        })*
    };
}

no_vars!(String, bool, f64, Json, RawJson, TextContent, VariableScalar, VariableValue, NodeType, OrderedMap<String>);

impl<T: VisitVars> VisitVars for Option<T> {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        if let Some(value) = self {
            value.visit_vars(visit);
        }
    }
}

impl<T: VisitVars> VisitVars for Vec<T> {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        for value in self {
            value.visit_vars(visit);
        }
    }
}

impl<T: VisitVars> VisitVars for Box<T> {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        self.as_mut().visit_vars(visit);
    }
}

impl<T: VisitVars, const N: usize> VisitVars for [T; N] {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        for value in self {
            value.visit_vars(visit);
        }
    }
}

impl<T: VisitVars> VisitVars for OneOrList<T> {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            OneOrList::One(value) => value.visit_vars(visit),
            OneOrList::List(values) => values.visit_vars(visit),
        }
    }
}

impl VisitVars for Fill {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            Fill::Solid(color) => color.visit_vars(visit),
            Fill::Color(fill) => fill.visit_vars(visit),
            Fill::Gradient(fill) => fill.visit_vars(visit),
            Fill::Image(fill) => fill.visit_vars(visit),
            Fill::MeshGradient(fill) => fill.visit_vars(visit),
            Fill::Shader(fill) => fill.visit_vars(visit),
            // Kept as written: nib does not know what its strings mean.
            Fill::Unknown(_) => {}
        }
    }
}

impl VisitVars for Effect {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            Effect::Shadow(effect) => effect.visit_vars(visit),
            Effect::Blur(effect) => effect.visit_vars(visit),
            Effect::BackgroundBlur(effect) => effect.visit_vars(visit),
            Effect::Unknown(_) => {}
        }
    }
}

impl VisitVars for Stroke {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            Stroke::Object(stroke) => stroke.visit_vars(visit),
            Stroke::Paint(fills) => fills.visit_vars(visit),
        }
    }
}

impl VisitVars for Thickness {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            Thickness::Uniform(width) => width.visit_vars(visit),
            Thickness::Sides(sides) => sides.visit_vars(visit),
        }
    }
}

impl VisitVars for Padding {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            Padding::Uniform(value) => value.visit_vars(visit),
            Padding::Axes(values) => values.visit_vars(visit),
            Padding::Sides(values) => values.visit_vars(visit),
        }
    }
}

impl VisitVars for CornerRadius {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            CornerRadius::Uniform(value) => value.visit_vars(visit),
            CornerRadius::Corners(values) => values.visit_vars(visit),
        }
    }
}

impl VisitVars for Value {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        match self {
            Value::TextOrVar(v) => v.visit_vars(visit),
            Value::Number(v) => v.visit_vars(visit),
            Value::Bool(v) => v.visit_vars(visit),
            Value::Layout(v) => v.visit_vars(visit),
            Value::JustifyContent(v) => v.visit_vars(visit),
            Value::AlignItems(v) => v.visit_vars(visit),
            Value::LayoutPosition(v) => v.visit_vars(visit),
            Value::TextAlign(v) => v.visit_vars(visit),
            Value::TextAlignVertical(v) => v.visit_vars(visit),
            Value::TextGrowth(v) => v.visit_vars(visit),
            Value::FontStyle(v) => v.visit_vars(visit),
            Value::FontWeight(v) => v.visit_vars(visit),
            Value::FillRule(v) => v.visit_vars(visit),
            Value::StrokeAlignment(v) => v.visit_vars(visit),
            Value::LineCap(v) => v.visit_vars(visit),
            Value::LineJoin(v) => v.visit_vars(visit),
            Value::Numbers(v) => v.iter_mut().for_each(|n| n.visit_vars(visit)),
            Value::Size(v) => v.visit_vars(visit),
            Value::Padding(v) => v.visit_vars(visit),
            Value::CornerRadius(v) => v.visit_vars(visit),
            Value::Fills(v) => v.visit_vars(visit),
            Value::Stroke(v) => v.visit_vars(visit),
            Value::StrokeWidth(v) => v.visit_vars(visit),
            Value::Effects(v) => v.visit_vars(visit),
            // Structure, plain text and verbatim JSON hold no typed references; overrides are
            // applied (and their values resolved) where the instance is expanded.
            Value::NodeType(_)
            | Value::Text(_)
            | Value::Theme(_)
            | Value::Slot(_)
            | Value::Content(_)
            | Value::Descendants(_)
            | Value::Json(_)
            | Value::Children => {}
        }
    }
}

impl VisitVars for Props {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        for value in self.values_mut() {
            value.visit_vars(visit);
        }
    }
}

impl VisitVars for NodeTree {
    fn visit_vars(&mut self, visit: &mut dyn FnMut(&mut dyn VarSlot)) {
        self.props.visit_vars(visit);
        for child in &mut self.children {
            child.visit_vars(visit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::convert::testing::read;

    #[test]
    fn every_reference_in_a_fill_list_is_visited_and_filled() {
        let mut fills: Fills = read(
            r##"["$--bg", {"type": "gradient", "gradientType": "linear", "rotation": "$--angle", "colors": [{"color": "$--from", "position": 0}, {"color": "#fff", "position": "$--end"}]}]"##,
        )
        .unwrap();
        let mut seen = Vec::new();
        fills.visit_vars(&mut |slot| {
            let name = slot.reference().unwrap().name().to_owned();
            let value = if name == "--angle" || name == "--end" {
                VariableScalar::Number(90.0)
            } else {
                VariableScalar::Color(Color::parse("#102030").unwrap())
            };
            assert!(slot.assign(&value));
            seen.push(name);
        });
        assert_eq!(seen, ["--bg", "--angle", "--from", "--end"]);
        let mut again = 0;
        fills.visit_vars(&mut |_| again += 1);
        assert_eq!(again, 0, "no references are left");
    }

    #[test]
    fn a_value_of_the_wrong_type_is_not_assigned() {
        let mut gap: VarOr<f64> = VarOr::Var(VarRef("--gap".into()));
        assert!(!gap.assign(&VariableScalar::String("wide".into())));
        assert!(gap.reference().is_some());
        let mut width: VarOr<Sizing> = VarOr::Var(VarRef("--w".into()));
        assert!(width.assign(&VariableScalar::String("fill_container".into())));
        assert_eq!(width, VarOr::Value(Sizing::FillContainer(None)));
    }
}
