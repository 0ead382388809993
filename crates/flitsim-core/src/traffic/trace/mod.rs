//! Traces: a list of messages, each from a source to a destination, replayed by the
//! endpoints, open loop (at given cycles) or closed loop (after the messages it waits for
//! have arrived), as an application's communication would be.
//!
//! `[traffic.trace]` takes the messages inline (`messages = [{ src, dst, flits, ... }]`)
//! or from a file of one message per line (see [`file`]):
//!
//! ```text
//! # src dst flits [at=CYCLE] [after=ID,ID,...] [delay=CYCLES]
//! 0 5 64                    # message 0: node 0 sends 64 flits to node 5 at cycle 0
//! 5 0 64 after=0 delay=100  # message 1: node 5 answers 100 cycles after message 0 arrived
//! ```
//!
//! Messages are numbered from 0 in the order given. Every source executes its own
//! messages in that order, as a rank executes its program: message `m` of source `s` is
//! created at the first cycle, not before the cycle after `s` created its previous
//! message, that is at least
//!
//! `max(at_m, max(c_prev, a_m) + delay_m)`,
//!
//! where `c_prev` is the cycle `s` created its previous message (0 for its first) and
//! `a_m` the cycle the last of the messages listed in `after` completed at `s` (each
//! must be a message *to* `s`: a node can only wait for data it receives). `delay` is the
//! computation between the two; `at` alone gives an open-loop replay.
//!
//! A message of `flits` flits is cut into packets of at most `packet_flits` flits (the
//! last may be shorter), queued at its source at once; it completes when the tail of
//! its last packet to arrive reaches the destination, packets arriving in any order.
//! Its latency runs from creation to completion. The report ([`TraceReport`]) gives the
//! messages created and completed, their latencies, and the cycle the last one completed:
//! the run time the application would see on this network.
//! A message one of whose packets is lost (a fault model that loses packets, a dateline
//! drop) never completes, and the messages waiting for it are reported `not_created`;
//! a trace with waits is refused where failures disconnect pairs or nodes fail during
//! the run, since it could never finish.
//!
//! Built once ([`Trace::build`]); validation names the message (and the file line) at
//! fault: a node outside the network, a message waiting for one that is not sent to its
//! source, or waits that form a cycle (with program order), which could never finish.
//! The per-endpoint replay state ([`Cursor`]) lives with the endpoint, and a message's
//! completion only changes the state of the endpoint it reaches (the source of the
//! messages waiting for it), so the replay is partitionable like the rest of the engine.

pub mod file;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::traffic::message::MAX_MESSAGE_PACKETS;
use crate::traffic::MAX_PACKET_FLITS;

#[cfg(test)]
mod tests;

