//! Physical units of the wire: how many bytes a flit carries and how fast a link runs,
//! so that results read in bytes/s and nanoseconds as well as flits and cycles.
//!
//! Every channel carries one flit per cycle, so a link of `link_gbps` Gbit/s with flits
//! of `flit_bytes` bytes has a cycle of `8 flit_bytes / link_gbps` ns. Examples: the
//! SiCortex fabric, 1.6 GB/s per link after coding in 8-byte flits (`flit_bytes = 8`,
//! `link_gbps = 12.8`: 5 ns); Myrinet-10G, 10 Gb/s (`link_gbps = 10`).

use crate::error::{Error, Result};

/// The wire's units, validated from `channel.flit_bytes` and `channel.link_gbps`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Units {
    /// Bytes per flit.
    pub flit_bytes: u32,
    /// Link rate in Gbit/s, when given.
    pub link_gbps: Option<f64>,
    /// Cycle time in ns (`8 flit_bytes / link_gbps`), when the rate is given.
    pub cycle_ns: Option<f64>,
}

impl Units {
    /// Validate the two `[channel]` fields; `None` when neither is given.
    pub fn build(flit_bytes: Option<u32>, link_gbps: Option<f64>) -> Result<Option<Units>> {
        let Some(fb) = flit_bytes else {
            if link_gbps.is_some() {
                return Err(Error::config(
                    "channel.flit_bytes",
                    "`channel.link_gbps` converts flits to bytes/s, so it needs the flit size: set `channel.flit_bytes` (e.g. 8)",
                ));
            }
            return Ok(None);
        };
        if fb == 0 {
            return Err(Error::config("channel.flit_bytes", "a flit carries at least 1 byte; give flit_bytes >= 1"));
        }
        if let Some(g) = link_gbps {
            if !(g.is_finite() && g > 0.0) {
                return Err(Error::config(
                    "channel.link_gbps",
                    format!(
                        "link rate {g} Gbit/s must be a positive finite number (e.g. 10 for Myrinet-10G, 12.8 for SiCortex's 1.6 GB/s)"
                    ),
                ));
            }
        }
        Ok(Some(Units { flit_bytes: fb, link_gbps, cycle_ns: link_gbps.map(|g| 8.0 * fb as f64 / g) }))
    }

    /// Bytes/s per byte/cycle: `1e9 / cycle_ns`.
    pub fn bytes_per_s(&self) -> Option<f64> {
        self.cycle_ns.map(|c| 1e9 / c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_time_by_hand() {
        // SiCortex: 1.6 GB/s in 8-byte flits is 200 M flits/s, 5 ns.
        let u = Units::build(Some(8), Some(12.8)).unwrap().unwrap();
        assert!((u.cycle_ns.unwrap() - 5.0).abs() < 1e-12);
        assert!((u.bytes_per_s().unwrap() - 2e8).abs() < 1e-3);
        assert_eq!(Units::build(Some(4), None).unwrap().unwrap().cycle_ns, None);
        assert_eq!(Units::build(None, None).unwrap(), None);
    }

    #[test]
    fn errors_name_the_field() {
        let e = |fb, g| Units::build(fb, g).unwrap_err().to_string();
        assert!(e(None, Some(10.0)).contains("channel.flit_bytes"));
        assert!(e(Some(0), None).contains("channel.flit_bytes"));
        assert!(e(Some(8), Some(0.0)).contains("channel.link_gbps"));
        assert!(e(Some(8), Some(f64::NAN)).contains("channel.link_gbps"));
    }
}
