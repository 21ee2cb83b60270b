//! The cost model: capital cost of the burst-buffer design (SSDs by the device and by the
//! terabyte, BB server chassis, and the switches, cables and switch ports the placement adds
//! to the network) and its energy cost over the service life, with cost-effectiveness
//! figures. Prices in US dollars, powers in watts, capacities in decimal terabytes (10^12
//! bytes), bandwidths in decimal GB/s (10^9 bytes per second).

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
    /// Switch ports the added links occupy: one per BB-server link, two per added
    /// switch-to-switch link.
    pub added_ports: u64,
    /// Capital cost of the SSDs (US$): per device plus per TB of their capacity.
    pub capital_ssds: f64,
    /// Capital cost of the BB server chassis (US$).
    pub capital_servers: f64,
    /// Capital cost of the added switches, cables and switch ports (US$).
    pub capital_network: f64,
    /// Total capital cost (US$).
    pub capital: f64,
    /// Power drawn by the burst-buffer design (W).
    pub power_w: f64,
    /// Energy cost over the service life (US$).
    pub energy: f64,
    /// Capital plus energy (US$).
    pub total: f64,
    /// Total cost per GB/s of the BB's aggregate SSD write bandwidth (US$), if there is a BB.
    pub usd_per_gb_per_s: Option<f64>,
    /// Total cost per TB of BB capacity (US$), if there is a BB.
    pub usd_per_tb: Option<f64>,
}

/// What a burst-buffer design buys, counted from the machine (the input of [`price`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bill {
    /// SSDs (BB servers' or compute nodes').
    pub ssds: u64,
    /// Capacity of all those SSDs together (bytes).
    pub capacity: u64,
    /// Their aggregate write bandwidth (bytes per second).
    pub write_bandwidth: u64,
    /// BB servers (chassis).
    pub bb_servers: u64,
    /// Switches the placement adds.
    pub added_switches: u64,
    /// Links the placement adds (BB-server links and switch-to-switch links).
    pub added_links: u64,
    /// Of which links of a BB server to its switch (one switch port each; the others take
    /// two).
    pub added_server_links: u64,
}

impl Bill {
    /// The bill of a machine's burst-buffer design: the SSDs and servers of its placement,
    /// and what the placement adds to the network without it (`Machine::base_routers`,
    /// `Machine::base_links`; the PFS I/O nodes are part of that network).
    pub fn of(m: &Machine) -> Bill {
        let summary = m.summary();
        let servers = if m.bb_server.is_some() {
            u64::from(summary.bb_servers)
        } else {
            0
        };
        let added_links = summary.links.saturating_sub(m.base_links);
        Bill {
            ssds: summary.bb_ssds,
            capacity: summary.bb_capacity,
            write_bandwidth: summary.bb_write_bandwidth,
            bb_servers: servers,
            added_switches: u64::from(m.network.routers().saturating_sub(m.base_routers)),
            added_links,
            added_server_links: (m.bb_terminals.len() as u64).min(added_links),
        }
    }

    /// Switch ports the added links occupy: one per server link, two per other link.
    pub fn added_ports(&self) -> u64 {
        self.added_server_links + 2 * self.added_links.saturating_sub(self.added_server_links)
    }
}

/// Hours in a (Julian) year.
const HOURS_PER_YEAR: f64 = 24.0 * 365.25;

/// Computes the cost of a machine's burst-buffer design.
pub fn cost(c: &CostSection, m: &Machine) -> Cost {
    price(c, &Bill::of(m))
}

/// Prices a bill at the `[cost]` prices.
pub fn price(c: &CostSection, b: &Bill) -> Cost {
    let capacity_tb = b.capacity as f64 / 1e12;
    let capital_ssds = b.ssds as f64 * c.ssd_price + capacity_tb * c.ssd_price_per_tb;
    let capital_servers = b.bb_servers as f64 * c.bb_server_price;
    let added_ports = b.added_ports();
    let capital_network = b.added_switches as f64 * c.switch_price
        + b.added_links as f64 * c.cable_price
        + added_ports as f64 * c.port_price;
    let capital = capital_ssds + capital_servers + capital_network;
    let power_w = b.ssds as f64 * c.ssd_power
        + b.bb_servers as f64 * c.bb_server_power
        + b.added_switches as f64 * c.switch_power;
    let energy = power_w / 1000.0 * HOURS_PER_YEAR * c.years * c.energy_price;
    let total = capital + energy;
    let per = |denominator: f64| (denominator > 0.0).then(|| total / denominator);
    Cost {
        ssds: b.ssds,
        bb_servers: b.bb_servers,
        added_switches: b.added_switches,
        added_links: b.added_links,
        added_ports,
        capital_ssds,
        capital_servers,
        capital_network,
        capital,
        power_w,
        energy,
        total,
        usd_per_gb_per_s: per(b.write_bandwidth as f64 / 1e9),
        usd_per_tb: per(capacity_tb),
    }
}

