//! Small statistics helpers shared by the policies.

/// The `q`-quantile (0 ≤ q ≤ 1) of `values`, interpolating linearly between order statistics.
/// Returns `None` for an empty slice. NaNs must be filtered out by the caller.
pub fn percentile(values: &mut [f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let pos = q.clamp(0.0, 1.0) * (values.len() - 1) as f64;
    let lo = pos.floor() as usize;
    // Selection, not a full sort: the two order statistics around `pos` are all that is needed.
    let (_, &mut at_lo, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    let at_hi = if pos > lo as f64 { above.iter().copied().fold(f64::INFINITY, f64::min) } else { at_lo };
    Some(at_lo + (at_hi - at_lo) * (pos - lo as f64))
}

/// The median of a sorted list of `n` (n > 0) whose k-th value is `at(k)`, interpolated as
/// [`percentile`] and [`percentile_of_keys`] interpolate it: only the one or two values about
/// the median are read.
pub(crate) fn median_of_sorted(n: usize, at: impl Fn(usize) -> f64) -> f64 {
    let pos = 0.5 * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let at_lo = at(lo);
    let at_hi = if pos > lo as f64 { at(lo + 1) } else { at_lo };
    at_lo + (at_hi - at_lo) * (pos - lo as f64)
}

/// [`percentile`] of the floats whose [`order_key`]s are `keys` (reordering them): the same
/// number, found by radix selection (`select_key`; among many keys, within a sample's bracket
/// first). LATE's SlowTaskThreshold is a percentile of 100K rates and more, where radix
/// selection alone took less than half the time of selecting by comparison (0.14 against
/// 0.31 ms): each pass over the keys counts or moves them by one digit, with no comparison to
/// mispredict.
pub fn percentile_of_keys(keys: &mut [u64], q: f64) -> Option<f64> {
    let (lo, pos) = rank_below(keys.len(), q)?;
    let (at_lo, next) = select_key(keys, lo);
    Some(interpolated(pos, lo, at_lo, next))
}

/// [`percentile_of_keys`] of the keys of `a` and `b` together (reordering each within itself)
/// and of the rates of `rates` that [`is_pooled`] admits, `pooled` of them: the same number as
/// [`percentile`] of those numbers. LATE's pool: its notes of its running tasks' rates
/// (`policy::late`), read where they are rather than copied (0.8 MB of fresh memory at 100K
/// running tasks), the few other running attempts' keys, and the succeeded ones' keys it keeps.
/// Where the sample's bracket misses, or there are few keys, the admitted rates are added to `a`
/// and the keys selected by their digits.
pub(crate) fn percentile_of_rates_and_keys(
    rates: &[f64],
    pooled: usize,
    a: &mut Vec<u64>,
    b: &mut [u64],
    q: f64,
) -> Option<f64> {
    debug_assert_eq!(pooled, rates.iter().filter(|&&x| is_pooled(x)).count(), "the count of admitted rates");
    let n = pooled + a.len() + b.len();
    let (lo, pos) = rank_below(n, q)?;
    let bracketed = if n >= SAMPLED_FROM { select_in_bracket(rates, pooled, a, b, lo, SAMPLE_MARGIN) } else { None };
    let (at_lo, next) = bracketed.unwrap_or_else(|| {
        a.extend(rates.iter().map(|&x| order_key(x)).filter(|&key| is_pooled_key(key)));
        select_by_digits(a, b, lo)
    });
    Some(interpolated(pos, lo, at_lo, next))
}

/// Whether [`percentile_of_rates_and_keys`] counts a rate of its `rates`: a number at or above
/// zero, infinity included, zero of negative sign and NaN not. The caller marks a rate it
/// leaves out so (LATE's notes: NaN for a task too young, -1 for one read from its record,
/// -0 for an attempt yet to show progress).
pub(crate) fn is_pooled(x: f64) -> bool {
    is_pooled_key(order_key(x))
}

/// [`is_pooled`] of the number whose [`order_key`] is `key`: keys from +0's to +∞'s.
fn is_pooled_key(key: u64) -> bool {
    key.wrapping_sub(ZERO_KEY) <= INFINITY_KEY - ZERO_KEY
}

/// The [`order_key`]s of +0 and of +∞: the keys of admitted rates lie from one to the other,
/// those of negative numbers (-0 among them) below, those of positive NaNs above.
const ZERO_KEY: u64 = 1 << 63;
const INFINITY_KEY: u64 = 0x7ff0_0000_0000_0000 | 1 << 63;

/// For the `q`-quantile of `n` numbers: the rank of the lower order statistic and the place
/// between it and the next that the quantile falls at. `None` for no numbers.
fn rank_below(n: usize, q: f64) -> Option<(usize, f64)> {
    if n == 0 {
        return None;
    }
    let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
    Some((pos.floor() as usize, pos))
}

/// The quantile at `pos` between the keys of rank `lo` and the one after it, `next`.
fn interpolated(pos: f64, lo: usize, at_lo: u64, next: u64) -> f64 {
    let at_lo = from_order_key(at_lo);
    // The order statistic after `lo`: in total order its key is the smallest of those above, as
    // `percentile`'s minimum of the floats above is (they can differ only in a zero's sign, which
    // the interpolation below does not keep: x − x and ±0 − x are the same float).
    let at_hi = if pos > lo as f64 { from_order_key(next) } else { at_lo };
    at_lo + (at_hi - at_lo) * (pos - lo as f64)
}

/// Whether `x` (above zero) is certainly not below [`percentile_of_rates_and_keys`] of the same
/// pool, told by counting it against `x` rather than by selecting: false when it cannot be told
/// so, and for no keys. LATE asks it of a kind's lowest rate when nothing is late (every healthy
/// scan), where the selection was a sixth of the scan.
///
/// With `lo` the lower order statistic's rank, the percentile interpolates between the values
/// of ranks `lo` and `lo + 1` (or is the one of rank `lo`), and is computed within a relative
/// 5·2⁻⁵³ of the higher of the two or below it (three roundings of non-negative terms). When at
/// least `lo + 2` keys (all of them, if fewer) are of values at or below `y = x·(1 − 10⁻⁹)`, that
/// value is at most `y` and the percentile below `x`.
pub(crate) fn clearly_at_least_percentile(rates: &[f64], pooled: usize, a: &[u64], b: &[u64], q: f64, x: f64) -> bool {
    let n = pooled + a.len() + b.len();
    if n == 0 || x.is_nan() || x <= 0.0 {
        return false;
    }
    let lo = (q.clamp(0.0, 1.0) * (n - 1) as f64).floor() as usize;
    let bar = order_key(x * (1.0 - 1e-9));
    // Loops, not a chained iterator: each is a plain count the compiler unrolls. A rate of
    // `rates` counts when admitted ([`is_pooled`]) and at or below the bar: compared by its bits,
    // which order the numbers at or above +0 as their keys do, below every NaN's and negative
    // number's (the bar, a positive number's key, is its bits plus `ZERO_KEY`).
    let count = |keys: &[u64]| keys.iter().map(|&k| (k <= bar) as usize).sum::<usize>();
    let bar_bits = bar - ZERO_KEY;
    let admitted = rates.iter().map(|r| (r.to_bits() <= bar_bits) as usize).sum::<usize>();
    let at_or_below = admitted + count(a) + count(b);
    at_or_below >= (lo + 2).min(n)
}

/// The bits of `x` as an unsigned number that orders as `f64::total_cmp` orders the floats.
pub(crate) fn order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    // Negative numbers order backwards: flip all their bits; positive ones sort above them.
    if bits >> 63 == 1 { !bits } else { bits | 1 << 63 }
}

/// The float whose [`order_key`] is `key`.
pub(crate) fn from_order_key(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 { key & !(1 << 63) } else { !key })
}

