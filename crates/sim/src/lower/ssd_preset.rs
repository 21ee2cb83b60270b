//! SSD datasheet presets and multi-device cards (`burst_buffer.ssd.model`,
//! `burst_buffer.ssd.devices_per_card`): the scenario as the rest of the storage lowering sees
//! it, with every SSD key the scenario leaves unset taken from the preset, and each card
//! turned into its NVMe devices.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{Placement, Scenario};
use crate::units::{Bandwidth, Bytes, Duration};
use bbsim_storage::ssd::preset::SsdPreset;
use std::borrow::Cow;

/// `s` with the SSD preset applied and cards split into devices: with `devices_per_card = d >
/// 1`, a grouped or global server's `ssds_per_server` cards become `d` times as many devices,
/// each with `1/d` of the card's capacity and bandwidths; a node-local card stays one device
/// with `d` times the channels (its devices pooled). Unchanged (borrowed) without `model` and
/// `devices_per_card`.
pub fn apply<'a>(s: &'a Scenario, map: &SourceMap) -> Result<Cow<'a, Scenario>, Diagnostic> {
    let d = &s.burst_buffer.ssd;
    if d.model.is_none() && d.devices_per_card.is_none() {
        return Ok(Cow::Borrowed(s));
    }
    let preset = match &d.model {
        None => None,
        Some(name) => Some(SsdPreset::by_name(name).ok_or_else(|| {
            map.error_at(
                "burst_buffer.ssd.model",
                format!(
                    "unknown SSD model `{name}`: expected one of {}",
                    SsdPreset::names()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?),
    };
    let mut out = s.clone();
    if let Some(p) = preset {
        fill_from_preset(&mut out, map, p);
    }
    let per_card = d
        .devices_per_card
        .or(preset.map(|p| p.devices_per_card))
        .unwrap_or(1);
    if per_card == 0 {
        return Err(map.error_at("burst_buffer.ssd.devices_per_card", "must be at least 1"));
    }
    if per_card > 1 {
        split_cards(&mut out, map, per_card)?;
    }
    Ok(Cow::Owned(out))
}

/// Takes every `[burst_buffer.ssd]` value and the FTL geometry the scenario does not set from
/// the preset.
fn fill_from_preset(out: &mut Scenario, map: &SourceMap, p: &SsdPreset) {
    let unset = |key: &str| !map.sets(key);
    let ssd = &mut out.burst_buffer.ssd;
    if unset("burst_buffer.ssd.capacity") {
        ssd.capacity = Bytes(p.capacity);
    }
    if unset("burst_buffer.ssd.read_bandwidth") {
        ssd.read_bandwidth = Bandwidth(p.read_bandwidth);
    }
    if unset("burst_buffer.ssd.write_bandwidth") {
        ssd.write_bandwidth = Bandwidth(p.write_bandwidth);
    }
    if unset("burst_buffer.ssd.channels") {
        ssd.channels = p.channels;
    }
    if unset("burst_buffer.ssd.op_overhead") {
        ssd.op_overhead = Duration(p.op_overhead);
    }
    let ftl = &mut out.burst_buffer.ftl;
    if unset("burst_buffer.ftl.page_size") {
        ftl.page_size = Bytes(p.page_size);
    }
    if unset("burst_buffer.ftl.pages_per_block") {
        ftl.pages_per_block = p.pages_per_block;
    }
    if unset("burst_buffer.ftl.over_provisioning") {
        ftl.over_provisioning = p.over_provisioning;
    }
}

/// Cards of `per_card` devices: more, smaller devices in a server; one pooled device per
/// compute node.
fn split_cards(out: &mut Scenario, map: &SourceMap, per_card: u32) -> Result<(), Diagnostic> {
    let bb = &mut out.burst_buffer;
    if bb.placement == Placement::NodeLocal {
        bb.ssd.channels = bb.ssd.channels.saturating_mul(per_card);
        return Ok(());
    }
    bb.ssds_per_server = bb.ssds_per_server.checked_mul(per_card).ok_or_else(|| {
        map.error_at(
            "burst_buffer.ssd.devices_per_card",
            "ssds_per_server x devices_per_card must fit in 32 bits",
        )
    })?;
    let n = u64::from(per_card);
    bb.ssd.capacity = Bytes(bb.ssd.capacity.0 / n);
    bb.ssd.read_bandwidth = Bandwidth(bb.ssd.read_bandwidth.0 / n);
    bb.ssd.write_bandwidth = Bandwidth(bb.ssd.write_bandwidth.0 / n);
    Ok(())
}
