//! Injection processes: *when* each endpoint creates a packet (BookSim `injection.hpp`).
//!
//! An [`InjectionConfig`] is the `[traffic.injection]` table. [`InjectionProcess::build`]
//! turns it, for one offered load and mean packet size, into per-cycle probabilities held
//! as integer thresholds (see [`crate::sim::rng::threshold`]), so the per-cycle test is
//! one or two integer compares and bit-identical on every machine. Per-endpoint state (the
//! on/off phase and the source's packet count) lives in a small [`SourceState`] owned by
//! the endpoint.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::sim::rng::{fires, threshold, SimRng};

/// Config table `[traffic.injection]`: when endpoints create packets. Select with
/// `type = "..."`; the rate always comes from the offered load (`traffic.load`).
#[derive(Serialize, Clone, Debug, PartialEq, Default)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InjectionConfig {
    /// Each cycle each endpoint creates a packet with probability
    /// `load / mean packet size` (packets/cycle), independently. The default.
    #[default]
    Bernoulli,
    /// Bursty two-state Markov-modulated Bernoulli source. While ON it creates packets
    /// with probability `peak / mean packet size` per cycle; while OFF it creates none.
    /// An ON period lasts a geometric number of cycles with mean `burst_length`; the OFF
    /// periods are sized so that the long-run average equals the offered load.
    OnOff {
        /// Mean length of an ON period, in cycles (>= 1). Required.
        burst_length: f64,
        /// Offered load while ON, in flits/node/cycle, in (0, 1]; must exceed the
        /// offered load. Default 1.
        #[serde(default = "one")]
        peak: f64,
    },
}

fn one() -> f64 {
    1.0
}

/// Deserialization mirror of [`InjectionConfig`], externally tagged so that errors inside
/// the table keep their key path (see [`crate::config::deserialize_tagged`]), whose unit
/// variant is an empty struct variant so that stray keys are rejected.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum RawInjection {
    Bernoulli {},
    OnOff {
        burst_length: f64,
        #[serde(default = "one")]
        peak: f64,
    },
}

impl<'de> Deserialize<'de> for InjectionConfig {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        crate::config::deserialize_tagged::<D, RawInjection>(deserializer, "injection process", None)
            .map(Into::into)
    }
}

impl From<RawInjection> for InjectionConfig {
    fn from(raw: RawInjection) -> Self {
        match raw {
            RawInjection::Bernoulli {} => InjectionConfig::Bernoulli,
            RawInjection::OnOff { burst_length, peak } => {
                InjectionConfig::OnOff { burst_length, peak }
            }
        }
    }
}

/// Registry entries for `flitsim list`.
pub(crate) const REGISTRY: &[crate::config::registry::Entry] = &[
    crate::config::registry::Entry {
        family: "injection",
        name: "bernoulli",
        summary: "each cycle a packet with probability load / mean packet size",
        params: &[],
    },
    crate::config::registry::Entry {
        family: "injection",
        name: "on_off",
        summary: "bursty Markov-modulated source averaging the offered load",
        params: &[
            ("burst_length", "required", "mean ON period in cycles, >= 1"),
            (
                "peak",
                "1",
                "load while ON in flits/node/cycle, in (0, 1], above the offered load",
            ),
        ],
    },
];

/// Per-endpoint state of a source: the injection process's on/off phase and the number
/// of packets the source has created so far in the run. Start it with
/// [`InjectionProcess::initial_state`]; it carries over from one phase to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceState {
    on: bool,
    /// Packets this source has created in the run (kept by
    /// [`Workload::generate`](super::Workload::generate)).
    pub(crate) created: u64,
    /// Recursive doubling: packets this node has received per round (kept by
    /// [`Workload::delivered`](super::Workload::delivered)).
    pub(crate) received: [u32; super::pattern::MAX_ROUNDS as usize],
    /// Packets this source did not inject because failures left their destination
    /// unreachable (kept by [`Workload::generate`](super::Workload::generate)).
    pub(crate) unroutable: u64,
    /// Of those, packets whose destination's router failed.
    pub(crate) to_failed: u64,
}

impl SourceState {
    /// Is the source in its ON (bursting) state? Always false for Bernoulli sources.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Packets this source has created so far in the run (including any it did not
    /// inject because failures left the destination unreachable).
    pub fn created(&self) -> u64 {
        self.created
    }

    /// Packets not injected because the routes do not reach the destination: `(all,
    /// of which to failed nodes)`.
    pub fn unroutable(&self) -> (u64, u64) {
        (self.unroutable, self.to_failed)
    }
}

