//! The Document: the node tree, the id index and the document-level settings, with lossless
//! loading from and saving to `.pen` text.

use std::collections::BTreeMap;

use super::convert::{FromJson, ReadContext, ToJson};
use super::edit::{ChangeMarks, History};
use super::error::{ErrorKind, LoadError, Location, Problem, ProblemKind, ValueError};
use super::excerpt::parts_to_read;
use super::ids::IdIndex;
use super::json::{self, Json, JsonValue, JsonWriter, OverLimit, RawJson, WriteLimits};
use super::keyword::suggest;
use super::locate::{line_column, locate_all};
use super::node::{NodeRole, NodeType, read_node};
use super::props::{Key, Value};
use super::tree::{NodeKey, Tree};
use super::values::{Imports, Themes, Variables, read_themes};

/// The version written into documents nib creates.
pub const NEW_DOCUMENT_VERSION: &str = "2.20";

pub use super::format::KNOWN_VERSIONS;

/// Largest document text accepted (the biggest real file is 1.7 MB).
pub const MAX_FILE_BYTES: usize = 256 * 1024 * 1024;

/// Most nodes a document may hold, counting those in instance overrides: every node costs
/// memory in the Document, the Scene and the layout whatever its size in the file, so a file
/// of tiny nodes is bounded by their number rather than its bytes (DECISIONS.md, Memory). The
/// largest real file has 3,618 nodes.
pub const MAX_NODES: usize = 300_000;

/// A `.pen` document: exactly what the file says, typed, with its key order, ready to be edited
/// and saved back byte-identical.
#[derive(Debug, Clone)]
pub struct Document {
    pub(crate) header: Header,
    pub(crate) tree: Tree,
    pub(crate) ids: IdIndex,
    pub(crate) revision: u64,
    pub(crate) history: History,
    pub(crate) changes: ChangeMarks,
    /// Read by [`Document::load_excerpt`] with top-level nodes left out: never saved.
    excerpt: bool,
}

/// The document-level keys and where they sat.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Header {
    version: Option<String>,
    themes: Option<Themes>,
    imports: Option<Imports>,
    variables: Option<Variables>,
    order: Vec<HeaderKey>,
    unknown: Vec<(String, RawJson)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum HeaderKey {
    Version,
    Children,
    Themes,
    Imports,
    Variables,
    Unknown(usize),
}

const HEADER_KEYS: &[&str] = &["version", "children", "themes", "imports", "variables", "fonts", "fileToken"];

/// Document keys nib knows but keeps verbatim: `fonts` (the files of the document's own
/// families, read by `text::document_fonts`) and `fileToken` (a UUID Pen writes last on every
/// save and no reader uses).
const VERBATIM_HEADER_KEYS: &[&str] = &["fonts", "fileToken"];

impl Header {
    /// The variables, added (after the existing keys) if the document has none.
    pub(crate) fn variables_mut(&mut self) -> &mut Variables {
        if self.variables.is_none() {
            self.order.push(HeaderKey::Variables);
        }
        self.variables.get_or_insert_with(Variables::default)
    }

    /// The import aliases, added (after the existing keys) if the document has none.
    pub(crate) fn imports_mut(&mut self) -> &mut Imports {
        if self.imports.is_none() {
            self.order.push(HeaderKey::Imports);
        }
        self.imports.get_or_insert_with(Imports::default)
    }

    /// Sets the version string (`None` removes it).
    pub(crate) fn set_version(&mut self, version: Option<String>) {
        if version.is_some() && !self.order.contains(&HeaderKey::Version) {
            self.order.insert(0, HeaderKey::Version);
        }
        self.version = version;
    }

    /// The theme axes, added if the document has none: before the variables, where Pen
    /// writes them, or after the existing keys.
    pub(crate) fn themes_mut(&mut self) -> &mut Themes {
        if self.themes.is_none() {
            match self.order.iter().position(|key| *key == HeaderKey::Variables) {
                Some(index) => self.order.insert(index, HeaderKey::Themes),
                None => self.order.push(HeaderKey::Themes),
            }
        }
        self.themes.get_or_insert_with(Themes::default)
    }
}

