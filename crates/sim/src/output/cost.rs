//! The cost model: capital cost of the burst-buffer design (SSDs, BB servers, and the switches
//! and cables the placement adds to the network) and its energy cost over the service life,
//! with cost-effectiveness figures. Prices in US dollars, powers in watts.

use crate::lower::machine::Machine;
use crate::scenario::CostSection;
use serde::{Deserialize, Serialize};

/// The `cost` block of `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// SSDs bought (BB servers' or one per compute node).
    pub ssds: u64,
    /// BB servers bought.
    pub bb_servers: u64,
    /// Switches the placement adds to the network.
    pub added_switches: u64,
    /// Links (cables) the placement adds to the network.
    pub added_links: u64,
    /// Capital cost of the SSDs (US$).
    pub capital_ssds: f64,
    /// Capital cost of the BB servers (US$).
    pub capital_servers: f64,
    /// Capital cost of the added switches and cables (US$).
    pub capital_network: f64,
    /// Total capital cost (US$).
    pub capital: f64,
    /// Power drawn by the burst-buffer design (W).
    pub power_w: f64,
    /// Energy cost over the service life (US$).
    pub energy: f64,
    /// Capital plus energy (US$).
    pub total: f64,
    /// Total cost per GB/s of aggregate BB write bandwidth (US$), if there is a BB.
    pub usd_per_gb_per_s: Option<f64>,
    /// Total cost per TB of BB capacity (US$), if there is a BB.
    pub usd_per_tb: Option<f64>,
}

/// Hours in a (Julian) year.
const HOURS_PER_YEAR: f64 = 24.0 * 365.25;

/// Computes the cost of a machine's burst-buffer design.
pub fn cost(c: &CostSection, m: &Machine) -> Cost {
    let summary = m.summary();
    let ssds = summary.bb_ssds;
    let servers = if m.bb_server.is_some() {
        u64::from(summary.bb_servers)
    } else {
        0
    };
    let added_switches = u64::from(m.network.routers().saturating_sub(m.base_routers));
    let links = summary.links;
    let added_links = links.saturating_sub(m.base_links);
    let capital_ssds = ssds as f64 * c.ssd_price;
    let capital_servers = servers as f64 * c.bb_server_price;
    let capital_network =
        added_switches as f64 * c.switch_price + added_links as f64 * c.cable_price;
    let capital = capital_ssds + capital_servers + capital_network;
    let power_w = ssds as f64 * c.ssd_power
        + servers as f64 * c.bb_server_power
        + added_switches as f64 * c.switch_power;
    let energy = power_w / 1000.0 * HOURS_PER_YEAR * c.years * c.energy_price;
    let total = capital + energy;
    let per = |denominator: f64| (denominator > 0.0).then(|| total / denominator);
    Cost {
        ssds,
        bb_servers: servers,
        added_switches,
        added_links,
        capital_ssds,
        capital_servers,
        capital_network,
        capital,
        power_w,
        energy,
        total,
        usd_per_gb_per_s: per(summary.bb_write_bandwidth as f64 / 1e9),
        usd_per_tb: per(summary.bb_capacity as f64 / 1e12),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn energy_follows_power_time_and_price() {
        // 1 kW for 5 years at $0.10/kWh = 43,830 kWh = $4,383.
        let kwh = 1.0 * HOURS_PER_YEAR * 5.0;
        assert!((kwh * 0.10 - 4383.0).abs() < 1.0);
    }
}
