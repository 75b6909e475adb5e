//! Many writers on one document lose nothing they acknowledged: command-line writers take
//! turns on the file's lock, a session that holds the document in memory works on the file as
//! another writer left it and says so, a killed holder blocks no one, a writer that waits too
//! long says who holds the file, and a program that takes no lock is caught before the rename.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::mcp_client::{call, connect, error_text, structured};
use serde_json::json;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pen").join(name)
}

/// A folder holding a copy of a real 1.7 MB document, `design.pen`.
fn folder_with_design() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("design.pen");
    std::fs::copy(fixture("LIU9293__cirrus__design.pen"), &path).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&path, permissions).unwrap();
    (folder, path)
}

fn insert(name: &str) -> String {
    format!(r#"r=I(document, {{type: "rectangle", name: "{name}", x: -900, y: -900, width: 4, height: 4}})"#)
}

fn apply(path: &Path, name: &str, env: &[(&str, &str)]) -> Output {
    apply_with(path, name, env, &[])
}

/// `nib apply` of an insert of a rectangle called `name`, with `args` on the command line.
fn apply_with(path: &Path, name: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
        .args(["apply", path.to_str().unwrap(), "-"])
        .args(args)
        .env("NIB_IMAGES", "offline")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(insert(name).as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The layer names in the document at `path`.
fn names(path: &Path) -> std::collections::HashSet<String> {
    let document: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut found = std::collections::HashSet::new();
    let mut stack = vec![&document];
    while let Some(node) = stack.pop() {
        if let Some(name) = node.get("name").and_then(|n| n.as_str()) {
            found.insert(name.to_owned());
        }
        if let Some(children) = node.get("children").and_then(|c| c.as_array()) {
            stack.extend(children);
        }
    }
    found
}

#[test]
fn writers_on_the_command_line_take_turns_and_lose_nothing() {
    let (_folder, path) = folder_with_design();
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let path = path.clone();
            std::thread::spawn(move || {
                (0..6)
                    .map(|step| {
                        let name = format!("w{writer}-{step}");
                        let output = apply(&path, &name, &[]);
                        (name, output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let results: Vec<_> = writers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    let present = names(&path);
    for (name, acknowledged, stderr) in &results {
        assert!(acknowledged, "{name} was not acknowledged (writers wait their turn): {stderr}");
        assert!(present.contains(name), "{name} was acknowledged and is gone");
    }
    assert_eq!(results.len(), 24);
}

#[test]
fn a_writer_that_waits_too_long_is_told_who_holds_the_file_and_a_killed_holder_blocks_no_one() {
    let (_folder, path) = folder_with_design();
    let before = std::fs::read(&path).unwrap();
    // Another process holds the document's lock (flock, as nib takes it).
    let mut holder = Command::new("flock")
        .args(["--exclusive", "--close", path.to_str().unwrap(), "sleep", "60"])
        .spawn()
        .expect("flock(1) from util-linux");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    let output = apply(&path, "waited", &[("NIB_LOCK_WAIT", "1")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is being changed by another nib process"), "{stderr}");
    assert!(stderr.contains("design.pen") && stderr.contains("NIB_LOCK_WAIT"), "{stderr}");
    assert!(started.elapsed() >= std::time::Duration::from_secs(1), "it waited its turn first");
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing was written");
    // The holder is killed: its lock goes with it, and the next writer goes ahead.
    holder.kill().unwrap();
    holder.wait().unwrap();
    let output = apply(&path, "after", &[("NIB_LOCK_WAIT", "5")]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(names(&path).contains("after"));
    let left: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["design.pen"], "no lock file, no temporary file");
}

#[test]
fn a_writer_that_takes_no_lock_is_caught_before_the_rename() {
    let (_folder, path) = folder_with_design();
    let lock = nib::files::DocumentLock::acquire(&path).unwrap();
    let loaded = nib::doc::io::read_file(&path).unwrap();
    // An editor rewrites the file meanwhile, taking no lock.
    let edited = std::fs::read_to_string(&path).unwrap().replacen("\"children\"", "\"comment\": 1,\n  \"children\"", 1);
    std::fs::write(&path, &edited).unwrap();
    let refused = nib::doc::io::save_file(&loaded.document, &path).unwrap_err();
    assert!(matches!(refused, nib::files::FileError::ChangedMeanwhile { .. }), "{refused}");
    assert!(refused.to_string().contains("does not take nib's lock"), "{refused}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited, "the editor's change is kept");
    drop(lock);
    // Without a lock held, the save takes it, finds the file as it is, and goes ahead.
    nib::doc::io::save_file(&loaded.document, &path).unwrap();
}

/// A session holds the document in memory; another process changes the file between two of
/// its calls: the call works on the file as it is now, the answer says what changed, nothing
/// of either writer is lost, and undo does not take the other writer's change back.
#[tokio::test]
async fn a_session_works_on_the_file_another_writer_changed_and_says_so() {
    let (folder, path) = folder_with_design();
    let client = connect(folder.path()).await;
    let batch = |name: &str| json!({ "filePath": "design.pen", "operations": insert(name) });
    structured(&call(&client, "batch_design", batch("session-1")).await);
    // The other writer names itself: the session is told who it was.
    let output = apply_with(&path, "outside", &[], &["--as", "alice"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let answer = structured(&call(&client, "batch_design", batch("session-2")).await);
    let note = answer["note"].as_str().unwrap_or_else(|| panic!("the answer says the file changed: {answer}"));
    assert!(
        note.contains("changed on disk since your last call: 1 node added, by alice (nib apply); your operations were applied to the current document"),
        "{note}"
    );
    let present = names(&path);
    for name in ["session-1", "outside", "session-2"] {
        assert!(present.contains(name), "{name} is in the file");
    }
    // Undo takes back this session's last change, and stops at the other writer's.
    structured(&call(&client, "undo", json!({ "filePath": "design.pen" })).await);
    let stopped = error_text(&call(&client, "undo", json!({ "filePath": "design.pen" })).await);
    assert!(stopped.contains("undo stops where another writer changed the file (1 node added)"), "{stopped}");
    let present = names(&path);
    assert!(present.contains("outside") && present.contains("session-1") && !present.contains("session-2"));
    client.cancel().await.unwrap();
}

/// The fileRevision a command's JSON answer gives.
fn revision_in(output: &Output) -> String {
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)));
    answer["fileRevision"].as_str().unwrap_or_else(|| panic!("a fileRevision: {answer}")).to_owned()
}

#[test]
fn a_command_line_writer_that_states_its_revision_is_refused_once_the_file_moved_on() {
    let (_folder, path) = folder_with_design();
    let first = nib::files::Revision::of(&std::fs::read(&path).unwrap()).to_string();
    let check = Command::new(env!("CARGO_BIN_EXE_nib")).args(["check", path.to_str().unwrap()]).output().unwrap();
    assert!(String::from_utf8_lossy(&check.stdout).contains(&format!("file revision {first}")), "check says it");
    // The first writer built on that revision: saved, and its answer gives the new one.
    let written = apply_with(&path, "first", &[], &["--if-revision", &first, "--json"]);
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let second = revision_in(&written);
    assert_eq!(second, nib::files::Revision::of(&std::fs::read(&path).unwrap()).to_string());
    // A writer that read the first version is refused: exit 1, nothing saved, both named.
    let saved = std::fs::read(&path).unwrap();
    let stale = apply_with(&path, "stale", &[], &["--if-revision", &first]);
    let stderr = String::from_utf8_lossy(&stale.stderr);
    assert_eq!(stale.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("is at revision {second}, not {first} (--if-revision)")), "{stderr}");
    assert_eq!(std::fs::read(&path).unwrap(), saved, "nothing was saved");
    // nib exec the same, through the execute tool.
    let exec = |revision: &str| {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_nib"))
            .args(["exec", path.to_str().unwrap(), "-", "--if-revision", revision, "--as", "bob"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"Insert(document, {type: \"frame\", name: \"exec\"});").unwrap();
        child.wait_with_output().unwrap()
    };
    let refused = exec(&first);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stdout).contains(&format!("is at revision {second}, not {first}")));
    assert_eq!(std::fs::read(&path).unwrap(), saved, "nothing was saved");
    let ran = exec(&second);
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stdout));
    assert_eq!(revision_in(&ran), nib::files::Revision::of(&std::fs::read(&path).unwrap()).to_string());
    assert!(names(&path).contains("exec"));
    // Not a revision at all: refused, saying what one looks like.
    let wrong = apply_with(&path, "wrong", &[], &["--if-revision", "HEAD"]);
    assert_eq!(wrong.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("hexadecimal digits"));
}

/// A writer's name is believed only while the file holds the bytes it wrote: an editor that
/// rewrites the file in place (keeping the attribute) is "another writer".
#[tokio::test]
async fn a_session_names_a_writer_only_for_the_bytes_it_wrote() {
    let (folder, path) = folder_with_design();
    let client = connect(folder.path()).await;
    let batch = |name: &str| json!({ "filePath": "design.pen", "operations": insert(name) });
    structured(&call(&client, "batch_design", batch("session-1")).await);
    assert!(apply_with(&path, "named", &[], &["--as", "alice"]).status.success());
    let edited = std::fs::read_to_string(&path).unwrap().replacen("\"named\"", "\"renamed\"", 1);
    std::fs::write(&path, edited).unwrap();
    let answer = structured(&call(&client, "batch_design", batch("session-2")).await);
    let note = answer["note"].as_str().unwrap_or_default();
    assert!(note.contains("by another writer;") && !note.contains("alice"), "{note}");
    client.cancel().await.unwrap();
}