/// Config table `[traffic.trace]`: replay a list of messages instead of a pattern and an
/// injection process. Give `file` or `messages`, not both. Replaces `load`, `pattern`,
/// `injection`, `packet_size`, `phases`, `packets_per_source`, `source_queue` and
/// `message`; with `sim.until_done` the run ends when the last message completed.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// A file of one message per line, `src dst flits [at=CYCLE] [after=ID,ID,...]
    /// [delay=CYCLES]`, `#` comments. A relative path is read from the folder of the
    /// config file that names it (from the working directory when set by an override).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The messages inline: `[{ src, dst, flits, at, after, delay }, ...]`.
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<MessageSpec>,
    /// Most flits per packet (1..=65535): a message of `flits` flits is
    /// `ceil(flits / packet_flits)` packets.
    #[serde(default = "default_packet_flits")]
    pub packet_flits: u32,
    /// How `file` is written: `"messages"` (the default: one message per line, above),
    /// `"ranks"` (an MPI program's calls per rank, docs/reference/applications.md;
    /// gzip-compressed when the file's name ends in `.gz`) or
    /// `"otf2"` (an OTF2 archive's `.otf2` anchor file, as `flitsim trace record` writes).
    /// The application formats need `channel.flit_bytes` (sizes are bytes) and, to replay
    /// computation, `channel.link_gbps` (times are ns).
    #[serde(default)]
    pub format: crate::traffic::app::TraceFormat,
    /// Application traces: where the ranks run, one per endpoint: `"linear"` (the default:
    /// rank r on endpoint r), `"round_robin"` (dealt over the routers), `"spread"` (evenly
    /// over the machine), `"random"` (from the run's seed) or `{ file = "PATH" }` (one
    /// endpoint per line, rank 0 first).
    #[serde(default)]
    pub placement: crate::traffic::app::placement::Placement,
    /// Application traces: factor on the recorded computation times, >= 0 (0 drops them,
    /// leaving the communication alone). Default 1.
    #[serde(default = "default_compute_scale")]
    pub compute_scale: f64,
    /// Application traces: the algorithm per collective kind (`{ alltoall = "bruck",
    /// allreduce = "ring", ... }`); default `"auto"`, an MPI library's choice by size;
    /// `alltoall_steps = S` replays only S steps of each pairwise all-to-all.
    #[serde(default)]
    pub collectives: crate::traffic::app::CollectiveAlgorithms,
}

fn default_compute_scale() -> f64 {
    1.0
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            file: None,
            messages: Vec::new(),
            packet_flits: default_packet_flits(),
            format: Default::default(),
            placement: Default::default(),
            compute_scale: default_compute_scale(),
            collectives: Default::default(),
        }
    }
}

fn default_packet_flits() -> u32 {
    16
}

/// One message of a trace.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageSpec {
    /// Source endpoint. Required.
    pub src: u32,
    /// Destination endpoint (may be the source: the packets go through its router).
    /// Required.
    pub dst: u32,
    /// Size in flits, >= 1. Required.
    pub flits: u64,
    /// Earliest creation cycle.
    #[serde(default)]
    pub at: u64,
    /// Messages (by number, from 0 in trace order) that must have completed at this
    /// message's source before it is created; each must be sent to `src`.
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<u32>,
    /// Cycles of computation after the later of the previous message's creation and the
    /// arrival of the `after` messages.
    #[serde(default)]
    pub delay: u64,
}

/// A validated message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Msg {
    src: u32,
    dst: u32,
    at: u64,
    delay: u64,
    /// Packets, and the flits of the last one (the others have `packet_flits`).
    packets: u32,
    last_flits: u32,
    /// Sequence number of its first packet among its source's packets.
    first_seq: u32,
    /// Its index among its source's messages (program order).
    local: u32,
    /// Its index among the messages to its destination.
    inbox: u32,
    /// Messages in `after`.
    waits: u32,
    /// Its class in the report (an application's call kind; 0 otherwise).
    class: u8,
}

/// A message's packets, as the source queues them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Creation {
    /// Destination endpoint.
    pub dst: u32,
    /// Packets in the message.
    pub packets: u32,
    /// Flits of every packet but the last.
    pub full_flits: u32,
    /// Flits of the last packet.
    pub last_flits: u32,
    /// Sequence number of the first packet among its source's packets (the receiver
    /// finds the message from it).
    pub first_seq: u32,
    /// The message's number in the trace.
    pub id: u32,
}

impl Creation {
    /// Flits of packet `k` (0-based) of the message.
    #[inline]
    pub fn flits_of(&self, k: u32) -> u32 {
        if k + 1 == self.packets {
            self.last_flits
        } else {
            self.full_flits
        }
    }
}

