//! Integration tests of the topologies and network models, in one test binary; `common` holds
//! the test model (routers or a fabric plus scripted hosts) they share.

mod common;

mod arbitration;
mod bypass;
mod flow;
mod head_waits;
mod large_packets;
mod nic_events;
mod partitions;
mod path;
mod routing_block;
mod topologies;
mod traffic;
mod units;
mod zero_load;
