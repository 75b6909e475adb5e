//! Saving never loses a file: a failed write leaves the old file as it was and no debris.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use nib::doc::Document;
use nib::doc::io::{read_file, save_file, write_atomic, write_atomic_with};

fn entries(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(folder).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn writes_replace_the_whole_file() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("a.pen");
    write_atomic(&path, b"first version, long").unwrap();
    write_atomic(&path, b"second").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    assert_eq!(entries(folder.path()), ["a.pen"]);
}

#[test]
fn a_failed_write_leaves_the_old_file_intact() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("a.pen");
    fs::write(&path, b"the old content").unwrap();
    let result = write_atomic_with(&path, |file| {
        file.write_all(b"half of the new")?;
        Err(io::Error::other("disk full"))
    });
    assert_eq!(result.unwrap_err().to_string(), "disk full");
    assert_eq!(fs::read(&path).unwrap(), b"the old content");
    assert_eq!(entries(folder.path()), ["a.pen"], "no temporary file is left behind");
}

#[test]
fn a_missing_folder_is_an_error_not_a_panic() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("missing/a.pen");
    assert!(write_atomic(&path, b"x").is_err());
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_and_new_files_are_readable() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let new = folder.path().join("new.pen");
    write_atomic(&new, b"x").unwrap();
    assert_eq!(fs::metadata(&new).unwrap().permissions().mode() & 0o777, 0o644);

    let private = folder.path().join("private.pen");
    fs::write(&private, b"x").unwrap();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o600)).unwrap();
    write_atomic(&private, b"y").unwrap();
    assert_eq!(fs::metadata(&private).unwrap().permissions().mode() & 0o777, 0o600);
}

#[cfg(unix)]
#[test]
fn a_symlink_keeps_pointing_at_the_saved_file() {
    let folder = tempfile::tempdir().unwrap();
    let real = folder.path().join("real.pen");
    let link = folder.path().join("link.pen");
    fs::write(&real, b"old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read(&real).unwrap(), b"new");
}

#[test]
fn a_document_saves_and_reads_back() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("doc.pen");
    let text = "{\n  \"version\": \"2.8\",\n  \"children\": [\n    {\n      \"type\": \"frame\",\n      \"id\": \"a\"\n    }\n  ]\n}";
    let document = Document::load(text).unwrap().document;
    save_file(&document, &path).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
    assert_eq!(read_file(&path).unwrap().document.to_pen_string(), document.to_pen_string());
}
