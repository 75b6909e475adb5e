//! A page as a tree of elements, built once from the laid-out Scene and read by every writer of
//! code (HTML with its own CSS, HTML with Tailwind classes): each element keeps its node's id and
//! layer name, the kind of element it is, its content, and its style as CSS declarations that
//! keep the design's intent — flex direction, gap and padding rather than positions, `var(--…)`
//! where the document used a variable — so a writer only chooses how to spell them.

/// What kind of element a node becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    /// A box: a frame, rectangle, group or oval.
    Div,
    /// A text.
    P,
    /// A shape CSS cannot draw, as inline SVG.
    Svg,
}

impl Tag {
    /// The HTML element name.
    pub fn name(self) -> &'static str {
        match self {
            Tag::Div => "div",
            Tag::P => "p",
            Tag::Svg => "svg",
        }
    }
}

/// The declarations of one element, of its stroke's pseudo-element (drawn over the box), and
/// of the span a text's characters sit in when its lines must move (see `lines`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Rules {
    pub main: Vec<(&'static str, String)>,
    pub stroke: Vec<(&'static str, String)>,
    /// A text's lines, moved down to nib's baseline where the browser's differs (Pen puts a
    /// `normal` line's baseline on a whole pixel; CSS centres the face in the line).
    pub lines: Vec<(&'static str, String)>,
    /// How many of `main`'s first declarations place the element in its parent and size it
    /// (position, offsets, width, height, flex sharing, margins): what a component's usage
    /// decides, not the component.
    pub placed: usize,
    /// The image file `background` starts with, when it is the only one there: what an instance
    /// of a component may change (React makes it a prop).
    pub image: Option<ImageLayer>,
}

/// An image file in a `background`: its address and the rest of the value after it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ImageLayer {
    /// The file, as the page names it (`images/….png`).
    pub href: String,
    /// What follows its `url(…)` in the value (`center / cover no-repeat`, further layers).
    pub rest: String,
}

impl Rules {
    pub fn set(&mut self, property: &'static str, value: impl Into<String>) {
        self.main.push((property, value.into()));
    }
}

/// One element of a page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Element {
    /// The node's id (`data-pen-id`).
    pub id: String,
    /// Its layer name, or its type when it has none (class names start from it).
    pub name: String,
    pub tag: Tag,
    pub rules: Rules,
    /// Theme attributes set here (`data-theme-mode="dark"`): on the page's root and on nodes
    /// that choose a theme.
    pub themes: Vec<(String, String)>,
    pub content: Content,
    pub children: Vec<Element>,
    /// The component this element is an instance of (the `ref` of the document's instance
    /// node), when it is one the document places itself.
    pub instance: Option<String>,
    /// How its width and height are decided, as its placement writes them.
    pub sizing: [Sizing; 2],
    /// The icon it draws (an icon node's name in its set), for writers that make one
    /// component per icon.
    pub icon: Option<String>,
}

/// How an element's size along one axis is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Sizing {
    /// A length (`width: 240px`): a fixed size, or what CSS cannot work out itself (a group,
    /// a box out of any flow that fills its parent).
    Fixed,
    /// Nothing: the content decides.
    #[default]
    Hug,
    /// Flex growth or stretching in its parent's flow.
    Fill,
}

/// What is inside an element besides its children.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Content {
    /// Nothing (a box; its children follow).
    None,
    /// A text's characters, as written (each writer escapes them its own way).
    Text(String),
    /// An SVG drawing of `width` × `height`: the markup inside the `<svg>` element.
    Svg { width: f32, height: f32, markup: String },
}

impl Element {
    /// The rest of the element's start tag every writer writes the same way (its theme
    /// attributes, an SVG's size), then its content: a text's characters escaped, inside a span
    /// with `span_attributes` when its lines move, or the SVG's markup. The children and the
    /// end tag are the writer's.
    pub(crate) fn write_rest(&self, html: &mut String, span_attributes: &str) {
        use crate::export::svg::escape;
        use std::fmt::Write as _;
        for (attribute, value) in &self.themes {
            let _ = write!(html, " {attribute}=\"{}\"", escape(value));
        }
        if let Content::Svg { width, height, .. } = &self.content {
            html.push_str(&svg_attributes(*width, *height));
        }
        html.push('>');
        match &self.content {
            Content::None => {}
            Content::Text(text) if !self.rules.lines.is_empty() => {
                let _ = write!(html, "<span{span_attributes}>{}</span>", escape(text));
            }
            Content::Text(text) => html.push_str(&escape(text)),
            Content::Svg { markup, .. } => html.push_str(markup),
        }
    }
}

/// The attributes of an inline `<svg>` element `width` × `height` (a leading space each), as
/// every writer gives them.
pub(crate) fn svg_attributes(width: f32, height: f32) -> String {
    use crate::export::svg::number;
    format!(
        " width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" xmlns=\"http://www.w3.org/2000/svg\"",
        number(width),
        number(height),
        number(width.max(0.01)),
        number(height.max(0.01))
    )
}
