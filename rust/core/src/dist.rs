//! Task-time distributions: the Pareto model of SCA/ESE (Xu & Lau §III) with the expectations
//! their algorithms need, and small numeric helpers.

/// Pareto task times: P(X > t) = (μ / t)^α for t ≥ μ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pareto {
    pub alpha: f64,
    pub mu: f64,
}

impl Pareto {
    pub fn new(alpha: f64, mu: f64) -> Pareto {
        Pareto { alpha, mu }
    }

    pub fn survival(&self, t: f64) -> f64 {
        if t < self.mu {
            1.0
        } else {
            (self.mu / t).powf(self.alpha)
        }
    }

    pub fn cdf(&self, t: f64) -> f64 {
        1.0 - self.survival(t)
    }

    /// E[X] = αμ / (α − 1); infinite for α ≤ 1.
    pub fn mean(&self) -> f64 {
        self.mean_min(1)
    }

    /// E[min of c independent copies] = μ·αc / (αc − 1) (§III-A).
    pub fn mean_min(&self, c: u32) -> f64 {
        let ac = self.alpha * c as f64;
        if ac <= 1.0 {
            f64::INFINITY
        } else {
            self.mu * ac / (ac - 1.0)
        }
    }

    /// E[max over m tasks of the min over c copies]: Eq. 14–15, ∫ (1 − (1 − S(t)^c)^m) dt,
    /// integrated numerically in log-time.
    pub fn mean_max_of_min(&self, m: u32, c: u32) -> f64 {
        let beta = self.alpha * c as f64;
        if beta <= 1.0 || m == 0 {
            return if m == 0 { 0.0 } else { f64::INFINITY };
        }
        let m = m as f64;
        // With t = μ·e^s the tail above μ is μ ∫ e^s (1 − (1 − e^{−βs})^m) ds; past
        // s ≈ ln(m)/β it decays like m·e^{(1−β)s}.
        let upper = m.ln() / beta + (m.ln() + 40.0) / (beta - 1.0);
        let tail = simpson(0.0, upper, 4000, |s| {
            let x = (-beta * s).exp();
            s.exp() * -(m * (-x).ln_1p()).exp_m1()
        });
        self.mu * (1.0 + tail)
    }

    /// E[min{y, X}] (Eq. 25 with t − x = y).
    pub fn mean_min_with(&self, y: f64) -> f64 {
        let (a, mu) = (self.alpha, self.mu);
        if y < mu {
            y
        } else {
            a * mu / (a - 1.0) - mu.powf(a) * y.powf(1.0 - a) / (a - 1.0)
        }
    }

    /// ∫ from lo to hi of E[min{y, X}] dy, in closed form.
    fn integral_mean_min_with(&self, mut lo: f64, hi: f64) -> f64 {
        let (a, mu) = (self.alpha, self.mu);
        if hi <= lo {
            return 0.0;
        }
        let mut total = 0.0;
        if lo < mu {
            let h = hi.min(mu);
            total += (h * h - lo * lo) / 2.0;
            lo = h;
        }
        if hi > lo {
            let power = if (a - 2.0).abs() < 1e-12 {
                (hi / lo).ln()
            } else {
                (hi.powf(2.0 - a) - lo.powf(2.0 - a)) / (2.0 - a)
            };
            total += a * mu / (a - 1.0) * (hi - lo) - mu.powf(a) / (a - 1.0) * power;
        }
        total
    }

    /// ESE §V-B, Eq. 22–25: expected resource a task consumes when it is backed up as soon as its
    /// remaining time exceeds σ·E[x], its ask time uniform over its run.
    pub fn ese_expected_resource(&self, sigma: f64) -> f64 {
        let (a, mu) = (self.alpha, self.mu);
        let threshold = sigma * self.mean();
        // Eq. 23: tasks shorter than σE[x] run alone.
        let short = if threshold <= mu { 0.0 } else { a * mu / (a - 1.0) * (1.0 - (mu / threshold).powf(a - 1.0)) };
        // Eq. 24 over t ≥ max(σE[x], μ), with t = t0·e^s.
        let t0 = threshold.max(mu);
        let density0 = a * mu.powf(a) * t0.powf(-a);
        let upper = 40.0 / (a - 1.0);
        let long = simpson(0.0, upper, 2_000, |s| {
            let t = t0 * s.exp();
            let backed_up = ((t - threshold).powi(2) / 2.0 + 2.0 * self.integral_mean_min_with(threshold, t)) / t;
            (backed_up + threshold) * density0 * (-a * s).exp()
        });
        short + long
    }

