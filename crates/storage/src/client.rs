//! Client-side bookkeeping: one application I/O request split over several servers, and the
//! record it leaves (servers touched, network hops, times).

use crate::placement::Layout;
use crate::request::{Endpoint, IoOp, IoReply, IoRequest, ReplyStatus, RequestKind};
use bbsim_engine::Time;
use smallvec::SmallVec;
use std::collections::BTreeMap;

/// The per-server requests of one application request, inline up to two (a request rarely
/// spans more servers).
pub type Parts = SmallVec<[(Endpoint, IoRequest); 2]>;

/// Sub-requests per application request are numbered below this.
pub const MAX_PARTS: u64 = 1 << 16;

/// What one finished application I/O request did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoRecord {
    /// The application's request id.
    pub id: u64,
    /// Read or write.
    pub op: IoOp,
    /// Bytes.
    pub bytes: u64,
    /// Issue time (ps).
    pub start: Time,
    /// Completion time of the last part (ps).
    pub end: Time,
    /// Endpoints that served a part, sorted, without duplicates.
    pub servers: SmallVec<[Endpoint; 4]>,
    /// Largest request + reply hop count among the parts.
    pub max_hops: u32,
    /// Sum of request + reply hops over the parts.
    pub total_hops: u32,
    /// Whether any part was spilled to the PFS.
    pub spilled: bool,
    /// Longest time any part waited at a server for space (ps).
    pub stalled: Time,
    /// When that part's wait ended (ps; 0 without a wait): it waited over
    /// `[stall_end - stalled, stall_end)`.
    pub stall_end: Time,
}

#[derive(Clone, Debug)]
struct Track {
    left: u32,
    rec: IoRecord,
}

/// Splits application requests over a layout and gathers the replies.
#[derive(Clone, Debug, Default)]
pub struct IoTracker {
    pending: BTreeMap<u64, Track>,
}

/// The fields of an application request that its parts share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppRequest {
    /// Application request id (below `u64::MAX / MAX_PARTS`).
    pub id: u64,
    /// Read or write.
    pub op: IoOp,
    /// Capacity-accounting key (job or reservation).
    pub alloc: u32,
    /// Multi-stream key.
    pub stream: u32,
    /// File.
    pub file: u64,
    /// Offset in the file.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
    /// Operations it stands for: 1, or `k > 1` for a transfer train ([`IoRequest::ops`]);
    /// every part carries it, so a train should lie within one stripe of its layout.
    pub ops: u32,
}

impl IoTracker {
    /// Requests in progress.
    pub fn in_progress(&self) -> usize {
        self.pending.len()
    }

    /// Splits `app` over `layout` (whose indices point into `endpoints`), records it as started
    /// at `now`, and returns the per-server requests to send, replies to `me`.
    pub fn issue(
        &mut self,
        app: AppRequest,
        layout: &Layout,
        endpoints: &[Endpoint],
        me: Endpoint,
        now: Time,
    ) -> Parts {
        let chunks = layout.split(app.offset, app.len);
        let parts: Parts = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let to = endpoints[layout.servers[c.slot]];
                let req = IoRequest {
                    id: app.id * MAX_PARTS + i as u64,
                    origin: me,
                    op: app.op,
                    kind: RequestKind::Client,
                    alloc: app.alloc,
                    stream: app.stream,
                    file: app.file,
                    offset: c.offset,
                    len: c.len,
                    ops: app.ops,
                    hops: 0,
                };
                (to, req)
            })
            .collect();
        self.pending.insert(
            app.id,
            Track {
                left: parts.len() as u32,
                rec: IoRecord {
                    id: app.id,
                    op: app.op,
                    bytes: app.len,
                    start: now,
                    end: now,
                    servers: SmallVec::new(),
                    max_hops: 0,
                    total_hops: 0,
                    spilled: false,
                    stalled: 0,
                    stall_end: 0,
                },
            },
        );
        parts
    }

    /// Records a reply received at `now`; returns the application record when it was the last
    /// part.
    pub fn on_reply(&mut self, reply: &IoReply, now: Time) -> Option<IoRecord> {
        let id = reply.id / MAX_PARTS;
        let t = self.pending.get_mut(&id)?;
        t.left = t.left.saturating_sub(1);
        t.rec.end = now;
        if let Err(pos) = t.rec.servers.binary_search(&reply.server) {
            t.rec.servers.insert(pos, reply.server);
        }
        t.rec.max_hops = t.rec.max_hops.max(reply.hops);
        t.rec.total_hops += reply.hops;
        t.rec.spilled |= reply.status == ReplyStatus::Spilled;
        if reply.stalled > t.rec.stalled {
            t.rec.stalled = reply.stalled;
            t.rec.stall_end = reply.stall_end;
        }
        if t.left == 0 {
            self.pending.remove(&id).map(|t| t.rec)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_gathered_into_one_record() {
        let mut t = IoTracker::default();
        let layout = Layout {
            servers: vec![1, 0],
            stripe_size: 10,
        };
        let eps = [Endpoint(100), Endpoint(200)];
        let app = AppRequest {
            id: 3,
            op: IoOp::Write,
            alloc: 1,
            stream: 1,
            file: 9,
            offset: 0,
            len: 25,
            ops: 1,
        };
        let parts = t.issue(app, &layout, &eps, Endpoint(7), 50);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].0, Endpoint(200));
        assert_eq!(parts[0].1.len, 15);
        assert_eq!(parts[1].0, Endpoint(100));
        let reply = |r: &IoRequest, server: Endpoint, hops| IoReply {
            id: r.id,
            op: r.op,
            kind: r.kind,
            len: r.len,
            server,
            status: ReplyStatus::Done,
            hops,
            stalled: 0,
            stall_end: 0,
        };
        assert!(t
            .on_reply(&reply(&parts[0].1, Endpoint(200), 4), 70)
            .is_none());
        let rec = t
            .on_reply(&reply(&parts[1].1, Endpoint(100), 6), 90)
            .unwrap();
        assert_eq!(rec.servers.to_vec(), vec![Endpoint(100), Endpoint(200)]);
        assert_eq!((rec.max_hops, rec.total_hops), (6, 10));
        assert_eq!((rec.start, rec.end, rec.bytes), (50, 90, 25));
        assert_eq!(t.in_progress(), 0);
    }
}
