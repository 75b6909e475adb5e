//! The versions of the `.pen` format and what changed between them.
//!
//! A document says its version (`"version": "2.19"`), and every rule that changed between
//! versions is looked up here by that version: how an absent key reads (a stroke's alignment,
//! an image's mode), how Pen draws a thing at that version (inner shadows, path geometry), and
//! which keys and values a document of that version may hold at all. The evidence for each rule
//! (Pen's saved files, its schema, the notes of other implementers) is in
//! `spec/pen-versions.md`; the rules are written once, here, and read by loading, checking,
//! resolving, painting, writing and migrating alike.

use std::fmt;

use super::json::escape_pointer_token;
use super::node::NodeType;
use super::values::{Effect, Fill, Stroke, TextContent};
use super::{Document, Key, OneOrList, Props, Value};

/// A format version, `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    major: u16,
    minor: u16,
}

impl Version {
    /// 2.6, the oldest version seen in real files.
    pub(crate) const OLDEST: Version = Version::new(2, 6);
    /// 2.11: the version a document without one is read as (and, before 2.17 was known, the
    /// version new documents got).
    pub const V2_11: Version = Version::new(2, 11);
    /// 2.13: strokes spread over `stroke`, `strokeWidth`, `strokeAlignment`; `icon` nodes.
    pub const V2_13: Version = Version::new(2, 13);
    /// 2.14: `strokeLinecap`/`strokeLinejoin` and a path's `viewBox` are node keys (Pen's own
    /// 2.14 and 2.15 saves hold them).
    pub const V2_14: Version = Version::new(2, 14);
    /// 2.17 (Pen 1.2.7): centred strokes by default, `strokeLinecap`/`strokeLinejoin`, paths
    /// fitted to their box and `viewBox`, `script` nodes, groups without layout, no dashes, no
    /// styled text runs.
    pub const V2_17: Version = Version::new(2, 17);
    /// 2.19 (Pen 1.2.14): inner shadows drawn inside, no shadow `spread`, `browser` nodes.
    pub const V2_19: Version = Version::new(2, 19);
    /// 2.20 (Pen 1.2.15): image fills `cover`/`contain` (default `cover`) and crop `transform`.
    pub(crate) const V2_20: Version = Version::new(2, 20);
    /// The newest version nib knows: new documents are written in it.
    pub const NEWEST: Version = Version::V2_20;

    const fn new(major: u16, minor: u16) -> Version {
        Version { major, minor }
    }

    /// The version spelled `text` (`"2.19"`), when it is one.
    pub fn parse(text: &str) -> Option<Version> {
        let (major, minor) = text.trim().split_once('.')?;
        Some(Version { major: major.parse().ok()?, minor: minor.parse().ok()? })
    }

    /// The version a document that says `text` is read as: its own when it is one nib knows,
    /// the nearest known one otherwise, and 2.11 when it says none.
    pub fn read_as(text: Option<&str>) -> Version {
        match text.and_then(Version::parse) {
            Some(version) if version < Version::OLDEST => Version::OLDEST,
            Some(version) if version > Version::NEWEST => Version::NEWEST,
            Some(version) => version,
            None => Version::V2_11,
        }
    }

    /// True for the versions nib reads and writes as they are: 2.6 to 2.20.
    pub fn is_known(self) -> bool {
        (Version::OLDEST..=Version::NEWEST).contains(&self)
    }

    /// Strokes are `stroke` + `strokeWidth` + `strokeAlignment` (not a `stroke` object) and
    /// icons are `icon` nodes (not `icon_font`).
    pub fn flat_strokes(self) -> bool {
        self >= Version::V2_13
    }

    /// An absent `strokeAlignment` means centre (Pen omits it when the stroke is centred);
    /// before, an absent alignment means inside.
    pub fn centred_strokes_by_default(self) -> bool {
        self >= Version::V2_17
    }

    /// A path's geometry is moved to its box's corner before it is scaled to the box (and
    /// `viewBox` may say which region of it fills the box); before, it is scaled in place.
    pub fn fits_paths_to_their_box(self) -> bool {
        self >= Version::V2_17
    }

    /// Pen's exports of a node hold the whole blur of its drop shadows (three standard
    /// deviations); before, the blur's own length (the faint tail cut off).
    pub fn exports_whole_shadow_blur(self) -> bool {
        self >= Version::V2_17
    }

