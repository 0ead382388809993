//! Helpers shared by the integration tests (each test file that needs them declares
//! `mod common;`; each uses some of them).
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Barrier, Mutex};

use flitsim_core::config::{Config, Spec};
use flitsim_core::routing::table::{rule, TableRouting};
use flitsim_core::routing::RoutingFunction;
use flitsim_core::sim::peers::Peers;

/// The table set of `toml` (table routing under an XT VC policy) with every VC rule
/// rewritten to the upper VC, written to `file`: a packet passing a dateline node then
/// arrives there on VC1, which the XT router drops. Returns the config's spec and the
/// rewritten tables.
pub fn write_upper_vc_tables(toml: &str, file: &Path) -> (Spec, TableRouting) {
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let RoutingFunction::Table(t) = &spec.routing else { panic!("table routing") };
    let mut bad = (**t).clone();
    for e in bad.entries_mut() {
        if e.vc != rule::ANY {
            e.vc = rule::UPPER;
        }
    }
    std::fs::write(file, bad.to_bytes(&spec.topology)).unwrap();
    (spec, bad)
}

/// The topology and routing function `toml` builds (panics naming the config on an
/// error).
pub fn routes(toml: &str) -> (flitsim_core::topology::Topology, RoutingFunction) {
    let c = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let (t, r, _) = c.routes().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    (t, r)
}

/// Validate and run `toml` (panics naming the config on an error).
pub fn run(toml: &str) -> flitsim_core::report::Report {
    let spec = Config::from_toml(toml, &[]).and_then(|c| c.validate()).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    flitsim_core::sim::Simulation::run_spec(spec).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// The first path at which two JSON values differ.
pub fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value::*;
    match (a, b) {
        (Object(x), Object(y)) => x.keys().chain(y.keys()).find_map(|k| match (x.get(k), y.get(k)) {
            (Some(p), Some(q)) => first_difference(p, q, &format!("{path}.{k}")),
            _ => Some(format!("{path}.{k} present in one only")),
        }),
        (Array(x), Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]")))
        }
        _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
    }
}

/// `size` processes meeting at a barrier around a shared slot per process, and one per
/// pair of processes (`post[from][to]`).
pub struct Mailbox {
    pub barrier: Barrier,
    pub slots: Mutex<Vec<Vec<u8>>>,
    pub post: Mutex<Vec<Vec<Vec<u8>>>>,
    /// Bytes sent over the run, `[from][to]`.
    pub sent: Mutex<Vec<Vec<u64>>>,
    pub words: Mutex<Vec<Vec<u64>>>,
}

impl Mailbox {
    /// A mailbox for `size` processes, of which `meeting` meet at the barrier.
    pub fn new(meeting: usize, size: usize) -> Self {
        Mailbox {
            barrier: Barrier::new(meeting),
            slots: Mutex::new(vec![Vec::new(); size]),
            post: Mutex::new(vec![Vec::new(); size]),
            sent: Mutex::new(vec![vec![0; size]; size]),
            words: Mutex::new(vec![Vec::new(); size]),
        }
    }
}

/// Process `rank` of `size`, played by a thread: [`Peers`] through a shared [`Mailbox`].
pub struct ThreadPeers {
    pub rank: usize,
    pub size: usize,
    pub mail: Arc<Mailbox>,
}

impl ThreadPeers {
    fn reduce(&self, v: &mut [u64], op: fn(u64, u64) -> u64) {
        self.mail.words.lock().unwrap()[self.rank] = v.to_vec();
        self.mail.barrier.wait();
        {
            let all = self.mail.words.lock().unwrap();
            for (i, x) in v.iter_mut().enumerate() {
                *x = all.iter().map(|w| w[i]).reduce(op).unwrap();
            }
        }
        self.mail.barrier.wait();
    }
}

impl Peers for ThreadPeers {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn exchange(&self, to: &[Vec<u8>], from: &mut [Vec<u8>]) {
        assert_eq!(to.len(), self.size);
        self.mail.post.lock().unwrap()[self.rank] = to.to_vec();
        for (k, b) in to.iter().enumerate() {
            self.mail.sent.lock().unwrap()[self.rank][k] += b.len() as u64;
        }
        self.mail.barrier.wait();
        {
            let post = self.mail.post.lock().unwrap();
            for (k, f) in from.iter_mut().enumerate() {
                f.clear();
                if k != self.rank {
                    f.extend_from_slice(&post[k][self.rank]);
                }
            }
        }
        self.mail.barrier.wait();
    }
    fn sum(&self, v: &mut [u64]) {
        self.reduce(v, |a, b| a + b);
    }
    fn max(&self, v: &mut [u64]) {
        self.reduce(v, u64::max);
    }
    fn gather(&self, mine: &[u8]) -> Option<Vec<Vec<u8>>> {
        self.mail.slots.lock().unwrap()[self.rank] = mine.to_vec();
        self.mail.barrier.wait();
        let out = (self.rank == 0).then(|| self.mail.slots.lock().unwrap().clone());
        self.mail.barrier.wait();
        out
    }
}

/// A closed-loop trace for `nodes` endpoints (the `messages = [...]` line of a
/// `[traffic.trace]` table): `count` messages of 1 to 40 flits between pseudo-random
/// nodes at pseudo-random cycles below 200, each waiting, with a computation delay below
/// 30 cycles, for up to two of the latest earlier messages to its source. Every message
/// waits only for earlier ones, so the trace can always finish.
pub fn random_trace(nodes: u64, count: usize, seed: u64) -> String {
    let mut x = seed;
    let mut draw = |n: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let mut to: Vec<Vec<usize>> = vec![Vec::new(); nodes as usize];
    let mut msgs = Vec::new();
    for m in 0..count {
        let (src, dst, flits, delay) = (draw(nodes), draw(nodes), 1 + draw(40), draw(30));
        let waits: Vec<String> = to[src as usize].iter().rev().take(draw(3) as usize).map(|w| w.to_string()).collect();
        msgs.push(format!(
            "{{ src = {src}, dst = {dst}, flits = {flits}, at = {}, after = [{}], delay = {delay} }}",
            draw(200),
            waits.join(", ")
        ));
        to[dst as usize].push(m);
    }
    format!("messages = [{}]", msgs.join(", "))
}

/// An application on an 8x8 torus (presets/cg-64.ranks: halo exchanges and allreduces on
/// 64 ranks), placed at random and its computation scaled down, for the partitioned and
/// distributed engines' identity tests.
pub fn application_config() -> String {
    format!(
        "seed = 5\n[topology]\ntype = \"torus\"\ndims = [8, 8]\n[channel]\nflit_bytes = 16\nlink_gbps = 25.6\n\
         [sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\n[traffic.trace]\nformat = \"ranks\"\n\
         file = \"{}/../../presets/cg-64.ranks\"\nplacement = \"random\"\ncompute_scale = 0.05\n",
        env!("CARGO_MANIFEST_DIR")
    )
}
