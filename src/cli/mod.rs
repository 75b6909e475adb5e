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

/// Takes the lock of the document at `file` for a command's whole read → change → write, so it
/// changes the file as the last writer left it (DESIGN.md, "Writers take turns"); when another
/// writer holds it past the wait, says so and answers exit 2.
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

fn lock_document(file: &Path) -> Result<nib::files::DocumentLock, ExitCode> {
    nib::files::DocumentLock::acquire(file).map_err(|error| {
        tell!("nib: {error}");
        ExitCode::from(2)
    })
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

/// The exit code of a document that could not be read: 1 when it was read and is not a valid
/// document (its content is refused), 2 when the file itself could not be read.
fn read_failure_code(error: &nib::doc::io::ReadError) -> u8 {
    match error {
        nib::doc::io::ReadError::Load { .. } => 1,
        nib::doc::io::ReadError::File(_) => 2,
    }
}

/// The exit code of a save that failed: 1 when the document would go past one of nib's limits
/// (the change is refused), 2 when the file could not be written.
fn save_failure_code(error: &nib::files::FileError) -> u8 {
    if over_limit(error).is_some() { 1 } else { 2 }
}

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
    Check {
        /// The files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also fail (exit 1) on warnings.
        #[arg(long)]
        strict: bool,
        /// Print only problems and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Run a batch_design script against a file; saves atomically only when every operation
    /// succeeds. Exits 1 when the script fails or the change is refused (the file is then
    /// untouched), 2 when the document or the script cannot be read or the file cannot be saved.
    Apply {
        /// The .pen file.
        file: PathBuf,
        /// The script file, or - to read it from standard input.
        script: PathBuf,
        /// Run and answer, but write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print the structured answer as JSON instead of Pencil's text.
        #[arg(long)]
        json: bool,
        /// Most operations allowed in the script.
        #[arg(long, default_value_t = nib::script::DEFAULT_MAX_STATEMENTS)]
        max_operations: usize,
        /// Generate new node ids from this number, so the same script on the same file gives the
        /// same ids every time (scripted builds, tests). By default ids are random.
        #[arg(long)]
        seed: Option<u64>,
        #[command(flatten)]
        writer: WriterArgs,
        /// Run only if the file is at this revision (its fileRevision, as `nib check --json`,
        /// `nib apply --json` and the tools give it); otherwise exit 1 and change nothing.
        #[arg(long, value_name = "REV")]
        if_revision: Option<String>,
    },
    /// Render a .pen file to PNG: the whole canvas by default, one node with --node, every
    /// top-level frame into a folder with --all.
    Render {
        /// The .pen file.
        file: PathBuf,
        /// Where to write: a .png file, or a folder for --all and several --node.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Render this node (id or instance path); repeat for several.
        #[arg(long = "node")]
        nodes: Vec<String>,
        /// Render every top-level frame as its own PNG, in parallel.
        #[arg(long, conflicts_with = "nodes")]
        all: bool,
        #[command(flatten)]
        picture: nib::render::RenderOptions,
        /// Print what was written, the warnings and the font files used as JSON (so CI can pin
        /// the fonts).
        #[arg(long)]
        json: bool,
        /// Draw under a theme: AXIS=VALUE (Mode=Dark; c:Mode=Dark for an axis of the import c),
        /// repeat for several axes. Every top-level frame selects it, as a themed instance of
        /// the frame would; `nib check` lists the themes a file defines.
        #[arg(long = "theme", value_name = "AXIS=VALUE", value_parser = theme::parse_theme)]
        theme: Vec<(String, String)>,
        /// Say where the time went, stage by stage (read, resolve, text, layout, display list,
        /// paint by content kind, PNG encode): a table on stderr, or a "timings" object in the
        /// --json report. One picture at a time: not with --all.
        #[arg(long, conflicts_with = "all")]
        timings: bool,
    },
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
    #[command(after_help = EXPORT_EXAMPLES)]
    Export {
        /// The .pen file.
        file: PathBuf,
        /// png, jpeg, webp, svg, pdf, html, html-tailwind, react, tokens-css, tokens-json or tailwind.
        #[arg(long, short, value_parser = nib::export::job::Format::parse)]
        format: nib::export::job::Format,
        /// Where to write: a file, or a folder for HTML, --all and several --node.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Export this node (id or instance path); repeat for several.
        #[arg(long = "node")]
        nodes: Vec<String>,
        /// Export every top-level frame (PDF: one page each).
        #[arg(long, conflicts_with = "nodes")]
        all: bool,
        #[command(flatten)]
        look: nib::export::options::ExportLook,
        /// SVG image fills: embed (data: URIs) or link (paths relative to the SVG).
        #[arg(long, value_enum, default_value_t = ImagesArg::Embed)]
        images: ImagesArg,
        /// Write nothing: compare the files there with what the export would write, list what
        /// differs, is missing or is left over, and exit 1 when anything does (for CI).
        #[arg(long)]
        check: bool,
        /// Fill behind the design, e.g. "#FFFFFF" (transparent by default; JPEG uses white).
        #[arg(long, value_parser = nib::render::parse_background)]
        background: Option<[u8; 4]>,
        /// Draw under a theme: AXIS=VALUE (Mode=Dark; c:Mode=Dark for an axis of the import c),
        /// repeat for several axes. Every top-level frame selects it, as a themed instance of
        /// the frame would; `nib check` lists the themes a file defines.
        #[arg(long = "theme", value_name = "AXIS=VALUE", value_parser = theme::parse_theme)]
        theme: Vec<(String, String)>,
    },
    /// Lay out a .pen file and print the boxes (x, y in the parent, position on the canvas,
    /// size) and the layout problems. With --problems, exits 1 when there are problems.
    Layout {
        /// The .pen file.
        file: PathBuf,
        /// Start from this node (id or instance path) instead of the whole canvas.
        #[arg(long)]
        node: Option<String>,
        /// Levels of children shown below the starting nodes.
        #[arg(long, default_value_t = 1)]
        depth: usize,
        /// Print only the problems.
        #[arg(long)]
        problems: bool,
        /// Print the JSON snapshot_layout answers instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a JavaScript snippet against a document, as the execute tool of `nib mcp --tools
    /// current` does, and print the answer. The file is saved only when the whole snippet ran;
    /// exits 1 (the file untouched) when it failed or the change is refused, 2 on a usage
    /// problem or when the document or the snippet cannot be read or the file cannot be saved.
    #[command(after_help = EXEC_EXAMPLES)]
    Exec {
        /// The .pen file.
        file: PathBuf,
        /// The snippet's file, or - to read it from standard input.
        script: String,
        #[command(flatten)]
        writer: WriterArgs,
        /// Run only if the file is at this revision (its fileRevision); otherwise exit 1 and
        /// change nothing.
        #[arg(long, value_name = "REV")]
        if_revision: Option<String>,
    },
    /// Run a design tool (get_editor_state, open_document, batch_get, batch_design, …) with JSON
    /// arguments exactly as over MCP, and print its JSON answer. As over MCP, every file it
    /// reads or writes must be inside the root folder. Exits 1 on an error answer (and on an
    /// answer with `"success": false`), 2 when the arguments are not JSON, the root cannot be
    /// used, or a file cannot be read or written (a failed save).
    Call {
        /// The tool's name.
        tool: String,
        /// The arguments as a JSON object; relative paths are against the root.
        #[arg(long, default_value = "{}")]
        args: String,
        /// The folder documents are in and relative paths start from (default: the working
        /// directory); paths outside it are refused, as `nib mcp --root` refuses them.
        #[arg(long)]
        root: Option<PathBuf>,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// Serve the design tools over MCP on stdin/stdout (register this command in an MCP client).
    /// Documents must be inside the root folder.
    Mcp {
        /// The folder documents are in and relative paths start from (default: the working
        /// directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Which tools to serve: Pencil's classic design tools, Pen's current surface (execute,
        /// get_app_state, read_skill, get_style), or all of them.
        #[arg(long, value_enum, default_value_t)]
        tools: nib::mcp::ToolSet,
    },
    /// Serve the design tools over MCP on streamable HTTP (at /mcp) and a live canvas of the
    /// documents in a browser (at /), sharing one workspace: people see every agent's change
    /// within half a second and select what the agents should work on.
    ///
    /// Loopback only by default. Listening on another address needs a token: MCP clients send
    /// it as `Authorization: Bearer TOKEN`; the printed one-time link logs a browser in.
    #[command(after_help = SERVE_EXAMPLES)]
    Serve {
        /// The folder documents are in and relative paths start from (default: the working
        /// directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// The address and port to listen on; port 0 picks a free one.
        #[arg(long, default_value = nib::serve::DEFAULT_LISTEN)]
        listen: std::net::SocketAddr,
        /// The token clients must present (at least 16 characters); generated when listening
        /// beyond loopback without one. Also read from NIB_SERVE_TOKEN.
        #[arg(long, env = "NIB_SERVE_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Another Host name to answer to, e.g. the machine's DNS name (repeatable).
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_host: Vec<String>,
        /// Another browser origin allowed to call, e.g. http://localhost:6274 (repeatable).
        #[arg(long = "allow-origin", value_name = "ORIGIN")]
        allow_origin: Vec<String>,
        /// Which tools MCP clients see: classic, current or all (as `nib mcp --tools`).
        #[arg(long, value_enum, default_value_t)]
        tools: nib::mcp::ToolSet,
        /// Seconds a request body may take to arrive, plus one for every 64 KiB of it; a
        /// slower one is answered 408 and its connection closed.
        #[arg(long, value_name = "SECONDS", default_value_t = nib::serve::BODY_READ_TIMEOUT.as_secs(),
              value_parser = clap::value_parser!(u64).range(1..))]
        body_timeout: u64,
    },
    /// Design lint: contrast (WCAG AA, against what is painted beneath), touch targets, small
    /// and covered text, colours and scales off the document's system, empty hugging frames,
    /// invisible text. Levels come from a preset, then `nib-lint.json` beside each file (or
    /// --config), then --rule. Exits 1 when a finding is a warning or an error, 2 when a file
    /// cannot be read.
    #[command(after_help = LINT_EXAMPLES)]
    Lint {
        /// The .pen files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// How to write the findings.
        #[arg(long, value_enum, default_value = "text")]
        format: lint::Format,
        /// recommended (default), strict or accessibility.
        #[arg(long)]
        preset: Option<String>,
        /// A rule's level, e.g. contrast=error or off-scale-spacing=off (repeatable).
        #[arg(long = "rule", value_name = "RULE=LEVEL")]
        rules: Vec<String>,
        /// A configuration file instead of nib-lint.json beside each document.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Snapshot tests for designs: compare every top-level frame with its approved PNG.
    ///
    /// Renders every top-level frame of the .pen files under PATHS and compares it with its
    /// golden image, __snapshots__/<file stem>/<frame id>.png beside the file. A missing golden
    /// is created (a first run creates them all); a frame that differs gets a diff image and its
    /// render in --diff-dir. Exits 0 when every frame matches, 1 when one differs, is missing
    /// (--ci) or cannot be rendered, 2 on a usage or I/O problem.
    #[command(after_help = SNAPSHOT_EXAMPLES)]
    Snapshot {
        /// .pen files, or folders searched recursively (__snapshots__, .git, target,
        /// node_modules and hidden folders are skipped).
        #[arg(required = true, value_name = "PATHS")]
        paths: Vec<PathBuf>,
        /// Approve the renders: rewrite the goldens of frames that differ, create missing ones,
        /// remove those whose frame is gone. Goldens that match are not touched.
        #[arg(long, conflicts_with = "ci")]
        update: bool,
        /// For CI: a missing golden fails instead of being created, and so does a golden whose
        /// frame is gone.
        #[arg(long)]
        ci: bool,
        /// Only the frames whose name or id matches this regular expression.
        #[arg(long, value_name = "REGEX", value_parser = snapshot::parse_regex)]
        frame: Option<regex::Regex>,
        /// Colour distance (0 identical, 1 black against white) above which a pixel differs.
        #[arg(long, value_name = "DISTANCE", default_value_t = nib::review::pixels::Tolerance::default().threshold, value_parser = snapshot::parse_threshold)]
        threshold: f64,
        /// Share of the pixels that may differ before a frame fails: 0–1 or a percentage
        /// such as 0.1%.
        #[arg(long, value_name = "SHARE", default_value_t = nib::review::pixels::Tolerance::default().max_share, value_parser = snapshot::parse_share)]
        max_diff_share: f64,
        /// Also count pixels that differ only because an anti-aliased edge moved.
        #[arg(long)]
        count_antialiasing: bool,
        /// Where the diff images and renders of failing frames go (<file>/<id>.diff.png and
        /// .actual.png), so the __snapshots__ folders hold goldens only.
        #[arg(long, value_name = "DIR", default_value = "snapshot-diffs")]
        diff_dir: PathBuf,
        /// Write a JUnit XML report: a test suite per file, a test case per frame.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Write a Markdown summary (it is also appended to $GITHUB_STEP_SUMMARY when set).
        #[arg(long, value_name = "FILE")]
        summary: Option<PathBuf>,
        /// Check part I of N (from 1): every frame falls to exactly one part, the same on every
        /// machine, so the jobs of a CI matrix split the work.
        #[arg(long, value_name = "I/N", default_value = "1/1", value_parser = snapshot::parse_shard)]
        shard: nib::review::snapshot::Shard,
        /// Draw every frame under a theme: AXIS=VALUE (Mode=Dark; c:Mode=Dark for an axis of
        /// the import c), repeat for several axes. Its goldens are kept apart, in
        /// __snapshots__/<file stem>@Mode=Dark/; a file without that axis or value fails.
        #[arg(long = "theme", value_name = "AXIS=VALUE", value_parser = theme::parse_theme)]
        theme: Vec<(String, String)>,
    },
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
    Diff {
        /// The old version: a file, or REV:path.
        old: String,
        /// The new version: a file, or REV:path.
        new: String,
        /// How to write the report.
        #[arg(long, value_enum, default_value_t = diff::Format::Text)]
        format: diff::Format,
        /// Draw the changed frames into this folder (html always draws, into nib-diff by default).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        picture: nib::render::RenderOptions,
    },
    /// Print a document as one line per node, for reading and for git diff (textconv).
    ///
    /// Each line is `type 'name' (id)` and the node's properties in a fixed order; version,
    /// imports, themes and variables come first. With `git config diff.nib.textconv "nib
    /// outline"` and `*.pen diff=nib` in .gitattributes, git diff shows changed nodes instead of
    /// JSON lines.
    Outline {
        /// The .pen file.
        file: PathBuf,
    },
    /// Merge two branches of a document by node id and property: a git merge driver. Exits 0
    /// merged, 1 conflict, 2 trouble.
    ///
    /// Configure `git config merge.nib.driver "nib merge-driver %O %A %B %P"` and `*.pen
    /// merge=nib` in .gitattributes. Changes to different nodes or properties merge; on success
    /// OURS is overwritten with the result. When both sides changed the same thing differently,
    /// nothing is written and the places are listed.
    MergeDriver {
        /// The common ancestor (git's %O).
        base: PathBuf,
        /// Our version, overwritten with the result (git's %A).
        ours: PathBuf,
        /// Their version (git's %B).
        theirs: PathBuf,
        /// The file's name in the repository, for messages (git's %P).
        name: Option<String>,
    },
    /// The fonts nib can use, the families a document needs and how each resolves, and fetching
    /// Google Fonts families into the cache ahead of an offline run.
    #[command(after_help = FONTS_EXAMPLES, args_conflicts_with_subcommands = true)]
    Fonts {
        /// A .pen file: list the families it needs and how each resolves (exits 1 when one is
        /// replaced).
        file: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        action: Option<FontsAction>,
    },
    /// Move .pen files to another format version (the newest, 2.20, by default), listing every
    /// change; a move down that would lose something is refused. Saves atomically. Exits 1 when
    /// a file does not load or cannot move without loss (or, with --check, would change), 2 when
    /// one cannot be read or saved.
    #[command(after_help = MIGRATE_EXAMPLES)]
    Migrate {
        /// The files to migrate.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The version to move to.
        #[arg(long, default_value_t = nib::doc::format::Version::NEWEST, value_parser = migrate::parse_version)]
        to: nib::doc::format::Version,
        /// Do not write; list the changes and exit 1 if a file is not at that version.
        #[arg(long)]
        check: bool,
    },
    /// Rewrite .pen files in the canonical form Pencil saves (2-space JSON, no comments).
    /// Exits 1 when a file does not load (or, with --check, is not canonical), 2 when one cannot
    /// be read or saved.
    Fmt {
        /// The files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Do not write; exit 1 if a file is not already canonical.
        #[arg(long)]
        check: bool,
    },
}

const MIGRATE_EXAMPLES: &str = "Examples:
  nib migrate design.pen                      to 2.20, as the current Pen app would
  nib migrate --check designs/*.pen           list what would change; exit 1 if anything would
  nib migrate --to 2.13 design.pen            back to 2.13 when nothing is lost";

const SERVE_EXAMPLES: &str = "Examples:
  nib serve --root designs/                   MCP at http://127.0.0.1:7777/mcp, the page at http://127.0.0.1:7777/
  nib serve --listen 127.0.0.1:0              any free port (printed)
  nib serve --listen 0.0.0.0:7777             reachable from other machines: prints a token and a one-time page link
  claude mcp add --transport http nib http://127.0.0.1:7777/mcp";

const EXEC_EXAMPLES: &str = "Examples:
  nib exec design.pen card.js                 run the snippet in card.js, save, print the answer
  echo 'return Get().map((n) => n.name);' | nib exec design.pen -
  nib mcp --tools current                     the same API for an MCP client (read_skill execute)";

#[derive(Debug, Subcommand)]
enum FontsAction {
    /// Fetch Google Fonts families into the cache folder (NIB_FONT_CACHE, else the platform's
    /// cache folder + nib/fonts), so later runs need no network.
    Fetch {
        /// The families, as the Google Fonts catalogue names them.
        #[arg(required = true, value_name = "FAMILY")]
        families: Vec<String>,
    },
}

const FONTS_EXAMPLES: &str = "Examples:
  nib fonts                                   every family nib can use, and where each comes from
  nib fonts design.pen                        the families design.pen needs and how each resolves
  nib fonts fetch \"Lobster\" \"DM Serif Display\"  cache Google Fonts families for offline runs
  nib --font-dir ./brand-fonts fonts design.pen  with your own font files
  NIB_FONTS=offline nib render design.pen     never fetch (replaced families are said on stderr)";

/// How `nib export` writes SVG image fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ImagesArg {
    /// Inside the SVG as data: URIs.
    Embed,
    /// Links to the image files.
    Link,
}

const EXPORT_EXAMPLES: &str = "Examples:
  nib export app.pen --format svg --node hero -o hero.svg
  nib export app.pen --format png --all --scale 2 -o frames/
  nib export app.pen --format pdf --all -o deck.pdf
  nib export app.pen --format html -o site/
  nib export app.pen --format html-tailwind -o web/   (then: npx @tailwindcss/cli -i web/tailwind.css -o web/styles.css)
  nib export app.pen --format react -o src/design/
  nib export app.pen --format react -o src/design/ --check   (exit 1 when the folder is not what it would write)
  nib export app.pen --format tokens-css -o tokens.css
  nib export app.pen --format png --all --theme Mode=Dark -o dark/   (every frame as its dark instance)";

const LINT_EXAMPLES: &str = "Examples:
  nib lint design.pen                               findings as text; exit 1 on a warning or an error
  nib lint --preset accessibility designs/*.pen     contrast, touch targets, small and covered text
  nib lint --rule off-scale-spacing=off design.pen  one rule's level (off, note, warning, error)
  nib lint --format sarif designs/*.pen > lint.sarif   for GitHub code scanning (upload-sarif)

Rules: contrast, touch-target, small-text, raw-color, near-color, off-scale-font-size,
off-scale-spacing, covered-text, empty-fit-content, invisible-text-fill.
nib-lint.json beside the files: {\"preset\": \"strict\", \"rules\": {\"near-color\": \"off\"}}";

const SNAPSHOT_EXAMPLES: &str = "Examples:
  nib snapshot designs/                       first run: creates the goldens
  nib snapshot designs/                       later runs: compare, exit 1 on a difference
  nib snapshot --update designs/              approve the changes (only differing goldens change)
  nib snapshot --ci --junit junit.xml designs/
  nib snapshot --ci --shard 2/4 designs/      the second of four CI jobs
  nib snapshot --frame '^Home' designs/app.pen
  nib snapshot --theme Mode=Dark designs/     the dark look, goldens in __snapshots__/<file>@Mode=Dark/";

/// A document that resolves past its budget, as `file:line:column: message` and the hint on
/// the next line, the way load errors are shown.
/// Reads `file` and the documents it imports, saying on standard error what could not be
/// imported; `Err` is the exit code when the file itself could not be read.
/// Reads the document at `file`; the error is printed.
/// Reads the document `file`; with `parts`, only what drawing those nodes needs (an excerpt,
/// see `Document::load_excerpt`).
fn read_document(file: &Path, parts: Option<&[String]>) -> Result<nib::doc::Document, ExitCode> {
    let read = match parts {
        Some(ids) => nib::doc::io::read_excerpt(file, ids),
        None => nib::doc::io::read_file(file),
    };
    read.map(|loaded| {
        // What a newer Pen wrote and nib keeps but does not draw, and what a save would change,
        // is said once, whatever the command (nib check lists every problem itself).
        for problem in loaded.problems.iter().filter(|p| p.kind.is_said_everywhere()) {
            warn(&format!("{}:{problem}", file.display()));
        }
        loaded.document
    })
    .map_err(|error| {
        tell!("nib: {error}");
        ExitCode::from(read_failure_code(&error))
    })
}

/// Reads `file` and the documents it imports (their problems printed as warnings).
fn read_with_imports(
    file: &Path,
    fonts: &nib::text::FontOptions,
) -> Result<(nib::doc::Document, nib::compile::Compiler<'static>), ExitCode> {
    let document = read_document(file, None)?;
    let host = nib::host::DiskHost::new(file, fonts.clone());
    let mut compiler = nib::compile::Compiler::shared(std::sync::Arc::new(host));
    for diagnostic in compiler.import_diagnostics(&document) {
        warn(&diagnostic);
    }
    Ok((document, compiler))
}

/// A batch_design script or an execute snippet (`what` names it) from a file, a pipe such as
/// `<(…)`, or standard input (`-`), refused as soon as it passes `limit` bytes, so an endless
/// stream cannot fill memory. Devices (`/dev/zero`), sockets and folders are refused before
/// they are read, as the document reader refuses them; a pipe is read (a shell's `<(…)` is
/// one), within the same limit.
fn read_script_text(path: &Path, limit: usize, what: &str) -> Result<String, nib::diagnostic::Diagnostic> {
    use nib::diagnostic::Diagnostic;
    use nib::files::{FileError, LimitedRead, read_limited, read_regular};
    let shown = if path == Path::new("-") { "standard input".to_owned() } else { path.display().to_string() };
    let error = |message: String| Diagnostic::error("script-file", message);
    let too_large = || {
        error(format!("the {what} in {shown} is larger than {limit} bytes, the most one call takes"))
            .with_hint("split the work over several calls")
    };
    let limited = |read: Result<Vec<u8>, LimitedRead>| {
        read.map_err(|e| match e {
            LimitedRead::Io(failure) => error(format!("reading the {what} from {shown}: {failure}")),
            LimitedRead::TooLarge => too_large(),
        })
    };
    let bytes = if path == Path::new("-") {
        limited(read_limited(std::io::stdin().lock(), limit as u64, 0))?
    } else if is_pipe(path) {
        let file = std::fs::File::open(path).map_err(|e| error(format!("the {what} {shown}: {e}")))?;
        limited(read_limited(file, limit as u64, 0))?
    } else {
        read_regular(path, limit as u64).map_err(|e| match e {
            FileError::TooLarge { .. } => too_large(),
            FileError::NotRegular { kind, .. } => error(format!("the {what} {shown} is {kind}"))
                .with_hint("give a file, a pipe such as <(…), or - for standard input"),
            other => error(format!("the {what}: {other}")),
        })?
    };
    String::from_utf8(bytes)
        .map_err(|e| error(format!("the {what} in {shown} is not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))
}

/// True for a pipe (a shell's `<(…)`, a FIFO).
fn is_pipe(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Why a document could not be saved, for a person: the limit it would go past and what to do,
/// when that is the reason (the file is then as it was).
fn save_error_text(error: &nib::files::FileError) -> String {
    match over_limit(error) {
        Some(over) => format!("{over}; the file is unchanged\n  hint: {}", over.hint()),
        None => error.to_string(),
    }
}

/// The limit a failed save would have gone past, when that is why it failed.
fn over_limit(error: &nib::files::FileError) -> Option<nib::doc::json::OverLimit> {
    match error {
        nib::files::FileError::Io { source, .. } => nib::doc::over_limit(source),
        _ => None,
    }
}

/// The refusal of a changed `document` that holds more nodes than a file may, or whose instances
/// expand past the document's budget, so that `nib check` would call the saved file invalid
/// (the other limits of the reader are counted as the file is written). A document already past the budget
/// before the change (`before`: the file as it is on disk) may still be saved, so it can be
/// repaired a step at a time, as the MCP tools allow (DECISIONS.md, Limits).
fn past_limits_refusal(
    document: &nib::doc::Document,
    host: &dyn nib::host::Host,
    before: impl FnOnce() -> Option<nib::doc::Document>,
) -> Option<String> {
    use nib::resolve::SceneOptions;
    if let Some(over) = document.past_node_limit() {
        return Some(format!("{over}; the file is unchanged\n  hint: {}", over.hint()));
    }
    let after = nib::compile::Compiler::new(host).partial_scene(document, SceneOptions::FULL);
    let error = after.error()?;
    let refusal = format!("{error}\n  hint: {}", error.hint());
    drop(after);
    let earlier = before()?;
    match nib::compile::Compiler::new(host).partial_scene(&earlier, SceneOptions::FULL).error() {
        Some(_) => None,
        None => Some(refusal),
    }
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

/// A text engine for `document` (read from `path`) with the fonts of `options` and the
/// document's own; what went wrong reading the user's font folders and the document's `fonts`
/// list is returned as warnings.
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
        Command::Check { files, strict, quiet } => {
            Ok(check::run(&files, check::Options { strict, quiet, fonts: fonts() }))
        }
        Command::Fonts { file, json, action } => Ok(match action {
            Some(FontsAction::Fetch { families }) => fonts::fetch(&families, &fonts()),
            None => fonts::run(file.as_deref(), json, &fonts()),
        }),
        Command::Fmt { files, check } => Ok(fmt::run(&files, check)),
        Command::Migrate { files, to, check } => Ok(migrate::run(&files, to, check)),
        Command::Snapshot {
            paths,
            update,
            ci,
            frame,
            threshold,
            max_diff_share,
            count_antialiasing,
            diff_dir,
            junit,
            summary,
            shard,
            theme,
        } => {
            let tolerance = nib::review::pixels::Tolerance {
                threshold,
                max_share: max_diff_share,
                ignore_antialiasing: !count_antialiasing,
            };
            let options =
                nib::review::snapshot::Options { tolerance, update, ci, frames: frame, shard, diff_dir, theme };
            // Goldens must come out the same on every machine: the user's font folders and the
            // documents' own fonts, never the cache, the network or the system.
            let fonts = nib::text::FontOptions { font_dirs: fonts().font_dirs, ..nib::text::FontOptions::default() };
            Ok(snapshot::run(&paths, snapshot::Settings { options, junit, summary, fonts }))
        }
        Command::Call { tool, args, root, writer } => {
            Ok(call::run(&tool, &args, root, fonts(), &writer.caller("nib call")))
        }
        Command::Lint { files, format, preset, rules, config } => {
            Ok(lint::run(&files, lint::Settings { format, preset, rules, config, fonts: fonts() }))
        }
        Command::Exec { file, script, writer, if_revision } => {
            Ok(exec::run(&file, &script, fonts(), &writer.caller("nib exec"), if_revision.as_deref()))
        }
        Command::Mcp { root, tools } => {
            allocator::for_a_server();
            stdout_pipe::widen();
            let root = match root {
                Some(root) => root,
                None => std::env::current_dir()?,
            };
            nib::mcp::serve_stdio_with(root, fonts(), tools)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve { root, listen, token, allow_host, allow_origin, tools, body_timeout } => {
            allocator::for_a_server();
            let root = match root {
                Some(root) => root,
                None => std::env::current_dir()?,
            };
            let options = nib::serve::ServeOptions {
                root,
                listen,
                token,
                allowed_hosts: allow_host,
                allowed_origins: allow_origin,
                fonts: fonts(),
                tools,
                body_timeout: std::time::Duration::from_secs(body_timeout),
            };
            nib::serve::serve(options).map_err(std::io::Error::other)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Apply { file, script, dry_run, json, max_operations, seed, writer, if_revision } => {
            let fonts = fonts();
            let writer = writer.caller("nib apply").writer;
            let settings = apply::Settings { dry_run, json, max_operations, seed, fonts, writer, if_revision };
            Ok(apply::run_command(&file, &script, settings))
        }
        Command::Render { file, output, nodes, all, picture, json, theme, timings } => {
            let fonts = fonts();
            let settings = render::Settings { output, nodes, all, picture, json, fonts, theme, timings };
            Ok(render::run(&file, settings))
        }
        Command::Diff { old, new, format, output, picture } => {
            let fonts = fonts();
            Ok(diff::run(&old, &new, diff::Settings { format, output, picture, fonts }))
        }
        Command::Outline { file } => Ok(outline::run(&file)),
        Command::Export { file, format, output, nodes, all, look, images, check, background, theme } => {
            let settings = export::Settings {
                format,
                output,
                nodes,
                all,
                look,
                link_images: images == ImagesArg::Link,
                background,
                fonts: fonts(),
                check,
                theme,
            };
            Ok(export::run_command(&file, settings))
        }
        Command::MergeDriver { base, ours, theirs, name } => Ok(merge::run(&base, &ours, &theirs, name.as_deref())),
        Command::Layout { file, node, depth, problems, json } => {
            Ok(layout::run(&file, layout::Settings { node, depth, problems, json, fonts: fonts() }))
        }
    }
}