/// A built trace: the messages, per source in program order, and who waits for whom.
#[derive(Clone, Debug)]
pub struct Trace {
    msgs: Vec<Msg>,
    packet_flits: u32,
    /// Per source `s`: its messages `order[out[s]..out[s + 1]]`, in program order.
    out: Vec<u32>,
    order: Vec<u32>,
    /// Per message `m`: the local indices (at `dst(m)`) of the messages waiting for it,
    /// `waiters[wait_at[m]..wait_at[m + 1]]`.
    wait_at: Vec<u32>,
    waiters: Vec<u32>,
    /// Messages to each endpoint.
    inbox_len: Vec<u32>,
    flits: u64,
    /// The application it was lowered from, for the report.
    app: Option<Box<crate::traffic::app::AppInfo>>,
}

/// Per-endpoint replay state: this endpoint's next message and what it waits for, and
/// the packets received of the messages sent to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Next of its messages (program order) to create.
    next: u32,
    /// Cycle its previous message was created.
    last_create: u64,
    /// Per own message: `after` messages not yet completed here, and the cycle the last
    /// of them completed.
    waiting: Vec<u32>,
    arrived: Vec<u64>,
    /// Per message to it: packets received.
    got: Vec<u32>,
}

/// Most message classes a trace reports apart (an application's point-to-point messages
/// and each collective kind).
pub const CLASSES: usize = 10;

/// Completed messages of one class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassTotals {
    /// Messages completed.
    pub completed: u64,
    /// Sum and greatest of their latencies, cycles.
    pub latency_sum: u64,
    pub latency_max: u64,
}

/// Message totals of a set of endpoints (merged over partitions and processes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Messages created.
    pub created: u64,
    /// Messages not created because failures left their destination unreachable.
    pub skipped: u64,
    /// Messages completed at their destination.
    pub completed: u64,
    latency_sum: u128,
    latency_min: u64,
    latency_max: u64,
    /// Cycle the last message completed.
    last_done: u64,
    /// Per class (an application's call kinds), the completed messages.
    classes: [ClassTotals; CLASSES],
    /// Per endpoint, the last cycle it created a message or completed one sent to it
    /// (kept for an application's ranks; empty otherwise).
    finish: Vec<u64>,
    /// Per message, the cycle it was created and the cycle it completed (0 when it was
    /// not; kept for an application's per-call times, empty otherwise).
    made: Vec<u64>,
    done: Vec<u64>,
}

impl Default for Totals {
    fn default() -> Self {
        Totals {
            created: 0,
            skipped: 0,
            completed: 0,
            latency_sum: 0,
            latency_min: u64::MAX,
            latency_max: 0,
            last_done: 0,
            classes: [ClassTotals::default(); CLASSES],
            finish: Vec::new(),
            made: Vec::new(),
            done: Vec::new(),
        }
    }
}

impl Totals {
    /// Add another set's totals.
    pub fn merge(&mut self, o: &Totals) {
        self.created += o.created;
        self.skipped += o.skipped;
        self.completed += o.completed;
        self.latency_sum += o.latency_sum;
        self.latency_min = self.latency_min.min(o.latency_min);
        self.latency_max = self.latency_max.max(o.latency_max);
        self.last_done = self.last_done.max(o.last_done);
        for (c, x) in self.classes.iter_mut().zip(&o.classes) {
            c.completed += x.completed;
            c.latency_sum += x.latency_sum;
            c.latency_max = c.latency_max.max(x.latency_max);
        }
        for (mine, theirs) in [(&mut self.finish, &o.finish), (&mut self.made, &o.made), (&mut self.done, &o.done)] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (f, &x) in mine.iter_mut().zip(theirs) {
                *f = (*f).max(x);
            }
        }
    }

    /// Completed messages of class `c`.
    pub fn class(&self, c: usize) -> ClassTotals {
        self.classes[c]
    }

    /// The last cycle endpoint `e` created or completed a message (0 when not kept).
    pub fn finish_of(&self, e: u32) -> u64 {
        self.finish.get(e as usize).copied().unwrap_or(0)
    }

    /// The cycles message `m` was created and completed (0 when it was not, or when
    /// they are not kept).
    pub fn message_times(&self, m: u32) -> (u64, u64) {
        (self.made.get(m as usize).copied().unwrap_or(0), self.done.get(m as usize).copied().unwrap_or(0))
    }

    /// Endpoint `e` created message `m` at `now`.
    #[inline]
    pub fn created_at(&mut self, e: u32, m: u32, now: u64) {
        self.created += 1;
        if let Some(f) = self.finish.get_mut(e as usize) {
            *f = (*f).max(now);
        }
        if let Some(x) = self.made.get_mut(m as usize) {
            *x = now;
        }
    }
}

