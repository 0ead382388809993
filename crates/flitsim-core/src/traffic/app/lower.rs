//! Lowering: a [`Program`] placed on the network becomes the message trace the endpoints
//! replay ([`crate::traffic::trace`]).
//!
//! Each rank's calls are walked in order. A send (blocking or not) is a message from the
//! rank's endpoint to its peer's, of `max(1, ceil(bytes / flit_bytes))` flits, created
//! once the receives the rank has waited for since its previous send have completed
//! (`after`) and the computation since then has passed (`delay`). Sends are eager: a send
//! never waits for its receiver, and a non-blocking send's request completes at once. A
//! receive is matched with the sends from its peer on its communicator with its tag in
//! order (MPI's non-overtaking rule); a blocking receive is waited for at once, a
//! non-blocking one at the `wait` that names its request. A collective is expanded by its
//! algorithm ([`super::collective`]): each round's sends wait for the receives of the
//! rounds before. Messages from a rank to itself are copies in memory: they take no time.
//!
//! The replay's timing rule (a message is created `delay` cycles after the later of its
//! source's previous creation and the completion of its `after` messages) merges the
//! computation between two receives: a rank that computes, receives and computes again
//! is replayed as receiving both and then computing both. Reductions cost nothing at the
//! ranks.

use std::collections::HashMap;

use super::collective::{kept_steps, pairwise, scattered, schedule, Algorithm, Schedule, ScheduleError};
use super::program::{Collective, Op, Pos, Program};
use crate::error::{Error, Result};
use crate::traffic::trace::MessageSpec;

/// The message classes of a lowered trace, in report order: point-to-point, then each
/// collective kind.
pub fn class_names() -> Vec<&'static str> {
    std::iter::once("point_to_point").chain(Collective::ALL.iter().map(|c| c.name())).collect()
}

/// The class of collective `kind` (point-to-point is 0).
fn class_of(kind: Collective) -> u8 {
    1 + Collective::ALL.iter().position(|&c| c == kind).unwrap_or(0) as u8
}

/// What lowering needs besides the program.
pub struct LowerContext<'a> {
    /// Per rank, its endpoint.
    pub nodes: &'a [u32],
    /// Bytes per flit (`channel.flit_bytes`).
    pub flit_bytes: u32,
    /// Nanoseconds per cycle (`channel.link_gbps`), when given.
    pub cycle_ns: Option<f64>,
    /// Factor on the recorded computation times (0 drops them).
    pub compute_scale: f64,
    /// Per collective kind ([`Collective::ALL`] order), the algorithm, or `None` for the
    /// size-based default ([`Algorithm::auto`]).
    pub algorithms: [Option<Algorithm>; 9],
    /// Steps kept of each pairwise all-to-all ([`super::collective::kept_steps`]); `None`:
    /// all.
    pub alltoall_steps: Option<u32>,
    /// The config key of the trace, for errors.
    pub key: &'a str,
}

/// A lowered program.
#[derive(Clone, Debug, Default)]
pub struct Lowered {
    /// The messages, numbered per source in program order.
    pub specs: Vec<MessageSpec>,
    /// Per message, its class ([`class_names`]).
    pub class: Vec<u8>,
    /// Per message, the rank and call that sent it (for errors).
    pub origin: Vec<(u32, Pos)>,
    /// Per collective kind used, `(kind, algorithm, calls)` in [`Collective::ALL`] order
    /// (the algorithm of its first call when calls differ in size).
    pub algorithms: Vec<(Collective, Algorithm, u64)>,
    /// Per rank, what it does in program order, as the replay times it.
    pub walk: Vec<Vec<Step>>,
}

/// One thing a rank does in the replay, in program order: what the report's per-call
/// times walk (see [`super::AppInfo::report`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Computation (cycles), replayed just before the next send.
    Compute(u64),
    /// It sends message `m` (created once the rank gets there).
    Send(u32),
    /// It waits for message `m` to arrive (a blocking receive, a wait on a non-blocking
    /// one, or a collective's round).
    Wait(u32),
}

