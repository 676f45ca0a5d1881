//! What a read learns of its items' sizes, in all and lane by lane.

use super::READ_UNIT_BYTES;
use std::collections::HashMap;

/// The mean size of the items a read has seen (DynamoDB's item size arithmetic), corrected by
/// what DynamoDB charged for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ItemSizes {
    bytes: u64,
    items: u64,
    /// The sum of the squares of the items' sizes, for their spread.
    squares: u128,
    /// Bytes DynamoDB read at least, by what it charged (`units - 1` whole units a request), for
    /// `charged_items` items: more than item sizes show when a projection returns less than it
    /// reads.
    charged_bytes: u64,
    charged_items: u64,
}

impl ItemSizes {
    /// Sizes starting from a mean learnt earlier (`None`: nothing known yet), which counts as one
    /// item seen: the first answers correct it, so a read of smaller items than the last one's
    /// asks for more of them.
    pub(crate) fn starting_at(mean: Option<u64>) -> Self {
        match mean {
            Some(mean) => {
                let mean = mean.max(1);
                ItemSizes { bytes: mean, items: 1, squares: u128::from(mean).pow(2), ..ItemSizes::default() }
            }
            None => ItemSizes::default(),
        }
    }

    /// Counts items of the sizes `sizes`, for which DynamoDB charged `units` read units (4 KB
    /// each) when known: `units` of them mean more than `units - 1` units' worth of bytes. The
    /// bound holds for all the items charged together, not for each request: one request of
    /// items a little larger than the rest does not set the size of all.
    pub(crate) fn record(&mut self, sizes: &[u64], units: Option<u64>) {
        let items = sizes.len();
        self.items = self.items.saturating_add(items as u64);
        for &size in sizes {
            self.bytes = self.bytes.saturating_add(size);
            self.squares = self.squares.saturating_add(u128::from(size).pow(2));
        }
        if let Some(units) = units.filter(|_| items > 0) {
            let least = units.saturating_sub(1).saturating_mul(READ_UNIT_BYTES);
            self.charged_bytes = self.charged_bytes.saturating_add(least);
            self.charged_items = self.charged_items.saturating_add(items as u64);
        }
    }

    /// Counts what `other` counted as well.
    fn add(&mut self, other: &ItemSizes) {
        self.bytes = self.bytes.saturating_add(other.bytes);
        self.items = self.items.saturating_add(other.items);
        self.squares = self.squares.saturating_add(other.squares);
        self.charged_bytes = self.charged_bytes.saturating_add(other.charged_bytes);
        self.charged_items = self.charged_items.saturating_add(other.charged_items);
    }

    /// The mean item size, if any item was seen.
    pub(crate) fn mean(&self) -> Option<u64> {
        let charged = match self.charged_bytes {
            0 => 0,
            bytes => bytes / self.charged_items.max(1) + 1,
        };
        (self.items > 0).then(|| (self.bytes / self.items).max(charged).max(1))
    }

    /// The mean item size and the items' spread about their own mean, if any item was seen.
    pub(crate) fn size(&self) -> Option<Size> {
        let mean = self.mean()?;
        // n² times the variance, `n Σx² - (Σx)²`, in whole numbers: a mean rounded first would
        // make a spread of tens of bytes out of items all alike.
        let items = u128::from(self.items);
        let scaled = items.saturating_mul(self.squares).saturating_sub(u128::from(self.bytes).pow(2));
        let spread = ((scaled as f64).sqrt() / items as f64) as u64;
        Some(Size { mean, spread })
    }
}

/// How large a read's items are: their mean size and standard deviation, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Size {
    /// The mean size.
    pub mean: u64,
    /// The standard deviation about the mean.
    pub spread: u64,
}

impl Size {
    /// Items all of `bytes`.
    pub(crate) const fn exactly(bytes: u64) -> Self {
        Size { mean: bytes, spread: 0 }
    }
}

/// Items a lane's mean is taken from before it counts towards [`LaneSizes::fitting`]: fewer say
/// little of the lane's items in general.
const MEASURED: u64 = 4;

/// Item sizes lane by lane. The partitions of one index often hold items of different sizes
/// (a key's items share the lengths of its attributes), and a request filled to its last unit
/// with items taken a little too small costs a unit more: so a lane is sized by its own items,
/// with the mean of all items counted as one of them, and a lane not read yet by the largest
/// mean of any lane measured.
#[derive(Clone, Debug, Default)]
pub(crate) struct LaneSizes {
    all: ItemSizes,
    lanes: HashMap<usize, ItemSizes>,
    largest: Option<u64>,
}

impl LaneSizes {
    /// Sizes starting from a mean learnt earlier, as [`ItemSizes::starting_at`].
    pub(crate) fn starting_at(mean: Option<u64>) -> Self {
        LaneSizes { all: ItemSizes::starting_at(mean), ..LaneSizes::default() }
    }

    /// Counts what one answer of lane `lane` brought, as [`ItemSizes::record`].
    pub(crate) fn record(&mut self, lane: usize, sizes: &[u64], units: Option<u64>) {
        self.all.record(sizes, units);
        let own = self.lanes.entry(lane).or_default();
        own.record(sizes, units);
        if own.items >= MEASURED {
            self.largest = self.largest.max(own.mean());
        }
    }

    /// The size a request to `lane` is filled with, if any item was seen: a lane read before by
    /// its own items (the mean of all counted as one of them); one not read yet by
    /// [`LaneSizes::fitting`], spread as all items read are (a mean taken from one lane's few
    /// items says little of another's).
    pub(crate) fn of(&self, lane: usize) -> Option<Size> {
        match self.lanes.get(&lane) {
            Some(own) => {
                let mut sizes = ItemSizes::starting_at(self.all.mean());
                sizes.add(own);
                sizes.size()
            }
            None => {
                let spread = self.all.size().map_or(0, |all| all.spread);
                self.fitting().map(|mean| Size { mean, spread })
            }
        }
    }

    /// The mean size of everything read, if anything was.
    pub(crate) fn mean(&self) -> Option<u64> {
        self.all.mean()
    }

    /// The size a lane not read yet is taken to have: the largest mean of a lane measured, else
    /// the mean of all items.
    pub(crate) fn fitting(&self) -> Option<u64> {
        self.largest.or_else(|| self.all.mean())
    }
}
