//! Queries of a mapping declared `added`: they wait for the migration that gives every existing
//! item its keys, unless they accept a partial answer.

impl<E, F> super::Query<E, F> {
    /// Marks the query as reading a mapping declared `added`. Generated code calls this.
    #[doc(hidden)]
    pub fn added_mapping(mut self) -> Self {
        self.plan.added = true;
        self
    }

    /// Reads a mapping declared `added` (`#[gsi(Index(..., added))]`) before its migration has
    /// cut over, knowing that the index holds only the items written since the mapping was
    /// declared and those the backfill has reached so far. Without it, such a query fails with
    /// [`Error::MappingIncomplete`](crate::Error::MappingIncomplete) and reads nothing. No effect
    /// on other queries.
    pub fn accept_partial(mut self) -> Self {
        self.plan.accept_partial = true;
        self
    }

    /// Whether the query reads a mapping declared `added` before its migration's cut-over
    /// ([`Query::accept_partial`](Self::accept_partial)).
    pub fn accepts_partial(&self) -> bool {
        self.plan.added && self.plan.accept_partial
    }
}
