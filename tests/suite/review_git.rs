//! nib in git: `nib outline` as textconv makes `git diff` show nodes and properties, and
//! `nib merge-driver` merges branches of a document by node id and property, leaving ours
//! untouched on a conflict. Each test works in a temporary repository that ignores the
//! machine's git configuration.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use nib::doc::Document;

const BASE: &str = r##"{"version": "2.11", "children": [
    {"type": "frame", "id": "c1", "name": "Card", "width": 100, "height": 50, "fill": "#FFFFFF", "children": [
        {"type": "text", "id": "t1", "content": "Hello", "fill": "#000000"}]},
    {"type": "frame", "id": "c2", "name": "Other", "x": 200, "width": 80, "height": 40, "fill": "#EEEEEE"}
]}"##;

/// A repository with nib as the diff textconv and merge driver for .pen files, and the base
/// document committed on `main`.
fn repository() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path();
    git(dir, &["init", "-q"]);
    git(dir, &["checkout", "-q", "-b", "main"]);
    let nib = env!("CARGO_BIN_EXE_nib");
    for (key, value) in [
        ("user.name", "Test".to_owned()),
        ("user.email", "test@example.com".to_owned()),
        ("commit.gpgsign", "false".to_owned()),
        ("diff.nib.textconv", format!("'{nib}' outline")),
        ("merge.nib.name", "nib: merge .pen documents by node id and property".to_owned()),
        ("merge.nib.driver", format!("'{nib}' merge-driver %O %A %B %P")),
    ] {
        git(dir, &["config", key, &value]);
    }
    fs::write(dir.join(".gitattributes"), "*.pen diff=nib merge=nib\n").unwrap();
    save(dir, BASE);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
    folder
}