impl Cost {
    /// The cost block of the terminal table.
    pub fn table_lines(&self) -> String {
        if self.total == 0.0 {
            return "\ncost: $0 (no burst buffer)\n".to_string();
        }
        let mut s = format!(
            "\ncost: ${:.0} = capital ${:.0} (SSDs ${:.0}, BB servers ${:.0}, network ${:.0} for \
             {} switches, {} links, {} ports) + energy ${:.0}\n",
            self.total,
            self.capital,
            self.capital_ssds,
            self.capital_servers,
            self.capital_network,
            self.added_switches,
            self.added_links,
            self.added_ports,
            self.energy,
        );
        let per: Vec<String> = [
            (self.usd_per_tb, "TB of BB capacity"),
            (self.usd_per_gb_per_s, "GB/s of BB write bandwidth"),
        ]
        .into_iter()
        .filter_map(|(v, unit)| v.map(|x| format!("${x:.0} per {unit}")))
        .collect();
        if !per.is_empty() {
            s.push_str(&format!("      {}\n", per.join(", ")));
        }
        s
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

    /// Prices that make each term easy to see.
    fn prices() -> CostSection {
        CostSection {
            ssd_price: 100.0,
            ssd_price_per_tb: 250.0,
            ssd_power: 0.0,
            bb_server_price: 10_000.0,
            bb_server_power: 0.0,
            switch_price: 5_000.0,
            switch_power: 0.0,
            cable_price: 30.0,
            port_price: 7.0,
            energy_price: 0.0,
            years: 5.0,
        }
    }

    /// Four servers of two SSDs of `tb` TB each, 2 GB/s per SSD, on the network as grouped
    /// servers (one link each, nothing else added).
    fn four_servers(tb: f64) -> Bill {
        Bill {
            ssds: 8,
            capacity: (8.0 * tb * 1e12) as u64,
            write_bandwidth: 8 * 2_000_000_000,
            bb_servers: 4,
            added_switches: 0,
            added_links: 4,
            added_server_links: 4,
        }
    }

    #[test]
    fn ssds_cost_per_device_plus_per_terabyte() {
        // 8 x $100 + 8 x 3.84 TB x $250/TB = 800 + 7,680; servers 4 x $10,000; network 4
        // cables and 4 ports: 4 x 30 + 4 x 7.
        let c = price(&prices(), &four_servers(3.84));
        assert!((c.capital_ssds - 8_480.0).abs() < 1e-6, "{c:?}");
        assert_eq!(c.capital_servers, 40_000.0);
        assert_eq!((c.added_ports, c.capital_network), (4, 148.0));
        let total = 8_480.0 + 40_000.0 + 148.0;
        assert!((c.total - total).abs() < 1e-6);
        // Per TB of the 30.72 TB and per GB/s of the 16 GB/s of write bandwidth.
        assert!((c.usd_per_tb.unwrap() - total / 30.72).abs() < 1e-9);
        assert!((c.usd_per_gb_per_s.unwrap() - total / 16.0).abs() < 1e-9);
        // Per device only, or per TB only.
        let per_device = CostSection {
            ssd_price_per_tb: 0.0,
            ..prices()
        };
        assert_eq!(price(&per_device, &four_servers(3.84)).capital_ssds, 800.0);
        let per_tb = CostSection {
            ssd_price: 0.0,
            ..prices()
        };
        assert!((price(&per_tb, &four_servers(0.1)).capital_ssds - 200.0).abs() < 1e-9);
    }

    #[test]
    fn bigger_ssds_cost_more() {
        // The same design with 100 GB and 3.84 TB SSDs: 8 x 3.74 TB x $250 apart.
        let small = price(&prices(), &four_servers(0.1));
        let big = price(&prices(), &four_servers(3.84));
        assert!(big.total > small.total);
        assert!((big.total - small.total - 8.0 * 3.74 * 250.0).abs() < 1e-6);
        // With the default prices too (a 1.6 TB device is the study's $900).
        let d = CostSection::default();
        let one = Bill {
            ssds: 1,
            capacity: 1_600_000_000_000,
            ..Bill::default()
        };
        assert!((price(&d, &one).capital_ssds - 900.0).abs() < 1e-9);
        let bigger = Bill {
            capacity: 3_840_000_000_000,
            ..one
        };
        assert!(price(&d, &bigger).capital_ssds > 900.0);
    }

    #[test]
    fn added_links_take_one_port_at_a_server_and_two_between_switches() {
        // Global: 4 servers on 2 added switches, each switch with 3 links into the network:
        // 4 server links (4 ports) and 6 switch links (12 ports).
        let global = Bill {
            added_switches: 2,
            added_links: 10,
            added_server_links: 4,
            ..four_servers(1.0)
        };
        assert_eq!(global.added_ports(), 16);
        let c = price(&prices(), &global);
        assert_eq!(c.capital_network, 2.0 * 5_000.0 + 10.0 * 30.0 + 16.0 * 7.0);
        // Node-local SSDs add nothing to the network.
        let local = Bill {
            ssds: 16,
            capacity: 16_000_000_000_000,
            ..Bill::default()
        };
        assert_eq!(
            (
                local.added_ports(),
                price(&prices(), &local).capital_network
            ),
            (0, 0.0)
        );
        // No burst buffer: nothing to pay, no per-TB or per-GB/s figure.
        let none = price(&prices(), &Bill::default());
        assert_eq!(
            (none.total, none.usd_per_tb, none.usd_per_gb_per_s),
            (0.0, None, None)
        );
    }

    #[test]
    fn each_placement_pays_for_the_ports_it_adds() {
        use crate::diag::load;
        use crate::lower::machine::build_machine;
        use crate::scenario::Scenario;
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/data");
        let mut seen = Vec::new();
        for file in ["tiny-fattree.toml", "tiny-dragonfly.toml"] {
            for placement in ["none", "node-local", "grouped", "global"] {
                let mut sets = vec![format!("burst_buffer.placement={placement}")];
                if placement == "global" {
                    sets.push("burst_buffer.servers=4".into());
                    sets.push("burst_buffer.servers_per_router=2".into());
                }
                let (s, map) = load::<Scenario>(&data.join(file), &sets).expect("scenario");
                // Not every placement fits every tiny network.
                let Ok(m) = build_machine(&s, &map) else {
                    continue;
                };
                let b = Bill::of(&m);
                let servers = m.bb_terminals.len() as u64;
                // Every BB server is one added terminal link; the rest of what the placement
                // adds joins switches.
                assert_eq!(b.added_server_links, servers, "{file} {placement}");
                let ports = servers + 2 * (b.added_links - servers);
                assert_eq!(b.added_ports(), ports, "{file} {placement}");
                let c = price(&prices(), &b);
                let network = b.added_switches as f64 * 5_000.0
                    + b.added_links as f64 * 30.0
                    + ports as f64 * 7.0;
                assert!((c.capital_network - network).abs() < 1e-6, "{placement}");
                match placement {
                    "none" | "node-local" => assert_eq!(ports, 0, "{file} {placement}"),
                    "grouped" => {
                        assert!(servers > 0, "{file}");
                        assert_eq!((b.added_switches, ports), (0, servers), "{file}");
                    }
                    // Dedicated switches where the topology adds them (their links two
                    // ports each), else the servers' own links.
                    _ => assert!(servers > 0 && ports >= servers, "{file} {b:?}"),
                }
                seen.push(placement);
            }
        }
        for p in ["none", "node-local", "grouped", "global"] {
            assert!(seen.contains(&p), "{p} never built: {seen:?}");
        }
    }

    #[test]
    fn the_table_gives_the_parts_and_the_cost_per_tb_and_per_gb_per_s() {
        let c = price(&prices(), &four_servers(3.84));
        assert_eq!(
            c.table_lines(),
            "\ncost: $48628 = capital $48628 (SSDs $8480, BB servers $40000, network $148 for \
             0 switches, 4 links, 4 ports) + energy $0\n      $1583 per TB of BB capacity, \
             $3039 per GB/s of BB write bandwidth\n"
        );
        assert_eq!(
            price(&prices(), &Bill::default()).table_lines(),
            "\ncost: $0 (no burst buffer)\n"
        );
    }
}
