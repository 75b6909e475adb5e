//! The Markdown summary of a snapshot run, for a CI job's summary page or a pull request: the
//! counts on one line and a table of what needs a person's eyes, with links to the images.

use std::fmt::Write;
use std::path::Path;

use super::{Counts, Outcome, Report, Verdict};
use crate::review::report::markdown::{code, escape as cell};

/// `report` as Markdown. Image links are the paths as the run wrote them; `base` (the folder
/// the summary is written to, when known) makes them relative to it so they open from there.
pub fn markdown(report: &Report, base: Option<&Path>) -> String {
    let counts = report.counts();
    let mut text = String::from("### nib snapshot");
    if report.shard.count() > 1 {
        let _ = write!(text, " (shard {})", report.shard);
    }
    let verdict = match report.verdict() {
        Verdict::Passed => "passed",
        Verdict::Failed => "failed",
        Verdict::WriteError => "could not write its images",
    };
    let _ = write!(text, "\n\n**{verdict}**: {counts}\n");
    let mut rows = Vec::new();
    for file in &report.files {
        let key = code(&file.file.key);
        if let Some(error) = &file.error {
            rows.push(format!("| {key} | | cannot be rendered: {} | |", cell(&error.to_string())));
        }
        for frame in &file.frames {
            let label = if frame.name == frame.id {
                code(&frame.id)
            } else {
                format!("{} ({})", cell(&frame.name), code(&frame.id))
            };
            let golden = link("golden", &frame.golden, base);
            let (problem, images) = match &frame.outcome {
                Outcome::Failed { mismatch, diff, actual } => {
                    let mut images = Vec::new();
                    images.extend(diff.as_deref().map(|diff| link("diff", diff, base)));
                    images.push(link("actual", actual, base));
                    images.push(golden);
                    (cell(&mismatch.to_string()), images.join(" · "))
                }
                Outcome::Missing { actual } => {
                    ("no golden (a CI run creates none)".to_owned(), link("actual", actual, base))
                }
                Outcome::RenderError(error) => (format!("cannot be rendered: {}", cell(error)), String::new()),
                Outcome::WriteError(error) => (cell(error), String::new()),
                Outcome::Passed | Outcome::Created | Outcome::Updated(_) => continue,
            };
            rows.push(format!("| {key} | {label} | {problem} | {images} |"));
        }
        for obsolete in &file.obsolete {
            let name = obsolete.golden.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let problem = match &obsolete.removed {
                Ok(true) => continue,
                Ok(false) => "obsolete golden: no frame has this id (`--update` removes it)".to_owned(),
                Err(error) => cell(&error.to_string()),
            };
            rows.push(format!("| {key} | {} | {problem} | {} |", code(&name), link("golden", &obsolete.golden, base)));
        }
    }
    if !rows.is_empty() {
        text.push_str("\n| File | Frame | Problem | Images |\n|---|---|---|---|\n");
        for row in rows {
            text.push_str(&row);
            text.push('\n');
        }
    }
    text
}

/// "12 frames in 3 files: 10 passed, 1 failed, …", with only the counts that are not zero.
impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(f, "{} in {}", plural(self.frames, "frame", "frames"), plural(self.files, "file", "files"))?;
        let mut separator = ": ";
        for (n, what) in [
            (self.passed, "passed"),
            (self.failed, "failed"),
            (self.missing, "missing"),
            (self.errors, "not rendered"),
            (self.created, "created"),
            (self.updated, "updated"),
            (self.obsolete - self.removed, "obsolete"),
            (self.removed, "removed"),
            (self.write_errors, "not written"),
        ] {
            if n > 0 {
                write!(f, "{separator}{n} {what}")?;
                separator = ", ";
            }
        }
        Ok(())
    }
}

/// A Markdown link to `path`, relative to `base` when both are relative or both absolute.
fn link(label: &str, path: &Path, base: Option<&Path>) -> String {
    let target = base.and_then(|base| relative(path, base)).unwrap_or_else(|| path.to_owned());
    let mut url = String::new();
    for c in target.to_string_lossy().chars() {
        match c {
            '\\' => url.push('/'),
            ' ' | '(' | ')' | '<' | '>' | '|' | '"' | '#' | '?' | '%' => {
                let mut bytes = [0; 4];
                for byte in c.encode_utf8(&mut bytes).bytes() {
                    let _ = write!(url, "%{byte:02X}");
                }
            }
            c => url.push(c),
        }
    }
    format!("[{label}]({url})")
}

/// `path` as seen from the folder `base`, when both are on the same footing.
fn relative(path: &Path, base: &Path) -> Option<std::path::PathBuf> {
    use std::path::Component;
    let path = crate::files::lexical_normal(path);
    let base = crate::files::lexical_normal(base);
    if path.is_absolute() != base.is_absolute() {
        return None;
    }
    let (path_parts, base_parts): (Vec<Component>, Vec<Component>) =
        (path.components().collect(), base.components().collect());
    let shared = path_parts.iter().zip(&base_parts).take_while(|(a, b)| a == b).count();
    // A base with `..` left in it cannot be climbed out of by name.
    if base_parts[shared..].iter().any(|c| matches!(c, Component::ParentDir)) {
        return None;
    }
    let mut relative = std::path::PathBuf::new();
    for _ in shared..base_parts.len() {
        relative.push("..");
    }
    for part in &path_parts[shared..] {
        relative.push(part);
    }
    Some(relative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_stay_in_their_column_and_links_survive_spaces() {
        assert_eq!(cell("a|b\n*c*"), "a\\|b\\\\n\\*c\\*");
        // Names are the author's: no control character reaches the page, no one is mentioned.
        assert_eq!(cell("\u{1b}[2K@team hi"), "\\\\u{1b}\\[2K\\@team hi");
        assert_eq!(code("a\u{7}b"), "`a\\u{7}b`");
        assert_eq!(code("ab|c"), "`ab\\|c`");
        assert_eq!(link("diff", Path::new("out dir/x (1).png"), None), "[diff](out%20dir/x%20%281%29.png)");
        assert_eq!(link("diff", Path::new("out/a/x.png"), Some(Path::new("out"))), "[diff](a/x.png)");
        assert_eq!(link("diff", Path::new("diffs/x.png"), Some(Path::new("reports"))), "[diff](../diffs/x.png)");
        assert_eq!(link("diff", Path::new("diffs/x.png"), Some(Path::new(""))), "[diff](diffs/x.png)");
    }
}
