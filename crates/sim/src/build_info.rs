//! What bbsim was built from: the package version and the git commit, as `bbsim --version`
//! prints them and `summary.json` records them.

/// The git commit bbsim was built from (`git rev-parse --short HEAD`, `-dirty` when tracked
/// files differed from it), or `unknown` when built outside a git work tree.
pub const COMMIT: &str = env!("BBSIM_COMMIT");

/// The version line: package version and commit, e.g. `0.1.0 (2133a56)`.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("BBSIM_COMMIT"), ")");
