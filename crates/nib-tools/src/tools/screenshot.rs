//! get_screenshot: a PNG of a node (or the whole canvas), small enough for a model to look at.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::ToolError;
use super::render_cache::{RenderCache, Shot, ShotKey, parts_shown};
use super::workspace::{OutputFailure, Workspace};
use crate::compile::{CompileOptions, Compiled};
use crate::render::{Damage, Painted, RenderOptions, RenderTarget, encode_rendered, target_bounds};

/// Longest side of a screenshot when no scale is given, in pixels.
pub(crate) const DEFAULT_LONG_EDGE: f32 = 1568.0;

/// Largest screenshot answered; larger ones are rendered again at a smaller scale.
pub const MAX_SCREENSHOT_BYTES: usize = 4 * 1024 * 1024;

/// get_screenshot's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScreenshotArgs {
    /// The document (the current one when absent).
    pub file_path: Option<String>,
    /// The node to show (the whole canvas when absent).
    pub node_id: Option<String>,
    /// Device pixels per canvas pixel; by default the long edge is at most 1568 px.
    pub scale: Option<f32>,
    /// Write the PNG to this file (relative to the workspace) and answer its path instead of
    /// the image.
    pub output_path: Option<String>,
    /// Draw under this theme (`{"Mode": "Dark"}`), as a themed instance of the node would look.
    pub theme: Option<serde_json::Value>,
}

/// A rendered PNG.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Screenshot {
    /// Always `image/png`.
    pub mime_type: &'static str,
    /// The PNG, base64-encoded; empty when it was written to `path`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub data: String,
    /// Where the PNG was written (relative to the workspace), when outputPath was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Its size in bytes.
    pub bytes: u64,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Device pixels per canvas pixel used.
    pub scale: f32,
    /// What could not be drawn as written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// A file was at `path` before and this one replaced it (execute keeps it when its call is
    /// undone, as it keeps an Export's).
    #[serde(skip)]
    pub replaced: bool,
}

impl Screenshot {
    /// The PNG bytes.
    pub fn png(&self) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD.decode(&self.data).unwrap_or_default()
    }
}

/// Renders a node (or the canvas) to PNG; an unchanged node at the same scale is answered from
/// the document's render cache. With `outputPath` the PNG is written there (never shrunk to
/// fit an answer) and the answer gives its path instead of the image.
pub fn get_screenshot(workspace: &mut Workspace, args: ScreenshotArgs) -> Result<Screenshot, ToolError> {
    let root = workspace.root().to_owned();
    let output = args.output_path.as_deref().map(|path| workspace.resolve(path)).transpose()?;
    if let Some(output) = &output {
        // Before drawing: a refused path costs nothing. The document asked for counts even
        // when it is not open yet.
        let asked = args.file_path.as_deref().map(|path| workspace.resolve(path)).transpose()?;
        workspace.output_guard(asked.as_deref()).check(output, Some(&["png"])).map_err(refused_output)?;
    }
    let shot = shot(workspace, &args, output.is_some())?;
    answer(workspace, shot, output.as_deref(), &root)
}

/// The answer to an output path the guard refused.
pub(super) fn refused_output(error: crate::files::FileError) -> ToolError {
    ToolError::new(error.to_string())
        .with_hint("nothing was written; give an outputPath of a new file inside the workspace")
}

/// Renders a node (or the canvas) to PNG bytes, and the screenshot's description with empty
/// `data`: what get_screenshot sends, for callers that send the bytes themselves.
pub fn render_screenshot(workspace: &mut Workspace, args: ScreenshotArgs) -> Result<(Vec<u8>, Screenshot), ToolError> {
    let shot = shot(workspace, &args, false)?;
    let png = base64::engine::general_purpose::STANDARD.decode(shot.data.as_bytes()).unwrap_or_default();
    Ok((png, Screenshot { data: String::new(), ..Screenshot::from(shot) }))
}

