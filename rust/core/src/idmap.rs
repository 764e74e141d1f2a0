//! Hash maps keyed by small ids (task and attempt ids): a multiply-rotate hash instead of the
//! standard library's SipHash, which guards against hostile keys the engine never sees and costs
//! several times more per lookup. Only maps whose iteration order nothing depends on use it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A map keyed by ids, hashed with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// `map.remove(key)` without hashing the key when the map is empty: every attempt's end asks
/// five such maps (kills asked for, copies and kills in the ledger, decisions waiting for the
/// task's end, counterfactual ends) and on most jobs most of them are empty; the hash and the
/// probe of an empty table were about a sixth of an end's instructions.
#[inline]
pub(crate) fn take<K: Hash + Eq, V>(map: &mut IdMap<K, V>, key: &K) -> Option<V> {
    if map.is_empty() {
        None
    } else {
        map.remove(key)
    }
}

/// Mixes each word written into the state by rotating, xoring and multiplying by an odd constant
/// (the fractional digits of the golden ratio); enough to spread task indices over the table.
#[derive(Default, Clone, Copy)]
pub struct IdHasher {
    state: u64,
}

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl IdHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.state = (self.state.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // The table takes its bucket from the low bits and its tag from the high ones: fold.
        self.state ^ (self.state >> 29)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(buf));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn write_isize(&mut self, i: isize) {
        self.add(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::IdMap;
    use crate::model::TaskId;

    #[test]
    fn ids_spread_and_round_trip() {
        let mut m: IdMap<crate::model::AttemptId, u32> = IdMap::default();
        for i in 0..10_000 {
            m.insert(TaskId::map(i).attempt(i % 3), i);
            m.insert(TaskId::reduce(i).attempt(0), i + 1);
        }
        assert_eq!(m.len(), 20_000);
        assert_eq!(m[&TaskId::map(7).attempt(1)], 7);
        assert_eq!(m[&TaskId::reduce(7).attempt(0)], 8);
        assert!(m.get(&TaskId::map(7).attempt(0)).is_none());
    }
}