    /// Inner shadows are drawn inside. Pen before 1.2.14 drew them as outer shadows, and 1.2.14
    /// rewrites an older file's inner shadows to outer ones when it opens it, so an older
    /// document keeps its picture.
    pub fn draws_inner_shadows(self) -> bool {
        self >= Version::V2_19
    }

    /// Image fills are `stretch`, `cover` or `contain`, absent meaning `cover`; before, they
    /// are `stretch`, `fill` or `fit`, absent meaning `stretch`.
    pub fn cover_contain_images(self) -> bool {
        self >= Version::V2_20
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Every version nib knows, oldest first, as documents spell them.
pub const KNOWN_VERSIONS: &[&str] = &[
    "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.14", "2.15", "2.16", "2.17", "2.18", "2.19", "2.20",
];

/// Something a document of one version cannot hold: a key, a node type or a value that was
/// removed (or not yet added), with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotInVersion {
    /// What it is, e.g. `"spread" on a shadow`.
    pub what: String,
    /// The document's version.
    pub version: Version,
    /// The version that removed it (or, for something new, added it).
    pub since: Version,
    /// True when it is newer than the document (it arrived in `since`); false when the
    /// document is newer than it (it left in `since`).
    pub newer: bool,
    /// What to write instead.
    pub instead: &'static str,
}

impl fmt::Display for NotInVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.newer {
            write!(f, "{} is new in format {}, and this document is {}", self.what, self.since, self.version)
        } else {
            write!(f, "{} was removed in format {}, and this document is {}", self.what, self.since, self.version)
        }
    }
}

impl NotInVersion {
    /// The hint that goes with it.
    pub fn hint(&self) -> String {
        self.instead.to_owned()
    }
}

/// A rule of [`KEY_RULES`]: `key` (on `types`, or every type when empty) exists from `from`
/// (inclusive) to `until` (exclusive).
struct KeyRule {
    key: &'static str,
    types: &'static [NodeType],
    from: Version,
    until: Option<Version>,
    instead: &'static str,
}

/// Node keys that came or went. Sources in `spec/pen-versions.md`.
const KEY_RULES: &[KeyRule] = &[
    KeyRule {
        key: "strokeLinecap",
        types: &[],
        from: Version::V2_14,
        until: None,
        instead: "this version keeps stroke ends in the stroke object's `cap` (≤ 2.11) or cannot store them (2.13): run `nib migrate FILE` to move the document to a current format",
    },
    KeyRule {
        key: "strokeLinejoin",
        types: &[],
        from: Version::V2_14,
        until: None,
        instead: "this version keeps stroke corners in the stroke object's `join` (≤ 2.11) or cannot store them (2.13): run `nib migrate FILE` to move the document to the current format",
    },
    KeyRule {
        key: "viewBox",
        types: &[NodeType::Path],
        from: Version::V2_14,
        until: None,
        instead: "in this version a path's geometry is scaled to its box in place: write the geometry in the box's coordinates, or run `nib migrate FILE`",
    },
    KeyRule {
        key: "layout",
        types: &[NodeType::Group],
        from: Version::OLDEST,
        until: Some(Version::V2_17),
        instead: "since 2.17 a group is a plain container without layout: use a frame (with `layout`) to arrange children",
    },
    KeyRule {
        key: "gap",
        types: &[NodeType::Group],
        from: Version::OLDEST,
        until: Some(Version::V2_17),
        instead: "since 2.17 a group is a plain container without layout: use a frame with `gap`",
    },
    KeyRule {
        key: "padding",
        types: &[NodeType::Group],
        from: Version::OLDEST,
        until: Some(Version::V2_17),
        instead: "since 2.17 a group is a plain container without layout: use a frame with `padding`",
    },
    KeyRule {
        key: "justifyContent",
        types: &[NodeType::Group],
        from: Version::OLDEST,
        until: Some(Version::V2_17),
        instead: "since 2.17 a group is a plain container without layout: use a frame with `justifyContent`",
    },
    KeyRule {
        key: "alignItems",
        types: &[NodeType::Group],
        from: Version::OLDEST,
        until: Some(Version::V2_17),
        instead: "since 2.17 a group is a plain container without layout: use a frame with `alignItems`",
    },
    KeyRule {
        key: "width",
        types: &[NodeType::Group],
        from: Version::OLDEST,
        until: Some(Version::V2_17),
        instead: "since 2.17 a group's box is the union of its children: size the children, or use a frame",
    },
    KeyRule {
        key: "height",
        types: &[NodeType::Group],
        from: Version::OLDEST,
        until: Some(Version::V2_17),
        instead: "since 2.17 a group's box is the union of its children: size the children, or use a frame",
    },
];

