//! Torus dimension-order routing with dateline virtual channels.
//!
//! A packet corrects dimension 0 first, then 1, ... taking the shorter direction (the positive
//! one on ties). Inside a dimension it uses VC 0 until it takes the wrap-around link (the
//! "dateline" between coordinate `k-1` and 0), and VC 1 from that link on; it returns to VC 0
//! when it turns into the next dimension. VC 0 never uses a wrap-around link and VC 1 is never
//! used for more than `k/2` hops after one, so neither VC's dependencies close a ring, and
//! dimension order orders the dimensions: the channel dependency graph is acyclic.

use crate::packet::Packet;
use crate::torus::TorusShape;

/// Output port and VC at router `r` toward router `dst_router != r`.
#[inline]
pub(crate) fn route(s: &TorusShape, r: u32, dst_router: u32, pkt: &Packet) -> (u16, u8) {
    for d in 0..s.dims.len() {
        let x = s.coord(r, d);
        let y = s.coord(dst_router, d);
        if x == y {
            continue;
        }
        let k = s.dims[d];
        let delta = (y + k - x) % k;
        let minus = delta > k - delta;
        let wraps = if minus { x == 0 } else { x == k - 1 };
        let same_dim = pkt.in_port == s.dim_port(d, false) || pkt.in_port == s.dim_port(d, true);
        let vc = u8::from(wraps || (same_dim && pkt.vc == 1));
        return (s.dim_port(d, minus), vc);
    }
    // Unreachable for r != dst_router; stay safe by ejecting on the first terminal port.
    (0, 0)
}
