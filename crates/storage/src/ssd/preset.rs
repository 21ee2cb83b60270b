//! Datasheet presets: an SSD product described by its card-level datasheet figures and its
//! flash geometry, for `[burst_buffer.ssd] model = "..."`.
//!
//! A preset describes one **card** (what a datasheet and a system description count): its
//! capacity and sequential bandwidths are the card's, and `devices_per_card` says how many
//! NVMe devices the host sees on it. The simulator models each device as its own
//! [`crate::Ssd`] with an even share of the card's capacity and bandwidths. Values the
//! datasheet gives are cited by the row of the system sheet (`shared/systems.md` §6.3) they
//! come from; the others are modelling choices with their reason.

use bbsim_engine::time::US;
use bbsim_engine::Time;

/// One SSD product.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsdPreset {
    /// Name as a scenario spells it.
    pub name: &'static str,
    /// User capacity of one card (bytes).
    pub capacity: u64,
    /// Sequential read bandwidth of one card (bytes/s).
    pub read_bandwidth: u64,
    /// Sequential write bandwidth of one card (bytes/s).
    pub write_bandwidth: u64,
    /// NVMe devices (controllers) the host sees on one card.
    pub devices_per_card: u32,
    /// Requests each device serves concurrently.
    pub channels: u32,
    /// Fixed cost of every operation (ps).
    pub op_overhead: Time,
    /// NAND page: the FTL's mapping unit when the FTL is enabled (bytes).
    pub page_size: u64,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Over-provisioning: spare fraction of the raw NAND.
    pub over_provisioning: f64,
}

/// The Intel SSD DC P3608, 3.2 TB card (Cori's burst-buffer device).
pub const INTEL_P3608: SsdPreset = SsdPreset {
    name: "intel-p3608",
    // §6.3 "Capacities in the family": 3.2 TB, the card seeds 001/004 name.
    capacity: 3_200_000_000_000,
    // §6.3 "Sequential read / write": up to 5,000 / 3,000 MB/s (family headline values).
    read_bandwidth: 5_000_000_000,
    write_bandwidth: 3_000_000_000,
    // §6.3 "Internal structure": two NVMe controllers behind a PCIe switch; the host sees two
    // NVMe devices per card (1.6 TB each, "Capacity per NVMe device").
    devices_per_card: 2,
    // Modelling choice: not in the datasheet. Little's law on §6.3 "Random 4 KB read"
    // (850 K IOPS per card, 425 K per device) at the 20 µs latency: about 8.5 requests in
    // service per device, so 8. (The lower random-write IOPS come from garbage collection,
    // which the FTL models when enabled.)
    channels: 8,
    // §6.3 "Sequential latency (typical) read / write": 20 / 20 µs, charged per operation.
    op_overhead: 20 * US,
    // Modelling choice: the datasheet gives no geometry. 16 KiB pages and 256-page (4 MiB)
    // erase blocks are those of 20 nm MLC NAND generations (§6.3 "NAND": Intel 20 nm HET MLC).
    page_size: 16 << 10,
    pages_per_block: 256,
    // Modelling choice: 1.6 TB of user space per device on 2 TiB of raw NAND (NAND comes in
    // binary sizes), 1 − 1.6·10¹² / 2⁴¹ = 0.272, the usual split of a 3-drive-writes-per-day
    // enterprise device (§6.3 "Endurance").
    over_provisioning: 0.272,
};

/// Every preset.
pub const PRESETS: &[SsdPreset] = &[INTEL_P3608];

impl SsdPreset {
    /// The preset called `name`.
    pub fn by_name(name: &str) -> Option<&'static SsdPreset> {
        PRESETS.iter().find(|p| p.name == name)
    }

    /// The names of every preset, for messages.
    pub fn names() -> impl Iterator<Item = &'static str> {
        PRESETS.iter().map(|p| p.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_p3608_card_is_two_devices_of_half_its_figures() {
        let p = SsdPreset::by_name("intel-p3608").unwrap();
        let per = |v: u64| v / u64::from(p.devices_per_card);
        assert_eq!(per(p.capacity), 1_600_000_000_000);
        assert_eq!(per(p.write_bandwidth), 1_500_000_000);
        assert_eq!(per(p.read_bandwidth), 2_500_000_000);
        // 2 TiB raw per device.
        let raw = per(p.capacity) as f64 / (1.0 - p.over_provisioning);
        assert!((raw / (1u64 << 41) as f64 - 1.0).abs() < 1e-3);
        assert!(SsdPreset::by_name("intel-p3700").is_none());
        assert_eq!(SsdPreset::names().collect::<Vec<_>>(), vec!["intel-p3608"]);
    }
}
