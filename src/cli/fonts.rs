//! `nib fonts`: what nib can use; `nib fonts FILE`: what a document needs and how each family
//! resolves; `nib fonts fetch FAMILY…`: fill the cache ahead of an offline run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nib::resolve::SceneOptions;
use nib::text::{FontOptions, Origin};

/// The examples `nib fonts --help` ends with.
pub const EXAMPLES: &str = "Examples:
  nib fonts                                   every family nib can use, and where each comes from
  nib fonts design.pen                        the families design.pen needs and how each resolves
  nib fonts fetch \"Lobster\" \"DM Serif Display\"  cache Google Fonts families for offline runs
  nib --font-dir ./brand-fonts fonts design.pen  with your own font files
  NIB_FONTS=offline nib render design.pen     never fetch (replaced families are said on stderr)";

/// `nib fonts`'s arguments.
#[derive(Debug, clap::Args)]
pub struct FontsArgs {
    /// A .pen file: list the families it needs and how each resolves (exits 1 when one is
    /// replaced).
    file: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(subcommand)]
    action: Option<FontsAction>,
}

impl FontsArgs {
    /// Lists, or fetches, with `fonts`.
    pub fn run(self, fonts: FontOptions) -> ExitCode {
        match self.action {
            Some(FontsAction::Fetch { families }) => fetch(&families, &fonts),
            None => run(self.file.as_deref(), self.json, &fonts),
        }
    }
}

/// What `nib fonts` does besides listing.
#[derive(Debug, clap::Subcommand)]
enum FontsAction {
    /// Fetch Google Fonts families into the cache folder (NIB_FONT_CACHE, else the platform's
    /// cache folder + nib/fonts), so later runs need no network.
    Fetch {
        /// The families, as the Google Fonts catalogue names them.
        #[arg(required = true, value_name = "FAMILY")]
        families: Vec<String>,
    },
}

/// Lists the families nib can use, or what `file` needs.
pub fn run(file: Option<&Path>, json: bool, options: &FontOptions) -> ExitCode {
    match file {
        Some(file) => document(file, json, options),
        None => list(json, options),
    }
}

