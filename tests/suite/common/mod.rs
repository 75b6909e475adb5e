//! What several integration tests share: the corpus fixtures and the imports between them.

pub mod export;
pub mod mcp_client;

pub use nib_test_support::{Fixture, Fixtures, fixtures, load_with_imports};
