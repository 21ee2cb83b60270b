//! Configuration and run errors of the network model.

use std::fmt;

/// An error from building or running a network: a bad parameter (named, with what was expected)
/// or an engine failure during a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// A configuration parameter is out of range or inconsistent with the others.
    Invalid {
        /// The parameter, e.g. `fat_tree.radix`.
        param: String,
        /// What was expected, e.g. `an even number >= 4`.
        expected: String,
        /// What was given.
        got: String,
    },
    /// The engine stopped the run with an error (a model contract violation).
    Engine(String),
}

impl NetError {
    /// Builds an [`NetError::Invalid`] from its parts.
    pub fn invalid(
        param: impl Into<String>,
        expected: impl Into<String>,
        got: impl fmt::Display,
    ) -> Self {
        NetError::Invalid {
            param: param.into(),
            expected: expected.into(),
            got: got.to_string(),
        }
    }
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Invalid {
                param,
                expected,
                got,
            } => write!(f, "invalid {param}: expected {expected}, got {got}"),
            NetError::Engine(e) => write!(f, "network simulation failed: {e}"),
        }
    }
}

impl std::error::Error for NetError {}

impl From<bbsim_engine::EngineError> for NetError {
    fn from(e: bbsim_engine::EngineError) -> Self {
        NetError::Engine(e.to_string())
    }
}

/// Checks `value >= min`, naming `param` otherwise.
pub(crate) fn at_least(param: &str, value: u64, min: u64) -> Result<(), NetError> {
    if value < min {
        Err(NetError::invalid(param, format!("at least {min}"), value))
    } else {
        Ok(())
    }
}
