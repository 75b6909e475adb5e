//! What nib's tests and benches share, so that none keeps its own copy: the corpus of real
//! `.pen` files, the imports between them, and a corpus document compiled as the tools compile
//! one — `compile()` over a host — rather than resolved and laid out by hand. A dev-dependency
//! only: nothing nib ships names it.

mod fixtures;

pub use fixtures::{Fixture, FixtureHost, Fixtures, fixtures, load, load_with_imports};
