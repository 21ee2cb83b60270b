//! The cost model: capital cost of the burst-buffer design (SSDs, BB servers, and the switches
//! and cables the placement adds to the network) and its energy cost over the service life,
//! with cost-effectiveness figures. Prices in US dollars, powers in watts.

use crate::lower::machine::Machine;
use serde::{Deserialize, Serialize};

/// `[cost]`: unit prices and powers. Defaults are the study's 2019 figures (an NVMe device
/// $800–1,000 and 25 W, a BB server $25,000 and 300 W) plus assumed network prices.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostSection {
    /// Price of one SSD (US$).
    #[serde(default = "ssd_price")]
    pub ssd_price: f64,
    /// Power of one SSD (W).
    #[serde(default = "ssd_power")]
    pub ssd_power: f64,
    /// Price of one BB server without its SSDs (US$).
    #[serde(default = "server_price")]
    pub bb_server_price: f64,
    /// Power of one BB server without its SSDs (W).
    #[serde(default = "server_power")]
    pub bb_server_power: f64,
    /// Price of one switch the placement adds (US$; assumed, not from the study).
    #[serde(default = "switch_price")]
    pub switch_price: f64,
    /// Power of one added switch (W; assumed).
    #[serde(default = "switch_power")]
    pub switch_power: f64,
    /// Price of one cable (link) the placement adds (US$; assumed).
    #[serde(default = "cable_price")]
    pub cable_price: f64,
    /// Electricity price (US$ per kWh).
    #[serde(default = "energy_price")]
    pub energy_price: f64,
    /// Service life for the energy cost (years).
    #[serde(default = "years")]
    pub years: f64,
}

fn ssd_price() -> f64 {
    900.0
}
fn ssd_power() -> f64 {
    25.0
}
fn server_price() -> f64 {
    25_000.0
}
fn server_power() -> f64 {
    300.0
}
fn switch_price() -> f64 {
    12_000.0
}
fn switch_power() -> f64 {
    250.0
}
fn cable_price() -> f64 {
    300.0
}
fn energy_price() -> f64 {
    0.10
}
fn years() -> f64 {
    5.0
}

impl Default for CostSection {
    fn default() -> Self {
        CostSection {
            ssd_price: ssd_price(),
            ssd_power: ssd_power(),
            bb_server_price: server_price(),
            bb_server_power: server_power(),
            switch_price: switch_price(),
            switch_power: switch_power(),
            cable_price: cable_price(),
            energy_price: energy_price(),
            years: years(),
        }
    }
}

impl CostSection {
    /// The first key with a negative or non-finite value, if any.
    pub fn invalid_key(&self) -> Option<&'static str> {
        [
            ("ssd_price", self.ssd_price),
            ("ssd_power", self.ssd_power),
            ("bb_server_price", self.bb_server_price),
            ("bb_server_power", self.bb_server_power),
            ("switch_price", self.switch_price),
            ("switch_power", self.switch_power),
            ("cable_price", self.cable_price),
            ("energy_price", self.energy_price),
            ("years", self.years),
        ]
        .into_iter()
        .find(|(_, v)| !(v.is_finite() && *v >= 0.0))
        .map(|(k, _)| k)
    }
}

/// The `cost` block of `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
        assert_eq!(CostSection::default().invalid_key(), None);
        let bad = CostSection {
            years: -1.0,
            ..CostSection::default()
        };
        assert_eq!(bad.invalid_key(), Some("years"));
    }
}
