//! Where a picture's time goes (`nib render --timings`): the stages a frame passes through,
//! measured with the clock around the calls that already exist. Nothing is measured unless a
//! caller asks: the painter's accounting is an `Option` that stays `None`, and the compile
//! stages check one thread-local flag.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// The painter's time by what it was painting. Each moment is charged to the outermost kind
/// being painted (a text filled with a gradient is text), so the kinds never overlap and
/// `other` is what is left of the whole paint.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PaintTimings {
    /// Glyph outlines filled.
    pub text: Duration,
    /// Layer and background blurs.
    pub blur: Duration,
    /// Drop and inner shadows.
    pub shadows: Duration,
    /// Image fills.
    pub images: Duration,
    /// Gradient and mesh fills.
    pub gradients: Duration,
    /// Everything else: solid fills, strokes, icons, layers and their compositing.
    pub other: Duration,
    /// The whole paint.
    pub total: Duration,
    /// A kind is being timed: what it paints inside is charged to it, not again.
    running: bool,
}

/// What the painter can be painting, for [`PaintTimings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    Blur,
    Shadows,
    Images,
    Gradients,
}

impl PaintTimings {
    /// Starts timing a kind, unless one is already being timed (then what it paints now is
    /// part of that one).
    pub(crate) fn start(timings: &mut Option<&mut PaintTimings>) -> Option<Instant> {
        let timings = timings.as_deref_mut()?;
        if timings.running {
            return None;
        }
        timings.running = true;
        Some(Instant::now())
    }

    /// Charges the time since `started` (from [`PaintTimings::start`]) to `kind`.
    pub(crate) fn charge(timings: &mut Option<&mut PaintTimings>, kind: Kind, started: Option<Instant>) {
        let (Some(timings), Some(started)) = (timings.as_deref_mut(), started) else { return };
        let spent = started.elapsed();
        timings.running = false;
        *match kind {
            Kind::Text => &mut timings.text,
            Kind::Blur => &mut timings.blur,
            Kind::Shadows => &mut timings.shadows,
            Kind::Images => &mut timings.images,
            Kind::Gradients => &mut timings.gradients,
        } += spent;
    }

    /// Closes the paint that took `total`: what no kind took is `other`.
    pub(crate) fn finish(&mut self, total: Duration) {
        self.total += total;
        let kinds = self.text + self.blur + self.shadows + self.images + self.gradients;
        self.other = self.total.saturating_sub(kinds);
    }
}

/// One picture's time, stage by stage: reading the file, resolving, fonts and shaping, layout,
/// the display list, painting and PNG encoding, and the whole run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timings {
    /// Reading and parsing the file.
    pub read: Duration,
    /// Resolving the Scene (components, variables, imports).
    pub resolve: Duration,
    /// Reading fonts and shaping text (during layout, taken out of it).
    pub text: Duration,
    /// Layout without the text shaping it asked for.
    pub layout: Duration,
    /// Building the target's display list.
    pub display: Duration,
    /// Painting, by content kind.
    pub paint: PaintTimings,
    /// Encoding the PNG.
    pub encode: Duration,
    /// The whole run, from reading the file to the PNG written.
    pub total: Duration,
}

/// The compile stages measured on this thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Resolving (and loading the imports it needs).
    Resolve,
    /// Reading the fonts.
    Fonts,
    /// Layout, text shaping included (taken out by [`Timings::add_compile`]).
    Layout,
}

thread_local! {
    /// Resolve, fonts and layout time on this thread, when a caller asked for it.
    static COMPILE: Cell<Option<[Duration; 3]>> = const { Cell::new(None) };
}

/// Starts measuring the compile stages on this thread (they run on the caller's thread).
pub fn start_compile_clock() {
    COMPILE.set(Some([Duration::ZERO; 3]));
    crate::text::start_shaping_clock();
}

/// Runs `f`, charging its time to `stage` when the compile clock runs on this thread.
pub(crate) fn stage<T>(stage: Stage, f: impl FnOnce() -> T) -> T {
    if COMPILE.get().is_none() {
        return f();
    }
    let started = Instant::now();
    let result = f();
    let spent = started.elapsed();
    if let Some(mut stages) = COMPILE.get() {
        stages[stage as usize] += spent;
        COMPILE.set(Some(stages));
    }
    result
}

impl Timings {
    /// Stops the compile clock of this thread and adds what it measured: shaping, measured
    /// inside layout, is moved from layout to text.
    pub fn add_compile(&mut self) {
        let [resolve, fonts, layout] = COMPILE.replace(None).unwrap_or_default();
        let shaping = crate::text::stop_shaping_clock().unwrap_or_default();
        self.resolve += resolve;
        self.text += fonts + shaping;
        self.layout += layout.saturating_sub(shaping);
    }

    /// The stages, named, in milliseconds: paint's kinds as `paint.text` and so on.
    pub fn stages(&self) -> Vec<(&'static str, f64)> {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let p = &self.paint;
        vec![
            ("read", ms(self.read)),
            ("resolve", ms(self.resolve)),
            ("text", ms(self.text)),
            ("layout", ms(self.layout)),
            ("display", ms(self.display)),
            ("paint.text", ms(p.text)),
            ("paint.blur", ms(p.blur)),
            ("paint.shadows", ms(p.shadows)),
            ("paint.images", ms(p.images)),
            ("paint.gradients", ms(p.gradients)),
            ("paint.other", ms(p.other)),
            ("encode", ms(self.encode)),
        ]
    }
}