/// Node types that came or went.
const TYPE_RULES: &[(NodeType, Version, Option<Version>, &str)] = &[
    (
        NodeType::IconFont,
        Version::OLDEST,
        Some(Version::V2_13),
        "write {type: \"icon\", icon: NAME, library: SET} (2.13 renamed icon_font; iconFontName is icon, iconFontFamily is library)",
    ),
    (
        NodeType::Icon,
        Version::V2_13,
        None,
        "write {type: \"icon_font\", iconFontName: NAME, iconFontFamily: SET} in this version",
    ),
    (NodeType::Script, Version::V2_17, None, "run `nib migrate FILE` to move the document to the current format first"),
    (
        NodeType::Connection,
        Version::V2_17,
        None,
        "run `nib migrate FILE` to move the document to the current format first",
    ),
    (
        NodeType::Browser,
        Version::V2_19,
        None,
        "run `nib migrate FILE` to move the document to the current format first",
    ),
];

fn exists(from: Version, until: Option<Version>, version: Version) -> Result<(), (Version, bool)> {
    if version < from {
        return Err((from, true));
    }
    match until {
        Some(until) if version >= until => Err((until, false)),
        _ => Ok(()),
    }
}

/// Whether a document of `version` may hold the node key `key` on a node of `node_type`.
pub(crate) fn check_key(version: Version, node_type: NodeType, key: &str) -> Result<(), NotInVersion> {
    for rule in KEY_RULES.iter().filter(|r| r.key == key && (r.types.is_empty() || r.types.contains(&node_type))) {
        if let Err((since, newer)) = exists(rule.from, rule.until, version) {
            let on = if rule.types.is_empty() { String::new() } else { format!(" on {}", node_type.with_article()) };
            return Err(NotInVersion { what: format!("\"{key}\"{on}"), version, since, newer, instead: rule.instead });
        }
    }
    Ok(())
}

/// Whether a document of `version` may hold nodes of `node_type`.
pub fn check_type(version: Version, node_type: NodeType) -> Result<(), NotInVersion> {
    for (rule_type, from, until, instead) in TYPE_RULES {
        if *rule_type == node_type
            && let Err((since, newer)) = exists(*from, *until, version)
        {
            let what = format!("the node type \"{}\"", node_type.as_str());
            return Err(NotInVersion { what, version, since, newer, instead });
        }
    }
    Ok(())
}

/// Keys inside the objects a node holds (fills, strokes, effects) that came or went: the key of
/// the object (`effect`, `stroke`, `fill`), its `type` tag when it has one, and the member.
pub(crate) fn check_member(
    version: Version,
    holder: &str,
    tag: Option<&str>,
    member: &str,
) -> Result<(), NotInVersion> {
    let rule: Option<(Version, Option<Version>, &'static str)> = match (holder, tag, member) {
        ("effect", Some("shadow"), "spread") => Some((
            Version::OLDEST,
            Some(Version::V2_19),
            "2.19 shadows have no spread (no Pen ever drew it): leave it out, or grow the shadow with a larger blur or offset",
        )),
        ("stroke", None, "dashPattern") => Some((
            Version::OLDEST,
            Some(Version::V2_13),
            "since 2.13 a stroke has no dashes: leave dashPattern out (Pen drops it)",
        )),
        ("stroke", None, "miterAngle") => Some((
            Version::OLDEST,
            Some(Version::V2_13),
            "since 2.13 a stroke has no miter angle: leave miterAngle out",
        )),
        ("fill", Some("image"), "transform") => {
            Some((Version::V2_20, None, "image crops arrived in 2.20: leave transform out, or run `nib migrate FILE`"))
        }
        _ => None,
    };
    let Some((from, until, instead)) = rule else { return Ok(()) };
    exists(from, until, version).map_err(|(since, newer)| {
        let article = if tag.is_some_and(|tag| tag.starts_with(['a', 'e', 'i', 'o', 'u'])) { "an" } else { "a" };
        let on = tag.map_or_else(|| holder.to_owned(), |tag| format!("{article} {tag} {holder}"));
        NotInVersion { what: format!("\"{member}\" on {on}"), version, since, newer, instead }
    })
}

