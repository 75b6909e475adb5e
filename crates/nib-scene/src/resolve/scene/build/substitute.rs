//! Replacing variables by their values under the themes in force, and saying which theme
//! selections select nothing: the Scene builder's work on a node's values, apart from where
//! the node comes from.

use super::{Builder, Context, unresolved};
use crate::doc::values::{TextContent, ThemeSelection, VariableScalar};
use crate::doc::vars::VisitVars;
use crate::doc::{Key, MAX_LENGTH, Props, Value, VarRef};
use crate::resolve::variables::{self, lookup};

impl<'a> Builder<'a> {
    pub(super) fn substitute(&mut self, props: &mut Props, context: &Context<'a>, node: &str) {
        if !self.options.substitute_variables {
            return;
        }
        let (root, library) = (self.root, self.library);
        // Text that is exactly "$name" of a string variable shows the variable's value; any
        // other text starting with "$" ("$ git status") is literal.
        if let Some(Value::Content(TextContent::Plain(text))) = props.get(&Key::Content)
            && let Some(name) = text.strip_prefix('$').filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
            && let Ok(found) = lookup(
                context.scope.document,
                context.scope.alias,
                root,
                library,
                &VarRef(name.to_owned()),
                &context.theme,
            )
            && let VariableScalar::String(value) = found.value
        {
            self.substituted += value.len();
            props.set(Key::Content, Value::Content(TextContent::Plain(value.into())));
        }
        let mut problems = Vec::new();
        let mut substituted = 0;
        props.visit_vars(&mut |slot| {
            let Some(reference) = slot.reference().cloned() else { return };
            match lookup(context.scope.document, context.scope.alias, root, library, &reference, &context.theme) {
                Ok(found) => {
                    if let VariableScalar::String(value) = &found.value {
                        substituted += value.len();
                    }
                    if let VariableScalar::Number(n) = found.value
                        && n.abs() > MAX_LENGTH
                    {
                        // Written in a node this would be refused; through a variable it must not
                        // lay out as infinity either. The property stays unresolved, reported.
                        problems.push((
                            reference.name().to_owned(),
                            format!(
                                "variable '{}' is {}, beyond the largest number nib lays out (±1000000); it is not used",
                                reference.name(),
                                crate::doc::json::js_number(n)
                            ),
                            None,
                        ));
                    } else if !slot.assign(&found.value) {
                        problems.push((
                            reference.name().to_owned(),
                            format!("variable '{}' has a value of the wrong type here", reference.name()),
                            None,
                        ));
                    } else if found.unmatched_theme {
                        problems.push((
                            reference.name().to_owned(),
                            format!(
                                "variable '{}' has no value for the theme {}; its first value is used",
                                reference.name(),
                                context.theme
                            ),
                            None,
                        ));
                    }
                }
                Err(error) => {
                    let alias = match &error {
                        variables::LookupError::ImportNotLoaded { alias, .. } => Some(alias.clone()),
                        _ => None,
                    };
                    problems.push((reference.name().to_owned(), error.to_string(), alias));
                }
            }
        });
        self.substituted += substituted;
        for (name, message, alias) in problems {
            self.part
                .variable_problems
                .entry((name, message, alias))
                .and_modify(|(_, count)| *count += 1)
                .or_insert((node.to_owned(), 1));
        }
    }

    /// Says which axes or values of a node's `theme` (written in the file imported as `alias`)
    /// select nothing: Pen draws such a node with the axis's first value, so it looks untouched.
    pub(super) fn check_theme(&mut self, selection: &ThemeSelection, alias: Option<&str>, node: &str) {
        for (axis, value) in selection.iter() {
            let axis = match alias {
                Some(alias) if !axis.contains(':') => format!("{alias}:{axis}"),
                _ => axis.to_owned(),
            };
            // Once per top-level part: a component's theme is seen in each of its instances.
            if !self.reported_axes.insert((axis.clone(), value.to_owned())) {
                continue;
            }
            if let Some(why) = variables::unresolved_axis(self.root, self.library, &axis, value) {
                self.part.problems.push(unresolved(node, format!("its theme selects nothing: {why}")).with_hint(
                    "name an axis the document or an import defines (an import's as alias:Axis, e.g. c:Mode)",
                ));
            }
        }
    }
}
