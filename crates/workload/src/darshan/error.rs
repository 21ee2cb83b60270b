//! Errors of the Darshan reader: every message names the file, the region (or module),
//! the byte offset and what was expected.

use std::fmt;

/// Where in the log a problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A byte offset in the log file itself.
    File(u64),
    /// A byte offset in the decompressed contents of the region.
    Decompressed(u64),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(o) => write!(f, "file offset {o}"),
            Location::Decompressed(o) => write!(f, "decompressed offset {o}"),
        }
    }
}

/// Errors returned by the Darshan reader. It never panics on malformed input.
#[derive(Debug, thiserror::Error)]
pub enum DarshanError {
    /// The file could not be read.
    #[error("{file}: cannot read the file: {source}")]
    Io {
        /// Path of the log.
        file: String,
        /// Underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a (supported, intact) Darshan log.
    #[error("{file}: {region}: at {location}: {problem}")]
    Format {
        /// Path (or label) of the log.
        file: String,
        /// Region of the log: `header`, `job record`, `name records` or a module name.
        region: String,
        /// Byte offset of the problem.
        location: Location,
        /// What was expected and what was found.
        problem: String,
    },
}

impl DarshanError {
    /// The region named in a format error (`None` for I/O errors).
    pub fn region(&self) -> Option<&str> {
        match self {
            DarshanError::Format { region, .. } => Some(region),
            DarshanError::Io { .. } => None,
        }
    }
}

/// A format error before the file name is attached.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FormatError {
    pub region: String,
    pub location: Location,
    pub problem: String,
}

impl FormatError {
    pub(crate) fn new(region: &str, location: Location, problem: impl Into<String>) -> Self {
        FormatError {
            region: region.to_string(),
            location,
            problem: problem.into(),
        }
    }

    pub(crate) fn in_file(self, file: &str) -> DarshanError {
        DarshanError::Format {
            file: file.to_string(),
            region: self.region,
            location: self.location,
            problem: self.problem,
        }
    }
}
