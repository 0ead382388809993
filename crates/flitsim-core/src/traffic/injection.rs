//! Injection processes: *when* each endpoint creates a packet (BookSim `injection.hpp`).
//!
//! An [`InjectionConfig`] is the `[traffic.injection]` table. [`InjectionProcess::build`]
//! turns it, for one offered load and mean packet size, into per-cycle probabilities held
//! as integer thresholds (see [`crate::sim::rng::threshold`]), or for a periodic source
//! into a fixed-point regeneration interval, so the per-cycle test is one or two integer
//! operations and bit-identical on every machine. Per-endpoint state (the on/off phase,
//! the periodic clock and the source's packet count) lives in a small [`SourceState`]
//! owned by the endpoint.

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
    /// Each endpoint creates one packet every `mean packet size / load` cycles exactly
    /// (the *packet regeneration interval* of Thottethodi, Lebeck and Mukherjee's
    /// global-knowledge self-tuned congestion control, sec. 5.1: "each node generating
    /// 16 flit packets at the same fixed rate"; sec. 5.2.4 alternates one packet every
    /// 1,500 cycles with one every 15, i.e. loads 16/1500 and 16/15 flits/node/cycle).
    /// Each source starts at its own random offset within its first interval, so sources
    /// are not synchronised. The interval may be fractional: consecutive packets are then
    /// `floor` or `ceil` of it apart, and over any T cycles a source creates `floor` or
    /// `ceil` of `T / interval` packets, never drifting. When a phase changes the
    /// interval, a source keeps its position as a fraction of the interval (see
    /// [`InjectionProcess::fires`]).
    Periodic,
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

impl InjectionConfig {
    /// The highest offered load (flits/node/cycle) this process accepts with packets of
    /// `mean_size` flits on average. Bernoulli and periodic sources create at most one
    /// packet per cycle, so up to `mean_size`; above 1 flit/node/cycle the excess waits
    /// in the source queue, as the injection channel carries one flit per cycle. An
    /// on/off source offers at most its peak, which is at most 1.
    pub fn max_load(&self, mean_size: f64) -> f64 {
        match self {
            InjectionConfig::Bernoulli | InjectionConfig::Periodic => mean_size,
            InjectionConfig::OnOff { .. } => 1.0,
        }
    }
}

/// Deserialization mirror of [`InjectionConfig`], externally tagged so that errors inside
/// the table keep their key path (see [`crate::config::deserialize_tagged`]), whose unit
/// variant is an empty struct variant so that stray keys are rejected.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum RawInjection {
    Bernoulli {},
    Periodic {},
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
            RawInjection::Periodic {} => InjectionConfig::Periodic,
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
        name: "periodic",
        summary: "a packet every mean packet size / load cycles exactly, from a random offset per source",
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

/// Per-endpoint state of a source: the injection process's on/off phase or periodic
/// clock, and the number of packets the source has created so far in the run. Start it
/// with [`InjectionProcess::initial_state`]; it carries over from one phase to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceState {
    on: bool,
    /// Periodic sources: the regeneration clock.
    clock: PeriodicClock,
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

/// The clock of a periodic source, in fixed point: units of 2^-32 cycles
/// ([`FIXED_ONE`] is one cycle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PeriodicClock {
    /// Time from the start of the current cycle to the source's next packet creation,
    /// always below `interval`.
    next: u64,
    /// The regeneration interval `next` was scheduled under; 0 before the clock is set
    /// (a source whose first phase is silent, or a non-periodic source).
    interval: u64,
}

/// One cycle in the fixed-point units of a periodic source's clock.
const FIXED_ONE: u64 = 1 << 32;

/// Longest regeneration interval of a periodic source, in cycles (exclusive): the
/// interval must fit in 64 bits at 2^-32 cycles.
const MAX_INTERVAL_CYCLES: f64 = 4_294_967_296.0;

