//! A crosspoint buffer's entries: the record of the packet an entry holds, the VC
//! accounting that decides whether a VC may take one (SiCortex section 4.2: "each
//! virtual channel is assigned at least one entry in each crosspoint buffer for its
//! exclusive use"), and how the switch names an entry in 16 bits.

/// An input receiving no packet.
pub(super) const NO_ENTRY: u16 = u16::MAX;
/// An output streaming nothing, a DMA queue filling no entry.
pub(super) const IDLE: u16 = u16::MAX;
/// A DMA queue whose packet at the front is being discarded: its source or destination
/// node failed during the run ([`super::CrosspointRouters`]'s DMA feed).
pub(super) const DROP: u16 = u16::MAX - 1;

/// A crosspoint buffer entry: one packet.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Entry {
    pub(super) pid: u32,
    /// Flits arrived and flits sent.
    pub(super) arrived: u16,
    pub(super) sent: u16,
    pub(super) last: u16,
    /// The VC it holds this entry under, and the VC it takes on the next link.
    pub(super) in_vc: u8,
    pub(super) out_vc: u8,
    /// Its output at the next switch (the next symbol of the routing string).
    pub(super) down_out: u8,
    /// Cycle (mod 2^32) from which its head may leave.
    pub(super) ready: u32,
    /// Its routing string after this switch's symbol (what the next switch receives).
    pub(super) route: u64,
    /// A poisoned copy (or one whose link failed): dropped once whole, never delivered.
    pub(super) ghost: bool,
    /// Partitioned: the packet record is this partition's copy, made when the packet was
    /// handed to the link from another partition; released if the entry ends as a
    /// poisoned copy.
    pub(super) own: bool,
}

/// A crosspoint entry `e` of the buffer at port `port` (an input or an output: the
/// other port is the record's own) in 16 bits, `port << 5 | e`: ports < 17, entries < 32
/// (`xb_packets <= 32`), so it never reaches [`IDLE`], [`DROP`] or [`NO_ENTRY`].
#[inline]
pub(super) fn pack(port: usize, e: usize) -> u16 {
    debug_assert!(port <= 16 && e < 32);
    (port << 5 | e) as u16
}

/// The port and entry of [`pack`].
#[inline]
pub(super) fn unpack(x: u16) -> (usize, usize) {
    ((x >> 5) as usize, (x & 31) as usize)
}

/// `i mod n` for `i < 2n` (a ring index one step or less past its end), without a division.
#[inline]
pub(super) fn wrap(i: usize, n: usize) -> usize {
    debug_assert!(i < 2 * n);
    if i >= n {
        i - n
    } else {
        i
    }
}

/// Entry accounting of one crosspoint buffer: per VC entries in use, shared ones in use.
/// A VC may take an entry while it holds none (its reserved one) or a shared one is free.
#[inline]
pub(super) fn can_take(used_v: u8, shared: u8, shared_cap: u8) -> bool {
    used_v == 0 || shared < shared_cap
}
