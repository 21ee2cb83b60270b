//! Cray Cascade/Aries-style dragonfly: a group is a `rows x cols` array of routers with
//! all-to-all links inside each row and inside each column, global links between groups, and
//! (by default) 4 terminals per router (a blade of 4 nodes on one Aries router). See
//! [`crate::dragonfly`] for the global wiring and port layout.

use crate::dragonfly::{validate_common, DragonflyShape};
use crate::error::{at_least, GroupParam, NetError, NetParam};
use crate::link::LinkParams;
use bbsim_engine::time::NS;
use serde::{Deserialize, Serialize};

fn four() -> u32 {
    4
}

/// Parameters of an Aries-style dragonfly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AriesConfig {
    /// Rows per group (chassis; column links join the rows), >= 1.
    pub rows: u32,
    /// Routers per row (row links join them all-to-all), >= 1.
    pub cols: u32,
    /// Terminals per router (4 on Aries).
    #[serde(default = "four")]
    pub terminals_per_router: u32,
    /// Global links per router.
    pub h: u32,
    /// Groups.
    pub groups: u32,
    /// Compute terminals (filled router by router); `None` fills every terminal port.
    #[serde(default)]
    pub terminals: Option<u32>,
    /// Terminal links (bytes/s, ps).
    pub terminal: LinkParams,
    /// Local (row and column) links.
    pub local: LinkParams,
    /// Global links.
    pub global: LinkParams,
}

impl AriesConfig {
    /// The Edison-like Cray XC30 of the reference study: groups of 6 x 16 routers, 4 nodes per
    /// router, 10 global links per router, 15 groups (5,760 terminals), 8 GB/s terminal links,
    /// 5.25 GB/s local and 1.5 GB/s global channels, 100 ns local and 200 ns global latency.
    pub fn edison() -> Self {
        AriesConfig {
            rows: 6,
            cols: 16,
            terminals_per_router: 4,
            h: 10,
            groups: 15,
            terminals: None,
            terminal: LinkParams::new(8_000_000_000, 100 * NS),
            local: LinkParams::new(5_250_000_000, 100 * NS),
            global: LinkParams::new(1_500_000_000, 200 * NS),
        }
    }

    pub(crate) fn shape(&self) -> DragonflyShape {
        DragonflyShape {
            groups: self.groups,
            rows: self.rows,
            cols: self.cols,
            p: self.terminals_per_router,
            h: self.h,
        }
    }

    /// Checks the parameters, naming the first bad one.
    pub fn validate(&self) -> Result<(), NetError> {
        let param = NetParam::Aries;
        at_least(param(GroupParam::Rows), u64::from(self.rows), 1)?;
        at_least(param(GroupParam::Cols), u64::from(self.cols), 1)?;
        at_least(
            param(GroupParam::TerminalsPerRouter),
            u64::from(self.terminals_per_router),
            1,
        )?;
        validate_common(&self.shape(), param, self.terminals)?;
        self.terminal
            .validate(|l| param(GroupParam::TerminalLink(l)))?;
        self.local.validate(|l| param(GroupParam::LocalLink(l)))?;
        self.global.validate(|l| param(GroupParam::GlobalLink(l)))
    }
}