/// Trace results (with `traffic.trace`), over the whole run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceReport {
    /// Messages in the trace.
    pub messages: u64,
    /// Flits in the trace.
    pub flits: u64,
    /// Messages created.
    pub created: u64,
    /// Messages completed (every packet delivered).
    pub completed: u64,
    /// Messages created but not complete when the run ended.
    pub incomplete: u64,
    /// Messages never created: waiting for their time or for messages that never came
    /// when the run ended.
    pub not_created: u64,
    /// Messages skipped because failures left their destination unreachable.
    pub unroutable: u64,
    /// Mean, least and greatest message latency (creation to completion), cycles.
    pub latency_mean: f64,
    /// Least message latency, cycles.
    pub latency_min: u64,
    /// Greatest message latency, cycles.
    pub latency_max: u64,
    /// Cycle the last message completed (the trace's run time when all completed).
    pub completion: u64,
    /// With an application trace (format `ranks` or `otf2`): its ranks, calls and times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<crate::traffic::app::AppReport>,
}

impl Trace {
    /// Validate `cfg` (format `messages`) for a network of `nodes` endpoints (`path`: its
    /// config key). The other formats are read by [`crate::traffic::app::build`].
    pub fn build(cfg: &TraceConfig, nodes: u32, path: &str) -> Result<Trace> {
        let from_file;
        let (specs, names): (&[MessageSpec], Box<dyn Fn(usize) -> String>) = match (&cfg.file, cfg.messages.is_empty()) {
            (Some(_), false) => {
                return Err(Error::config(format!("{path}.messages"), "give the messages either inline or as `file`, not both"))
            }
            (None, true) => {
                return Err(Error::config(
                    path,
                    "a trace needs messages: give `file` (one message per line) or `messages = [{ src, dst, flits }, ...]`",
                ))
            }
            (Some(f), true) => {
                let (specs, lines) = file::read(f, &format!("{path}.file"))?;
                from_file = specs;
                let (f, key) = (f.clone(), format!("{path}.file"));
                (&from_file, Box::new(move |m: usize| format!("{key} ({f} line {}, message {m})", lines[m])))
            }
            (None, false) => {
                let key = format!("{path}.messages");
                (&cfg.messages, Box::new(move |m: usize| format!("{key}[{m}]")))
            }
        };
        Trace::from_specs(specs, cfg.packet_flits, nodes, &names, path)
    }

