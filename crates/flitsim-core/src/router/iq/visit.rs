//! The routers one pass of the step visits.

/// The routers one pass of the step visits: a list of ids, or every id of a span.
#[derive(Clone, Copy)]
pub(super) enum Visit<'a> {
    List(&'a [u32]),
    Span(usize, usize),
}

impl Visit<'_> {
    #[inline(always)]
    pub(super) fn len(self) -> usize {
        match self {
            Visit::List(l) => l.len(),
            Visit::Span(lo, hi) => hi - lo,
        }
    }

    #[inline(always)]
    pub(super) fn at(self, i: usize) -> usize {
        match self {
            Visit::List(l) => l[i] as usize,
            Visit::Span(lo, _) => lo + i,
        }
    }
}