/// A loaded document and the non-fatal problems found in it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The document.
    pub document: Document,
    /// Findings that did not stop the load, in file order.
    pub problems: Vec<Problem>,
}

impl Default for Document {
    fn default() -> Self {
        Document::new()
    }
}

impl Document {
    /// An empty document, as a new file: version 2.11 and no children.
    pub fn new() -> Document {
        Document {
            header: Header {
                version: Some(NEW_DOCUMENT_VERSION.into()),
                order: vec![HeaderKey::Version, HeaderKey::Children],
                ..Header::default()
            },
            tree: Tree::default(),
            ids: IdIndex::default(),
            revision: 0,
            history: History::default(),
            changes: ChangeMarks::default(),
            excerpt: false,
        }
    }

    /// Reads a document from `.pen` bytes (UTF-8 JSON, comments allowed). Empty input is an
    /// empty new document.
    pub fn load_bytes(bytes: &[u8]) -> Result<Loaded, LoadError> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(LoadError::new(
                ErrorKind::TooLarge { size: bytes.len() as u64, limit: MAX_FILE_BYTES as u64 },
                Location { line: 1, column: 1, ..Location::default() },
                None,
            ));
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Document::load(text),
            Err(e) => {
                let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
                let (line, column) = line_column(valid, e.valid_up_to() as u32);
                Err(LoadError::new(
                    ErrorKind::NotUtf8,
                    Location { line, column, ..Location::default() },
                    Some("save the file as UTF-8".into()),
                ))
            }
        }
    }

    /// Reads a document from `.pen` text.
    ///
    /// The text is read in two passes (see [`json::outline`]): the first checks all of it
    /// and builds nothing; the second converts one node at a time, so the peak is the
    /// Document itself, not a tree of the whole file beside it.
    pub fn load(text: &str) -> Result<Loaded, LoadError> {
        Document::load_parts(text, None)
    }

    /// Reads from `.pen` text only what drawing the nodes `ids` needs (ids, or instance paths
    /// such as `card/title`): the document-level keys, the top-level nodes holding those nodes,
    /// and those holding the components they use, transitively. Drawing one frame of a large
    /// file then costs the frame, not the file.
    ///
    /// The whole text is still checked as JSON (a syntax error anywhere is the same error as
    /// [`Document::load`]'s), but the other top-level nodes are skipped unread: problems in
    /// them are neither found nor reported. When an id is held by no top-level node, everything
    /// is read. The result is an excerpt ([`Document::is_excerpt`]), which cannot be saved.
    pub fn load_excerpt(text: &str, ids: &[String]) -> Result<Loaded, LoadError> {
        Document::load_parts(text, Some(ids))
    }

    /// True for a document read by [`Document::load_excerpt`] (some of its top-level nodes
    /// missing), which [`super::io::save_file`] refuses to write.
    pub fn is_excerpt(&self) -> bool {
        self.excerpt
    }

    fn load_parts(text: &str, ids: Option<&[String]>) -> Result<Loaded, LoadError> {
        if text.len() > MAX_FILE_BYTES {
            return Document::load_bytes(text.as_bytes());
        }
        let (mut outline, names) = match ids {
            None => (json::outline(text, MAX_NODES).map_err(|e| syntax_error(text, e))?, Vec::new()),
            Some(_) => json::outline_with_names(text, MAX_NODES).map_err(|e| syntax_error(text, e))?,
        };
        if let Some(offset) = outline.past_limit {
            let error = ValueError::new(offset, ErrorKind::TooManyNodes { limit: MAX_NODES }).with_hint(
                "split the design into several files (a library of components can be imported with \"imports\")",
            );
            return Err(place_error(text, error));
        }
        let mut cx = ReadContext::for_files();
        if let Some(offset) = outline.first_comment {
            cx.report(offset, ProblemKind::Comments);
        }
        if let Some(offset) = outline.first_stand_in {
            cx.report(offset, ProblemKind::StandInCharacter);
        }
        for duplicate in std::mem::take(&mut outline.duplicate_keys) {
            cx.report(duplicate.offset, ProblemKind::DuplicateKey { key: duplicate.key });
        }
        let document = match outline.root {
            None => Document::new(),
            Some(root) => {
                let source = Source { text, outline: &outline };
                let wanted = ids.map(|ids| Wanted { ids, names: &names });
                Document::from_source(source, root, wanted, &mut cx).map_err(|e| place_error(text, e))?
            }
        };
        Ok(Loaded { document, problems: place_problems(text, cx.into_problems()) })
    }

    fn from_source(
        source: Source,
        root: u32,
        wanted: Option<Wanted>,
        cx: &mut ReadContext,
    ) -> Result<Document, ValueError> {
        // Only an object is read: anything else is refused without building it.
        if !source.text[root as usize..].starts_with('{') {
            let root = json::read_outer(source.text, source.outline, root).map_err(from_syntax)?;
            return Err(ValueError::new(
                root.offset,
                ErrorKind::WrongType {
                    expected: "a document object {\"version\", \"children\"}".into(),
                    found: root.kind_name(),
                },
            ));
        }
        let root = json::read_outer(source.text, source.outline, root).map_err(from_syntax)?;
        let JsonValue::Object(members) = root.value else { unreachable!("the value starts with '{{'") };
        let mut document = Document { header: Header::default(), ..Document::new() };
        document.tree.reserve(source.outline.children_items);
        document.ids.reserve(&document.tree, source.outline.children_items);
        let mut builder = TreeBuilder { source, id_offsets: Vec::with_capacity(source.outline.children_items) };
        let mut version_offset = root.offset;
        for member in members {
            let header = &mut document.header;
            let key = match member.key.as_str() {
                "version" => {
                    version_offset = member.value.offset;
                    header.version = Some(version_string(member.value)?);
                    HeaderKey::Version
                }
                "children" => {
                    if !matches!(member.value.value, JsonValue::Array(_)) {
                        return Err(super::convert::wrong_type_expecting(&member.value, "a list of nodes".into()));
                    }
                    let mut items = json::Items::new(source.text, source.outline, member.value.offset);
                    match wanted {
                        None => {
                            for item in items {
                                let item = item.map_err(from_syntax)?;
                                builder.plant(&mut document.tree, &mut document.ids, item, None, cx)?;
                            }
                        }
                        Some(wanted) => {
                            // Each top-level node's own keys are read (its children skipped) to
                            // know where it ends; only the parts wanted are planted.
                            let mut parts = Vec::new();
                            while let Some(item) = items.next() {
                                let item = item.map_err(from_syntax)?;
                                parts.push((item.offset, items.position(), item));
                            }
                            let spans: Vec<(u32, u32)> = parts.iter().map(|(start, end, _)| (*start, *end)).collect();
                            let keep = parts_to_read(&spans, wanted.names, wanted.ids);
                            document.excerpt = keep.as_ref().is_some_and(|keep| keep.contains(&false));
                            for (index, (.., item)) in parts.into_iter().enumerate() {
                                if keep.as_ref().is_none_or(|keep| keep[index]) {
                                    builder.plant(&mut document.tree, &mut document.ids, item, None, cx)?;
                                }
                            }
                        }
                    }
                    HeaderKey::Children
                }
                "themes" => {
                    header.themes = Some(read_themes(member.value, cx)?);
                    HeaderKey::Themes
                }
                "imports" => {
                    header.imports = Some(Imports::from_json(member.value, cx)?);
                    HeaderKey::Imports
                }
                "variables" => {
                    header.variables = Some(Variables::from_json(member.value, cx)?);
                    HeaderKey::Variables
                }
                _ => {
                    if !VERBATIM_HEADER_KEYS.contains(&member.key.as_str()) {
                        let suggestion = suggest(&member.key, HEADER_KEYS);
                        cx.unknown_key(member.key_offset, &member.key, suggestion)?;
                    }
                    header.unknown.push((member.key, RawJson::from_json(&member.value)));
                    HeaderKey::Unknown(header.unknown.len() - 1)
                }
            };
            document.header.order.push(key);
        }
        if !document.header.version.as_deref().is_some_and(|v| KNOWN_VERSIONS.contains(&v)) {
            cx.report(version_offset, ProblemKind::UnknownVersion { found: document.header.version.clone() });
        }
        Ok(document)
    }

    /// The document as `.pen` text, exactly as Pen writes it: `JSON.stringify(doc, null, 2)`.
    pub fn to_pen_string(&self) -> String {
        let mut w = JsonWriter::with_capacity(64 * 1024 + self.tree.walk().size_hint().0 * 256).writing_halves();
        self.write_document(&mut w);
        w.finish()
    }

    /// Writes the text [`Document::to_pen_string`] gives to `out` as it is made, without holding
    /// it whole (a deeply nested document can print far larger than the file it came from).
    ///
    /// What the reader would refuse is not written: the text is counted against
    /// [`Document::SAVE_LIMITS`] as it is printed, and the first limit it goes past ends the
    /// write with an error whose inner error is the [`OverLimit`] (see [`over_limit`]).
    pub fn write_pen(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.write_pen_within(out, Document::SAVE_LIMITS)
    }

    fn write_pen_within(&self, out: &mut dyn std::io::Write, limits: WriteLimits) -> std::io::Result<()> {
        let mut w = JsonWriter::streaming_within(out, limits).writing_halves();
        self.write_document(&mut w);
        w.finish_stream()
    }

    /// What a saved document may hold: exactly what [`Document::load`] reads.
    pub(crate) const SAVE_LIMITS: WriteLimits = WriteLimits {
        bytes: MAX_FILE_BYTES as u64,
        nodes: MAX_NODES,
        depth: json::MAX_DEPTH,
        unknown_keys: super::convert::MAX_UNKNOWN_KEYS,
    };

    fn write_document(&self, w: &mut JsonWriter) {
        let header = &self.header;
        let mut order = header.order.clone();
        if !order.contains(&HeaderKey::Children) && !self.tree.roots().is_empty() {
            order.push(HeaderKey::Children);
        }
        w.begin_object();
        for key in order {
            match key {
                HeaderKey::Version => {
                    if let Some(version) = &header.version {
                        w.key("version");
                        w.string(version);
                    }
                }
                HeaderKey::Children => {
                    w.key("children");
                    self.write_children(None, w);
                }
                HeaderKey::Themes => write_optional(w, "themes", &header.themes),
                HeaderKey::Imports => write_optional(w, "imports", &header.imports),
                HeaderKey::Variables => write_optional(w, "variables", &header.variables),
                HeaderKey::Unknown(index) => {
                    let (key, value) = &header.unknown[index];
                    w.unknown_key(key);
                    value.write(w);
                }
            }
        }
        w.end_object();
    }

    fn write_children(&self, parent: Option<NodeKey>, w: &mut JsonWriter) {
        w.begin_array();
        for child in self.tree.children_of(parent) {
            self.write_node(*child, w);
        }
        w.end_array();
    }

    /// One node as compact JSON in saved form; children deeper than `depth` levels are written
    /// as `"..."`.
    pub fn node_to_json(&self, key: NodeKey, depth: usize) -> String {
        let mut w = JsonWriter::compact();
        self.write_node_to_depth(key, depth, &mut w);
        w.finish()
    }

    fn write_node_to_depth(&self, key: NodeKey, depth: usize, w: &mut JsonWriter) {
        let node = self.tree.node(key);
        node.props.write(w, !node.children().is_empty(), &mut |w| {
            if depth == 0 {
                w.string("...");
                return;
            }
            w.begin_array();
            for child in node.children() {
                self.write_node_to_depth(*child, depth - 1, w);
            }
            w.end_array();
        });
    }

    fn write_node(&self, key: NodeKey, w: &mut JsonWriter) {
        let node = self.tree.node(key);
        node.props.write(w, !node.children().is_empty(), &mut |w| self.write_children(Some(key), w));
    }

    /// The version string as read (`None` when the file has none).
    pub fn version(&self) -> Option<&str> {
        self.header.version.as_deref()
    }

    /// Sets the version the document says it is (migration changes what it holds to match);
    /// a document that said none gets `version` first, as Pen writes it.
    pub(crate) fn set_version(&mut self, version: String) {
        if !self.header.order.contains(&HeaderKey::Version) {
            self.header.order.insert(0, HeaderKey::Version);
        }
        self.header.version = Some(version);
        self.revision += 1;
    }

    /// Theme axes, when the document declares any.
    pub fn themes(&self) -> Option<&Themes> {
        self.header.themes.as_ref()
    }

    /// Import aliases, when the document has any.
    pub fn imports(&self) -> Option<&Imports> {
        self.header.imports.as_ref()
    }

    /// Variables, when the document declares any.
    pub fn variables(&self) -> Option<&Variables> {
        self.header.variables.as_ref()
    }

    /// Document-level keys nib does not know, verbatim, in file order.
    pub fn unknown_keys(&self) -> &[(String, crate::doc::json::RawJson)] {
        &self.header.unknown
    }

    /// The node tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The node with `id`.
    pub fn node_by_id(&self, id: &str) -> Option<NodeKey> {
        self.ids.get(&self.tree, id)
    }

    /// Number of nodes in the tree (not counting override content inside instances).
    pub fn node_count(&self) -> usize {
        self.ids.len()
    }

    /// The node limit, when the tree alone holds more nodes than a saved document may: a
    /// quick look before anything costlier (resolving, printing) is done with such a document.
    /// Nodes in overrides are counted by [`Document::write_pen`].
    pub fn past_node_limit(&self) -> Option<OverLimit> {
        (self.node_count() > MAX_NODES).then_some(OverLimit::Nodes { limit: MAX_NODES })
    }

    /// Node counts per type: in the tree, and inside instance overrides (replacement nodes and
    /// slot children held in `descendants`).
    pub fn node_counts(&self) -> NodeCounts {
        let mut counts = NodeCounts::default();
        for key in self.tree.walk() {
            let node = self.tree.node(key);
            *counts.tree.entry(node.node_type()).or_insert(0) += 1;
            if let Some(Value::Descendants(descendants)) = node.props.get(&Key::Descendants) {
                for (_, tree) in descendants.0.iter() {
                    count_override_tree(tree, &mut counts.overrides);
                }
            }
        }
        counts
    }
}

