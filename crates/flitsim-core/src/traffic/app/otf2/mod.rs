//! OTF2 archives (the Open Trace Format 2 of Score-P, Vampir and flitsim's own tracer,
//! `tools/tracer`) read into a [`Program`]. Built with the `otf2` feature; links the OTF2
//! library (Debian: `libotf2-trace-dev`).
//!
//! What is read, per MPI rank (the location the archive's MPI `COMM_LOCATIONS` group lists
//! at that rank; without one, the first location of each process, in definition order):
//!
//! | OTF2 event | [`Op`] |
//! |---|---|
//! | `MpiSend` | `Send { req: None }` |
//! | `MpiIsend` (its `MpiIsendComplete` completes the request) | `Send { req: Some(id) }` |
//! | `MpiRecv` | `Recv { req: None }` |
//! | `MpiIrecvRequest` ... `MpiIrecv` | `Recv { req: Some(id) }` where the request was posted; peer, bytes and tag from the `MpiIrecv` |
//! | the requests completed inside one MPI call (`MPI_Wait*`, `MPI_Test*`) | `Wait { reqs }` when the call returns |
//! | `MpiCollectiveBegin` ... `MpiCollectiveEnd` | `Collective` |
//! | time from leaving one MPI call to entering the next | `Compute { ns }` (when > 0) |
//! | `MpiRequestCancelled` of a posted receive | the receive is dropped |
//!
//! An MPI call is a region of the MPI paradigm (or named `MPI_...`); other regions are
//! computation. Requests are numbered per rank from 0 in the order they are posted (OTF2's
//! request ids are handles the MPI library reuses). Communicator 0 is the world (the
//! communicator whose group lists every rank in order, preferably the one named
//! `MPI_COMM_WORLD`); the others follow in definition order, each a copy of
//! `MPI_COMM_SELF` once per rank that uses it.
//!
//! Collective sizes follow Score-P's convention (the bytes of the rank's own buffers, the
//! root counting its own block; flitsim's tracer writes the same): from each instance's
//! `sizeSent` and `sizeReceived` summed over its `p` members, `bytes` (as
//! [`super::program::Collective`] defines it) is, rounded to the nearest byte,
//!
//! | kind | `bytes` |
//! |---|---|
//! | `barrier` | 0 |
//! | `bcast` | the largest `sizeReceived` |
//! | `reduce`, `gather(v)` | Σ sent / p |
//! | `scatter(v)` | Σ received / p |
//! | `allreduce`, `alltoall(v)`, `reduce_scatter(_block)` | Σ sent / p² |
//! | `allgather(v)` | Σ received / p² |
//!
//! so the `v` variants get the mean block and every member records the same size. Other
//! collectives (`scan`, `exscan`, `alltoallw`, ...) are an error.
//!
//! All `unsafe` code of the engine's OTF2 support is in two submodules: the FFI
//! declarations ([`ffi`]) and [`reader`] (the callbacks, which collect raw records and
//! never unwind into C, and the calls that drive the reader). The mapping to a
//! [`Program`] ([`assemble`]) is safe Rust over the collected records.

use std::collections::HashMap;
use std::path::Path;

use super::program::{Collective, Measured, Op, Pos, Program};
use crate::error::{Error, Result};

mod assemble;
mod ffi;
mod reader;

use assemble::assemble;
use reader::collect;

/// OTF2 group types and paradigm (OTF2_Definitions.h, OTF2_GeneralDefinitions.h).
const GROUP_COMM_LOCATIONS: u8 = 4;
const GROUP_COMM_GROUP: u8 = 5;
const GROUP_COMM_SELF: u8 = 6;
const PARADIGM_MPI: u8 = 4;
/// A communicator group whose events give world ranks, not communicator ranks.
const GROUP_FLAG_GLOBAL_MEMBERS: u32 = 1;

