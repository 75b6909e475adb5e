//! The JUnit XML report of a snapshot run, the format CI systems show test results from: one
//! `testsuite` per `.pen` file, one `testcase` per frame. A differing or missing image is a
//! `failure`; a frame that cannot be rendered, a file that cannot be loaded and a file that
//! cannot be written are `error`s; an obsolete golden is `skipped` (a failure in a CI run).

use std::fmt::Write;

use super::{FileReport, Obsolete, Outcome, Report};

/// `report` as JUnit XML.
pub fn junit(report: &Report) -> String {
    let suites: Vec<Suite> = report.files.iter().map(|file| Suite::of(file, report.ci)).collect();
    let total = |count: fn(&Suite) -> usize| suites.iter().map(count).sum::<usize>();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"nib snapshot{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        if report.shard.count() > 1 { format!(" {}", report.shard) } else { String::new() },
        total(|s| s.cases.len()),
        total(|s| s.count(Kind::Failure)),
        total(|s| s.count(Kind::Error)),
        total(|s| s.count(Kind::Skipped)),
        report.time.as_secs_f64(),
    );
    for suite in &suites {
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\" file=\"{}\">",
            escape(&suite.name),
            suite.cases.len(),
            suite.count(Kind::Failure),
            suite.count(Kind::Error),
            suite.count(Kind::Skipped),
            suite.cases.iter().map(|c| c.time).sum::<f64>(),
            escape(&suite.path),
        );
        for case in &suite.cases {
            let _ = write!(
                xml,
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" time=\"{:.3}\"",
                escape(&case.name),
                escape(&suite.name),
                escape(&suite.path),
                case.time
            );
            if case.result.is_none() && case.output.is_empty() {
                xml.push_str("/>\n");
                continue;
            }
            xml.push_str(">\n");
            if let Some((kind, message, details)) = &case.result {
                let (tag, kind_name) = match kind {
                    Kind::Failure => ("failure", "snapshot"),
                    Kind::Error => ("error", "error"),
                    Kind::Skipped => ("skipped", ""),
                };
                let _ = write!(xml, "      <{tag}");
                if !kind_name.is_empty() {
                    let _ = write!(xml, " type=\"{kind_name}\"");
                }
                let _ = write!(xml, " message=\"{}\"", escape(message));
                if details.is_empty() {
                    xml.push_str("/>\n");
                } else {
                    let _ = writeln!(xml, ">{}</{tag}>", escape(details));
                }
            }
            if !case.output.is_empty() {
                let _ = writeln!(xml, "      <system-out>{}</system-out>", escape(&case.output.join("\n")));
            }
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Failure,
    Error,
    Skipped,
}

struct Case {
    name: String,
    time: f64,
    /// What went wrong: the kind, a one-line message and the details.
    result: Option<(Kind, String, String)>,
    /// Lines for `system-out`: what happened to a frame that passed, and warnings.
    output: Vec<String>,
}

struct Suite {
    name: String,
    path: String,
    cases: Vec<Case>,
}

impl Suite {
    fn of(file: &FileReport, ci: bool) -> Suite {
        let mut cases = Vec::new();
        if let Some(error) = &file.error {
            cases.push(Case {
                name: "(the file)".into(),
                time: 0.0,
                result: Some((Kind::Error, "the file cannot be rendered".into(), error.to_string())),
                output: Vec::new(),
            });
        }
        for frame in &file.frames {
            let name = if frame.name == frame.id { frame.id.clone() } else { format!("{} ({})", frame.name, frame.id) };
            let golden = frame.golden.display();
            let (result, mut output) = match &frame.outcome {
                Outcome::Passed => (None, Vec::new()),
                Outcome::Created => (None, vec![format!("created the golden {golden}")]),
                Outcome::Updated(mismatch) => (None, vec![format!("rewrote the golden {golden}: {mismatch}")]),
                Outcome::Failed { mismatch, diff, actual } => {
                    let mut details = format!("golden: {golden}\nactual: {}", actual.display());
                    if let Some(diff) = diff {
                        let _ = write!(details, "\ndiff: {}", diff.display());
                    }
                    (Some((Kind::Failure, mismatch.to_string(), details)), Vec::new())
                }
                Outcome::Missing { actual } => {
                    let message = format!("there is no golden {golden}");
                    let details = format!(
                        "actual: {}\nrun nib snapshot without --ci to create the golden, look at it and commit it",
                        actual.display()
                    );
                    (Some((Kind::Failure, message, details)), Vec::new())
                }
                Outcome::RenderError(error) => {
                    (Some((Kind::Error, "the frame cannot be rendered".into(), error.clone())), Vec::new())
                }
                Outcome::WriteError(error) => (Some((Kind::Error, error.clone(), String::new())), Vec::new()),
            };
            output.extend(frame.warnings.iter().map(|w| format!("warning: {w}")));
            cases.push(Case { name, time: frame.time.as_secs_f64(), result, output });
        }
        for Obsolete { golden, removed } in &file.obsolete {
            let name = format!(
                "obsolete golden {}",
                golden.file_name().map_or_else(String::new, |n| n.to_string_lossy().into())
            );
            let (result, output) = match removed {
                Ok(true) => (None, vec![format!("removed {}: no frame has this id", golden.display())]),
                Ok(false) => {
                    let message =
                        format!("{}: no frame has this id; nib snapshot --update removes it", golden.display());
                    (Some((if ci { Kind::Failure } else { Kind::Skipped }, message, String::new())), Vec::new())
                }
                Err(error) => (Some((Kind::Error, error.to_string(), String::new())), Vec::new()),
            };
            cases.push(Case { name, time: 0.0, result, output });
        }
        Suite { name: file.file.key.clone(), path: file.file.path.display().to_string(), cases }
    }