/// How many nodes of each type a document has.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeCounts {
    /// Nodes of the document tree.
    pub tree: BTreeMap<NodeType, usize>,
    /// Nodes inside instance overrides.
    pub overrides: BTreeMap<NodeType, usize>,
}

fn count_override_tree(tree: &super::node::NodeTree, counts: &mut BTreeMap<NodeType, usize>) {
    if let Some(node_type) = tree.props.node_type() {
        *counts.entry(node_type).or_insert(0) += 1;
    }
    for child in &tree.children {
        count_override_tree(child, counts);
    }
}

/// The limit a failed [`Document::write_pen`] went past, when that is why it failed.
pub fn over_limit(error: &std::io::Error) -> Option<OverLimit> {
    error.get_ref().and_then(|inner| inner.downcast_ref::<OverLimit>()).copied()
}

fn write_optional<T: ToJson>(w: &mut JsonWriter, key: &str, value: &Option<T>) {
    if let Some(value) = value {
        w.key(key);
        value.write_json(w);
    }
}

fn version_string(json: Json) -> Result<String, ValueError> {
    match json.value {
        JsonValue::String(version) => Ok(version),
        _ => Err(super::convert::wrong_type_expecting(&json, "a version string such as \"2.11\"".into())),
    }
}

/// What a [`Document::load_excerpt`] is for: the nodes to draw and the names the first pass
/// noted.
#[derive(Clone, Copy)]
struct Wanted<'a> {
    ids: &'a [String],
    names: &'a [json::Name<'a>],
}