/// An injection process built for one offered load and mean packet size.
#[derive(Clone, Debug, PartialEq)]
pub struct InjectionProcess {
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    /// Zero load: never fires, draws nothing, leaves the state alone.
    Silent,
    Bernoulli {
        create: u64,
    },
    OnOff {
        /// Packet creation per cycle while ON.
        create: u64,
        /// P(ON -> OFF) per cycle = 1 / burst_length.
        turn_off: u64,
        /// P(OFF -> ON) per cycle.
        turn_on: u64,
        /// Stationary P(ON) = load / peak, for the initial state.
        start_on: u64,
    },
}

impl InjectionProcess {
    /// Validate `cfg` and build the process for offered `load` (flits/node/cycle, in
    /// [0, 1]) and `mean_size` (flits per packet, >= 1). `path` is the config key path of
    /// the injection table, e.g. `"traffic.injection"`; errors name `{path}.peak` etc.,
    /// and errors about the load itself (out of range, or too high for on/off) name
    /// `traffic.load`.
    pub fn build(cfg: &InjectionConfig, load: f64, mean_size: f64, path: &str) -> Result<Self> {
        Self::build_at(cfg, load, mean_size, path, None)
    }

    /// As [`build`](Self::build), with load-related errors reported at `load_path`
    /// (e.g. `traffic.phases[1].load`) instead of `traffic.load`.
    pub(crate) fn build_at(
        cfg: &InjectionConfig,
        load: f64,
        mean_size: f64,
        path: &str,
        load_path: Option<&str>,
    ) -> Result<Self> {
        let load_path = load_path.unwrap_or("traffic.load");
        super::check_load(load, load_path)?;
        assert!(
            mean_size >= 1.0 && mean_size.is_finite(),
            "mean packet size {mean_size} (engine bug)"
        );
        let kind = match *cfg {
            InjectionConfig::Bernoulli => {
                if load == 0.0 {
                    Kind::Silent
                } else {
                    Kind::Bernoulli {
                        create: threshold(load / mean_size),
                    }
                }
            }
            InjectionConfig::OnOff { burst_length, peak } => {
                if !(burst_length >= 1.0 && burst_length.is_finite()) {
                    return Err(Error::config(
                        format!("{path}.burst_length"),
                        format!(
                            "burst_length {burst_length} is not a valid mean ON period; it must be a \
                             finite number of cycles >= 1"
                        ),
                    ));
                }
                if !(peak > 0.0 && peak <= 1.0) {
                    return Err(Error::config(
                        format!("{path}.peak"),
                        format!(
                            "peak {peak} must be in (0, 1] flits/node/cycle: it is the load offered \
                             while ON, and one flit per cycle is the injection channel's bandwidth"
                        ),
                    ));
                }
                if load >= peak {
                    return Err(Error::config(
                        load_path,
                        format!(
                            "offered load {load} is not below the on/off peak {peak}: an on/off source \
                             averages less than its peak; use a larger peak (up to 1) or \
                             `injection = {{ type = \"bernoulli\" }}`"
                        ),
                    ));
                }
                if load == 0.0 {
                    Kind::Silent
                } else {
                    // Two-state chain: beta = P(on->off), alpha = P(off->on);
                    // P(on) = alpha / (alpha + beta) = load / peak.
                    let beta = 1.0 / burst_length;
                    let alpha = beta * load / (peak - load);
                    if alpha > 1.0 {
                        let max = peak * burst_length / (burst_length + 1.0);
                        return Err(Error::config(
                            load_path,
                            format!(
                                "offered load {load} is too high for on/off bursts of mean length \
                                 {burst_length} at peak {peak}: a source is OFF at least one cycle \
                                 between bursts, so it can offer at most peak * burst_length / \
                                 (burst_length + 1) = {max}; lower the load, raise burst_length or \
                                 peak, or use `bernoulli`"
                            ),
                        ));
                    }
                    Kind::OnOff {
                        create: threshold(peak / mean_size),
                        turn_off: threshold(beta),
                        turn_on: threshold(alpha),
                        start_on: threshold(load / peak),
                    }
                }
            }
        };
        Ok(InjectionProcess { kind })
    }

    /// A fresh per-endpoint state. On/off sources start in their stationary distribution
    /// (ON with probability load / peak), so there is no start-up transient.
    pub fn initial_state(&self, rng: &mut SimRng) -> SourceState {
        match self.kind {
            Kind::OnOff { start_on, .. } => SourceState {
                on: fires(rng, start_on),
                ..SourceState::default()
            },
            Kind::Silent | Kind::Bernoulli { .. } => SourceState::default(),
        }
    }

