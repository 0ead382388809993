//! flitsim-core: the flitsim engine.
//!
//! A flit-level, cycle-driven simulator of interconnection networks. Data flows one way:
//! a [`config::Config`] (TOML) is validated into a [`config::Spec`]; the spec builds a
//! [`sim::Simulation`] (topology + routers + channels + endpoints); the engine advances it
//! cycle by cycle under a [`traffic::Workload`]; [`stats`] collectors observe it; a
//! [`report::Report`] comes out. The crate does no I/O and never prints.

pub mod config;
pub mod congestion;
pub mod endpoint;
pub mod error;
pub mod faults;
pub mod flow;
pub mod huge_pages;
pub mod link;
pub mod packet;
pub mod report;
pub mod rng;
pub mod router;
pub mod routing;
pub mod schema;
pub mod sim;
pub mod stats;
pub mod topology;
pub mod traffic;

pub use error::{Error, Result};

/// The simulator version recorded in every report.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
