//! `nib snapshot`: goldens created on the first run, compared on the next, a 1-pixel move caught
//! with a diff image and a JUnit failure, `--update` rewriting only that golden, shards that
//! split the frames exactly, and the failures a CI run must see.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

/// The binary, offline and without the CI's step summary (a test must not write into the
/// summary of the CI job running it).
fn nib_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nib"));
    command.env("NIB_IMAGES", "offline").env_remove("GITHUB_STEP_SUMMARY");
    command
}

fn snapshot(args: &[&str]) -> Output {
    nib_command().arg("snapshot").args(args).output().expect("nib runs")
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// A document of frames, each 40 × 30 with a dark 10 × 10 square at (`x`, 10) on white.
fn design(frames: &[(&str, &str, u32)]) -> String {
    let children: Vec<String> = frames
        .iter()
        .enumerate()
        .map(|(i, (id, name, x))| {
            format!(
                r##"{{"type": "frame", "id": "{id}", "name": "{name}", "x": {}, "layout": "none", "width": 40, "height": 30, "fill": "#FFFFFF",
                 "children": [{{"type": "rectangle", "id": "{id}-box", "x": {x}, "y": 10, "width": 10, "height": 10, "fill": "#202020"}}]}}"##,
                i * 50
            )
        })
        .collect();
    format!(r#"{{"version": "2.8", "children": [{}]}}"#, children.join(",\n"))
}

const THREE: [(&str, &str, u32); 3] = [("home", "Home", 5), ("about", "About us", 10), ("k9Xy", "Pricing", 15)];

/// A folder with `design.pen` holding [`THREE`], and a separate folder for diff images.
fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let designs = folder.path().join("designs");
    fs::create_dir(&designs).unwrap();
    fs::write(designs.join("design.pen"), design(&THREE)).unwrap();
    let diffs = folder.path().join("diffs");
    (folder, designs, diffs)
}

fn golden(designs: &Path, id: &str) -> PathBuf {
    designs.join("__snapshots__/design").join(format!("{id}.png"))
}

fn stamp(file: &Path) -> (Vec<u8>, SystemTime) {
    (fs::read(file).unwrap(), fs::metadata(file).unwrap().modified().unwrap())
}

/// (suite, test case name, result tag or "") of every test case in a JUnit report.
fn junit_cases(xml: &str) -> Vec<(String, String, String)> {
    let document = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("JUnit XML does not parse: {e}\n{xml}"));
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let mut cases = Vec::new();
    for suite in root.children().filter(|n| n.has_tag_name("testsuite")) {
        for case in suite.children().filter(|n| n.has_tag_name("testcase")) {
            let result = case
                .children()
                .find(|n| ["failure", "error", "skipped"].contains(&n.tag_name().name()))
                .map_or(String::new(), |n| n.tag_name().name().to_owned());
            cases.push((
                suite.attribute("name").unwrap().to_owned(),
                case.attribute("name").unwrap().to_owned(),
                result,
            ));
        }
    }
    cases
}

fn junit_total(xml: &str, attribute: &str) -> u64 {
    let document = roxmltree::Document::parse(xml).unwrap();
    document.root_element().attribute(attribute).unwrap().parse().unwrap()
}

