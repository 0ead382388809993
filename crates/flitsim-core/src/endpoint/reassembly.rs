//! Reassembly of messages at the receiving NIC, and what the messages cost.
//!
//! A message's packets may arrive in any order (multi-rail, dispersive routing); the
//! receiver counts the packets of each open message (packet `seq` of a source belongs to
//! its message `seq / packets`, see [`crate::traffic::message`]) and completes the
//! message when the last one arrives. Per flow (source, destination) it keeps the bytes
//! delivered, the first message's creation and the last one's completion: the flow's
//! bandwidth is `bytes / (last completion - first creation)`, the eBB benchmark's
//! `b_p = s / t_p` (Geoffray and Hoefler, sec. 5.2) when every node sends to one peer.
//! Work per delivered *packet* is a scan of the destination's few open messages; the
//! flow table is touched once per message.

use std::collections::BTreeMap;

use crate::traffic::Message;

/// A message partly received.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Open {
    src: u32,
    msg: u64,
    got: u32,
}

/// One flow's delivered messages.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Flow {
    /// Messages completed.
    messages: u64,
    /// Earliest creation cycle among the flow's completed messages.
    first_create: u64,
    /// Cycle the last message completed.
    last_done: u64,
}

/// One partition's receivers' reassembly state ([`Reassembly::part`]).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ReassemblyPart {
    open: Vec<(u32, Vec<Open>)>,
    flows: Vec<((u32, u32), Flow)>,
    delivered: u64,
    latency_sum: u128,
    latency_min: u64,
    latency_max: u64,
}

/// Reassembly state of every endpoint, and message totals.
#[derive(Clone, Debug)]
pub struct Reassembly {
    shape: Message,
    /// Per destination: its open messages.
    open: Vec<Vec<Open>>,
    /// Per (source, destination).
    flows: BTreeMap<(u32, u32), Flow>,
    /// Messages completed.
    pub delivered: u64,
    /// Sum, least and most message latency (creation to the last packet's tail), cycles.
    latency_sum: u128,
    latency_min: u64,
    latency_max: u64,
}

impl Reassembly {
    /// Empty state for `nodes` endpoints and messages of `shape`.
    pub fn new(nodes: u32, shape: Message) -> Self {
        Reassembly {
            shape,
            open: vec![Vec::new(); nodes as usize],
            flows: BTreeMap::new(),
            delivered: 0,
            latency_sum: 0,
            latency_min: u64::MAX,
            latency_max: 0,
        }
    }

    /// The tail of packet `seq` from `src`, created at `create`, reached `dst` at `now`;
    /// whether it completed its message.
    #[inline]
    pub fn packet(&mut self, src: u32, dst: u32, seq: u32, create: u64, now: u64) -> bool {
        let msg = seq as u64 / self.shape.packets as u64;
        if self.shape.packets > 1 {
            let open = &mut self.open[dst as usize];
            let i = match open.iter().position(|o| o.src == src && o.msg == msg) {
                Some(i) => i,
                None => {
                    open.push(Open { src, msg, got: 0 });
                    open.len() - 1
                }
            };
            open[i].got += 1;
            if open[i].got < self.shape.packets {
                return false;
            }
            open.swap_remove(i);
        }
        self.complete(src, dst, create, now);
        true
    }

    #[cold]
    fn complete(&mut self, src: u32, dst: u32, create: u64, now: u64) {
        let latency = now - create;
        self.delivered += 1;
        self.latency_sum += latency as u128;
        self.latency_min = self.latency_min.min(latency);
        self.latency_max = self.latency_max.max(latency);
        let f = self.flows.entry((src, dst)).or_insert(Flow { messages: 0, first_create: create, last_done: now });
        f.messages += 1;
        f.first_create = f.first_create.min(create);
        f.last_done = f.last_done.max(now);
    }

    /// The state of receivers `[lo, hi)` (one partition's, at the end of a partitioned
    /// run), to be merged into another partition's with [`Reassembly::absorb`].
    pub fn part(&self, (lo, hi): (u32, u32)) -> ReassemblyPart {
        ReassemblyPart {
            open: (lo..hi).filter(|&d| !self.open[d as usize].is_empty()).map(|d| (d, self.open[d as usize].clone())).collect(),
            flows: self.flows.iter().map(|(&k, &f)| (k, f)).collect(),
            delivered: self.delivered,
            latency_sum: self.latency_sum,
            latency_min: self.latency_min,
            latency_max: self.latency_max,
        }
    }

    /// Add another partition's receivers (their flows are other destinations than this
    /// partition's: the maps are disjoint).
    pub fn absorb(&mut self, p: &ReassemblyPart) {
        for (d, open) in &p.open {
            self.open[*d as usize] = open.clone();
        }
        self.flows.extend(p.flows.iter().copied());
        self.delivered += p.delivered;
        self.latency_sum += p.latency_sum;
        self.latency_min = self.latency_min.min(p.latency_min);
        self.latency_max = self.latency_max.max(p.latency_max);
    }

    /// Messages some but not all of whose packets arrived.
    pub fn incomplete(&self) -> u64 {
        self.open.iter().map(|o| o.len() as u64).sum()
    }

