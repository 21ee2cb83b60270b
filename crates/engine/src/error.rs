//! Engine errors: model contract violations found while running.

use crate::event::LpId;
use crate::time::{format_time, Time};
use std::fmt;

/// An error that stops a run. Messages name the LPs and times involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// An event crossed clusters with less delay than the lookahead declared for its channel
    /// (or on a channel with no declared lookahead at all).
    LookaheadViolation {
        /// Sending LP and its label.
        src: (LpId, String),
        /// Receiving LP and its label.
        dst: (LpId, String),
        /// Send time (ps).
        send_time: Time,
        /// Receive time (ps).
        recv_time: Time,
        /// Declared lookahead for the channel (ps), `None` if no channel was declared.
        required: Option<Time>,
        /// Class names of the channel, `from -> to`.
        channel: String,
    },
    /// An event was addressed to an LP that does not exist.
    NoSuchLp {
        /// Sending LP.
        src: LpId,
        /// The bad destination.
        dst: LpId,
        /// Send time (ps).
        send_time: Time,
        /// Number of LPs in the simulation.
        nlp: usize,
    },
    /// The parallel executor needs a positive lookahead.
    ZeroLookahead,
    /// The simulation was already run.
    AlreadyRun,
    /// A worker thread panicked (a bug in a model).
    WorkerPanicked(String),
}

fn lp_name(id: LpId, label: &str) -> String {
    if label.is_empty() {
        id.to_string()
    } else {
        format!("{id} ({label})")
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::LookaheadViolation {
                src,
                dst,
                send_time,
                recv_time,
                required,
                channel,
            } => {
                let delay = recv_time.saturating_sub(*send_time);
                write!(
                    f,
                    "lookahead violation: {} sent an event to {} at {} for {} (delay {}), ",
                    lp_name(src.0, &src.1),
                    lp_name(dst.0, &dst.1),
                    format_time(*send_time),
                    format_time(*recv_time),
                    format_time(delay)
                )?;
                match required {
                    Some(req) => write!(
                        f,
                        "but channel {channel} declares a lookahead of {} and the LPs are on \
                         different clusters",
                        format_time(*req)
                    ),
                    None => write!(
                        f,
                        "but no lookahead is declared for channel {channel} and the LPs are on \
                         different clusters"
                    ),
                }
            }
            EngineError::NoSuchLp {
                src,
                dst,
                send_time,
                nlp,
            } => write!(
                f,
                "{src} sent an event at {} to {dst}, but the simulation has only {nlp} LPs",
                format_time(*send_time)
            ),
            EngineError::ZeroLookahead => write!(
                f,
                "the parallel executor needs a positive lookahead; declare a non-zero minimum \
                 delay for every channel that crosses clusters, or run with one thread"
            ),
            EngineError::AlreadyRun => write!(f, "this simulation has already been run"),
            EngineError::WorkerPanicked(m) => write!(f, "a worker thread panicked: {m}"),
        }
    }
}

impl std::error::Error for EngineError {}
