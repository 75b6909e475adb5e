//! Fetching a Google Fonts family into the cache folder, through the guarded HTTPS the image
//! providers use (public addresses only, timeouts, size caps, redirects checked hop by hop).
//!
//! The Google Fonts CSS API is asked for every weight and style the catalogue lists; to a
//! client it does not know, it answers one whole TrueType file per face (no unicode-range
//! slices), which is what is cached.

use crate::http::{Expect, FetchError, Fetcher, Limits, Request, encode_query};
use crate::text::cache;
use crate::text::catalog::GoogleFamily;
use crate::text::faces::{FaceData, FaceError, Origin, faces_in, sfnt_bytes};
use crate::text::files::FontFiles;
use std::path::Path;
use std::time::Duration;

/// The Google Fonts CSS API.
const GOOGLE_FONTS_API: &str = "https://fonts.googleapis.com";

/// Limits for the style sheet: a family's sheet is a few kilobytes.
const CSS_LIMITS: Limits = Limits {
    connect: Duration::from_secs(10),
    read: Duration::from_secs(15),
    deadline: Duration::from_secs(30),
    max_bytes: 256 << 10,
    max_redirects: 3,
};

/// Limits for one font file: whole CJK faces are 5–15 MB.
const FONT_LIMITS: Limits = Limits {
    connect: Duration::from_secs(10),
    read: Duration::from_secs(20),
    deadline: Duration::from_secs(120),
    max_bytes: 32 << 20,
    max_redirects: 3,
};

/// Most faces taken from one answer (nine weights, upright and italic, is 18).
const MAX_FACES: usize = 40;

