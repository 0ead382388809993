//! `[router]` with `type = "buffered_crossbar"`: the buffered-crossbar router's
//! parameters. The defaults are the Cray XT SeaStar's (4 VCs x 96-flit input buffers,
//! 16-flit staging buffers, round-robin output arbitration, the default age clock).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};
use crate::router::aging::clock::SaturationCheck;

/// The buffered-crossbar router (see [`crate::router::buffered`]).
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BufferedConfig {
    /// Virtual channels per port (ports x vcs <= 64). Default 4 (SeaStar:
    /// request VC0/VC1, response VC2/VC3 with `routing.classes = 2`).
    #[serde(default = "d_vcs")]
    #[schemars(range(min = 1, max = 16))]
    pub vcs: u32,
    /// Flit slots per input VC buffer. Default 96 (SeaStar).
    #[serde(default = "d_depth")]
    #[schemars(range(min = 1, max = 4096))]
    pub buffer_depth: u32,
    /// Flit slots per staging buffer: one per (output port, input port, input VC), filled
    /// by virtual cut-through, so at least the largest packet.
    #[serde(default = "d_staging")]
    #[schemars(range(min = 1, max = 4096))]
    pub staging_depth: u32,
    /// Maximum packet size in flits for the output arbiter's credit test: only VCs with
    /// at least this many downstream credits compete. Default: the workload's largest
    /// packet. Must be at least that, and at most `buffer_depth` and `staging_depth`.
    #[serde(default)]
    pub max_packet: Option<u32>,
    /// Cycles from a head's arrival until it is routed and may cross the crossbar.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub routing_delay: u32,
    /// Cycles from crossing the crossbar until a flit can leave its staging buffer.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub crossbar_delay: u32,
    /// Cycles from the output grant (or a flit leaving staging) until it enters the
    /// output channel.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub output_delay: u32,
    /// Cycles a credit takes to return upstream.
    #[serde(default = "d_one")]
    #[schemars(range(min = 1, max = 64))]
    pub credit_delay: u32,
    /// AGE_RR_SELECT: per grant, bit `n` (n = a 6-bit counter per output, advanced each
    /// grant) chooses age-based (1) or round-robin (0) arbitration. An integer or a hex
    /// string such as "0xffffffffffffffff" (all age-based) or "0x5555555555555555"
    /// (alternating). Default 0: round-robin.
    #[serde(default, deserialize_with = "mask_de", serialize_with = "mask_ser")]
    pub age_rr_select: u64,
    /// AGE_CLK_PERIOD: cycles per tick of the routers' 8-bit age timestamp.
    /// Default 4096 (0x1000, the hardware default).
    #[serde(default = "d_period")]
    #[schemars(range(min = 1))]
    pub age_clock_period: u32,
    /// REQ_AGE_BIAS per dimension (both ports of dimension `d` get entry `d`), added to
    /// the age of a request-class packet (VCs of class 0) arriving on that port (0..=7).
    /// Default 1 on every dimension.
    #[serde(default)]
    pub req_age_bias: Option<Vec<u32>>,
    /// RSP_AGE_BIAS per dimension, for response-class packets (the other classes).
    /// Default 1 on every dimension.
    #[serde(default)]
    pub rsp_age_bias: Option<Vec<u32>>,
    /// REQ_AGE_BIAS of the processor (injection) ports.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 7))]
    pub req_age_bias_local: u32,
    /// RSP_AGE_BIAS of the processor ports.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 7))]
    pub rsp_age_bias_local: u32,
    /// Per-port REQ_AGE_BIAS overriding the two fields above: one entry per router port
    /// in port order (+x, -x, +y, -y, ..., then the processor ports).
    #[serde(default)]
    pub req_age_bias_ports: Option<Vec<u32>>,
    /// Per-port RSP_AGE_BIAS, like `req_age_bias_ports`.
    #[serde(default)]
    pub rsp_age_bias_ports: Option<Vec<u32>>,
    /// Saturation test of the age calculation (Procedure 2 line 8): `corrected`
    /// (default) or `as_printed` (the paper's literal test, which saturates every packet
    /// received while its age was below the timestamp; see [`crate::router::aging::clock`]).
    #[serde(default)]
    pub saturation_check: SaturationCheck,
    /// Flits per cycle the processor ports deliver to their endpoints, as a fraction of a
    /// link (0.01..=1): each ejected flit holds the port for `1 / eject_rate` cycles, so a
    /// packet leaves for its endpoint spread over that many cycles per flit. The SeaStar's
    /// NIC takes about 2 GB/s of a 4.8 GB/s link (AbtsWeisser07, Eq. 14: 0.42). Default
    /// 1: the link rate.
    #[schemars(!skip_serializing_if)]
    #[serde(default = "crate::router::eject::link_rate", skip_serializing_if = "crate::router::eject::is_link_rate")]
    pub eject_rate: f64,
}

fn d_vcs() -> u32 {
    4
}
fn d_depth() -> u32 {
    96
}
fn d_staging() -> u32 {
    16
}
fn d_one() -> u32 {
    1
}
fn d_period() -> u32 {
    0x1000
}

