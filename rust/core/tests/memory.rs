//! Memory the engine keeps per tracked attempt, measured with a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use rein_core::{Engine, Event, Phase, TaskId};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        System.dealloc(p, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn an_attempt_costs_at_most_512_bytes() {
    let n = 100_000u32;
    let before = LIVE.load(Ordering::SeqCst);
    let mut e = Engine::from_pairs([("rein.policy", "late")]).unwrap().0;
    e.ingest(0, Event::JobCreated { maps: n, reduces: 0 });
    for i in 0..n {
        let a = TaskId::map(i).attempt(0);
        e.ingest(0, Event::AttemptStarted { attempt: a, node: Some(format!("n{}:1", i % 1000)), rack: None });
        for k in 1..8 {
            e.ingest(k * 1000, Event::AttemptStatus { attempt: a, progress: k as f64 / 10.0, phase: Phase::Map });
        }
    }
    let per_attempt = (LIVE.load(Ordering::SeqCst) - before) as f64 / n as f64;
    println!("engine memory per attempt (with its task): {per_attempt:.0} bytes");
    assert!(per_attempt <= 512.0, "{per_attempt:.0} bytes per attempt");
    drop(e);
}