    fn count(&self, kind: Kind) -> usize {
        self.cases.iter().filter(|c| c.result.as_ref().is_some_and(|(k, ..)| *k == kind)).count()
    }
}

/// `text` as XML character data or an attribute value: markup characters as entities, line
/// breaks and tabs as character references (an attribute keeps them only so), and characters XML
/// 1.0 cannot contain at all as U+FFFD.
pub(super) fn escape(text: &str) -> String {
    crate::markup::escape(text, crate::markup::Escaping::REPORT).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::review::pixels::Tolerance;
    use crate::review::snapshot::{FrameReport, Mismatch, PenFile, Shard};
    use std::time::Duration;

    fn frame(id: &str, name: &str, outcome: Outcome) -> FrameReport {
        let golden = format!("__snapshots__/a/{id}.png").into();
        FrameReport { id: id.into(), name: name.into(), golden, outcome, warnings: Vec::new(), time: Duration::ZERO }
    }

    #[test]
    fn the_report_is_well_formed_xml_whatever_the_names_hold() {
        let mut failing = frame(
            "x1",
            "Say \"hi\" <now> & \u{7}",
            Outcome::Failed {
                mismatch: Mismatch::Unreadable("bad\nbytes".into()),
                diff: None,
                actual: "out/x1.png".into(),
            },
        );
        failing.warnings.push(crate::diagnostic::Diagnostic::note("font-missing", "font 'Foo' is missing"));
        let report = Report {
            files: vec![FileReport {
                file: PenFile { path: "designs/a&b.pen".into(), key: "a&b.pen".into(), root: "designs".into() },
                error: None,
                warnings: Vec::new(),
                frames: vec![failing, frame("ok", "ok", Outcome::Passed)],
                obsolete: vec![Obsolete { golden: "__snapshots__/a/gone.png".into(), removed: Ok(false) }],
            }],
            shard: Shard::ALL,
            tolerance: Tolerance::default(),
            ci: false,
            time: Duration::ZERO,
        };
        let xml = junit(&report);
        let document = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let root = document.root_element();
        let totals: Vec<_> =
            ["tests", "failures", "errors", "skipped"].iter().map(|a| root.attribute(*a).unwrap()).collect();
        assert_eq!(totals, ["3", "1", "0", "1"]);
        let suite = root.first_element_child().unwrap();
        assert_eq!(suite.attribute("name"), Some("a&b.pen"));
        let case = suite.first_element_child().unwrap();
        assert_eq!(case.attribute("name"), Some("Say \"hi\" <now> & \u{fffd} (x1)"));
        let failure = case.first_element_child().unwrap();
        assert_eq!(failure.attribute("message"), Some("the golden image cannot be read: bad\nbytes"));
        assert_eq!(failure.text(), Some("golden: __snapshots__/a/x1.png\nactual: out/x1.png"));
        let output = case.children().find(|n| n.has_tag_name("system-out")).unwrap();
        assert_eq!(output.text(), Some("warning: font 'Foo' is missing"));
    }

    #[test]
    fn markup_quotes_and_control_characters_are_escaped() {
        assert_eq!(escape(r#"a<b>&"c"'d'"#), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
        assert_eq!(escape("line\nnext\ttab\r"), "line&#10;next&#9;tab&#13;");
        assert_eq!(escape("bell\u{7} nul\u{0} \u{ffff}"), "bell\u{fffd} nul\u{fffd} \u{fffd}");
        assert_eq!(escape("Écran · 画面 🎨"), "Écran · 画面 🎨");
    }
}
