//! `--theme AXIS=VALUE` of `nib render`, `nib export` and `nib snapshot`: the document drawn as
//! a themed instance of its screens would look, as get_screenshot's and export's `theme` draw
//! it (a compile option: the compiler makes the themed copy and checks the axes).

use nib::compile::ThemeChoice;

/// Reads one `--theme` value: `Mode=Dark`, or `c:Mode=Dark` for the axis of the import `c`.
pub fn parse_theme(text: &str) -> Result<(String, String), nib::diagnostic::Diagnostic> {
    match text.split_once('=') {
        Some((axis, value)) if !axis.trim().is_empty() && !value.trim().is_empty() => {
            Ok((axis.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(super::argument_error(format!(
            "'{text}' is not AXIS=VALUE: give e.g. Mode=Dark, or c:Mode=Dark for an axis of the import c (`nib check FILE` lists the themes)"
        ))),
    }
}

/// The compile option of `--theme`: every top-level node selects `theme`; `None` when it is
/// empty (the document's own look). The compiler checks the axes and values: one it does not
/// define is its error, with the ones it does in the hint.
pub fn choice(theme: &[(String, String)]) -> Option<ThemeChoice> {
    (!theme.is_empty()).then(|| ThemeChoice { axes: theme.to_vec(), nodes: Vec::new() })
}
