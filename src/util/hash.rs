//! A fast, non-cryptographic hasher for the small integer keys of the
//! analysis (constraint rows, cells): SipHash, the standard default, showed
//! up in profiles. The inputs are not attacker-chosen in a way that matters:
//! a collision flood only slows one run down.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // A final mix, so that the low bits the table uses depend on every
        // input word.
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x
    }

    fn write(&mut self, bytes: &[u8]) {
        // Integer slices arrive here as bytes: take them eight at a time.
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(word));
        }
        for b in chunks.remainder() {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_hash_equal_and_neighbours_spread() {
        use std::hash::BuildHasher;
        let b = BuildHasherDefault::<FastHasher>::default();
        assert_eq!(b.hash_one(vec![1i64, -2, 3]), b.hash_one(vec![1i64, -2, 3]));
        // Neighbouring rows land in many different buckets of a small table.
        let buckets: FastSet<u64> = (0..256i64)
            .map(|k| b.hash_one(vec![k, 1, 0]) & 63)
            .collect();
        assert!(buckets.len() > 48, "{} buckets of 64", buckets.len());
        // A map works as a map.
        let mut m: FastMap<Vec<i64>, usize> = FastMap::default();
        for k in 0..1000i64 {
            m.insert(vec![k, -k], k as usize);
        }
        assert!((0..1000i64).all(|k| m[&vec![k, -k]] == k as usize));
    }
}