/// Bits of the key one counting pass of [`select_by_digits`] counts by, at most: its 2,048 counters
/// stay in the first-level cache.
const DIGIT_BITS: u32 = 11;

/// The key of rank `k` (from 0, smallest first) of `keys`, and the smallest key ranked after it
/// (`u64::MAX` when there is none): from a sample first where there are many keys
/// ([`select_in_bracket`]), by their digits otherwise or where the sample missed.
fn select_key(keys: &mut [u64], k: usize) -> (u64, u64) {
    if keys.len() >= SAMPLED_FROM {
        if let Some(found) = select_in_bracket(&[], 0, keys, &[], k, SAMPLE_MARGIN) {
            return found;
        }
    }
    select_by_digits(keys, &mut [], k)
}

/// Keys from which [`select_key`] narrows its search by a sample first.
const SAMPLED_FROM: usize = 16_384;

/// The keys in that sample.
const SAMPLE: usize = 1_024;

/// How many places of the sample either side of rank `k`'s the bracket spans: the place of the
/// key sought within a sample of 1,024 has a standard deviation of at most 16 places, and a
/// bracket that misses it costs the pass over the keys it took.
const SAMPLE_MARGIN: usize = 64;

/// [`select_key`] by a bracket (Floyd and Rivest's selection, one round): the keys at every
/// n/1,024th place are sorted, and two of them `margin` places either side of where rank `k`
/// falls among them bound the key sought. One pass over the keys counts those below the
/// bracket and copies those within it (about an eighth); the key is then selected among those
/// by its digits. None when the key sought is not in the bracket.
/// LATE's pool at 100K running tasks: three passes over every key were a sixth of a decision.
/// The keys are those of `a` and `b` and of the `pooled` rates of `rates` that [`is_pooled`]
/// admits ([`percentile_of_rates_and_keys`]).
fn select_in_bracket(rates: &[f64], pooled: usize, a: &[u64], b: &[u64], k: usize, margin: usize) -> Option<(u64, u64)> {
    let n = pooled + a.len() + b.len();
    // The sample: every n/1,024th place of the three lists end to end, a rate left out there
    // skipped (a sample that thins where rates are left out still brackets; one that misses
    // costs the pass).
    let places = rates.len() + a.len() + b.len();
    let at = |j: usize| match j.checked_sub(rates.len()) {
        None => Some(order_key(rates[j])).filter(|&key| is_pooled_key(key)),
        Some(j) if j < a.len() => Some(a[j]),
        Some(j) => Some(b[j - a.len()]),
    };
    let mut sample: Vec<u64> = (0..SAMPLE).filter_map(|i| at(i * places / SAMPLE)).collect();
    if sample.is_empty() {
        return None;
    }
    sample.sort_unstable();
    let place = k * sample.len() / n;
    // At the sample's ends, the bracket is open: every key is at or above 0, at or below the most.
    let lo = place.checked_sub(margin).map_or(0, |i| sample[i]);
    let hi = sample.get(place + margin).copied().unwrap_or(u64::MAX);
    // The bracket in three parts: the keys equal to `lo`, counted; those strictly between `lo`
    // and `hi`, copied to be selected among; those equal to `hi`, counted. Rates tie by the
    // thousand (the benchmark's 100K running tasks have seven), and a tie at an end of the
    // bracket is counted, not copied. Room for twice the keys expected between, so that the
    // copy is seldom grown; only the room written to is mapped.
    let mut bracket = Vec::with_capacity(2 * (n / SAMPLE * (2 * margin + 1)) + CHUNK);
    // Keys are tallied as they are; rates by their bits, which order the numbers at or above +0
    // as their keys do, below every NaN's and negative number's: only admitted rates
    // ([`is_pooled`]) can fall below, at or within the bracket's bounds so moved, and none is
    // converted to its key but those copied.
    let mut counts = Tally::default();
    let for_keys = Bounds::of(lo, hi);
    let for_rates = Bounds::of_rates(lo, hi);
    // Without a branch on each key (about an eighth of them are within, at random places):
    // each is written to a chunk's buffer, and counted in only if within.
    let mut chunk = [0u64; CHUNK];
    for part in rates.chunks(CHUNK) {
        let len = counts.add(&for_rates, part.iter().map(|r| r.to_bits()), &mut chunk);
        bracket.extend(chunk[..len].iter().map(|&bits| bits | ZERO_KEY));
    }
    for keys in [a, b] {
        for part in keys.chunks(CHUNK) {
            let len = counts.add(&for_keys, part.iter().copied(), &mut chunk);
            bracket.extend_from_slice(&chunk[..len]);
        }
    }
    // The least key above the bracket, if any: what follows its last.
    let least_above = || {
        let above = |keys: &mut dyn Iterator<Item = u64>| keys.filter(|&x| x > hi).min().unwrap_or(u64::MAX);
        let rates_above = above(&mut rates.iter().map(|&r| order_key(r)).filter(|&x| is_pooled_key(x)));
        rates_above.min(above(&mut a.iter().copied())).min(above(&mut b.iter().copied()))
    };
    let Tally { below, at_lo, at_hi } = counts;
    let mut k = k.checked_sub(below)?;
    if k < at_lo {
        let next = if k + 1 < at_lo {
            lo
        } else if let Some(&least) = bracket.iter().min() {
            least
        } else if at_hi > 0 {
            hi
        } else {
            least_above()
        };
        return Some((lo, next));
    }
    k -= at_lo;
    if k < bracket.len() {
        let (key, next) = select_by_digits(&mut bracket, &mut [], k);
        let next = if k + 1 < bracket.len() {
            next
        } else if at_hi > 0 {
            hi
        } else {
            least_above()
        };
        return Some((key, next));
    }
    k -= bracket.len();
    (k < at_hi).then(|| (hi, if k + 1 < at_hi { hi } else { least_above() }))
}

