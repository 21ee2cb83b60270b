//! The storage crate's event payload, embedded by the simulator in its global event type.

use crate::bb_server::BbEvent;
use crate::pfs::PfsEvent;
use crate::ssd::SsdEvent;

/// Every event a storage component schedules. Components send them with
/// `ctx.send_self(delay, E::from(StorageEvent::...))` (or to a PFS backend LP), so the host
/// LP's event type `E` must implement `From<StorageEvent>`; the host routes each variant back
/// to the component that owns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageEvent {
    /// A timer of an SSD owned directly by the host LP (a node-local SSD): hand to
    /// [`crate::ssd::Ssd::handle`] of device [`SsdEvent::dev`].
    Ssd(SsdEvent),
    /// A timer of the host's BB server: hand the whole event to
    /// [`crate::bb_server::BbServer::handle`] (BB servers also receive their SSDs' `Ssd` events).
    Bb(BbEvent),
    /// A PFS event: hand to [`crate::pfs::PfsBackend::handle`] on the backend LP, or to
    /// [`crate::pfs::IoNode::handle`] on an I/O node LP.
    Pfs(PfsEvent),
}