fn git_command(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", dir.join(".no-global-config"))
        .env("HOME", dir)
        .env("NIB_IMAGES", "offline")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("git runs")
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_command(dir, args);
    assert!(
        output.status.success(),
        "git {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Writes `text` as design.pen the way Pencil saves it.
fn save(dir: &Path, text: &str) {
    fs::write(dir.join("design.pen"), Document::load(text).unwrap().document.to_pen_string()).unwrap();
}

/// Commits `text` as design.pen on a new branch made from main.
fn branch(dir: &Path, name: &str, text: &str) {
    git(dir, &["checkout", "-q", "-b", name, "main"]);
    save(dir, text);
    git(dir, &["commit", "-q", "-am", name]);
}

#[test]
fn git_diff_shows_outline_lines_of_the_changed_node() {
    let repo = repository();
    save(repo.path(), &BASE.replace("\"width\": 100", "\"width\": 200"));
    let shown = git(repo.path(), &["diff"]);
    assert!(shown.contains("-frame 'Card' (c1) width 100 · height 50 · fill \"#FFFFFF\"\n"), "{shown}");
    assert!(shown.contains("+frame 'Card' (c1) width 200 · height 50 · fill \"#FFFFFF\"\n"), "{shown}");
    assert!(!shown.contains("\"width\": 100"), "JSON lines are not shown: {shown}");
}

#[test]
fn branches_editing_different_nodes_merge_cleanly_through_the_driver() {
    let repo = repository();
    let dir = repo.path();
    branch(dir, "wider", &BASE.replace("\"width\": 100", "\"width\": 120"));
    branch(
        dir,
        "darker",
        &BASE.replace("\"fill\": \"#EEEEEE\"", "\"fill\": \"#333333\"").replace("\"Hello\"", "\"Hi\""),
    );
    git(dir, &["checkout", "-q", "wider"]);
    let merged = git(dir, &["merge", "--no-edit", "darker"]);
    assert!(merged.contains("merged (2 changes taken from theirs)"), "{merged}");
    let document = nib::doc::io::read_file(&dir.join("design.pen")).unwrap().document;
    let json = |id: &str| document.node_to_json(document.node_by_id(id).unwrap(), 0);
    assert!(json("c1").contains("\"width\":120"), "{}", json("c1"));
    assert!(json("c2").contains("\"fill\":\"#333333\""), "{}", json("c2"));
    assert!(json("t1").contains("\"content\":\"Hi\""), "{}", json("t1"));
    assert_eq!(git(dir, &["status", "--porcelain"]), "");
}

#[test]
fn a_conflicting_edit_is_reported_and_leaves_ours_intact() {
    let repo = repository();
    let dir = repo.path();
    branch(dir, "theirs", &BASE.replace("\"width\": 100", "\"width\": 300"));
    branch(dir, "ours", &BASE.replace("\"width\": 100", "\"width\": 150").replace("\"Hello\"", "\"Hey\""));
    let ours = fs::read(dir.join("design.pen")).unwrap();
    let output = git_command(dir, &["merge", "--no-edit", "theirs"]);
    assert!(!output.status.success());
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(said.contains("1 conflict; the file is left as ours"), "{said}");
    assert!(said.contains("frame 'Card' (c1) width: changed on both sides: base 100, ours 150, theirs 300"), "{said}");
    assert!(said.contains("CONFLICT"), "{said}");
    assert_eq!(fs::read(dir.join("design.pen")).unwrap(), ours, "the working file is ours, byte for byte");
    assert_eq!(git(dir, &["diff", "--name-only", "--diff-filter=U"]), "design.pen\n");
}

/// The real pair as two branches: base is the 2.11 file, one side Pencil's 2.13 upgrade with its
/// four new frames, the other an edit of the 2.11 file. Whichever side is ours, the result is
/// the 2.13 file byte for byte with the edit in it.
#[test]
fn an_edit_of_the_old_version_merges_into_pencil_s_upgrade_of_the_real_file() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let old = fs::read_to_string(fixtures.join("Achelous1__smalti__docs__design__design@93099a4_v2.11.pen")).unwrap();
    let upgraded = fs::read_to_string(fixtures.join("Achelous1__smalti__docs__design__design.pen")).unwrap();
    let title = "\"name\": \"TitleBar\",\n          \"width\": \"fill_container\",\n          \"height\": ";
    let edit = |text: &str| text.replacen(&format!("{title}40,"), &format!("{title}56,"), 1);
    let expected = edit(&upgraded);
    assert_ne!(expected, upgraded);
    let folder = tempfile::tempdir().unwrap();
    let base = folder.path().join("base.pen");
    fs::write(&base, &old).unwrap();
    for (ours_text, theirs_text) in [(edit(&old), upgraded.clone()), (upgraded.clone(), edit(&old))] {
        let (ours, theirs) = (folder.path().join("ours.pen"), folder.path().join("theirs.pen"));
        fs::write(&ours, ours_text).unwrap();
        fs::write(&theirs, theirs_text).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_nib"))
            .args(["merge-driver", base.to_str().unwrap(), ours.to_str().unwrap(), theirs.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
        assert!(fs::read_to_string(&ours).unwrap() == expected, "the merge is the upgrade with the edit");
    }
}

#[test]
fn nib_diff_reads_the_old_version_from_git() {
    let repo = repository();
    let dir = repo.path();
    save(dir, &BASE.replace("\"width\": 100", "\"width\": 200"));
    let nib = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_nib"))
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", dir.join(".no-global-config"))
            .env("HOME", dir)
            .output()
            .unwrap()
    };
    let output = nib(&["diff", "HEAD:design.pen", "design.pen"]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("~ frame 'Card' (c1)\n      width 100 → 200\n"));
    assert_eq!(nib(&["diff", "HEAD:design.pen", "HEAD:./design.pen"]).status.code(), Some(0));
    let missing = nib(&["diff", "HEAD~5:design.pen", "design.pen"]);
    assert_eq!(missing.status.code(), Some(2));
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(message.starts_with("nib: git cannot read 'HEAD~5:design.pen'") && message.contains("hint:"), "{message}");
}

/// Without the byte shortcut of the driver: merging a side that did not change gives the other
/// side, in both directions, on the real pair (an upgrade that respells 361 nodes and adds four
/// frames).
#[test]
fn the_library_merge_with_an_unchanged_side_gives_the_other_side() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen");
    let read = |name: &str| nib::doc::io::read_file(&fixtures.join(name)).unwrap().document;
    let old = read("Achelous1__smalti__docs__design__design@93099a4_v2.11.pen");
    let new = read("Achelous1__smalti__docs__design__design.pen");
    for (ours, theirs) in [(&old, &new), (&new, &old)] {
        let merged = nib::review::merge::merge(&old, ours, theirs).unwrap();
        assert_eq!(merged.document.to_pen_string(), new.to_pen_string());
    }
}

#[test]
fn a_revision_without_git_on_the_path_is_a_clear_error() {
    let folder = tempfile::tempdir().unwrap();
    fs::write(folder.path().join("design.pen"), BASE).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["diff", "HEAD:design.pen", "design.pen"])
        .current_dir(folder.path())
        .env("PATH", folder.path().join("no-programs-here"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("'HEAD:design.pen' names a git revision, but git is not installed"), "{message}");
}