impl SourceState {
    /// Is the source in its ON (bursting) state? Always false for Bernoulli and
    /// periodic sources.
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
    Periodic {
        /// Regeneration interval in units of 2^-32 cycles, >= [`FIXED_ONE`]: `mean_size /
        /// load` rounded to the nearest unit.
        interval: u64,
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
    /// [0, [`max_load`](InjectionConfig::max_load)]: up to `mean_size` for Bernoulli and
    /// periodic sources, up to 1 for on/off) and `mean_size` (flits per packet, >= 1). `path` is the config key path of
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
        assert!(
            mean_size >= 1.0 && mean_size.is_finite(),
            "mean packet size {mean_size} (engine bug)"
        );
        super::check_load(load, cfg, mean_size, load_path)?;
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
            InjectionConfig::Periodic => {
                if load == 0.0 {
                    Kind::Silent
                } else {
                    // check_load: load <= mean_size, so the interval is >= 1 cycle.
                    let cycles = mean_size / load;
                    if cycles >= MAX_INTERVAL_CYCLES {
                        return Err(Error::config(
                            load_path,
                            format!(
                                "offered load {load} is too low for periodic injection: one packet \
                                 of {mean_size} flits every {cycles} cycles is longer than the \
                                 longest regeneration interval, 2^32 cycles; use a load of at \
                                 least {} or load 0 for a silent source",
                                mean_size / MAX_INTERVAL_CYCLES
                            ),
                        ));
                    }
                    // Exact: scaling by a power of two, then round to nearest, so that
                    // an integer interval computed with rounding error is exact.
                    let interval = (cycles * FIXED_ONE as f64).round() as u64;
                    debug_assert!(interval >= FIXED_ONE);
                    Kind::Periodic { interval }
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
    /// (ON with probability load / peak), so there is no start-up transient. Periodic
    /// sources draw their first creation time uniformly within the first interval (one
    /// draw), so that sources are not synchronised.
    pub fn initial_state(&self, rng: &mut SimRng) -> SourceState {
        match self.kind {
            Kind::OnOff { start_on, .. } => SourceState {
                on: fires(rng, start_on),
                ..SourceState::default()
            },
            Kind::Periodic { interval } => {
                let mut state = SourceState::default();
                retime(&mut state.clock, interval, rng);
                state
            }
            Kind::Silent | Kind::Bernoulli { .. } => SourceState::default(),
        }
    }

    /// Called once per endpoint per cycle; true when a packet is created this cycle.
    /// On/off sources first take their ON/OFF transition, then (if ON) try to create.
    /// Periodic sources create when their next creation time falls in this cycle; when a
    /// phase changes the interval, the time to the next creation is scaled by
    /// `new / old interval`, so the source keeps its position as a fraction of the
    /// interval (sources stay spread out, and a burst phase starts within one new interval)
    /// without a draw. A source whose clock was never set (its first phase was silent)
    /// draws a random offset then, as [`initial_state`](Self::initial_state) does. The
    /// clock runs only in cycles in which the source may create (see
    /// [`Workload::generate`](super::Workload::generate)).
    /// Hot path: integer compares and adds only.
    #[inline]
    pub fn fires(&self, state: &mut SourceState, rng: &mut SimRng) -> bool {
        match self.kind {
            Kind::Silent => false,
            Kind::Bernoulli { create } => fires(rng, create),
            Kind::Periodic { interval } => {
                let clock = &mut state.clock;
                if clock.interval != interval {
                    retime(clock, interval, rng);
                }
                // next < interval throughout; the new value is again in [0, interval),
                // so the wrapping operations are exact.
                let fire = clock.next < FIXED_ONE;
                clock.next = clock
                    .next
                    .wrapping_add(if fire { interval } else { 0 })
                    .wrapping_sub(FIXED_ONE);
                fire
            }
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

/// Put a periodic clock on `interval`: scale the time to the next creation from the
/// interval it was scheduled under, or draw it uniformly in `[0, interval)` if the clock
/// was never set. Off the hot path (start and phase changes only).
#[cold]
#[inline(never)]
fn retime(clock: &mut PeriodicClock, interval: u64, rng: &mut SimRng) {
    use rand::Rng;
    let scaled = if clock.interval == 0 {
        (rng.next_u64() as u128 * interval as u128) >> 64
    } else {
        // next < old interval, so the result is < interval.
        clock.next as u128 * interval as u128 / clock.interval as u128
    };
    *clock = PeriodicClock {
        next: scaled as u64,
        interval,
    };
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
        for cfg in [InjectionConfig::Bernoulli, InjectionConfig::Periodic, on_off(8.0, 1.0)] {
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

    /// One packet per cycle (load = mean size): both fire every cycle.
    #[test]
    fn one_packet_per_cycle_fires_every_cycle() {
        for cfg in [InjectionConfig::Bernoulli, InjectionConfig::Periodic] {
            let p = InjectionProcess::build(&cfg, 16.0, 16.0, "traffic.injection").unwrap();
            let mut rng = stream(2, domain::ENDPOINT, 0);
            let mut st = p.initial_state(&mut rng);
            assert!((0..1000).all(|_| p.fires(&mut st, &mut rng)), "{cfg:?}");
        }
    }

    fn periodic(load: f64, mean_size: f64) -> InjectionProcess {
        InjectionProcess::build(&InjectionConfig::Periodic, load, mean_size, "traffic.injection")
            .unwrap()
    }

    fn interval_of(p: &InjectionProcess) -> u64 {
        match p.kind {
            Kind::Periodic { interval } => interval,
            ref k => panic!("not periodic: {k:?}"),
        }
    }

    /// Cycles in `0..cycles` in which a fresh source on stream `id` creates a packet.
    fn creation_cycles(p: &InjectionProcess, id: u64, cycles: u64) -> Vec<u64> {
        let mut rng = stream(9, domain::ENDPOINT, id);
        let mut st = p.initial_state(&mut rng);
        (0..cycles).filter(|_| p.fires(&mut st, &mut rng)).collect()
    }

    /// The paper's high-load phase: 16-flit packets at 16/15 flits/node/cycle, one every
    /// 15 cycles. Creations are at offset + 15k with offset in [0, 15) cycles, so a
    /// window of 15,000 = 1000 * 15 cycles holds exactly 1000 of them, whatever the
    /// offset, and every gap is exactly 15 cycles.
    #[test]
    fn periodic_paper_high_load_creates_one_packet_every_15_cycles() {
        let p = periodic(16.0 / 15.0, 16.0);
        assert_eq!(interval_of(&p), 15 * FIXED_ONE);
        // As written in a config file.
        assert_eq!(interval_of(&periodic(1.0666666666666667, 16.0)), 15 * FIXED_ONE);
        assert_eq!(interval_of(&periodic(16.0 / 1500.0, 16.0)), 1500 * FIXED_ONE);
        for id in 0..256 {
            let at = creation_cycles(&p, id, 15_000);
            assert_eq!(at.len(), 1000, "source {id}");
            assert!(at[0] < 15, "source {id} starts at {}", at[0]);
            assert!(at.windows(2).all(|w| w[1] - w[0] == 15), "source {id}");
        }
    }

    /// A fractional interval (load 0.3, 1-flit packets: 10/3 cycles): gaps are 3 or 4
    /// cycles, and every window of W cycles holds floor or ceil of W / interval
    /// packets, where interval is the fixed-point one, so there is no drift.
    #[test]
    fn periodic_fractional_interval_never_drifts() {
        let p = periodic(0.3, 1.0);
        let interval = interval_of(&p);
        // 10/3 rounded to 2^-32 cycles.
        assert_eq!(interval, (10u64 << 32) / 3);
        let cycles = 1_000_000u64;
        for id in 0..4 {
            let at = creation_cycles(&p, id, cycles);
            assert!(at.windows(2).all(|w| matches!(w[1] - w[0], 3 | 4)), "source {id}");
            // Windows [a, a + w) for many a and w, in fixed point.
            let bounds = |w: u64| {
                let q = ((w as u128) << 32) / interval as u128;
                let exact = ((w as u128) << 32).is_multiple_of(interval as u128);
                (q as usize, q as usize + !exact as usize)
            };
            for a in (0..cycles - 10_000).step_by(99_991) {
                for w in (1..40).chain([1000, 9999, 10_000]) {
                    let n = at.partition_point(|&c| c < a + w) - at.partition_point(|&c| c < a);
                    let (lo, hi) = bounds(w);
                    assert!(n == lo || n == hi, "window [{a}, {a}+{w}): {n} not in {lo}..={hi}");
                }
            }
            let (lo, hi) = bounds(cycles);
            assert!(at.len() == lo || at.len() == hi, "{} vs {lo}..={hi}", at.len());
            // floor(10^6 * 2^32 / interval) = 300000: the rounding (< 2^-32 cycles per
            // interval) does not show over a million cycles.
            assert_eq!(lo, 300_000);
        }
    }

    /// Each source draws its own offset within its first interval: with a fixed seed,
    /// 256 sources at one packet every 15 cycles start in every one of the 15 cycles,
    /// and at one every 1,500 cycles they are spread over the whole interval.
    #[test]
    fn periodic_sources_start_at_different_offsets() {
        let first = |p: &InjectionProcess, interval: u64| -> Vec<u64> {
            (0..256)
                .map(|id| creation_cycles(p, id, interval)[0])
                .collect()
        };
        let mut fast = first(&periodic(16.0 / 15.0, 16.0), 15);
        fast.sort_unstable();
        fast.dedup();
        assert_eq!(fast, (0..15).collect::<Vec<u64>>());
        let mut slow = first(&periodic(16.0 / 1500.0, 16.0), 1500);
        assert!(slow.iter().all(|&c| c < 1500));
        slow.sort_unstable();
        slow.dedup();
        // 256 uniform draws over 1500 cycles: ~236 distinct on average.
        assert!(slow.len() > 200, "{} distinct offsets", slow.len());
        assert!(slow[0] < 50 && slow[slow.len() - 1] > 1450, "{slow:?}");
        // The offset is one draw from the source's stream: the same stream, the same
        // offset.
        let p = periodic(0.3, 1.0);
        assert_eq!(creation_cycles(&p, 7, 100), creation_cycles(&p, 7, 100));
    }

    /// A phase change scales the time to the next packet by new / old interval: from
    /// one packet per 1,500 cycles to one per 15 the source creates within 15 cycles,
    /// and back again it keeps its fraction of the interval (no synchronised restart).
    #[test]
    fn periodic_phase_change_keeps_the_fraction_of_the_interval() {
        let (slow, fast) = (periodic(16.0 / 1500.0, 16.0), periodic(16.0 / 15.0, 16.0));
        let mut rng = stream(3, domain::ENDPOINT, 0);
        let mut st = slow.initial_state(&mut rng);
        let offset = st.clock.next;
        assert!(offset < 1500 * FIXED_ONE);
        // Whole intervals later the clock is back where it started.
        let made = (0..3000).filter(|_| slow.fires(&mut st, &mut rng)).count();
        assert_eq!((made, st.clock.next), (2, offset));
        let made: Vec<u64> = (0..1500).filter(|_| fast.fires(&mut st, &mut rng)).collect();
        assert_eq!(made.len(), 100);
        assert_eq!(made[0], (offset / 100) >> 32, "first fast packet at the scaled offset");
        assert_eq!(st.clock.next, offset / 100);
        let made: Vec<u64> = (0..3000).filter(|_| slow.fires(&mut st, &mut rng)).collect();
        assert_eq!(made.len(), 2);
        // Scaled back up, losing at most 100 units of 2^-32 cycles to rounding.
        assert!(offset - st.clock.next < 100, "{} vs {offset}", st.clock.next);
        // A source whose first phase was silent draws its offset when it first runs.
        let silent = InjectionProcess::build(&InjectionConfig::Periodic, 0.0, 16.0, "t").unwrap();
        let mut st = silent.initial_state(&mut rng);
        assert_eq!(st, SourceState::default());
        assert!(!silent.fires(&mut st, &mut rng));
        let made: Vec<u64> = (0..30).filter(|_| fast.fires(&mut st, &mut rng)).collect();
        assert_eq!(made.len(), 2);
        assert!(made[0] < 15 && made[1] == made[0] + 15, "{made:?}");
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
        // At most one packet per cycle: 1.5 flits/node/cycle needs packets of at least
        // 1.5 flits on average.
        for cfg in [InjectionConfig::Bernoulli, InjectionConfig::Periodic] {
            assert_err(build(cfg.clone(), 1.5), "traffic.load", "[0, 1]");
            assert_err(build(cfg.clone(), 1.5), "traffic.load", "raise `traffic.packet_size`");
            assert!(InjectionProcess::build(&cfg, 1.5, 16.0, path).is_ok());
            assert!(InjectionProcess::build(&cfg, 16.0 / 15.0, 16.0, path).is_ok());
            assert_err(
                InjectionProcess::build(&cfg, 17.0, 16.0, path),
                "traffic.load",
                "load 17 must be in [0, 16] flits/node/cycle: a source creates at most one packet per cycle",
            );
            assert_err(build(cfg, -0.1), "traffic.load", "load -0.1 must be in [0, 1]");
        }
        // On/off stays within one flit per cycle, whatever the packet size.
        assert_err(
            InjectionProcess::build(&on_off(4.0, 1.0), 1.5, 16.0, path),
            "traffic.load",
            "load 1.5 must be in [0, 1] flits/node/cycle: an on/off source offers at most its peak",
        );
        // A periodic interval must fit its fixed-point clock (2^32 cycles).
        assert_err(
            build(InjectionConfig::Periodic, 1e-10),
            "traffic.load",
            "too low for periodic injection",
        );
        assert!(build(InjectionConfig::Periodic, 1e-9).is_ok());
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
        assert_eq!(
            parse("injection = { type = \"periodic\" }").unwrap(),
            InjectionConfig::Periodic
        );
        assert!(parse("injection = { type = \"periodic\", interval = 15 }")
            .unwrap_err()
            .to_string()
            .contains("unknown field `interval`"));
        assert!(parse("injection = { type = \"on_off\" }").is_err());
        assert!(parse("injection = { type = \"bernoulli\", rate = 1 }")
            .unwrap_err()
            .to_string()
            .contains("unknown field `rate`"));
        assert!(parse("injection = { type = \"on_off\", burst_length = 4, rate = 1 }").is_err());
    }
}
