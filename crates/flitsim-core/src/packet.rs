//! The packet arena: packets live here, indexed by id; flits in buffers carry only the id.
//! Packet state carries what a real header carries plus the bookkeeping the stats need.

/// One packet in flight (or waiting in a source queue).
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Packet {
    /// Source endpoint.
    pub src: u32,
    /// Destination endpoint (the header's destination field).
    pub dst: u32,
    /// Size in flits.
    pub size: u32,
    /// Router-to-router hops taken so far.
    pub hops: u32,
    /// Cycle the packet was created (entered the source queue).
    pub create: u64,
    /// Cycle its head flit left the source into the injection channel.
    pub inject: u64,
    /// Created inside the measurement window.
    pub measured: bool,
    /// Traffic phase it was created in.
    pub phase: u32,
    /// Its index among the packets its source created in the run (0, 1, ...).
    pub seq: u32,
    /// The header's 11-bit age field (SeaStar aging, [`crate::router::aging`]): 0 when
    /// injected; inside a buffered-crossbar router it holds that router's bookkeeping.
    /// The input-queued router writes the cycle (mod 2^16) the head was routed at the
    /// source switch (probe timing, [`crate::endpoint::dispersion`]).
    pub age: u16,
    /// Cycle (modulo 2^32) its head arrived at the router it is in (per-hop queueing
    /// delay, buffered-crossbar router).
    pub hop_start: u32,
    /// The source route still to take (the header's routing string, SiCortex section
    /// 4.1): one symbol per switch, shifted off at each; set by the source switch.
    pub route: u64,
}

/// Packets indexed by id with a free list: no allocation in steady state.
#[derive(Clone, Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: u64,
}

impl PacketArena {
    /// Store a packet, returning its id.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    /// Release a delivered packet.
    #[inline]
    pub fn release(&mut self, id: u32) {
        self.live -= 1;
        self.free.push(id);
    }
    /// Packets currently alive.
    pub fn live(&self) -> u64 {
        self.live
    }
    /// Read a packet.
    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }
    /// Mutate a packet.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.slots[id as usize]
    }
}

/// Engine-wide event counters.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, PartialEq, Eq)]
pub struct Counters {
    /// Packets created at sources.
    pub packets_created: u64,
    /// Packets an injection process generated while the source queue was full
    /// (`traffic.source_queue`): never created.
    pub packets_suppressed: u64,
    /// Packets whose tail reached the destination.
    pub packets_delivered: u64,
    /// Flits sent by endpoints into injection channels.
    pub flits_injected: u64,
    /// Flits received by endpoints from ejection channels.
    pub flits_ejected: u64,
    /// Flits that crossed a router's crossbar (router traversals; the bench's flit-hops).
    pub flit_traversals: u64,
    /// Measured packets (created in the window) delivered.
    pub measured_delivered: u64,
    /// Last cycle in which any flit moved (watchdog).
    pub last_progress: u64,
    /// Cycle in which the last packet's tail reached its destination; 0 if none did. With
    /// a finite workload (`traffic.packets_per_source`) this is its completion time.
    pub last_delivery: u64,
    /// Packets a fault model lost (e.g. left in the replay buffer of a link that failed
    /// for good), counted, never silently dropped; and their flits.
    pub packets_lost: u64,
    /// Flits of the lost packets.
    pub flits_lost: u64,
    /// Of the lost packets, those created in the measurement window.
    pub measured_lost: u64,
    /// Packets delivered after a packet their source created later for the same
    /// destination (counted on networks of up to 2,048 endpoints).
    pub packets_reordered: u64,
}

impl Counters {
    /// The event counts, in a fixed order ([`Counters::from_parts`]).
    pub fn counts(&self) -> [u64; 11] {
        let c = self;
        [
            c.packets_created,
            c.packets_suppressed,
            c.packets_delivered,
            c.flits_injected,
            c.flits_ejected,
            c.flit_traversals,
            c.measured_delivered,
            c.packets_lost,
            c.flits_lost,
            c.measured_lost,
            c.packets_reordered,
        ]
    }

    /// The last-event cycles, `[last_progress, last_delivery]`.
    pub fn last(&self) -> [u64; 2] {
        [self.last_progress, self.last_delivery]
    }

    /// Counters from [`Counters::counts`] and [`Counters::last`].
    pub fn from_parts(counts: [u64; 11], last: [u64; 2]) -> Counters {
        let [packets_created, packets_suppressed, packets_delivered, flits_injected, flits_ejected, flit_traversals, measured_delivered, packets_lost, flits_lost, measured_lost, packets_reordered] =
            counts;
        let [last_progress, last_delivery] = last;
        Counters {
            packets_created,
            packets_suppressed,
            packets_delivered,
            flits_injected,
            flits_ejected,
            flit_traversals,
            measured_delivered,
            last_progress,
            last_delivery,
            packets_lost,
            flits_lost,
            measured_lost,
            packets_reordered,
        }
    }

    /// Add another partition's counters: event counts add, the last-event cycles take
    /// the later of the two.
    pub fn merge(&mut self, o: &Counters) {
        let (a, b) = (self.counts(), o.counts());
        let (x, y) = (self.last(), o.last());
        *self = Counters::from_parts(std::array::from_fn(|k| a[k] + b[k]), [x[0].max(y[0]), x[1].max(y[1])]);
    }
}
