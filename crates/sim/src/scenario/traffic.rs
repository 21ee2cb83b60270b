//! `[traffic]`: synthetic network traffic for `bbsim net`.

use super::*;

/// `[traffic]`: synthetic traffic between compute nodes, run by `bbsim net`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSection {
    /// The pattern.
    pub pattern: Pattern,
    /// Receiving node of the `hot-spot` pattern.
    #[serde(default)]
    pub hot_spot: u32,
    /// Distance of the `shift` pattern: node `i` sends to node `i + shift` (mod the node count).
    #[serde(default)]
    pub shift: u32,
    /// `hot-spot` only: this node sends to `victim_to` instead of the hot spot (a victim flow,
    /// reported on its own).
    #[serde(default)]
    pub victim_from: Option<u32>,
    /// The victim flow's receiving node (with `victim_from`).
    #[serde(default)]
    pub victim_to: Option<u32>,
    /// Message size.
    #[serde(default = "default_msg")]
    pub message_size: Bytes,
    /// Time between two messages of one node (0 sends `messages_per_node` at once).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Messages per node (default: until `end`).
    #[serde(default)]
    pub messages_per_node: Option<u64>,
    /// No message is generated at or after this time.
    pub end: Duration,
}

fn default_msg() -> Bytes {
    Bytes(512)
}
fn default_interval() -> Duration {
    Duration(1_000_000)
}
