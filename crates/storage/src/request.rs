//! I/O requests and replies as they travel between clients, BB servers and the PFS.

/// Direction of an I/O operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoOp {
    /// Data flows from the requester to the device.
    Write,
    /// Data flows from the device to the requester.
    Read,
}

/// An opaque network address (a terminal index, or an LP id in the standalone harness) that
/// replies are sent to. Storage never interprets it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint(pub u32);

/// Why a request exists.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RequestKind {
    /// Application I/O from a compute node.
    Client,
    /// Stage-out of burst-buffer data to the PFS (sent by a BB server).
    Drain,
    /// A write the BB could not hold, forwarded to the PFS (sent by a BB server).
    Spill,
    /// Stage-in of PFS data into the BB before a job (sent by a BB server).
    StageIn,
    /// Background copy of node-local SSD data to the PFS (sent by a compute node).
    LocalDrain,
    /// An open, close or delete of a PFS file, for the PFS metadata service (no bytes; sent
    /// by a compute node only when the PFS has one).
    Metadata,
}

/// Bytes of protocol header assumed for every request and reply on the wire.
pub const HEADER_BYTES: u64 = 64;

/// One I/O request to a storage target (a BB server or a PFS I/O node).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoRequest {
    /// Identifier chosen by the sender, echoed in the reply.
    pub id: u64,
    /// Where the reply goes.
    pub origin: Endpoint,
    /// Read or write.
    pub op: IoOp,
    /// Why the request exists.
    pub kind: RequestKind,
    /// Capacity-accounting key: a job id or a reservation (DataWarp allocation) id.
    pub alloc: u32,
    /// Stream key for multi-stream SSD placement (a user or job id).
    pub stream: u32,
    /// File (object) identifier, unique within `alloc`.
    pub file: u64,
    /// Byte offset in the target's view of the file (after client-side striping).
    pub offset: u64,
    /// Bytes to transfer.
    pub len: u64,
    /// Operations the request stands for: 1, or `k > 1` for a transfer train, `k` operations
    /// of `len / k` bytes each (the last takes the remainder) that one client issues back to
    /// back to consecutive offsets. The target charges each operation as if it had come on its
    /// own and serves them one after another.
    pub ops: u32,
    /// Network hops taken so far; the network adds the hops of each delivery.
    pub hops: u32,
}

impl IoRequest {
    /// Bytes of each operation of the request (`len` for a plain request; `len / ops` rounded
    /// up for a train).
    pub fn op_len(&self) -> u64 {
        self.len.div_ceil(u64::from(self.ops.max(1))).max(1)
    }

    /// Bytes this request puts on the wire: the header, plus the data for a write.
    pub fn wire_bytes(&self) -> u64 {
        match self.op {
            IoOp::Write => HEADER_BYTES + self.len,
            IoOp::Read => HEADER_BYTES,
        }
    }
}

/// How a request was satisfied.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReplyStatus {
    /// Served by the target.
    Done,
    /// The BB was full and the write went to the PFS instead.
    Spilled,
    /// A read of bytes the target does not hold (timed as a device read nonetheless).
    Missing,
}

/// The reply to an [`IoRequest`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoReply {
    /// The request's `id`.
    pub id: u64,
    /// The request's operation.
    pub op: IoOp,
    /// The request's kind.
    pub kind: RequestKind,
    /// Bytes transferred.
    pub len: u64,
    /// The endpoint that served the request.
    pub server: Endpoint,
    /// How it was satisfied.
    pub status: ReplyStatus,
    /// Network hops of the request plus those of the reply so far (the network adds the
    /// reply's hops on delivery).
    pub hops: u32,
    /// Time the request waited at the server for space (ps): a write to a full burst buffer
    /// with `full_policy = "stall"`.
    pub stalled: bbsim_engine::Time,
    /// When its last wait for space ended (ps; 0 if it never waited): a write waits once, so
    /// it waited over `[stall_end - stalled, stall_end)`.
    pub stall_end: bbsim_engine::Time,
}

impl IoReply {
    /// Bytes this reply puts on the wire: the header, plus the data for a read.
    pub fn wire_bytes(&self) -> u64 {
        match self.op {
            IoOp::Read => HEADER_BYTES + self.len,
            IoOp::Write => HEADER_BYTES,
        }
    }
}

/// A storage message carried by the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageMsg {
    /// A request to a BB server or PFS I/O node.
    Request(IoRequest),
    /// A reply to the requester.
    Reply(IoReply),
}

impl StorageMsg {
    /// Bytes on the wire (for packetisation).
    pub fn wire_bytes(&self) -> u64 {
        match self {
            StorageMsg::Request(r) => r.wire_bytes(),
            StorageMsg::Reply(r) => r.wire_bytes(),
        }
    }

    /// Data bytes on the wire: [`StorageMsg::wire_bytes`] without the [`HEADER_BYTES`] header.
    pub fn data_bytes(&self) -> u64 {
        self.wire_bytes() - HEADER_BYTES
    }

    /// Adds `hops` to the message's hop count (called by the network on delivery).
    pub fn add_hops(&mut self, hops: u32) {
        match self {
            StorageMsg::Request(r) => r.hops += hops,
            StorageMsg::Reply(r) => r.hops += hops,
        }
    }
}

/// An application write of `len` bytes at offset 0 of file 0, request `id` (for tests).
#[cfg(test)]
pub(crate) fn test_write(id: u64, len: u64) -> IoRequest {
    IoRequest {
        id,
        origin: Endpoint(0),
        op: IoOp::Write,
        kind: RequestKind::Client,
        alloc: 0,
        stream: 0,
        file: 0,
        offset: 0,
        len,
        ops: 1,
        hops: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_sizes_carry_data_one_way() {
        let mut r = test_write(1, 1000);
        assert_eq!(r.wire_bytes(), 1064);
        r.op = IoOp::Read;
        assert_eq!(r.wire_bytes(), 64);
        let mut m = StorageMsg::Request(r);
        m.add_hops(3);
        m.add_hops(2);
        assert!(matches!(&m, StorageMsg::Request(r) if r.hops == 5));
        let reply = IoReply {
            id: 1,
            op: IoOp::Read,
            kind: RequestKind::Client,
            len: 1000,
            server: Endpoint(2),
            status: ReplyStatus::Done,
            hops: 0,
            stalled: 0,
            stall_end: 0,
        };
        assert_eq!(StorageMsg::Reply(reply).wire_bytes(), 1064);
    }
}
