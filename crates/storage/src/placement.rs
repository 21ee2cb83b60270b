//! Where burst-buffer data goes: the placement kinds, the ordered stripe set of a client, and
//! the split of a file request into per-server requests.
//!
//! Placement never looks at the topology: callers pass the server terminals and a hop-count
//! function `hops(client_terminal, server_terminal)`.

use crate::error::{positive, ConfigError, StripeField};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// The chunks of one request, one per server touched, inline up to four (a request rarely
/// spans more servers; splitting happens once per application I/O operation).
pub type Chunks = SmallVec<[Chunk; 4]>;

/// Where burst buffers sit (`burst_buffer.placement`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// No burst buffer: I/O goes to the PFS.
    #[default]
    None,
    /// An SSD inside each compute node; local I/O never touches the network.
    NodeLocal,
    /// BB servers inside each group / under each edge switch.
    Grouped,
    /// BB servers on their own switches or groups.
    Global,
}

impl Placement {
    /// The name as a scenario file spells it (`none`, `node-local`, `grouped`, `global`).
    pub fn name(self) -> &'static str {
        match self {
            Placement::None => "none",
            Placement::NodeLocal => "node-local",
            Placement::Grouped => "grouped",
            Placement::Global => "global",
        }
    }

    /// Whether the placement has BB servers on the network (grouped or global).
    pub fn has_servers(self) -> bool {
        matches!(self, Placement::Grouped | Placement::Global)
    }
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Striping of a client's files over BB servers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StripeSpec {
    /// Servers a file is striped over.
    pub stripe_count: u32,
    /// Bytes per stripe.
    pub stripe_size: u64,
}

impl StripeSpec {
    /// Checks the spec against the number of servers available.
    pub fn validate(&self, servers: usize) -> Result<(), ConfigError<StripeField>> {
        positive(StripeField::StripeCount, u64::from(self.stripe_count))?;
        positive(StripeField::StripeSize, self.stripe_size)?;
        if self.stripe_count as usize > servers {
            return Err(ConfigError::new(
                StripeField::StripeCount,
                self.stripe_count,
                format!("must not be larger than the number of BB servers ({servers})"),
            ));
        }
        Ok(())
    }
}

/// The `count` servers a client at terminal `client` stripes over, as indices into `servers`
/// (server terminals): first the server nearest the client, then that server's neighbours in
/// increasing hop distance from it. Ties go to the server at or after `client mod n` in
/// cyclic list order (spreading equally near clients over equally near servers), then to
/// smaller cyclic distance from the first server.
pub fn stripe_set<F: Fn(u32, u32) -> u32>(
    client: u32,
    servers: &[u32],
    count: u32,
    hops: F,
) -> Result<Vec<usize>, ConfigError<StripeField>> {
    let n = servers.len();
    if n == 0 {
        return Err(ConfigError::new(
            StripeField::Servers,
            "none",
            "must list at least one BB server to stripe over",
        ));
    }
    positive(StripeField::StripeCount, u64::from(count))?;
    if count as usize > n {
        return Err(ConfigError::new(
            StripeField::StripeCount,
            count,
            format!("must not be larger than the number of BB servers ({n})"),
        ));
    }
    let rot = client as usize % n;
    let cyc = |from: usize, to: usize| (to + n - from) % n;
    let first = (0..n)
        .min_by_key(|&s| (hops(client, servers[s]), cyc(rot, s)))
        .unwrap_or(0);
    // Each server's key once (the hop distance may be a table lookup), then only the
    // `count - 1` nearest sorted: keys are distinct (the cyclic distance is), so a partial
    // selection gives the same set in the same order as a full sort.
    let mut rest: Vec<((u32, usize), usize)> = (0..n)
        .filter(|&s| s != first)
        .map(|s| ((hops(servers[first], servers[s]), cyc(first, s)), s))
        .collect();
    let take = count as usize - 1;
    if take > 0 && take < rest.len() {
        rest.select_nth_unstable(take - 1);
        rest.truncate(take);
    }
    rest.sort_unstable();
    let mut set = Vec::with_capacity(count as usize);
    set.push(first);
    set.extend(rest.into_iter().take(take).map(|(_, s)| s));
    Ok(set)
}

/// A part of a file request for one server of the stripe set.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Position in the stripe set.
    pub slot: usize,
    /// Offset in that server's part of the file (its stripes packed back to back).
    pub offset: u64,
    /// Bytes.
    pub len: u64,
}

