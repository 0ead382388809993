//! An MPI program's communication, per rank: what a trace of a real application records
//! and what [`super::lower`] turns into the messages the endpoints replay.
//!
//! Each rank is a list of operations in program order ([`Op`]): computation, blocking and
//! non-blocking point-to-point sends and receives, waits for requests, and collectives on
//! a communicator. Peers and roots are ranks *within the operation's communicator*, as MPI
//! gives them; communicator 0 is `MPI_COMM_WORLD`. Every operation keeps where it came from
//! ([`Pos`]: a text line, or an OTF2 location's event index) so that an error names it.

use std::fmt;

/// The collective operations, by what each rank contributes. `bytes` of a
/// [`Op::Collective`] is, per kind:
///
/// | kind | `bytes` |
/// |---|---|
/// | `barrier` | ignored |
/// | `bcast` | the message the root sends |
/// | `reduce`, `allreduce` | the vector each rank contributes |
/// | `gather`, `allgather` | each rank's block |
/// | `scatter` | the block each rank receives |
/// | `alltoall` | the block each rank sends to each other rank |
/// | `reduce_scatter` | the block each rank ends with (a contribution of `p` blocks) |
///
/// The `v` variants (`alltoallv`, `allgatherv`, ...) are recorded as their kind with the
/// mean block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Collective {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Allgather,
    Scatter,
    Alltoall,
    ReduceScatter,
}

impl Collective {
    /// Every kind, in the order of [`Collective::name`]'s table.
    pub const ALL: [Collective; 9] = [
        Collective::Barrier,
        Collective::Bcast,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Gather,
        Collective::Allgather,
        Collective::Scatter,
        Collective::Alltoall,
        Collective::ReduceScatter,
    ];

    /// The name in traces and reports (`allreduce`, `reduce_scatter`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Collective::Barrier => "barrier",
            Collective::Bcast => "bcast",
            Collective::Reduce => "reduce",
            Collective::Allreduce => "allreduce",
            Collective::Gather => "gather",
            Collective::Allgather => "allgather",
            Collective::Scatter => "scatter",
            Collective::Alltoall => "alltoall",
            Collective::ReduceScatter => "reduce_scatter",
        }
    }

    /// The kind named `name` (as [`Collective::name`] gives it).
    pub fn from_name(name: &str) -> Option<Collective> {
        Collective::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Does the collective have a root (`bcast`, `reduce`, `gather`, `scatter`)?
    pub fn rooted(self) -> bool {
        matches!(self, Collective::Bcast | Collective::Reduce | Collective::Gather | Collective::Scatter)
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One operation of a rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Computation (or anything outside MPI) for `ns` nanoseconds.
    Compute { ns: u64 },
    /// A send of `bytes` to rank `peer` of communicator `comm`: blocking when `req` is
    /// `None` (`MPI_Send`), else non-blocking (`MPI_Isend`) with request `req`. Sends are
    /// eager: a send never waits for its receiver.
    Send { peer: u32, bytes: u64, tag: i32, comm: u32, req: Option<u64> },
    /// A receive from rank `peer` of `comm` (the actual source, wildcards resolved):
    /// blocking when `req` is `None` (`MPI_Recv`), else posted (`MPI_Irecv`) and completed
    /// by a [`Op::Wait`] on `req`. Matched with the sends from `peer` to this rank on
    /// `comm` with this `tag` in order, as MPI's non-overtaking rule does.
    Recv { peer: u32, bytes: u64, tag: i32, comm: u32, req: Option<u64> },
    /// Wait for requests to complete (`MPI_Wait`, `MPI_Waitall`, a completed `MPI_Test`).
    Wait { reqs: Vec<u64> },
    /// A collective on `comm` (every member calls it, in the same order); `root` is a rank
    /// of `comm` (0 when the kind has none); `bytes` as in [`Collective`].
    Collective { kind: Collective, comm: u32, root: u32, bytes: u64 },
}

/// Where an operation came from, for errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pos {
    /// Line `line` of a text trace.
    Line(usize),
    /// Event `index` (from 0) of the OTF2 location of the rank.
    Event(u64),
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pos::Line(l) => write!(f, "line {l}"),
            Pos::Event(i) => write!(f, "event {i}"),
        }
    }
}