#[test]
fn goldens_are_created_then_pass_a_one_pixel_move_fails_and_update_rewrites_only_that_golden() {
    let (folder, designs, diffs) = project();
    let first = snapshot(&[path(&designs), "--diff-dir", path(&diffs)]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert!(text(&first).contains("3 created"), "{}", text(&first));
    for (id, ..) in THREE {
        assert!(golden(&designs, id).is_file(), "{id}");
    }

    let second = snapshot(&[path(&designs), "--diff-dir", path(&diffs)]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second));
    assert!(text(&second).contains("3 frames in 1 file: 3 passed"), "{}", text(&second));

    let before: Vec<_> = THREE.iter().map(|(id, ..)| stamp(&golden(&designs, id))).collect();
    let moved = design(&[("home", "Home", 6), THREE[1], THREE[2]]);
    fs::write(designs.join("design.pen"), moved).unwrap();
    let junit = folder.path().join("reports/junit.xml");
    let failing = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--junit", path(&junit)]);
    assert_eq!(failing.status.code(), Some(1), "{}", text(&failing));
    assert!(text(&failing).contains("FAIL     "), "{}", text(&failing));
    let diff = diffs.join("design/home.diff.png");
    let diff_image = nib::render::decode_image(&fs::read(&diff).expect("a diff image")).unwrap();
    assert_eq!((diff_image.width(), diff_image.height()), (40, 30));
    assert!(diffs.join("design/home.actual.png").is_file());
    assert!(!diffs.join("design/about.diff.png").exists(), "only the failing frame has a diff");
    let xml = fs::read_to_string(&junit).unwrap();
    assert_eq!(junit_total(&xml, "failures"), 1, "{xml}");
    assert_eq!(junit_total(&xml, "tests"), 3, "{xml}");
    let failed: Vec<_> = junit_cases(&xml).into_iter().filter(|(.., result)| result == "failure").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!((failed[0].0.as_str(), failed[0].1.as_str()), ("design.pen", "Home (home)"));
    assert!(xml.contains("home.diff.png"), "the failure names the diff image: {xml}");
    assert_eq!(
        THREE.iter().map(|(id, ..)| stamp(&golden(&designs, id))).collect::<Vec<_>>(),
        before,
        "a failing run changes no golden"
    );

    let update = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--update"]);
    assert_eq!(update.status.code(), Some(0), "{}", text(&update));
    assert!(text(&update).contains("2 passed, 1 updated"), "{}", text(&update));
    let after: Vec<_> = THREE.iter().map(|(id, ..)| stamp(&golden(&designs, id))).collect();
    assert_ne!(after[0].0, before[0].0, "the moved frame's golden is rewritten");
    assert_eq!(after[1..], before[1..], "the other goldens keep their bytes and times");
    assert!(!diff.exists(), "the diff of a fixed failure is gone");

    let again = snapshot(&[path(&designs), "--diff-dir", path(&diffs)]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
}

/// Four files in nested folders under `root`, with 8 frames each.
fn many_frames(root: &Path) {
    for (file, place) in ["a.pen", "b.pen", "nested/c.pen", "nested/deeper/d.pen"].iter().enumerate() {
        let ids: Vec<(String, String)> = (0..8).map(|i| (format!("f{file}x{i}"), format!("Frame {i}"))).collect();
        let frames: Vec<(&str, &str, u32)> = ids.iter().map(|(id, name)| (id.as_str(), name.as_str(), 5)).collect();
        let target = root.join(place);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, design(&frames)).unwrap();
    }
}

#[test]
fn every_frame_lands_in_exactly_one_of_three_shards() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().join("designs");
    many_frames(&root);
    let diffs = folder.path().join("diffs");
    let cases_of = |shard: Option<&str>, name: &str| {
        let junit = folder.path().join(name);
        let mut args = vec![path(&root), "--diff-dir", path(&diffs), "--junit", path(&junit)];
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        let output = snapshot(&args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        let cases: BTreeSet<(String, String)> = junit_cases(&fs::read_to_string(junit).unwrap())
            .into_iter()
            .map(|(suite, case, _)| (suite, case))
            .collect();
        cases
    };
    // The first shard alone creates only its own goldens.
    let first = cases_of(Some("1/3"), "shard-1.xml");
    let goldens = walk_pngs(&root);
    assert_eq!(goldens.len(), first.len(), "{goldens:?}");
    let all = cases_of(None, "all.xml");
    assert_eq!(all.len(), 32);
    let shards: Vec<BTreeSet<_>> =
        (1..=3).map(|i| cases_of(Some(&format!("{i}/3")), &format!("shard-{i}.xml"))).collect();
    assert_eq!(shards[0], first, "a shard is the same on every run");
    for (i, shard) in shards.iter().enumerate() {
        assert!(!shard.is_empty(), "shard {} is empty", i + 1);
        for other in &shards[i + 1..] {
            assert!(shard.is_disjoint(other), "{shard:?} and {other:?} share frames");
        }
    }
    let union: BTreeSet<_> = shards.iter().flatten().cloned().collect();
    assert_eq!(union, all);
    assert!(all.iter().any(|(suite, _)| suite == "nested/deeper/d.pen"), "{all:?}");
}

fn walk_pngs(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk_pngs(&path));
        } else if path.extension().is_some_and(|e| e == "png") {
            found.push(path);
        }
    }
    found
}

#[test]
fn frame_regex_checks_only_the_frames_it_matches() {
    let (_folder, designs, diffs) = project();
    let output = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--frame", "^(Home|Pric)"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(golden(&designs, "home").is_file() && golden(&designs, "k9Xy").is_file());
    assert!(!golden(&designs, "about").exists(), "'About us' does not match");
    // Ids match too.
    let by_id = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--frame", "^about$"]);
    assert!(text(&by_id).contains("1 frame in 1 file: 1 created"), "{}", text(&by_id));
}