fn list(json: bool, options: &FontOptions) -> ExitCode {
    let book = nib::host::DiskFonts::book(options.clone());
    for warning in book.warnings() {
        super::warn(&warning);
    }
    let mut rows: Vec<(String, Origin, usize)> = Vec::new();
    for entry in book.user_families() {
        rows.push((entry.name.clone(), Origin::User, entry.faces.len()));
    }
    for family in book.families() {
        rows.push((
            family.to_owned(),
            Origin::Bundled,
            book.sources(family).iter().find(|e| e.origin == Origin::Bundled).map_or(0, |e| e.faces.len()),
        ));
    }
    let cached = cached_families(options);
    for family in &cached {
        rows.push((
            family.clone(),
            Origin::Cache,
            book.sources(family).iter().find(|e| e.origin == Origin::Cache).map_or(0, |e| e.faces.len()),
        ));
    }
    for entry in book.system_families() {
        rows.push((entry.name.clone(), Origin::System, entry.faces.len()));
    }
    if json {
        let families: Vec<serde_json::Value> = rows
            .iter()
            .map(|(name, origin, files)| serde_json::json!({"family": name, "origin": origin.as_str(), "files": files}))
            .collect();
        let answer = serde_json::json!({
            "families": families,
            "cache": options.cache_dir,
            "fetch": options.fetch && cfg!(feature = "network-fonts"),
            "fontDirs": options.font_dirs,
        });
        say!("{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    for (name, origin, files) in &rows {
        say!("{name}  ({}, {files} file{})", origin.as_str(), if *files == 1 { "" } else { "s" });
    }
    let count = |origin| rows.iter().filter(|r| r.1 == origin).count();
    say!(
        "{} families: {} bundled, {} from font folders, {} cached, {} system",
        rows.len(),
        count(Origin::Bundled),
        count(Origin::User),
        count(Origin::Cache),
        count(Origin::System)
    );
    match (&options.cache_dir, options.fetch && cfg!(feature = "network-fonts")) {
        (Some(cache), true) => say!("Google Fonts families are fetched on first use into {}", cache.display()),
        (Some(cache), false) => say!("fetching is off; cached families are read from {}", cache.display()),
        (None, _) => say!("no cache folder (set NIB_FONT_CACHE or HOME): Google Fonts families are not fetched"),
    }
    ExitCode::SUCCESS
}

/// The catalogue families that have a folder in the cache.
fn cached_families(options: &FontOptions) -> Vec<String> {
    let Some(folder) = &options.cache_dir else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut slugs: Vec<String> = entries.flatten().filter_map(|e| e.file_name().to_str().map(str::to_owned)).collect();
    slugs.sort();
    slugs
        .iter()
        .filter_map(|slug| nib::text::catalog::google_family_by_slug(slug).map(|g| g.name.to_owned()))
        .filter(|name| {
            nib::host::DiskFonts::book(options.clone()).sources(name).iter().any(|e| e.origin == Origin::Cache)
        })
        .collect()
}

fn document(file: &Path, json: bool, options: &FontOptions) -> ExitCode {
    let (document, mut compiler) = match super::documents::read_with_imports(file, options) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let scene = compiler.partial_scene(&document, SceneOptions::FULL);
    for diagnostic in compiler.font_diagnostics(&document) {
        super::warn(&diagnostic);
    }
    let families = nib::layout::fonts::families_used(&scene, None, compiler.text(&document));
    let replaced = families.iter().filter(|f| f.reason.is_some()).count();
    if json {
        say!("{}", serde_json::to_string_pretty(&serde_json::json!({ "families": families })).unwrap_or_default());
    } else {
        for family in &families {
            let nodes =
                if family.nodes == 1 { "1 text node".to_owned() } else { format!("{} text nodes", family.nodes) };
            match &family.reason {
                None => say!("{}: {} ({nodes})", family.requested, family.origin),
                Some(reason) => say!("{}: replaced by {} ({nodes}): {reason}", family.requested, family.used),
            }
        }
        say!("{} famil{}, {replaced} replaced", families.len(), if families.len() == 1 { "y" } else { "ies" });
    }
    if replaced > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// Fetches `families` into the cache.
pub fn fetch(families: &[String], options: &FontOptions) -> ExitCode {
    if !cfg!(feature = "network-fonts") {
        tell!("nib: this nib was built without fetching fonts (the network-fonts feature)");
        return ExitCode::from(2);
    }
    let Some(cache) = &options.cache_dir else {
        tell!("nib: no cache folder: set NIB_FONT_CACHE (or HOME) to say where fonts are kept");
        return ExitCode::from(2);
    };
    if !options.fetch {
        tell!("nib: fetching is off (NIB_FONTS=offline): unset it to fetch");
        return ExitCode::from(2);
    }
    let book = nib::host::DiskFonts::book(options.clone());
    let mut code = ExitCode::SUCCESS;
    for family in families {
        let Some(google) = nib::text::google_family(family) else {
            let hint = nib::text::suggest_family(family).map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default();
            tell!("nib: '{family}' is not a Google Fonts family{hint}");
            code = ExitCode::from(1);
            continue;
        };
        let sources = book.sources(google.name);
        if let Some(entry) = sources.iter().find(|e| e.origin == Origin::Cache) {
            say!("{}: already cached ({} files)", google.name, entry.faces.len());
            continue;
        }
        if sources.iter().any(|e| e.origin == Origin::Bundled) && !nib::text::PARTIAL_FAMILIES.contains(&google.name) {
            say!("{}: bundled with nib, nothing to fetch", google.name);
            continue;
        }
        match book.fetch_family(google.name) {
            Ok(entry) => say!("{}: fetched {} files into {}", google.name, entry.faces.len(), cache.display()),
            Err(reason) => {
                tell!("nib: '{}' could not be fetched: {reason}", google.name);
                code = ExitCode::from(1);
            }
        }
    }
    code
}