/// The text being loaded and what its first pass found.
#[derive(Clone, Copy)]
struct Source<'a> {
    text: &'a str,
    outline: &'a json::Outline,
}

/// Builds the arena from node JSON, indexing ids as it goes.
struct TreeBuilder<'a> {
    source: Source<'a>,
    /// Offset of each node's id value, by node key, to point at the first use of a duplicate.
    id_offsets: Vec<u32>,
}

impl TreeBuilder<'_> {
    /// Adds the node read as `json` and, one at a time, its children from the text.
    fn plant(
        &mut self,
        tree: &mut Tree,
        ids: &mut IdIndex,
        json: Json,
        parent: Option<NodeKey>,
        cx: &mut ReadContext,
    ) -> Result<(), ValueError> {
        let node = read_node(json, NodeRole::Node, cx)?;
        let id = node.props.id().unwrap_or_default();
        if let Some(first) = ids.get(tree, id) {
            let first_offset = self.id_offsets[first.index()];
            let first_line = Some(line_column(self.source.text, first_offset).0);
            return Err(ValueError::new(node.id_offset, ErrorKind::DuplicateId { id: id.to_owned(), first_line })
                .with_hint("every node needs its own id; give this one a new id"));
        }
        let key = tree.push(node.props, parent);
        ids.insert(tree, key);
        self.id_offsets.push(node.id_offset);
        if let Some(children) = node.children {
            for child in json::Items::new(self.source.text, self.source.outline, children.offset) {
                let child = child.map_err(from_syntax)?;
                self.plant(tree, ids, child, Some(key), cx)?;
            }
        }
        Ok(())
    }
}

