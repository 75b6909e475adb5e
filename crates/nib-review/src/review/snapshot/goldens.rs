//! Where the approved image of a frame lives: `__snapshots__/<file stem>/<name>.png` beside the
//! `.pen` file, the name made from the frame's id (not its display name), so renaming a frame
//! keeps its golden. The frame's display name is in the reports, not in a manifest: a manifest
//! would be one more file for every branch to conflict on. Frames drawn under a theme
//! (`nib snapshot --theme Mode=Dark`) keep their goldens in a folder of their own,
//! `__snapshots__/<file stem>@Mode=Dark/`, so a run under one theme never takes another's
//! goldens for its own or for obsolete ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::SnapshotError;
use crate::compile::frames::{Frame, safe_name};
use crate::files::{Links, Tree};

/// The folder beside every `.pen` file that holds its goldens, one sub-folder per file.
pub(crate) const SNAPSHOTS_FOLDER: &str = "__snapshots__";

/// Names a file cannot have on Windows, whatever its extension.
const RESERVED_ON_WINDOWS: [&str; 22] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9", "lpt1", "lpt2",
    "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// The folder of the goldens of the `.pen` file at `path`, drawn under `theme`.
pub fn folder(path: &Path, theme: &[(String, String)]) -> PathBuf {
    path.parent().unwrap_or(Path::new("")).join(relative_folder(path, theme))
}

/// The golden file name (without `.png`) of each frame, in the same order. An id that is
/// already a portable file name is used as it is; any other id, and ids that only differ in
/// letter case (one file on macOS and Windows), become their cleaned form, `~` and their hash,
/// which no plain id can be.
pub fn names(frames: &[Frame]) -> Vec<String> {
    let mut by_folded: HashMap<String, usize> = HashMap::new();
    for frame in frames {
        *by_folded.entry(frame.id.to_ascii_lowercase()).or_default() += 1;
    }
    frames
        .iter()
        .map(|frame| {
            let shared_case = by_folded.get(&frame.id.to_ascii_lowercase()).is_some_and(|&n| n > 1);
            if is_portable(&frame.id) && !shared_case {
                frame.id.clone()
            } else {
                format!("{}~{:016x}", safe_name(&frame.id), crate::hash::fnv1a(frame.id.as_bytes()))
            }
        })
        .collect()
}

/// True when `id` is a file name on every system as it is: ASCII letters, digits, `-` and `_`,
/// no leading or doubled `-` (which [`safe_name`] would change), not a reserved Windows name.
fn is_portable(id: &str) -> bool {
    id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && safe_name(id) == id
        && !RESERVED_ON_WINDOWS.contains(&id.to_ascii_lowercase().as_str())
}

/// The goldens' folder of the `.pen` file at `path` drawn under `theme`, relative to the
/// file's folder: `<stem>` for the document's own look, `<stem>@Mode=Dark` under a theme.
pub(crate) fn relative_folder(path: &Path, theme: &[(String, String)]) -> PathBuf {
    let mut name = path.file_stem().unwrap_or(path.as_os_str()).to_owned();
    name.push(theme_suffix(theme));
    Path::new(SNAPSHOTS_FOLDER).join(name)
}

/// What names the pictures of a theme apart: empty for the document's own look, else `@` and
/// the pairs (axis and value made portable file names) as `Mode=Dark`, joined by `,`.
pub(crate) fn theme_suffix(theme: &[(String, String)]) -> String {
    if theme.is_empty() {
        return String::new();
    }
    let pairs: Vec<String> =
        theme.iter().map(|(axis, value)| format!("{}={}", safe_name(axis), safe_name(value))).collect();
    format!("@{}", pairs.join(","))
}

/// The names (without `.png`) of the goldens stored in `folder` below `tree`, sorted; none when
/// the folder does not exist. No link on the way is followed. Hidden files (an interrupted
/// write's temporary file) are not goldens.
pub fn stored(tree: &Tree, folder: &Path) -> Result<Vec<String>, SnapshotError> {
    let entries = match tree.entries(folder, Links::Never) {
        Ok(entries) => entries,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(SnapshotError::path(e)),
    };
    let mut names: Vec<String> = entries
        .into_iter()
        .filter_map(|(name, _)| {
            name.strip_suffix(".png").filter(|stem| !stem.is_empty() && !stem.starts_with('.')).map(str::to_owned)
        })
        .collect();
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;
    use crate::layout::Layout;
    use crate::resolve::{NoImports, SceneOptions, build_scene};
    use crate::text::{FontBook, FontOptions, TextEngine};

    fn frames_with_ids(ids: &[&str]) -> Vec<Frame> {
        let children: Vec<String> = ids
            .iter()
            .map(|id| format!(r#"{{"type": "frame", "id": {}, "width": 4, "height": 4}}"#, serde_json::json!(id)))
            .collect();
        let text = format!(r#"{{"version": "2.8", "children": [{}]}}"#, children.join(","));
        let document = Document::load(&text).unwrap().document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut engine);
        crate::compile::frames::frames(&scene, &layout)
    }

    #[test]
    fn plain_ids_name_their_goldens_and_others_are_made_safe_and_distinct() {
        let frames = frames_with_ids(&["bi8Au", "home_1", "a.b", "a:b", "CON", "Xy", "xY", "-x"]);
        let names = names(&frames);
        assert_eq!(names[..2], ["bi8Au", "home_1"]);
        for (name, frame) in names.iter().zip(&frames).skip(2) {
            assert!(name.contains('~') && !name.contains(['.', ':']), "{} → {name}", frame.id);
        }
        assert!(names[2].starts_with("a-b~") && names[3].starts_with("a-b~") && names[2] != names[3], "{names:?}");
        assert_ne!(names[5].to_ascii_lowercase(), names[6].to_ascii_lowercase(), "{names:?}");
        // The same ids give the same names on every run.
        assert_eq!(super::names(&frames), names);
    }

    #[test]
    fn goldens_live_beside_the_file_and_only_png_files_count() {
        assert_eq!(folder(Path::new("designs/app.pen"), &[]), Path::new("designs/__snapshots__/app"));
        let dark = [("Mode".to_owned(), "Dark".to_owned()), ("c:Mode".to_owned(), "Dim".to_owned())];
        assert_eq!(
            folder(Path::new("designs/app.pen"), &dark),
            Path::new("designs/__snapshots__/app@Mode=Dark,c-Mode=Dim")
        );
        let dir = tempfile::tempdir().unwrap();
        let tree = Tree::open(dir.path()).unwrap();
        assert!(stored(&tree, Path::new("missing")).unwrap().is_empty());
        for name in ["b.png", "a.png", ".a.png.x1.tmp", ".hidden.png", "notes.txt"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        assert_eq!(stored(&tree, Path::new("")).unwrap(), ["a", "b"]);
    }
}