#[test]
fn a_frame_that_cannot_be_rendered_and_a_file_that_does_not_load_fail() {
    let (folder, designs, diffs) = project();
    let huge = r##"{"version": "2.8", "children": [
        {"type": "frame", "id": "ok", "width": 10, "height": 10, "fill": "#FF0000"},
        {"type": "frame", "id": "huge", "x": 20, "width": 20000, "height": 20000, "fill": "#00FF00"}
    ]}"##;
    fs::write(designs.join("huge.pen"), huge).unwrap();
    fs::write(designs.join("broken.pen"), "{\"version\": \"2.8\", \"children\": [").unwrap();
    let junit = folder.path().join("junit.xml");
    let output = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--junit", path(&junit)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let out = text(&output);
    assert!(out.contains("huge.pen huge: the image would be 20000 × 20000 pixels"), "{out}");
    assert!(out.contains("ERROR    ") && out.contains("broken.pen"), "{out}");
    assert!(golden(&designs, "home").is_file(), "the other files are checked all the same");
    let xml = fs::read_to_string(junit).unwrap();
    assert_eq!(junit_total(&xml, "errors"), 2, "{xml}");
    let errors: Vec<_> = junit_cases(&xml).into_iter().filter(|(.., r)| r == "error").map(|(s, c, _)| (s, c)).collect();
    assert_eq!(
        errors,
        [("broken.pen".to_owned(), "(the file)".to_owned()), ("huge.pen".to_owned(), "huge".to_owned())]
    );
}

#[test]
fn a_ci_run_fails_on_a_missing_golden_and_creates_none() {
    let (folder, designs, diffs) = project();
    let summary = folder.path().join("summary.md");
    let output = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--ci", "--summary", path(&summary)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("3 missing"), "{}", text(&output));
    assert!(!designs.join("__snapshots__").exists(), "a CI run writes no golden");
    assert!(diffs.join("design/home.actual.png").is_file(), "the render is there to look at");
    let markdown = fs::read_to_string(summary).unwrap();
    assert!(markdown.contains("| `design.pen` | Home (`home`) | no golden"), "{markdown}");
    // --ci and --update contradict each other.
    assert_eq!(snapshot(&[path(&designs), "--ci", "--update"]).status.code(), Some(2));
}

#[test]
fn the_summary_lists_the_failure_with_its_images_and_goes_to_the_step_summary() {
    let (folder, designs, diffs) = project();
    assert!(snapshot(&[path(&designs), "--diff-dir", path(&diffs)]).status.success());
    fs::write(designs.join("design.pen"), design(&[THREE[0], ("about", "About us", 11), THREE[2]])).unwrap();
    let summary = folder.path().join("summary.md");
    let step_summary = folder.path().join("step-summary.md");
    fs::write(&step_summary, "earlier step\n").unwrap();
    let output = nib_command()
        .args(["snapshot", path(&designs), "--diff-dir", path(&diffs), "--summary", path(&summary)])
        .env("GITHUB_STEP_SUMMARY", &step_summary)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let markdown = fs::read_to_string(&summary).unwrap();
    assert!(markdown.contains("**failed**: 3 frames in 1 file: 2 passed, 1 failed"), "{markdown}");
    let row = markdown.lines().find(|l| l.contains("`about`")).unwrap_or_else(|| panic!("no row: {markdown}"));
    assert!(row.starts_with("| `design.pen` | About us (`about`) | 1.667% of pixels differ"), "{row}");
    // Links are relative to the summary's folder.
    assert!(row.contains("[diff](diffs/design/about.diff.png)"), "{row}");
    let step = fs::read_to_string(&step_summary).unwrap();
    assert!(step.starts_with("earlier step\n### nib snapshot"), "{step}");
}