/// What [`select_in_bracket`] counts of the keys about its bracket.
#[derive(Default)]
struct Tally {
    below: usize,
    at_lo: usize,
    /// Keys equal to the bracket's upper bound where it is not its lower one.
    at_hi: usize,
}

/// The bracket's bounds as [`Tally::add`] tests numbers against them: `x` is below when under
/// `below`, at either end when equal to `lo` or `hi` (if tested), strictly within when
/// `x − inside_from < inside_width` in wrapping arithmetic.
struct Bounds {
    below: u64,
    lo: Option<u64>,
    hi: Option<u64>,
    inside_from: u64,
    inside_width: u64,
}

impl Bounds {
    /// For keys, from `lo` to `hi` (`lo` ≤ `hi`).
    fn of(lo: u64, hi: u64) -> Bounds {
        let inside_width = lo.checked_add(1).map_or(0, |from| hi.saturating_sub(from));
        Bounds { below: lo, lo: Some(lo), hi: (hi != lo).then_some(hi), inside_from: lo.wrapping_add(1), inside_width }
    }

    /// For rates read by their bits, the keys' bounds `lo` and `hi` moved to the admitted rates'
    /// bits (an admitted rate's key is its bits plus [`ZERO_KEY`]).
    fn of_rates(lo: u64, hi: u64) -> Bounds {
        let bits = |key: u64| is_pooled_key(key).then(|| key - ZERO_KEY);
        // Admitted keys strictly between the bounds: from the one after `lo` (and +0's), to
        // `hi` (and past +∞'s) exclusive.
        let from = lo.saturating_add(1).max(ZERO_KEY) - ZERO_KEY;
        let to = hi.clamp(ZERO_KEY, INFINITY_KEY + 1) - ZERO_KEY;
        Bounds {
            below: lo.clamp(ZERO_KEY, INFINITY_KEY + 1) - ZERO_KEY,
            lo: bits(lo),
            hi: bits(hi).filter(|_| hi != lo),
            inside_from: from,
            inside_width: to.saturating_sub(from),
        }
    }
}

impl Tally {
    /// Counts the numbers of `xs` below and at the bounds; writes each to `chunk` and keeps
    /// those strictly within (how many, at its front).
    #[inline(always)]
    fn add(&mut self, bounds: &Bounds, xs: impl Iterator<Item = u64>, chunk: &mut [u64; CHUNK]) -> usize {
        let (below, from, width) = (bounds.below, bounds.inside_from, bounds.inside_width);
        // An end not tested is given a value and a flag that never both match.
        let (lo, lo_on) = (bounds.lo.unwrap_or(0), bounds.lo.is_some());
        let (hi, hi_on) = (bounds.hi.unwrap_or(0), bounds.hi.is_some());
        let mut len = 0;
        for x in xs {
            self.below += (x < below) as usize;
            self.at_lo += (lo_on & (x == lo)) as usize;
            self.at_hi += (hi_on & (x == hi)) as usize;
            chunk[len] = x;
            len += (x.wrapping_sub(from) < width) as usize;
        }
        len
    }
}