/// Whether a document of `version` may spell an image fill's mode `mode`.
pub(crate) fn check_image_mode(version: Version, mode: &str) -> Result<(), NotInVersion> {
    let (old, new) = (["fill", "fit"], ["cover", "contain"]);
    let (since, newer, instead) = match mode {
        m if old.contains(&m) && version.cover_contain_images() => {
            (Version::V2_20, false, "2.20 calls image modes cover (was fill) and contain (was fit)")
        }
        m if new.contains(&m) && !version.cover_contain_images() => {
            (Version::V2_20, true, "this version calls them fill (for cover) and fit (for contain)")
        }
        _ => return Ok(()),
    };
    Err(NotInVersion { what: format!("the image mode \"{mode}\""), version, since, newer, instead })
}

/// Whether a document of `version` may hold styled text runs (`content` as a list).
pub(crate) fn check_text_runs(version: Version) -> Result<(), NotInVersion> {
    exists(Version::OLDEST, Some(Version::V2_17), version).map_err(|(since, newer)| NotInVersion {
        what: "styled text runs (content as a list)".to_owned(),
        version,
        since,
        newer,
        instead: "since 2.17 content is one string: write the text as a string, and split differently styled parts into separate text nodes",
    })
}

/// Everything in `props` (a node of `node_type`, or an override when `None`) that a document of
/// `version` cannot hold, each with the JSON pointer inside the node (`/effect/0/spread`).
pub fn check_props(version: Version, node_type: Option<NodeType>, props: &Props) -> Vec<(String, NotInVersion)> {
    let mut found = Vec::new();
    for (key, value) in props.iter() {
        let at = format!("/{}", escape_pointer_token(key.name()));
        if let Some(node_type) = node_type
            && let Err(not) = check_key(version, node_type, key.name())
        {
            found.push((at, not));
            continue;
        }
        match value {
            Value::Effects(effects) => {
                let list = matches!(effects, OneOrList::List(_));
                for (index, effect) in effects.as_slice().iter().enumerate() {
                    let Effect::Shadow(shadow) = effect else { continue };
                    let here = if list { format!("{at}/{index}") } else { at.clone() };
                    if shadow.spread.is_some()
                        && let Err(not) = check_member(version, "effect", Some("shadow"), "spread")
                    {
                        found.push((format!("{here}/spread"), not));
                    }
                }
            }
            Value::Fills(fills) | Value::Stroke(Stroke::Paint(fills)) => {
                let list = matches!(fills, OneOrList::List(_));
                for (index, fill) in fills.as_slice().iter().enumerate() {
                    let Fill::Image(image) = fill else { continue };
                    let here = if list { format!("{at}/{index}") } else { at.clone() };
                    if let Some(mode) = image.mode
                        && let Err(not) = check_image_mode(version, mode.as_str())
                    {
                        found.push((format!("{here}/mode"), not));
                    }
                    if image.transform.is_some()
                        && let Err(not) = check_member(version, "fill", Some("image"), "transform")
                    {
                        found.push((format!("{here}/transform"), not));
                    }
                }
            }
            Value::Stroke(Stroke::Object(stroke)) if version.flat_strokes() => {
                let not = NotInVersion {
                    what: "a stroke object {align, thickness, fill}".to_owned(),
                    version,
                    since: Version::V2_13,
                    newer: false,
                    instead: "since 2.13 a stroke is spread over stroke (the paint), strokeWidth and strokeAlignment",
                };
                found.push((at.clone(), not));
                for (member, present) in
                    [("dashPattern", stroke.dash_pattern.is_some()), ("miterAngle", stroke.miter_angle.is_some())]
                {
                    if let (true, Err(not)) = (present, check_member(version, "stroke", None, member)) {
                        found.push((format!("{at}/{member}"), not));
                    }
                }
            }
            Value::Content(TextContent::Runs(_)) => {
                if let Err(not) = check_text_runs(version) {
                    found.push((at, not));
                }
            }
            _ => {}
        }
    }
    found
}

