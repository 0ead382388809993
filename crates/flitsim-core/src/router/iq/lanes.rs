//! The input-queued routers' state whose type is the width of their VC sets
//! ([`VcSet`]: `u64` for routers of up to 64 input VCs, `u128` up to 128): the per-router
//! stage sets, the VC allocator's work space and the switch allocator. The step is
//! compiled once per width and picks it once per cycle, so the common shapes pay nothing
//! for the wide one.

use super::input_vc::VcSets;
use super::VIEW;
use crate::router::allocator::SwitchAllocator;
use crate::router::vcset::VcSet;
use crate::router::IqConfig;

/// The width-dependent state of every router (see the module docs).
#[derive(Clone, Debug)]
pub(super) struct Lanes<B: VcSet> {
    /// Per router: the input-VC sets.
    pub(super) sets: Vec<VcSets<B>>,
    /// VC allocator work space: per output VC, the input VCs that picked it (separable)
    /// or may claim it (iSLIP).
    pub(super) pickers: [B; VIEW],
    /// iSLIP VC allocator work space: per input VC, the output VCs granting it.
    pub(super) grants: [B; VIEW],
    /// Switch allocator (with its work space).
    pub(super) sw: SwitchAllocator<B>,
}

impl<B: VcSet> Lanes<B> {
    fn new(cfg: &IqConfig, routers: u32, ports: u32, vcs: u32) -> Box<Self> {
        let sets = VcSets { free: B::low((ports * vcs) as usize), ..VcSets::default() };
        Box::new(Lanes {
            sets: vec![sets; routers as usize],
            pickers: [B::EMPTY; VIEW],
            grants: [B::EMPTY; VIEW],
            sw: SwitchAllocator::new(cfg.allocator, cfg.islip_iterations, ports, vcs),
        })
    }
}

/// [`Lanes`] of the width the routers need. (Boxed, so that the step moves it out and
/// back each cycle without copying the work space.)
#[derive(Clone, Debug)]
pub(super) enum Width {
    /// At most 64 input VCs per router.
    Narrow(Box<Lanes<u64>>),
    /// 65 to 128.
    Wide(Box<Lanes<u128>>),
    /// Moved out for a step.
    Taken,
}

impl Width {
    /// The lanes of `routers` routers of `ports` ports with `vcs` VCs each.
    pub(super) fn new(cfg: &IqConfig, routers: u32, ports: u32, vcs: u32) -> Self {
        if (ports * vcs) as usize <= u64::BITS as usize {
            Width::Narrow(Lanes::new(cfg, routers, ports, vcs))
        } else {
            Width::Wide(Lanes::new(cfg, routers, ports, vcs))
        }
    }

    /// Hold the sets in 128 bits even if 64 suffice (a test of the wide step: results
    /// must not change). The allocators' work space starts afresh, as it may between
    /// steps.
    pub(super) fn widen(&mut self, cfg: &IqConfig, ports: u32, vcs: u32) {
        if let Width::Narrow(l) = self {
            let w = |b: u64| b as u128;
            let sets = l
                .sets
                .iter()
                .map(|s| VcSets {
                    occ: w(s.occ),
                    va: w(s.va),
                    act: w(s.act),
                    free: w(s.free),
                    wait: w(s.wait),
                    cred: w(s.cred),
                    drop: w(s.drop),
                    stopped: s.stopped,
                })
                .collect();
            let mut wide = Lanes::<u128>::new(cfg, 0, ports, vcs);
            wide.sets = sets;
            *self = Width::Wide(wide);
        }
    }

    /// Are the sets 128 bits wide?
    pub(super) fn is_wide(&self) -> bool {
        matches!(self, Width::Wide(_))
    }

    /// Copy routers `[lo, hi)`'s sets from `other` (another partition's structure).
    pub(super) fn copy_span_from(&mut self, other: &Width, lo: usize, hi: usize) {
        match (self, other) {
            (Width::Narrow(a), Width::Narrow(b)) => a.sets[lo..hi].copy_from_slice(&b.sets[lo..hi]),
            (Width::Wide(a), Width::Wide(b)) => a.sets[lo..hi].copy_from_slice(&b.sets[lo..hi]),
            _ => unreachable!("partitions of one network have one width"),
        }
    }
}
