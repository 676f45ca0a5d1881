//! Where a range layout is cut: at the boundaries a mapping declares, which can be replaced
//! while the program runs, or at fixed ones.

use super::super::{Boundaries, Normalization, RangeShards};
use std::sync::Arc;

/// The boundaries of a [`Layout::Range`](super::Layout::Range).
#[derive(Debug, Clone)]
pub enum BoundarySource {
    /// The boundaries a mapping declares: its `range` file's, or those
    /// [`use_boundaries`](crate::use_boundaries) replaced them with, read when asked.
    Declared(fn() -> &'static RangeShards),
    /// These boundaries.
    Fixed(Arc<Boundaries>),
}

impl BoundarySource {
    /// The boundaries as they are now.
    pub fn current(&self) -> Arc<Boundaries> {
        match self {
            Self::Declared(declared) => declared().current(),
            Self::Fixed(boundaries) => Arc::clone(boundaries),
        }
    }

    /// The mapping's replaceable boundaries, when these are declared.
    pub fn declared(&self) -> Option<&'static RangeShards> {
        match self {
            Self::Declared(declared) => Some(declared()),
            Self::Fixed(_) => None,
        }
    }

    /// The shard of `text`, normalized by `normalization`, under the boundaries as they are now.
    pub(crate) fn shard(&self, text: &str, normalization: Normalization) -> u32 {
        match self {
            Self::Declared(declared) => declared().load().shard(text, normalization),
            Self::Fixed(boundaries) => boundaries.shard(text, normalization),
        }
    }
}

/// Equal when they cut at the same boundaries now.
impl PartialEq for BoundarySource {
    fn eq(&self, other: &Self) -> bool {
        self.current() == other.current()
    }
}

impl Eq for BoundarySource {}

impl From<Arc<Boundaries>> for BoundarySource {
    fn from(boundaries: Arc<Boundaries>) -> Self {
        Self::Fixed(boundaries)
    }
}