/// What a document of `version` spells and how it draws, in a few lines an agent reads before it
/// writes (get_editor_state's schema): every rule of this module, said for this one version.
pub fn describe_version(version: Version) -> String {
    let mut lines = vec![format!("## This document: format {version}")];
    let mut say =
        |yes: bool, then: &str, otherwise: &str| lines.push(format!("- {}", if yes { then } else { otherwise }));
    say(
        version.flat_strokes(),
        "Strokes: `stroke` (a paint), `strokeWidth` (number or {top, right, bottom, left}), `strokeAlignment` inner|center|outer.",
        "Strokes: one object `stroke: {align: inside|center|outside, thickness, fill, join, cap, dashPattern}`.",
    );
    say(
        version.centred_strokes_by_default(),
        "A stroke without an alignment is centred on the edge.",
        "A stroke without an alignment is drawn inside.",
    );
    if version.flat_strokes() {
        say(
            version >= Version::V2_17,
            "Line ends and corners: `strokeLinecap` butt|round|square, `strokeLinejoin` miter|bevel|round; no dashes.",
            "No line caps, joins or dashes (2.17 adds `strokeLinecap`/`strokeLinejoin`).",
        );
    } else {
        say(
            true,
            "Line ends and corners: the stroke object's `cap` none|round|square and `join`; dashes in `dashPattern`.",
            "",
        );
    }
    say(
        version >= Version::V2_13,
        "Icons: `{type: \"icon\", icon: NAME, library: SET}`.",
        "Icons: `{type: \"icon_font\", iconFontName: NAME, iconFontFamily: SET}`.",
    );
    say(
        version.cover_contain_images(),
        "Image fills: `mode` cover (the default), contain or stretch; `transform` [a, b, c, d, tx, ty] crops.",
        "Image fills: `mode` stretch (the default), fill (cover) or fit (contain); no crop.",
    );
    say(
        version.draws_inner_shadows(),
        "Shadows: `shadowType` outer|inner (inner drawn inside); no `spread`.",
        "Shadows: `spread` allowed; `shadowType: \"inner\"` is drawn outside, as every Pen of this version drew it.",
    );
    say(
        version >= Version::V2_17,
        "Groups have no layout or size keys; `content` is one string (no styled runs).",
        "Groups may have `layout`, `gap`, `padding` and a size; `content` may be a list of styled runs.",
    );
    say(
        version.fits_paths_to_their_box(),
        "Paths: the geometry's bounds are fitted to the box, or `viewBox` [x, y, w, h] says which region is.",
        "Paths: the geometry is scaled to the box from the origin.",
    );
    let new_types: Vec<&str> = [NodeType::Script, NodeType::Connection, NodeType::Browser]
        .into_iter()
        .filter(|node_type| check_type(version, *node_type).is_ok())
        .map(NodeType::as_str)
        .collect();
    if !new_types.is_empty() {
        lines.push(format!("- Node types of this version too: {}.", new_types.join(", ")));
    }
    lines.push(format!(
        "- Writing what {version} cannot hold is refused with the replacement; `nib migrate FILE` moves a file to {}.",
        Version::NEWEST
    ));
    lines.join("\n") + "\n"
}

/// One thing a document holds that its version cannot: the node (id, or `instance/child` for
/// an override), the JSON pointer inside it, and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The node's id, or the instance and override path.
    pub node: String,
    /// Inside the node, e.g. `/effect/spread`.
    pub pointer: String,
    /// What and why.
    pub problem: NotInVersion,
}

impl Finding {
    /// The finding as a warning about its node (`not-in-version`), with its hint.
    pub fn diagnostic(&self) -> crate::diagnostic::Diagnostic {
        crate::diagnostic::Diagnostic::warning("not-in-version", format!("{}: {}", self.pointer, self.problem))
            .at_node(&self.node)
            .with_hint(self.problem.hint())
    }
}

/// Everything in `document` its own version cannot hold, in document order: node types, keys,
/// values, and the same inside instance overrides.
pub fn audit(document: &Document) -> Vec<Finding> {
    let version = Version::read_as(document.version());
    let mut findings = Vec::new();
    let tree = document.tree();
    for key in tree.walk() {
        let node = tree.node(key);
        let node_type = node.node_type();
        if let Err(problem) = check_type(version, node_type) {
            findings.push(Finding { node: node.id().to_owned(), pointer: "/type".into(), problem });
        }
        for (pointer, problem) in check_props(version, Some(node_type), &node.props) {
            findings.push(Finding { node: node.id().to_owned(), pointer, problem });
        }
        if let Some(Value::Descendants(descendants)) = node.props.get(&Key::Descendants) {
            for (path, override_tree) in descendants.0.entries.iter() {
                audit_override(version, &format!("{}/{path}", node.id()), override_tree, &mut findings);
            }
        }
    }
    findings
}

