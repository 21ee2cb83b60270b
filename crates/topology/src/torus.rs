//! n-dimensional tori (k-ary n-cubes with per-dimension sizes).
//!
//! Router ids are mixed-radix coordinates with dimension 0 varying fastest. Every router has
//! `terminals_per_router` terminal ports, then two ports per dimension (`+d`, then `-d`), then
//! any ports added for extra terminals. The `+d` port of a router is linked to the `-d` port of
//! its neighbour one step up in dimension `d` (with wrap-around); a dimension of size 2 therefore
//! has two parallel links between its two routers.

use crate::attach::{attach_extras, ExtraGroup, ExtraTerminals, Hosts};
use crate::error::{at_least, NetError, NetParam, TorusParam};
use crate::graph::{Builder, Wiring};
use crate::link::{LinkClass, LinkParams};
use serde::{Deserialize, Serialize};

fn one() -> u32 {
    1
}

/// Parameters of a torus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorusConfig {
    /// Routers along each dimension (each >= 2), e.g. `[8, 8, 8]`.
    pub dims: Vec<u32>,
    /// Terminal ports per router.
    #[serde(default = "one")]
    pub terminals_per_router: u32,
    /// Compute terminals (filled router by router); `None` fills every terminal port.
    #[serde(default)]
    pub terminals: Option<u32>,
    /// Terminal links (bytes/s, ps).
    pub terminal: LinkParams,
    /// Router-to-router links.
    pub link: LinkParams,
}

impl TorusConfig {
    /// Checks the parameters, naming the first bad one.
    pub fn validate(&self) -> Result<(), NetError> {
        if self.dims.is_empty() || self.dims.len() > 16 {
            return Err(NetError::invalid(
                NetParam::Torus(TorusParam::Dims),
                "between 1 and 16 dimensions",
                self.dims.len(),
            ));
        }
        let mut routers: u64 = 1;
        for (d, &k) in self.dims.iter().enumerate() {
            at_least(NetParam::Torus(TorusParam::Dim(d)), u64::from(k), 2)?;
            routers = routers.saturating_mul(u64::from(k));
        }
        if routers > 1 << 26 {
            return Err(NetError::invalid(
                NetParam::Torus(TorusParam::Dims),
                "at most 2^26 routers",
                routers,
            ));
        }
        at_least(
            NetParam::Torus(TorusParam::TerminalsPerRouter),
            u64::from(self.terminals_per_router),
            1,
        )?;
        let capacity = routers * u64::from(self.terminals_per_router);
        if let Some(t) = self.terminals {
            at_least(NetParam::Torus(TorusParam::Terminals), u64::from(t), 1)?;
            if u64::from(t) > capacity {
                return Err(NetError::invalid(
                    NetParam::Torus(TorusParam::Terminals),
                    format!("at most {capacity} (routers x terminals_per_router)"),
                    t,
                ));
            }
        }
        self.terminal
            .validate(|l| NetParam::Torus(TorusParam::TerminalLink(l)))?;
        self.link.validate(|l| NetParam::Torus(TorusParam::Link(l)))
    }
}

/// The resolved shape of a torus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TorusShape {
    /// Routers along each dimension.
    pub dims: Vec<u32>,
    /// Mixed-radix strides (dimension 0 has stride 1).
    pub strides: Vec<u32>,
    /// Terminal ports per router.
    pub p: u32,
    /// Total routers.
    pub routers: u32,
}

impl TorusShape {
    /// Coordinate of router `r` in dimension `d`.
    #[inline]
    pub fn coord(&self, r: u32, d: usize) -> u32 {
        (r / self.strides[d]) % self.dims[d]
    }

    /// The `+d` (or, with `minus`, the `-d`) port index.
    #[inline]
    pub fn dim_port(&self, d: usize, minus: bool) -> u16 {
        (self.p + 2 * d as u32 + u32::from(minus)) as u16
    }

    /// Routers traversed on a minimal (dimension-order) route from router `a` to router `b`.
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let mut h = 1;
        for d in 0..self.dims.len() {
            let k = self.dims[d];
            let delta = (self.coord(b, d) + k - self.coord(a, d)) % k;
            h += delta.min(k - delta);
        }
        h
    }

    /// Cluster hint: contiguous slabs of routers (at most 64).
    pub fn cluster(&self, r: u32) -> u32 {
        let per = self.routers.div_ceil(64).max(1);
        r / per
    }
}

/// Builds a torus with extra terminals.
pub(crate) fn build(
    cfg: &TorusConfig,
    extras: &[ExtraTerminals],
) -> Result<(Wiring, TorusShape, u32, Vec<ExtraGroup>), NetError> {
    cfg.validate()?;
    let mut strides = Vec::with_capacity(cfg.dims.len());
    let mut routers = 1u32;
    for &k in &cfg.dims {
        strides.push(routers);
        routers *= k;
    }
    let shape = TorusShape {
        dims: cfg.dims.clone(),
        strides,
        p: cfg.terminals_per_router,
        routers,
    };
    let mut b = Builder::new(routers);
    for r in 0..routers {
        b.reserve(r, shape.p + 2 * cfg.dims.len() as u32);
    }
    for r in 0..routers {
        for d in 0..cfg.dims.len() {
            let k = cfg.dims[d];
            let x = shape.coord(r, d);
            let next = r - x * shape.strides[d] + ((x + 1) % k) * shape.strides[d];
            b.connect(
                r,
                shape.dim_port(d, false),
                next,
                shape.dim_port(d, true),
                LinkClass::Torus,
                cfg.link,
            );
        }
    }
    let compute = cfg.terminals.unwrap_or(routers * shape.p);
    for t in 0..compute {
        b.attach(t / shape.p, (t % shape.p) as u16, cfg.terminal);
    }
    let per_router = (0..routers)
        .map(|r| compute.saturating_sub(r * shape.p).min(shape.p))
        .collect();
    let mut hosts = Hosts::new((0..routers).collect(), per_router, None);
    let p = shape.p as u16;
    let groups = attach_extras(&mut b, &mut hosts, extras, cfg.terminal, |_| 0..p)?;
    Ok((b.finish(), shape, compute, groups))
}
