//! Fonts from the network, the host's part of the text stage: Google Fonts families fetched
//! into the cache folder (`google`, for the book's family choice) and the https files a
//! document's `fonts` list names. The text stage asks through `FontFiles::fetch_family` and
//! the document font reader; it opens no connection itself.

use crate::diagnostic::Diagnostic;

#[cfg(feature = "network-fonts")]
mod google;
#[cfg(feature = "network-fonts")]
pub(super) use google::FontFetcher;
#[cfg(feature = "network-fonts")]
use google::fetch_font_file;

/// The bytes of an entry's `url` when it is a URL rather than a path: `None` for a path (the
/// host reads those), an error for any scheme but `https` and when `fetch` is off, else the
/// file fetched through the guarded HTTPS (once per process). The network is not a file: the
/// host decides whether to fetch, this module does how.
pub(crate) fn remote_font(url: &str, fetch: bool) -> Option<Result<Vec<u8>, Diagnostic>> {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme.to_ascii_lowercase())?;
    if scheme != "https" {
        let message = format!("{url}: only https URLs and paths relative to the .pen file are read");
        return Some(Err(Diagnostic::warning("font-file", message)));
    }
    Some(fetch_once(url, fetch))
}

#[cfg(feature = "network-fonts")]
fn fetch_once(url: &str, fetch: bool) -> Result<Vec<u8>, Diagnostic> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    if !fetch {
        return Err(Diagnostic::warning(
            "font-file",
            format!("{url} is not fetched: fetching is off (NIB_FONTS=offline)"),
        )
        .with_hint("give a path to the file instead"));
    }
    // Each URL is fetched once per process.
    type Fetched = Mutex<HashMap<String, Result<Vec<u8>, Diagnostic>>>;
    static FETCHED: OnceLock<Fetched> = OnceLock::new();
    let fetched = FETCHED.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(result) = fetched.lock().unwrap_or_else(|e| e.into_inner()).get(url) {
        return result.clone();
    }
    let result = fetch_font_file(url).map_err(|e| Diagnostic::warning("font-file", format!("{url}: {e}")));
    fetched.lock().unwrap_or_else(|e| e.into_inner()).insert(url.to_owned(), result.clone());
    result
}

#[cfg(not(feature = "network-fonts"))]
fn fetch_once(url: &str, _fetch: bool) -> Result<Vec<u8>, Diagnostic> {
    let message = format!("{url} is not fetched: this nib was built without fetching fonts");
    Err(Diagnostic::warning("font-file", message).with_hint("give a path to the file instead"))
}
