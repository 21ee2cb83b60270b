//! `[cost]`: unit prices and powers of the burst-buffer design (US dollars, watts, years;
//! capacities in decimal terabytes, 1 TB = 10^12 bytes).

use serde::{Deserialize, Serialize};

/// `[cost]`: unit prices and powers. Defaults are the study's 2019 figures (a 1.6 TB NVMe
/// device $800–1,000 and 25 W, here $100 plus $500 per TB, a BB server $25,000 and 300 W)
/// plus assumed network prices.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostSection {
    /// Price of one SSD regardless of its capacity (US$); `ssd_price_per_tb` times its
    /// capacity is added.
    #[serde(default = "ssd_price")]
    pub ssd_price: f64,
    /// Price of SSD capacity (US$ per decimal TB, 10^12 bytes), added to `ssd_price` for
    /// each SSD.
    #[serde(default = "ssd_price_per_tb")]
    pub ssd_price_per_tb: f64,
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
    /// Price of one switch port a link the placement adds occupies (US$; assumed): one per
    /// link of a BB server to its switch, two per added switch-to-switch link.
    #[serde(default = "port_price")]
    pub port_price: f64,
    /// Electricity price (US$ per kWh).
    #[serde(default = "energy_price")]
    pub energy_price: f64,
    /// Service life for the energy cost (years).
    #[serde(default = "years")]
    pub years: f64,
}

fn ssd_price() -> f64 {
    100.0
}
fn ssd_price_per_tb() -> f64 {
    500.0
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
fn port_price() -> f64 {
    250.0
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
            ssd_price_per_tb: ssd_price_per_tb(),
            ssd_power: ssd_power(),
            bb_server_price: server_price(),
            bb_server_power: server_power(),
            switch_price: switch_price(),
            switch_power: switch_power(),
            cable_price: cable_price(),
            port_price: port_price(),
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
            ("ssd_price_per_tb", self.ssd_price_per_tb),
            ("ssd_power", self.ssd_power),
            ("bb_server_price", self.bb_server_price),
            ("bb_server_power", self.bb_server_power),
            ("switch_price", self.switch_price),
            ("switch_power", self.switch_power),
            ("cable_price", self.cable_price),
            ("port_price", self.port_price),
            ("energy_price", self.energy_price),
            ("years", self.years),
        ]
        .into_iter()
        .find(|(_, v)| !(v.is_finite() && *v >= 0.0))
        .map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_must_be_non_negative() {
        assert_eq!(CostSection::default().invalid_key(), None);
        let bad = CostSection {
            years: -1.0,
            ..CostSection::default()
        };
        assert_eq!(bad.invalid_key(), Some("years"));
    }
}
