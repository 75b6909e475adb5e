//! `--theme AXIS=VALUE` of `nib render`, `nib export` and `nib snapshot`: the document drawn as
//! a themed instance of its screens would look, as get_screenshot's and export's `theme` draw
//! it (`nib::resolve::themed`, the one place that makes the themed copy and checks the axes).

use nib::compile::{CompileOptions, Compiled, Compiler};
use nib::diagnostic::Diagnostic;
use nib::doc::Document;
use nib::host::Host;

/// Reads one `--theme` value: `Mode=Dark`, or `c:Mode=Dark` for the axis of the import `c`.
pub fn parse_theme(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((axis, value)) if !axis.trim().is_empty() && !value.trim().is_empty() => {
            Ok((axis.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!(
            "'{text}' is not AXIS=VALUE: give e.g. Mode=Dark, or c:Mode=Dark for an axis of the import c (`nib check FILE` lists the themes)"
        )),
    }
}

/// `document` compiled over `host` under `theme` (every top-level node selects it; nothing
/// changes when `theme` is empty), and the document that was compiled: exports read it beside
/// the Scene. An axis or value the document and its imports do not define is the error, with
/// the ones they do in its hint.
pub fn compile_under(
    host: &dyn Host,
    document: Document,
    theme: &[(String, String)],
    options: &CompileOptions,
) -> Result<(Document, Compiled), Box<Diagnostic>> {
    let mut compiler = Compiler::new(host);
    let document = if theme.is_empty() {
        document
    } else {
        let imports = compiler.imports(&document);
        nib::resolve::themed(&document, imports.as_ref(), &[], theme)?
    };
    let compiled = compiler.compile(&document, options)?;
    Ok((document, compiled))
}
