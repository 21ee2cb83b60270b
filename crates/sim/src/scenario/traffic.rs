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