/// What the trace measured of one rank on the machine it ran on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// Nanoseconds from the rank's first traced event to its last (an OTF2 trace: from
    /// the return of `MPI_Init` to the call of `MPI_Finalize`).
    pub span_ns: u64,
    /// Nanoseconds inside the MPI calls the program lists (communication and waiting;
    /// not `MPI_Init` or `MPI_Finalize`).
    pub mpi_ns: u64,
}

/// A whole program: per rank, its operations in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Per communicator (index = its id in [`Op`]), its members' world ranks in
    /// communicator rank order. Communicator 0 is the world: `0..ranks`.
    pub comms: Vec<Vec<u32>>,
    /// Per world rank, its operations and where each came from.
    pub ops: Vec<Vec<(Op, Pos)>>,
    /// Per world rank, what was measured, when the trace recorded times.
    pub measured: Option<Vec<Measured>>,
    /// Per world rank, per operation, when it was recorded (ns from the rank's first
    /// event), when the trace recorded times; empty otherwise.
    pub times: Vec<Vec<u64>>,
}

/// A collective on the world communicator, as [`Program::world_collectives`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldCollective {
    /// Its kind and bytes.
    pub kind: Collective,
    pub bytes: u64,
    /// When rank 0 called it (ns from its first event), when times were recorded.
    pub time_ns: Option<u64>,
}

impl Program {
    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.ops.len() as u32
    }

    /// Rank 0's collectives on the world communicator, in order: the points every rank
    /// passes in the same order, where [`Program::window`] can cut.
    pub fn world_collectives(&self) -> Vec<WorldCollective> {
        let Some(ops) = self.ops.first() else { return Vec::new() };
        ops.iter()
            .enumerate()
            .filter_map(|(i, (op, _))| match *op {
                Op::Collective { kind, comm: 0, bytes, .. } => {
                    Some(WorldCollective { kind, bytes, time_ns: self.times.first().and_then(|t| t.get(i).copied()) })
                }
                _ => None,
            })
            .collect()
    }

    /// The part of the program between world collectives `from` (included) and `to`
    /// (excluded; `None`: to the end), numbered from 0 as [`Program::world_collectives`]
    /// lists them: every rank's operations from its `from`-th world collective to its
    /// `to`-th. What was measured becomes the window's: each rank's span from its first
    /// operation in the window to the `to`-th collective (or its last event), and the part
    /// of it not computing. A message that crosses a cut is left without its other side,
    /// which lowering refuses, naming it.
    pub fn window(&self, from: usize, to: Option<usize>) -> std::result::Result<Program, String> {
        let n = self.world_collectives().len();
        if to.is_some_and(|t| t <= from) || from >= n || to.is_some_and(|t| t > n) {
            return Err(format!(
                "the window {from}..{} is not within the program's {n} world collectives (0..{n}, the end excluded)",
                to.map_or(String::new(), |t| t.to_string())
            ));
        }
        let mut out = Program { comms: self.comms.clone(), ..Program::default() };
        let mut measured = Vec::new();
        for (r, ops) in self.ops.iter().enumerate() {
            let cuts: Vec<usize> =
                ops.iter().enumerate().filter(|(_, (op, _))| matches!(op, Op::Collective { comm: 0, .. })).map(|(i, _)| i).collect();
            if cuts.len() != n {
                return Err(format!("rank {r} makes {} world collectives and rank 0 makes {n}: the ranks cannot be cut alike", cuts.len()));
            }
            let lo = cuts[from];
            let hi = to.map_or(ops.len(), |t| cuts[t]);
            out.ops.push(ops[lo..hi].to_vec());
            if let Some(t) = self.times.get(r) {
                let end = to.map_or_else(|| t.last().copied().unwrap_or(0), |_| t[hi]);
                let span = end.saturating_sub(t[lo]);
                let compute: u64 = ops[lo..hi].iter().map(|(op, _)| if let Op::Compute { ns } = op { *ns } else { 0 }).sum();
                measured.push(Measured { span_ns: span, mpi_ns: span.saturating_sub(compute) });
                out.times.push(t[lo..hi].iter().map(|x| x - t[lo]).collect());
            }
        }
        if out.times.len() == self.ops.len() && !self.ops.is_empty() {
            out.measured = Some(measured);
        } else {
            out.times.clear();
        }
        Ok(out)
    }
}
