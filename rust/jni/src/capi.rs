//! A small C ABI over the engine, for hosts other than the JVM. The header `include/rein.h` is
//! generated from this file by cbindgen and checked in; a test fails when it is stale.
//! Every function catches panics: none crosses this boundary.

use std::borrow::Cow;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use rein_core::Engine;

use crate::glue::{self, RawEvent};

/// An engine for one job, created by `rein_engine_new` and freed once by `rein_engine_free`.
pub struct ReinEngine {
    engine: Engine,
    last_actions: CString,
    last_log: CString,
}

/// One event as flat fields; see the `EV_*` codes in `rust/jni/src/glue.rs` for what each field carries.
#[repr(C)]
pub struct ReinEvent {
    pub kind: i32,
    pub task_kind: i32,
    pub task_index: i32,
    pub attempt: i32,
    pub progress: f64,
    pub value: i64,
    pub value2: i64,
    /// NUL-terminated `host:port`, or null.
    pub node: *const c_char,
    /// NUL-terminated rack name, or null.
    pub rack: *const c_char,
}

/// The ABI version this library speaks; callers refuse a library whose version they do not know.
#[no_mangle]
pub extern "C" fn rein_abi_version() -> u32 {
    glue::ABI_VERSION
}

fn write_error(err: *mut c_char, err_len: usize, msg: &str) {
    if err.is_null() || err_len == 0 {
        return;
    }
    let n = msg.len().min(err_len - 1);
    // SAFETY: the caller gave a buffer of err_len bytes; we write n < err_len bytes and a NUL.
    unsafe {
        ptr::copy_nonoverlapping(msg.as_ptr(), err.cast::<u8>(), n);
        *err.add(n) = 0;
    }
}

unsafe fn opt_str<'a>(p: *const c_char) -> Result<Option<&'a str>, String> {
    if p.is_null() {
        return Ok(None);
    }
    CStr::from_ptr(p).to_str().map(Some).map_err(|e| format!("string is not UTF-8: {e}"))
}

/// Creates an engine from `key=value` lines. On error returns null and writes a message naming
/// the key, the value and the allowed range into `err` (at most `err_len` bytes, NUL included).
///
/// # Safety
/// `config` must be null or a NUL-terminated string; `err` null or a buffer of `err_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn rein_engine_new(config: *const c_char, err: *mut c_char, err_len: usize) -> *mut ReinEngine {
    glue::install_panic_hook();
    let made = catch_unwind(AssertUnwindSafe(|| -> Result<ReinEngine, String> {
        let text = opt_str(config)?.unwrap_or("");
        let pairs = glue::config_lines(text)?;
        let (engine, _warnings) = Engine::from_pairs(pairs).map_err(|e| e.to_string())?;
        Ok(ReinEngine { engine, last_actions: CString::default(), last_log: CString::default() })
    }));
    match made {
        Ok(Ok(engine)) => Box::into_raw(Box::new(engine)),
        Ok(Err(msg)) => {
            write_error(err, err_len, &msg);
            ptr::null_mut()
        }
        Err(payload) => {
            write_error(err, err_len, &glue::panic_message(payload));
            ptr::null_mut()
        }
    }
}

/// Feeds one event at `now_ms`. Returns 0, or -1 if the event could not be decoded or the engine
/// failed (the event is then dropped).
///
/// # Safety
/// `engine` must come from `rein_engine_new` and not be freed; `event` must point to a valid event.
#[no_mangle]
pub unsafe extern "C" fn rein_engine_event(engine: *mut ReinEngine, now_ms: i64, event: *const ReinEvent) -> i32 {
    if engine.is_null() || event.is_null() {
        return -1;
    }
    let done = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
        let e = &*event;
        let raw = RawEvent {
            kind: e.kind,
            task_kind: e.task_kind,
            task_index: e.task_index,
            attempt: e.attempt,
            progress: e.progress,
            value: e.value,
            value2: e.value2,
            node: opt_str(e.node)?.map(Cow::Borrowed),
            rack: opt_str(e.rack)?.map(Cow::Borrowed),
        };
        glue::ingest(&mut (*engine).engine, now_ms, raw.decode()?)
    }));
    match done {
        Ok(Ok(())) => 0,
        _ => -1,
    }
}

/// Decides at `now_ms`. Returns the actions as tab-separated lines (format in the README), valid
/// until the next call on this engine; null if the engine failed.
///
/// # Safety
/// `engine` must come from `rein_engine_new` and not be freed.
#[no_mangle]
pub unsafe extern "C" fn rein_engine_decide(engine: *mut ReinEngine, now_ms: i64) -> *const c_char {
    if engine.is_null() {
        return ptr::null();
    }
    let done = catch_unwind(AssertUnwindSafe(|| {
        let e = &mut *engine;
        let text = glue::encode_actions(&e.engine.decide(now_ms));
        e.last_actions = CString::new(text).unwrap_or_default();
        e.last_actions.as_ptr()
    }));
    done.unwrap_or(ptr::null())
}

