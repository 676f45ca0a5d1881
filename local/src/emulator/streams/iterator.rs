//! The emulator's shard iterators: a served shard and the record its next page starts after.
//! They are read from the records the emulator keeps ([`super::cache`]), so they do not expire.

use base64::Engine;
use serde::{Deserialize, Serialize};

/// What marks an iterator as the emulator's.
pub(super) const ITERATOR_PREFIX: &str = "emulated:";

/// The emulator's iterator of one served shard.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ServedIterator {
    pub arn: String,
    pub shard: String,
    /// The sequence number the next page starts after; from the shard's first record if `None`.
    pub after: Option<String>,
}

impl ServedIterator {
    pub fn encode(&self) -> String {
        let text = serde_json::to_vec(self).unwrap_or_default();
        format!("{ITERATOR_PREFIX}{}", base64::engine::general_purpose::STANDARD.encode(text))
    }

    pub fn decode(text: &str) -> Option<Self> {
        let encoded = text.strip_prefix(ITERATOR_PREFIX)?;
        let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}