/// Keys [`select_in_bracket`] looks at between two copies into its bracket.
const CHUNK: usize = 256;

/// [`select_key`] by the keys' digits. Most significant digit first:
/// each pass counts the keys by the `DIGIT_BITS` bits from the highest bit in which they differ,
/// moves the bucket holding rank `k` to the front of each list and goes on in it alone, noting
/// the smallest key of the buckets above.
fn select_by_digits(mut a: &mut [u64], mut b: &mut [u64], mut k: usize) -> (u64, u64) {
    let mut above = u64::MAX;
    let mut counts = [0u32; 1 << DIGIT_BITS];
    loop {
        if a.len() + b.len() <= 64 {
            let mut keys = [0u64; 64];
            let keys = &mut keys[..a.len() + b.len()];
            keys[..a.len()].copy_from_slice(a);
            keys[a.len()..].copy_from_slice(b);
            keys.sort_unstable();
            let next = keys.get(k + 1).map_or(above, |&x| x.min(above));
            return (keys[k], next);
        }
        let fold = |(any, all), &x: &u64| (any | x, all & x);
        let (any, all) = b.iter().fold(a.iter().fold((0u64, !0u64), fold), fold);
        let differ = any ^ all;
        if differ == 0 {
            // Every key is `all`.
            let next = if k + 1 < a.len() + b.len() { all.min(above) } else { above };
            return (all, next);
        }
        // The digit holds the highest differing bit, so at least two buckets are not empty and
        // the one kept is smaller than `keys`.
        let shift = (u64::BITS - differ.leading_zeros()).saturating_sub(DIGIT_BITS);
        let digit = |x: u64| ((x >> shift) as usize) & ((1 << DIGIT_BITS) - 1);
        counts.fill(0);
        for &x in a.iter().chain(b.iter()) {
            counts[digit(x)] += 1;
        }
        let mut bucket = 0;
        while k >= counts[bucket] as usize {
            k -= counts[bucket] as usize;
            bucket += 1;
        }
        // The bucket's keys to the front of each list, which is cut to them.
        let mut keep = |keys: &mut [u64]| {
            let mut kept = 0;
            for i in 0..keys.len() {
                let x = keys[i];
                let d = digit(x);
                let inside = d == bucket;
                let y = keys[kept];
                keys[i] = if inside { y } else { x };
                keys[kept] = if inside { x } else { y };
                kept += inside as usize;
                above = above.min(if d > bucket { x } else { u64::MAX });
            }
            kept
        };
        let (kept_a, kept_b) = (keep(a), keep(b));
        a = &mut a[..kept_a];
        b = &mut b[..kept_b];
    }
}

/// A run time in seconds from its ms, as a finished attempt's record has it (`Done::secs`).
pub fn secs_of_ms(ms: u32) -> f64 {
    f64::from(ms) / 1000.0
}

/// Sums over a list of durations that only grows, at its end, carried on from call to call: μ̂,
/// the least positive duration; Σ ln(x / μ̂) over the positive ones, in the list's order; and
/// Σ x over all. What a Pareto fit (`dist::Pareto::fit`) and the mean read: the same figures as
/// sums over the whole list, where a scan a second over a phase of 200K finished tasks took a
/// logarithm of each. Only a new least duration has the logarithms all taken again. The job
/// also takes each duration into them as it is listed (`push`), so that a reader seldom has
/// any left to take (the 33K that end in the second a wave ends cost a scan 0.2 ms).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FitSums {
    /// How many of the list's durations the sums cover.
    pub(crate) len: usize,
    pub(crate) mu: f64,
    pub(crate) logs: f64,
    pub(crate) sum: f64,
}

impl Default for FitSums {
    fn default() -> FitSums {
        let zero = std::iter::empty::<f64>().sum();
        FitSums { len: 0, mu: f64::INFINITY, logs: zero, sum: zero }
    }
}

impl FitSums {
    /// Carried on over `x`, listed just now after `listed` durations: taken at once where the
    /// sums cover all of those and `x` leaves μ̂ as it is, with the same figures as `carry` would
    /// give (the same additions in the same order); otherwise left to `carry`. Sums that no one
    /// reads stay empty and cost a comparison (μ̂ of no duration is infinite).
    pub(crate) fn push(&mut self, listed: usize, x: f64) {
        if self.len != listed || (x > 0.0 && x < self.mu) {
            return;
        }
        if x > 0.0 {
            self.logs += (x / self.mu).ln();
        }
        self.sum += x;
        self.len += 1;
    }