#[test]
fn obsolete_goldens_are_reported_fail_a_ci_run_and_go_with_update() {
    let (_folder, designs, diffs) = project();
    assert!(snapshot(&[path(&designs), "--diff-dir", path(&diffs)]).status.success());
    fs::write(designs.join("design.pen"), design(&THREE[..2])).unwrap();
    let report = snapshot(&[path(&designs), "--diff-dir", path(&diffs)]);
    assert_eq!(report.status.code(), Some(0), "{}", text(&report));
    assert!(text(&report).contains("OBSOLETE "), "{}", text(&report));
    assert_eq!(snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--ci"]).status.code(), Some(1));
    assert!(golden(&designs, "k9Xy").is_file());
    let update = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--update"]);
    assert!(text(&update).contains("1 removed"), "{}", text(&update));
    assert!(!golden(&designs, "k9Xy").exists());
}

#[test]
fn usage_problems_exit_2_with_a_hint() {
    let (folder, designs, _) = project();
    let missing = snapshot(&[path(&folder.path().join("nowhere"))]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing).contains("nowhere"), "{}", text(&missing));
    let empty = folder.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let nothing = snapshot(&[path(&empty)]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(text(&nothing).contains("no .pen files"), "{}", text(&nothing));
    for shard in ["0/2", "3/2", "2", "1/0"] {
        let bad = snapshot(&[path(&designs), "--shard", shard]);
        assert_eq!(bad.status.code(), Some(2), "{shard}");
        assert!(text(&bad).contains("is not a shard"), "{}", text(&bad));
    }
    assert_eq!(snapshot(&[path(&designs), "--max-diff-share", "150%"]).status.code(), Some(2));
    assert_eq!(snapshot(&[path(&designs), "--frame", "("]).status.code(), Some(2));
}

#[test]
fn a_tolerance_lets_a_small_change_pass() {
    let (_folder, designs, diffs) = project();
    assert!(snapshot(&[path(&designs), "--diff-dir", path(&diffs)]).status.success());
    fs::write(designs.join("design.pen"), design(&[("home", "Home", 6), THREE[1], THREE[2]])).unwrap();
    // The move changes 20 of 1,200 pixels: 1.7%.
    let strict = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--max-diff-share", "1%"]);
    assert_eq!(strict.status.code(), Some(1), "{}", text(&strict));
    let lenient = snapshot(&[path(&designs), "--diff-dir", path(&diffs), "--max-diff-share", "2%"]);
    assert_eq!(lenient.status.code(), Some(0), "{}", text(&lenient));
}

#[test]
fn files_whose_names_differ_only_in_case_do_not_share_goldens() {
    let (_folder, designs, diffs) = project();
    fs::write(designs.join("Design.PEN"), design(&[("other", "Other", 5)])).unwrap();
    let output = snapshot(&[path(&designs), "--diff-dir", path(&diffs)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    // Names sort by their bytes: Design.PEN comes first, keeps the folder and gets its golden;
    // nothing of design.pen is written.
    assert!(text(&output).contains("design.pen: its goldens would share the folder"), "{}", text(&output));
    assert!(designs.join("__snapshots__/Design/other.png").is_file());
    let goldens: Vec<_> =
        fs::read_dir(designs.join("__snapshots__")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(goldens, ["Design"]);
}

/// Issue 57, item 7: snapshot tests pick a theme with `--theme`: its goldens are kept apart
/// (`__snapshots__/<file>@Mode=Dark/`), so the own look's goldens are neither compared with
/// the dark pictures nor taken for obsolete ones.
#[test]
fn snapshots_under_a_theme_keep_goldens_of_their_own() {
    let folder = tempfile::tempdir().unwrap();
    fs::write(
        folder.path().join("design.pen"),
        r##"{"version": "2.10", "themes": {"Mode": ["Light", "Dark"]},
 "variables": {"--bg": {"type": "color", "value": [{"value": "#FFFFFF"}, {"value": "#000000", "theme": {"Mode": "Dark"}}]}},
 "children": [{"type": "frame", "id": "home", "x": 0, "y": 0, "width": 20, "height": 10, "fill": "$--bg"}]}"##,
    )
    .unwrap();
    let design = folder.path().join("design.pen");
    let diffs = folder.path().join("diffs");
    let args = |theme: Option<&str>| {
        let mut args = vec![path(&design).to_owned(), "--diff-dir".into(), path(&diffs).to_owned()];
        if let Some(theme) = theme {
            args.extend(["--theme".to_owned(), theme.to_owned()]);
        }
        args
    };
    let run = |theme: Option<&str>| {
        let args = args(theme);
        snapshot(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert!(run(None).status.success());
    let created = run(Some("Mode=Dark"));
    assert!(created.status.success(), "{}", text(&created));
    let own = folder.path().join("__snapshots__/design/home.png");
    let dark = folder.path().join("__snapshots__/design@Mode=Dark/home.png");
    let pixel = |file: &Path| {
        let image = nib::render::decode_image(&fs::read(file).unwrap()).unwrap();
        let p = image.pixel(5, 5).unwrap();
        [p.red(), p.green(), p.blue()]
    };
    assert_eq!((pixel(&own), pixel(&dark)), ([255, 255, 255], [0, 0, 0]));
    // Both pass again, each against its own goldens, and --update under a theme removes none
    // of the others.
    assert!(run(None).status.success(), "{}", text(&run(None)));
    let again = run(Some("Mode=Dark"));
    assert!(again.status.success(), "{}", text(&again));
    let mut update = args(Some("Mode=Dark"));
    update.push("--update".into());
    assert!(snapshot(&update.iter().map(String::as_str).collect::<Vec<_>>()).status.success());
    assert!(own.exists());
    let unknown = run(Some("Mode=Dim"));
    assert_eq!(unknown.status.code(), Some(1), "{}", text(&unknown));
    assert!(text(&unknown).contains("'Dim' is not a value of the theme axis 'Mode'"), "{}", text(&unknown));
}
