//! What a decision that copies every task of the `decide` benchmark's all-late job pays at the
//! least on this machine, whatever the engine's design: the job's numbers (`rein_bench::job`:
//! N running maps, two progress reports each, every one behind its finished siblings) laid out as
//! compactly as they can be, and only the four steps no such decision can skip, each as cheap as
//! it can be made:
//! - **judge**: every running task's time left from a 20-byte record of its two reports (a
//!   progress rate, Mantri's estimate without its smoothing), against one E[t_new]; a 16-byte
//!   candidate pushed for each task that gains;
//! - **rank**: the candidates by gain, largest first, by the policies' own ranking
//!   (`rein_core::policy::rank_descending`);
//! - **act**: a 20-byte action written per candidate, in rank order (a task, a rule, its numbers,
//!   the node of its running attempt to avoid);
//! - **book**: each copy booked on its task's 16-byte record (pending, asked for, when), in rank
//!   order, with the job's count of copies pending kept up to date.
//!
//! Left out, and paid by the real engine: t_new's samples, the bar for attempts that have shown
//! no progress, the checks that a task is open and its kind speculated, the veto loop's records,
//! the nodes a copy avoids, and the reasons the decision log and the ApplicationMaster's log print.
//! So a real decision of the same job costs more than this; if this floor is near a target, no
//! layout brings the real one under it.
//!
//! `cargo run --release -p rein-bench --example decision_floor -- [RUNNING [ROUNDS]]`, under the
//! same allocator settings as `profile_decide` (memory kept, or every block fresh). Thread CPU
//! time; median, min and max over rounds, each round on fresh vectors as a decision's are.

use rein_bench::{cpu, spread};
use rein_core::policy::rank_descending;
use std::hint::black_box;

/// A running task's two reports: times in ms since the job's start, progress as Hadoop sends it.
#[derive(Clone, Copy)]
struct Reports {
    first_at: i32,
    last_at: i32,
    first: f32,
    last: f32,
    node: u32,
}

#[derive(Clone, Copy)]
struct Candidate {
    task: u32,
    t_rem_s: f32,
    gain_s: f64,
}

/// Written for a caller that reads it, as an action is; here only `black_box` does.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct Act {
    task: u32,
    rule: u8,
    copies: u8,
    t_rem_s: f32,
    t_new_s: f32,
    node: u32,
}

#[derive(Clone, Copy, Default)]
struct Booked {
    pending: u32,
    asked: u32,
    last_copy_at: i64,
}

const _: () = assert!(std::mem::size_of::<Reports>() == 20);
const _: () = assert!(std::mem::size_of::<Candidate>() == 16);
const _: () = assert!(std::mem::size_of::<Act>() == 20);
const _: () = assert!(std::mem::size_of::<Booked>() == 16);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let running: u32 = args.get(1).map_or(100_000, |s| s.parse().expect("RUNNING: a number of tasks"));
    let rounds: u32 = args.get(2).map_or(15, |s| s.parse().expect("ROUNDS: a number"));
    // rein_bench::job's numbers: reports at 10 s and 30 s, the decision at 40 s; the finished
    // tenth took 20 s and a little more each.
    let reports: Vec<Reports> = (0..running)
        .map(|i| {
            let p = |k: f64| (k * 0.1 / (1 + i % 7) as f64).min(0.9) as f32;
            Reports { first_at: 10_000, last_at: 30_000, first: p(1.0), last: p(2.0), node: i % 1000 }
        })
        .collect();
    let done = (running / 10).max(5);
    let t_new_s = (0..done).map(|i| (20_000 + i) as f64 / 1000.0).sum::<f64>() / done as f64;
    let (now, bar_s) = (40_000i64, 30.0);
    let mut booked = vec![Booked::default(); running as usize];
    let mut pending_total = 0u64;
    let (mut judge, mut rank, mut act, mut book, mut total) = (vec![], vec![], vec![], vec![], vec![]);
    let mut n = 0;
    for _ in 0..rounds {
        let t0 = cpu();
        let mut candidates = Vec::with_capacity(running as usize);
        for (task, (r, b)) in reports.iter().zip(&booked).enumerate() {
            if b.pending > 0 || r.last <= 0.0 {
                continue;
            }
            let rate = (r.last - r.first) as f64 / ((r.last_at - r.first_at) as f64 / 1000.0);
            let t_rem_s = (1.0 - r.last as f64) / rate;
            let gain_s = t_rem_s - t_new_s;
            if gain_s > bar_s {
                candidates.push(Candidate { task: task as u32, t_rem_s: t_rem_s as f32, gain_s });
            }
        }
        let t1 = cpu();
        let order = rank_descending(candidates.iter().map(|c| c.gain_s));
        let t2 = cpu();
        let mut actions = Vec::with_capacity(candidates.len());
        for c in order.of(&candidates) {
            let node = reports[c.task as usize].node;
            actions.push(Act { task: c.task, rule: 2, copies: 1, t_rem_s: c.t_rem_s, t_new_s: t_new_s as f32, node });
        }
        let t3 = cpu();
        for a in &actions {
            let b = &mut booked[a.task as usize];
            b.pending += a.copies as u32;
            b.asked += a.copies as u32;
            b.last_copy_at = now;
            pending_total += a.copies as u64;
        }
        let t4 = cpu();
        n = actions.len();
        black_box(&actions);
        judge.push(t1 - t0);
        rank.push(t2 - t1);
        act.push(t3 - t2);
        book.push(t4 - t3);
        total.push(t4 - t0);
        // The next round decides on the same job again, as a fresh engine would.
        booked.iter_mut().for_each(|b| *b = Booked::default());
        pending_total = black_box(pending_total) - n as u64;
    }
    println!("decision floor {running}: {n} actions; total ms {}", spread(total));
    println!("  judge ms {}", spread(judge));
    println!("  rank ms {}", spread(rank));
    println!("  act ms {}", spread(act));
    println!("  book ms {}", spread(book));
}
