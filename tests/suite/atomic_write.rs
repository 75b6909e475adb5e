//! Saving never loses a file: a failed write leaves the old file as it was and no debris; special
//! files and read-only files are never replaced, and a replaced file keeps its mode and owner.

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
    assert_eq!(result.unwrap_err().to_string(), format!("{}: disk full", path.display()));
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

#[cfg(unix)]
#[test]
fn a_device_is_refused_before_it_is_touched() {
    use std::os::unix::fs::FileTypeExt;
    // The issue's reproduction: `mknod n c 1 3` (a /dev/null twin) turned into a regular file.
    // mknod needs root; without it, /dev/null itself shows the refusal (it is not writable to
    // replace for anyone else, so a regression cannot harm it).
    let folder = tempfile::tempdir().unwrap();
    let device = folder.path().join("n");
    let made = std::process::Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let device = if made { device } else { Path::new("/dev/null").to_owned() };
    let error = write_atomic(&device, b"{}").unwrap_err();
    assert!(error.to_string().contains("a character device, not a regular file"), "{error}");
    assert!(fs::metadata(&device).unwrap().file_type().is_char_device());
    assert!(read_file(&device).unwrap_err().to_string().contains("a character device"));
}

#[cfg(unix)]
#[test]
fn a_fifo_is_neither_read_nor_replaced() {
    let folder = tempfile::tempdir().unwrap();
    let fifo = folder.path().join("f.pen");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // Opening a FIFO for reading would wait for a writer forever: this must return at once.
    let error = read_file(&fifo).unwrap_err();
    assert!(error.to_string().contains("a FIFO (named pipe), not a regular file"), "{error}");
    let error = write_atomic(&fifo, b"{}").unwrap_err();
    assert!(error.to_string().contains("FIFO"), "{error}");
    assert_eq!(entries(folder.path()), ["f.pen"], "nothing was created beside it");
}

#[cfg(unix)]
#[test]
fn an_endless_device_is_refused_instead_of_read_until_memory_runs_out() {
    let error = read_file(Path::new("/dev/zero")).unwrap_err();
    assert!(error.to_string().contains("a character device"), "{error}");
}

#[cfg(unix)]
#[test]
fn a_read_only_file_is_not_overwritten() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("locked.pen");
    fs::write(&path, b"keep me").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let error = write_atomic(&path, b"new").unwrap_err();
    assert!(error.to_string().contains("is read-only (mode 444)"), "{error}");
    assert_eq!(fs::read(&path).unwrap(), b"keep me");
    assert_eq!(entries(folder.path()), ["locked.pen"]);
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_mode_owner_and_group() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("shared.pen");
    fs::write(&path, b"old").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    // Another group than the one new files get, where this user may choose it (root may).
    let group = 1; // "daemon" on Debian
    let changed = std::process::Command::new("chgrp").arg(group.to_string()).arg(&path).status().unwrap().success();
    let before = fs::metadata(&path).unwrap();
    write_atomic(&path, b"new").unwrap();
    let after = fs::metadata(&path).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new");
    assert_eq!(after.permissions().mode() & 0o7777, 0o640);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    if changed {
        assert_eq!(after.gid(), group);
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_device_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let link = folder.path().join("n.pen");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    assert!(write_atomic(&link, b"{}").unwrap_err().to_string().contains("character device"));
    assert!(read_file(&link).unwrap_err().to_string().contains("character device"));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
}

#[test]
fn a_file_over_the_cap_is_refused_before_it_is_read() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("huge.pen");
    // A sparse file: the size the system reports is what is checked, nothing is read.
    let file = fs::File::create(&path).unwrap();
    file.set_len(nib::doc::MAX_FILE_BYTES as u64 + 1).unwrap();
    let error = read_file(&path).unwrap_err().to_string();
    assert!(error.contains(&format!("is {} bytes; the limit is", nib::doc::MAX_FILE_BYTES + 1)), "{error}");
}

#[cfg(unix)]
#[test]
fn outputs_written_without_waiting_for_the_disk_keep_every_other_guarantee() {
    // `nib render` writes its images with write_output: replaced whole, no debris, and the same
    // refusals as a document save (FIFO, read-only file).
    use nib::files::write_output;
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("frame.png");
    write_output(&path, b"a first, longer image", None).unwrap();
    write_output(&path, b"second", None).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    let fifo = folder.path().join("f.png");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert!(write_output(&fifo, b"x", None).unwrap_err().to_string().contains("FIFO"));
    let locked = folder.path().join("locked.png");
    fs::write(&locked, b"keep me").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o444)).unwrap();
    assert!(write_output(&locked, b"new", None).unwrap_err().to_string().contains("read-only"));
    assert_eq!(fs::read(&locked).unwrap(), b"keep me");
    assert_eq!(entries(folder.path()), ["f.png", "frame.png", "locked.png"], "no temporary file is left behind");
}

/// What killed saves left beside a document (nib's temporary files that no process holds) is
/// removed by its next save, by any command or tool; a live writer's file, another document's
/// and files of other names stay. A command makes no folder of its own elsewhere (TMPDIR).
#[cfg(unix)]
#[test]
fn a_save_clears_what_killed_saves_of_its_document_left_and_nothing_else() {
    let folder = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let document = folder.path().join("w.pen");
    fs::write(&document, r#"{"version": "2.20", "children": []}"#).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    let plant = |name: &str| {
        let path = folder.path().join(name);
        fs::write(&path, vec![b'x'; 1 << 20]).unwrap();
        fs::File::options().write(true).open(&path).unwrap().set_modified(old).unwrap();
        path
    };
    let killed = [plant(".w.pen.0123456789abcdef.tmp"), plant(".w.pen.Ab3xYz.tmp")];
    let others = [plant(".v.pen.0123456789abcdef.tmp"), plant("w.pen.0123456789abcdef.tmp"), plant(".w.pen.notes")];
    // A writer that is alive holds its file's lock.
    let live = plant(".w.pen.fedcba9876543210.tmp");
    let held = fs::File::open(&live).unwrap();
    held.lock().unwrap();
    let runs: [&[&str]; 3] = [
        &["apply", document.to_str().unwrap(), "-"],
        &["exec", document.to_str().unwrap(), "-"],
        &[
            "call",
            "--root",
            folder.path().to_str().unwrap(),
            "batch_design",
            "--args",
            r#"{"filePath": "w.pen", "operations": "f=I(document, {type: \"frame\", width: 10, height: 10})"}"#,
        ],
    ];
    for (i, args) in runs.iter().enumerate() {
        if i > 0 {
            for path in &killed {
                fs::write(path, b"left by a kill").unwrap();
                fs::File::options().write(true).open(path).unwrap().set_modified(old).unwrap();
            }
        }
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nib"))
            .args(*args)
            .env("TMPDIR", scratch.path())
            .env("NIB_IMAGES", "offline")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let input: &[u8] = if args[0] == "exec" {
            br#"Insert(document, {type: "rectangle", width: 5, height: 5});"#
        } else {
            br#"r=I(document, {type: "rectangle", width: 5, height: 5})"#
        };
        child.stdin.take().unwrap().write_all(input).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        for path in &killed {
            assert!(!path.exists(), "{args:?}: {} is debris of a killed save", path.display());
        }
        for path in others.iter().chain([&live]) {
            assert!(path.exists(), "{args:?}: {} is not this document's debris", path.display());
        }
        assert!(entries(scratch.path()).is_empty(), "{args:?} left {:?} in TMPDIR", entries(scratch.path()));
    }
    drop(held);
}
