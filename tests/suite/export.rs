//! Exports checked against nib's own PNG by independent readers: SVG rasterised by resvg, PDF
//! checked by qpdf and poppler (pdftotext, pdffonts, pdftoppm), tokens for every corpus
//! variable and theme.

use crate::common::export as export_check;

use crate::common;
use std::process::Command;

use export_check::{FrameScore, svg_scores};

/// Mean SSIM the SVG of the corpus frames must reach against nib's PNG (issue 15).
const SVG_MEAN_SSIM: f64 = 0.98;

/// SSIM a PDF page of the deck rasterised by poppler must reach against nib's PNG (issue 15;
/// its pages score 0.9752–0.9980).
const PDF_PAGE_SSIM: f64 = 0.97;

/// Files of the corpus whose frames `cargo test` checks: gradients, shapes, rotation, variables,
/// components, a full design system with icons and shadows. The whole corpus runs in
/// `svg_of_the_whole_corpus_matches_the_png` (ignored: minutes in a debug build).
const SVG_SAMPLE: &[&str] = &[
    "Pregum__pencil_viewer__public__samples__gradient.pen",
    "Pregum__pencil_viewer__public__samples__shapes.pen",
    "Pregum__pencil_viewer__public__samples__rotation.pen",
    "Pregum__pencil_viewer__public__samples__variables.pen",
    "Pregum__pencil_viewer__public__samples__components.pen",
    "leandrohsilveira__ems__specs__authentication-service__design.pen",
    "Lenindesign__cd-mmp__pencil-new.pen",
];

fn scores_of(names: &[String]) -> Vec<(String, FrameScore)> {
    let mut all = Vec::new();
    for name in names {
        for score in svg_scores(&common::Fixture::corpus(name)) {
            all.push((name.clone(), score));
        }
    }
    all
}

fn mean(scores: &[(String, FrameScore)]) -> f64 {
    scores.iter().map(|(_, s)| s.ssim).sum::<f64>() / scores.len().max(1) as f64
}

fn worst(scores: &[(String, FrameScore)]) -> String {
    let mut sorted: Vec<&(String, FrameScore)> = scores.iter().collect();
    sorted.sort_by(|a, b| a.1.ssim.total_cmp(&b.1.ssim));
    sorted.iter().take(8).map(|(file, s)| format!("  {:.4} {file} {}\n", s.ssim, s.id)).collect()
}

#[test]
fn svg_of_sample_frames_rasterised_by_resvg_matches_the_png() {
    let names: Vec<String> = SVG_SAMPLE.iter().map(|s| (*s).to_owned()).collect();
    let scores = scores_of(&names);
    assert!(scores.len() >= 10, "the sample has frames: {}", scores.len());
    let mean = mean(&scores);
    eprintln!("SVG vs PNG, {} sample frames: mean SSIM {mean:.4}", scores.len());
    assert!(mean >= SVG_MEAN_SSIM, "mean SSIM {mean:.4} over {} frames; worst:\n{}", scores.len(), worst(&scores));
}

/// The figure for the notes: `cargo test --test suite -- --ignored --nocapture export::`.
#[test]
#[ignore = "the whole corpus: minutes in a debug build"]
fn svg_of_the_whole_corpus_matches_the_png() {
    let mut names: Vec<String> = std::fs::read_dir(common::fixtures())
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".pen"))
        .collect();
    names.sort();
    let scores = scores_of(&names);
    let mean = mean(&scores);
    println!(
        "SVG vs PNG over {} frames of {} files: mean SSIM {mean:.4}\nworst:\n{}",
        scores.len(),
        names.len(),
        worst(&scores)
    );
    assert!(mean >= SVG_MEAN_SSIM);
}

#[test]
fn svg_exports_are_deterministic_and_carry_node_ids() {
    let fixture = common::Fixture::corpus("Pregum__pencil_viewer__public__samples__gradient.pen");
    let once = export_check::svg_markup(&fixture);
    let twice = export_check::svg_markup(&fixture);
    assert_eq!(once, twice, "same document, same bytes");
    let first = &once[0];
    roxmltree::Document::parse(first).expect("well-formed XML");
    assert!(first.contains("data-pen-id=\""), "{}", &first[..first.len().min(300)]);
    assert!(first.contains("Gradient"), "gradients are SVG paint servers");
}

/// The tool at `name`, or `None` (and a message saying what to install) when it is absent.
fn tool(name: &str) -> Option<&'static str> {
    let found = Command::new(name).arg("-v").output().is_ok();
    // CI installs the tools and sets this: there a missing tool is a failure, not a skip.
    assert!(
        found || std::env::var_os("NIB_REQUIRE_TOOLS").is_none(),
        "`{name}` is not installed (apt-get install poppler-utils qpdf) and NIB_REQUIRE_TOOLS is set"
    );
    if !found {
        eprintln!("SKIPPED: `{name}` is not installed (apt-get install poppler-utils qpdf); .ci/run installs it");
    }
    found.then_some(match name {
        "qpdf" => "qpdf",
        "pdftotext" => "pdftotext",
        "pdffonts" => "pdffonts",
        _ => "pdftoppm",
    })
}

