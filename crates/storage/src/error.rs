//! Configuration errors that name the offending key.

use std::fmt;

/// A rejected configuration value. `key` is the dotted path of the setting as the scenario file
/// spells it relative to the component (for example `ssd.write_bandwidth`); the sim crate
/// prefixes its own section with [`ConfigError::within`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted key of the bad setting.
    pub key: String,
    /// What is wrong with it (for example `must be > 0`).
    pub message: String,
}

impl ConfigError {
    /// An error for `key` with `message`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            key: key.into(),
            message: message.into(),
        }
    }

    /// The same error with `prefix.` put in front of its key (`burst_buffer` + `ssd.x` gives
    /// `burst_buffer.ssd.x`).
    pub fn within(mut self, prefix: &str) -> Self {
        if !prefix.is_empty() {
            self.key = if self.key.is_empty() {
                prefix.to_string()
            } else {
                format!("{prefix}.{}", self.key)
            };
        }
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.key, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Checks that `value` is positive, naming `key` otherwise.
pub(crate) fn positive(key: &str, value: u64) -> Result<(), ConfigError> {
    if value == 0 {
        Err(ConfigError::new(key, "must be > 0"))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_prefixed() {
        let e = ConfigError::new("ssd.write_bandwidth", "must be > 0").within("burst_buffer");
        assert_eq!(
            e.to_string(),
            "burst_buffer.ssd.write_bandwidth must be > 0"
        );
        assert_eq!(ConfigError::new("", "x").within("a").key, "a");
        assert!(positive("k", 0).is_err());
        assert!(positive("k", 1).is_ok());
    }
}