/// The OTF2 collective operations (`OTF2_CollectiveOp`, OTF2_Events.h), by value.
const COLLECTIVE_OPS: [&str; 23] = [
    "BARRIER",
    "BCAST",
    "GATHER",
    "GATHERV",
    "SCATTER",
    "SCATTERV",
    "ALLGATHER",
    "ALLGATHERV",
    "ALLTOALL",
    "ALLTOALLV",
    "ALLTOALLW",
    "ALLREDUCE",
    "REDUCE",
    "REDUCE_SCATTER",
    "SCAN",
    "EXSCAN",
    "REDUCE_SCATTER_BLOCK",
    "CREATE_HANDLE",
    "DESTROY_HANDLE",
    "ALLOCATE",
    "DEALLOCATE",
    "CREATE_HANDLE_AND_ALLOCATE",
    "DESTROY_HANDLE_AND_DEALLOCATE",
];

/// The name of OTF2 collective operation `op` (`ALLTOALLW`, or its number when unknown).
fn collective_op_name(op: u8) -> String {
    COLLECTIVE_OPS.get(op as usize).map_or_else(|| format!("#{op}"), |n| n.to_string())
}

/// The program kind of an OTF2 collective operation, `None` when flitsim has none.
fn collective_kind(op: u8) -> Option<Collective> {
    Some(match op {
        0 => Collective::Barrier,
        1 => Collective::Bcast,
        2 | 3 => Collective::Gather,
        4 | 5 => Collective::Scatter,
        6 | 7 => Collective::Allgather,
        8 | 9 => Collective::Alltoall,
        11 => Collective::Allreduce,
        12 => Collective::Reduce,
        13 | 16 => Collective::ReduceScatter,
        _ => return None,
    })
}

/// A group definition: (type, paradigm, flags, members).
type GroupDef = (u8, u8, u32, Vec<u64>);

/// A rank's collective as read: (its slot in the rank's operations, the OTF2 operation,
/// size sent, size received).
type CollectiveRecord = (usize, u8, u64, u64);

/// The global definitions read (only those the mapping needs).
#[derive(Debug, Default)]
struct Defs {
    /// Timer ticks per second (`ClockProperties`).
    resolution: Option<u64>,
    strings: HashMap<u32, String>,
    /// Region id -> (name string, paradigm).
    regions: HashMap<u32, (u32, u8)>,
    /// Every location in definition order: (id, its location group).
    locations: Vec<(u64, u32)>,
    /// Group id -> (type, paradigm, members).
    groups: HashMap<u32, GroupDef>,
    /// Communicators in definition order: (id, name string, group).
    comms: Vec<(u32, u32, u32)>,
}

/// One event of a location, as recorded.
#[derive(Clone, Debug, PartialEq)]
enum Event {
    Enter { region: u32 },
    Leave { region: u32 },
    Send { peer: u32, comm: u32, tag: u32, bytes: u64 },
    Isend { peer: u32, comm: u32, tag: u32, bytes: u64, req: u64 },
    IsendComplete { req: u64 },
    IrecvRequest { req: u64 },
    Recv { peer: u32, comm: u32, tag: u32, bytes: u64 },
    Irecv { peer: u32, comm: u32, tag: u32, bytes: u64, req: u64 },
    Cancelled { req: u64 },
    CollectiveBegin,
    CollectiveEnd { op: u8, comm: u32, root: u32, sent: u64, received: u64 },
}

/// An event with its time (timer ticks) and index in its location (from 0).
#[derive(Clone, Debug, PartialEq)]
struct Record {
    index: u64,
    time: u64,
    event: Event,
}

/// What the reader callbacks fill (`user data` of every callback): the definitions, the
/// events of the location being read, and the first error a callback met.
#[derive(Default)]
struct Collector {
    defs: Defs,
    events: Vec<Record>,
    error: Option<String>,
}

/// The advice every corrupt-archive error ends with.
const CORRUPT: &str = "the archive is incomplete or corrupt (a run cut short, a file truncated or copied in part): record it again";