fn run(program: &str, args: &[&str]) -> String {
    let output = Command::new(program).args(args).output().expect("runs");
    assert!(output.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn pdf_of_a_deck_is_valid_searchable_embeds_fonts_and_looks_like_the_png() {
    let (Some(qpdf), Some(pdftotext), Some(pdffonts), Some(pdftoppm)) =
        (tool("qpdf"), tool("pdftotext"), tool("pdffonts"), tool("pdftoppm"))
    else {
        return;
    };
    let fixture = common::Fixture::corpus("Pregum__pencil_viewer__public__samples__mobile-app.pen");
    let deck = export_check::pdf_deck(&fixture);
    assert!(deck.pages.len() >= 2, "a multi-frame document: {}", deck.pages.len());
    let again = export_check::pdf_deck(&fixture);
    assert!(deck.pdf == again.pdf, "the same document gives the same PDF bytes");
    let folder = tempfile::tempdir().expect("temp");
    let pdf = folder.path().join("deck.pdf");
    std::fs::write(&pdf, &deck.pdf).expect("write");
    let pdf_arg = pdf.to_str().expect("utf-8 path");

    run(qpdf, &["--check", pdf_arg]);
    let info = run("pdfinfo", &[pdf_arg]);
    assert!(info.contains(&format!("Pages:           {}", deck.pages.len())), "{info}");

    let text = run(pdftotext, &[pdf_arg, "-"]);
    for word in &deck.words {
        assert!(text.contains(word.as_str()), "pdftotext finds '{word}' in:\n{text}");
    }
    let fonts = run(pdffonts, &[pdf_arg]);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(!rows.is_empty(), "fonts are used: {fonts}");
    for row in rows {
        // name type encoding emb sub uni object: emb and sub are "yes".
        let fields: Vec<&str> = row.split_whitespace().collect();
        let yes = fields.iter().filter(|f| **f == "yes").count();
        assert!(yes >= 2, "every font embedded as a subset: {row}");
        assert!(fields[0].contains('+'), "subset fonts are named ABCDEF+Name: {row}");
    }

    let scores = page_scores(pdftoppm, &pdf, &deck.pages);
    eprintln!("PDF pages (pdftoppm) vs PNG: SSIM {scores:.4?}");
    // Every page, the loose one-line labels too: the PDF draws nib's glyphs where nib put them
    // (drawn through SVG and usvg's own text layout, the labels scored 0.55–0.94).
    assert!(scores.iter().all(|s| *s >= PDF_PAGE_SSIM), "pages vs nib's PNG: SSIM {scores:.4?}");
}

/// Rasterises every page of `pdf` with poppler at 96 dpi and scores each against `pngs`, the
/// PNGs of its frames in page order.
fn page_scores(pdftoppm: &str, pdf: &std::path::Path, pngs: &[tiny_skia::Pixmap]) -> Vec<f64> {
    let folder = tempfile::tempdir().expect("temp");
    let prefix = folder.path().join("page");
    run(pdftoppm, &["-png", "-r", "96", pdf.to_str().expect("utf-8"), prefix.to_str().expect("utf-8")]);
    let mut rasters: Vec<std::path::PathBuf> = std::fs::read_dir(folder.path())
        .expect("list")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    rasters.sort();
    assert_eq!(rasters.len(), pngs.len(), "pdftoppm wrote every page");
    pngs.iter()
        .zip(&rasters)
        .map(|(png, raster)| {
            let raster = nib::render::decode_image(&std::fs::read(raster).expect("read")).expect("decodes");
            // poppler rounds a page's pixels its own way: a 1 px line's page is 2 px high there.
            let near = |a: u32, b: u32| a.abs_diff(b) <= 1;
            assert!(
                near(raster.width(), png.width()) && near(raster.height(), png.height()),
                "page size is the frame's: {}×{} vs {}×{}",
                raster.width(),
                raster.height(),
                png.width(),
                png.height()
            );
            nib::review::ssim::ssim(png, &raster)
        })
        .collect()
}

/// Files whose PDF pages are compared with their PNGs: gradients and layer blurs, shapes and
/// strokes, shadows, icons and Japanese text in a Latin family (nib's fallback faces).
const PDF_SAMPLE: &[&str] = &[
    "Pregum__pencil_viewer__public__samples__gradient.pen",
    "Pregum__pencil_viewer__public__samples__shapes.pen",
    "Pregum__pencil_viewer__public__samples__mobile-app.pen",
    "open-pencil__open-pencil__tests__fixtures__pencil_file.pen",
];

/// Mean SSIM of those pages (0.9889 when the PDF was drawn from the display list; 0.9655 when it
/// was drawn from the SVG export, whose blurs, fallback faces and text layout were usvg's).
const PDF_SAMPLE_MEAN_SSIM: f64 = 0.985;

/// Lowest SSIM of one of those pages (0.9478 from the display list; 0.6804 through SVG).
const PDF_SAMPLE_PAGE_SSIM: f64 = 0.94;

#[test]
fn pdf_pages_of_blurs_shadows_gradients_and_fallback_text_look_like_the_png() {
    let Some(pdftoppm) = tool("pdftoppm") else { return };
    let mut all = Vec::new();
    for name in PDF_SAMPLE {
        let deck = export_check::pdf_deck(&common::Fixture::corpus(name));
        let folder = tempfile::tempdir().expect("temp");
        let pdf = folder.path().join("deck.pdf");
        std::fs::write(&pdf, &deck.pdf).expect("write");
        let scores = page_scores(pdftoppm, &pdf, &deck.pages);
        eprintln!("{name}: SSIM {scores:.4?}");
        all.extend(scores.into_iter().map(|score| (*name, score)));
    }
    let mean = all.iter().map(|(_, s)| s).sum::<f64>() / all.len() as f64;
    eprintln!("{} pages, mean SSIM {mean:.4}", all.len());
    let low: Vec<_> = all.iter().filter(|(_, s)| *s < PDF_SAMPLE_PAGE_SSIM).collect();
    assert!(low.is_empty(), "pages below {PDF_SAMPLE_PAGE_SSIM}: {low:?}");
    assert!(mean >= PDF_SAMPLE_MEAN_SSIM, "mean SSIM {mean:.4} < {PDF_SAMPLE_MEAN_SSIM}");
}

#[test]
fn tokens_carry_every_variable_and_theme_of_the_corpus_design_systems() {
    let mut checked = 0;
    for entry in std::fs::read_dir(common::fixtures()).expect("corpus") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        if !name.ends_with(".pen") {
            continue;
        }
        let (document, library) = common::load_with_imports(&name);
        let Some(variables) = document.variables() else { continue };
        if variables.iter().next().is_none() {
            continue;
        }
        checked += 1;
        let set = nib::export::tokens::TokenSet::of(&document, &library);
        let css = set.css(":root");
        let json: serde_json::Value = serde_json::from_str(&set.json()).expect("tokens-json is JSON");
        let tailwind = set.tailwind();
        export_check::check_css_parses(&css).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (variable, _) in variables.iter() {
            let property = set.property(variable).unwrap_or_else(|| panic!("{name}: {variable} is a token"));
            assert!(css.contains(&format!("{property}:")), "{name}: {variable} in tokens-css");
            assert!(export_check::json_has_token(&json, variable), "{name}: {variable} in tokens-json");
            assert!(
                tailwind.contains(&format!("var({property},")) || tailwind.contains(&format!("// {variable} =")),
                "{name}: {variable} in tailwind"
            );
        }
        for (axis, values) in document.themes().map(|t| t.iter().collect::<Vec<_>>()).unwrap_or_default() {
            let listed = &json["$extensions"]["com.nib"]["themeAxes"][axis];
            for value in values {
                assert!(
                    listed.as_array().is_some_and(|l| l.iter().any(|v| v == value)),
                    "{name}: {axis}={value} in tokens-json"
                );
                assert!(
                    set.combinations.iter().any(|c| c.values.iter().any(|(a, v)| a == axis && v == value)),
                    "{name}: {axis}={value} is a theme combination"
                );
            }
        }
        for (index, combination) in set.combinations.iter().enumerate().skip(1) {
            let changes = set.tokens.iter().any(|t| t.alias.is_none() && t.values[index] != t.values[0]);
            assert!(!changes || css.contains(&combination.selector()), "{name}: {} as a selector", combination.label());
        }
    }
    assert!(checked >= 5, "the corpus has design systems with variables: {checked}");
}

/// Mean SSIM Chromium's screenshots of the HTML export must reach against nib's PNG.
const HTML_MEAN_SSIM: f64 = 0.95;

/// Share of nodes whose element box must be within [`BOX_TOLERANCE`] of nib's layout.
const HTML_BOXES_MATCHING: f64 = 0.95;

/// How far (CSS pixels) an element's box may be from nib's layout box and still match.
const BOX_TOLERANCE: f32 = 1.0;

/// Mean SSIM and share of matching boxes the pages with Tailwind classes must reach: issue 49's
/// budget, 0.97 and 98 % (they reach 0.9731 and 99.7 %, as the HTML/CSS pages: 0.9733), so a
/// class that stops spelling its declaration fails.
const TAILWIND_MEAN_SSIM: f64 = 0.97;
const TAILWIND_BOXES_MATCHING: f64 = 0.98;

/// The same for the React pages (0.9712 and 99.7 % over the 382 frames that are not
/// components): a text a prop sets leaves nib's measured width out (it follows the prop), so
/// the browser's narrower glyph sums move what follows such texts a fraction of a pixel.
const REACT_MEAN_SSIM: f64 = 0.97;
const REACT_BOXES_MATCHING: f64 = 0.98;

/// One page the browser check looks at.
struct Page {
    format: nib::export::job::Format,
    file: String,
    id: String,
    png: std::sync::Arc<tiny_skia::Pixmap>,
    /// Node id → box relative to the frame, for nodes drawn without rotation or flips.
    boxes: std::sync::Arc<Vec<(String, [f32; 4])>>,
    html: std::path::PathBuf,
    shot: std::path::PathBuf,
    found: std::path::PathBuf,
}

/// Tailwind's command line (`tailwindcss` from `@tailwindcss/cli`, which `.ci/run` installs
/// pinned into tests/browser/node_modules), or `NIB_TAILWIND`; `None` when it is not there.
fn tailwind_cli() -> Option<std::path::PathBuf> {
    let installed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/node_modules/.bin/tailwindcss");
    std::env::var_os("NIB_TAILWIND").map(std::path::PathBuf::from).or(Some(installed)).filter(|path| path.is_file())
}

/// Compiles the Tailwind input of an html-tailwind export in `folder` into the stylesheet its
/// pages link.
fn compile_tailwind(cli: &std::path::Path, folder: &std::path::Path) {
    use nib::export::job::{COMPILED_CSS, TAILWIND_INPUT};
    // `@import "tailwindcss"` is found as a project finds it: in a node_modules above the
    // stylesheet (the one the command line came from).
    let modules = cli.parent().and_then(std::path::Path::parent).expect("node_modules/.bin/tailwindcss");
    #[cfg(unix)]
    if !folder.join("node_modules").exists() {
        std::os::unix::fs::symlink(modules.canonicalize().expect("node_modules"), folder.join("node_modules"))
            .expect("node_modules linked");
    }
    let output = Command::new(cli)
        .current_dir(folder)
        .args(["-i", TAILWIND_INPUT, "-o", COMPILED_CSS])
        .output()
        .expect("tailwindcss runs");
    assert!(output.status.success(), "tailwindcss: {}", String::from_utf8_lossy(&output.stderr));
    // Every class a page carries is one Tailwind made a rule for (a misspelt utility is
    // silently dropped: `-outline-offset-0.5` drew no outline where the CSS page had one).
    let css = std::fs::read_to_string(folder.join(COMPILED_CSS)).expect("compiled");
    let class = regex::Regex::new(r#"class="([^"]*)""#).expect("regex");
    for entry in std::fs::read_dir(folder).expect("folder") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let html = std::fs::read_to_string(&path).expect("page");
        for list in class.captures_iter(&html) {
            for name in list[1].split(' ').filter(|n| *n != nib::export::job::TAILWIND_PAGE_CLASS) {
                assert!(css.contains(&format!(".{}", css_escaped(name))), "{}: no rule for `{name}`", path.display());
            }
        }
    }
}

/// A class name as a CSS selector writes it (`w-[12px]` → `w-\[12px\]`).
fn css_escaped(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        match c {
            c if i == 0 && c.is_ascii_digit() => out.push_str(&format!("\\3{c} ")),
            c if c.is_alphanumeric() || c == '-' || c == '_' => out.push(c),
            c => {
                out.push('\\');
                out.push(c);
            }
        }
    }
    out
}

/// The tools the React output is proven with (`.ci/run` installs them pinned with npm ci in
/// tests/browser): esbuild bundles it with react and react-dom, tsc type-checks it.
fn react_tools() -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/node_modules/.bin");
    let (esbuild, tsc) = (bin.join("esbuild"), bin.join("tsc"));
    (esbuild.is_file() && tsc.is_file() && tailwind_cli().is_some()).then_some((esbuild, tsc))
}

