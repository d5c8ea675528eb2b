//! The packed form of a core call's number arrays, for the calls that cross extension messaging
//! (docs/protocol/core.md, "The core in the service worker").
//!
//! Where Chromium forbids WASM in a content script (a page CSP without `'wasm-unsafe-eval'`),
//! the content script sends its facts to the extension's service worker, which runs the WASM
//! core there. Extension messaging carries JSON, so typed arrays would travel as objects with one
//! key per number; the content script (`extension/content/tree/packed-facts.js`) writes them
//! instead as one byte string of LEB128 varints, about 1.3 bytes a number on a real page, and
//! this module reads it back. The bytes come from a content script that a hostile page may have
//! fed anything, so reading them is total: every count is checked against the bytes that are
//! left before anything is allocated, and any fault is an error, never a panic.
//!
//! The layout (version [`PACKED_VERSION`]), a sequence of lists, each a varint count followed by
//! its items:
//!
//! - a version byte, [`PACKED_VERSION`];
//! - the facts of [`crate::facts`] but the joined strings (which travel as a string):
//!   `string_lengths`, `nodes`, `attributes`, `rects`, `slots`, `viewport`. Number lists are
//!   varints; `rects` and `viewport` are little-endian `f64`s. Numbers that grow with the page
//!   are written as small ones: in `nodes`, the second number of each node (`parent + 1`, 0 for
//!   none) as the distance back to the parent (`index - parent`, 0 for none), since parents come
//!   before their children, and a text node's third number (its string) as a zigzag difference
//!   from the previous text node's; in `attributes`, each value string as a zigzag difference
//!   from the previous attribute's. The gatherer adds strings in tree order, so these steps are a
//!   few strings long. A zigzag difference ([`zigzag_difference`]) wraps at 2^32, so that any
//!   number can follow any other;
//! - then the call's own lists, read by the caller with [`PackedReader`] in its order (plain,
//!   difference and pair-difference lists: `known_refs` as pairs, `identities` as differences),
//!   and [`PackedReader::finish`] refuses trailing bytes.

use crate::facts::{OwnedFacts, KIND_MASK, KIND_TEXT, NODE_STRIDE};
use std::fmt;

/// Bumped whenever the layout changes; the content script writes the same number first.
pub const PACKED_VERSION: u8 = 2;

/// `value` as its difference from `previous`, wrapped at 2^32 and zigzagged (0, -1, 1, -2, ... as
/// 0, 1, 2, 3, ...), so that a small step either way is a small varint
/// (`extension/shared/varint.js`, `zigzagDifference`).
pub fn zigzag_difference(value: u32, previous: u32) -> u32 {
    let difference = value.wrapping_sub(previous) as i32;
    ((difference << 1) ^ (difference >> 31)) as u32
}

/// The number [`zigzag_difference`] wrote as `zigzag` after `previous`.
pub fn undo_zigzag_difference(zigzag: u32, previous: u32) -> u32 {
    let difference = ((zigzag >> 1) as i32) ^ -((zigzag & 1) as i32);
    previous.wrapping_add(difference as u32)
}

/// Why packed bytes could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedError(String);

impl fmt::Display for PackedError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "malformed packed facts: {}", self.0)
    }
}

impl std::error::Error for PackedError {}

pub(crate) fn malformed(what: impl Into<String>) -> PackedError {
    PackedError(what.into())
}

/// A cursor over packed bytes.
pub struct PackedReader<'bytes> {
    bytes: &'bytes [u8],
    position: usize,
}

