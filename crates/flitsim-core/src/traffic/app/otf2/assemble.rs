//! The mapping of an archive's collected records to a [`Program`]: safe Rust over
//! [`super::Record`]s, per rank (operations, requests, computation, what was measured),
//! then the collectives' sizes across the members of each communicator.

use super::*;

/// How an OTF2 communicator maps to the program's.
#[derive(Clone, Debug)]
enum CommMap {
    /// One program communicator.
    Id(u32),
    /// `MPI_COMM_SELF`-like: one program communicator per rank, made when first used.
    PerRank,
}

/// Build the program from the definitions and each rank's events. `at(where)` names the
/// place for errors (`key (file where)`).
pub(super) fn assemble(defs: Defs, events: Vec<Vec<Record>>, at: &dyn Fn(&str) -> String) -> Result<Program> {
    let ranks = events.len() as u32;
    let err0 = |msg: String| Error::config(at(""), msg);
    if ranks == 0 {
        return Err(err0("the archive has no MPI ranks: record the application with an MPI tracer (flitsim trace record)".into()));
    }
    let resolution = match defs.resolution {
        Some(r) if r > 0 => r,
        _ => return Err(err0(format!("the archive gives no timer resolution (ClockProperties): {CORRUPT}"))),
    };
    let ns = |ticks: u64| (ticks as u128 * 1_000_000_000 / resolution as u128).min(u64::MAX as u128) as u64;

    // Communicators.
    let world: Vec<u32> = (0..ranks).collect();
    let mut comms = vec![world.clone()];
    let mut comm_map: HashMap<u32, CommMap> = HashMap::new();
    // Program communicators whose events name world ranks (OTF2_GROUP_FLAG_GLOBAL_MEMBERS).
    let mut global = std::collections::HashSet::new();
    let members_of = |group: u32| defs.groups.get(&group);
    let world_def = {
        let is_world = |g: u32| members_of(g).is_some_and(|(k, _, _, m)| *k == GROUP_COMM_GROUP && m.iter().copied().eq(0..ranks as u64));
        let named = defs.comms.iter().find(|(_, n, g)| defs.strings.get(n).map(String::as_str) == Some("MPI_COMM_WORLD") && is_world(*g));
        named.or_else(|| defs.comms.iter().find(|(_, _, g)| is_world(*g))).map(|c| c.0)
    };
    for &(id, _name, group) in &defs.comms {
        if Some(id) == world_def {
            comm_map.insert(id, CommMap::Id(0));
            continue;
        }
        match members_of(group) {
            Some((GROUP_COMM_SELF, _, _, _)) => {
                comm_map.insert(id, CommMap::PerRank);
            }
            Some((GROUP_COMM_GROUP, _, flags, members)) => {
                if flags & GROUP_FLAG_GLOBAL_MEMBERS != 0 {
                    global.insert(comms.len() as u32);
                }
                if let Some(bad) = members.iter().find(|&&m| m >= ranks as u64) {
                    return Err(err0(format!("communicator {id} lists rank {bad}, but the archive has {ranks} ranks: {CORRUPT}")));
                }
                comm_map.insert(id, CommMap::Id(comms.len() as u32));
                comms.push(members.iter().map(|&m| m as u32).collect());
            }
            // Other kinds (inter-communicators' parts, unknown groups): an error if used.
            _ => {}
        }
    }
    let mut self_comms: HashMap<(u32, u32), u32> = HashMap::new();

    let mut ops = Vec::with_capacity(ranks as usize);
    let mut measured = Vec::with_capacity(ranks as usize);
    let mut times = Vec::with_capacity(ranks as usize);
    // Per rank, its collectives: (op index, OTF2 op, sent, received).
    let mut colls: Vec<Vec<CollectiveRecord>> = Vec::with_capacity(ranks as usize);
    for (rank, records) in events.iter().enumerate() {
        let rank = rank as u32;
        let mut list: Vec<Option<(Op, Pos)>> = Vec::new();
        // Per slot of `list`, when its operation began (ns from the rank's first event).
        let mut stamp: Vec<u64> = Vec::new();
        let first = records.iter().map(|r| r.time).min().unwrap_or(0);
        let mut rank_colls = Vec::new();
        let mut depth = 0u32;
        let mut entered = 0u64;
        let mut last_leave: Option<u64> = None;
        let mut mpi_ticks = 0u64;
        let mut completed: Vec<u64> = Vec::new();
        let mut next_req = 0u64;
        let mut sends: HashMap<u64, u64> = HashMap::new();
        // OTF2 request -> (op slot, program request, event index of the posting).
        let mut recvs: HashMap<u64, (usize, u64, u64)> = HashMap::new();
        let mut coll_begin: Option<u64> = None;
        // When MPI_Init returned and MPI_Finalize was entered, if they were traced.
        let (mut initialized, mut finalized): (Option<u64>, Option<u64>) = (None, None);
        for rec in records {
            let pos = Pos::Event(rec.index);
            let err = |msg: String| Error::config(at(&format!(" rank {rank} event {}", rec.index)), msg);
            let mut comm_id = |comm: u32, comms: &mut Vec<Vec<u32>>| -> Result<u32> {
                match comm_map.get(&comm) {
                    Some(CommMap::Id(c)) => Ok(*c),
                    Some(CommMap::PerRank) => Ok(*self_comms.entry((comm, rank)).or_insert_with(|| {
                        comms.push(vec![rank]);
                        comms.len() as u32 - 1
                    })),
                    None => Err(err(format!(
                        "communicator {comm} is not defined as an MPI communicator of the archive's ranks (a group of type COMM_GROUP or COMM_SELF): {CORRUPT}"
                    ))),
                }
            };
            let peer_in = |peer: u32, comm: u32, comms: &Vec<Vec<u32>>| -> Result<u32> {
                let members = &comms[comm as usize];
                if global.contains(&comm) {
                    return members
                        .iter()
                        .position(|&m| m == peer)
                        .map(|p| p as u32)
                        .ok_or_else(|| err(format!("world rank {peer} is not a member of communicator {comm}: {CORRUPT}")));
                }
                if (peer as usize) < members.len() {
                    Ok(peer)
                } else {
                    Err(err(format!("peer {peer} is not a rank of communicator {comm}, which has {}: {CORRUPT}", members.len())))
                }
            };
            // Some(true) for MPI_Init(_thread), Some(false) for MPI_Finalize, else None.
            let setup = |region: u32| match defs.regions.get(&region).and_then(|(name, _)| defs.strings.get(name)).map(String::as_str) {
                Some("MPI_Init" | "MPI_Init_thread") => Some(true),
                Some("MPI_Finalize") => Some(false),
                _ => None,
            };
            let is_mpi = |region: u32| {
                defs.regions.get(&region).is_some_and(|(name, paradigm)| {
                    *paradigm == PARADIGM_MPI || defs.strings.get(name).is_some_and(|n| n.starts_with("MPI_"))
                })
            };
            match rec.event {
                Event::Enter { region } if is_mpi(region) => {
                    if depth == 0 {
                        if let Some(t) = last_leave {
                            let gap = ns(rec.time.saturating_sub(t));
                            if gap > 0 {
                                list.push(Some((Op::Compute { ns: gap }, pos.clone())));
                                stamp.push(ns(t.saturating_sub(first)));
                            }
                        }
                        entered = rec.time;
                        if setup(region) == Some(false) {
                            finalized.get_or_insert(rec.time);
                        }
                    }
                    depth += 1;
                }
                Event::Leave { region } if is_mpi(region) => {
                    if depth == 0 {
                        continue; // a leave without its enter (the trace began inside a call)
                    }
                    depth -= 1;
                    if depth == 0 {
                        // MPI_Init and MPI_Finalize set up and tear down: not the program's
                        // communication, and outside its span.
                        match setup(region) {
                            Some(true) => initialized = Some(rec.time),
                            Some(false) => {}
                            None => mpi_ticks += rec.time.saturating_sub(entered),
                        }
                        last_leave = Some(rec.time);
                        if !completed.is_empty() {
                            list.push(Some((Op::Wait { reqs: std::mem::take(&mut completed) }, pos)));
                            stamp.push(ns(entered.saturating_sub(first)));
                        }
                    }
                }
                Event::Enter { .. } | Event::Leave { .. } => {}
                Event::Send { peer, comm, tag, bytes } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    list.push(Some((Op::Send { peer, bytes, tag: tag as i32, comm, req: None }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::Isend { peer, comm, tag, bytes, req } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    let id = next_req;
                    next_req += 1;
                    sends.insert(req, id);
                    list.push(Some((Op::Send { peer, bytes, tag: tag as i32, comm, req: Some(id) }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::IsendComplete { req } => {
                    if let Some(id) = sends.remove(&req) {
                        completed.push(id);
                    }
                }
                Event::Recv { peer, comm, tag, bytes } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    list.push(Some((Op::Recv { peer, bytes, tag: tag as i32, comm, req: None }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::IrecvRequest { req } => {
                    let id = next_req;
                    next_req += 1;
                    if recvs.contains_key(&req) {
                        return Err(err(format!("receive request {req} is posted again before it completed: {CORRUPT}")));
                    }
                    recvs.insert(req, (list.len(), id, rec.index));
                    list.push(Some((Op::Recv { peer: 0, bytes: 0, tag: 0, comm: 0, req: Some(id) }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::Irecv { peer, comm, tag, bytes, req } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    let op = |id| Op::Recv { peer, bytes, tag: tag as i32, comm, req: Some(id) };
                    match recvs.remove(&req) {
                        Some((slot, id, at_)) => {
                            list[slot] = Some((op(id), Pos::Event(at_)));
                            completed.push(id);
                        }
                        // No posting recorded: the receive is posted where it completes.
                        None => {
                            let id = next_req;
                            next_req += 1;
                            list.push(Some((op(id), pos)));
                            stamp.push(ns(entered.saturating_sub(first)));
                            completed.push(id);
                        }
                    }
                }
                Event::Cancelled { req } => {
                    if let Some((slot, _, _)) = recvs.remove(&req) {
                        list[slot] = None;
                    }
                    sends.remove(&req);
                }
                Event::CollectiveBegin => coll_begin = Some(rec.index),
                Event::CollectiveEnd { op, comm, root, sent, received } => {
                    let Some(kind) = collective_kind(op) else {
                        return Err(err(format!(
                            "collective operation {} is not supported: flitsim replays barrier, bcast, reduce, allreduce, gather(v), allgather(v), scatter(v), alltoall(v) and reduce_scatter(_block); trace a run (or a version of the application) without it",
                            collective_op_name(op)
                        )));
                    };
                    let comm = comm_id(comm, &mut comms)?;
                    let root = if kind.rooted() {
                        peer_in(root, comm, &comms)
                            .map_err(|_| err(format!("root {root} is not a rank of communicator {comm}: {CORRUPT}")))?
                    } else {
                        0
                    };
                    let at_ = coll_begin.take().unwrap_or(rec.index);
                    rank_colls.push((list.len(), op, sent, received));
                    list.push(Some((Op::Collective { kind, comm, root, bytes: 0 }, Pos::Event(at_))));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
            }
            // Requests completed outside any MPI call (a tracer without regions).
            if depth == 0 && !completed.is_empty() {
                list.push(Some((Op::Wait { reqs: std::mem::take(&mut completed) }, Pos::Event(rec.index))));
                stamp.push(ns(rec.time.saturating_sub(first)));
            }
        }
        if let Some((_, _, posted)) = recvs.values().min_by_key(|v| v.2) {
            return Err(Error::config(
                at(&format!(" rank {rank} event {posted}")),
                format!("the receive request posted here (MPI_Irecv) never completes: no MPI_Wait or MPI_Test in the trace returns it; {CORRUPT}"),
            ));
        }
        let last = records.iter().map(|r| r.time).max().unwrap_or(0);
        let span = finalized.unwrap_or(last).saturating_sub(initialized.unwrap_or(first));
        measured.push(Measured { span_ns: ns(span), mpi_ns: ns(mpi_ticks) });
        // Collective slots keep their index when cancelled receives are dropped: map them.
        let mut new_index = Vec::with_capacity(list.len());
        let mut kept = Vec::with_capacity(list.len());
        let mut kept_times = Vec::with_capacity(list.len());
        for (slot, t) in list.into_iter().zip(stamp) {
            new_index.push(kept.len());
            if let Some(op) = slot {
                kept.push(op);
                kept_times.push(t);
            }
        }
        times.push(kept_times);
        for c in &mut rank_colls {
            c.0 = new_index[c.0];
        }
        ops.push(kept);
        colls.push(rank_colls);
    }
    collective_sizes(&comms, &mut ops, &colls, at)?;
    Ok(Program { comms, ops, measured: Some(measured), times })
}

/// Match the collectives of each communicator's members (the k-th on a communicator is one
/// instance) and give every member the instance's `bytes`, from the sums of its members'
/// sent and received sizes (see the module doc).
fn collective_sizes(
    comms: &[Vec<u32>],
    ops: &mut [Vec<(Op, Pos)>],
    colls: &[Vec<CollectiveRecord>],
    at: &dyn Fn(&str) -> String,
) -> Result<()> {
    // Per rank, per communicator, its collectives in order.
    let mut per: Vec<HashMap<u32, Vec<CollectiveRecord>>> = vec![HashMap::new(); ops.len()];
    for (rank, list) in colls.iter().enumerate() {
        for &c in list {
            let Op::Collective { comm, .. } = ops[rank][c.0].0 else { unreachable!("collective slots hold collectives") };
            per[rank].entry(comm).or_default().push(c);
        }
    }
    for (id, members) in comms.iter().enumerate() {
        let id = id as u32;
        let p = members.len() as u128;
        let lists: Vec<&[CollectiveRecord]> = members.iter().map(|&m| per[m as usize].get(&id).map_or(&[][..], Vec::as_slice)).collect();
        let n = lists.first().map_or(0, |l| l.len());
        if let Some((i, l)) = lists.iter().enumerate().find(|(_, l)| l.len() != n) {
            return Err(Error::config(
                at(""),
                format!(
                    "on communicator {id}, rank {} calls {n} collectives but rank {} calls {}: every member calls each collective; {CORRUPT}",
                    members[0],
                    members[i],
                    l.len()
                ),
            ));
        }
        for k in 0..n {
            let kind_of = |rank: usize, slot: usize| match ops[rank][slot].0 {
                Op::Collective { kind, .. } => kind,
                _ => unreachable!("collective slots hold collectives"),
            };
            let first = kind_of(members[0] as usize, lists[0][k].0);
            let (mut sent, mut received, mut max_received) = (0u128, 0u128, 0u64);
            for (i, &m) in members.iter().enumerate() {
                let (slot, op, s, r) = lists[i][k];
                if kind_of(m as usize, slot) != first {
                    let Pos::Event(e) = ops[m as usize][slot].1 else { unreachable!("OTF2 ops have event positions") };
                    return Err(Error::config(
                        at(&format!(" rank {m} event {e}")),
                        format!(
                            "collective {} of communicator {id} is {} here but {first} on rank {}: the members disagree; {CORRUPT}",
                            k + 1,
                            collective_op_name(op),
                            members[0]
                        ),
                    ));
                }
                sent += s as u128;
                received += r as u128;
                max_received = max_received.max(r);
            }
            let div = |x: u128, d: u128| (x + d / 2).checked_div(d).map_or(0, |v| v as u64);
            let bytes = match first {
                Collective::Barrier => 0,
                Collective::Bcast => max_received,
                Collective::Reduce | Collective::Gather => div(sent, p),
                Collective::Scatter => div(received, p),
                Collective::Allreduce | Collective::Alltoall | Collective::ReduceScatter => div(sent, p * p),
                Collective::Allgather => div(received, p * p),
            };
            for (i, &m) in members.iter().enumerate() {
                if let Op::Collective { bytes: b, .. } = &mut ops[m as usize][lists[i][k].0].0 {
                    *b = bytes;
                }
            }
        }
    }
    Ok(())
}
