//! One integration test binary, so the crate links once.

// Test helpers are not `#[test]` functions, so clippy.toml's test
// allowances do not reach them; a failed unwrap in a test is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