impl<'bytes> PackedReader<'bytes> {
    /// Starts reading `bytes`, whose first byte must be [`PACKED_VERSION`].
    pub fn new(bytes: &'bytes [u8]) -> Result<Self, PackedError> {
        match bytes.first() {
            Some(&PACKED_VERSION) => Ok(PackedReader { bytes, position: 1 }),
            Some(other) => Err(malformed(format!(
                "version {other}, this core reads {PACKED_VERSION}"
            ))),
            None => Err(malformed("no bytes")),
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    /// One LEB128 varint of at most 32 bits (five bytes; the fifth may carry 4 bits only).
    fn varint(&mut self) -> Result<u32, PackedError> {
        let mut value: u32 = 0;
        for shift in (0..35).step_by(7) {
            let Some(&byte) = self.bytes.get(self.position) else {
                return Err(malformed("a number runs past the end"));
            };
            self.position += 1;
            let bits = u32::from(byte & 0x7f);
            if shift == 28 && bits > 0x0f {
                return Err(malformed("a number larger than 32 bits"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(malformed("a number longer than five bytes"))
    }

    /// A count of items of at least `item_size` bytes each, checked against the bytes left so
    /// that no count can make the reader allocate more than the input's size.
    fn count(&mut self, item_size: usize) -> Result<usize, PackedError> {
        let count = self.varint()? as usize;
        if count.saturating_mul(item_size) > self.remaining() {
            return Err(malformed("a list longer than the bytes left"));
        }
        Ok(count)
    }

    /// A list of varints.
    pub fn u32_list(&mut self) -> Result<Vec<u32>, PackedError> {
        let count = self.count(1)?;
        let mut list = Vec::with_capacity(count);
        for _ in 0..count {
            list.push(self.varint()?);
        }
        Ok(list)
    }

    /// A list of zigzag differences, each from the number before (the first from 0).
    pub fn difference_list(&mut self) -> Result<Vec<u32>, PackedError> {
        let mut list = self.u32_list()?;
        let mut previous = 0;
        for number in &mut list {
            *number = undo_zigzag_difference(*number, previous);
            previous = *number;
        }
        Ok(list)
    }

    /// A list of pairs whose two columns are each zigzag differences from the same column's
    /// number in the pair before (the first pair's from 0).
    pub fn pair_difference_list(&mut self) -> Result<Vec<u32>, PackedError> {
        let mut list = self.u32_list()?;
        let mut previous = [0, 0];
        for (index, number) in list.iter_mut().enumerate() {
            *number = undo_zigzag_difference(*number, previous[index & 1]);
            previous[index & 1] = *number;
        }
        Ok(list)
    }

    /// A list of varints, or none: a presence byte (0 or 1) first.
    pub fn optional_u32_list(&mut self) -> Result<Option<Vec<u32>>, PackedError> {
        match self.bytes.get(self.position) {
            Some(0) => {
                self.position += 1;
                Ok(None)
            }
            Some(1) => {
                self.position += 1;
                self.u32_list().map(Some)
            }
            Some(_) => Err(malformed("a presence byte other than 0 or 1")),
            None => Err(malformed("a list runs past the end")),
        }
    }

    /// A list of little-endian `f64`s.
    pub fn f64_list(&mut self) -> Result<Vec<f64>, PackedError> {
        let count = self.count(8)?;
        let start = self.position;
        self.position += count * 8;
        Ok(self.bytes[start..self.position]
            .chunks_exact(8)
            .map(|chunk| {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                f64::from_le_bytes(word)
            })
            .collect())
    }

    /// The facts' number lists, the parents turned back from distances into `parent + 1` and the
    /// strings from differences into indices. The strings travel beside the packed bytes, so
    /// `strings` stays empty: lend the facts with [`OwnedFacts::with_strings`].
    pub fn facts(&mut self) -> Result<OwnedFacts, PackedError> {
        let string_lengths = self.u32_list()?;
        let mut nodes = self.u32_list()?;
        let mut previous_text = 0;
        for (index, record) in nodes.chunks_exact_mut(NODE_STRIDE).enumerate() {
            let distance = record[1] as usize;
            // A distance past the first node names no parent: it is written as one that points
            // forward (index + 1), which the facts decoder refuses with its own message.
            record[1] = match distance {
                0 => 0,
                distance if distance <= index => (index - distance + 1) as u32,
                _ => u32::try_from(index + 1).unwrap_or(u32::MAX),
            };
            if record[0] & KIND_MASK == KIND_TEXT {
                record[2] = undo_zigzag_difference(record[2], previous_text);
                previous_text = record[2];
            }
        }
        let mut attributes = self.u32_list()?;
        let mut previous_value = 0;
        for pair in attributes.chunks_exact_mut(2) {
            pair[1] = undo_zigzag_difference(pair[1], previous_value);
            previous_value = pair[1];
        }
        Ok(OwnedFacts {
            strings: String::new(),
            string_lengths,
            nodes,
            attributes,
            rects: self.f64_list()?,
            slots: self.u32_list()?,
            viewport: self.f64_list()?,
        })
    }

    /// Ends the reading: bytes left over mean the writer and this reader disagree.
    pub fn finish(self) -> Result<(), PackedError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(malformed(format!(
                "{} bytes after the last list",
                self.remaining()
            )))
        }
    }
}

/// The writer of the same layout, for the native tests and the fuzz target (the extension's
/// writer is `extension/content/tree/packed-facts.js`).
#[derive(Default)]
pub struct PackedWriter {
    bytes: Vec<u8>,
}

impl PackedWriter {
    pub fn new() -> Self {
        PackedWriter {
            bytes: vec![PACKED_VERSION],
        }
    }

    fn varint(&mut self, mut value: u32) {
        while value >= 0x80 {
            self.bytes.push((value as u8 & 0x7f) | 0x80);
            value >>= 7;
        }
        self.bytes.push(value as u8);
    }

    pub fn u32_list(&mut self, list: &[u32]) {
        self.varint(list.len() as u32);
        for &value in list {
            self.varint(value);
        }
    }

    /// A list written as zigzag differences ([`PackedReader::difference_list`]).
    pub fn difference_list(&mut self, list: &[u32]) {
        self.varint(list.len() as u32);
        let mut previous = 0;
        for &value in list {
            self.varint(zigzag_difference(value, previous));
            previous = value;
        }
    }

    /// A list of pairs written as column differences ([`PackedReader::pair_difference_list`]).
    pub fn pair_difference_list(&mut self, list: &[u32]) {
        self.varint(list.len() as u32);
        let mut previous = [0, 0];
        for (index, &value) in list.iter().enumerate() {
            self.varint(zigzag_difference(value, previous[index & 1]));
            previous[index & 1] = value;
        }
    }

    pub fn optional_u32_list(&mut self, list: Option<&[u32]>) {
        match list {
            None => self.bytes.push(0),
            Some(list) => {
                self.bytes.push(1);
                self.u32_list(list);
            }
        }
    }

    pub fn f64_list(&mut self, list: &[f64]) {
        self.varint(list.len() as u32);
        for value in list {
            self.bytes.extend_from_slice(&value.to_le_bytes());
        }
    }

    /// The facts' lists, parents as distances and strings as differences (see the module's
    /// documentation).
    pub fn facts(&mut self, facts: &crate::facts::Facts<'_>) {
        self.u32_list(facts.string_lengths);
        let mut nodes = facts.nodes.to_vec();
        let mut previous_text = 0;
        for (index, record) in nodes.chunks_exact_mut(NODE_STRIDE).enumerate() {
            // A parent at or after its node (never written by the gatherer) goes as a distance
            // past the first node, which reads back as a forward parent the decoder refuses.
            let index = index as u32;
            record[1] = match record[1] {
                0 => 0,
                parent_plus_one if parent_plus_one <= index => index + 1 - parent_plus_one,
                _ => index.saturating_add(1),
            };
            if record[0] & KIND_MASK == KIND_TEXT {
                let string = record[2];
                record[2] = zigzag_difference(string, previous_text);
                previous_text = string;
            }
        }
        self.u32_list(&nodes);
        let mut attributes = facts.attributes.to_vec();
        let mut previous_value = 0;
        for pair in attributes.chunks_exact_mut(2) {
            let value = pair[1];
            pair[1] = zigzag_difference(value, previous_value);
            previous_value = value;
        }
        self.u32_list(&attributes);
        self.f64_list(facts.rects);
        self.u32_list(facts.slots);
        self.f64_list(facts.viewport);
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Facts;

    fn sample() -> OwnedFacts {
        OwnedFacts {
            string_lengths: vec![4, 0, 300],
            nodes: vec![
                0,
                0,
                0,
                0,
                0,
                1,
                1,
                1,
                0,
                0,
                2,
                2,
                0,
                0,
                0,
                1 << 19,
                2,
                2,
                1,
                u32::MAX,
            ],
            attributes: vec![1, 2],
            rects: vec![0.5, -1.0, f64::INFINITY, 1e300],
            slots: vec![],
            viewport: vec![1280.0, 720.0],
            ..OwnedFacts::default()
        }
    }

    #[test]
    fn a_written_call_reads_back_the_same_numbers() {
        let sample = sample();
        let facts = sample.with_strings("");
        let mut writer = PackedWriter::new();
        writer.facts(&facts);
        writer.u32_list(&[7, 128, 16_384]);
        writer.optional_u32_list(None);
        writer.optional_u32_list(Some(&[0, u32::MAX]));
        let bytes = writer.into_bytes();

        let mut reader = PackedReader::new(&bytes).expect("readable");
        let read = reader.facts().expect("readable");
        assert_eq!(read, sample);
        assert_eq!(reader.u32_list().expect("readable"), vec![7, 128, 16_384]);
        assert_eq!(reader.optional_u32_list().expect("readable"), None);
        assert_eq!(
            reader.optional_u32_list().expect("readable"),
            Some(vec![0, u32::MAX])
        );
        reader.finish().expect("readable");
    }

    #[test]
    fn parents_travel_as_distances() {
        // Node 3's parent is node 1 (written 2 = parent + 1): its distance back is 2.
        let nodes = vec![0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 2, 0, 0, 0, 1, 2, 0, 0, 0];
        let facts = Facts {
            strings: "",
            string_lengths: &[],
            nodes: &nodes,
            attributes: &[],
            rects: &[],
            slots: &[],
            viewport: &[],
        };
        let mut writer = PackedWriter::new();
        writer.facts(&facts);
        let bytes = writer.into_bytes();
        // Version, no string lengths, 20 node numbers; node 3's second number is byte 18.
        assert_eq!(bytes[2], 20);
        assert_eq!(&bytes[3 + 15..3 + 17], &[1, 2]);
        let mut reader = PackedReader::new(&bytes).expect("readable");
        assert_eq!(reader.facts().expect("readable").nodes, nodes);
    }

    #[test]
    fn strings_and_identities_travel_as_differences() {
        // tests/browser/unit/packed-facts.test.mjs writes the same facts into the same bytes.
        let nodes = [
            0, 0, 0, 0, 0, 1, 1, 5, 1, 0, 2, 2, 300, 0, 0, 2, 2, 302, 0, 0,
        ];
        let facts = Facts {
            strings: "",
            string_lengths: &[],
            nodes: &nodes,
            attributes: &[6, 301],
            rects: &[],
            slots: &[],
            viewport: &[],
        };
        let mut writer = PackedWriter::new();
        writer.facts(&facts);
        writer.difference_list(&[5, 6, 4, u32::MAX]);
        writer.pair_difference_list(&[3, 100, 7, 101]);
        let bytes = writer.into_bytes();
        assert_eq!(
            bytes,
            [
                PACKED_VERSION,
                0,
                20,
                0,
                0,
                0,
                0,
                0,
                1,
                1,
                5,
                1,
                0,
                2,
                1,
                0xd8,
                0x04,
                0,
                0,
                2,
                2,
                4,
                0,
                0,
                2,
                6,
                0xda,
                0x04,
                0,
                0,
                0,
                4,
                10,
                2,
                3,
                9,
                4,
                6,
                0xc8,
                0x01,
                8,
                2,
            ]
        );
        let mut reader = PackedReader::new(&bytes).expect("version");
        let read = reader.facts().expect("facts");
        assert_eq!(read.nodes, nodes);
        assert_eq!(read.attributes, [6, 301]);
        assert_eq!(
            reader.difference_list().expect("identities"),
            [5, 6, 4, u32::MAX]
        );
        assert_eq!(
            reader.pair_difference_list().expect("known refs"),
            [3, 100, 7, 101]
        );
        reader.finish().expect("nothing after");
    }

    #[test]
    fn every_number_follows_every_other_as_a_difference() {
        for previous in [0, 1, 2, 0x7fff_ffff, 0x8000_0000, u32::MAX] {
            for value in [0, 1, 2, 0x7fff_ffff, 0x8000_0000, u32::MAX] {
                let zigzag = zigzag_difference(value, previous);
                assert_eq!(undo_zigzag_difference(zigzag, previous), value);
            }
        }
        assert_eq!(zigzag_difference(5, 5), 0);
        assert_eq!(zigzag_difference(4, 5), 1);
        assert_eq!(zigzag_difference(6, 5), 2);
    }

    #[test]
    fn a_count_larger_than_the_bytes_left_is_refused_before_any_allocation() {
        // Version, then a count of u32::MAX string lengths with no bytes after it.
        let bytes = [PACKED_VERSION, 0xff, 0xff, 0xff, 0xff, 0x0f];
        let error = PackedReader::new(&bytes)
            .expect("readable")
            .facts()
            .expect_err("an error");
        assert!(
            error.to_string().contains("longer than the bytes left"),
            "{error}"
        );
    }

    #[test]
    fn damaged_bytes_are_errors() {
        assert!(PackedReader::new(&[]).is_err());
        assert!(PackedReader::new(&[PACKED_VERSION + 1]).is_err());
        // A number of six bytes, and one whose fifth byte carries more than 32 bits.
        let six = [PACKED_VERSION, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
        assert!(PackedReader::new(&six)
            .expect("readable")
            .u32_list()
            .is_err());
        let wide = [PACKED_VERSION, 1, 0x80, 0x80, 0x80, 0x80, 0x10];
        assert!(PackedReader::new(&wide)
            .expect("readable")
            .u32_list()
            .is_err());
        // Trailing bytes.
        let trailing = [PACKED_VERSION, 0, 9];
        let mut reader = PackedReader::new(&trailing).expect("readable");
        reader.u32_list().expect("readable");
        assert!(reader.finish().is_err());
        // A presence byte that is neither 0 nor 1.
        assert!(PackedReader::new(&[PACKED_VERSION, 2])
            .expect("readable")
            .optional_u32_list()
            .is_err());
    }

    #[test]
    fn a_parent_distance_past_the_first_node_is_left_for_the_facts_decoder_to_refuse() {
        // One node whose parent distance (5) points before node 0.
        let bytes = [PACKED_VERSION, 0, 5, 0, 5, 0, 0, 0, 0, 0, 0, 0];
        let facts = PackedReader::new(&bytes)
            .expect("readable")
            .facts()
            .expect("readable");
        assert_eq!(
            facts.nodes[1], 1,
            "a forward parent, which the decoder refuses"
        );
    }
}
