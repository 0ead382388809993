//! Packet sizes: how many flits each new packet has, fixed or drawn from a discrete
//! distribution. The mean size converts an offered load in flits/node/cycle into a
//! packet-creation rate.

use std::fmt;

use serde::de::{self, MapAccess, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Error, Result};
use crate::rng::{threshold, SimRng};

/// Largest packet, in flits (packet sizes travel in 16-bit header fields).
pub const MAX_PACKET_FLITS: u32 = 65_535;

/// Config key `traffic.packet_size`: flits per packet. Either a number
/// (`packet_size = 4`) or a table of sizes and relative weights
/// (`packet_size = { sizes = [1, 5], weights = [0.5, 0.5] }`).
#[derive(Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PacketSizeConfig {
    /// Every packet has this many flits, in 1..=65535.
    Fixed(u32),
    /// Each packet's size is drawn independently: `sizes[i]` with probability
    /// `weights[i] / sum(weights)`.
    Distribution {
        /// Packet sizes in flits, each in 1..=65535. Non-empty.
        sizes: Vec<u32>,
        /// Relative weight of each size: positive, finite, same length as `sizes`
        /// (they need not sum to 1).
        weights: Vec<f64>,
    },
}

impl Default for PacketSizeConfig {
    fn default() -> Self {
        PacketSizeConfig::Fixed(1)
    }
}

/// Hand-written so that a bad value gets a precise message (serde's untagged enums only
/// say "data did not match any variant") and unknown keys in the table are rejected.
impl<'de> Deserialize<'de> for PacketSizeConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct SizeVisitor;

        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Distribution {
            sizes: Vec<u32>,
            weights: Vec<f64>,
        }

        impl<'de> Visitor<'de> for SizeVisitor {
            type Value = PacketSizeConfig;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a packet size in flits (e.g. `4`) or a table `{ sizes = [1, 5], weights = [0.5, 0.5] }`")
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
                u32::try_from(v).map(PacketSizeConfig::Fixed).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
                }
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Self::Value, A::Error> {
                let d = Distribution::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(PacketSizeConfig::Distribution { sizes: d.sizes, weights: d.weights })
            }
        }

        deserializer.deserialize_any(SizeVisitor)
    }
}

/// A built packet-size distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct PacketSize {
    kind: Kind,
    mean: f64,
    min: u32,
    max: u32,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Fixed(u32),
    /// Size `sizes[i]` is chosen for the first `i` with `u < cumulative[i]`, `u` a
    /// uniform `u64`; the last cumulative threshold is `u64::MAX`.
    Distribution {
        sizes: Box<[u32]>,
        cumulative: Box<[u64]>,
    },
}

impl PacketSize {
    /// Validate `cfg` and build the distribution. `path` is the config key path of the
    /// packet size, e.g. `"traffic.packet_size"`; errors name `{path}.sizes` etc.
    pub fn build(cfg: &PacketSizeConfig, path: &str) -> Result<Self> {
        match cfg {
            PacketSizeConfig::Fixed(size) => {
                check_size(*size, path)?;
                Ok(Self::fixed(*size))
            }
            PacketSizeConfig::Distribution { sizes, weights } => {
                let sizes_path = format!("{path}.sizes");
                let weights_path = format!("{path}.weights");
                if sizes.is_empty() {
                    return Err(Error::config(
                        sizes_path,
                        "the size distribution lists no sizes; give at least one, e.g. \
                         `sizes = [1, 5], weights = [0.5, 0.5]`, or a fixed size `packet_size = 4`",
                    ));
                }
                for &size in sizes {
                    check_size(size, &sizes_path)?;
                }
                if weights.len() != sizes.len() {
                    return Err(Error::config(
                        weights_path,
                        format!("{} weights for {} sizes; give exactly one weight per size", weights.len(), sizes.len()),
                    ));
                }
                if let Some(w) = weights.iter().find(|w| !(w.is_finite() && **w > 0.0)) {
                    return Err(Error::config(
                        weights_path,
                        format!("weight {w} is not a positive finite number; weights are relative frequencies > 0"),
                    ));
                }
                let total: f64 = weights.iter().sum();
                if !total.is_finite() {
                    return Err(Error::config(weights_path, "the weights sum to infinity; scale them down (only their ratios matter)"));
                }
                if sizes.len() == 1 {
                    return Ok(Self::fixed(sizes[0]));
                }
                let mean = sizes.iter().zip(weights).map(|(&s, &w)| s as f64 * w).sum::<f64>() / total;
                let mut cumulative = Vec::with_capacity(sizes.len());
                let mut acc = 0.0;
                for &w in &weights[..weights.len() - 1] {
                    acc += w;
                    cumulative.push(threshold(acc / total));
                }
                cumulative.push(u64::MAX);
                Ok(PacketSize {
                    kind: Kind::Distribution { sizes: sizes.clone().into_boxed_slice(), cumulative: cumulative.into() },
                    mean,
                    min: *sizes.iter().min().unwrap(),
                    max: *sizes.iter().max().unwrap(),
                })
            }
        }
    }