/// A file layout: stripes of `stripe_size` round-robin over `servers` (indices into the
/// caller's server list, in stripe order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The stripe set.
    pub servers: Vec<usize>,
    /// Bytes per stripe.
    pub stripe_size: u64,
}

impl Layout {
    /// Splits `[offset, offset + len)` into at most one chunk per server (a server's stripes
    /// of one contiguous request are contiguous in its packed view), in stripe-set order.
    pub fn split(&self, offset: u64, len: u64) -> Chunks {
        let n = self.servers.len().max(1) as u64;
        let ss = self.stripe_size.max(1);
        let mut pos = offset;
        let end = offset.saturating_add(len);
        // Touching at most `n` stripes, every stripe has its own server: no merging needed.
        if end > offset && (end - 1) / ss - offset / ss < n {
            let mut chunks = Chunks::with_capacity(((end - 1) / ss - offset / ss + 1) as usize);
            while pos < end {
                let stripe = pos / ss;
                let within = pos % ss;
                let take = (ss - within).min(end - pos);
                chunks.push(Chunk {
                    slot: (stripe % n) as usize,
                    offset: (stripe / n) * ss + within,
                    len: take,
                });
                pos += take;
            }
            chunks.sort_by_key(|c| c.slot);
            return chunks;
        }
        if end <= offset {
            return Chunks::new();
        }
        // More stripes than servers: every server is touched. Its chunk starts at its first
        // stripe in the request and spans all its stripes up to the last one, computed in
        // closed form (a request of 2^63 bytes costs as much as one of a few stripes).
        let (first, last) = (offset / ss, (end - 1) / ss);
        let head = offset % ss; // bytes of the first stripe before the request
        let tail = ss - ((end - 1) % ss + 1); // bytes of the last stripe after it
        (0..n)
            .map(|slot| {
                let f = first + (slot + n - first % n) % n;
                let k = (last - f) / n + 1;
                let mut len = u128::from(k) * u128::from(ss);
                if f == first {
                    len -= u128::from(head);
                }
                if f + (k - 1) * n == last {
                    len -= u128::from(tail);
                }
                Chunk {
                    slot: slot as usize,
                    offset: (f / n) * ss + if f == first { head } else { 0 },
                    len: len as u64,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: every other server sorted by (hops from the first, cyclic distance).
    fn stripe_set_by_full_sort(
        client: u32,
        servers: &[u32],
        count: u32,
        hops: impl Fn(u32, u32) -> u32,
    ) -> Vec<usize> {
        let n = servers.len();
        let cyc = |from: usize, to: usize| (to + n - from) % n;
        let rot = client as usize % n;
        let first = (0..n)
            .min_by_key(|&s| (hops(client, servers[s]), cyc(rot, s)))
            .unwrap();
        let mut rest: Vec<usize> = (0..n).filter(|&s| s != first).collect();
        rest.sort_by_key(|&s| (hops(servers[first], servers[s]), cyc(first, s)));
        let mut set = vec![first];
        set.extend(rest.into_iter().take(count as usize - 1));
        set
    }

    /// The stripe-by-stripe definition of [`Layout::split`].
    fn split_by_stripes(l: &Layout, offset: u64, len: u64) -> Vec<Chunk> {
        let n = l.servers.len().max(1) as u64;
        let ss = l.stripe_size.max(1);
        let mut chunks: Vec<Option<Chunk>> = vec![None; n as usize];
        let (mut pos, end) = (offset, offset.saturating_add(len));
        while pos < end {
            let (stripe, within) = (pos / ss, pos % ss);
            let take = (ss - within).min(end - pos);
            let slot = (stripe % n) as usize;
            match &mut chunks[slot] {
                Some(c) => c.len += take,
                None => {
                    chunks[slot] = Some(Chunk {
                        slot,
                        offset: (stripe / n) * ss + within,
                        len: take,
                    })
                }
            }
            pos += take;
        }
        chunks.into_iter().flatten().collect()
    }

    #[test]
    fn split_matches_the_stripe_by_stripe_definition() {
        for n in 1..6usize {
            for ss in [1u64, 3, 8] {
                let l = Layout {
                    servers: (0..n).collect(),
                    stripe_size: ss,
                };
                for offset in 0..40 {
                    for len in 0..60 {
                        assert_eq!(
                            l.split(offset, len).to_vec(),
                            split_by_stripes(&l, offset, len),
                            "n {n} ss {ss} offset {offset} len {len}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn huge_requests_split_in_closed_form() {
        let l = Layout {
            servers: vec![0, 1, 2],
            stripe_size: 1,
        };
        let start = std::time::Instant::now();
        let c = l.split(5, 1 << 63);
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(c.len(), 3);
        assert_eq!(c.iter().map(|c| u128::from(c.len)).sum::<u128>(), 1 << 63);
        let c = l.split(u64::MAX - 10, u64::MAX);
        assert_eq!(c.iter().map(|c| c.len).sum::<u64>(), 10);
    }

    #[test]
    fn partial_selection_equals_the_full_sort() {
        // Hop distances of a three-level tree of 8-terminal switches, with many ties.
        let hops = |a: u32, b: u32| match (a / 8 == b / 8, a / 64 == b / 64) {
            _ if a == b => 0,
            (true, _) => 2,
            (false, true) => 4,
            _ => 6,
        };
        let servers: Vec<u32> = (0..300).step_by(7).collect();
        for client in 0..400 {
            for count in [1, 2, 4, 7, servers.len() as u32 - 1, servers.len() as u32] {
                assert_eq!(
                    stripe_set(client, &servers, count, hops).unwrap(),
                    stripe_set_by_full_sort(client, &servers, count, hops),
                    "client {client}, count {count}"
                );
            }
        }
    }

    #[test]
    fn nearest_first_then_its_neighbours() {
        // Terminals on a line; hops = distance.
        let servers = [0u32, 10, 20, 30, 40];
        let d = |a: u32, b: u32| a.abs_diff(b);
        assert_eq!(stripe_set(22, &servers, 3, d).unwrap(), vec![2, 3, 1]);
        assert_eq!(stripe_set(39, &servers, 2, d).unwrap(), vec![4, 3]);
        // Equidistant servers (all 1 hop): the rotation by client spreads clients.
        let flat = |_: u32, _: u32| 1;
        assert_eq!(stripe_set(7, &servers, 2, flat).unwrap(), vec![2, 3]);
        assert_eq!(stripe_set(8, &servers, 2, flat).unwrap(), vec![3, 4]);
        let e = stripe_set(1, &servers, 6, d).unwrap_err();
        assert_eq!(e.field, StripeField::StripeCount);
        assert!(e.message().contains("larger than the number of BB servers"));
        assert_eq!(
            stripe_set(1, &[], 1, d).unwrap_err().field,
            StripeField::Servers
        );
        assert_eq!(
            StripeSpec {
                stripe_count: 5,
                stripe_size: 1
            }
            .validate(4)
            .unwrap_err()
            .field,
            StripeField::StripeCount
        );
        assert_eq!(
            StripeSpec {
                stripe_count: 1,
                stripe_size: 0
            }
            .validate(4)
            .unwrap_err()
            .field,
            StripeField::StripeSize
        );
    }

    #[test]
    fn split_equals_the_reference_for_short_and_long_requests() {
        for n in [1usize, 2, 3, 7] {
            let l = Layout {
                servers: (0..n).collect(),
                stripe_size: 100,
            };
            for offset in [0u64, 1, 99, 100, 250, 1234] {
                for len in [0u64, 1, 99, 100, 101, 199, 200, 301, 699, 700, 701, 2500] {
                    assert_eq!(
                        l.split(offset, len).to_vec(),
                        split_by_stripes(&l, offset, len),
                        "n {n} offset {offset} len {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn split_packs_each_servers_stripes() {
        let l = Layout {
            servers: vec![5, 6, 7, 8],
            stripe_size: 100,
        };
        // 1000 bytes from 50: stripes 0..=10 touched.
        let c = l.split(50, 1000);
        let total: u64 = c.iter().map(|c| c.len).sum();
        assert_eq!(total, 1000);
        assert_eq!(
            c[0],
            Chunk {
                slot: 0,
                offset: 50,
                len: 50 + 100 + 100
            }
        );
        assert_eq!(
            c[1],
            Chunk {
                slot: 1,
                offset: 0,
                len: 300
            }
        );
        assert_eq!(
            c[2],
            Chunk {
                slot: 2,
                offset: 0,
                len: 250
            }
        );
        assert_eq!(
            c[3],
            Chunk {
                slot: 3,
                offset: 0,
                len: 200
            }
        );
        assert!(l.split(0, 0).is_empty());
    }
}