    /// Carried on over the durations `run_ms` holds beyond the ones summed, each in seconds
    /// ([`secs_of_ms`]) (`run_ms` the one list, grown since; a list shorter than the one summed
    /// is taken for another, summed afresh).
    pub(crate) fn carry(&mut self, run_ms: &[u32]) {
        if self.len == run_ms.len() {
            return;
        }
        if self.len > run_ms.len() {
            *self = FitSums::default();
        }
        fn secs(list: &[u32]) -> impl Iterator<Item = f64> + '_ {
            list.iter().map(|&ms| secs_of_ms(ms))
        }
        let new = &run_ms[self.len..];
        let mu = secs(new).filter(|x| *x > 0.0).fold(self.mu, f64::min);
        if mu.to_bits() == self.mu.to_bits() {
            self.logs = secs(new).filter(|x| *x > 0.0).map(|x| (x / mu).ln()).fold(self.logs, |a, b| a + b);
        } else {
            self.logs = secs(run_ms).filter(|x| *x > 0.0).map(|x| (x / mu).ln()).sum();
        }
        self.sum = secs(new).fold(self.sum, |a, b| a + b);
        self.mu = mu;
        self.len = run_ms.len();
    }
}

/// The Kaplan–Meier estimate of the median of durations of which some are only known to be at
/// least a value (right-censored): `observations` are (time, ended) pairs, `ended` false for a
/// censored one. The median is the first ended time at which the estimated survival falls to one
/// half or below; `None` while it has not (fewer than about half have ended, or the ones that have
/// were the longest). Sorts `observations` by time, ended before censored at equal times. The
/// engine takes it over lists that come sorted (`km_median_sorted`); this is the reference.
#[cfg(test)]
pub fn km_median(observations: &mut [(f64, bool)]) -> Option<f64> {
    observations.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut at_risk = observations.len() as f64;
    let mut survival = 1.0;
    for &(t, ended) in observations.iter() {
        if ended {
            survival *= 1.0 - 1.0 / at_risk;
            if survival <= 0.5 + 1e-12 {
                return Some(t);
            }
        }
        at_risk -= 1.0;
    }
    None
}

/// [`km_median`] of ended times and censored times given apart, each in increasing order: the
/// same walk over the same order (ended before censored at equal times), without sorting them
/// together first.
pub fn km_median_sorted(ended: &[f64], censored: &[f64]) -> Option<f64> {
    km_median_sorted_from(ended.iter().copied(), censored.len(), censored.iter().copied())
}

/// [`km_median_sorted`] with the `count` censored times read in increasing order from an
/// iterator, only as far as the walk goes: they need not be listed first.
pub(crate) fn km_median_sorted_from(
    ended: impl ExactSizeIterator<Item = f64>,
    count: usize,
    censored: impl Iterator<Item = f64>,
) -> Option<f64> {
    let mut at_risk = (ended.len() + count) as f64;
    let mut survival = 1.0;
    let mut censored = censored.peekable();
    for t in ended {
        // The censored times below this one leave the risk set first.
        while censored.next_if(|&c| c < t).is_some() {
            at_risk -= 1.0;
        }
        survival *= 1.0 - 1.0 / at_risk;
        if survival <= 0.5 + 1e-12 {
            return Some(t);
        }
        at_risk -= 1.0;
    }
    None
}

/// Sorts times in ms that are never negative, as `sort_unstable` would: by counting (at most three
/// passes of 11 bits, `count_sort`) when there are many and all fit 32 bits (49 days), else by
/// comparison. GRASS's start-up bar sorts the age of every running
/// attempt this way when the job's kept start times are off (`model::RunningStarts`).
pub(crate) fn sort_ms(times: &mut [i64]) {
    // Often in order already (times that arrive as their attempts started or ended), which one
    // pass tells.
    if times.is_sorted() {
        return;
    }
    if times.len() < MANY_TO_COUNT || times.iter().any(|&t| !(0..=u32::MAX as i64).contains(&t)) {
        times.sort_unstable();
        return;
    }
    let mut from: Vec<u32> = times.iter().map(|&t| t as u32).collect();
    count_sort(&mut from);
    for (t, &sorted) in times.iter_mut().zip(&from) {
        *t = sorted as i64;
    }
}

/// Below this many items a comparison sort is as quick as counting.
const MANY_TO_COUNT: usize = 4_096;

/// Sorts whole numbers as `sort_unstable` would: by counting (`count_sort`) when there are many,
/// else by comparison.
pub(crate) fn sort_u32(items: &mut Vec<u32>) {
    if items.is_sorted() {
        return;
    }
    if items.len() < MANY_TO_COUNT {
        items.sort_unstable();
    } else {
        count_sort(items);
    }
}

/// Passes of 11 bits over the items less the least of them, as many as the span from the least to
/// the greatest needs (two for run times within 4,194 s of each other), each pass's counters in
/// the first-level cache.
fn count_sort(items: &mut Vec<u32>) {
    const BITS: u32 = 11;
    let (least, most) = items.iter().fold((u32::MAX, 0), |(lo, hi), &t| (lo.min(t), hi.max(t)));
    let span = most.saturating_sub(least);
    let mut to = vec![0u32; items.len()];
    let mut starts = [0u32; 1 << BITS];
    let mut shift = 0;
    while shift == 0 || (shift < u32::BITS && span >> shift != 0) {
        let digit = |t: u32| ((t - least) >> shift) as usize & ((1 << BITS) - 1);
        starts.fill(0);
        for &t in items.iter() {
            starts[digit(t)] += 1;
        }
        let mut at = 0;
        for s in starts.iter_mut() {
            (*s, at) = (at, at + *s);
        }
        for &t in items.iter() {
            let d = digit(t);
            to[starts[d] as usize] = t;
            starts[d] += 1;
        }
        std::mem::swap(items, &mut to);
        shift += BITS;
    }
}

