//! Prints `rust/core/src/policy/sigma_table.rs`: ESE's σ* (Eq. 22–25, `Pareto::ese_optimal_sigma`)
//! for every tail index of the grid ESE reads it on, α = 0.00, 0.05, … 10.00 (taken as ESE takes
//! it, hundredths over 100):
//! `cargo run --release -p rein-bench --example sigma_table > rust/core/src/policy/sigma_table.rs`.
//! Each value is written as the shortest text that reads back as it, so the table holds exactly
//! what the solve gives (the test `the_sigma_table_is_the_solve` checks a sample of it).

use rein_core::dist::Pareto;

fn main() {
    println!("//! ESE's σ* (Eq. 22–25) for α = 0.00, 0.05, … 10.00, in steps of 0.05: entry i is");
    println!("//! `Pareto::new((5 * i) as f64 / 100.0, 1.0).ese_optimal_sigma()`, written by");
    println!("//! `cargo run --release -p rein-bench --example sigma_table` (about 1.5 s of solving, which");
    println!("//! an ApplicationMaster would otherwise pay 7 ms at a time, in the middle of its decisions,");
    println!("//! for each new tail index its job's durations fit).");
    println!();
    println!("pub(crate) const SIGMA_STAR: [f64; 201] = [");
    for i in 0..=200 {
        let alpha = (5 * i) as f64 / 100.0;
        let s = Pareto::new(alpha, 1.0).ese_optimal_sigma();
        assert!(s.is_finite(), "σ* at α = {alpha} is {s}");
        println!("    {s:?},");
    }
    println!("];");
}
