//! The wiring of a topology: routers with numbered ports, terminals attached to router ports,
//! and the same structure as a petgraph graph for graph algorithms (diameter, cuts).

use crate::link::{LinkClass, LinkParams};
use petgraph::graph::{NodeIndex, UnGraph};

/// What is at the far end of a router port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// A reserved port with nothing attached (an unused terminal slot or global slot).
    None,
    /// Another router's port.
    Router {
        /// The peer router.
        router: u32,
        /// The peer router's port that this link arrives on.
        port: u16,
    },
    /// A terminal (NIC).
    Terminal(u32),
}

/// One router port: its peer, its link class and the link's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Port {
    /// What the port connects to.
    pub peer: Peer,
    /// The class of the link (for statistics and routing).
    pub class: LinkClass,
    /// Bandwidth (bytes/s) and latency (ps) of the link.
    pub link: LinkParams,
}

/// Where a terminal is attached: its router and the router's port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// The router the terminal hangs off.
    pub router: u32,
    /// The router's port index for the terminal.
    pub port: u16,
    /// The terminal link (bytes/s, ps).
    pub link: LinkParams,
}

/// A node of the petgraph view: a router or a terminal (by id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// Router `id`.
    Router(u32),
    /// Terminal `id`.
    Terminal(u32),
}

/// An edge of the petgraph view: one bidirectional link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The link's class.
    pub class: LinkClass,
    /// Bandwidth of each direction in bytes/s.
    pub bandwidth: u64,
}

/// The finished wiring: flat port table, terminal attachments and the petgraph view.
#[derive(Clone, Debug)]
pub struct Wiring {
    /// All ports, router by router (router `r` owns `ports[port_base[r]..port_base[r + 1]]`).
    pub ports: Vec<Port>,
    /// Offsets of each router's ports in `ports` (one more entry than routers).
    pub port_base: Vec<u32>,
    /// Terminal attachments, indexed by terminal id.
    pub terminals: Vec<Attachment>,
    /// Routers are nodes `0..routers`, terminal `t` is node `routers + t`; one edge per link.
    pub graph: UnGraph<Node, Edge>,
}

impl Wiring {
    /// Number of routers.
    pub fn routers(&self) -> u32 {
        (self.port_base.len() - 1) as u32
    }

    /// Router `r`'s ports.
    #[inline]
    pub fn router_ports(&self, r: u32) -> &[Port] {
        let (a, b) = (self.port_base[r as usize], self.port_base[r as usize + 1]);
        &self.ports[a as usize..b as usize]
    }

    /// The number of router-to-router links (each bidirectional link once).
    pub fn router_links(&self) -> u64 {
        self.graph
            .edge_weights()
            .filter(|e| e.class != LinkClass::Terminal)
            .count() as u64
    }

    /// Router-to-router links of one class.
    pub fn links_of(&self, class: LinkClass) -> u64 {
        self.graph
            .edge_weights()
            .filter(|e| e.class == class)
            .count() as u64
    }
}

/// Incremental construction of a [`Wiring`].
pub(crate) struct Builder {
    ports: Vec<Vec<Port>>,
    terminals: Vec<Attachment>,
}

const UNUSED: Port = Port {
    peer: Peer::None,
    class: LinkClass::Terminal,
    link: LinkParams {
        bandwidth: 0,
        latency: 0,
    },
};

impl Builder {
    /// A builder for `routers` routers with no ports yet.
    pub(crate) fn new(routers: u32) -> Self {
        Builder {
            ports: vec![Vec::new(); routers as usize],
            terminals: Vec::new(),
        }
    }

    /// Adds `n` unconnected ports to router `r`, returning the index of the first.
    pub(crate) fn reserve(&mut self, r: u32, n: u32) -> u16 {
        let v = &mut self.ports[r as usize];
        let first = v.len() as u16;
        v.extend(std::iter::repeat_n(UNUSED, n as usize));
        first
    }

    /// The number of ports router `r` has so far.
    pub(crate) fn port_count(&self, r: u32) -> u32 {
        self.ports[r as usize].len() as u32
    }

    /// Whether port `p` of router `r` is still unconnected.
    pub(crate) fn is_free(&self, r: u32, p: u16) -> bool {
        self.ports[r as usize][usize::from(p)].peer == Peer::None
    }

    /// Connects port `pa` of router `a` with port `pb` of router `b` (both reserved before).
    pub(crate) fn connect(
        &mut self,
        a: u32,
        pa: u16,
        b: u32,
        pb: u16,
        class: LinkClass,
        link: LinkParams,
    ) {
        debug_assert!(self.is_free(a, pa) && self.is_free(b, pb));
        self.ports[a as usize][usize::from(pa)] = Port {
            peer: Peer::Router {
                router: b,
                port: pb,
            },
            class,
            link,
        };
        self.ports[b as usize][usize::from(pb)] = Port {
            peer: Peer::Router {
                router: a,
                port: pa,
            },
            class,
            link,
        };
    }

    /// Attaches the next terminal to port `p` of router `r`, returning its id.
    pub(crate) fn attach(&mut self, r: u32, p: u16, link: LinkParams) -> u32 {
        let t = self.terminals.len() as u32;
        debug_assert!(self.is_free(r, p));
        self.ports[r as usize][usize::from(p)] = Port {
            peer: Peer::Terminal(t),
            class: LinkClass::Terminal,
            link,
        };
        self.terminals.push(Attachment {
            router: r,
            port: p,
            link,
        });
        t
    }

    /// Terminals attached so far.
    pub(crate) fn terminal_count(&self) -> u32 {
        self.terminals.len() as u32
    }

    /// Finishes: flattens the port table and builds the petgraph view.
    pub(crate) fn finish(self) -> Wiring {
        let routers = self.ports.len();
        let mut port_base = Vec::with_capacity(routers + 1);
        let total: usize = self.ports.iter().map(Vec::len).sum();
        let mut ports = Vec::with_capacity(total);
        let mut graph = UnGraph::with_capacity(routers + self.terminals.len(), total);
        for r in 0..routers {
            graph.add_node(Node::Router(r as u32));
        }
        for t in 0..self.terminals.len() {
            graph.add_node(Node::Terminal(t as u32));
        }
        for (r, rp) in self.ports.into_iter().enumerate() {
            port_base.push(ports.len() as u32);
            for (p, port) in rp.iter().enumerate() {
                let edge = Edge {
                    class: port.class,
                    bandwidth: port.link.bandwidth,
                };
                match port.peer {
                    Peer::Router { router, port: pp } => {
                        // Each link once: from its lower (router, port) end.
                        if (router as usize, usize::from(pp)) > (r, p) {
                            graph.add_edge(
                                NodeIndex::new(r),
                                NodeIndex::new(router as usize),
                                edge,
                            );
                        }
                    }
                    Peer::Terminal(t) => {
                        graph.add_edge(
                            NodeIndex::new(r),
                            NodeIndex::new(routers + t as usize),
                            edge,
                        );
                    }
                    Peer::None => {}
                }
            }
            ports.extend(rp);
        }
        port_base.push(ports.len() as u32);
        Wiring {
            ports,
            port_base,
            terminals: self.terminals,
            graph,
        }
    }
}