/// Mounts every page of the React output in `folder` in a page of its own (`mount-<Page>.html`
/// with its bundle, made by esbuild with react and react-dom, rendered synchronously so the
/// screenshot sees it), and answers the page of each frame, by the id its root carries.
fn mount_react(folder: &std::path::Path) -> std::collections::HashMap<String, String> {
    let (esbuild, _) = react_tools().expect("esbuild");
    let root_id = regex::Regex::new(r#"data-pen-id="([^"]+)""#).expect("regex");
    let mut page_of = std::collections::HashMap::new();
    let mut entries = Vec::new();
    // A document of components only has no pages.
    for entry in std::fs::read_dir(folder.join("pages")).into_iter().flatten() {
        let path = entry.expect("entry").path();
        let name = path.file_stem().expect("stem").to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).expect("page");
        let Some(id) = root_id.captures(&source).map(|c| c[1].to_owned()) else { continue };
        std::fs::write(
            folder.join(format!("mount-{name}.tsx")),
            format!(
                "import {{ flushSync }} from \"react-dom\";\nimport {{ createRoot }} from \"react-dom/client\";\nimport {{ {name} }} from \"./pages/{name}\";\n\nconst root = createRoot(document.getElementById(\"root\")!);\nflushSync(() => root.render(<{name} />));\n"
            ),
        )
        .expect("entry");
        std::fs::write(
            folder.join(format!("mount-{name}.html")),
            format!(
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<link rel=\"stylesheet\" href=\"styles.css\">\n</head>\n<body>\n<div id=\"root\"></div>\n<script src=\"mount-{name}.js\"></script>\n</body>\n</html>\n"
            ),
        )
        .expect("page");
        entries.push(format!("mount-{name}.tsx"));
        page_of.insert(id, format!("mount-{name}.html"));
    }
    if entries.is_empty() {
        return page_of;
    }
    let modules = esbuild.parent().and_then(std::path::Path::parent).expect("node_modules");
    #[cfg(unix)]
    if !folder.join("node_modules").exists() {
        std::os::unix::fs::symlink(modules.canonicalize().expect("node_modules"), folder.join("node_modules"))
            .expect("node_modules linked");
    }
    bundle_react(&esbuild, folder, &entries);
    page_of
}

/// TypeScript checks every React output under `folder` at once, strictly.
fn type_check_react(folder: &std::path::Path) {
    let (_, tsc) = react_tools().expect("tsc");
    type_check_react_with(&tsc, folder);
}

/// TypeScript's compiler, when `npm ci --prefix tests/browser` installed it (a failure when
/// NIB_REQUIRE_TOOLS is set, as in CI).
pub(crate) fn typescript() -> Option<std::path::PathBuf> {
    let tsc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/node_modules/.bin/tsc");
    if tsc.is_file() {
        return Some(tsc);
    }
    assert!(std::env::var_os("NIB_REQUIRE_TOOLS").is_none(), "tsc is not installed: npm ci --prefix tests/browser");
    println!("SKIPPED tsc: npm ci --prefix tests/browser installs it");
    None
}

