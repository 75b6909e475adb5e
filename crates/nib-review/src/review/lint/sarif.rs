//! Lint findings as a SARIF 2.1.0 log, the format GitHub code scanning reads: upload it from CI
//! and each finding shows on the pull request at the line of the node it concerns.

use serde_json::{Value, json};

use super::RULES;
use crate::diagnostic::{Diagnostic, Severity};

/// The findings of one file, with the file as the log names it (a path relative to the
/// repository, `/`-separated).
pub struct FileFindings<'a> {
    /// The file's URI, relative.
    pub uri: String,
    /// Its findings, located (`Diagnostic::locate`) so they carry lines.
    pub findings: &'a [Diagnostic],
}

/// A SARIF 2.1.0 log of one run of nib's lint over `files`.
pub fn log(files: &[FileFindings]) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, description)| {
            json!({
                "id": id,
                "shortDescription": { "text": description },
            })
        })
        .collect();
    let mut results = Vec::new();
    for file in files {
        for finding in file.findings {
            let rule_index = RULES.iter().position(|(id, _)| *id == finding.code);
            let mut text = finding.message.clone();
            for hint in &finding.hints {
                text.push_str(" Fix: ");
                text.push_str(hint);
            }
            let mut physical = json!({ "artifactLocation": { "uri": file.uri } });
            if let Some((line, column)) = finding.span.as_ref().and_then(|s| s.line_column) {
                physical["region"] = json!({ "startLine": line, "startColumn": column });
            }
            let mut location = json!({ "physicalLocation": physical });
            if let Some(node) = &finding.node {
                location["logicalLocations"] = json!([{ "fullyQualifiedName": node, "kind": "element" }]);
            }
            let mut result = json!({
                "ruleId": finding.code,
                "level": level(finding.severity),
                "message": { "text": text },
                "locations": [location],
            });
            if let Some(index) = rule_index {
                result["ruleIndex"] = json!(index);
            }
            results.push(result);
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "nib", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Note => "note",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}