/// A schedule's identity: kind, algorithm, ranks, root, bytes, and for a sampled
/// all-to-all the call's number (0 otherwise).
type ScheduleKey = (Collective, Algorithm, u32, u32, u64, u64);

/// A member's collective call: kind, root, bytes, and the index of its op.
type Call = (Collective, u32, u64, usize);

/// One call turned into what the endpoints do.
enum Prim {
    Compute(u64),
    Send { dst: u32, bytes: u64, key: Key, class: u8, pos: usize },
    Recv { key: Key, req: Option<u64>, pos: usize },
    Wait(Vec<u64>),
}

/// A matching key: communicator, source and destination world ranks, tag (collective
/// messages: instance and round).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct Key {
    comm: u32,
    src: u32,
    dst: u32,
    tag: i64,
    coll: u64,
}

/// Lower `prog` (see the module doc).
pub fn lower(prog: &Program, cx: &LowerContext) -> Result<Lowered> {
    let ranks = prog.ranks();
    let at = |r: u32, pos: &Pos| format!("{} (rank {r}, {pos})", cx.key);
    check_comms(prog, cx.key)?;
    let member_of = member_index(prog);
    // Per communicator, per member, its collective calls; then one schedule per instance.
    let mut calls: Vec<Vec<Vec<Call>>> = prog.comms.iter().map(|c| vec![Vec::new(); c.len()]).collect();
    for (r, ops) in prog.ops.iter().enumerate() {
        for (i, (op, pos)) in ops.iter().enumerate() {
            let comm_ok = |comm: u32| -> Result<u32> {
                let Some(&m) = member_of.get(&(comm, r as u32)) else {
                    return Err(if (comm as usize) < prog.comms.len() {
                        Error::config(at(r as u32, pos), format!("rank {r} is not a member of communicator {comm}"))
                    } else {
                        Error::config(
                            at(r as u32, pos),
                            format!("there is no communicator {comm} (the trace defines 0..={})", prog.comms.len() - 1),
                        )
                    });
                };
                Ok(m)
            };
            match op {
                Op::Send { peer, comm, .. } | Op::Recv { peer, comm, .. } => {
                    comm_ok(*comm)?;
                    let size = prog.comms[*comm as usize].len();
                    if *peer as usize >= size {
                        return Err(Error::config(
                            at(r as u32, pos),
                            format!("peer {peer} is outside communicator {comm}, whose ranks are 0..={}", size - 1),
                        ));
                    }
                }
                Op::Collective { kind, comm, root, bytes } => {
                    let m = comm_ok(*comm)?;
                    let size = prog.comms[*comm as usize].len();
                    if *root as usize >= size {
                        return Err(Error::config(
                            at(r as u32, pos),
                            format!("root {root} is outside communicator {comm}, whose ranks are 0..={}", size - 1),
                        ));
                    }
                    calls[*comm as usize][m as usize].push((*kind, *root, *bytes, i));
                }
                Op::Compute { .. } | Op::Wait { .. } => {}
            }
        }
    }
    let mut schedules: Vec<Vec<std::rc::Rc<Schedule>>> = Vec::with_capacity(prog.comms.len());
    let mut cache: HashMap<ScheduleKey, std::rc::Rc<Schedule>> = HashMap::new();
    let mut used: Vec<Option<(Algorithm, u64)>> = vec![None; Collective::ALL.len()];
    for (c, members) in calls.iter().enumerate() {
        let p = members.len() as u32;
        let n = members[0].len();
        let mut list = Vec::with_capacity(n);
        for (m, mine) in members.iter().enumerate() {
            if mine.len() != n {
                let (r0, r) = (prog.comms[c][0], prog.comms[c][m]);
                return Err(Error::config(
                    cx.key,
                    format!("rank {r0} makes {n} collective calls on communicator {c} and rank {r} makes {}: every member makes the same calls in the same order", mine.len()),
                ));
            }
        }
        for j in 0..n {
            let (kind, root, _, _) = members[0][j];
            let mut sum = 0u128;
            for (m, mine) in members.iter().enumerate() {
                let (k, rt, b, i) = mine[j];
                if k != kind || (kind.rooted() && rt != root) {
                    let r = prog.comms[c][m];
                    let (r0, i0) = (prog.comms[c][0], members[0][j].3);
                    return Err(Error::config(
                        at(r, &prog.ops[r as usize][i].1),
                        format!(
                            "collective call {j} on communicator {c} is {k}{} here but {kind}{} at rank {r0} ({}): the members disagree",
                            if k.rooted() { format!(" (root {rt})") } else { String::new() },
                            if kind.rooted() { format!(" (root {root})") } else { String::new() },
                            prog.ops[r0 as usize][i0].1
                        ),
                    ));
                }
                sum += b as u128;
            }
            // The mean of the members' sizes (they agree but for the v-variants).
            let bytes = (sum / p as u128) as u64;
            let k = Collective::ALL.iter().position(|&x| x == kind).unwrap_or(0);
            let alg = cx.algorithms[k].unwrap_or_else(|| Algorithm::auto(kind, p, bytes));
            // A sampled all-to-all keeps different steps in each call.
            let sampled =
                cx.alltoall_steps.filter(|_| kind == Collective::Alltoall && matches!(alg, Algorithm::Pairwise | Algorithm::Scattered));
            let key = (kind, alg, p, root, bytes, sampled.map_or(0, |_| j as u64));
            let s = match cache.get(&key) {
                Some(s) => s.clone(),
                None => {
                    let built = match sampled {
                        Some(keep) if alg == Algorithm::Pairwise => Ok(pairwise(p, bytes, &kept_steps(p, keep, j as u64))),
                        Some(keep) => Ok(scattered(p, bytes, &kept_steps(p, keep, j as u64))),
                        None => schedule(kind, alg, p, root, bytes),
                    };
                    let s = std::rc::Rc::new(built.map_err(|e| {
                        let r = prog.comms[c][0];
                        Error::config(
                            at(r, &prog.ops[r as usize][members[0][j].3].1),
                            match e {
                                ScheduleError::PowerOfTwo => format!(
                                    "{kind} by {alg} needs a power-of-two number of ranks, and communicator {c} has {p}; choose another algorithm in `collectives.{kind}`"
                                ),
                                ScheduleError::Kind => format!("{alg} does not implement {kind}"),
                            },
                        )
                    })?);
                    cache.insert(key, s.clone());
                    s
                }
            };
            let u = &mut used[k];
            match u {
                Some((_, calls)) => *calls += 1,
                None => *u = Some((alg, 1)),
            }
            list.push(s);
        }
        schedules.push(list);
    }

    // Each rank's calls as primitives.
    let mut prims: Vec<Vec<Prim>> = Vec::with_capacity(ranks as usize);
    let mut inst_of_rank: Vec<Vec<u64>> = vec![vec![0; prog.comms.len()]; ranks as usize];
    for (r, ops) in prog.ops.iter().enumerate() {
        let r = r as u32;
        let mut out = Vec::with_capacity(ops.len());
        for (i, (op, _)) in ops.iter().enumerate() {
            match *op {
                Op::Compute { ns } => out.push(Prim::Compute(ns)),
                Op::Send { peer, bytes, tag, comm, .. } => {
                    let dst = prog.comms[comm as usize][peer as usize];
                    if dst != r {
                        out.push(Prim::Send { dst, bytes, key: Key { comm, src: r, dst, tag: tag as i64, coll: 0 }, class: 0, pos: i });
                    }
                }
                Op::Recv { peer, tag, comm, req, .. } => {
                    let src = prog.comms[comm as usize][peer as usize];
                    // A receive from itself completes at once: nothing to wait for.
                    if src != r {
                        out.push(Prim::Recv { key: Key { comm, src, dst: r, tag: tag as i64, coll: 0 }, req, pos: i });
                    }
                }
                Op::Wait { ref reqs } => out.push(Prim::Wait(reqs.clone())),
                Op::Collective { kind, comm, .. } => {
                    let j = inst_of_rank[r as usize][comm as usize];
                    inst_of_rank[r as usize][comm as usize] += 1;
                    let m = member_of[&(comm, r)];
                    let s = &schedules[comm as usize][j as usize];
                    let world = &prog.comms[comm as usize];
                    for (round, step) in s.rounds[m as usize].iter().enumerate() {
                        let key = |src: u32, dst: u32| Key { comm, src, dst, tag: round as i64, coll: j + 1 };
                        for &(q, b) in &step.sends {
                            let dst = world[q as usize];
                            out.push(Prim::Send { dst, bytes: b, key: key(r, dst), class: class_of(kind), pos: i });
                        }
                        for &(q, _) in &step.recvs {
                            out.push(Prim::Recv { key: key(world[q as usize], r), req: None, pos: i });
                        }
                    }
                }
            }
        }
        prims.push(out);
    }

    // Number the sends (per rank, in program order).
    let mut low = Lowered::default();
    let mut sends: Vec<(Key, u32)> = Vec::new();
    for (r, list) in prims.iter().enumerate() {
        for p in list {
            if let Prim::Send { dst, bytes, key, class, pos } = *p {
                let id = low.specs.len() as u32;
                let flits = bytes.div_ceil(cx.flit_bytes as u64).max(1);
                low.specs.push(MessageSpec { src: cx.nodes[r], dst: cx.nodes[dst as usize], flits, at: 0, after: Vec::new(), delay: 0 });
                low.class.push(class);
                low.origin.push((r as u32, prog.ops[r][pos].1.clone()));
                sends.push((key, id));
            }
        }
    }
    if low.specs.len() > u32::MAX as usize / 2 {
        return Err(Error::config(
            cx.key,
            format!("the program sends {} messages, more than a trace holds; trace fewer iterations", low.specs.len()),
        ));
    }

    // Match: the k-th receive a rank posts for a key (communicator, source, tag) takes the
    // k-th message its source sends with that key. Both sides sorted by key (stably, so
    // sends stay in program order, and receives, all at one rank per key, too).
    let mut recvs: Vec<(Key, u32)> =
        prims.iter().flatten().filter_map(|p| if let Prim::Recv { key, .. } = p { Some(*key) } else { None }).zip(0..).collect();
    sends.sort_by_key(|s| s.0);
    recvs.sort_by_key(|r| r.0);
    let mut matched = vec![u32::MAX; recvs.len()];
    let mut received = vec![false; low.specs.len()];
    let (mut i, mut j) = (0, 0);
    while i < sends.len() && j < recvs.len() {
        match sends[i].0.cmp(&recvs[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                matched[recvs[j].1 as usize] = sends[i].1;
                received[sends[i].1 as usize] = true;
                i += 1;
                j += 1;
            }
        }
    }
    drop((sends, recvs));

    // Walk each rank: what every send waits for.
    let mut next_send = 0usize;
    let mut next_recv = 0usize;
    for (r, list) in prims.iter().enumerate() {
        let r = r as u32;
        let mut walk = Vec::new();
        let mut waited: Vec<u32> = Vec::new();
        let mut compute_ns = 0u64;
        let mut posted: HashMap<u64, u32> = HashMap::new();
        for p in list {
            match p {
                Prim::Compute(ns) => compute_ns = compute_ns.saturating_add(*ns),
                Prim::Send { .. } => {
                    let spec = &mut low.specs[next_send];
                    next_send += 1;
                    spec.after = std::mem::take(&mut waited);
                    spec.delay = cycles(compute_ns, cx, || at(r, &low.origin[next_send - 1].1))?;
                    compute_ns = 0;
                    if spec.delay > 0 {
                        walk.push(Step::Compute(spec.delay));
                    }
                    walk.push(Step::Send(next_send as u32 - 1));
                }
                Prim::Recv { key, req, pos } => {
                    let pos_of = &prog.ops[r as usize][*pos].1;
                    let id = matched[next_recv];
                    next_recv += 1;
                    if id == u32::MAX {
                        let (peer, comm) = (key.src, key.comm);
                        return Err(Error::config(
                            at(r, pos_of),
                            if key.coll == 0 {
                                format!("this receive from rank {peer} (tag {}, communicator {comm}) has no matching send: rank {peer} sends fewer messages to rank {r} with that tag", key.tag)
                            } else {
                                format!("collective messages from rank {peer} are missing (communicator {comm})")
                            },
                        ));
                    }
                    match req {
                        None => {
                            waited.push(id);
                            walk.push(Step::Wait(id));
                        }
                        Some(q) => {
                            if posted.insert(*q, id).is_some() {
                                return Err(Error::config(
                                    at(r, pos_of),
                                    format!("request {q} is posted again before a wait completed it"),
                                ));
                            }
                        }
                    }
                }
                Prim::Wait(reqs) => {
                    for q in reqs {
                        // A send's request completes at once (eager sends); a receive's
                        // when its message has arrived.
                        if let Some(id) = posted.remove(q) {
                            waited.push(id);
                            walk.push(Step::Wait(id));
                        }
                    }
                }
            }
        }
        low.walk.push(walk);
    }
    // A send nobody receives: the first in message order.
    if let Some(first) = received.iter().position(|&r| !r) {
        let (r, pos) = &low.origin[first];
        let s = &low.specs[first];
        let peer = cx.nodes.iter().position(|&n| n == s.dst).unwrap_or(0);
        return Err(Error::config(
            at(*r, pos),
            format!("this message from rank {r} to rank {peer} is never received: rank {peer} posts fewer matching receives (same communicator and tag)"),
        ));
    }
    low.algorithms = Collective::ALL.iter().zip(&used).filter_map(|(&k, u)| u.map(|(a, n)| (k, a, n))).collect();
    Ok(low)
}