/// The screenshot, from the document's render cache or drawn (and kept there); `full_size`
/// keeps a picture too heavy for an answer at the scale asked (it goes to a file). Under a
/// theme, the document's compiler draws its themed copy (the theme on the node's top-level
/// frame), and the render cache keeps that picture apart from the document's own look.
fn shot(workspace: &mut Workspace, args: &ScreenshotArgs, full_size: bool) -> Result<Shot, ToolError> {
    let (open, _) = workspace.document(args.file_path.as_deref())?;
    let node_id = args.node_id.as_deref().filter(|id| !id.is_empty());
    let theme = match &args.theme {
        Some(theme) => {
            let imports = open.compiler.imports(&open.document);
            Some(super::theme::choice(&open.document, imports.as_ref(), node_id.as_slice(), theme)?)
        }
        None => None,
    };
    let options =
        CompileOptions { parts_of: node_id.map(|id| vec![id.to_owned()]), theme: theme.clone(), keep_variables: false };
    let compiled = match open.compiler.compiled(&open.document, &options) {
        Ok(compiled) => compiled,
        Err(refused) => return Err(super::workspace::refusal(&mut open.compiler, &open.document, refused)),
    };
    let theme = theme.map(|choice| choice.axes);
    draw(compiled, node_id, theme, args.scale, full_size, &mut open.screenshots)
}

/// The screenshot of `node_id` (or the canvas) of `compiled` at `scale`; answered from `cache`
/// when it holds the same picture, and repainted from the last picture of the same target
/// where only part of it changed.
fn draw(
    mut compiled: Compiled<'_>,
    node_id: Option<&str>,
    theme: Option<Vec<(String, String)>>,
    scale: Option<f32>,
    full_size: bool,
    cache: &mut RenderCache,
) -> Result<Shot, ToolError> {
    let target = target_of(&compiled.scene, node_id)?;
    let scale = scale_of(&compiled.scene, &compiled.layout, target, scale)?;
    let background = crate::display::backdrop(&compiled.scene, target);
    let key = ShotKey {
        node: node_id.map(str::to_owned),
        theme,
        scale,
        options: RenderOptions { scale, background, ..RenderOptions::default() },
    };
    let parts = parts_shown(
        &compiled.layout,
        match target {
            RenderTarget::Node(key) => Some(key.part()),
            RenderTarget::Canvas => None,
        },
    );
    if let Some(shot) = cache.get(&key, &parts) {
        return Ok(shot);
    }
    // What the picture says besides what drawing finds: the same for every way it is drawn.
    let said = compiled.diagnostics(target);
    // The last picture of this target, drawn before an edit: only what changed is painted.
    let mut previous = cache.take_painted(&key);
    let mut damage = Damage::Everything;
    let (shot, too_heavy, painted) = picture(scale, background, full_size, |options| {
        let (before, answered) = previous.take().unzip();
        let (painted, changed) = compiled.render_after(target, options, before).map_err(render_error)?;
        let mut warnings = painted.rendered().warnings.clone();
        warnings.extend(said.iter().cloned());
        // Nothing visible changed: the PNG answered before is this picture's.
        let unchanged = answered.filter(|_| changed == Damage::Nothing);
        damage = changed;
        Ok(Drawn { painted, warnings, unchanged })
    })?;
    cache.count_repaint(damage);
    // A picture too heavy to answer stays out of the cache answers come from.
    if !too_heavy {
        cache.put(key.clone(), parts, shot.clone());
        cache.keep_painted(key, painted, shot.clone());
    }
    Ok(shot)
}

/// A picture drawn for a screenshot.
struct Drawn {
    painted: Painted,
    /// What could not be drawn as written.
    warnings: Vec<crate::diagnostic::Diagnostic>,
    /// The screenshot answered before, when the picture is unchanged since.
    unchanged: Option<Shot>,
}

/// What to draw: the node `node_id`, or the canvas.
fn target_of(scene: &crate::resolve::Scene, node_id: Option<&str>) -> Result<RenderTarget, ToolError> {
    match node_id {
        None => Ok(RenderTarget::Canvas),
        Some(id) => Ok(RenderTarget::Node(scene.find(id)?)),
    }
}

