//! Deserializing with the path of the value that did not decode, at no cost while everything
//! decodes: each map keeps its current key in one buffer, and an error writes its place down on
//! the way out (innermost first).

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::{Cell, RefCell};
use std::fmt;

/// Deserializes `T` from `deserializer`; on failure, the error and the path of the value that
/// failed (`.` for the whole value, else like `tracks[2].title`).
pub(crate) fn deserialize<'de, D, T>(deserializer: D) -> Result<T, (D::Error, String)>
where
    D: Deserializer<'de>,
    T: de::Deserialize<'de>,
{
    let trail = Trail::default();
    T::deserialize(Tracked { inner: deserializer, trail: &trail, depth: 0, capture: None })
        .map_err(|error| (error, trail.path()))
}

/// One step of a path.
enum Segment {
    Key(String),
    Index(usize),
}

/// The steps to the value that failed, written as the error leaves each map or sequence: each
/// with its depth, the deepest first.
#[derive(Default)]
struct Trail {
    segments: RefCell<Vec<(usize, Segment)>>,
}

impl Trail {
    /// Writes down the step at `depth` of the error on its way out. One error leaves depths
    /// `n, n - 1, ..., 1` in turn, so steps that do not continue that chain are from an error
    /// something caught; they are dropped.
    fn record(&self, depth: usize, segment: Segment) {
        let mut segments = self.segments.borrow_mut();
        if segments.last().is_some_and(|(last, _)| *last != depth + 1) {
            segments.clear();
        }
        segments.push((depth, segment));
    }

    /// Drops every step: an error starts here.
    fn clear(&self) {
        self.segments.borrow_mut().clear();
    }

    fn path(&self) -> String {
        let segments = self.segments.borrow();
        if segments.is_empty() {
            return ".".to_owned();
        }
        let mut path = String::new();
        for (_, segment) in segments.iter().rev() {
            match segment {
                Segment::Key(key) if path.is_empty() => path.push_str(key),
                Segment::Key(key) => {
                    path.push('.');
                    path.push_str(key);
                }
                Segment::Index(index) => path.push_str(&format!("[{index}]")),
            }
        }
        path
    }
}

/// A deserializer whose maps and sequences write the trail; with `capture`, one that copies the
/// key it reads into the map's buffer.
struct Tracked<'t, 'k, D> {
    inner: D,
    trail: &'t Trail,
    depth: usize,
    capture: Option<&'k mut String>,
}

/// The visitor of a [`Tracked`] deserializer.
struct Visiting<'t, 'k, V> {
    inner: V,
    trail: &'t Trail,
    depth: usize,
    capture: Option<&'k mut String>,
}

macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $type:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $type,)* visitor: V) -> Result<V::Value, D::Error> {
            let visitor =
                Visiting { inner: visitor, trail: self.trail, depth: self.depth, capture: self.capture };
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Tracked<'_, '_, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
        deserialize_i64(); deserialize_i128(); deserialize_u8(); deserialize_u16(); deserialize_u32();
        deserialize_u64(); deserialize_u128(); deserialize_f32(); deserialize_f64(); deserialize_char();
        deserialize_str(); deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit(); deserialize_seq(); deserialize_map();
        deserialize_identifier(); deserialize_ignored_any();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($type:ty);)*) => {$(
        fn $method<E: de::Error>(self, value: $type) -> Result<V::Value, E> {
            self.inner.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visiting<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(formatter)
    }

    forward_visit! {
        visit_bool(bool); visit_i8(i8); visit_i16(i16); visit_i32(i32); visit_i64(i64); visit_i128(i128);
        visit_u8(u8); visit_u16(u16); visit_u32(u32); visit_u64(u64); visit_u128(u128); visit_f32(f32);
        visit_f64(f64); visit_char(char); visit_bytes(&[u8]); visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<V::Value, E> {
        copy_key(self.capture, value);
        self.inner.visit_str(value)
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<V::Value, E> {
        copy_key(self.capture, value);
        self.inner.visit_borrowed_str(value)
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<V::Value, E> {
        copy_key(self.capture, &value);
        self.inner.visit_string(value)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Tracked {
            inner: deserializer,
            trail: self.trail,
            depth: self.depth,
            capture: None,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        let tracked = Tracked { inner: deserializer, trail: self.trail, depth: self.depth, capture: None };
        self.inner.visit_newtype_struct(tracked)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let failed_inside = Cell::new(false);
        let entries = Entries::new(seq, self.trail, self.depth, &failed_inside);
        self.inner.visit_seq(entries).map_err(|error| own(self.trail, &failed_inside, error))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let failed_inside = Cell::new(false);
        let entries = Entries::new(map, self.trail, self.depth, &failed_inside);
        self.inner.visit_map(entries).map_err(|error| own(self.trail, &failed_inside, error))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}

/// Copies a map's key into its buffer, when the key is being read.
fn copy_key(buffer: Option<&mut String>, key: &str) {
    if let Some(buffer) = buffer {
        buffer.clear();
        buffer.push_str(key);
    }
}

/// An error of a map or sequence itself (a missing field, too few elements) starts the trail.
fn own<E>(trail: &Trail, failed_inside: &Cell<bool>, error: E) -> E {
    if !failed_inside.get() {
        trail.clear();
    }
    error
}

/// The entries of a map or the elements of a sequence at `depth`: the key of the current entry
/// (copied into one buffer, reused) or the index of the next element, for the trail.
struct Entries<'t, 'f, A> {
    inner: A,
    trail: &'t Trail,
    depth: usize,
    next: usize,
    key: String,
    failed_inside: &'f Cell<bool>,
}

impl<'t, 'f, A> Entries<'t, 'f, A> {
    fn new(inner: A, trail: &'t Trail, depth: usize, failed_inside: &'f Cell<bool>) -> Self {
        Entries { inner, trail, depth, next: 0, key: String::new(), failed_inside }
    }

    fn failed<E>(&self, segment: Segment, error: E) -> E {
        self.failed_inside.set(true);
        self.trail.record(self.depth + 1, segment);
        error
    }
}

/// A seed that deserializes through a [`Tracked`] deserializer.
struct TrackedSeed<'t, 'k, S> {
    inner: S,
    trail: &'t Trail,
    depth: usize,
    capture: Option<&'k mut String>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for TrackedSeed<'_, '_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        let tracked =
            Tracked { inner: deserializer, trail: self.trail, depth: self.depth, capture: self.capture };
        self.inner.deserialize(tracked)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Entries<'_, '_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let seed = TrackedSeed {
            inner: seed,
            trail: self.trail,
            depth: self.depth + 1,
            capture: Some(&mut self.key),
        };
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let seed = TrackedSeed { inner: seed, trail: self.trail, depth: self.depth + 1, capture: None };
        match self.inner.next_value_seed(seed) {
            Ok(value) => Ok(value),
            Err(error) => Err(self.failed(Segment::Key(self.key.clone()), error)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Entries<'_, '_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, A::Error> {
        let index = self.next;
        self.next += 1;
        let seed = TrackedSeed { inner: seed, trail: self.trail, depth: self.depth + 1, capture: None };
        self.inner.next_element_seed(seed).map_err(|error| self.failed(Segment::Index(index), error))
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Track {
        title: String,
        seconds: u32,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Album {
        title: String,
        tracks: Vec<Track>,
        notes: Option<BTreeMap<String, Track>>,
        year: u16,
    }

    fn failure(json: &str) -> (String, String) {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        match deserialize::<_, Album>(&mut deserializer) {
            Ok(album) => panic!("decoded {album:?}"),
            Err((error, path)) => (path, error.to_string()),
        }
    }

    #[test]
    fn names_the_value_that_did_not_decode() {
        let tracks = r#"[{"title": "a", "seconds": 1}, {"title": "b", "seconds": -1}]"#;
        let (path, _) = failure(&format!(r#"{{"title": "x", "tracks": {tracks}, "year": 1}}"#));
        assert_eq!(path, "tracks[1].seconds");
        let (path, _) = failure(r#"{"title": "x", "tracks": [], "notes": {"k": {"title": 3}}, "year": 1}"#);
        assert_eq!(path, "notes.k.title");
        let (path, _) = failure(r#"{"title": "x", "tracks": [], "year": 70000}"#);
        assert_eq!(path, "year");
        let (path, error) = failure(r#"{"title": "x", "tracks": []}"#);
        assert_eq!(path, ".", "a missing field is the map's own error: {error}");
        let (path, error) = failure(r#"{"title": "x", "tracks": [{"title": "a"}], "year": 1}"#);
        assert_eq!(path, "tracks[0]", "{error}");
    }

    #[test]
    fn decodes_like_the_plain_deserializer() {
        let json = r#"{"title": "x", "tracks": [{"title": "a", "seconds": 1}], "notes": null, "year": 1}"#;
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let album: Album = deserialize(&mut deserializer).map_err(|(error, _)| error).unwrap();
        assert_eq!((album.tracks.len(), album.year), (1, 1));
    }
}
