//! Applications: an MPI program's communication, traced on a real machine, replayed on a
//! simulated fabric. A trace in the ranks text format ([`text`]) or OTF2 is read into a
//! [`program::Program`] (per rank, its MPI calls in order), its collectives are expanded
//! by their algorithms ([`collective`]), and its ranks are placed on the network's
//! endpoints; the result is the message trace the endpoints replay closed loop
//! ([`crate::traffic::trace`]).

pub mod collective;
pub mod lower;
#[cfg(feature = "otf2")]
pub mod otf2;
pub mod placement;
pub mod program;
pub mod text;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::link::units::Units;
use crate::traffic::trace::{Totals, Trace, TraceConfig, CLASSES};
use crate::traffic::NodeSpace;
use collective::Algorithm;
use program::{Collective, Program};

/// `traffic.trace.format`: how the trace file is written.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, Default, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// One message per line, `src dst flits [at=] [after=] [delay=]`.
    #[default]
    Messages,
    /// An MPI program's calls per rank ([`text`]).
    Ranks,
    /// An OTF2 archive's anchor file (`.otf2`), as `flitsim trace record` writes; needs
    /// flitsim built with the `otf2` feature.
    Otf2,
}

/// `traffic.trace.collectives`: the algorithm per collective kind, `"auto"` (the
/// default) for an MPI library's choice by size and rank count. The algorithms of each
/// kind are listed in [`collective`].
#[derive(Deserialize, Serialize, Clone, Debug, Default, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CollectiveAlgorithms {
    /// `dissemination`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barrier: Option<String>,
    /// `binomial` or `scatter_allgather`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bcast: Option<String>,
    /// `binomial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce: Option<String>,
    /// `recursive_doubling`, `ring` or `rabenseifner`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allreduce: Option<String>,
    /// `binomial` or `linear`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gather: Option<String>,
    /// `ring`, `recursive_doubling` or `bruck`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allgather: Option<String>,
    /// `binomial` or `linear`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scatter: Option<String>,
    /// `pairwise`, `scattered` or `bruck`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alltoall: Option<String>,
    /// `ring` or `recursive_halving`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce_scatter: Option<String>,
    /// Replay only this many of each pairwise (or scattered) all-to-all's `p - 1` steps
    /// (destinations), one drawn from
    /// each of as many equal runs of consecutive steps (different steps in successive
    /// calls, the same in every run): for all-to-alls too large to simulate whole. The predicted time then covers
    /// the kept steps; the whole all-to-all takes about `(p - 1) / alltoall_steps` times
    /// as long. Unset: every step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alltoall_steps: Option<u32>,
}

impl CollectiveAlgorithms {
    /// The chosen algorithm per kind ([`Collective::ALL`] order), `None` for auto.
    fn resolve(&self, key: &str) -> Result<[Option<Algorithm>; 9]> {
        let given = [
            &self.barrier,
            &self.bcast,
            &self.reduce,
            &self.allreduce,
            &self.gather,
            &self.allgather,
            &self.scatter,
            &self.alltoall,
            &self.reduce_scatter,
        ];
        let mut out = [None; 9];
        for (i, (&kind, g)) in Collective::ALL.iter().zip(given).enumerate() {
            let Some(name) = g.as_deref().filter(|n| *n != "auto") else { continue };
            let ok = Algorithm::for_kind(kind);
            out[i] = Some(Algorithm::from_name(name).filter(|a| ok.contains(a)).ok_or_else(|| {
                let names: Vec<&str> = ok.iter().map(|a| a.name()).collect();
                Error::config(
                    format!("{key}.{kind}"),
                    format!("`{name}` is not an algorithm for {kind}: choose auto, {}", names.join(", ")),
                )
            })?);
        }
        Ok(out)
    }
}

/// What a trace keeps of the application it was lowered from, for the report.
#[derive(Clone, Debug)]
pub struct AppInfo {
    /// Per rank, its endpoint.
    pub nodes: Vec<u32>,
    /// The placement's name.
    pub placement: String,
    /// The collectives' algorithms and calls.
    pub algorithms: Vec<(Collective, Algorithm, u64)>,
    /// Nanoseconds per cycle, when known.
    pub cycle_ns: Option<f64>,
    /// What the trace measured per rank.
    pub measured: Option<Vec<program::Measured>>,
    /// Per rank, its steps in program order ([`lower::Step`]).
    pub walk: Vec<Vec<lower::Step>>,
}

