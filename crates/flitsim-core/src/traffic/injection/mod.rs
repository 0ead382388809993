//! Injection processes: *when* each endpoint creates a packet (BookSim `injection.hpp`).
//!
//! An [`InjectionConfig`] is the `[traffic.injection]` table. [`InjectionProcess::build`]
//! turns it, for one offered load and mean packet size, into per-cycle probabilities held
//! as integer thresholds (see [`crate::rng::threshold`]), or for a periodic source
//! into a fixed-point regeneration interval, so the per-cycle test is one or two integer
//! operations and bit-identical on every machine. Per-endpoint state (the on/off phase,
//! the periodic clock and the source's packet count) lives in a small [`SourceState`]
//! owned by the endpoint.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng::{fires, threshold, SimRng};

/// Config table `[traffic.injection]`: when endpoints create packets. Select with
/// `type = "..."`; the rate always comes from the offered load (`traffic.load`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default, schemars::JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(!remote, tag = "type")]
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
        /// offered load.
        #[serde(default = "one")]
        peak: f64,
    },
    /// A saturated source: it always has data to send. It creates a packet (or with
    /// `traffic.message` a message) whenever its source queue has room, at most one per
    /// cycle; the queue holds `traffic.source_queue` packets (messages), default one, so
    /// the next is created as the last one's tail leaves. `traffic.load` is ignored and
    /// the offered load reported as 1 flit/node/cycle, the injection channel's bandwidth.
    /// The eBB benchmark's ping-ping: every node streams to its peer as fast as it can.
    Backlogged,
}

crate::schema::tagged::tagged_serde!(InjectionConfig, "injection process", None);

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
            InjectionConfig::Backlogged => f64::INFINITY,
        }
    }
}

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
    /// Whole messages this node has received (kept by the endpoint's reassembly), which
    /// an exchange waits for ([`super::MessageConfig::exchange`]).
    pub(crate) messages_in: u64,
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
    /// Always ready: the source queue's room decides.
    Backlogged,
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
    pub(crate) fn build_at(cfg: &InjectionConfig, load: f64, mean_size: f64, path: &str, load_path: Option<&str>) -> Result<Self> {
        let load_path = load_path.unwrap_or("traffic.load");
        assert!(mean_size >= 1.0 && mean_size.is_finite(), "mean packet size {mean_size} (engine bug)");
        super::check_load(load, cfg, mean_size, load_path)?;
        let kind = match *cfg {
            InjectionConfig::Backlogged => Kind::Backlogged,
            InjectionConfig::Bernoulli => {
                if load == 0.0 {
                    Kind::Silent
                } else {
                    Kind::Bernoulli { create: threshold(load / mean_size) }
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
                             averages less than its peak (it is OFF some of the time); {} or \
                             `injection = {{ type = \"bernoulli\" }}`",
                            if peak < 1.0 { "use a larger peak (up to 1)" } else { "use a load below 1" }
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
            Kind::OnOff { start_on, .. } => SourceState { on: fires(rng, start_on), ..SourceState::default() },
            Kind::Periodic { interval } => {
                let mut state = SourceState::default();
                retime(&mut state.clock, interval, rng);
                state
            }
            Kind::Silent | Kind::Bernoulli { .. } | Kind::Backlogged => SourceState::default(),
        }
    }

    /// Does the process never fire (a zero load), so that asking it draws nothing?
    pub fn is_silent(&self) -> bool {
        matches!(self.kind, Kind::Silent)
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
    /// Hot path: integer compares and adds only. (Bernoulli sources, the common case,
    /// are decided inline; the other processes in `fires_other`.)
    #[inline(always)]
    pub fn fires(&self, state: &mut SourceState, rng: &mut SimRng) -> bool {
        match self.kind {
            Kind::Bernoulli { create } => fires(rng, create),
            _ => self.fires_other(state, rng),
        }
    }

    /// [`InjectionProcess::fires`] for the processes other than Bernoulli.
    #[inline(never)]
    fn fires_other(&self, state: &mut SourceState, rng: &mut SimRng) -> bool {
        match self.kind {
            Kind::Silent => false,
            Kind::Backlogged => true,
            Kind::Bernoulli { create } => fires(rng, create),
            Kind::Periodic { interval } => {
                let clock = &mut state.clock;
                if clock.interval != interval {
                    retime(clock, interval, rng);
                }
                // next < interval throughout; the new value is again in [0, interval),
                // so the wrapping operations are exact.
                let fire = clock.next < FIXED_ONE;
                clock.next = clock.next.wrapping_add(if fire { interval } else { 0 }).wrapping_sub(FIXED_ONE);
                fire
            }
            Kind::OnOff { create, turn_off, turn_on, .. } => {
                state.on = if state.on { !fires(rng, turn_off) } else { fires(rng, turn_on) };
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
    *clock = PeriodicClock { next: scaled as u64, interval };
}

#[cfg(test)]
mod tests;