/// Why a family could not be fetched.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FontFetchError {
    /// The request failed (refused address, timeout, status, size).
    #[error("{0}")]
    Http(#[from] FetchError),
    /// The style sheet names no font file.
    #[error("the Google Fonts answer for {family} names no font file")]
    NoFaces {
        /// The family.
        family: String,
    },
    /// A file is not a font.
    #[error("{0}")]
    NotAFont(#[from] FaceError),
    /// The cache folder could not be written.
    #[error("cannot write the font cache: {0}")]
    Cache(#[from] crate::files::FileError),
}

/// Fetches Google Fonts families.
#[derive(Debug, Clone)]
pub(crate) struct FontFetcher {
    http: Fetcher,
    api: String,
}

/// One face named by the style sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SheetFace {
    weight: u16,
    italic: bool,
    url: String,
}

impl FontFetcher {
    /// A fetcher for the Google Fonts API.
    pub fn google() -> FontFetcher {
        FontFetcher { http: Fetcher::default(), api: GOOGLE_FONTS_API.to_owned() }
    }

    /// A fetcher whose API is the test server at `address` (plain http to exactly that port).
    #[cfg(test)]
    pub(crate) fn for_test_server(address: std::net::SocketAddr) -> FontFetcher {
        FontFetcher { http: Fetcher::for_test_servers(&[address]), api: format!("http://{address}") }
    }

    /// Fetches every face of `family` into `folder` (see [`cache`]), written through `files`.
    pub fn fetch_family(
        &self,
        family: &GoogleFamily,
        folder: &Path,
        files: &dyn FontFiles,
    ) -> Result<(), FontFetchError> {
        let url = format!("{}/css2?family={}&display=swap", self.api, family_query(family));
        let sheet = self.http.fetch(&Request {
            url: &url,
            json_body: None,
            headers: &[],
            expect: Expect::Css,
            limits: CSS_LIMITS,
        })?;
        let faces = parse_sheet(&String::from_utf8_lossy(&sheet));
        if faces.is_empty() {
            return Err(FontFetchError::NoFaces { family: family.name.to_owned() });
        }
        for face in faces {
            // The API answers absolute URLs; a relative one is read from the sheet's address.
            let url = crate::http::join_url(&url, &face.url).unwrap_or(face.url);
            let request =
                Request { url: &url, json_body: None, headers: &[], expect: Expect::Font, limits: FONT_LIMITS };
            let bytes = sfnt_bytes(self.http.fetch(&request)?, &url)?;
            if faces_in(&bytes, || FaceData::Bytes(Default::default()), Origin::Cache, &url, None).is_empty() {
                return Err(FaceError::NotAFont { path: url, reason: "it has no face".into() }.into());
            }
            cache::store(files, folder, family.name, face.weight, face.italic, &bytes)?;
        }
        Ok(())
    }
}

/// Fetches one font file (a document's `fonts` entry) and returns it as TrueType/OpenType.
pub(crate) fn fetch_font_file(url: &str) -> Result<Vec<u8>, FontFetchError> {
    let request = Request { url, json_body: None, headers: &[], expect: Expect::Font, limits: FONT_LIMITS };
    Ok(sfnt_bytes(Fetcher::default().fetch(&request)?, url)?)
}

/// `Name+With+Spaces:ital,wght@0,400;0,700;1,400` for every weight and style the catalogue
/// lists (the API refuses styles a family does not have, and wants them sorted).
fn family_query(family: &GoogleFamily) -> String {
    let name = family.name.split(' ').map(encode_query).collect::<Vec<_>>().join("+");
    let weights = if family.weights.is_empty() { vec![400] } else { family.weights.clone() };
    if family.italic {
        let tuples: Vec<String> = [0, 1].iter().flat_map(|i| weights.iter().map(move |w| format!("{i},{w}"))).collect();
        format!("{name}:ital,wght@{}", tuples.join(";"))
    } else {
        let list: Vec<String> = weights.iter().map(u16::to_string).collect();
        format!("{name}:wght@{}", list.join(";"))
    }
}

/// The faces of a Google Fonts style sheet: each `@font-face` block's style, weight and first
/// `url(...)`, at most [`MAX_FACES`].
fn parse_sheet(sheet: &str) -> Vec<SheetFace> {
    let mut faces = Vec::new();
    for block in sheet.split("@font-face").skip(1) {
        let body = block.split('}').next().unwrap_or("");
        let value = |name: &str| {
            body.split(';').find_map(|declaration| {
                let (key, value) = declaration.split_once(':')?;
                (key.trim() == name).then(|| value.trim())
            })
        };
        let italic = value("font-style") == Some("italic");
        // A range ("100 900") keeps its first weight: the file is one face.
        let weight = value("font-weight").and_then(|w| w.split_whitespace().next()?.parse().ok()).unwrap_or(400);
        let Some(url) = value("src").and_then(|src| {
            let start = src.find("url(")? + 4;
            let end = start + src[start..].find(')')?;
            Some(src[start..end].trim().trim_matches(['\'', '"']).to_owned())
        }) else {
            continue;
        };
        let face = SheetFace { weight, italic, url };
        if !faces.contains(&face) {
            faces.push(face);
        }
        if faces.len() >= MAX_FACES {
            break;
        }
    }
    faces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::test_server::{Reply, TestServer};
    use crate::text::catalog::Category;
    use crate::text::catalog::google_family;
    use crate::text::files::MemoryFontFiles;
    use crate::text::{FontBook, FontOptions, Substitution, TextEngine, TextStyle};

    /// Where the tests' cache folder is (in memory).
    const CACHE: &str = "/cache";

    #[test]
    fn the_query_names_every_weight_and_style() {
        let lobster = google_family("Lobster").expect("in the catalogue");
        assert_eq!(family_query(lobster), "Lobster:wght@400");
        let pt = google_family("PT Serif").expect("in the catalogue");
        assert_eq!(family_query(pt), "PT+Serif:ital,wght@0,400;0,700;1,400;1,700");
    }

    #[test]
    fn style_sheets_are_read_face_by_face() {
        let sheet = "/* latin */\n@font-face {\n  font-family: 'PT Serif';\n  font-style: italic;\n  font-weight: 700;\n  font-display: swap;\n  src: url(https://fonts.gstatic.com/s/ptserif/v18/a.ttf) format('truetype');\n}\n@font-face {\n  font-family: 'PT Serif';\n  font-style: normal;\n  font-weight: 400;\n  src: url(\"https://fonts.gstatic.com/s/ptserif/v18/b.ttf\") format('truetype');\n}\n@font-face { font-style: normal; }";
        let faces = parse_sheet(sheet);
        assert_eq!(faces.len(), 2);
        assert_eq!(
            (faces[0].weight, faces[0].italic, faces[0].url.as_str()),
            (700, true, "https://fonts.gstatic.com/s/ptserif/v18/a.ttf")
        );
        assert_eq!((faces[1].weight, faces[1].italic), (400, false));
    }

    /// A bundled face as TrueType, as the API answers it.
    pub(crate) fn a_font() -> Vec<u8> {
        let path = "liberation/LiberationSans-Regular.woff2";
        let woff2 =
            std::fs::read(format!("{}/../../assets/fonts/{path}", env!("CARGO_MANIFEST_DIR"))).expect("bundled");
        sfnt_bytes(woff2, path).expect("decodes")
    }

    /// A loopback server answering like the Google Fonts API: a sheet naming `font_path`, and
    /// `font` (or `font_status`) for the file.
    fn google_like(font_path: &'static str, font: Vec<u8>, font_status: u16) -> TestServer {
        TestServer::start(move |seen| {
            if seen.target.starts_with("/css2") {
                let sheet = format!(
                    "@font-face {{ font-style: normal; font-weight: 400; src: url({font_path}) format('truetype'); }}"
                );
                Reply::bytes("text/css; charset=utf-8", sheet.into_bytes())
            } else if font_status == 200 {
                Reply::bytes("font/ttf", font.clone())
            } else {
                Reply::Full { status: font_status, headers: Vec::new(), body: Vec::new() }
            }
        })
    }

    fn lobster() -> &'static GoogleFamily {
        google_family("Lobster").expect("in the catalogue")
    }

    #[test]
    fn a_family_is_fetched_into_the_cache() {
        let server = google_like("/s/lobster/v30/lobster.ttf", a_font(), 200);
        let files = MemoryFontFiles::new();
        FontFetcher::for_test_server(server.address).fetch_family(lobster(), CACHE.as_ref(), &files).expect("fetched");
        let seen = server.seen();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].target, "/css2?family=Lobster:wght@400&display=swap");
        assert_eq!(seen[1].target, "/s/lobster/v30/lobster.ttf");
        let faces = cache::read_family(&files, CACHE.as_ref(), "Lobster");
        assert_eq!((faces.len(), faces[0].weights, faces[0].origin), (1, (400, 400), Origin::Cache));
    }

    #[test]
    fn a_missing_file_is_a_status_error_and_nothing_is_cached() {
        let server = google_like("/s/lobster/missing.ttf", Vec::new(), 404);
        let files = MemoryFontFiles::new();
        let error =
            FontFetcher::for_test_server(server.address).fetch_family(lobster(), CACHE.as_ref(), &files).unwrap_err();
        assert!(matches!(error, FontFetchError::Http(FetchError::Status { status: 404, .. })), "{error}");
        assert!(cache::read_family(&files, CACHE.as_ref(), "Lobster").is_empty());
    }

    #[test]
    fn an_oversized_file_is_refused() {
        let server = google_like("/s/lobster/huge.ttf", vec![0; (FONT_LIMITS.max_bytes + 1) as usize], 200);
        let files = MemoryFontFiles::new();
        let error =
            FontFetcher::for_test_server(server.address).fetch_family(lobster(), CACHE.as_ref(), &files).unwrap_err();
        assert!(matches!(error, FontFetchError::Http(FetchError::TooLarge { .. })), "{error}");
    }

    #[test]
    fn a_file_at_a_private_address_is_refused_before_connecting() {
        let server = google_like("https://10.0.0.1/lobster.ttf", Vec::new(), 200);
        let files = MemoryFontFiles::new();
        let error =
            FontFetcher::for_test_server(server.address).fetch_family(lobster(), CACHE.as_ref(), &files).unwrap_err();
        assert!(matches!(error, FontFetchError::Http(FetchError::Forbidden { .. })), "{error}");
        assert_eq!(server.count(), 1, "only the style sheet was asked for");
    }

    #[test]
    fn something_else_than_a_font_is_refused() {
        let server = google_like("/s/lobster/page.ttf", b"<html>".to_vec(), 200);
        let files = MemoryFontFiles::new();
        let error =
            FontFetcher::for_test_server(server.address).fetch_family(lobster(), CACHE.as_ref(), &files).unwrap_err();
        assert!(matches!(error, FontFetchError::NotAFont(_)), "{error}");
    }

    /// Font files in memory whose family fetches go to the test server at `address`: the book
    /// asks its files to fetch, as it asks the disk host's.
    #[derive(Debug)]
    struct ServedFiles {
        files: MemoryFontFiles,
        address: std::net::SocketAddr,
    }

    impl FontFiles for ServedFiles {
        fn kind(&self) -> &'static str {
            "test-server"
        }

        fn font_files(&self, folder: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
            self.files.font_files(folder)
        }

        fn files_in(&self, folder: &Path) -> Vec<std::path::PathBuf> {
            self.files.files_in(folder)
        }

        fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, crate::files::FileError> {
            self.files.read(path, limit)
        }

        fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), crate::files::FileError> {
            self.files.write(path, bytes)
        }

        fn fetch_family(
            &self,
            family: &GoogleFamily,
            folder: &Path,
        ) -> Option<Result<(), crate::text::files::FetchFailed>> {
            Some(FontFetcher::for_test_server(self.address).fetch_family(family, folder, self).map_err(Into::into))
        }

        fn system_fonts(&self) -> Vec<crate::text::SystemFont> {
            Vec::new()
        }
    }

    fn lobster_server() -> TestServer {
        google_like("/s/lobster.ttf", a_font(), 200)
    }

    fn lobster_text(book: std::sync::Arc<FontBook>) -> std::sync::Arc<crate::text::ShapedText> {
        let mut engine = TextEngine::new(book);
        let style = TextStyle { family: "Lobster".into(), ..TextStyle::of(&crate::doc::Props::default()) };
        engine.shape("Lobster", &style, None)
    }

    #[test]
    fn offline_no_socket_is_opened_and_the_family_is_replaced() {
        let server = lobster_server();
        let (options, _) = FontOptions::from_settings(false, Vec::new(), Some("offline"), None, Some(CACHE.into()));
        let files = ServedFiles { files: MemoryFontFiles::new(), address: server.address };
        let book = FontBook::unshared(options, std::sync::Arc::new(files));
        let choice = book.choose_family("Lobster");
        assert_eq!(choice.substitution, Some(Substitution::NotFetched(Category::Display)));
        assert_eq!(lobster_text(book).family, "Inter");
        assert_eq!(server.count(), 0, "NIB_FONTS=offline opens no connection");
    }

    #[test]
    fn online_a_missing_family_is_fetched_once_and_then_read_from_the_cache() {
        let server = lobster_server();
        let files: std::sync::Arc<dyn FontFiles> =
            std::sync::Arc::new(ServedFiles { files: MemoryFontFiles::new(), address: server.address });
        let (options, _) = FontOptions::from_settings(false, Vec::new(), None, None, Some(CACHE.into()));
        let book = FontBook::unshared(options.clone(), std::sync::Arc::clone(&files));
        let choice = book.choose_family("lobster");
        assert_eq!((choice.family.as_str(), choice.origin, choice.replaced.clone()), ("Lobster", Origin::Cache, None));
        assert_eq!(lobster_text(std::sync::Arc::clone(&book)).family, "Lobster");
        assert_eq!(server.count(), 2, "the style sheet and one file, once");
        // A later run finds it in the cache, offline.
        let offline = FontOptions { fetch: false, ..options };
        let later = FontBook::unshared(offline, files);
        assert_eq!(later.choose_family("Lobster").origin, Origin::Cache);
        assert_eq!(server.count(), 2);
    }
}