    /// The report: totals and the flows' bandwidths; `bytes_per_s` converts bytes/cycle
    /// to bytes/s when the channel's rate is known.
    pub fn report(&self, created: u64, bytes_per_s: Option<f64>) -> MessageReport {
        let bytes = self.shape.bytes;
        let bw: Vec<f64> =
            self.flows.values().map(|f| (f.messages * bytes) as f64 / (f.last_done - f.first_create).max(1) as f64).collect();
        let n = bw.len();
        let mean = if n == 0 { 0.0 } else { bw.iter().sum::<f64>() / n as f64 };
        let min = bw.iter().copied().fold(f64::INFINITY, f64::min);
        let max = bw.iter().copied().fold(0.0, f64::max);
        let flow_bandwidth = FlowBandwidth { flows: n as u64, mean, min: if n == 0 { 0.0 } else { min }, max };
        let mib = |x: f64| bytes_per_s.map(|r| x * r / (1u64 << 20) as f64);
        MessageReport {
            bytes,
            packets: self.shape.packets,
            flits: self.shape.flits(),
            created,
            delivered: self.delivered,
            incomplete: self.incomplete(),
            latency_mean: if self.delivered == 0 { 0.0 } else { self.latency_sum as f64 / self.delivered as f64 },
            latency_min: if self.delivered == 0 { 0 } else { self.latency_min },
            latency_max: self.latency_max,
            completion: self.flows.values().map(|f| f.last_done).max().unwrap_or(0),
            flow_bandwidth,
            flow_mib_per_s: mib(1.0).map(|_| FlowBandwidth {
                flows: n as u64,
                mean: mib(mean).unwrap(),
                min: mib(flow_bandwidth.min).unwrap(),
                max: mib(max).unwrap(),
            }),
        }
    }
}

/// Bandwidth per flow over the flows, in bytes/cycle (or MiB/s).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FlowBandwidth {
    /// Flows (source, destination) that completed a message.
    pub flows: u64,
    /// Mean over the flows (the eBB pattern bandwidth `b_avg` when every node has one
    /// peer).
    pub mean: f64,
    /// Least flow.
    pub min: f64,
    /// Greatest flow.
    pub max: f64,
}

/// Message-level results (with `traffic.message`), over the whole run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MessageReport {
    /// Payload bytes per message.
    pub bytes: u64,
    /// Packets per message.
    pub packets: u32,
    /// Flits per message, headers included.
    pub flits: u64,
    /// Messages created.
    pub created: u64,
    /// Messages whose every packet arrived.
    pub delivered: u64,
    /// Messages partly received when the run ended.
    pub incomplete: u64,
    /// Mean message latency (creation to the last packet's arrival), cycles.
    pub latency_mean: f64,
    /// Least message latency, cycles.
    pub latency_min: u64,
    /// Greatest message latency, cycles.
    pub latency_max: u64,
    /// Cycle the last message completed.
    pub completion: u64,
    /// Per-flow bandwidth, payload bytes/cycle: a flow's bytes over the time from its
    /// first message's creation to its last one's completion.
    pub flow_bandwidth: FlowBandwidth,
    /// The same in MiB/s (2^20 bytes/s), when `channel.link_gbps` gives the cycle time.
    pub flow_mib_per_s: Option<FlowBandwidth>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(packets: u32) -> Message {
        Message { bytes: 1000, packets, full_flits: 4, last_flits: 4, per_source: u64::MAX, exchange: false }
    }

    #[test]
    fn completes_when_every_packet_arrived_in_any_order() {
        let mut r = Reassembly::new(4, shape(3));
        // Message 1 of source 0 (seqs 3, 4, 5) arrives out of order, interleaved with
        // message 0 of source 2 (seqs 0..3) at the same destination.
        for (src, seq, now) in [(0, 5, 10), (2, 0, 11), (0, 3, 12), (2, 2, 13), (2, 1, 14)] {
            r.packet(src, 1, seq, 2, now);
        }
        assert_eq!((r.delivered, r.incomplete()), (1, 1));
        r.packet(0, 1, 4, 2, 20);
        assert_eq!((r.delivered, r.incomplete()), (2, 0));
        let rep = r.report(2, None);
        // Latencies 14 - 2 and 20 - 2.
        assert_eq!((rep.latency_min, rep.latency_max, rep.latency_mean), (12, 18, 15.0));
        // Flow (0, 1): 1000 bytes over 18 cycles; flow (2, 1): 1000 over 12.
        assert_eq!(rep.flow_bandwidth.flows, 2);
        assert!((rep.flow_bandwidth.min - 1000.0 / 18.0).abs() < 1e-12);
        assert!((rep.flow_bandwidth.max - 1000.0 / 12.0).abs() < 1e-12);
        assert_eq!(rep.completion, 20);
        assert!(rep.flow_mib_per_s.is_none());
    }

    #[test]
    fn flow_bandwidth_spans_first_creation_to_last_completion() {
        let mut r = Reassembly::new(2, shape(1));
        r.packet(0, 1, 0, 0, 50);
        r.packet(0, 1, 1, 40, 100);
        let rep = r.report(2, Some(2.0 * (1 << 20) as f64));
        // 2000 bytes in 100 cycles = 20 bytes/cycle; 2 MiB/s per byte/cycle.
        assert_eq!(rep.flow_bandwidth.mean, 20.0);
        assert_eq!(rep.flow_mib_per_s.unwrap().mean, 40.0);
    }
}