    /// Validate messages `specs` cut into packets of at most `packet_flits` flits for a
    /// network of `nodes` endpoints; `names(m)` says where message `m` came from.
    pub fn from_specs(specs: &[MessageSpec], packet_flits: u32, nodes: u32, names: &dyn Fn(usize) -> String, path: &str) -> Result<Trace> {
        if !(1..=MAX_PACKET_FLITS).contains(&packet_flits) {
            return Err(Error::config(
                format!("{path}.packet_flits"),
                format!("{packet_flits} is out of range: a packet has 1..={MAX_PACKET_FLITS} flits"),
            ));
        }
        if specs.len() > u32::MAX as usize / 2 {
            return Err(Error::config(
                path,
                format!("{} messages are more than a trace holds ({}); split the trace", specs.len(), u32::MAX / 2),
            ));
        }
        let pf = packet_flits as u64;
        let n = nodes as usize;
        let (mut out_len, mut inbox_len, mut seqs) = (vec![0u32; n], vec![0u32; n], vec![0u64; n]);
        let mut msgs = Vec::with_capacity(specs.len());
        let mut flits = 0u64;
        for (m, s) in specs.iter().enumerate() {
            for (v, what) in [(s.src, "src"), (s.dst, "dst")] {
                if v >= nodes {
                    return Err(Error::config(names(m), format!("{what} {v} is outside the network: endpoints are 0..={}", nodes - 1)));
                }
            }
            if s.flits == 0 {
                return Err(Error::config(names(m), "a message of 0 flits carries nothing; give at least 1 flit"));
            }
            let packets = s.flits.div_ceil(pf);
            if packets > MAX_MESSAGE_PACKETS {
                return Err(Error::config(names(m), format!("{} flits in packets of at most {pf} is {packets} packets, above the limit of {MAX_MESSAGE_PACKETS} per message; raise packet_flits or split the message", s.flits)));
            }
            let seq = &mut seqs[s.src as usize];
            if *seq + packets > u32::MAX as u64 {
                return Err(Error::config(
                    names(m),
                    format!("source {} sends more than {} packets in all; raise packet_flits or shorten the trace", s.src, u32::MAX),
                ));
            }
            let mut seen = Vec::with_capacity(s.after.len());
            for &a in &s.after {
                let Some(dep) = specs.get(a as usize) else {
                    return Err(Error::config(
                        names(m),
                        format!("after = {a}: there is no message {a} (the trace has {}, numbered from 0)", specs.len()),
                    ));
                };
                if dep.dst != s.src {
                    return Err(Error::config(names(m), format!("after = {a}: message {a} goes to node {}, not to this message's source {}, so node {} could not know it arrived; wait only for messages to the source", dep.dst, s.src, s.src)));
                }
                if seen.contains(&a) {
                    return Err(Error::config(names(m), format!("after lists message {a} twice; list it once")));
                }
                seen.push(a);
            }
            let last_flits = (s.flits - (packets - 1) * pf) as u32;
            msgs.push(Msg {
                src: s.src,
                dst: s.dst,
                at: s.at,
                delay: s.delay,
                packets: packets as u32,
                last_flits,
                first_seq: *seq as u32,
                local: out_len[s.src as usize],
                inbox: inbox_len[s.dst as usize],
                waits: s.after.len() as u32,
                class: 0,
            });
            *seq += packets;
            out_len[s.src as usize] += 1;
            inbox_len[s.dst as usize] += 1;
            flits = flits.saturating_add(s.flits);
        }
        let out = prefix(&out_len);
        let mut order = vec![0u32; msgs.len()];
        let mut fill = out.clone();
        for (m, x) in msgs.iter().enumerate() {
            order[fill[x.src as usize] as usize] = m as u32;
            fill[x.src as usize] += 1;
        }
        // Who waits for whom: per awaited message, the waiters' local indices.
        let mut count = vec![0u32; msgs.len()];
        for s in specs {
            for &a in &s.after {
                count[a as usize] += 1;
            }
        }
        let wait_at = prefix(&count);
        let mut waiters = vec![0u32; wait_at[msgs.len()] as usize];
        let mut fill = wait_at.clone();
        for (m, s) in specs.iter().enumerate() {
            for &a in &s.after {
                waiters[fill[a as usize] as usize] = msgs[m].local;
                fill[a as usize] += 1;
            }
        }
        let trace = Trace { msgs, packet_flits, out, order, wait_at, waiters, inbox_len, flits, app: None };
        if let Some(m) = trace.stuck() {
            return Err(Error::config(names(m), format!("message {m} can never be created: its `after` messages wait, directly or through their sources' earlier messages, for message {m} itself; break the cycle")));
        }
        Ok(trace)
    }