    fn fixed(size: u32) -> Self {
        PacketSize { kind: Kind::Fixed(size), mean: size as f64, min: size, max: size }
    }

    /// The packets of a message: `min`..=`max` flits, and the mean flits per *creation*
    /// (a whole message), which sets the injection rate for a load in flits.
    pub(crate) fn message(m: &super::Message) -> Self {
        PacketSize {
            kind: Kind::Fixed(m.full_flits),
            mean: m.flits() as f64,
            min: m.full_flits.min(m.last_flits),
            max: m.full_flits.max(m.last_flits),
        }
    }

    /// Mean packet size in flits (weighted by the configured weights); with messages,
    /// the flits of a whole message (what one creation offers).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Largest possible packet, in flits.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// Smallest possible packet, in flits.
    pub fn min(&self) -> u32 {
        self.min
    }

    /// Size of the next packet in flits. A fixed size draws nothing from `rng`; a
    /// distribution draws one `u64`.
    #[inline]
    pub fn sample(&self, rng: &mut SimRng) -> u32 {
        match &self.kind {
            Kind::Fixed(size) => *size,
            Kind::Distribution { sizes, cumulative } => {
                use rand::Rng;
                let u = rng.next_u64();
                let i = cumulative.partition_point(|&c| c <= u).min(sizes.len() - 1);
                sizes[i]
            }
        }
    }
}