/// `tsc` checks the React output under `folder` as strictly as a React project would: strict,
/// and no local or parameter that is never read (a prop a component declares and ignores).
pub(crate) fn type_check_react_with(tsc: &std::path::Path, folder: &std::path::Path) {
    let modules = tsc.parent().and_then(std::path::Path::parent).expect("node_modules");
    #[cfg(unix)]
    if !folder.join("node_modules").exists() {
        std::os::unix::fs::symlink(modules.canonicalize().expect("node_modules"), folder.join("node_modules"))
            .expect("node_modules linked");
    }
    let config = serde_json::json!({
        "compilerOptions": {
            "strict": true, "noEmit": true, "jsx": "react-jsx", "module": "esnext", "moduleResolution": "bundler",
            "target": "es2022", "lib": ["es2022", "dom", "dom.iterable"], "skipLibCheck": true,
            "isolatedModules": true, "noUnusedLocals": true, "noUnusedParameters": true,
            // The app's main.tsx finds the pages with Vite's import.meta.glob.
            "types": if folder.join("main.tsx").exists() { vec!["vite/client"] } else { Vec::new() }
        },
        "include": ["**/*.ts", "**/*.tsx"],
        "exclude": ["**/node_modules"]
    });
    std::fs::write(folder.join("tsconfig.json"), config.to_string()).expect("tsconfig");
    let started = std::time::Instant::now();
    let output = Command::new(tsc).current_dir(folder).args(["-p", "tsconfig.json"]).output().expect("tsc runs");
    assert!(
        output.status.success(),
        "tsc --strict --noUnusedLocals --noUnusedParameters: {}{}",
        String::from_utf8_lossy(&output.stdout).chars().take(4000).collect::<String>(),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("tsc --strict checked the React output in {:.1} s", started.elapsed().as_secs_f64());
}

/// The pages of `name`'s frames in each of `formats`, written into `out`, with nib's PNG and
/// layout boxes (made once per frame).
fn html_pages(name: &str, out: &std::path::Path, formats: &[nib::export::job::Format]) -> Vec<Page> {
    use nib::export::job::{ExportSettings, Format, Targets, run};
    use nib::render::{RenderOptions, RenderTarget, render};
    let fixture = common::Fixture::corpus(name);
    let (scene, layout) = (&*fixture.compiled.scene, &*fixture.compiled.layout);
    let mut text = fixture.compiled.text.fork();
    let mut reports = Vec::new();
    for format in formats {
        let folder = out.join(format.name()).join(name.trim_end_matches(".pen"));
        std::fs::create_dir_all(&folder).expect("folder");
        let mut settings =
            ExportSettings { output_folder: Some(folder.clone()), ..ExportSettings::new(*format, Targets::Frames) };
        // Boxes are found by their ids; the app's files are built in the landing page's check.
        if *format == Format::React {
            settings.look.ids = true;
            settings.look.scaffold = false;
        }
        let sink = |file: &str, bytes: &[u8]| -> Result<(), nib::export::job::SinkError> {
            let path = folder.join(file);
            std::fs::create_dir_all(path.parent().expect("parent"))?;
            Ok(std::fs::write(path, bytes)?)
        };
        let report = run(&fixture.compiled, name, &settings, &sink, &|_, _| {}).expect("the pages are made");
        // The page of each frame: the HTML file the export wrote, or (React) the page made to
        // mount the frame's component.
        let mut page_of: std::collections::HashMap<String, String> = report
            .files
            .iter()
            .filter(|f| f.name.ends_with(".html"))
            .filter_map(|f| Some((f.node.clone()?, f.name.clone())))
            .collect();
        match format {
            Format::HtmlTailwind => compile_tailwind(&tailwind_cli().expect("tailwindcss"), &folder),
            Format::React => {
                page_of = mount_react(&folder);
                compile_tailwind(&tailwind_cli().expect("tailwindcss"), &folder);
            }
            _ => {}
        }
        reports.push((*format, folder, page_of));
    }
    let mut images = nib::host::Host::pictures(fixture.host.as_ref());
    let options = RenderOptions::default();
    let mut pages = Vec::new();
    for frame in nib::compile::frames::frames(scene, layout) {
        let target = RenderTarget::Node(frame.key);
        let Ok(rendered) = render(scene, layout, &mut text, &mut images, target, &options) else { continue };
        let frame_box = layout.node_box(frame.key).expect("laid out");
        let Some(png) = frame_box_of(scene, layout, target, &rendered.pixmap) else { continue };
        let mut boxes = Vec::new();
        let mut stack = vec![frame.key];
        while let Some(key) = stack.pop() {
            let props = &scene.node(key).props;
            let turned = props.literal::<f64>(&nib::doc::Key::Rotation).is_some_and(|r| r % 360.0 != 0.0)
                || props.literal::<bool>(&nib::doc::Key::FlipX) == Some(true)
                || props.literal::<bool>(&nib::doc::Key::FlipY) == Some(true);
            if turned {
                continue;
            }
            if let Some(b) = layout.node_box(key) {
                boxes.push((
                    scene.node(key).id.clone(),
                    [b.left - frame_box.left, b.top - frame_box.top, b.width, b.height],
                ));
            }
            stack.extend(scene.children(key));
        }
        let (png, boxes) = (std::sync::Arc::new(png), std::sync::Arc::new(boxes));
        for (format, folder, page_of) in &reports {
            let Some(page) = page_of.get(&frame.id) else { continue };
            let stem = page.trim_end_matches(".html").to_owned();
            pages.push(Page {
                format: *format,
                file: name.to_owned(),
                id: frame.id.clone(),
                png: std::sync::Arc::clone(&png),
                boxes: std::sync::Arc::clone(&boxes),
                html: folder.join(page),
                shot: folder.join(format!("{stem}.chromium.png")),
                found: folder.join(format!("{stem}.boxes.json")),
            });
        }
    }
    pages
}

/// The part of nib's picture of `target` (a frame) that is the frame's own box: nib's PNG
/// reaches as far as shadows do, a page shows the frame's box.
fn frame_box_of(
    scene: &nib::resolve::Scene,
    layout: &nib::layout::Layout,
    target: nib::render::RenderTarget,
    picture: &tiny_skia::Pixmap,
) -> Option<tiny_skia::Pixmap> {
    let nib::render::RenderTarget::Node(key) = target else { return None };
    let frame_box = layout.node_box(key)?;
    let bounds = nib::render::target_bounds(scene, layout, target).ok()?;
    let (dx, dy) = ((frame_box.left - bounds.left()).round() as i32, (frame_box.top - bounds.top()).round() as i32);
    let (width, height) = (frame_box.width.ceil().max(1.0) as u32, frame_box.height.ceil().max(1.0) as u32);
    tiny_skia::IntRect::from_xywh(dx, dy, width, height).and_then(|r| picture.clone_rect(r))
}

/// The browser check (`.ci/run` runs it with chromium and Tailwind installed): the HTML/CSS and
/// the html-tailwind pages of every corpus frame, screenshotted by headless Chromium in one
/// session (`.ci/chromium_shots.py`), match nib's PNG (mean SSIM) and their elements' boxes
/// match nib's layout. Without Tailwind's command line the Tailwind half is SKIPPED (a failure
/// when NIB_REQUIRE_TOOLS is set, as in CI).
#[test]
#[ignore = "needs chromium and tailwindcss; .ci/run installs them and runs this"]
fn html_of_every_corpus_frame_in_chromium_matches_the_png_and_the_layout() {
    use nib::export::job::Format;
    let out = tempfile::tempdir().expect("temp");
    let mut names: Vec<String> = std::fs::read_dir(common::fixtures())
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".pen"))
        .filter(|n| {
            std::env::var("NIB_BROWSER_ONLY").is_ok_and(|only| n.contains(&only))
                || std::env::var_os("NIB_BROWSER_ONLY").is_none()
        })
        .collect();
    names.sort();
    let mut formats = vec![Format::Html];
    match react_tools() {
        Some(_) => formats.extend([Format::HtmlTailwind, Format::React]),
        None if std::env::var_os("NIB_REQUIRE_TOOLS").is_some() => {
            panic!(
                "tailwindcss, esbuild and tsc are not installed (npm ci in tests/browser) and NIB_REQUIRE_TOOLS is set"
            )
        }
        None => println!("SKIPPED html-tailwind and react: npm ci --prefix tests/browser installs their tools"),
    }
    let started = std::time::Instant::now();
    // Files side by side, two cores' worth (each export is parallel inside too).
    let pages: Vec<Page> = {
        use rayon::prelude::*;
        let made: Vec<Vec<Page>> = names.par_iter().map(|name| html_pages(name, out.path(), &formats)).collect();
        made.into_iter().flatten().collect()
    };
    if formats.contains(&Format::React) {
        type_check_react(&out.path().join(Format::React.name()));
    }
    println!("exported and rendered {} pages in {:.1} s", pages.len(), started.elapsed().as_secs_f64());
    let started = std::time::Instant::now();
    let manifest: Vec<serde_json::Value> = pages
        .iter()
        .map(|p| {
            serde_json::json!({ "html": p.html, "width": p.png.width(), "height": p.png.height(), "png": p.shot, "boxes": p.found })
        })
        .collect();
    let manifest_path = out.path().join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).expect("json")).expect("write");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/chromium_shots.py");
    // Two browsers at once: CI has two cores.
    let status = Command::new("python3").arg(script).arg(&manifest_path).arg("2").status().expect("python3 runs");
    assert!(status.success(), "chromium_shots.py failed");
    println!("chromium screenshotted them in {:.1} s", started.elapsed().as_secs_f64());
    // Where the Tailwind page differs from the CSS one, the classes say something else (asked
    // for with NIB_BROWSER_DIFF: it costs a comparison of every page).
    let mut apart: Vec<(f64, String)> = Vec::new();
    let compare_formats = std::env::var_os("NIB_BROWSER_DIFF").is_some();
    for tailwind in pages.iter().filter(|p| compare_formats && p.format == Format::HtmlTailwind) {
        let Some(css) =
            pages.iter().find(|p| p.format == Format::Html && p.file == tailwind.file && p.id == tailwind.id)
        else {
            continue;
        };
        let read = |page: &Page| nib::render::decode_image(&std::fs::read(&page.shot).expect("shot")).expect("png");
        let score = nib::review::ssim::ssim(&read(css), &read(tailwind));
        if score < 0.999 {
            apart.push((score, format!("{} {}", tailwind.file, tailwind.id)));
        }
    }
    apart.sort_by(|a, b| a.0.total_cmp(&b.0));
    if !apart.is_empty() {
        println!(
            "html-tailwind pages that differ from their html page ({}):\n{}",
            apart.len(),
            apart.iter().take(10).map(|(s, n)| format!("  {s:.4} {n}\n")).collect::<String>()
        );
    }
    for format in formats {
        let started = std::time::Instant::now();
        // Each page: its SSIM, and its boxes compared, matching and missing (pages side by side).
        let scored: Vec<(f64, String, usize, usize, usize)> = {
            use rayon::prelude::*;
            let of_format: Vec<&Page> = pages.iter().filter(|p| p.format == format).collect();
            of_format
                .par_iter()
                .map(|page| {
                    let shot = nib::render::decode_image(&std::fs::read(&page.shot).expect("screenshot")).expect("png");
                    let score = nib::review::ssim::ssim(&page.png, &shot);
                    let found: std::collections::HashMap<String, [f32; 4]> =
                        serde_json::from_slice(&std::fs::read(&page.found).expect("boxes")).expect("boxes json");
                    let (mut matching, mut missing) = (0, 0);
                    for (id, expected) in page.boxes.iter() {
                        match found.get(id) {
                            Some(actual)
                                if expected.iter().zip(actual).all(|(e, a)| (e - a).abs() <= BOX_TOLERANCE) =>
                            {
                                matching += 1
                            }
                            Some(_) => {}
                            None => missing += 1,
                        }
                    }
                    (score, format!("{} {}", page.file, page.id), page.boxes.len(), matching, missing)
                })
                .collect()
        };
        let shown = scored.len();
        let ssim_total: f64 = scored.iter().map(|s| s.0).sum();
        let compared: usize = scored.iter().map(|s| s.2).sum();
        let matching: usize = scored.iter().map(|s| s.3).sum();
        let missing: usize = scored.iter().map(|s| s.4).sum();
        let mut worst: Vec<(f64, String)> = scored.into_iter().map(|s| (s.0, s.1)).collect();
        worst.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mean = ssim_total / shown.max(1) as f64;
        let share = matching as f64 / compared.max(1) as f64;
        println!(
            "{} in Chromium vs PNG over {shown} frames (compared in {:.1} s): mean SSIM {mean:.4}; boxes within {BOX_TOLERANCE} px: {matching}/{compared} ({:.1} %), {missing} without an element\nworst:\n{}",
            format.name(),
            started.elapsed().as_secs_f64(),
            share * 100.0,
            worst.iter().take(10).map(|(s, n)| format!("  {s:.4} {n}\n")).collect::<String>()
        );
        let (ssim_floor, boxes_floor) = match format {
            Format::HtmlTailwind => (TAILWIND_MEAN_SSIM, TAILWIND_BOXES_MATCHING),
            Format::React => (REACT_MEAN_SSIM, REACT_BOXES_MATCHING),
            _ => (HTML_MEAN_SSIM, HTML_BOXES_MATCHING),
        };
        assert!(mean >= ssim_floor, "{}: mean SSIM {mean:.4}", format.name());
        assert!(share >= boxes_floor, "{}: boxes matching {:.1} %", format.name(), share * 100.0);
    }
}

/// The HTML pages of the mobile-app sample, written into `folder`: file name → text.
fn mobile_app_html(folder: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    html_pages("Pregum__pencil_viewer__public__samples__mobile-app.pen", folder, &[nib::export::job::Format::Html]);
    let site = folder.join("html/Pregum__pencil_viewer__public__samples__mobile-app");
    let mut files = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(&site).expect("site") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "html" || e == "css") {
            files.insert(
                path.file_name().expect("name").to_string_lossy().into_owned(),
                std::fs::read_to_string(&path).expect("text"),
            );
        }
    }
    assert!(site.join("fonts").read_dir().expect("fonts copied").next().is_some());
    files
}

#[test]
fn html_pages_are_nested_elements_with_ids_classes_tokens_and_fonts() {
    let folder = tempfile::tempdir().expect("temp");
    let files = mobile_app_html(folder.path());
    let home = &files["03-Home.html"];
    assert!(home.contains("<link rel=\"stylesheet\" href=\"tokens.css\">"), "{home}");
    let elements = home.matches("<div").count() + home.matches("<p").count();
    assert!(elements >= 20, "nested elements, not a picture: {elements}");
    let opened = regex::Regex::new(r"<(div|p|svg)[ >]").expect("regex").find_iter(home).count();
    assert_eq!(opened, home.matches(" data-pen-id=\"").count(), "every element carries data-pen-id");
    let css = &files["03-Home.css"];
    assert!(css.contains("display: flex") && css.contains("gap: ") && css.contains("var(--"), "{css}");
    assert!(files["tokens.css"].starts_with(":root {"), "{}", files["tokens.css"]);
    // Hugging text keeps nib's measured width: a browser's narrower glyph sums used to move
    // the siblings after it along a row.
    assert!(css.contains("min-width: 15px"), "the like count's hugging text: {css}");
}