/// A syntax error of the whole text, placed.
fn syntax_error(text: &str, e: json::SyntaxError) -> LoadError {
    let (line, column) = line_column(text, e.offset);
    let location = Location { line, column, pointer: e.pointer, node_id: None };
    LoadError::new(ErrorKind::Syntax { message: e.message }, location, e.hint.map(str::to_owned))
}

/// A syntax error met by the second pass (which reads only what the first pass checked, so
/// it does not happen), as an error of the value being read.
fn from_syntax(e: json::SyntaxError) -> ValueError {
    ValueError::new(e.offset, ErrorKind::Syntax { message: e.message }).with_optional_hint(e.hint.map(str::to_owned))
}

fn place_error(text: &str, error: ValueError) -> LoadError {
    let location = locate_all(text, &[error.offset]).pop().unwrap_or_default();
    LoadError::new(error.kind, location, error.hint)
}

fn place_problems(text: &str, raw: Vec<super::error::RawProblem>) -> Vec<Problem> {
    if raw.is_empty() {
        return Vec::new();
    }
    let offsets: Vec<u32> = raw.iter().map(|p| p.offset).collect();
    let mut problems: Vec<Problem> = raw
        .into_iter()
        .zip(locate_all(text, &offsets))
        .map(|(problem, location)| Problem { kind: problem.kind, location })
        .collect();
    problems.sort_by_key(|p| (p.location.line, p.location.column));
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `document` within `limits`; the limit it went past, if any.
    fn over(document: &Document, limits: WriteLimits) -> Option<OverLimit> {
        let mut sink = Vec::new();
        match document.write_pen_within(&mut sink, limits) {
            Ok(()) => None,
            Err(error) => Some(over_limit(&error).expect("the only error a Vec gives is a limit")),
        }
    }

    /// Every real file: the meter counts exactly what the reader counts, so a save within the
    /// limits opens again and one past them is refused at the same number.
    #[test]
    fn a_save_is_counted_as_the_reader_counts() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/pen");
        let mut files = 0;
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(loaded) = Document::load(&text) else { continue };
            let document = loaded.document;
            let written = document.to_pen_string();
            let nodes = json::outline(&written, usize::MAX).unwrap().children_items;
            let exact = WriteLimits { bytes: written.len() as u64, nodes, ..Document::SAVE_LIMITS };
            assert_eq!(over(&document, exact), None, "{}", path.display());
            let fewer_bytes = WriteLimits { bytes: written.len() as u64 - 1, ..exact };
            assert_eq!(over(&document, fewer_bytes), Some(OverLimit::Bytes { limit: fewer_bytes.bytes }));
            if nodes > 0 {
                let fewer_nodes = WriteLimits { nodes: nodes - 1, ..exact };
                assert_eq!(over(&document, fewer_nodes), Some(OverLimit::Nodes { limit: nodes - 1 }));
            }
            files += 1;
        }
        assert!(files >= 40, "{files} files read");
    }

    /// Half a UTF-16 pair (`"\ud800"`), which Pen's JavaScript reads and
    /// writes back, was refused as corruption. Wherever a string is — a text, a name, an id,
    /// a key and value nib does not know, inside a fill — it is kept and saved byte-identical,
    /// as `JSON.stringify` writes it, through both writers (whole text and streaming).
    #[test]
    fn half_pairs_are_kept_and_saved_as_javascript_writes_them() {
        let text = r##"{
  "version": "2.20",
  "children": [
    {
      "type": "text",
      "id": "t\udc00",
      "name": "\ud800",
      "content": "a\ud800b\udfffc😀",
      "x-later\udbff": {
        "runs": [
          "\udc00\ud800"
        ]
      },
      "fill": {
        "type": "color",
        "color": "#000000",
        "note\ud800": "\ud800"
      }
    }
  ]
}"##;
        let loaded = Document::load(text).expect("JavaScript reads it, and so does nib");
        assert!(loaded.problems.iter().all(|p| p.kind != ProblemKind::StandInCharacter), "{:?}", loaded.problems);
        let document = loaded.document;
        assert_eq!(document.to_pen_string(), text);
        let mut streamed = Vec::new();
        document.write_pen(&mut streamed).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), text);
        // Uppercase escapes are saved as JavaScript saves them, lowercase.
        let upper = text.replace("\\ud800", "\\uD800");
        assert_ne!(upper, text);
        assert_eq!(Document::load(&upper).unwrap().document.to_pen_string(), text);
        // A real character of the stand-ins' range is said: a save would write it as a half.
        let real = text.replace("\"content\": \"a", "\"content\": \"\u{10F800}a");
        let problems = Document::load(&real).unwrap().problems;
        assert!(problems.iter().any(|p| p.kind == ProblemKind::StandInCharacter), "{problems:?}");
    }

    #[test]
    fn nesting_and_unknown_keys_are_counted_as_the_reader_counts() {
        // Five levels of JSON: the document, its children, the node, its unknown "soon" and the
        // array in it; three unknown keys: one at the top, one on the node, one in its fill.
        let text = r##"{"version": "2.20", "later": 1, "children": [{"type": "rectangle", "id": "r", "soon": {"a": [1]}, "fill": {"type": "color", "color": "#ff0000", "extra": true}}]}"##;
        let document = Document::load(text).unwrap().document;
        let limits = Document::SAVE_LIMITS;
        assert_eq!(over(&document, limits), None);
        assert_eq!(over(&document, WriteLimits { depth: 5, ..limits }), None);
        assert_eq!(over(&document, WriteLimits { depth: 4, ..limits }), Some(OverLimit::Depth { limit: 4 }));
        assert_eq!(over(&document, WriteLimits { unknown_keys: 3, ..limits }), None);
        assert_eq!(
            over(&document, WriteLimits { unknown_keys: 2, ..limits }),
            Some(OverLimit::UnknownKeys { limit: 2 })
        );
    }
}