    /// σ* minimising E[R] (Eq. 22): a grid search refined by golden section.
    pub fn ese_optimal_sigma(&self) -> f64 {
        let cost = |s: f64| self.ese_expected_resource(s);
        let (mut best, mut best_cost) = (0.05, f64::INFINITY);
        let mut s = 0.05;
        while s <= 6.0 {
            let c = cost(s);
            if c < best_cost {
                best = s;
                best_cost = c;
            }
            s += 0.05;
        }
        golden_min(cost, (best - 0.05).max(0.01), best + 0.05, 1e-3)
    }

    /// Maximum-likelihood fit: μ̂ = min x, α̂ = n / Σ ln(x / μ̂). None for fewer than two distinct
    /// positive samples.
    pub fn fit(samples: &[f64]) -> Option<Pareto> {
        let mu = samples.iter().copied().filter(|x| *x > 0.0).fold(f64::INFINITY, f64::min);
        if !mu.is_finite() || samples.len() < 2 {
            return None;
        }
        let logs: f64 = samples.iter().filter(|x| **x > 0.0).map(|x| (x / mu).ln()).sum();
        if logs <= 0.0 {
            return None;
        }
        Some(Pareto { alpha: samples.len() as f64 / logs, mu })
    }
}

/// Composite Simpson's rule with `n` (made even) intervals.
pub fn simpson(a: f64, b: f64, n: usize, f: impl Fn(f64) -> f64) -> f64 {
    let n = n.max(2) + n % 2;
    let h = (b - a) / n as f64;
    let mut sum = f(a) + f(b);
    for i in 1..n {
        sum += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    sum * h / 3.0
}

/// The minimiser of a unimodal `f` on [lo, hi].
pub fn golden_min(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64, tol: f64) -> f64 {
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = hi - r * (hi - lo);
    let mut x2 = lo + r * (hi - lo);
    let (mut f1, mut f2) = (f(x1), f(x2));
    while hi - lo > tol {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - r * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + r * (hi - lo);
            f2 = f(x2);
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_match_closed_forms() {
        let p = Pareto::new(2.0, 3.0);
        assert_eq!(p.mean(), 6.0);
        assert!((p.mean_min(2) - 4.0).abs() < 1e-12, "μ·4/3");
        // One task, one copy: the max of one is the mean.
        assert!((p.mean_max_of_min(1, 1) - 6.0).abs() < 1e-3, "{}", p.mean_max_of_min(1, 1));
        // One task, c copies: E[min of c].
        assert!((p.mean_max_of_min(1, 3) - p.mean_min(3)).abs() < 1e-3);
        // More tasks wait for a later maximum; more copies cut it.
        assert!(p.mean_max_of_min(10, 1) > p.mean_max_of_min(5, 1));
        assert!(p.mean_max_of_min(10, 2) < p.mean_max_of_min(10, 1));
        assert_eq!(Pareto::new(1.0, 1.0).mean(), f64::INFINITY);
    }

    #[test]
    fn max_of_min_agrees_with_the_binomial_series_for_small_m() {
        // E[d] = μ + μ/β Σ_k C(m,k)(−1)^{k+1} / (k − 1/β), exact for small m.
        let p = Pareto::new(2.0, 1.0);
        for (m, c) in [(2u32, 1u32), (3, 2), (5, 1)] {
            let beta = p.alpha * c as f64;
            let mut series = 0.0;
            let mut binom = 1.0;
            for k in 1..=m {
                binom = binom * (m - k + 1) as f64 / k as f64;
                let sign = if k % 2 == 1 { 1.0 } else { -1.0 };
                series += sign * binom / (k as f64 - 1.0 / beta);
            }
            let exact = 1.0 + series / beta;
            assert!((p.mean_max_of_min(m, c) - exact).abs() < 1e-4, "m={m} c={c}");
        }
    }

    #[test]
    fn fit_recovers_the_parameters() {
        // Quantiles of Pareto(α = 2, μ = 5): x = μ (1 − u)^{−1/α}.
        let samples: Vec<f64> = (0..2000).map(|i| 5.0 * (1.0 - (i as f64 + 0.5) / 2000.0).powf(-0.5)).collect();
        let fit = Pareto::fit(&samples).unwrap();
        assert!((fit.mu - 5.0).abs() < 0.01, "{fit:?}");
        assert!((fit.alpha - 2.0).abs() < 0.05, "{fit:?}");
        assert_eq!(Pareto::fit(&[3.0]), None);
        assert_eq!(Pareto::fit(&[3.0, 3.0]), None);
    }
}