/// The scale asked, or the one that makes the long edge at most [`DEFAULT_LONG_EDGE`].
fn scale_of(
    scene: &crate::resolve::Scene,
    layout: &crate::layout::Layout,
    target: RenderTarget,
    asked: Option<f32>,
) -> Result<f32, ToolError> {
    let bounds = target_bounds(scene, layout, target).map_err(|e| ToolError::new(e.to_string()))?;
    let long_edge = bounds.width().max(bounds.height()).max(1.0);
    match asked {
        Some(scale) if scale.is_finite() && scale > 0.0 => Ok(scale),
        Some(scale) => Err(ToolError::new(format!("scale must be a number above 0; got {scale}"))),
        None => Ok((DEFAULT_LONG_EDGE / long_edge).min(1.0)),
    }
}

fn render_error(error: crate::render::RenderError) -> ToolError {
    ToolError::new(error.to_string()).with_hint("pass a smaller scale, or a nodeId to show one part")
}

/// Draws with `draw` at `scale` and encodes the PNG; a picture too heavy to send is drawn again
/// smaller rather than refused, unless `full_size`. Answers the shot, whether it is too heavy
/// for an answer, and the picture.
fn picture(
    mut scale: f32,
    background: Option<[u8; 4]>,
    full_size: bool,
    mut draw: impl FnMut(&RenderOptions) -> Result<Drawn, ToolError>,
) -> Result<(Shot, bool, Painted), ToolError> {
    loop {
        let options = RenderOptions { scale, background, ..RenderOptions::default() };
        let Drawn { painted, warnings, unchanged } = draw(&options)?;
        if let Some(before) = unchanged {
            return Ok((Shot { warnings, ..before }, false, painted));
        }
        let pixmap = &painted.rendered().pixmap;
        let png = encode_rendered(painted.rendered());
        let too_heavy = png.len() > MAX_SCREENSHOT_BYTES;
        if !full_size && too_heavy && pixmap.width().max(pixmap.height()) > 256 {
            scale *= 0.7;
            continue;
        }
        let shot = Shot {
            data: base64::engine::general_purpose::STANDARD.encode(&png).into(),
            width: pixmap.width(),
            height: pixmap.height(),
            scale,
            warnings,
        };
        return Ok((shot, too_heavy, painted));
    }
}

/// The answer for `shot`: the image, or the path it was written to when `output` is given.
fn answer(
    workspace: &Workspace,
    shot: Shot,
    output: Option<&std::path::Path>,
    root: &std::path::Path,
) -> Result<Screenshot, ToolError> {
    let mut screenshot = Screenshot::from(shot);
    let Some(output) = output else { return Ok(screenshot) };
    let png = screenshot.png();
    screenshot.replaced = output.exists();
    workspace.write_output_file(output, &png).map_err(|failure| match failure {
        OutputFailure::Folder { folder, error } => {
            ToolError::new(format!("cannot create {}: {error}", folder.display())).caused_by(&error)
        }
        OutputFailure::File(error) => ToolError::new(format!("cannot write the screenshot: {error}"))
            .with_hint("give an outputPath inside the workspace, e.g. shots/home.png")
            .caused_by(&error),
    })?;
    screenshot.data = String::new();
    screenshot.path = Some(output.strip_prefix(root).unwrap_or(output).to_string_lossy().replace('\\', "/"));
    Ok(screenshot)
}

impl From<Shot> for Screenshot {
    fn from(shot: Shot) -> Screenshot {
        let data = shot.data.to_string();
        // The decoded size of base64: three bytes per four characters, less the padding.
        let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
        Screenshot {
            mime_type: "image/png",
            bytes: (data.len() / 4 * 3 - padding) as u64,
            data,
            path: None,
            width: shot.width,
            height: shot.height,
            scale: shot.scale,
            warnings: shot.warnings,
            replaced: false,
        }
    }
}
