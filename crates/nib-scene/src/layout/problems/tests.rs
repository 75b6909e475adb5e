//! Requests that find a great many problems: what is listed, what is counted, and that the
//! work stays proportional to the nodes and the problems found.

use super::*;
use crate::layout::tests::laid_out;

/// A `layout: "none"` frame 'F' (id `F`) of this size with these children.
fn free_frame(width: usize, height: usize, children: &[String]) -> String {
    format!(
        r#"{{"type": "frame", "id": "F", "name": "F", "layout": "none", "width": {width}, "height": {height}, "children": [{}]}}"#,
        children.join(",")
    )
}

/// `n` rectangles n px wide, each one pixel right of the one before: every two overlap and
/// none contains another, so there are n × (n − 1) / 2 overlaps.
fn staircase(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!(r#"{{"type": "rectangle", "id": "r{i}", "x": {i}, "y": 0, "width": {n}, "height": 10}}"#))
        .collect()
}

#[test]
fn overlaps_among_ten_thousand_siblings_are_counted_not_built() {
    // Before, every pair became a message: 50 million strings, more than 4 GB.
    let (scene, layout) = laid_out(&free_frame(20_000, 10, &staircase(10_000)));
    let found = find_problems(&scene, &layout, None);
    assert_eq!(found.shown.len(), MAX_PROBLEMS);
    assert!(found.shown.iter().all(|p| p.kind == ProblemKind::Overlap));
    assert_eq!(found.shown[0].message.split(" (their").next(), Some("'r1' overlaps 'r0' by 9999 × 10 px"));
    assert_eq!(found.shown[199].node, "r200", "listed by the earlier box, then the later");
    assert_eq!(found.more.len(), 1, "{:?}", found.more);
    let more = &found.more[0];
    assert!(more.at_least, "{more:?}");
    assert_eq!(more.count as u64, siblings::OVERLAP_PAIRS_PER_REQUEST - MAX_PROBLEMS as u64);
    assert_eq!(
        more.message,
        "at least 4,999,800 more overlaps among 10,000 siblings of 'F' (F) (too many pairs to examine them all)"
    );
}

#[test]
fn overlaps_among_three_thousand_siblings_are_counted_exactly() {
    let (scene, layout) = laid_out(&free_frame(6_000, 10, &staircase(3_000)));
    let found = find_problems(&scene, &layout, None);
    assert_eq!(found.shown.len(), MAX_PROBLEMS);
    assert!(!found.at_least());
    assert_eq!(found.more_count(), 3_000 * 2_999 / 2 - MAX_PROBLEMS);
    assert_eq!(found.more[0].message, "4,498,300 more overlaps among 3,000 siblings of 'F' (F)");
}

#[test]
fn overlaps_in_a_column_of_a_hundred_thousand_siblings_cost_no_pair_checks() {
    // Before, 5 billion pairs were compared one by one; the sweep looks only at neighbours.
    let mut column: Vec<String> = (0..100_000)
        .map(|i| {
            format!(r#"{{"type": "rectangle", "id": "r{i}", "x": 0, "y": {}, "width": 100, "height": 10}}"#, i * 10)
        })
        .collect();
    column.push(r#"{"type": "rectangle", "id": "late", "x": 50, "y": 995005, "width": 20, "height": 20}"#.into());
    let (scene, layout) = laid_out(&free_frame(100, 1_000_000, &column));
    let found = find_problems(&scene, &layout, None);
    let overlaps: Vec<&LayoutProblem> = found.shown.iter().filter(|p| p.kind == ProblemKind::Overlap).collect();
    assert_eq!(overlaps.len(), 3, "{overlaps:#?}");
    assert!(overlaps[0].message.starts_with("'late' overlaps 'r99500' by 20 × 5 px"), "{}", overlaps[0].message);
    assert!(overlaps[1].message.starts_with("'late' overlaps 'r99501' by 20 × 10 px"), "{}", overlaps[1].message);
    assert!(overlaps[2].message.starts_with("'late' overlaps 'r99502' by 20 × 5 px"), "{}", overlaps[2].message);
    assert!(found.more.is_empty(), "{:?}", found.more);
}

#[test]
fn sizing_notes_of_fifty_thousand_nodes_are_matched_in_one_pass() {
    // Before, each node looked through every note of its part: 2.5 billion steps.
    let children: Vec<String> = (0..50_000)
        .map(|i| format!(r#"{{"type": "rectangle", "id": "r{i}", "width": "fill_container", "height": 10}}"#))
        .collect();
    let (scene, layout) = laid_out(&free_frame(100, 100, &children));
    let found = find_problems(&scene, &layout, None);
    assert_eq!(found.shown[0].kind, ProblemKind::FillOutsideFlex);
    assert_eq!(found.shown[0].node, "r0");
    // Each one's zero width is what its note already says: one line per node, not two.
    assert!(found.shown.iter().all(|p| p.kind == ProblemKind::FillOutsideFlex));
    let summaries: Vec<&str> = found.more.iter().map(|m| m.message.as_str()).collect();
    assert_eq!(summaries, ["49,800 more fill_container sizes outside a flex layout"]);
}

#[test]
fn overflow_of_twenty_thousand_children_is_one_line_per_parent() {
    let children: Vec<String> = (0..20_000)
        .map(|i| {
            format!(
                r#"{{"type": "rectangle", "id": "r{i}", "x": {}, "y": 0, "width": 10, "height": 10}}"#,
                200 + i * 10
            )
        })
        .collect();
    let (scene, layout) = laid_out(&free_frame(100, 100, &children));
    let found = find_problems(&scene, &layout, None);
    assert_eq!(found.shown.len(), MAX_PROBLEMS);
    assert_eq!(found.shown[0].message.split(':').next(), Some("'r0' overflows its parent 'F' (F) by 110 px right"));
    assert_eq!(found.more.len(), 1);
    assert_eq!(found.more[0].message, "19,800 more children overflow 'F' (F)");
    assert_eq!((found.more[0].kind, found.more[0].count), (ProblemKind::Overflow, 19_800));
}

#[test]
fn problems_under_many_parents_are_summarised_in_a_few_lines() {
    // 300 frames with one child sticking out each: 200 listed, 100 counted in 25 lines.
    let frames: Vec<String> = (0..300)
        .map(|i| {
            format!(
                r#"{{"type": "frame", "id": "f{i}", "layout": "none", "x": {}, "width": 10, "height": 10, "children": [
                    {{"type": "rectangle", "id": "c{i}", "x": 5, "y": 0, "width": 10, "height": 10}}]}}"#,
                i * 100
            )
        })
        .collect();
    let (scene, layout) = laid_out(&frames.join(","));
    let found = find_problems(&scene, &layout, None);
    assert_eq!(found.shown.len(), MAX_PROBLEMS);
    assert_eq!(found.more_count(), 100);
    assert!(found.more.len() <= list::MAX_CAUSES + 1, "{} lines", found.more.len());
    let last = found.more.last().expect("a summary");
    assert_eq!(last.message, format!("{} more children overflow their parents", 100 - list::MAX_CAUSES));
}

#[test]
fn overlapping_top_level_nodes_are_counted_like_siblings() {
    let roots: Vec<String> = (0..1_000)
        .map(|i| format!(r#"{{"type": "rectangle", "id": "t{i}", "x": {i}, "y": 0, "width": 1000, "height": 10}}"#))
        .collect();
    let (scene, layout) = laid_out(&roots.join(","));
    let found = find_problems(&scene, &layout, None);
    assert_eq!(found.shown.len(), MAX_PROBLEMS);
    assert!(found.shown[0].message.starts_with("'t1' overlaps 't0' by 999 × 10 px on the canvas"));
    assert_eq!(found.more[0].message, "499,300 more overlaps among 1,000 top-level nodes");
}

#[test]
fn one_pile_of_siblings_does_not_leave_the_frames_after_it_unchecked() {
    let pile = free_frame(8_000, 10, &staircase(4_000));
    let after = r#"{"type": "frame", "id": "G", "layout": "none", "x": 10000, "width": 100, "height": 100, "children": [
        {"type": "rectangle", "id": "a", "x": 0, "y": 0, "width": 50, "height": 50},
        {"type": "rectangle", "id": "b", "x": 25, "y": 25, "width": 50, "height": 50}]}"#;
    let (scene, layout) = laid_out(&format!("{pile},{after}"));
    let found = find_problems(&scene, &layout, scene.node_by_id("G"));
    assert_eq!(found.shown.len(), 1);
    let everything = find_problems(&scene, &layout, None);
    let in_g = everything.more.iter().find(|m| m.message.contains("siblings of 'G'")).expect("G's overlap is counted");
    assert_eq!((in_g.count, in_g.at_least), (1, false));
}

#[test]
fn one_cause_is_one_line_with_its_consequences_counted() {
    // Issue 13: one frame sized 0 by fill_container made every child overflow it, and each
    // overflow was its own line (60 in a real file); the cause came first but drowned.
    let rows: Vec<String> = (0..60)
        .map(|i| format!(r##"{{"type": "text", "id": "t{i}", "content": "Row {i}", "fill": "#000000"}}"##))
        .collect();
    let list = format!(
        r#"{{"type": "frame", "id": "list", "name": "List", "width": "fill_container", "layout": "vertical", "children": [{}]}}"#,
        rows.join(",")
    );
    let (scene, layout) = laid_out(&free_frame(400, 2000, &[list]));
    let found = find_problems(&scene, &layout, None);
    assert_eq!(found.shown.len(), 1, "{:#?}", found.shown);
    assert_eq!(found.shown[0].kind, ProblemKind::FillOutsideFlex);
    assert!(
        found.shown[0].message.ends_with("(… and 60 nodes inside it overflow or have no size because of it)"),
        "{}",
        found.shown[0].message
    );
    assert!(found.more.is_empty());
    // Asked about a node inside, the consequences are its own problems again.
    let inside = scene.node_by_id("t3").unwrap();
    let found = find_problems(&scene, &layout, Some(inside));
    assert_eq!(found.shown.len(), 1, "{:#?}", found.shown);
    assert_eq!(found.shown[0].kind, ProblemKind::Overflow);
}