    /// A message on a cycle of waits (its `after` messages, and each source's previous
    /// message), if any: Kahn's algorithm over both kinds of edge.
    fn stuck(&self) -> Option<usize> {
        let n = self.msgs.len();
        // Edges: m -> the next message of src(m); m -> each message waiting for it.
        let mut indeg: Vec<u32> = self.msgs.iter().map(|x| x.waits + (x.local > 0) as u32).collect();
        let mut ready: Vec<u32> = (0..n as u32).filter(|&m| indeg[m as usize] == 0).collect();
        let mut done = 0;
        while let Some(m) = ready.pop() {
            done += 1;
            let x = self.msgs[m as usize];
            let next = self.out[x.src as usize] + x.local + 1;
            let mut succ: Vec<u32> = Vec::new();
            if next < self.out[x.src as usize + 1] {
                succ.push(self.order[next as usize]);
            }
            let d = x.dst as usize;
            for &w in &self.waiters[self.wait_at[m as usize] as usize..self.wait_at[m as usize + 1] as usize] {
                succ.push(self.order[(self.out[d] + w) as usize]);
            }
            for s in succ {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    ready.push(s);
                }
            }
        }
        (done < n).then(|| (0..n).find(|&m| indeg[m] > 0).unwrap_or(0))
    }

    /// Flits of the largest packet the trace makes (at least 1): the routers' buffers
    /// and credit tests are sized for it.
    pub fn largest_packet(&self) -> u32 {
        self.msgs.iter().map(|m| if m.packets > 1 { self.packet_flits } else { m.last_flits }).max().unwrap_or(1).max(1)
    }

    /// Does some message wait for another (so that a message that can never be
    /// delivered would stall the replay)?
    pub fn has_waits(&self) -> bool {
        !self.waiters.is_empty()
    }

    /// The replay state of endpoint `e` at the start of the run.
    pub fn cursor(&self, e: u32) -> Cursor {
        let (lo, hi) = (self.out[e as usize] as usize, self.out[e as usize + 1] as usize);
        Cursor {
            next: 0,
            last_create: 0,
            waiting: self.order[lo..hi].iter().map(|&m| self.msgs[m as usize].waits).collect(),
            arrived: vec![0; hi - lo],
            got: vec![0; self.inbox_len[e as usize] as usize],
        }
    }

    /// Endpoint `e` (state `cur`) at cycle `now`: its next message if it is due, which
    /// then counts as created.
    #[inline]
    pub fn next(&self, now: u64, e: u32, cur: &mut Cursor) -> Option<Creation> {
        if self.next_due(e, cur)? > now {
            return None;
        }
        let id = self.order[self.out[e as usize] as usize + cur.next as usize];
        let m = &self.msgs[id as usize];
        cur.next += 1;
        cur.last_create = now;
        Some(Creation {
            dst: m.dst,
            packets: m.packets,
            full_flits: self.packet_flits,
            last_flits: m.last_flits,
            first_seq: m.first_seq,
            id,
        })
    }

    /// The first cycle endpoint `e` (state `cur`) may create its next message, or `None`
    /// when it has created them all or its next waits for messages not yet completed
    /// (which a delivery to `e` changes: see [`Trace::delivered`]).
    pub fn next_due(&self, e: u32, cur: &Cursor) -> Option<u64> {
        let k = cur.next as usize;
        let i = self.out[e as usize] as usize + k;
        if i >= self.out[e as usize + 1] as usize || cur.waiting[k] > 0 {
            return None;
        }
        let m = &self.msgs[self.order[i] as usize];
        Some(m.at.max(cur.last_create.max(cur.arrived[k]) + m.delay))
    }

    /// Has endpoint `e` (state `cur`) created all its messages?
    pub fn exhausted(&self, e: u32, cur: &Cursor) -> bool {
        cur.next >= self.out[e as usize + 1] - self.out[e as usize]
    }

    /// The tail of packet `seq` from `src`, created at `create`, reached endpoint `e`
    /// (state `cur`) at `now`: complete its message when it was the last, and count the
    /// completion for the messages waiting for it.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn delivered(&self, e: u32, src: u32, seq: u32, create: u64, now: u64, cur: &mut Cursor, totals: &mut Totals) {
        let mine = &self.order[self.out[src as usize] as usize..self.out[src as usize + 1] as usize];
        let j = mine.partition_point(|&m| self.msgs[m as usize].first_seq <= seq) - 1;
        let m = mine[j] as usize;
        let x = &self.msgs[m];
        let got = &mut cur.got[x.inbox as usize];
        *got += 1;
        if *got < x.packets {
            return;
        }
        let latency = now - create;
        totals.completed += 1;
        totals.latency_sum += latency as u128;
        totals.latency_min = totals.latency_min.min(latency);
        totals.latency_max = totals.latency_max.max(latency);
        totals.last_done = totals.last_done.max(now);
        let c = &mut totals.classes[x.class as usize];
        c.completed += 1;
        c.latency_sum += latency;
        c.latency_max = c.latency_max.max(latency);
        if let Some(f) = totals.finish.get_mut(e as usize) {
            *f = (*f).max(now);
        }
        if let Some(x) = totals.done.get_mut(m) {
            *x = now;
        }
        for &w in &self.waiters[self.wait_at[m] as usize..self.wait_at[m + 1] as usize] {
            cur.waiting[w as usize] -= 1;
            cur.arrived[w as usize] = cur.arrived[w as usize].max(now);
        }
    }

    /// The report from the totals of every endpoint. (A process of a run across
    /// processes other than the first holds only its own endpoints' totals: messages
    /// its endpoints completed may have been created elsewhere, so its differences are
    /// clamped at 0; the first process reports the whole network's.)
    pub fn report(&self, t: &Totals) -> TraceReport {
        TraceReport {
            messages: self.msgs.len() as u64,
            flits: self.flits,
            created: t.created,
            completed: t.completed,
            incomplete: t.created.saturating_sub(t.completed),
            not_created: (self.msgs.len() as u64).saturating_sub(t.created + t.skipped),
            unroutable: t.skipped,
            latency_mean: if t.completed == 0 { 0.0 } else { t.latency_sum as f64 / t.completed as f64 },
            latency_min: if t.completed == 0 { 0 } else { t.latency_min },
            latency_max: t.latency_max,
            completion: t.last_done,
            app: self.app.as_ref().map(|a| a.report(t, &self.class_counts(), &|m| self.msgs[m as usize].class)),
        }
    }

    /// The totals of a run's start: per endpoint finish times and per message times
    /// kept for an application.
    pub fn totals(&self) -> Totals {
        let (n, m) = if self.app.is_some() { (self.inbox_len.len(), self.msgs.len()) } else { (0, 0) };
        Totals { finish: vec![0; n], made: vec![0; m], done: vec![0; m], ..Totals::default() }
    }

    /// Per class, messages and flits in the trace.
    fn class_counts(&self) -> [(u64, u64); CLASSES] {
        let mut c = [(0u64, 0u64); CLASSES];
        for m in &self.msgs {
            let x = &mut c[m.class as usize];
            x.0 += 1;
            x.1 += (m.packets as u64 - 1) * self.packet_flits as u64 + m.last_flits as u64;
        }
        c
    }

    /// Mark the messages' classes and attach the application they came from.
    pub fn set_app(&mut self, class: &[u8], app: crate::traffic::app::AppInfo) {
        for (m, &c) in self.msgs.iter_mut().zip(class) {
            m.class = c.min(CLASSES as u8 - 1);
        }
        self.app = Some(Box::new(app));
    }
}

/// Exclusive prefix sums, with the total last.
fn prefix(v: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(v.len() + 1);
    let mut s = 0u32;
    out.push(0);
    for &x in v {
        s += x;
        out.push(s);
    }
    out
}
