//! A small seeded generator (SplitMix64): the corpus must be the same bytes on every machine and
//! every run, so nothing here reads the clock or the operating system's randomness.

/// SplitMix64: tiny, fast, and good enough to make text look varied.
#[derive(Debug, Clone)]
pub struct Rng(u64);

pub const LOWER_ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
pub const UPPER_ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub const HEX: &[u8] = b"0123456789abcdef";

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// A generator for one part of the corpus, independent of how much the others drew.
    pub fn derive(seed: u64, label: &str) -> Self {
        let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
        for b in label.bytes() {
            state = (state ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        Self(state)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1_000) < per_mille
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        // Every caller passes a non-empty constant table.
        &items[self.below(items.len() as u64) as usize]
    }

    /// `len` characters drawn from `alphabet` (ASCII).
    pub fn token(&mut self, len: usize, alphabet: &[u8]) -> String {
        (0..len).map(|_| char::from(*self.pick(alphabet))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_labels_differ() {
        let a: Vec<u64> = (0..5).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Rng::derive(7, "log");
        let mut y = Rng::derive(7, "log");
        let mut z = Rng::derive(7, "json");
        let xs: Vec<u64> = (0..10).map(|_| x.next_u64()).collect();
        let ys: Vec<u64> = (0..10).map(|_| y.next_u64()).collect();
        let zs: Vec<u64> = (0..10).map(|_| z.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = Rng::new(1);
        assert!((0..10_000).all(|_| rng.below(7) < 7));
        assert_eq!(rng.below(0), 0);
    }
}