/// A text whose family lacks some characters (Japanese in Inter) names the faces nib drew them
/// with after its family, and ships each file with the characters it is declared for: the
/// page used to ship one file of Inter only, and Chromium drew the kana with boxes.
#[test]
fn html_ships_the_fallback_faces_nib_drew_a_text_with() {
    let folder = tempfile::tempdir().expect("temp");
    let files = mobile_app_html(folder.path());
    let (page, _) = files.iter().find(|(_, html)| html.contains("data-pen-id=\"hint\"")).expect("the hint's page");
    let css = &files[&page.replace(".html", ".css")];
    let rule = css.split("\n.").find(|rule| rule.contains("font-size: 13px")).expect("the hint's rule");
    assert!(rule.contains("font-family: \"Inter\", \"Noto Sans JP\""), "Japanese after Inter: {rule}");
    let fonts = &files["fonts.css"];
    // ズ (U+30BA) is in the unicode-range of a Noto Sans JP file the page ships.
    let covers_zu = fonts.lines().filter(|line| line.contains("\"Noto Sans JP\"")).any(|line| {
        let ranges = line.split("unicode-range: ").nth(1).and_then(|r| r.split(';').next()).unwrap_or("");
        ranges.split(", ").any(|range| {
            let range = range.trim_start_matches("U+");
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            let (lo, hi) = (u32::from_str_radix(lo, 16).unwrap(), u32::from_str_radix(hi, 16).unwrap());
            (lo..=hi).contains(&0x30BA)
        })
    });
    assert!(covers_zu, "{fonts}");
    let site = folder.path().join("html/Pregum__pencil_viewer__public__samples__mobile-app");
    for url in fonts.split("url(\"").skip(1).map(|rest| rest.split('"').next().unwrap()) {
        assert!(site.join(url).is_file(), "{url} is shipped");
    }
}

#[test]
fn fixed_width_text_wraps_in_html_because_base_rules_weigh_nothing() {
    // `p[data-pen-id] { white-space: pre }` outranked a text's class with `pre-wrap`, so a
    // fixed-width paragraph stayed on one line in the browser and moved everything below it.
    let folder = tempfile::tempdir().expect("temp");
    let files = mobile_app_html(folder.path());
    let css = &files["03-Home.css"];
    assert!(css.contains("white-space: pre-wrap"), "the fixed-width text wraps: {css}");
    for line in css.lines().filter(|l| l.contains('{') && l.contains("data-pen-id")) {
        assert!(line.starts_with(":where("), "a base rule that outranks classes: {line}");
    }
}

#[test]
fn svg_with_live_text_and_linked_images_names_fonts_and_files_and_still_looks_the_same() {
    use nib::export::svg::{ImageRefs, SvgOptions, TextMode, to_svg};
    use nib::render::{RenderOptions, RenderTarget, render};
    let folder = tempfile::tempdir().expect("temp");
    let design = folder.path().join("design");
    std::fs::create_dir_all(design.join("img")).expect("folders");
    let mut picture = tiny_skia::Pixmap::new(8, 8).expect("pixmap");
    picture.fill(tiny_skia::Color::from_rgba8(30, 120, 200, 255));
    std::fs::write(design.join("img/pic.png"), nib::render::encode_png(&picture)).expect("png");
    let document = nib::doc::Document::load(
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "card", "width": 240, "height": 120, "fill": "#FFFFFF", "layout": "vertical", "padding": 16, "gap": 8, "children": [
          {"type": "text", "id": "title", "content": "Quarterly report", "fontFamily": "Inter", "fontSize": 20, "fontWeight": "700", "fill": "#111827"},
          {"type": "rectangle", "id": "photo", "width": 64, "height": 40, "fill": {"type": "image", "url": "img/pic.png", "mode": "fill"}}]}]}"##,
    )
    .expect("loads")
    .document;
    let fixture = common::Fixture::of(document, &design);
    let (scene, layout) = (&*fixture.compiled.scene, &*fixture.compiled.layout);
    let mut text = fixture.compiled.text.fork();
    let key = scene.node_by_id("card").expect("card");
    let mut images = nib::host::Host::pictures(fixture.host.as_ref());
    let out = folder.path().join("out");
    let options = SvgOptions {
        text: TextMode::Live,
        images: ImageRefs::Link { from: Some(out.clone()), working_folder: std::path::PathBuf::new() },
        ..SvgOptions::default()
    };
    let svg = to_svg(scene, layout, &mut text, &mut images, RenderTarget::Node(key), &options).expect("exports");
    assert!(svg.markup.contains("<text") && svg.markup.contains("Quarterly report"), "{}", svg.markup);
    assert!(svg.markup.contains("font-family=\"'Inter'\" font-size=\"20\" font-weight=\"700\""), "{}", svg.markup);
    assert!(svg.markup.contains("href=\"../design/img/pic.png\""), "linked relative to the SVG: {}", svg.markup);
    // Written beside the link's target, resvg finds the image and draws the text with nib's fonts.
    std::fs::create_dir_all(&out).expect("out");
    let resources = usvg::Options {
        resources_dir: Some(out.clone()),
        fontdb: std::sync::Arc::new(export_check::text_database(&text)),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(&svg.markup, &resources).expect("parses");
    let mut raster = resvg::tiny_skia::Pixmap::new(svg.width, svg.height).expect("pixmap");
    resvg::render(&tree, resvg::tiny_skia::Transform::identity(), &mut raster.as_mut());
    let raster =
        tiny_skia::Pixmap::from_vec(raster.take(), tiny_skia::IntSize::from_wh(svg.width, svg.height).expect("size"))
            .expect("pixmap");
    let options = RenderOptions::default();
    let png = render(scene, layout, &mut text, &mut images, RenderTarget::Node(key), &options).expect("renders");
    let score = nib::review::ssim::ssim(&png.pixmap, &raster);
    eprintln!("live-text SVG with a linked image vs PNG: SSIM {score:.4}");
    assert!(score >= SVG_MEAN_SSIM, "SSIM {score:.4}");
}

