//! How a verification runs: [`Verify`].

/// How a verification runs. `Verify::default()`: 8 segments per scan, DynamoDB's 1 MB pages, no
/// repair.
#[derive(Debug, Clone)]
pub struct Verify {
    pub(super) segments: u32,
    pub(super) page_size: Option<u32>,
    pub(super) repair: bool,
    pub(super) stop_by: Option<std::time::SystemTime>,
    pub(super) scan_index: bool,
    pub(super) concurrency: Option<usize>,
}

impl Default for Verify {
    fn default() -> Self {
        Self {
            segments: 8,
            page_size: None,
            repair: false,
            stop_by: None,
            scan_index: false,
            concurrency: None,
        }
    }
}

impl Verify {
    /// Scans in `segments` parallel segments each side (a resumed verification keeps the first
    /// run's). A side whose partitions are known without reading (as for
    /// [`Backfill::segments`](crate::reshard::Backfill::segments)) and whose index holds what it compares
    /// is read by Query instead, in about `segments` pieces.
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments.max(1);
        self
    }

    /// Reads at most `segments` segments at once (default: every segment of both sides).
    pub fn concurrency(mut self, segments: usize) -> Self {
        self.concurrency = Some(segments.max(1));
        self
    }

    /// Reads both sides with a parallel Scan even when their partitions are known, which also
    /// finds items that writers outside dynashard put under partition keys the layouts do not
    /// name (see [`Backfill::scan_index`](crate::reshard::Backfill::scan_index)).
    pub fn scan_index(mut self) -> Self {
        self.scan_index = true;
        self
    }

    /// Reads at most `items` per scan page; positions are recorded after every page.
    pub fn page_size(mut self, items: u32) -> Self {
        self.page_size = Some(items.max(1));
        self
    }

    /// Begins no page after `deadline` (say, a minute before an AWS Lambda invocation's own):
    /// the run records where each segment stopped and returns what it found so far, not
    /// [finished](super::Verification::finished), and records no result; the next run resumes it.
    pub fn stop_by(mut self, deadline: std::time::SystemTime) -> Self {
        self.stop_by = Some(deadline);
        self
    }

    /// Whether the [deadline](Verify::stop_by) has come.
    pub(super) fn past_deadline(&self) -> bool {
        self.stop_by.is_some_and(|deadline| std::time::SystemTime::now() >= deadline)
    }

    /// Repairs what it finds: places a missing or misplaced item where the new layout puts it,
    /// and takes an item the source does not hold out of the target, each on the condition that
    /// the item is still as it was read.
    pub fn repair(mut self) -> Self {
        self.repair = true;
        self
    }
}