#[cfg(test)]
mod tests {
    use super::{clearly_at_least_percentile, is_pooled, km_median, km_median_sorted, median_of_sorted, FitSums, order_key, percentile, percentile_of_keys, percentile_of_rates_and_keys, secs_of_ms, select_by_digits, select_in_bracket, sort_ms, SAMPLE_MARGIN};

    /// Read from a sorted list, the median is `percentile`'s, bit for bit, odd and even lengths.
    #[test]
    fn the_median_of_a_sorted_list_is_percentile_s() {
        let mut next = crate::test_below();
        for _ in 0..2_000 {
            let n = 1 + next(40) as usize;
            let mut values: Vec<f64> = (0..n).map(|_| next(1_000) as f64 * 0.37).collect();
            values.sort_by(f64::total_cmp);
            let want = percentile(&mut values.clone(), 0.5).map(f64::to_bits);
            assert_eq!(Some(median_of_sorted(n, |k| values[k]).to_bits()), want, "{values:?}");
        }
    }

    /// Sums carried on as a list grows are the sums taken over it afresh, bit for bit, a new least
    /// duration included; given a list shorter than the one summed, they are that list's.
    #[test]
    fn fit_sums_carried_on_are_the_sums_afresh() {
        let mut next = crate::test_below();
        let bits = |s: FitSums| (s.len, s.mu.to_bits(), s.logs.to_bits(), s.sum.to_bits());
        let afresh = |list: &[u32]| {
            let mut s = FitSums::default();
            s.carry(list);
            bits(s)
        };
        let (mut carried, mut list) = (FitSums::default(), Vec::new());
        let mut pushed = FitSums::default();
        for i in 0..300 {
            let ms = if next(20) == 0 { 0 } else { 500 + next(4_000) as u32 * 13 / (1 + i as u32 / 100) };
            pushed.push(list.len(), secs_of_ms(ms));
            list.push(ms);
            if next(7) == 0 {
                // Taken as listed, then carried over what was not: the sums afresh too.
                let mut read = pushed;
                read.carry(&list);
                assert_eq!(bits(read), afresh(&list), "pushed, after {i}");
                pushed = read;
            }
            if next(3) == 0 {
                carried.carry(&list);
                assert_eq!(bits(carried), afresh(&list), "after {i}");
            }
        }
        let other = &list[..list.len() / 2];
        carried.carry(other);
        assert_eq!(bits(carried), afresh(other));
    }

    /// Counted or compared, the times come out as `sort_unstable` puts them, beyond 32 bits too.
    #[test]
    fn times_sort_as_a_comparison_sort_sorts_them() {
        let mut next = crate::test_below();
        for case in 0..40 {
            let n = [0, 1, 5, 4_095, 4_096, 5_000, 70_000][case % 7];
            let spread = [10, 70_000, 1 << 31, 1 << 32][case % 4];
            // Far from zero too: the passes count the span above the least time.
            let base = [0, 4_000_000_000, 123_456][case % 3];
            let mut times: Vec<i64> = (0..n).map(|_| base + next(spread) as i64).collect();
            if case % 5 == 4 && n > 0 {
                times[n / 2] = 1 << 40;
            }
            let mut want = times.clone();
            want.sort_unstable();
            sort_ms(&mut times);
            assert_eq!(times, want, "case {case}");
        }
    }

    /// Given apart and sorted, the ended and censored times give `km_median`'s answer exactly,
    /// ties between them included.
    #[test]
    fn kaplan_meier_median_of_sorted_lists_is_the_same() {
        let mut next = crate::test_below();
        for _ in 0..3_000 {
            let (ne, nc, spread) = (next(30) as usize, next(30) as usize, 1 + next(40));
            let mut ended: Vec<f64> = (0..ne).map(|_| next(spread) as f64 * 0.5).collect();
            let mut censored: Vec<f64> = (0..nc).map(|_| next(spread) as f64 * 0.5).collect();
            ended.sort_by(f64::total_cmp);
            censored.sort_by(f64::total_cmp);
            let mut all: Vec<(f64, bool)> = ended.iter().map(|t| (*t, true)).chain(censored.iter().map(|t| (*t, false))).collect();
            assert_eq!(km_median_sorted(&ended, &censored), km_median(&mut all), "{ended:?} {censored:?}");
        }
    }

    /// Without censoring it is the lower median; a censored value counts only as "at least". Each
    /// case is checked on `km_median_sorted` too, given the same times apart.
    #[test]
    fn kaplan_meier_median() {
        let km_median = |obs: &mut [(f64, bool)]| {
            let median = super::km_median(obs);
            // `km_median` left them sorted, ended before censored at equal times.
            let ended: Vec<f64> = obs.iter().filter(|o| o.1).map(|o| o.0).collect();
            let censored: Vec<f64> = obs.iter().filter(|o| !o.1).map(|o| o.0).collect();
            assert_eq!(km_median_sorted(&ended, &censored), median, "{obs:?}");
            median
        };
        assert_eq!(km_median(&mut []), None);
        assert_eq!(km_median(&mut [(3.0, true), (1.0, true), (2.0, true), (4.0, true)]), Some(2.0));
        assert_eq!(km_median(&mut [(5.0, true), (1.0, true), (3.0, true)]), Some(3.0));
        // One of seven has ended and six are still running at 7.8: no median yet.
        let mut wave = vec![(6.9, true)];
        wave.extend([(7.8, false); 6]);
        assert_eq!(km_median(&mut wave), None);
        // Four of six ended; the two running count as at least 7.6.
        assert_eq!(km_median(&mut [(3.7, true), (7.0, true), (7.2, true), (7.5, true), (7.6, false), (7.6, false)]), Some(7.2));
        // Young second-wave attempts leave the risk set without pulling the median down.
        let mut waves = vec![(10.0, true); 4];
        waves.extend([(1.0, false), (2.0, false), (3.0, false), (4.0, false)]);
        assert_eq!(km_median(&mut waves), Some(10.0));
    }