#[test]
fn files_of_a_parallel_export_are_reported_in_canvas_order() {
    // The report once listed files in the order the threads finished them.
    use nib::export::job::{ExportSettings, Format, Targets, run};
    let name = "nopointt__nospace__design__harkly__harkly-ui.pen";
    let fixture = common::Fixture::corpus(name);
    let settings = ExportSettings::new(Format::Svg, Targets::Frames);
    let report = run(&fixture.compiled, name, &settings, &|_, _| Ok(()), &|_, _| {}).expect("exports");
    let names: Vec<&str> = report.files.iter().map(|f| f.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert!(names.len() >= 10, "{names:?}");
    assert_eq!(names, sorted, "NN-name files in canvas order");
}

/// A document's strings reach the page's CSS (font families, theme values in selectors and
/// comments, string variables, image addresses) and its HTML (names, ids, texts): none of them
/// may end the `<style>` element or open an element of its own (issue 46: a font family
/// `x'</style><script>alert(3)</script>` ran its script when an `--embed` page was opened).
#[test]
fn a_documents_strings_never_end_the_style_element_or_make_elements_of_their_own() {
    let document = hostile_document();
    let folder = tempfile::tempdir().expect("temp");
    let path = folder.path().join("hostile.pen");
    std::fs::write(&path, document.to_string()).expect("written");
    for embed in [true, false] {
        let out = folder.path().join(if embed { "embedded" } else { "linked" });
        let mut args = vec!["export".to_owned(), path.display().to_string(), "--format".into(), "html".into()];
        args.extend(["--all".into(), "-o".into(), out.display().to_string()]);
        if embed {
            args.push("--embed".into());
        }
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_nib"))
            .env("NIB_IMAGES", "offline")
            .env("NIB_FONTS", "offline")
            .args(&args)
            .output()
            .expect("nib runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let mut pages = 0;
        let mut written: Vec<std::path::PathBuf> = Vec::new();
        let mut folders = vec![out.clone()];
        while let Some(at) = folders.pop() {
            for entry in std::fs::read_dir(at).expect("folder") {
                let path = entry.expect("entry").path();
                if path.is_dir() { folders.push(path) } else { written.push(path) }
            }
        }
        for file in written {
            let name = file.file_name().expect("name").to_string_lossy().into_owned();
            if !(name.ends_with(".html") || name.ends_with(".css")) {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("text").to_lowercase();
            assert!(!text.contains("<script"), "{name}: {text}");
            assert!(!text.contains("<img"), "{name}: {text}");
            if name.ends_with(".html") {
                pages += 1;
                // Exactly the style element nib writes, when it writes one, and nothing after
                // it that a browser would read as markup.
                let styles = text.matches("<style").count();
                assert_eq!(styles, usize::from(embed), "{name}");
                assert_eq!(text.matches("</style").count(), styles, "{name}: {text}");
            } else {
                assert!(!text.contains("</style"), "{name}: {text}");
                // No comment is closed before its end.
                for comment in text.split("/*").skip(1) {
                    let body = comment.split("*/").next().unwrap_or_default();
                    assert!(!body.contains('<'), "{name}: {comment}");
                }
            }
        }
        assert_eq!(pages, 1, "one page for the one frame");
    }
}

/// html-tailwind pages carry Tailwind utilities and no inline styles; Pen's options choose the
/// scaffold, layer names and ids; self-contained pages are refused (they need Tailwind's step).
#[test]
fn html_tailwind_pages_carry_utilities_and_follow_pens_options() {
    use nib::export::job::{ExportSettings, Format, TailwindOptions, Targets, run};
    let fixture = common::Fixture::corpus("Pregum__pencil_viewer__public__samples__mobile-app.pen");
    let export = |tailwind: TailwindOptions, embed: bool| {
        let files = std::sync::Mutex::new(std::collections::BTreeMap::new());
        let sink = |name: &str, bytes: &[u8]| -> Result<(), nib::export::job::SinkError> {
            files.lock().expect("lock").insert(name.to_owned(), String::from_utf8_lossy(bytes).into_owned());
            Ok(())
        };
        let look = nib::export::options::ExportLook {
            scaffold: tailwind.scaffold,
            layer_names: tailwind.layer_names,
            layer_ids: tailwind.layer_ids,
            embed,
            ..Default::default()
        };
        let settings = ExportSettings { look, ..ExportSettings::new(Format::HtmlTailwind, Targets::Frames) };
        run(&fixture.compiled, "app", &settings, &sink, &|_, _| {}).map(|_| files.into_inner().expect("files"))
    };
    let files = export(TailwindOptions::default(), false).expect("exported");
    let home = &files["03-Home.html"];
    assert!(home.starts_with("<!DOCTYPE html>") && home.contains("<link rel=\"stylesheet\" href=\"styles.css\">"));
    assert!(!home.contains("style="), "no inline styles");
    for utility in
        ["class=\"pen-page ", " flex ", " flex-col", " gap-", " items-center", " bg-(--", " text-sm", " leading-["]
    {
        assert!(home.contains(utility), "{utility} in {home}");
    }
    let opened = regex::Regex::new(r"<(div|p|svg)[ >]").expect("regex").find_iter(home).count();
    assert_eq!(opened, home.matches(" data-pen-id=\"").count(), "ids by default");
    assert!(!home.contains(" data-name=\""), "names only when asked");
    let input = &files["tailwind.css"];
    assert!(input.starts_with("@import \"tailwindcss\" source(\".\");"), "{input}");
    assert!(input.contains("@layer base") && input.contains(":root {") && input.contains("@font-face"), "{input}");
    assert!(!files.contains_key("tokens.css") && !files.contains_key("03-Home.css"), "one stylesheet, Tailwind's");
    // Only the elements, with names and without ids.
    let bare =
        export(TailwindOptions { scaffold: false, layer_names: true, layer_ids: false }, false).expect("exported");
    let home = &bare["03-Home.html"];
    assert!(home.starts_with("<div class=\"pen-page ") && !home.contains("<html"), "{home}");
    assert!(home.contains(" data-name=\"") && !home.contains("data-pen-id"), "{home}");
    // Self-contained pages are refused with the reason.
    let refused = export(TailwindOptions::default(), true).expect_err("embed is refused");
    assert!(refused.to_string().contains("cannot be self-contained"), "{refused}");
}

/// A design with a button component and two instances, one overriding its label.
fn buttons_document(label: &str) -> String {
    format!(
        r##"{{"version": "2.10", "children": [
  {{"type": "frame", "id": "btn", "name": "Button", "reusable": true, "x": 0, "y": 0, "width": 140, "height": 40,
    "layout": "horizontal", "justifyContent": "center", "alignItems": "center", "fill": "#1E40AF", "cornerRadius": 8,
    "children": [{{"type": "text", "id": "label", "name": "Label", "content": "Go", "fontFamily": "Inter", "fontSize": 14, "fill": "#FFFFFF"}}]}},
  {{"type": "frame", "id": "page", "name": "Checkout", "x": 0, "y": 100, "width": 320, "height": 128, "layout": "vertical",
    "gap": 16, "padding": 16, "fill": "#FFFFFF", "children": [
    {{"type": "ref", "id": "buy", "ref": "btn", "descendants": {{"label": {{"content": {label:?}}}}}}},
    {{"type": "ref", "id": "back", "ref": "btn"}}]}}]}}"##
    )
}

