//! No native memory is left behind by many engines created, fed, asked and freed through the C
//! ABI (the JNI exports share the same create/free path). rein's allocator, which librein declares,
//! counts the bytes held (`rein_core::live_bytes`).

use std::ffi::{CStr, CString};
use std::ptr;

use rein::capi::{rein_engine_decide, rein_engine_event, rein_engine_free, rein_engine_new, ReinEvent};
use rein::glue;

fn one_job(config: &CStr, node: &CStr) {
    unsafe {
        let e = rein_engine_new(config.as_ptr(), ptr::null_mut(), 0);
        assert!(!e.is_null());
        let ev = |kind, i, value, progress| ReinEvent {
            kind,
            task_kind: 0,
            task_index: i,
            attempt: 0,
            progress,
            value,
            value2: 1,
            node: node.as_ptr(),
            rack: ptr::null(),
        };
        rein_engine_event(e, 0, &ev(glue::EV_JOB_CREATED, 0, 20, 0.0));
        for i in 0..20 {
            rein_engine_event(e, 0, &ev(glue::EV_TASK_INPUT, i, 1 << 20, 0.0));
            rein_engine_event(e, 0, &ev(glue::EV_ATTEMPT_STARTED, i, 0, 0.0));
        }
        for t in 1..30 {
            for i in 0..20 {
                rein_engine_event(e, t * 1000, &ev(glue::EV_ATTEMPT_STATUS, i, 1, 0.03 * t as f64 / (1 + i % 3) as f64));
            }
            rein_engine_decide(e, t * 1000);
        }
        rein_engine_free(e);
    }
}

#[test]
fn create_use_free_cycles_return_all_memory() {
    let node = CString::new("node:1").unwrap();
    let configs: Vec<CString> = ["late", "mantri", "dolly", "sca", "ese", "hadoop"]
        .iter()
        .map(|p| CString::new(format!("rein.policy={p}\nrein.late.min-runtime-ms=0\nrein.ese.expected-task-ms=1000")).unwrap())
        .collect();
    // Warm up once: lazily built statics (the panic hook, thread-locals) are not leaks.
    for c in &configs {
        one_job(c, &node);
    }
    let before = rein_core::live_bytes();
    // The count is librein's allocator's: were it not this binary's allocator, every count would
    // read 0 and the comparison below could not fail.
    assert!(before > 0, "rein's allocator counts nothing: is it librein's global allocator?");
    for _ in 0..20 {
        for c in &configs {
            one_job(c, &node);
        }
    }
    let after = rein_core::live_bytes();
    assert_eq!(after - before, 0, "bytes still allocated after 120 engines were freed");
}