/// Cycles for `ns` of computation (scaled), rounded to the nearest.
fn cycles(ns: u64, cx: &LowerContext, at: impl Fn() -> String) -> Result<u64> {
    if ns == 0 || cx.compute_scale == 0.0 {
        return Ok(0);
    }
    let Some(c) = cx.cycle_ns else {
        return Err(Error::config(
            at(),
            "the trace's computation times are in ns and the network's cycle is not: set channel.link_gbps (with flit_bytes) to give the cycle time, or compute_scale = 0 to drop computation",
        ));
    };
    Ok((ns as f64 * cx.compute_scale / c).round() as u64)
}

/// The communicators: the world first, every member a rank, no rank twice.
fn check_comms(prog: &Program, key: &str) -> Result<()> {
    let n = prog.ranks();
    if n == 0 {
        return Err(Error::config(key, "the program has no ranks"));
    }
    if prog.comms.first().map(Vec::as_slice) != Some(&(0..n).collect::<Vec<_>>()[..]) {
        return Err(Error::config(key, format!("communicator 0 must be the world, ranks 0..={} in order", n - 1)));
    }
    for (c, members) in prog.comms.iter().enumerate() {
        if members.is_empty() {
            return Err(Error::config(key, format!("communicator {c} has no members")));
        }
        let mut seen = vec![false; n as usize];
        for &m in members {
            if m >= n || std::mem::replace(&mut seen[m as usize], true) {
                return Err(Error::config(
                    key,
                    format!("communicator {c} lists rank {m} {}", if m >= n { "which is outside the program" } else { "twice" }),
                ));
            }
        }
    }
    Ok(())
}

/// `(communicator, world rank)` to the rank's index in the communicator.
fn member_index(prog: &Program) -> HashMap<(u32, u32), u32> {
    let mut m = HashMap::new();
    for (c, members) in prog.comms.iter().enumerate() {
        for (i, &r) in members.iter().enumerate() {
            m.insert((c as u32, r), i as u32);
        }
    }
    m
}
