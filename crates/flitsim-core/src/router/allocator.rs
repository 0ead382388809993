//! Switch allocators: match input ports to output ports for one cycle.
//!
//! Both take, per input port, the mask of output ports it has a ready flit for, and
//! return at most one output per input and one input per output. Pointers live with
//! the caller (one set per router) and are advanced here only for grants that are used.

use super::arbiter::{next_ptr, round_robin};

/// Output of an allocation: `out_of[input]` = granted output or `u8::MAX`.
pub const UNMATCHED: u8 = u8::MAX;

/// iSLIP (McKeown 1999): each unmatched output grants the requesting unmatched input
/// nearest its grant pointer; each input accepts the granting output nearest its accept
/// pointer. Pointers move one past the matched partner, in the first iteration only.
///
/// `req[i]` = outputs requested by input `i`; `ports` = number of ports.
pub fn islip(
    req: &[u64],
    ports: u32,
    iterations: u32,
    grant_ptr: &mut [u8],
    accept_ptr: &mut [u8],
    out_of: &mut [u8],
) {
    let n = ports as usize;
    out_of[..n].fill(UNMATCHED);
    // Transpose: requesters of each output.
    let mut by_out = [0u64; 64];
    let mut out_any = 0u64;
    for (i, &r) in req.iter().enumerate().take(n) {
        let mut m = r;
        while m != 0 {
            let o = m.trailing_zeros() as usize;
            m &= m - 1;
            by_out[o] |= 1 << i;
        }
        out_any |= r;
    }
    let mut in_free: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut out_free = out_any;
    let mut grants_to = [0u64; 64];
    for iter in 0..iterations {
        // Grant: each free output grants the free requester nearest its pointer.
        let mut granted_inputs = 0u64;
        let mut o_mask = out_free;
        while o_mask != 0 {
            let o = o_mask.trailing_zeros() as usize;
            o_mask &= o_mask - 1;
            let requesters = by_out[o] & in_free;
            if requesters != 0 {
                let i = round_robin(requesters, grant_ptr[o] as u32) as usize;
                if granted_inputs >> i & 1 == 0 {
                    grants_to[i] = 0;
                    granted_inputs |= 1 << i;
                }
                grants_to[i] |= 1 << o;
            }
        }
        if granted_inputs == 0 {
            break;
        }
        // Accept: each granted input accepts the granting output nearest its pointer.
        let mut i_mask = granted_inputs;
        while i_mask != 0 {
            let i = i_mask.trailing_zeros() as usize;
            i_mask &= i_mask - 1;
            let o = round_robin(grants_to[i], accept_ptr[i] as u32) as usize;
            out_of[i] = o as u8;
            in_free &= !(1 << i);
            out_free &= !(1 << o);
            if iter == 0 {
                grant_ptr[o] = next_ptr(i as u32, ports) as u8;
                accept_ptr[i] = next_ptr(o as u32, ports) as u8;
            }
        }
        if out_free == 0 || in_free == 0 {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn islip_one_iteration_hand_case() {
        // 3x3, all pointers 0. Inputs 0 and 1 request output 0; input 2 requests 0 and 1.
        let req = [0b001u64, 0b001, 0b011];
        let (mut g, mut a, mut out) = ([0u8; 3], [0u8; 3], [0u8; 3]);
        islip(&req, 3, 1, &mut g, &mut a, &mut out);
        // Output 0 grants input 0, output 1 grants input 2; both accepted.
        assert_eq!(out, [0, UNMATCHED, 1]);
        assert_eq!(g[0], 1);
        assert_eq!(g[1], 0); // 2 + 1 wraps to 0
        assert_eq!(a[0], 1);
        assert_eq!(a[2], 2);
        // Next cycle, same requests: output 0 now prefers input 1.
        islip(&req, 3, 1, &mut g, &mut a, &mut out);
        assert_eq!(out[1], 0);
    }

    #[test]
    fn islip_iterations_fill_the_match() {
        // Input 0 requests 0,1; input 1 requests 0. Pointers make output 0 and 1 both
        // grant input 0 in iteration 1; input 0 accepts output 0; iteration 2 cannot help
        // input 1 (output 0 taken). With input 1 requesting 1 too, iteration 2 matches it.
        let req = [0b11u64, 0b11];
        let (mut g, mut a, mut out) = ([0u8; 2], [0u8; 2], [0u8; 2]);
        islip(&req, 2, 1, &mut g.clone(), &mut a.clone(), &mut out);
        assert_eq!(out, [0, UNMATCHED]);
        islip(&req, 2, 2, &mut g, &mut a, &mut out);
        assert_eq!(out, [0, 1]);
    }
}
