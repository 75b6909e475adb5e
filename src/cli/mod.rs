//! Command-line commands. Each command lives in its own module and returns the process exit
//! code of the one table every command follows ([`EXIT_CODES`], the README's "Exit codes"):
//! 0 done, 1 the input was refused or the check found something, 2 nib could not do the work
//! (the command line, or a file it could not read or write).

/// `println!` for results: when the reader has gone away (`nib layout … | head`), nib stops
/// quietly instead of panicking on the closed pipe.
macro_rules! say {
    ($($arg:tt)*) => { $crate::cli::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` with the same care as [`say!`].
macro_rules! say_part {
    ($($arg:tt)*) => { $crate::cli::write_out(format_args!($($arg)*)) };
}

/// `eprintln!` with the same care as [`say!`]: no control character but line breaks and tabs
/// reaches the terminal.
macro_rules! tell {
    () => { $crate::cli::write_err(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::write_err(format_args!("{}\n", format_args!($($arg)*))) };
}

pub mod allocator;
mod apply;
mod call;
mod check;
mod diff;
mod documents;
mod exec;
mod export;
mod fmt;
mod fonts;
mod layout;
mod lint;
mod merge;
mod migrate;
mod outline;
mod render;
mod revision;
mod serve;
mod snapshot;
mod stdout_pipe;
mod theme;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Writes to stdout; a closed pipe ends the process with success, as `head` expects, and any
/// other write error with code 2.
pub fn write_out(text: std::fmt::Arguments) {
    use std::io::Write;
    let text = text.to_string();
    // What a document says (names, types, axes) is never a terminal command, wherever it is
    // printed; JSON escapes control characters itself, so it passes unchanged.
    if let Err(error) = std::io::stdout().lock().write_all(nib::printable::for_terminal(&text).as_bytes()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        tell!("nib: cannot write the output: {error}");
        std::process::exit(2);
    }
}

/// How a command that writes names itself to others (a server that holds the document sees
/// the name with the bytes it wrote).
#[derive(Debug, Clone, clap::Args)]
pub struct WriterArgs {
    /// Name this writer: a `nib serve` or `nib mcp` session that finds the file changed says
    /// who changed it. Default: your user name ($USER), else "cli".
    #[arg(long = "as", value_name = "NAME")]
    as_name: Option<String>,
}

impl WriterArgs {
    /// The caller a command that writes through `via` (`nib exec`) runs as.
    fn caller(&self, via: &str) -> nib::tools::Caller {
        let name = self.as_name.clone().or_else(default_writer_name).unwrap_or_else(|| "cli".to_owned());
        nib::tools::Caller::new("cli", &name, via)
    }
}

/// The user's login name, as the environment gives it.
fn default_writer_name() -> Option<String> {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .find_map(|variable| std::env::var(variable).ok())
        .filter(|name| !name.trim().is_empty())
}

/// Writes to stderr, control characters escaped as [`write_out`] does; a failed write is
/// dropped (there is nowhere left to say it).
pub fn write_err(text: std::fmt::Arguments) {
    use std::io::Write;
    let text = text.to_string();
    let _ = std::io::stderr().lock().write_all(nib::printable::for_terminal(&text).as_bytes());
}

/// The exit codes of every command, as `nib --help` prints them (the README's "Exit codes" says
/// the same, a test holds them together).
pub const EXIT_CODES: &str = "Exit codes (every command):
  0  done: the work is done, or the check found nothing
  1  the input was refused, or the check found something: a document that does not load; a
     script, snippet or tool call that fails or is refused (nothing is saved); a picture that
     cannot be drawn; what check, lint, diff, snapshot, merge-driver, layout --problems, fonts
     and --check look for
  2  nib could not do the work: the command line is wrong, or a file cannot be read (missing,
     not a regular file, no permission, too large) or written (a failed save, an output that
     cannot be made); diff, merge-driver and lint also for a document that does not load";

/// The exit code of a tool call that failed (`nib call`, `nib exec`): 2 when a file could not
/// be read or written, 1 when the call itself was refused.
fn tool_failure_code(error: &nib::tools::ToolError) -> u8 {
    match error.cause {
        nib::tools::Cause::Files => 2,
        nib::tools::Cause::Call => 1,
    }
}

/// A headless canvas engine for .pen design files.
#[derive(Debug, Parser)]
#[command(name = "nib", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
    /// Also use the fonts installed on this machine (output then depends on it).
    #[arg(long, global = true)]
    system_fonts: bool,
    /// A folder of your own font files (.ttf, .otf, .ttc, .woff2; sub-folders too), used before
    /// the bundled fonts; repeat for several. NIB_FONT_DIRS adds more.
    #[arg(long = "font-dir", value_name = "DIR", global = true)]
    font_dirs: Vec<PathBuf>,
    /// A folder holding copies of the libraries the Pen app bundles (`pencil:lunaris.lib.pen`
    /// imports), looked in after the document's folder; repeat for several. NIB_LIBRARY_DIRS
    /// adds more.
    #[arg(long = "library-dir", value_name = "DIR", global = true)]
    library_dirs: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate .pen files: node counts per type, version, problems. Exits 1 if a file is
    /// invalid, 2 if one cannot be read.
    Check(check::CheckArgs),
    /// Run a batch_design script against a file; saves atomically only when every operation
    /// succeeds. Exits 1 when the script fails or the change is refused (the file is then
    /// untouched), 2 when the document or the script cannot be read or the file cannot be saved.
    Apply(apply::ApplyArgs),
    /// Render a .pen file to PNG: the whole canvas by default, one node with --node, every
    /// top-level frame into a folder with --all.
    Render(render::RenderArgs),
    /// Export nodes, frames or the canvas as PNG, JPEG, WebP, SVG, PDF or HTML/CSS, or the
    /// variables as design tokens.
    ///
    /// One node (or the canvas) goes to one file; --all and several --node fill a folder with
    /// one file per node (NN-name for frames), except PDF, which puts every node on a page of
    /// one file. HTML always writes a folder: a page per frame with its stylesheet, tokens.css,
    /// fonts.css, fonts/ and images/ (or self-contained pages with --embed). html-tailwind
    /// writes pages whose elements carry Tailwind classes, with tailwind.css, the input Tailwind
    /// compiles into the styles.css they link. react writes a folder of TypeScript React
    /// components (one per reusable component, with props for what instances change), a page
    /// component per frame, index.ts, theme.css and tailwind.css. tokens-css, tokens-json and
    /// tailwind write the document's variables and themes.
    #[command(after_help = export::EXAMPLES)]
    Export(export::ExportArgs),
    /// Lay out a .pen file and print the boxes (x, y in the parent, position on the canvas,
    /// size) and the layout problems. With --problems, exits 1 when there are problems.
    Layout(layout::LayoutArgs),
    /// Run a JavaScript snippet against a document, as the execute tool of `nib mcp --tools
    /// current` does, and print the answer. The file is saved only when the whole snippet ran;
    /// exits 1 (the file untouched) when it failed or the change is refused, 2 on a usage
    /// problem or when the document or the snippet cannot be read or the file cannot be saved.
    #[command(after_help = exec::EXAMPLES)]
    Exec(exec::ExecArgs),
    /// Run a design tool (get_editor_state, open_document, batch_get, batch_design, …) with JSON
    /// arguments exactly as over MCP, and print its JSON answer. As over MCP, every file it
    /// reads or writes must be inside the root folder. Exits 1 on an error answer (and on an
    /// answer with `"success": false`), 2 when the arguments are not JSON, the root cannot be
    /// used, or a file cannot be read or written (a failed save).
    Call(call::CallArgs),
    /// Serve the design tools over MCP on stdin/stdout (register this command in an MCP client).
    /// Documents must be inside the root folder.
    Mcp(serve::McpArgs),
    /// Serve the design tools over MCP on streamable HTTP (at /mcp) and a live canvas of the
    /// documents in a browser (at /), sharing one workspace: people see every agent's change
    /// within half a second and select what the agents should work on.
    ///
    /// Loopback only by default. Listening on another address needs a token: MCP clients send
    /// it as `Authorization: Bearer TOKEN`; the printed one-time link logs a browser in.
    #[command(after_help = serve::EXAMPLES)]
    Serve(serve::ServeArgs),
    /// Design lint: contrast (WCAG AA, against what is painted beneath), touch targets, small
    /// and covered text, colours and scales off the document's system, empty hugging frames,
    /// invisible text. Levels come from a preset, then `nib-lint.json` beside each file (or
    /// --config), then --rule. Exits 1 when a finding is a warning or an error, 2 when a file
    /// cannot be read.
    #[command(after_help = lint::EXAMPLES)]
    Lint(lint::LintArgs),
    /// Snapshot tests for designs: compare every top-level frame with its approved PNG.
    ///
    /// Renders every top-level frame of the .pen files under PATHS and compares it with its
    /// golden image, __snapshots__/<file stem>/<frame id>.png beside the file. A missing golden
    /// is created (a first run creates them all); a frame that differs gets a diff image and its
    /// render in --diff-dir. Exits 0 when every frame matches, 1 when one differs, is missing
    /// (--ci) or cannot be rendered, 2 on a usage or I/O problem.
    #[command(after_help = snapshot::EXAMPLES)]
    Snapshot(snapshot::SnapshotArgs),
    /// Show what changed between two versions of a document, with pictures of the changed
    /// frames. Exits 0 when the same, 1 when different, 2 on trouble (like diff).
    ///
    /// Lists, by node id, nodes added, removed, moved and changed (property by property),
    /// components and the instances they affect, variables and themes, and the top-level frames
    /// that look different.
    ///
    /// OLD and NEW are files, or REV:path to read a version from git (nib diff HEAD~1:design.pen
    /// design.pen). Strokes and icons respelled by a version upgrade (2.11 → 2.13) are the same
    /// values and are not listed. With -o DIR, every changed frame is drawn into DIR as
    /// NN-name.old.png, NN-name.new.png and NN-name.diff.png (red: changed, blue: only in one),
    /// and json, markdown and html reports are also saved there (diff.json, diff.md, index.html).
    Diff(diff::DiffArgs),
    /// Print a document as one line per node, for reading and for git diff (textconv).
    ///
    /// Each line is `type 'name' (id)` and the node's properties in a fixed order; version,
    /// imports, themes and variables come first. With `git config diff.nib.textconv "nib
    /// outline"` and `*.pen diff=nib` in .gitattributes, git diff shows changed nodes instead of
    /// JSON lines.
    Outline(outline::OutlineArgs),
    /// Merge two branches of a document by node id and property: a git merge driver. Exits 0
    /// merged, 1 conflict, 2 trouble.
    ///
    /// Configure `git config merge.nib.driver "nib merge-driver %O %A %B %P"` and `*.pen
    /// merge=nib` in .gitattributes. Changes to different nodes or properties merge; on success
    /// OURS is overwritten with the result. When both sides changed the same thing differently,
    /// nothing is written and the places are listed.
    MergeDriver(merge::MergeDriverArgs),
    /// The fonts nib can use, the families a document needs and how each resolves, and fetching
    /// Google Fonts families into the cache ahead of an offline run.
    #[command(after_help = fonts::EXAMPLES, args_conflicts_with_subcommands = true)]
    Fonts(fonts::FontsArgs),
    /// Move .pen files to another format version (the newest, 2.20, by default), listing every
    /// change; a move down that would lose something is refused. Saves atomically. Exits 1 when
    /// a file does not load or cannot move without loss (or, with --check, would change), 2 when
    /// one cannot be read or saved.
    #[command(after_help = migrate::EXAMPLES)]
    Migrate(migrate::MigrateArgs),
    /// Rewrite .pen files in the canonical form Pen saves (2-space JSON, no comments).
    /// Exits 1 when a file does not load (or, with --check, is not canonical), 2 when one cannot
    /// be read or saved.
    Fmt(fmt::FmtArgs),
}

/// The node `id` of the file's Scene; when there is none, says so (with where ids come from on
/// the command line) and answers the exit code.
fn find_node(file: &Path, scene: &nib::resolve::Scene, id: &str) -> Result<nib::resolve::SceneKey, ExitCode> {
    scene.find(id).map_err(|_| {
        tell!("nib: {}: node '{id}' not found", file.display());
        tell!("hint: use an id from `nib layout {}`; nodes inside instances are 'instance/child'", file.display());
        ExitCode::from(1)
    })
}

/// Says why `file` could not be compiled: exit 2 for a theme it does not define (`--theme`, a
/// usage mistake), 1 for the document (over a resolve budget).
fn compile_failed(file: &Path, error: nib::diagnostic::Diagnostic) -> ExitCode {
    let code = if error.code == "theme" { 2 } else { 1 };
    tell!("nib: {}", diagnostic_text(file, error));
    ExitCode::from(code)
}

/// A diagnostic about the file `path`, placed at its line and column (the file is read again:
/// only an error needs them).
fn diagnostic_text(path: &Path, diagnostic: nib::diagnostic::Diagnostic) -> String {
    printable_lines(&located(path, diagnostic).to_text(Some(path)))
}

/// `diagnostic` with the line and column of its place in the file `path` (read again: only an
/// error needs them), when the file can be read.
fn located(path: &Path, mut diagnostic: nib::diagnostic::Diagnostic) -> nib::diagnostic::Diagnostic {
    if let Ok(text) = std::fs::read_to_string(path) {
        diagnostic.locate(&text);
    }
    diagnostic
}

/// A warning on standard error, on one line: what a document names in it (node names, font
/// families, image URLs) may hold a terminal's escape sequences, which are shown escaped.
fn warn(what: &dyn std::fmt::Display) {
    tell!("nib: warning: {}", nib::printable::one_line(&what.to_string()));
}

/// Says why a command stopped: `nib: ` and the diagnostic, its hints on lines of their own.
fn fail(error: &nib::diagnostic::Diagnostic) {
    tell!("nib: {}", printable_lines(&error.to_text(None)));
}

/// A command-line argument nib does not take: the message says what to give instead (clap
/// shows it after the argument's name).
fn argument_error(message: String) -> nib::diagnostic::Diagnostic {
    nib::diagnostic::Diagnostic::error("argument", message)
}

/// `text` with each of its lines' control characters escaped (a diagnostic's message and its
/// hints keep their own lines).
fn printable_lines(text: &str) -> String {
    text.lines().map(nib::printable::one_line).collect::<Vec<_>>().join("\n")
}

/// `message` about the value at `pointer` in the file `path`, prefixed with its line and column
/// (read from the file again: only an error needs them) and followed by `hint`.
fn located_text(path: &Path, pointer: &str, message: &str, hint: Option<&str>) -> String {
    let location = std::fs::read_to_string(path).ok().and_then(|text| nib::doc::locate_pointer(&text, pointer));
    let place = match location {
        Some(location) => format!("{}:{}:{}", path.display(), location.line, location.column),
        None => path.display().to_string(),
    };
    match hint {
        Some(hint) => format!("{place}: {message}\n  hint: {hint}"),
        None => format!("{place}: {message}"),
    }
}

/// The image services the environment configures for G(); settings it does not understand are
/// reported on standard error (standard output carries the answer).
fn configured_images() -> nib::images::ConfiguredImages {
    let settings = nib::images::ImageSettings::from_env();
    for warning in &settings.warnings {
        tell!("nib: {warning}");
    }
    nib::images::ConfiguredImages::new(&settings)
}

/// The fonts a command uses: `--system-fonts`, `--font-dir` and the environment (what it says
/// that nib does not understand goes to standard error).
fn font_options(system_fonts: bool, font_dirs: Vec<PathBuf>) -> nib::text::FontOptions {
    let (options, warnings) = nib::host::user_font_options(system_fonts, font_dirs);
    for warning in warnings {
        warn(&warning);
    }
    options
}

/// `NIB_RENDER_MEMORY` (bytes, or with `MB`/`GB`), when set, becomes the memory all renders of
/// this process may hold; an error (for the command line to show) when it is not a size, and
/// the render stage keeps its default.
fn render_memory_from_environment() -> Result<(), nib::diagnostic::Diagnostic> {
    let Ok(text) = std::env::var("NIB_RENDER_MEMORY") else { return Ok(()) };
    let bytes = nib::render::memory::parse_bytes(&text).ok_or_else(|| {
        nib::diagnostic::Diagnostic::error("environment", format!("NIB_RENDER_MEMORY={text:?} is not a size"))
            .with_hint("give bytes, e.g. 512MB or 2GB")
    })?;
    nib::render::memory::set_render_memory(bytes);
    Ok(())
}

/// Runs the parsed command.
pub fn run(args: Args) -> std::io::Result<ExitCode> {
    let Args { command, system_fonts, font_dirs, library_dirs } = args;
    nib::host::libraries::set_library_dirs(library_dirs);
    // A render budget that is not a size would silently fall back to the default.
    if let Err(error) = render_memory_from_environment() {
        fail(&error);
        return Ok(ExitCode::from(2));
    }
    let fonts = || font_options(system_fonts, font_dirs.clone());
    match command {
        Command::Check(args) => Ok(args.run(fonts())),
        Command::Apply(args) => Ok(args.run(fonts())),
        Command::Render(args) => Ok(args.run(fonts())),
        Command::Export(args) => Ok(args.run(fonts())),
        Command::Layout(args) => Ok(args.run(fonts())),
        Command::Exec(args) => Ok(args.run(fonts())),
        Command::Call(args) => Ok(args.run(fonts())),
        Command::Mcp(args) => args.run(fonts),
        Command::Serve(args) => args.run(fonts),
        Command::Lint(args) => Ok(args.run(fonts())),
        Command::Snapshot(args) => Ok(args.run(fonts())),
        Command::Diff(args) => Ok(args.run(fonts())),
        Command::Outline(args) => Ok(args.run()),
        Command::MergeDriver(args) => Ok(args.run()),
        Command::Fonts(args) => Ok(args.run(fonts())),
        Command::Migrate(args) => Ok(args.run()),
        Command::Fmt(args) => Ok(args.run()),
    }
}