impl Default for BufferedConfig {
    fn default() -> Self {
        BufferedConfig {
            vcs: 4,
            buffer_depth: 96,
            staging_depth: 16,
            max_packet: None,
            routing_delay: 1,
            crossbar_delay: 1,
            output_delay: 1,
            credit_delay: 1,
            age_rr_select: 0,
            age_clock_period: 0x1000,
            req_age_bias: None,
            rsp_age_bias: None,
            req_age_bias_local: 1,
            rsp_age_bias_local: 1,
            req_age_bias_ports: None,
            rsp_age_bias_ports: None,
            saturation_check: SaturationCheck::Corrected,
            eject_rate: 1.0,
        }
    }
}

/// A 64-bit mask from a TOML integer (which is signed: at most 2^63 - 1) or a string
/// ("0x..." hex, or decimal).
fn mask_de<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u64, D::Error> {
    /// Accepts exactly an integer or a string, so that any other type gets a message that
    /// says what a mask is (an untagged enum would say only that nothing matched).
    struct Mask;
    impl serde::de::Visitor<'_> for Mask {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a 64-bit mask: a non-negative integer, or a string in hex such as \"0x5555555555555555\"")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative; give a 64-bit mask such as \"0xffffffffffffffff\"")))
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<u64, E> {
            let t = s.trim().replace('_', "");
            let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => t.parse::<u64>(),
            };
            parsed.map_err(|_| E::custom(format!("\"{s}\" is not a 64-bit mask; write it as hex, e.g. \"0x5555555555555555\"")))
        }
    }
    d.deserialize_any(Mask)
}

fn mask_ser<S: Serializer>(m: &u64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{m:#018x}"))
}

impl BufferedConfig {
    /// Range checks; `path` is "router". `max_packet` is the workload's largest packet,
    /// `ndims` the topology's dimensions and `ports` its router ports.
    pub fn validate(&self, path: &str, workload_max: u32, ndims: usize, ports: u32) -> Result<()> {
        let range = |field: &str, v: u32, lo: u32, hi: u32, what: &str| crate::schema::check_range(path, field, v, lo, hi, what);
        crate::router::eject::validate(path, self.eject_rate)?;
        let max = self.max_packet.unwrap_or(workload_max);
        if max < workload_max {
            return Err(Error::config(
                format!("{path}.max_packet"),
                format!("{max} flits is smaller than the workload's largest packet ({workload_max} flits); use max_packet >= {workload_max} or leave it out"),
            ));
        }
        if max > self.staging_depth {
            return Err(Error::config(
                format!("{path}.staging_depth"),
                format!(
                    "{} flits cannot hold a {max}-flit packet, which virtual cut-through into the staging buffer requires; use staging_depth >= {max}",
                    self.staging_depth
                ),
            ));
        }
        if max > self.buffer_depth {
            return Err(Error::config(
                format!("{path}.buffer_depth"),
                format!(
                    "{} flits is less than the {max}-flit maximum packet the output arbiter waits for in downstream credits, so no packet could ever leave; use buffer_depth >= {max}",
                    self.buffer_depth
                ),
            ));
        }
        for (field, v) in [("req_age_bias", &self.req_age_bias), ("rsp_age_bias", &self.rsp_age_bias)] {
            if let Some(v) = v {
                if v.len() != ndims {
                    return Err(Error::config(
                        format!("{path}.{field}"),
                        format!("has {} entries but the topology has {ndims} dimensions; give one bias per dimension", v.len()),
                    ));
                }
                for (i, &b) in v.iter().enumerate() {
                    range(&format!("{field}[{i}]"), b, 0, 7, "an age bias (a 3-bit field)")?;
                }
            }
        }
        for (field, v) in [("req_age_bias_ports", &self.req_age_bias_ports), ("rsp_age_bias_ports", &self.rsp_age_bias_ports)] {
            if let Some(v) = v {
                if v.len() != ports as usize {
                    return Err(Error::config(
                        format!("{path}.{field}"),
                        format!("has {} entries but the routers have {ports} ports; give one bias per port (+x, -x, +y, -y, ..., then the processor ports)", v.len()),
                    ));
                }
                for (i, &b) in v.iter().enumerate() {
                    range(&format!("{field}[{i}]"), b, 0, 7, "an age bias (a 3-bit field)")?;
                }
            }
        }
        Ok(())
    }

    /// Per port: (request bias, response bias), for routers whose first `2 * ndims` ports
    /// are the network ports (dimension `d` at ports `2d`, `2d + 1`).
    pub fn port_biases(&self, ndims: usize, ports: u32) -> Vec<(u8, u8)> {
        (0..ports as usize)
            .map(|p| {
                let pick = |per_port: &Option<Vec<u32>>, per_dim: &Option<Vec<u32>>, local: u32| -> u8 {
                    if let Some(v) = per_port {
                        return v[p] as u8;
                    }
                    if p < 2 * ndims {
                        per_dim.as_ref().map_or(1, |v| v[p / 2]) as u8
                    } else {
                        local as u8
                    }
                };
                (
                    pick(&self.req_age_bias_ports, &self.req_age_bias, self.req_age_bias_local),
                    pick(&self.rsp_age_bias_ports, &self.rsp_age_bias, self.rsp_age_bias_local),
                )
            })
            .collect()
    }
}