fn audit_override(version: Version, node: &str, tree: &crate::doc::NodeTree, findings: &mut Vec<Finding>) {
    let node_type = tree.props.node_type();
    if let Some(Err(problem)) = node_type.map(|t| check_type(version, t)) {
        findings.push(Finding { node: node.to_owned(), pointer: "/type".into(), problem });
    }
    for (pointer, problem) in check_props(version, node_type, &tree.props) {
        findings.push(Finding { node: node.to_owned(), pointer, problem });
    }
    for child in &tree.children {
        let id = child.props.id().unwrap_or_default();
        audit_override(version, &format!("{node}/{id}"), child, findings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_version_is_described_in_its_own_spellings() {
        let old = describe_version(Version::V2_11);
        assert!(old.contains("format 2.11") && old.contains("icon_font") && old.contains("`spread` allowed"));
        assert!(!old.contains("browser"));
        let current = describe_version(Version::V2_20);
        assert!(current.contains("cover (the default)") && current.contains("centred") && current.contains("browser"));
        assert!(
            describe_version(Version::V2_13).contains("drawn inside")
                && !describe_version(Version::V2_13).contains("script")
        );
    }

    #[test]
    fn versions_read_and_compare_as_numbers() {
        assert!(Version::parse("2.9").unwrap() < Version::parse("2.10").unwrap());
        assert_eq!(Version::read_as(Some("2.19")), Version::V2_19);
        assert_eq!(Version::read_as(Some("3.0")), Version::NEWEST);
        assert_eq!(Version::read_as(Some("1.0")), Version::OLDEST);
        assert_eq!(Version::read_as(None), Version::V2_11);
        assert_eq!(Version::NEWEST.to_string(), "2.20");
        assert!(KNOWN_VERSIONS.iter().all(|v| Version::parse(v).is_some_and(Version::is_known)));
    }

    #[test]
    fn removed_and_added_things_name_the_version_and_the_way_out() {
        let spread = check_member(Version::V2_19, "effect", Some("shadow"), "spread").unwrap_err();
        assert_eq!(
            spread.to_string(),
            "\"spread\" on a shadow effect was removed in format 2.19, and this document is 2.19"
        );
        assert!(check_member(Version::V2_17, "effect", Some("shadow"), "spread").is_ok());
        let crop = check_member(Version::V2_19, "fill", Some("image"), "transform").unwrap_err();
        assert!(crop.to_string().starts_with("\"transform\" on an image fill "), "{crop}");
        let cap = check_key(Version::V2_13, NodeType::Path, "strokeLinecap").unwrap_err();
        assert!(cap.newer && cap.hint().contains("nib migrate"));
        assert!(check_key(Version::V2_19, NodeType::Path, "strokeLinecap").is_ok());
        assert!(check_key(Version::V2_17, NodeType::Group, "layout").is_err());
        assert!(check_key(Version::V2_11, NodeType::Group, "layout").is_ok());
        assert!(check_key(Version::V2_19, NodeType::Frame, "layout").is_ok());
        assert!(check_type(Version::V2_17, NodeType::Browser).is_err());
        assert!(check_type(Version::V2_19, NodeType::Browser).is_ok());
        assert!(check_image_mode(Version::V2_20, "fill").unwrap_err().hint().contains("cover"));
        assert!(check_image_mode(Version::V2_19, "cover").is_err());
        assert!(check_text_runs(Version::V2_17).is_err() && check_text_runs(Version::V2_13).is_ok());
    }

    #[test]
    fn an_audit_finds_what_a_file_cannot_hold_in_nodes_and_overrides() {
        let text = r##"{"version": "2.19", "children": [
            {"type": "group", "id": "g", "layout": "vertical", "children": []},
            {"type": "rectangle", "id": "r", "reusable": true, "width": 10, "height": 10, "effect": {"type": "shadow", "spread": 2}},
            {"type": "ref", "id": "i", "ref": "r", "descendants": {"r": {"effect": [{"type": "shadow", "spread": 1}]}}}
        ]}"##;
        let document = Document::load(text).expect("loads").document;
        let found: Vec<String> = audit(&document).iter().map(|f| format!("{} {}", f.node, f.pointer)).collect();
        assert_eq!(found, ["g /layout", "r /effect/spread", "i/r /effect/0/spread"]);
    }
}
