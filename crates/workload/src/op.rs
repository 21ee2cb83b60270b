//! The per-rank operation model: what one MPI rank does, in order.
//!
//! Times are integer picoseconds (the engine's unit); sizes and offsets are bytes.
//! An [`Op`] is 24 bytes, so a job with millions of operations stays small.

use serde::{Deserialize, Serialize};

/// Picoseconds in one second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;
/// Picoseconds in one millisecond.
pub const PS_PER_MS: u64 = 1_000_000_000;
/// Picoseconds in one microsecond.
pub const PS_PER_US: u64 = 1_000_000;

/// Converts a duration or timestamp in seconds (as Darshan stores them) to picoseconds.
///
/// Negative, NaN and infinite inputs (Darshan writes `-1` for "not recorded") map to 0;
/// values beyond `u64::MAX` ps (about 213 days) saturate.
pub fn secs_to_ps(secs: f64) -> u64 {
    if secs.is_nan() || secs <= 0.0 {
        return 0;
    }
    let ps = (secs * PS_PER_SEC as f64).round();
    if ps >= u64::MAX as f64 {
        u64::MAX
    } else {
        ps as u64
    }
}

/// Identifier of a file inside its job's file table ([`crate::JobSpec::files`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FileId(pub u32);

/// Identifier of a communicator of a job: [`CommId::WORLD`] is the whole job,
/// `CommId(k)` for `k >= 1` is the job's sub-communicator `k - 1`
/// ([`crate::JobSpec::subcomms`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CommId(pub u32);

impl CommId {
    /// The communicator holding every rank of the job (`MPI_COMM_WORLD`).
    pub const WORLD: CommId = CommId(0);
}

/// One operation of one rank. Every I/O operation is blocking: the rank's next operation
/// starts when this one has completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Op {
    /// Computation (or any non-I/O activity) lasting `ps` picoseconds.
    Compute {
        /// Duration in picoseconds.
        ps: u64,
    },
    /// Open (create if needed) `file`.
    Open {
        /// File opened.
        file: FileId,
    },
    /// Write `size` bytes at byte `offset` of `file`.
    Write {
        /// File written.
        file: FileId,
        /// Byte offset of the first byte written.
        offset: u64,
        /// Number of bytes written.
        size: u64,
    },
    /// Read `size` bytes at byte `offset` of `file`.
    Read {
        /// File read.
        file: FileId,
        /// Byte offset of the first byte read.
        offset: u64,
        /// Number of bytes read.
        size: u64,
    },
    /// Close `file`.
    Close {
        /// File closed.
        file: FileId,
    },
    /// Delete (unlink) `file`; a burst buffer may TRIM its data.
    Delete {
        /// File deleted.
        file: FileId,
    },
    /// Wait until every rank of communicator `comm` has reached this barrier.
    Barrier {
        /// Communicator synchronised.
        comm: CommId,
    },
    /// Send `bytes` bytes to rank `to` of the same job (buffered, as MPI's eager protocol):
    /// the message is handed to the node's NIC and the rank goes on at once; a message to a
    /// rank on the same node is a memory copy and costs nothing. Point-to-point data movement
    /// such as ROMIO's collective-buffering exchange.
    Send {
        /// Destination rank (job-local).
        to: u32,
        /// Message size in bytes.
        bytes: u64,
    },
    /// Wait until `bytes` bytes sent by rank `from` of the same job have arrived (messages
    /// from one rank are taken in arrival order; their bytes add up).
    Recv {
        /// Source rank (job-local).
        from: u32,
        /// Bytes awaited.
        bytes: u64,
    },
}

impl Op {
    /// The file this operation touches, if any.
    pub fn file(&self) -> Option<FileId> {
        match *self {
            Op::Open { file }
            | Op::Write { file, .. }
            | Op::Read { file, .. }
            | Op::Close { file }
            | Op::Delete { file } => Some(file),
            Op::Compute { .. } | Op::Barrier { .. } | Op::Send { .. } | Op::Recv { .. } => None,
        }
    }

    /// Bytes written by this operation (0 unless it is a write).
    pub fn bytes_written(&self) -> u64 {
        match *self {
            Op::Write { size, .. } => size,
            _ => 0,
        }
    }

    /// Bytes read by this operation (0 unless it is a read).
    pub fn bytes_read(&self) -> u64 {
        match *self {
            Op::Read { size, .. } => size,
            _ => 0,
        }
    }

    /// Compute time of this operation in picoseconds (0 unless it is a compute op).
    pub fn compute_ps(&self) -> u64 {
        match *self {
            Op::Compute { ps } => ps,
            _ => 0,
        }
    }

    /// True for reads and writes (the operations that move data).
    pub fn is_data(&self) -> bool {
        matches!(self, Op::Write { .. } | Op::Read { .. })
    }

    /// Returns a copy with its file id replaced by `map(file)` (no-op for ops without a file).
    pub fn with_file(self, map: impl FnOnce(FileId) -> FileId) -> Op {
        match self {
            Op::Open { file } => Op::Open { file: map(file) },
            Op::Write { file, offset, size } => Op::Write {
                file: map(file),
                offset,
                size,
            },
            Op::Read { file, offset, size } => Op::Read {
                file: map(file),
                offset,
                size,
            },
            Op::Close { file } => Op::Close { file: map(file) },
            Op::Delete { file } => Op::Delete { file: map(file) },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_is_compact() {
        assert!(
            std::mem::size_of::<Op>() <= 24,
            "{}",
            std::mem::size_of::<Op>()
        );
    }

    #[test]
    fn secs_to_ps_handles_edges() {
        assert_eq!(secs_to_ps(1.5), 1_500_000_000_000);
        assert_eq!(secs_to_ps(-1.0), 0);
        assert_eq!(secs_to_ps(f64::NAN), 0);
        assert_eq!(secs_to_ps(1e300), u64::MAX);
        assert_eq!(secs_to_ps(1e-12), 1);
    }

    #[test]
    fn accessors() {
        let w = Op::Write {
            file: FileId(3),
            offset: 8,
            size: 100,
        };
        assert_eq!(w.bytes_written(), 100);
        assert_eq!(w.bytes_read(), 0);
        assert_eq!(w.file(), Some(FileId(3)));
        assert!(w.is_data());
        assert_eq!(w.with_file(|f| FileId(f.0 + 1)).file(), Some(FileId(4)));
        let c = Op::Compute { ps: 9 };
        assert_eq!(c.compute_ps(), 9);
        assert_eq!(c.file(), None);
        assert_eq!(
            Op::Barrier {
                comm: CommId::WORLD
            }
            .file(),
            None
        );
    }
}