/// One kind of call in the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallReport {
    /// `point_to_point` or the collective's name.
    pub call: String,
    /// The collective's algorithm (its first call's, when the size changes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// Collective calls (each counted once, not per rank); for point-to-point, 0.
    pub calls: u64,
    /// Messages sent for it, and their flits.
    pub messages: u64,
    pub flits: u64,
    /// Messages completed, and their mean and greatest latency (cycles).
    pub completed: u64,
    pub latency_mean: f64,
    pub latency_max: u64,
    /// Time a rank spent in calls of this kind (cycles), the mean over ranks and the
    /// most of any rank: the cycles it waited there for messages to arrive, or for its
    /// own to be created (see [`AppInfo::report`]).
    pub time_mean: f64,
    pub time_max: u64,
}

/// What the trace measured on the machine it was recorded on, beside the prediction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasuredReport {
    /// The longest rank's span (first to last traced event), ns.
    pub span_ns_max: u64,
    /// Time inside MPI calls: the most of any rank and the mean, ns.
    pub mpi_ns_max: u64,
    pub mpi_ns_mean: f64,
}

/// An application trace's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AppReport {
    /// Ranks, and how they were placed.
    pub ranks: u32,
    pub placement: String,
    /// The cycle the last rank finished (its last message sent or received): the
    /// application's predicted run time on this network (its communication time when
    /// computation is dropped), and in ns with `channel.link_gbps`.
    pub time_cycles: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<f64>,
    /// The rank that finished last (the lowest such rank), and the mean finish, cycles.
    pub slowest_rank: u32,
    pub finish_mean: f64,
    /// Per rank, the cycle it finished.
    pub finish: Vec<u64>,
    /// Computation replayed per rank, cycles: the mean and the most of any rank.
    pub compute_mean: f64,
    pub compute_max: u64,
    /// Per kind of call used, its messages and their latency.
    pub calls: Vec<CallReport>,
    /// What the trace measured, when it recorded times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<MeasuredReport>,
}

impl AppInfo {
    /// Per rank, the cycles it spent per class of call, and computing.
    ///
    /// Each rank's steps are walked in program order with a clock that starts at 0:
    /// computation advances it by its cycles; a send to the cycle its message was
    /// created, a wait to the cycle its message completed, when later, and the cycles
    /// gained count for that message's class. The replay creates a message the cycle it
    /// is due, so a send gains only the cycles a rank spends creating several messages in
    /// one cycle: a rank's time is where it waits. The times of a rank add up to the cycle
    /// of its last step.
    /// `class(m)` is message `m`'s class ([`lower::class_names`]).
    pub fn call_times(&self, t: &Totals, class: &dyn Fn(u32) -> u8) -> Vec<([u64; CLASSES], u64)> {
        self.walk
            .iter()
            .map(|steps| {
                let (mut clock, mut per, mut compute) = (0u64, [0u64; CLASSES], 0u64);
                for s in steps {
                    let (m, at) = match *s {
                        lower::Step::Compute(c) => {
                            clock += c;
                            compute += c;
                            continue;
                        }
                        lower::Step::Send(m) => (m, t.message_times(m).0),
                        lower::Step::Wait(m) => (m, t.message_times(m).1),
                    };
                    if at > clock {
                        per[class(m) as usize] += at - clock;
                        clock = at;
                    }
                }
                (per, compute)
            })
            .collect()
    }

    /// The report from the run's totals, the trace's messages and flits per class, and
    /// each message's class (`class`).
    pub fn report(&self, t: &Totals, counts: &[(u64, u64); CLASSES], class: &dyn Fn(u32) -> u8) -> AppReport {
        let finish: Vec<u64> = self.nodes.iter().map(|&e| t.finish_of(e)).collect();
        let times = self.call_times(t, class);
        let ranks = times.len().max(1) as f64;
        let time = finish.iter().copied().max().unwrap_or(0);
        let slowest = finish.iter().position(|&f| f == time).unwrap_or(0) as u32;
        let names = lower::class_names();
        let calls = (0..CLASSES)
            .filter(|&c| counts[c].0 > 0)
            .map(|c| {
                let x = t.class(c);
                let alg = self.algorithms.iter().find(|a| a.0.name() == names[c]);
                CallReport {
                    call: names[c].to_string(),
                    algorithm: alg.map(|a| a.1.name().to_string()),
                    calls: alg.map_or(0, |a| a.2),
                    messages: counts[c].0,
                    flits: counts[c].1,
                    completed: x.completed,
                    latency_mean: if x.completed == 0 { 0.0 } else { x.latency_sum as f64 / x.completed as f64 },
                    latency_max: x.latency_max,
                    time_mean: times.iter().map(|x| x.0[c] as f64).sum::<f64>() / ranks,
                    time_max: times.iter().map(|x| x.0[c]).max().unwrap_or(0),
                }
            })
            .collect();
        let measured = self.measured.as_ref().filter(|m| !m.is_empty()).map(|m| MeasuredReport {
            span_ns_max: m.iter().map(|x| x.span_ns).max().unwrap_or(0),
            mpi_ns_max: m.iter().map(|x| x.mpi_ns).max().unwrap_or(0),
            mpi_ns_mean: m.iter().map(|x| x.mpi_ns as f64).sum::<f64>() / m.len() as f64,
        });
        AppReport {
            ranks: self.nodes.len() as u32,
            placement: self.placement.clone(),
            time_cycles: time,
            time_ns: self.cycle_ns.map(|c| time as f64 * c),
            slowest_rank: slowest,
            finish_mean: if finish.is_empty() { 0.0 } else { finish.iter().sum::<u64>() as f64 / finish.len() as f64 },
            finish,
            compute_mean: times.iter().map(|x| x.1 as f64).sum::<f64>() / ranks,
            compute_max: times.iter().map(|x| x.1).max().unwrap_or(0),
            calls,
            measured,
        }
    }
}

