use rein_bench::job;
use std::hint::black_box;
fn cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let policy = args[1].as_str();
    let n: usize = args[2].parse().unwrap();
    if args.len() > 3 {
        // split: policy alone vs engine
        let (mut tp, mut te) = (vec![], vec![]);
        for _ in 0..n {
            let e = job(policy, 100_000);
            let mut p = rein_core::policy::build(e.config());
            let t0 = cpu();
            let a = p.decide(40_000, e.job());
            tp.push(cpu() - t0);
            drop(black_box(a));
            let mut e = job(policy, 100_000);
            let t0 = cpu();
            let a = e.decide(40_000);
            te.push(cpu() - t0);
            drop(black_box(a));
        }
        tp.sort_by(f64::total_cmp); te.sort_by(f64::total_cmp);
        println!("{policy}: policy {:.2} engine {:.2}", tp[n / 2], te[n / 2]);
        return;
    }
    let mut engines: Vec<_> = (0..n).map(|_| job(policy, 100_000)).collect();
    std::fs::write("/tmp/prof/pid", std::process::id().to_string()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    for e in engines.iter_mut() {
        black_box(e.decide(40_000));
    }
    std::process::exit(0);
}