/// Components with props, proven in a browser (issue 49): the page uses the component with the
/// instance's override as a prop; changing the override in the design changes that prop, and
/// Chromium's picture of the React page changes where nib's PNG changes, and matches it.
#[test]
#[ignore = "needs chromium, tailwindcss and esbuild; .ci/run installs them and runs this"]
fn a_changed_override_changes_the_react_page_as_it_changes_the_png() {
    if react_tools().is_none() {
        assert!(std::env::var_os("NIB_REQUIRE_TOOLS").is_none(), "npm ci --prefix tests/browser");
        println!("SKIPPED: npm ci --prefix tests/browser installs esbuild, tsc and tailwindcss");
        return;
    }
    let out = tempfile::tempdir().expect("temp");
    let nib = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_nib")).args(args).output().expect("nib runs");
        assert!(output.status.success(), "nib {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    };
    let mut shots = Vec::new();
    for (round, label) in ["Buy now", "Sold out"].into_iter().enumerate() {
        let folder = out.path().join(format!("round{round}"));
        std::fs::create_dir_all(&folder).expect("folder");
        let design = folder.join("shop.pen");
        std::fs::write(&design, buttons_document(label)).expect("design");
        let site = folder.join("react");
        nib(&[
            "export",
            design.to_str().unwrap(),
            "--format",
            "react",
            "--ids",
            "--no-scaffold",
            "-o",
            site.to_str().unwrap(),
        ]);
        let page = std::fs::read_to_string(site.join("pages/Checkout.tsx")).expect("page");
        assert_eq!(page.matches("<Button ").count(), 2, "both instances are the component: {page}");
        assert!(page.contains(&format!("label={{{}}}", serde_json::to_string(label).unwrap())), "{page}");
        let button = std::fs::read_to_string(site.join("components/Button.tsx")).expect("component");
        assert!(button.contains("label?: string;") && button.contains("label = \"Go\""), "{button}");
        let png = folder.join("nib.png");
        nib(&["render", design.to_str().unwrap(), "--node", "page", "-o", png.to_str().unwrap()]);
        let mounted = mount_react(&site);
        compile_tailwind(&tailwind_cli().expect("tailwindcss"), &site);
        let shot = folder.join("react.png");
        let manifest = serde_json::json!([{ "html": site.join(&mounted["page"]), "width": 320, "height": 128,
            "png": shot, "boxes": folder.join("boxes.json") }]);
        std::fs::write(folder.join("manifest.json"), manifest.to_string()).expect("manifest");
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/chromium_shots.py");
        assert!(
            Command::new("python3").arg(script).arg(folder.join("manifest.json")).status().expect("python3").success()
        );
        let read =
            |path: &std::path::Path| nib::render::decode_image(&std::fs::read(path).expect("png")).expect("decodes");
        shots.push((read(&png), read(&shot)));
    }
    type_check_react(out.path());
    // Each React page looks like nib's picture of its design.
    for (nib_png, react_png) in &shots {
        let score = nib::review::ssim::ssim(nib_png, react_png);
        assert!(score >= 0.95, "React vs nib: SSIM {score:.4}");
    }
    // And the override moved the same pixels in both: the first button's row changed, the
    // second's did not.
    let changed_rows = |a: &tiny_skia::Pixmap, b: &tiny_skia::Pixmap| -> Vec<u32> {
        (0..a.height().min(b.height()))
            .filter(|y| (0..a.width().min(b.width())).any(|x| a.pixel(x, *y) != b.pixel(x, *y)))
            .collect()
    };
    let nib_rows = changed_rows(&shots[0].0, &shots[1].0);
    let react_rows = changed_rows(&shots[0].1, &shots[1].1);
    assert!(!nib_rows.is_empty() && !react_rows.is_empty(), "the override changes both pictures");
    let span = |rows: &[u32]| (rows[0], rows[rows.len() - 1]);
    let ((nib_top, nib_bottom), (react_top, react_bottom)) = (span(&nib_rows), span(&react_rows));
    assert!(
        nib_bottom < 16 + 40 + 8 && react_bottom < 16 + 40 + 8,
        "only the first button: {nib_rows:?} {react_rows:?}"
    );
    assert!(
        nib_top.abs_diff(react_top) <= 2 && nib_bottom.abs_diff(react_bottom) <= 2,
        "{nib_rows:?} vs {react_rows:?}"
    );
}

/// The themed landing page of issue 58 as a React developer uses it, in one Chromium session:
/// the page switched to Dark by its `mode` prop against nib's PNG of the Dark theme (≥ 0.97),
/// each component rendered alone in a plain element against nib's PNG of its frame (≥ 0.95),
/// and the app the export scaffolds (`package.json`, `index.html`, `main.tsx`) built with its
/// own scripts (`npm run build`: tsc, then Vite with Tailwind's plugin) and shown (≥ 0.97).
#[test]
#[ignore = "needs chromium, npm and the tools of tests/browser; .ci/run installs them and runs this"]
fn the_landing_page_in_react_follows_its_theme_stands_alone_and_runs_as_an_app() {
    use nib::host::Host;
    use nib::render::{RenderOptions, RenderTarget, render};
    if react_tools().is_none() || Command::new("npm").arg("--version").output().is_err() {
        assert!(std::env::var_os("NIB_REQUIRE_TOOLS").is_none(), "npm ci --prefix tests/browser");
        println!("SKIPPED: npm ci --prefix tests/browser installs esbuild, tsc, tailwindcss and vite");
        return;
    }
    let out = tempfile::tempdir().expect("temp");
    let design = crate::export_react::landing();
    // nib's pictures: each component's frame and the page, in the Light and the Dark theme.
    let text = std::fs::read_to_string(&design).expect("design");
    let folder = design.parent().expect("folder");
    let mut dark_design: serde_json::Value = serde_json::from_str(&text).expect("json");
    for node in dark_design["children"].as_array_mut().expect("children") {
        if node["id"] == "landing" {
            node["theme"] = serde_json::json!({ "Mode": "Dark" });
        }
    }
    let picture = |fixture: &common::Fixture, id: &str| -> tiny_skia::Pixmap {
        let (scene, layout) = (&*fixture.compiled.scene, &*fixture.compiled.layout);
        let key = scene.find(id).expect("the frame");
        let target = RenderTarget::Node(key);
        let mut images = fixture.host.pictures();
        let mut engine = fixture.compiled.text.fork();
        let rendered =
            render(scene, layout, &mut engine, &mut images, target, &RenderOptions::default()).expect("drawn");
        frame_box_of(scene, layout, target, &rendered.pixmap).expect("the frame's box")
    };
    let light = common::Fixture::from_text(&text, folder);
    let dark = common::Fixture::from_text(&dark_design.to_string(), folder);
    let site = out.path().join("site");
    let nib = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_nib")).args(args).output().expect("nib runs");
        assert!(output.status.success(), "nib {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    };
    nib(&["export", design.to_str().unwrap(), "--format", "react", "-o", site.to_str().unwrap()]);
    // The mounts: the page in Dark through its prop, and each component alone.
    let mounts = [
        (
            "dark",
            "import { Landing } from \"./pages/Landing\";",
            "<Landing mode=\"Dark\" />",
            picture(&dark, "landing"),
        ),
        ("button", "import { Button } from \"./components/Button\";", "<Button />", picture(&light, "btn")),
        (
            "feature",
            "import { FeatureCard } from \"./components/FeatureCard\";",
            "<FeatureCard />",
            picture(&light, "feature"),
        ),
        ("plan", "import { PlanCard } from \"./components/PlanCard\";", "<PlanCard />", picture(&light, "plan")),
    ];
    let (esbuild, _) = react_tools().expect("esbuild");
    let modules =
        esbuild.parent().and_then(std::path::Path::parent).expect("node_modules").canonicalize().expect("modules");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&modules, site.join("node_modules")).expect("node_modules linked");
    let mut manifest = Vec::new();
    for (name, import, jsx, png) in &mounts {
        std::fs::write(
            site.join(format!("mount-{name}.tsx")),
            format!("import {{ flushSync }} from \"react-dom\";\nimport {{ createRoot }} from \"react-dom/client\";\n{import}\n\nconst root = createRoot(document.getElementById(\"root\")!);\nflushSync(() => root.render({jsx}));\n"),
        )
        .expect("mount");
        std::fs::write(
            site.join(format!("mount-{name}.html")),
            format!("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<link rel=\"stylesheet\" href=\"styles.css\">\n</head>\n<body>\n<div id=\"root\"></div>\n<script src=\"mount-{name}.js\"></script>\n</body>\n</html>\n"),
        )
        .expect("page");
        manifest.push(serde_json::json!({ "html": site.join(format!("mount-{name}.html")), "width": png.width(),
            "height": png.height(), "png": out.path().join(format!("{name}.png")), "boxes": out.path().join(format!("{name}.json")) }));
    }
    let entries: Vec<String> = mounts.iter().map(|(name, ..)| format!("mount-{name}.tsx")).collect();
    bundle_react(&esbuild, &site, &entries);
    compile_tailwind(&tailwind_cli().expect("tailwindcss"), &site);
    // The app: exported into a new folder, so it is scaffolded; its own scripts build it with the
    // packages its package.json pins (the same as tests/browser's, linked in).
    let app = out.path().join("app");
    nib(&["export", design.to_str().unwrap(), "--format", "react", "-o", app.to_str().unwrap()]);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&modules, app.join("node_modules")).expect("node_modules linked");
    let started = std::time::Instant::now();
    let built = Command::new("npm").current_dir(&app).args(["run", "build", "--silent"]).output().expect("npm runs");
    assert!(
        built.status.success(),
        "npm run build: {}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    println!("the scaffolded app built in {:.1} s", started.elapsed().as_secs_f64());
    let page = picture(&light, "landing");
    manifest
        .push(serde_json::json!({ "html": app.join("dist/index.html"), "width": page.width(), "height": page.height(),
        "png": out.path().join("app.png"), "boxes": out.path().join("app.json") }));
    let manifest_path = out.path().join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).expect("json")).expect("manifest");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/chromium_shots.py");
    assert!(Command::new("python3").arg(script).arg(&manifest_path).status().expect("python3").success());
    let shot = |name: &str| {
        nib::render::decode_image(&std::fs::read(out.path().join(format!("{name}.png"))).expect("shot")).expect("png")
    };
    let mut failed = Vec::new();
    for (name, _, _, png) in &mounts {
        let score = nib::review::ssim::ssim(png, &shot(name));
        let floor = if *name == "dark" { 0.97 } else { 0.95 };
        println!("React {name} vs nib's PNG: SSIM {score:.4} (floor {floor})");
        if score < floor {
            failed.push(format!("{name} {score:.4}"));
        }
    }
    let score = nib::review::ssim::ssim(&page, &shot("app"));
    println!("the scaffolded app (npm run build) vs nib's PNG: SSIM {score:.4} (floor 0.97)");
    if score < 0.97 {
        failed.push(format!("app {score:.4}"));
    }
    assert!(failed.is_empty(), "below their floors: {failed:?}");
}

/// The app the React export scaffolds pins the versions the browser check builds it with:
/// `tests/browser/package.json` names each at the same version.
#[test]
fn the_react_apps_packages_are_the_ones_the_browser_check_pins() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/package.json");
    let pinned: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("package.json")).expect("json");
    for (name, version, _) in nib::export::job::REACT_APP_PACKAGES {
        assert_eq!(pinned["devDependencies"][name], *version, "{name}");
    }
}

/// A string that ends every element and comment it can.
const HOSTILE: &str = "x'\"</style><script>alert(3)</script><img src=x onerror=alert(4)>*/";

/// A document whose every string is [`HOSTILE`]: a theme, variables, a frame's name, texts,
/// font families, an image address, and a component with an instance that overrides its text.
fn hostile_document() -> serde_json::Value {
    let attack = HOSTILE;
    serde_json::json!({
        "version": "2.20",
        "themes": { "Mode": ["Light", attack] },
        "variables": {
            "--brand": { "type": "color", "value": [
                {"value": "#2563EB", "theme": {"Mode": "Light"}},
                {"value": "#60A5FA", "theme": {"Mode": attack}}
            ]},
            "--family": { "type": "string", "value": attack }
        },
        "children": [{
            "type": "frame", "id": "page", "name": attack, "width": 400, "height": 300, "layout": "vertical",
            "theme": {"Mode": attack}, "fill": "$--brand",
            "children": [
                {"type": "text", "id": "t1", "content": attack, "fontFamily": attack, "fill": "#000000"},
                {"type": "text", "id": "t2", "content": "variable family", "fontFamily": "$--family", "fill": "#000000"},
                {"type": "rectangle", "id": "r1", "width": 40, "height": 40,
                 "fill": {"type": "image", "url": format!("https://example.com/a.png?{attack}"), "mode": "fill"}}
            ]
        }]
    })
}