fn check_size(size: u32, path: &str) -> Result<()> {
    if size == 0 || size > MAX_PACKET_FLITS {
        return Err(Error::config(path, format!("packet size {size} flits is out of range; sizes must be 1..={MAX_PACKET_FLITS} flits")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{domain, stream};

    fn dist(sizes: &[u32], weights: &[f64]) -> PacketSizeConfig {
        PacketSizeConfig::Distribution { sizes: sizes.to_vec(), weights: weights.to_vec() }
    }

    #[test]
    fn fixed_size_draws_nothing() {
        let s = PacketSize::build(&PacketSizeConfig::Fixed(5), "traffic.packet_size").unwrap();
        assert_eq!((s.mean(), s.min(), s.max()), (5.0, 5, 5));
        let mut rng = stream(1, domain::ENDPOINT, 0);
        let before = rng.clone();
        assert_eq!(s.sample(&mut rng), 5);
        assert_eq!(rng, before, "a fixed size must not consume randomness");
        assert_eq!(PacketSize::build(&PacketSizeConfig::default(), "p").unwrap().mean(), 1.0);
    }

    #[test]
    fn distribution_mean_and_frequencies() {
        // Weights 1 : 3 : 4 over sizes 1, 4, 16: probabilities 1/8, 3/8, 1/2.
        let s = PacketSize::build(&dist(&[1, 4, 16], &[1.0, 3.0, 4.0]), "traffic.packet_size").unwrap();
        assert_eq!(s.mean(), (1.0 + 12.0 + 64.0) / 8.0);
        assert_eq!((s.min(), s.max()), (1, 16));
        let mut rng = stream(2, domain::ENDPOINT, 0);
        let n = 160_000u32;
        let (mut c1, mut c4, mut c16) = (0u32, 0u32, 0u32);
        let mut flits = 0u64;
        for _ in 0..n {
            let size = s.sample(&mut rng);
            flits += size as u64;
            match size {
                1 => c1 += 1,
                4 => c4 += 1,
                16 => c16 += 1,
                other => panic!("unexpected size {other}"),
            }
        }
        for (count, p) in [(c1, 0.125), (c4, 0.375), (c16, 0.5)] {
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!((count as f64 - n as f64 * p).abs() < 5.0 * sd, "{count} vs p {p}");
        }
        // Size variance: E[s^2] - mean^2 = (1 + 48 + 128) - 9.625^2 = 84.36...
        let sd_mean = ((177.0 - 9.625f64 * 9.625) / n as f64).sqrt();
        assert!((flits as f64 / n as f64 - s.mean()).abs() < 5.0 * sd_mean);
    }

    #[test]
    fn single_entry_distribution_is_fixed() {
        let s = PacketSize::build(&dist(&[7], &[2.0]), "p").unwrap();
        assert_eq!(s, PacketSize::build(&PacketSizeConfig::Fixed(7), "p").unwrap());
    }

    #[test]
    fn validation_errors() {
        let check = |cfg: PacketSizeConfig, path: &str, phrase: &str| {
            let e = PacketSize::build(&cfg, "traffic.packet_size").unwrap_err();
            assert_eq!(e.path(), Some(path), "{e}");
            assert!(e.to_string().contains(phrase), "`{e}` lacks `{phrase}`");
        };
        check(PacketSizeConfig::Fixed(0), "traffic.packet_size", "packet size 0 flits is out of range");
        check(PacketSizeConfig::Fixed(70_000), "traffic.packet_size", "1..=65535");
        check(dist(&[], &[]), "traffic.packet_size.sizes", "no sizes");
        check(dist(&[1, 0], &[1.0, 1.0]), "traffic.packet_size.sizes", "packet size 0");
        check(dist(&[1, 2], &[1.0]), "traffic.packet_size.weights", "1 weights for 2 sizes");
        check(dist(&[1, 2], &[1.0, 0.0]), "traffic.packet_size.weights", "weight 0 is not");
        check(dist(&[1, 2], &[1.0, -1.0]), "traffic.packet_size.weights", "positive finite");
        check(dist(&[1, 2], &[f64::NAN, 1.0]), "traffic.packet_size.weights", "weight NaN");
        check(dist(&[1, 2], &[f64::MAX, f64::MAX]), "traffic.packet_size.weights", "infinity");
    }

    #[test]
    fn config_parses_from_toml() {
        #[derive(Deserialize)]
        struct T {
            packet_size: PacketSizeConfig,
        }
        let parse = |s: &str| toml::from_str::<T>(s).map(|t| t.packet_size);
        assert_eq!(parse("packet_size = 4").unwrap(), PacketSizeConfig::Fixed(4));
        assert_eq!(parse("packet_size = { sizes = [1, 5], weights = [0.5, 0.5] }").unwrap(), dist(&[1, 5], &[0.5, 0.5]));
        assert_eq!(parse("packet_size = { sizes = [2], weights = [1] }").unwrap(), dist(&[2], &[1.0]));
        let msg = |s: &str| parse(s).unwrap_err().to_string();
        assert!(msg("packet_size = -1").contains("a packet size in flits"), "{}", msg("packet_size = -1"));
        assert!(msg("packet_size = 1.5").contains("a packet size in flits"));
        assert!(msg("packet_size = { sizes = [1] }").contains("missing field `weights`"));
        assert!(msg("packet_size = { sizes = [1], weights = [1], z = 0 }").contains("unknown field `z`"));
        // Serialization round-trips.
        for cfg in [PacketSizeConfig::Fixed(3), dist(&[1, 5], &[0.25, 0.75])] {
            #[derive(Serialize)]
            struct S<'a> {
                packet_size: &'a PacketSizeConfig,
            }
            let text = toml::to_string(&S { packet_size: &cfg }).unwrap();
            assert_eq!(parse(&text).unwrap(), cfg, "{text}");
        }
    }
}