/// Read an application trace (format `ranks` or `otf2`), place its ranks on `space` and
/// lower it to the messages the endpoints replay (`key`: the trace's config key).
pub fn build(cfg: &TraceConfig, space: &NodeSpace, seed: u64, units: Option<Units>, key: &str) -> Result<Trace> {
    let format = cfg.format;
    let Some(file) = &cfg.file else {
        return Err(Error::config(
            format!("{key}.file"),
            format!("a trace of format {format:?} is read from a file: give `file`").to_lowercase(),
        ));
    };
    if !cfg.messages.is_empty() {
        return Err(Error::config(
            format!("{key}.messages"),
            "inline messages are the `messages` format; an application trace comes from `file`",
        ));
    }
    let prog = read(format, file, &format!("{key}.file"))?;
    let Some(u) = units else {
        return Err(Error::config(
            "channel.flit_bytes",
            "an application trace gives sizes in bytes and times in ns: set channel.flit_bytes (bytes per flit) and channel.link_gbps (for the cycle time)",
        ));
    };
    if !(cfg.compute_scale.is_finite() && cfg.compute_scale >= 0.0) {
        return Err(Error::config(
            format!("{key}.compute_scale"),
            format!("{} is not a factor >= 0 (1 replays computation as recorded, 0 drops it)", cfg.compute_scale),
        ));
    }
    let algorithms = cfg.collectives.resolve(&format!("{key}.collectives"))?;
    let nodes = cfg.placement.place(prog.ranks(), space, seed, &format!("{key}.placement"))?;
    let low = lower::lower(
        &prog,
        &lower::LowerContext {
            nodes: &nodes,
            flit_bytes: u.flit_bytes,
            cycle_ns: u.cycle_ns,
            compute_scale: cfg.compute_scale,
            algorithms,
            alltoall_steps: match cfg.collectives.alltoall_steps {
                Some(0) => {
                    return Err(Error::config(
                        format!("{key}.collectives.alltoall_steps"),
                        "0 steps replay nothing: keep at least 1 (or leave it unset for every step)",
                    ))
                }
                k => k,
            },
            key: &format!("{key}.file"),
        },
    )?;
    let names = |m: usize| {
        let (r, pos) = &low.origin[m];
        format!("{key}.file ({file}, rank {r}, {pos})")
    };
    let mut trace = Trace::from_specs(&low.specs, cfg.packet_flits, space.num_nodes, &names, key)?;
    trace.set_app(
        &low.class,
        AppInfo {
            nodes,
            placement: cfg.placement.name(),
            algorithms: low.algorithms,
            cycle_ns: u.cycle_ns,
            measured: prog.measured,
            walk: low.walk,
        },
    );
    Ok(trace)
}

/// The program in `file` of `format` (`ranks` or `otf2`).
pub fn read(format: TraceFormat, file: &str, key: &str) -> Result<Program> {
    match format {
        TraceFormat::Ranks => text::read(file, key),
        #[cfg(feature = "otf2")]
        TraceFormat::Otf2 => otf2::read(std::path::Path::new(file), key),
        #[cfg(not(feature = "otf2"))]
        TraceFormat::Otf2 => Err(Error::config(
            key,
            "this flitsim was built without OTF2 support: rebuild with `--features otf2` (needs Debian's libotf2-trace-dev), or convert the trace to the ranks format",
        )),
        TraceFormat::Messages => Err(Error::config(key, "the messages format is read by the trace itself")),
    }
}