    /// The radix selection gives `percentile`'s number, bit for bit, whatever the spread of the
    /// values, from one list or two: repeated ones, one value, signs and zeros of both signs, wide and narrow ranges.
    #[test]
    fn percentile_of_keys_is_percentile() {
        let mut next = crate::test_rng();
        let shapes = crate::test_float_shapes();
        for shape in &shapes {
            for n in [0usize, 1, 2, 3, 63, 64, 65, 500, 5_000, 70_000] {
                let values: Vec<f64> = (0..n).map(|_| shape(next())).collect();
                for q in [0.0, 0.1, 0.25, 0.5, 0.77, 0.9, 1.0] {
                    let want = percentile(&mut values.clone(), q);
                    let mut keys: Vec<u64> = values.iter().map(|&v| order_key(v)).collect();
                    let got = percentile_of_keys(&mut keys, q);
                    assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "n = {n}, q = {q}");
                    // The same keys in two lists, cut anywhere (either one empty too), as LATE's
                    // pool holds them beside no rates.
                    let cut = [0, n / 3, n][next() as usize % 3];
                    let (a, b) = keys.split_at_mut(cut);
                    let got = percentile_of_rates_and_keys(&[], 0, &mut a.to_vec(), b, q);
                    assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "n = {n} cut at {cut}, q = {q}");
                }
            }
        }
    }

    /// The selection within a sample's bracket finds what the selection by digits finds, the key
    /// and the one ranked after it, bit for bit, or says that it missed: on every shape of values,
    /// for ranks at the ends and within. Narrow brackets (no margin, or one place) miss now and
    /// then, so that both answers are seen.
    #[test]
    fn the_bracket_finds_what_the_digits_find_or_says_it_missed() {
        let mut next = crate::test_rng();
        let shapes = crate::test_float_shapes();
        let (mut found, mut missed) = (0, 0);
        for shape in &shapes {
            for n in [1_500usize, 20_000] {
                let keys: Vec<u64> = (0..n).map(|_| order_key(shape(next()))).collect();
                let cut = n / 3;
                for k in [0, 1, n / 4, n / 2, n - 2, n - 1] {
                    let mut copy = keys.clone();
                    let (a, b) = copy.split_at_mut(cut);
                    let want = select_by_digits(a, b, k);
                    for margin in [0, 1, SAMPLE_MARGIN] {
                        let (a, b) = keys.split_at(cut);
                        match select_in_bracket(&[], 0, a, b, k, margin) {
                            Some(got) => {
                                assert_eq!(got, want, "n = {n}, k = {k}, margin {margin}");
                                found += 1;
                            }
                            None => missed += 1,
                        }
                    }
                }
            }
        }
        assert!(found > 0 && missed > 0, "found {found}, missed {missed}");
    }

    /// A pool as LATE holds it: rates at or above zero among numbers it leaves out (NaN, -1,
    /// -0), spread over a list of rates read in place and two lists of keys.
    fn rates_and_keys(next: &mut impl FnMut() -> u64, shape: &dyn Fn(u64) -> f64, n: usize) -> (Vec<f64>, Vec<f64>, usize, Vec<u64>, Vec<u64>) {
        let admitted: Vec<f64> = (0..n).map(|_| shape(next()).abs()).filter(|v| !v.is_nan()).collect();
        let (mut rates, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
        for &v in &admitted {
            match next() % 10 {
                0 => a.push(order_key(v)),
                1 => b.push(order_key(v)),
                _ => rates.push(v),
            }
            if next() % 4 == 0 {
                rates.push([f64::NAN, -1.0, -0.0][(next() % 3) as usize]);
            }
        }
        let pooled = rates.iter().filter(|&&r| is_pooled(r)).count();
        (admitted, rates, pooled, a, b)
    }

    /// Read in place among the numbers left out, the rates give `percentile`'s number of the
    /// admitted ones, bit for bit, with the keys of the other two lists; and the bracket finds
    /// what the digits find over them all, or says it missed.
    #[test]
    fn the_rates_read_in_place_give_the_percentile_of_those_admitted() {
        let mut next = crate::test_rng();
        let shapes = crate::test_float_shapes();
        assert!(is_pooled(0.0) && is_pooled(f64::INFINITY) && is_pooled(3.5));
        assert!(!is_pooled(-0.0) && !is_pooled(-1.0) && !is_pooled(f64::NAN));
        let (mut found, mut missed) = (0, 0);
        for shape in &shapes {
            for n in [0usize, 1, 2, 3, 63, 64, 65, 500, 5_000, 20_000, 70_000] {
                let (admitted, rates, pooled, a, b) = rates_and_keys(&mut next, shape, n);
                for q in [0.0, 0.1, 0.25, 0.5, 0.77, 1.0] {
                    let want = percentile(&mut admitted.clone(), q);
                    let (mut a, mut b) = (a.clone(), b.clone());
                    let got = percentile_of_rates_and_keys(&rates, pooled, &mut a, &mut b, q);
                    assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "n = {n}, q = {q}");
                }
                if admitted.len() < 1_000 {
                    continue;
                }
                let k_max = admitted.len() - 1;
                for k in [0, 1, k_max / 4, k_max / 2, k_max - 1, k_max] {
                    let mut all: Vec<u64> = admitted.iter().map(|&v| order_key(v)).collect();
                    let want = select_by_digits(&mut all, &mut [], k);
                    for margin in [0, 1, SAMPLE_MARGIN] {
                        match select_in_bracket(&rates, pooled, &a, &b, k, margin) {
                            Some(got) => {
                                assert_eq!(got, want, "n = {n}, k = {k}, margin {margin}");
                                found += 1;
                            }
                            None => missed += 1,
                        }
                    }
                }
            }
        }
        assert!(found > 0 && missed > 0, "found {found}, missed {missed}");
    }

    /// With rates read in place, the count is never wrong either, and tells the same as over
    /// the admitted rates' keys alone.
    #[test]
    fn clearly_at_least_percentile_reads_only_the_admitted_rates() {
        let mut next = crate::test_rng();
        for shape in &crate::test_float_shapes() {
            for n in [0usize, 1, 2, 3, 64, 500, 5_000] {
                let (admitted, rates, pooled, a, b) = rates_and_keys(&mut next, shape, n);
                let keys: Vec<u64> = admitted.iter().map(|&v| order_key(v)).collect();
                for q in [0.0, 0.25, 0.5, 1.0] {
                    let p = percentile(&mut admitted.clone(), q);
                    for &x in admitted.iter().step_by((admitted.len() / 20).max(1)).chain(&[0.5, 1.0, 2.0, f64::INFINITY]) {
                        let said = clearly_at_least_percentile(&rates, pooled, &a, &b, q, x);
                        assert_eq!(said, clearly_at_least_percentile(&[], 0, &keys, &[], q, x), "n = {n}, q = {q}, x = {x}");
                        // (An infinite rate's interpolation can be NaN, which nothing is at least.)
                        assert!(!said || p.is_some_and(|p| p.is_nan() || x >= p), "n = {n}, q = {q}: {x} said at least {p:?}");
                    }
                }
            }
        }
    }

    /// The count says "at least the percentile" only of numbers at or above it, whatever the
    /// values (ties, one value, wide and narrow ranges); and it says so of every number a little
    /// above the percentile's upper order statistic.
    #[test]
    fn clearly_at_least_percentile_is_never_wrong() {
        let mut next = crate::test_rng();
        let shapes = crate::test_float_shapes();
        let (mut said, mut asked) = (0, 0);
        for shape in &shapes {
            for n in [0usize, 1, 2, 3, 64, 500, 5_000] {
                let values: Vec<f64> = (0..n).map(|_| shape(next()).abs()).filter(|v| v.is_finite()).collect();
                let keys: Vec<u64> = values.iter().map(|&v| order_key(v)).collect();
                let mut sorted = values.clone();
                sorted.sort_by(f64::total_cmp);
                for q in [0.0, 0.25, 0.5, 1.0] {
                    let Some(p) = percentile(&mut values.clone(), q) else {
                        assert!(!clearly_at_least_percentile(&[], 0, &keys, &[], q, 1.0), "no keys");
                        continue;
                    };
                    let cut = next() as usize % (keys.len() + 1);
                    let (a, b) = keys.split_at(cut);
                    // Values (about 40 of each list), their neighbours in float steps, points
                    // between; and every value about the percentile.
                    let lo = (q * (values.len() - 1) as f64).floor() as usize;
                    let near = sorted[lo.saturating_sub(3)..(lo + 4).min(sorted.len())].iter();
                    let probes = sorted.iter().step_by((sorted.len() / 40).max(1)).chain(near).flat_map(|&v| [v, v.next_up(), v.next_down(), v * (1.0 + 2e-9), v * 1.5]);
                    for x in probes.chain([p, p.next_up(), p * (1.0 + 1e-6)]) {
                        asked += 1;
                        if clearly_at_least_percentile(&[], 0, a, b, q, x) {
                            said += 1;
                            assert!(x >= p, "n = {n}, q = {q}: {x} said at least the percentile {p}");
                        }
                    }
                    let upper = sorted[(lo + 1).min(sorted.len() - 1)];
                    if upper > 0.0 && upper < 1e300 {
                        assert!(clearly_at_least_percentile(&[], 0, a, b, q, upper * (1.0 + 2e-9)), "n = {n}, q = {q}");
                    }
                }
            }
        }
        assert!(said > asked / 10 && said < asked, "{said} of {asked} said");
    }

    #[test]
    fn interpolates_between_order_statistics() {
        assert_eq!(percentile(&mut [], 0.5), None);
        assert_eq!(percentile(&mut [3.0], 0.25), Some(3.0));
        assert_eq!(percentile(&mut [4.0, 1.0, 3.0, 2.0], 0.0), Some(1.0));
        assert_eq!(percentile(&mut [4.0, 1.0, 3.0, 2.0], 1.0), Some(4.0));
        assert_eq!(percentile(&mut [1.0, 2.0, 3.0, 4.0, 5.0], 0.25), Some(2.0));
        assert_eq!(percentile(&mut [1.0, 2.0], 0.25), Some(1.25));
    }
}