/// Read the OTF2 archive whose anchor file is `anchor` into a program; `key` is the config
/// key naming it, for errors.
pub fn read(anchor: &Path, key: &str) -> Result<Program> {
    let file = anchor.display().to_string();
    let at = |what: &str| format!("{key} ({file}{what})");
    match std::fs::metadata(anchor) {
        Err(e) => return Err(Error::config(key, crate::schema::cannot_read(&file, &e))),
        Ok(m) if m.is_dir() => {
            return Err(Error::config(
                key,
                format!("{file} is a folder: give the archive's anchor file, the `.otf2` file in it (e.g. {file}/trace.otf2)"),
            ))
        }
        Ok(_) => {}
    }
    let (defs, events) = collect(anchor).map_err(|m| Error::config(at(""), m))?;
    assemble(defs, events, &at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(index: u64, time: u64, event: Event) -> Record {
        Record { index, time, event }
    }

    /// Three ranks; communicator 7 has world ranks [2, 0] with the GLOBAL_MEMBERS flag
    /// (its events name world ranks); a gatherv on the world with blocks of 10, 20 and 30
    /// bytes (the root, rank 0, counts its own block and receives all 60).
    fn defs() -> Defs {
        let mut d = Defs { resolution: Some(1_000_000_000), ..Defs::default() };
        d.locations = vec![(0, 0), (1, 1), (2, 2)];
        d.groups.insert(0, (GROUP_COMM_LOCATIONS, PARADIGM_MPI, 0, vec![0, 1, 2]));
        d.groups.insert(1, (GROUP_COMM_GROUP, PARADIGM_MPI, 0, vec![0, 1, 2]));
        d.groups.insert(2, (GROUP_COMM_GROUP, PARADIGM_MPI, GROUP_FLAG_GLOBAL_MEMBERS, vec![2, 0]));
        d.comms = vec![(3, 0, 1), (7, 0, 2)];
        d
    }

    #[test]
    fn global_member_ranks_become_communicator_ranks_and_v_collectives_get_the_mean_block() {
        let gatherv = |i: u64, sent: u64, received: u64| rec(i, 10, Event::CollectiveEnd { op: 3, comm: 3, root: 0, sent, received });
        let events = vec![
            vec![rec(0, 5, Event::Send { peer: 2, comm: 7, tag: 1, bytes: 8 }), gatherv(1, 10, 60)],
            vec![gatherv(0, 20, 0)],
            vec![rec(0, 5, Event::Recv { peer: 0, comm: 7, tag: 1, bytes: 8 }), gatherv(1, 30, 0)],
        ];
        let at = |w: &str| format!("t (a.otf2{w})");
        let p = assemble(defs(), events, &at).unwrap();
        assert_eq!(p.comms, vec![vec![0, 1, 2], vec![2, 0]]);
        let g = Op::Collective { kind: Collective::Gather, comm: 0, root: 0, bytes: 20 };
        assert_eq!(p.ops[0], vec![(Op::Send { peer: 0, bytes: 8, tag: 1, comm: 1, req: None }, Pos::Event(0)), (g.clone(), Pos::Event(1))]);
        assert_eq!(p.ops[1], vec![(g.clone(), Pos::Event(0))]);
        assert_eq!(p.ops[2], vec![(Op::Recv { peer: 1, bytes: 8, tag: 1, comm: 1, req: None }, Pos::Event(0)), (g, Pos::Event(1))]);
    }

    #[test]
    fn members_that_disagree_on_a_collective_are_an_error() {
        let end = |op: u8| rec(0, 1, Event::CollectiveEnd { op, comm: 3, root: 0, sent: 8, received: 8 });
        let events = vec![vec![end(11)], vec![end(11)], vec![end(12)]];
        let e = assemble(defs(), events, &|w: &str| format!("t (a.otf2{w})")).unwrap_err().to_string();
        assert!(e.contains("a.otf2 rank 2 event 0") && e.contains("REDUCE here but allreduce"), "{e}");
    }
}
