//! Runs one policy's first decision on the `decide` benchmark's job many times, for a profiler:
//! `cargo run --release -p rein-bench --example profile_decide -- POLICY RUNNING ROUNDS [healthy]`;
//! with `healthy`, a scan of a job where nothing is late (`rein_bench::healthy_job`).

use rein_bench::{healthy_job, job, HEALTHY_NOW};
use std::hint::black_box;


fn cpu() -> std::time::Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec out-pointer and a clock id every Linux has.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn minor_faults() -> i64 {
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    u.ru_minflt
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let policy = args.get(1).map_or("late", |s| s.as_str());
    let running: u32 = args.get(2).map_or(100_000, |s| s.parse().unwrap());
    let rounds: u32 = args.get(3).map_or(20, |s| s.parse().unwrap());
    let mut times = Vec::new();
    let mut n = 0;
    let mut faults = Vec::new();
    let which = args.get(4).map_or("first", |s| s.as_str());
    for _ in 0..rounds {
        let (mut e, at) = match which {
            "healthy" => (healthy_job(policy, running), HEALTHY_NOW),
            _ => (job(policy, running), 40_000),
        };
        let f0 = minor_faults();
        let t0 = cpu();
        let actions = e.decide(at);
        times.push((cpu() - t0).as_secs_f64() * 1000.0);
        faults.push(minor_faults() - f0);
        n = actions.len();
        black_box(&actions);
    }
    times.sort_by(f64::total_cmp);
    faults.sort();
    println!(
        "{policy} {running}: {n} actions; decide ms min {:.3} median {:.3} max {:.3}; page faults median {}",
        times[0],
        times[times.len() / 2],
        times[times.len() - 1],
        faults[faults.len() / 2]
    );
}
