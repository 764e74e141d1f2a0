//! A small seeded PRNG (xoshiro256** seeded through SplitMix64) and the distributions the
//! scenarios draw from. Self-written so that results depend on nothing but the seed.

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        Rng { s: [splitmix(&mut x), splitmix(&mut x), splitmix(&mut x), splitmix(&mut x)] }
    }

    /// An independent stream for a sub-purpose (node setup, workload, one job's attempts), so
    /// that adding draws in one place does not shift every other draw.
    pub fn fork(&mut self, salt: u64) -> Rng {
        Rng::new(self.next_u64() ^ salt.wrapping_mul(0xD6E8_FEB8_6659_FD93))
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f64()
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    pub fn exp(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.f64()).ln()
    }

    /// Standard normal (Box–Muller; one value per call keeps the stream simple).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.f64();
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    pub fn lognormal(&mut self, median: f64, sigma: f64) -> f64 {
        median * (sigma * self.normal()).exp()
    }
}

/// A Pareto distribution truncated to [lo, hi] with tail index `alpha` (inverse-CDF sampling).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundedPareto {
    pub lo: f64,
    pub hi: f64,
    pub alpha: f64,
}

impl BoundedPareto {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        let u = rng.f64();
        let (l, h, a) = (self.lo, self.hi, self.alpha);
        let ratio = (l / h).powf(a);
        (l / (1.0 - u * (1.0 - ratio)).powf(1.0 / a)).min(h)
    }

    /// P(X > x).
    pub fn survival(&self, x: f64) -> f64 {
        let (l, h, a) = (self.lo, self.hi, self.alpha);
        if x <= l {
            return 1.0;
        }
        if x >= h {
            return 0.0;
        }
        ((l / x).powf(a) - (l / h).powf(a)) / (1.0 - (l / h).powf(a))
    }

    pub fn mean(&self) -> f64 {
        let (l, h, a) = (self.lo, self.hi, self.alpha);
        if (a - 1.0).abs() < 1e-9 {
            return (h / l).ln() * l * h / (h - l);
        }
        let la = l.powf(a);
        la / (1.0 - (l / h).powf(a)) * a / (a - 1.0) * (l.powf(1.0 - a) - h.powf(1.0 - a))
    }

    /// The tail index that gives the wanted mean on [lo, hi] (bisection; the mean falls as α grows).
    pub fn with_mean(lo: f64, hi: f64, mean: f64) -> BoundedPareto {
        let (mut a, mut b) = (0.01, 20.0);
        for _ in 0..200 {
            let mid = 0.5 * (a + b);
            if (BoundedPareto { lo, hi, alpha: mid }).mean() > mean {
                a = mid;
            } else {
                b = mid;
            }
        }
        BoundedPareto { lo, hi, alpha: 0.5 * (a + b) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn bounded_pareto_hits_its_mean() {
        let d = BoundedPareto::with_mean(12.8, 22919.3, 1179.7);
        assert!((d.mean() - 1179.7).abs() < 0.1, "{d:?}");
        let mut rng = Rng::new(1);
        let n = 400_000;
        let m: f64 = (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64;
        assert!((m / 1179.7 - 1.0).abs() < 0.1, "sample mean {m}");
    }
}