/// The code exports keep a document's strings as data too: html-tailwind's classes stay one
/// attribute word and make no element; React's comments end where nib ends them and its strings
/// are JavaScript string literals.
#[test]
fn code_exports_keep_a_documents_strings_as_data() {
    let mut document = hostile_document();
    // A theme axis named by the attack: React writes its name in a doc comment.
    document["themes"][HOSTILE] = serde_json::json!(["a", "b"]);
    let children = document["children"].as_array_mut().expect("children");
    children.push(serde_json::json!({"type": "frame", "id": "comp", "name": HOSTILE, "reusable": true, "x": 600, "y": 0,
        "width": 100, "height": 40, "children": [{"type": "text", "id": "ct", "name": HOSTILE, "content": HOSTILE, "fill": "#000000"}]}));
    children[0]["children"].as_array_mut().expect("page children").push(
        serde_json::json!({"type": "ref", "id": "i1", "ref": "comp", "descendants": {"ct": {"content": format!("{HOSTILE}2")}}}),
    );
    let folder = tempfile::tempdir().expect("temp");
    let path = folder.path().join("hostile.pen");
    std::fs::write(&path, document.to_string()).expect("written");
    let class = regex::Regex::new(r#"class(Name)?="([^"]*)""#).expect("regex");
    for format in ["html-tailwind", "react"] {
        let out = folder.path().join(format);
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_nib"))
            .env("NIB_IMAGES", "offline")
            .env("NIB_FONTS", "offline")
            .args(["export", path.to_str().unwrap(), "--format", format, "--all", "-o", out.to_str().unwrap()])
            .output()
            .expect("nib runs");
        assert!(output.status.success(), "{format}: {}", String::from_utf8_lossy(&output.stderr));
        let mut files = Vec::new();
        let mut folders = vec![out.clone()];
        while let Some(at) = folders.pop() {
            for entry in std::fs::read_dir(at).expect("folder") {
                let path = entry.expect("entry").path();
                if path.is_dir() { folders.push(path) } else { files.push(path) }
            }
        }
        let mut checked = 0;
        for file in files {
            let name = file.file_name().expect("name").to_string_lossy().into_owned();
            let mut text = std::fs::read_to_string(&file).unwrap_or_default();
            // The React app's page loads its own entry: nib's script, not the document's.
            if format == "react" && name == "index.html" {
                text = text.replace("<script type=\"module\" src=\"./main.tsx\"></script>", "");
            }
            if name.ends_with(".html") {
                checked += 1;
                let lower = text.to_lowercase();
                assert!(!lower.contains("<script") && !lower.contains("<img"), "{name}: {text}");
                for list in class.captures_iter(&text) {
                    assert!(!list[2].contains(['<', '>']), "{name}: a class makes markup: {}", &list[2]);
                }
            }
            if name.ends_with(".tsx") {
                checked += 1;
                // A doc comment ends at the end of its line, where nib ends it.
                for comment in text.split("/**").skip(1) {
                    let line = comment.lines().next().unwrap_or_default();
                    assert!(line.trim_end().ends_with("*/") && line.matches("*/").count() == 1, "{name}: {line}");
                }
                // The texts are string literals: the attack never stands bare in the JSX.
                assert!(!text.contains(&format!(">{HOSTILE}")), "{name}: {text}");
            }
        }
        assert!(checked >= 2, "{format}: pages or components were written");
    }
}

/// The caller's sink is the only writer: its own error (here an io::Error) stops the run and is
/// said with the file it could not take.
#[test]
fn a_sink_that_cannot_take_a_file_stops_the_run_naming_the_file_and_why() {
    use nib::export::job::{ExportSettings, Format, SinkError, Targets, run};
    let folder = tempfile::tempdir().expect("temp");
    let fixture = common::Fixture::from_text(
        r##"{"version": "2.10", "children": [{"type": "frame", "id": "f", "name": "Card", "width": 10, "height": 10, "fill": "#FF0000"}]}"##,
        folder.path(),
    );
    let refuse = |_: &str, _: &[u8]| -> Result<(), SinkError> {
        Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "the folder is read-only").into())
    };
    let settings = ExportSettings::new(Format::Png, Targets::Frames);
    let error = run(&fixture.compiled, "doc", &settings, &refuse, &|_, _| {}).expect_err("the sink refused");
    assert_eq!(error.to_string(), "cannot write 01-Card.png: the folder is read-only");
}

/// Text the PDF writer must carry whatever it holds: right-to-left runs, marks, emoji and
/// joiners, Han characters in a Latin family (nib's fallback faces), an upright face slanted as
/// italic, variable weights, a long paragraph. The PDF is valid, nothing panics, and the words
/// are found as text.
#[test]
fn pdf_text_of_every_script_is_valid_and_searchable() {
    let (Some(qpdf), Some(pdftotext), Some(pdftoppm)) = (tool("qpdf"), tool("pdftotext"), tool("pdftoppm")) else {
        return;
    };
    let long = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(80);
    let texts = [
        ("latin", "Quarterly report", "\"fontWeight\": \"600\""),
        ("arabic", "مرحبا بالعالم", "\"fontFamily\": \"Inter\""),
        ("marks", "Cafe\u{301} nai\u{308}ve Zoe\u{308}", "\"fontStyle\": \"italic\""),
        ("emoji", "Launch 🚀 team 👩‍👩‍👧 ok", "\"fontWeight\": \"800\""),
        ("han", "设计系统 デザイン Design", "\"fontFamily\": \"Inter\""),
        ("long", long.as_str(), "\"textGrowth\": \"fixed-width\", \"width\": 400"),
    ];
    let children: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, (id, content, extra))| {
            format!(
                r##"{{"type": "text", "id": "{id}", "y": {}, "content": {}, "fontSize": 18, {extra}, "fill": "#111827"}}"##,
                i * 40,
                serde_json::to_string(content).expect("json")
            )
        })
        .collect();
    let document = format!(
        r##"{{"version": "2.10", "children": [{{"type": "frame", "id": "page", "width": 640, "height": 1200, "fill": "#FFFFFF", "layout": "none", "children": [{}]}}]}}"##,
        children.join(",")
    );
    let folder = tempfile::tempdir().expect("temp");
    let fixture = common::Fixture::from_text(&document, folder.path());
    let deck = export_check::pdf_deck(&fixture);
    let pdf = folder.path().join("scripts.pdf");
    std::fs::write(&pdf, &deck.pdf).expect("write");
    let pdf_arg = pdf.to_str().expect("utf-8");
    run(qpdf, &["--check", pdf_arg]);
    let text = run(pdftotext, &[pdf_arg, "-"]);
    for word in ["Quarterly", "report", "Launch", "team", "Design", "consectetur", "设计系统"] {
        assert!(text.contains(word), "pdftotext finds '{word}' in:\n{text}");
    }
    let scores = page_scores(pdftoppm, &pdf, &deck.pages);
    eprintln!("every script: SSIM {scores:.4?}");
    assert!(scores.iter().all(|s| *s >= PDF_PAGE_SSIM), "the page vs nib's PNG: {scores:.4?}");
}

/// Issue 56, item 9e: a remote image whose address has a space. Tailwind turns a class's `_`
/// back into a space everywhere but inside `url(…)`, so the space written as `_` there asked
/// the browser for another file; it is percent-encoded, as the browser requests it.
#[test]
fn a_remote_image_address_with_a_space_stays_that_address_in_tailwind_and_react() {
    let folder = tempfile::tempdir().expect("temp");
    let path = folder.path().join("photo.pen");
    std::fs::write(
        &path,
        r#"{"version": "2.20", "children": [{"type": "frame", "id": "page", "name": "Page", "width": 100, "height": 100,
  "children": [{"type": "rectangle", "id": "photo", "width": 40, "height": 40,
    "fill": {"type": "image", "url": "https://example.com/my photo_1.png", "mode": "cover"}}]}]}"#,
    )
    .expect("written");
    // The real `_` stays escaped (Tailwind leaves `\_` inside `url(…)`, and CSS reads it as
    // `_`); React's class is a JavaScript string, with its backslash escaped once more.
    let class = r"[background:url('https://example.com/my%20photo\_1.png')_center_/_cover_no-repeat]";
    for (format, file, class) in
        [("html-tailwind", "01-Page.html", class.to_owned()), ("react", "pages/Page.tsx", class.replace('\\', "\\\\"))]
    {
        let out = folder.path().join(format);
        let output = Command::new(env!("CARGO_BIN_EXE_nib"))
            .env("NIB_IMAGES", "offline")
            .env("NIB_FONTS", "offline")
            .args(["export", path.to_str().unwrap(), "--format", format, "--all", "-o", out.to_str().unwrap()])
            .output()
            .expect("nib runs");
        assert!(output.status.success(), "{format}: {}", String::from_utf8_lossy(&output.stderr));
        let text = std::fs::read_to_string(out.join(file)).expect(file);
        assert!(text.contains(&class), "{format}: {class} in {text}");
    }
}

/// Bundles the React entries in `folder` with esbuild (react and react-dom from the linked
/// node_modules, production build), each next to its entry.
fn bundle_react(esbuild: &std::path::Path, folder: &std::path::Path, entries: &[String]) {
    let output = Command::new(esbuild)
        .current_dir(folder)
        .args(entries)
        .args([
            "--bundle",
            "--outdir=.",
            "--jsx=automatic",
            "--log-level=error",
            "--define:process.env.NODE_ENV=\"production\"",
        ])
        .output()
        .expect("esbuild runs");
    assert!(output.status.success(), "esbuild in {}: {}", folder.display(), String::from_utf8_lossy(&output.stderr));
}
