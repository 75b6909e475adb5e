//! A small deterministic random sequence (xorshift64*): new node ids and offline images must
//! come out the same for the same seed, on every machine, without a dependency.

/// The sequence's state; never 0 (the sequence would stay 0).
#[derive(Debug, Clone)]
pub struct Xorshift(u64);

impl Xorshift {
    /// A sequence starting from `seed`.
    pub fn new(seed: u64) -> Xorshift {
        Xorshift(seed | 1)
    }

    /// The next 64 bits; the high bits are the best distributed.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The next number in 0–1 (24 bits of precision).
    pub fn next_unit(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32) / (1u64 << 24) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_numbers() {
        let (mut a, mut b) = (Xorshift::new(42), Xorshift::new(42));
        let first: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert!((0..100).map(|_| a.next_unit()).all(|n| (0.0..1.0).contains(&n)));
    }
}