    /// Called once per endpoint per cycle; true when a packet is created this cycle.
    /// On/off sources first take their ON/OFF transition, then (if ON) try to create.
    /// Hot path: integer threshold compares only.
    #[inline]
    pub fn fires(&self, state: &mut SourceState, rng: &mut SimRng) -> bool {
        match self.kind {
            Kind::Silent => false,
            Kind::Bernoulli { create } => fires(rng, create),
            Kind::OnOff {
                create,
                turn_off,
                turn_on,
                ..
            } => {
                state.on = if state.on {
                    !fires(rng, turn_off)
                } else {
                    fires(rng, turn_on)
                };
                state.on && fires(rng, create)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::{domain, stream};

    fn on_off(burst_length: f64, peak: f64) -> InjectionConfig {
        InjectionConfig::OnOff { burst_length, peak }
    }

    fn assert_err(r: Result<InjectionProcess>, path: &str, phrase: &str) {
        let e = r.unwrap_err();
        assert_eq!(e.path(), Some(path), "{e}");
        assert!(e.to_string().contains(phrase), "`{e}` lacks `{phrase}`");
    }

    #[test]
    fn bernoulli_rate() {
        // load 0.4 flits/cycle with 4-flit packets: p = 0.1 packets/cycle.
        let p = InjectionProcess::build(&InjectionConfig::Bernoulli, 0.4, 4.0, "traffic.injection")
            .unwrap();
        let mut rng = stream(1, domain::ENDPOINT, 0);
        let mut st = p.initial_state(&mut rng);
        let cycles = 200_000u32;
        let hits = (0..cycles).filter(|_| p.fires(&mut st, &mut rng)).count() as f64;
        // Binomial: mean 20000, sd sqrt(200000 * 0.1 * 0.9) ~ 134.
        let sd = (cycles as f64 * 0.1 * 0.9).sqrt();
        assert!((hits - 20_000.0).abs() < 5.0 * sd, "{hits}");
    }

    #[test]
    fn zero_load_never_fires() {
        for cfg in [InjectionConfig::Bernoulli, on_off(8.0, 1.0)] {
            let p = InjectionProcess::build(&cfg, 0.0, 1.0, "traffic.injection").unwrap();
            let mut rng = stream(2, domain::ENDPOINT, 0);
            let mut st = p.initial_state(&mut rng);
            assert!(!st.is_on());
            assert!((0..10_000).all(|_| !p.fires(&mut st, &mut rng)));
        }
    }

    #[test]
    fn full_load_bernoulli_fires_every_cycle() {
        let p = InjectionProcess::build(&InjectionConfig::Bernoulli, 1.0, 1.0, "traffic.injection")
            .unwrap();
        let mut rng = stream(2, domain::ENDPOINT, 0);
        let mut st = SourceState::default();
        assert!((0..1000).all(|_| p.fires(&mut st, &mut rng)));
    }

    /// Asymptotic variance per cycle of the packet count of an on/off source: the
    /// creation indicator X_t = on_t * B_t has var pi*q*(1 - pi*q), and lag-k covariance
    /// q^2 * pi*(1-pi) * lambda^k with lambda = 1 - alpha - beta.
    fn on_off_variance_per_cycle(load: f64, peak: f64, burst: f64, mean_size: f64) -> f64 {
        let q = peak / mean_size;
        let pi = load / peak;
        let beta = 1.0 / burst;
        let alpha = beta * load / (peak - load);
        let lambda = 1.0 - alpha - beta;
        pi * q * (1.0 - pi * q) + 2.0 * q * q * pi * (1.0 - pi) * lambda / (1.0 - lambda)
    }

    #[test]
    fn on_off_long_run_rate_and_burst_length() {
        let (load, peak, burst, size) = (0.2, 0.8, 10.0, 2.0);
        let p =
            InjectionProcess::build(&on_off(burst, peak), load, size, "traffic.injection").unwrap();
        let mut rng = stream(3, domain::ENDPOINT, 0);
        let mut st = p.initial_state(&mut rng);
        let cycles = 400_000u32;
        let (mut packets, mut on_cycles, mut runs, mut run) = (0u32, 0u32, 0u32, 0u32);
        for _ in 0..cycles {
            packets += p.fires(&mut st, &mut rng) as u32;
            if st.is_on() {
                on_cycles += 1;
                run += 1;
            } else if run > 0 {
                runs += 1;
                run = 0;
            }
        }
        // Packets per cycle averages load / size = 0.1.
        let mean = cycles as f64 * load / size;
        let sd = (cycles as f64 * on_off_variance_per_cycle(load, peak, burst, size)).sqrt();
        assert!(
            (packets as f64 - mean).abs() < 5.0 * sd,
            "{packets} vs {mean} +- {sd}"
        );
        // ON runs are geometric with mean 10 and variance (1 - 0.1) / 0.1^2 = 90;
        // about 400000 * 0.25 / 10 = 10000 runs, so the mean's sd ~ 0.095.
        let mean_run = on_cycles as f64 / runs as f64;
        let run_sd = (90.0 / runs as f64).sqrt();
        assert!(
            (mean_run - burst).abs() < 5.0 * run_sd,
            "mean ON run {mean_run} over {runs} runs"
        );
    }

    #[test]
    fn on_off_is_burstier_than_bernoulli() {
        // Same load: per-window packet counts vary much more for on/off.
        let window_variance = |cfg: InjectionConfig| {
            let p = InjectionProcess::build(&cfg, 0.3, 1.0, "traffic.injection").unwrap();
            let mut rng = stream(4, domain::ENDPOINT, 0);
            let mut st = p.initial_state(&mut rng);
            let counts: Vec<f64> = (0..2_000)
                .map(|_| (0..100).filter(|_| p.fires(&mut st, &mut rng)).count() as f64)
                .collect();
            let m = counts.iter().sum::<f64>() / counts.len() as f64;
            counts.iter().map(|c| (c - m).powi(2)).sum::<f64>() / (counts.len() - 1) as f64
        };
        let bernoulli = window_variance(InjectionConfig::Bernoulli);
        let bursty = window_variance(on_off(20.0, 1.0));
        // Bernoulli: 100 * 0.3 * 0.7 = 21. On/off (pi = 0.3, lambda = 1 - alpha - beta ~ 0.929):
        // 0.21 * (100 + 2 * sum_k (100 - k) lambda^k) ~ 490, over 20x.
        assert!((bernoulli - 21.0).abs() < 5.0, "{bernoulli}");
        assert!(bursty > 5.0 * bernoulli, "{bursty} vs {bernoulli}");
    }

    #[test]
    fn on_off_starts_stationary() {
        let p = InjectionProcess::build(&on_off(5.0, 1.0), 0.25, 1.0, "traffic.injection").unwrap();
        let mut rng = stream(5, domain::ENDPOINT, 0);
        let n = 100_000u32;
        let on = (0..n).filter(|_| p.initial_state(&mut rng).is_on()).count() as f64;
        let sd = (n as f64 * 0.25 * 0.75).sqrt();
        assert!((on - 25_000.0).abs() < 5.0 * sd, "{on}");
    }

    #[test]
    fn validation_errors() {
        let path = "traffic.injection";
        let build =
            |cfg: InjectionConfig, load: f64| InjectionProcess::build(&cfg, load, 1.0, path);
        assert_err(
            build(on_off(0.5, 1.0), 0.1),
            "traffic.injection.burst_length",
            ">= 1",
        );
        assert_err(
            build(on_off(f64::NAN, 1.0), 0.1),
            "traffic.injection.burst_length",
            ">= 1",
        );
        assert_err(
            build(on_off(f64::INFINITY, 1.0), 0.1),
            "traffic.injection.burst_length",
            "finite",
        );
        for peak in [0.0, 1.2, f64::NAN] {
            assert_err(
                build(on_off(4.0, peak), 0.1),
                "traffic.injection.peak",
                "must be in (0, 1]",
            );
        }
        assert_err(build(on_off(4.0, 0.5), 0.5), "traffic.load", "larger peak");
        assert_err(build(on_off(4.0, 0.5), 0.7), "traffic.load", "bernoulli");
        // burst 1, peak 1: at most 1 * 1 / 2 = 0.5.
        assert_err(
            build(on_off(1.0, 1.0), 0.6),
            "traffic.load",
            "at most peak * burst_length / (burst_length + 1) = 0.5",
        );
        assert!(build(on_off(1.0, 1.0), 0.5).is_ok());
        assert_err(
            build(InjectionConfig::Bernoulli, 1.5),
            "traffic.load",
            "[0, 1]",
        );
        let e = InjectionProcess::build_at(
            &on_off(4.0, 0.5),
            0.6,
            1.0,
            path,
            Some("traffic.phases[1].load"),
        );
        assert_err(e, "traffic.phases[1].load", "not below the on/off peak 0.5");
    }

    #[test]
    fn config_parses_from_toml() {
        #[derive(Deserialize)]
        struct T {
            injection: InjectionConfig,
        }
        let parse = |s: &str| toml::from_str::<T>(s).map(|t| t.injection);
        assert_eq!(
            parse("injection = { type = \"bernoulli\" }").unwrap(),
            InjectionConfig::Bernoulli
        );
        assert_eq!(
            parse("injection = { type = \"on_off\", burst_length = 8 }").unwrap(),
            on_off(8.0, 1.0)
        );
        assert!(parse("injection = { type = \"on_off\" }").is_err());
        assert!(parse("injection = { type = \"bernoulli\", rate = 1 }")
            .unwrap_err()
            .to_string()
            .contains("unknown field `rate`"));
        assert!(parse("injection = { type = \"on_off\", burst_length = 4, rate = 1 }").is_err());
    }
}