/// The decision log's records written since the last call (`rein.decision-log` on): one JSON
/// object per line, decisions and outcomes, oldest first; with `summary` non-zero, the job's
/// summary record at `now_ms` (actions, copies, their cost, the time saved) as the last line.
/// Valid until the next call on this engine; null if the engine failed.
///
/// # Safety
/// `engine` must come from `rein_engine_new` and not be freed.
#[no_mangle]
pub unsafe extern "C" fn rein_engine_log(engine: *mut ReinEngine, now_ms: i64, summary: i32) -> *const c_char {
    if engine.is_null() {
        return ptr::null();
    }
    let done = catch_unwind(AssertUnwindSafe(|| {
        let e = &mut *engine;
        let mut lines = e.engine.take_records();
        if summary != 0 {
            lines.push(e.engine.summary_record(now_ms));
        }
        e.last_log = CString::new(lines.join("\n")).unwrap_or_default();
        e.last_log.as_ptr()
    }));
    done.unwrap_or(ptr::null())
}

/// Frees an engine. Null is ignored.
///
/// # Safety
/// `engine` must come from `rein_engine_new` and be freed at most once.
#[no_mangle]
pub unsafe extern "C" fn rein_engine_free(engine: *mut ReinEngine) {
    if !engine.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(engine))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_through_the_c_abi() {
        let mut err = [0 as c_char; 256];
        let cfg = CString::new("rein.policy=late\nrein.late.min-runtime-ms=0\n").unwrap();
        unsafe {
            let e = rein_engine_new(cfg.as_ptr(), err.as_mut_ptr(), err.len());
            assert!(!e.is_null());
            let ev = |kind, idx, value, progress| ReinEvent {
                kind,
                task_kind: 0,
                task_index: idx,
                attempt: 0,
                progress,
                value,
                value2: 0,
                node: ptr::null(),
                rack: ptr::null(),
            };
            assert_eq!(rein_engine_event(e, 0, &ev(glue::EV_JOB_CREATED, 0, 4, 0.0)), 0);
            for i in 0..4 {
                assert_eq!(rein_engine_event(e, 0, &ev(glue::EV_ATTEMPT_STARTED, i, 0, 0.0)), 0);
            }
            for i in 0..3 {
                assert_eq!(rein_engine_event(e, 10_000, &ev(glue::EV_ATTEMPT_FINISHED, i, 0, 0.0)), 0);
            }
            assert_eq!(rein_engine_event(e, 20_000, &ev(glue::EV_ATTEMPT_STATUS, 3, 1, 0.1)), 0);
            assert_eq!(rein_engine_event(e, 0, &ev(99, 0, 0, 0.0)), -1);
            let out = CStr::from_ptr(rein_engine_decide(e, 20_000)).to_str().unwrap().to_owned();
            assert!(out.starts_with("SPECULATE\tm\t3\t"), "{out}");
            rein_engine_free(e);
            rein_engine_free(ptr::null_mut());
        }
    }

    #[test]
    fn the_decision_log_and_its_summary_through_the_c_abi() {
        let mut err = [0 as c_char; 256];
        let cfg = CString::new("rein.policy=late\nrein.late.min-runtime-ms=0\nrein.decision-log=auto\n").unwrap();
        let ev = |kind, idx, value, progress| ReinEvent {
            kind,
            task_kind: 0,
            task_index: idx,
            attempt: 0,
            progress,
            value,
            value2: 0,
            node: ptr::null(),
            rack: ptr::null(),
        };
        unsafe {
            let e = rein_engine_new(cfg.as_ptr(), err.as_mut_ptr(), err.len());
            assert!(!e.is_null(), "{:?}", CStr::from_ptr(err.as_ptr()));
            rein_engine_event(e, 0, &ev(glue::EV_JOB_CREATED, 0, 4, 0.0));
            for i in 0..4 {
                rein_engine_event(e, 0, &ev(glue::EV_ATTEMPT_STARTED, i, 0, 0.0));
            }
            for i in 0..3 {
                rein_engine_event(e, 10_000, &ev(glue::EV_ATTEMPT_FINISHED, i, 0, 0.0));
            }
            rein_engine_event(e, 20_000, &ev(glue::EV_ATTEMPT_STATUS, 3, 1, 0.1));
            rein_engine_decide(e, 20_000);
            let log = CStr::from_ptr(rein_engine_log(e, 20_000, 1)).to_str().unwrap().to_owned();
            let lines: Vec<&str> = log.lines().collect();
            assert_eq!(lines.len(), 2, "{log}");
            assert!(lines[0].starts_with("{\"record\":\"decision\"") && lines[0].contains("\"task\":\"m_000003\""), "{log}");
            assert!(lines[1].starts_with("{\"record\":\"summary\""), "{log}");
            assert_eq!(CStr::from_ptr(rein_engine_log(e, 20_000, 0)).to_bytes(), b"", "records are taken once");
            assert!(rein_engine_log(ptr::null_mut(), 0, 1).is_null());
            rein_engine_free(e);
        }
    }

    #[test]
    fn bad_config_names_key_value_and_range() {
        let mut err = [0 as c_char; 256];
        let cfg = CString::new("rein.late.speculative-cap=2").unwrap();
        unsafe {
            let e = rein_engine_new(cfg.as_ptr(), err.as_mut_ptr(), err.len());
            assert!(e.is_null());
            let msg = CStr::from_ptr(err.as_ptr()).to_str().unwrap();
            assert!(msg.contains("rein.late.speculative-cap") && msg.contains("'2'") && msg.contains("(0, 1]"), "{msg}");
        }
    }
}
