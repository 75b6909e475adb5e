//! G(): an image from an AI or stock service as a frame's or rectangle's fill, kept in the
//! document's folder. The one operation that reaches outside the document.

use crate::doc::values::{Fill, Fills, ImageFill, ImageMode};
use crate::doc::{Key, NodeType, Props, Value, VarOr};
use crate::images::{ImageKind, ImageRequest, Orientation};
use crate::resolve::PathTarget;
use crate::script::ast::Expr;
use crate::script::exec::overrides::target_tree;
use crate::script::exec::{Runner, Step, StepError};
use crate::script::report::OpResult;

impl Runner<'_, '_> {
    /// `G(node, "ai" | "stock", prompt)`
    pub(in crate::script::exec) fn generate(&mut self, node: &Expr, kind: &Expr, prompt: &Expr) -> Step<String> {
        let kind_text = self.text(kind)?;
        let kind_value = ImageKind::parse(&kind_text).ok_or_else(|| {
            StepError::new(format!("the image source must be \"ai\" or \"stock\", found {kind_text:?}")).at(kind)
        })?;
        let prompt_text = self.text(prompt)?;
        if prompt_text.trim().is_empty() {
            return Err(StepError::new("the prompt is empty")
                .hint("describe the image, e.g. \"warm bakery interior\"")
                .at(prompt));
        }
        let target = self.target(node)?;
        let (node_type, path) = match &target {
            PathTarget::Node(key) => {
                (Some(self.document().tree().node(*key).node_type()), self.document().tree().node(*key).id().to_owned())
            }
            PathTarget::InInstance(t) => {
                (t.node_type, format!("{}/{}", self.document().tree().node(t.instance).id(), t.override_key))
            }
        };
        if let Some(node_type) = node_type
            && !matches!(node_type, NodeType::Frame | NodeType::Rectangle)
        {
            return Err(StepError::new(format!(
                "Only frames and rectangles take image fills; '{path}' is {}",
                node_type.with_article()
            ))
            .hint("G() a rectangle or frame, e.g. one inserted for the image")
            .at(node));
        }
        let folder = self.context.folder.ok_or_else(|| {
            StepError::new("the document is not stored in a folder, so the image has nowhere to go")
                .hint("open or save the document as a file first")
        })?;
        // The node's shape, when its own numbers give it, lets services pick a fitting picture.
        let orientation = match &target {
            PathTarget::Node(key) => {
                let (width, height) = crate::script::exec::place::size_of(&self.document().tree().node(*key).props);
                Orientation::of(width, height)
            }
            PathTarget::InInstance(_) => None,
        };
        let image = self
            .context
            .images
            .image(&ImageRequest {
                kind: kind_value,
                prompt: &prompt_text,
                folder,
                orientation,
                confinement: self.context.confinement,
            })
            .map_err(|e| StepError::new(format!("no image for the prompt: {e}")).at(prompt))?;
        self.state.created.extend(image.created.clone());
        let fill = ImageFill {
            enabled: Some(VarOr::Value(true)),
            url: Some(image.url.clone()),
            // Cover, in the word of the document's version (2.20 renamed fill to cover).
            mode: Some(if crate::doc::format::Version::read_as(self.document().version()).cover_contain_images() {
                ImageMode::Cover
            } else {
                ImageMode::Fill
            }),
            ..ImageFill::default()
        };
        let mut props = Props::default();
        props.set(Key::Fill, Value::Fills(Fills::One(Fill::Image(Box::new(fill)))));
        if let Some(metadata) =
            image.metadata.as_deref().and_then(|m| crate::doc::json::parse(m).ok()).and_then(|p| p.value)
        {
            props.set(Key::Metadata, Value::Json(crate::doc::json::RawJson::from_json(&metadata)));
        }
        match target {
            PathTarget::Node(key) => {
                self.note_before(key);
                for (name, value) in props.iter() {
                    self.tx.set(key, name.clone(), Some(value.clone()));
                }
                self.touch(key);
            }
            PathTarget::InInstance(target) => {
                self.edit_overrides(&target, |_, descendants, _| {
                    let tree = target_tree(descendants, &target);
                    for (name, value) in props.iter() {
                        tree.props.set(name.clone(), value.clone());
                    }
                    Ok(())
                })?;
            }
        }
        self.state.results.push(OpResult::ImageAdded {
            id: path.clone(),
            prompt: prompt_text,
            url: image.url,
            note: image.note,
        });
        Ok(path)
    }
}
