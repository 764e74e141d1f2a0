//! librein: the rein engine as a shared library. JNI exports for `io.rein.yarn.NativeEngine` and
//! a small C ABI (`capi`). Glue only: every policy decision lives in rein-core.
//!
//! Every export runs inside [`guard`]: an error becomes a Java exception, a panic becomes a
//! `ReinNativeException` carrying the panic's message and location, and nothing unwinds into
//! the JVM. One engine per job, behind an opaque `jlong` handle, freed exactly once by `close`
//! (the Java side zeroes its handle under a lock before calling it).

pub mod capi;
pub mod glue;

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use jni::objects::{JClass, JDoubleArray, JIntArray, JLongArray, JObject, JObjectArray, JString};
use jni::sys::{jdouble, jint, jlong, jobjectArray, jstring};
use jni::JNIEnv;
use rein_core::Engine;

use crate::glue::RawEvent;

/// rein's allocator (`rein_core::Allocator`): a big block starts on a huge-page boundary, and the
/// bytes held are counted.
#[global_allocator]
static ALLOCATOR: rein_core::Allocator = rein_core::Allocator;

const NATIVE_EXCEPTION: &str = "io/rein/yarn/ReinNativeException";
const CONFIG_EXCEPTION: &str = "io/rein/yarn/ReinConfigException";

enum Failure {
    Config(String),
    Native(String),
    /// A JNI call failed; usually a Java exception is pending already.
    Jni(jni::errors::Error),
}

impl From<jni::errors::Error> for Failure {
    fn from(e: jni::errors::Error) -> Self {
        Failure::Jni(e)
    }
}

struct Job {
    engine: Engine,
    warnings: Vec<String>,
}

type Shared = Mutex<Job>;

fn throw(env: &mut JNIEnv, failure: Failure) {
    // Never throw over a pending exception: the first one is the root cause.
    if env.exception_check().unwrap_or(true) {
        return;
    }
    let (class, msg) = match failure {
        Failure::Config(m) => (CONFIG_EXCEPTION, m),
        Failure::Native(m) => (NATIVE_EXCEPTION, m),
        Failure::Jni(e) => (NATIVE_EXCEPTION, format!("JNI call failed: {e}")),
    };
    let _ = env.throw_new(class, msg);
}

fn guard<'local, T>(
    env: &mut JNIEnv<'local>,
    fallback: T,
    body: impl FnOnce(&mut JNIEnv<'local>) -> Result<T, Failure>,
) -> T {
    glue::install_panic_hook();
    match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(v)) => v,
        Ok(Err(f)) => {
            throw(env, f);
            fallback
        }
        Err(payload) => {
            throw(env, Failure::Native(glue::panic_message(payload)));
            fallback
        }
    }
}

/// Runs `f` on the job behind `handle`.
fn with_job<T>(handle: jlong, f: impl FnOnce(&mut Job) -> Result<T, Failure>) -> Result<T, Failure> {
    if handle == 0 {
        return Err(Failure::Native("the rein engine is closed".into()));
    }
    // SAFETY: non-zero handles come from `create` and stay valid until `close`, which the Java
    // side calls once, under the same lock that guards every other use of the handle.
    let shared = unsafe { &*(handle as *const Shared) };
    let mut job = shared
        .lock()
        .map_err(|_| Failure::Native("the rein engine is unusable after an earlier panic".into()))?;
    f(&mut job)
}

fn opt_string(env: &mut JNIEnv, s: &JString) -> Result<Option<String>, Failure> {
    if s.is_null() {
        return Ok(None);
    }
    Ok(Some(env.get_string(s)?.into()))
}

#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_abiVersion(mut env: JNIEnv, _class: JClass) -> jint {
    guard(&mut env, -1, |_| Ok(glue::ABI_VERSION as jint))
}

#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_create<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    keys: JObjectArray<'l>,
    values: JObjectArray<'l>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let n = env.get_array_length(&keys)?;
        if env.get_array_length(&values)? != n {
            return Err(Failure::Native("config keys and values differ in length".into()));
        }
        let mut pairs = Vec::with_capacity(n as usize);
        for i in 0..n {
            let k = JString::from(env.get_object_array_element(&keys, i)?);
            let v = JString::from(env.get_object_array_element(&values, i)?);
            let k = opt_string(env, &k)?.unwrap_or_default();
            let v = opt_string(env, &v)?.unwrap_or_default();
            pairs.push((k, v));
        }
        let (engine, warnings) = Engine::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(|e| Failure::Config(e.to_string()))?;
        Ok(Box::into_raw(Box::new(Mutex::new(Job { engine, warnings }))) as jlong)
    })
}

/// The policy's name on the first line, the engine's `rein.max-copies-per-scan` (0: no bound) on
/// the second, for the ApplicationMaster's log line of a scan that reaches it, then one warning a
/// line (unknown keys).
#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_describe<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jstring {
    guard(&mut env, std::ptr::null_mut(), |env| {
        let text = with_job(handle, |job| {
            let mut lines = vec![job.engine.policy_name().to_owned(), job.engine.config().max_copies_per_scan.to_string()];
            lines.extend(job.warnings.iter().cloned());
            Ok(lines.join("\n"))
        })?;
        Ok(env.new_string(text)?.into_raw())
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_event<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    now_ms: jlong,
    kind: jint,
    task_kind: jint,
    task_index: jint,
    attempt: jint,
    progress: jdouble,
    value: jlong,
    value2: jlong,
    node: JString<'l>,
    rack: JString<'l>,
) {
    guard(&mut env, (), |env| {
        let node = opt_string(env, &node)?;
        let rack = opt_string(env, &rack)?;
        let raw = RawEvent {
            kind,
            task_kind,
            task_index,
            attempt,
            progress,
            value,
            value2,
            node: node.map(Cow::Owned),
            rack: rack.map(Cow::Owned),
        };
        let event = raw.decode().map_err(Failure::Native)?;
        with_job(handle, |job| glue::ingest(&mut job.engine, now_ms, event).map_err(Failure::Native))
    })
}

/// A batch of `count` events without strings, in order (ABI 9; `glue::ingest_batch` reads them):
/// per event `glue::BATCH_INTS` ints (kind, task kind, task index, attempt), `glue::BATCH_LONGS`
/// longs (time, value, value2) and its progress. The arrays may be longer than `count` needs.
#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_events<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    count: jint,
    ints: JIntArray<'l>,
    longs: JLongArray<'l>,
    progress: JDoubleArray<'l>,
) {
    guard(&mut env, (), |env| {
        let n = usize::try_from(count).map_err(|_| Failure::Native(format!("a batch of {count} events")))?;
        let fits = |len: i32, per: usize| usize::try_from(len).is_ok_and(|len| len >= n * per);
        if !fits(env.get_array_length(&ints)?, glue::BATCH_INTS)
            || !fits(env.get_array_length(&longs)?, glue::BATCH_LONGS)
            || !fits(env.get_array_length(&progress)?, 1)
        {
            return Err(Failure::Native(format!("a batch's arrays are too short for its {n} events")));
        }
        let mut i = vec![0; n * glue::BATCH_INTS];
        let mut l = vec![0; n * glue::BATCH_LONGS];
        let mut p = vec![0.0; n];
        env.get_int_array_region(&ints, 0, &mut i)?;
        env.get_long_array_region(&longs, 0, &mut l)?;
        env.get_double_array_region(&progress, 0, &mut p)?;
        with_job(handle, |job| glue::ingest_batch(&mut job.engine, &i, &l, &p).map_err(Failure::Native))
    })
}

/// The actions at `now_ms` as typed records: an `Object[]` of an `int[]` and a `String[]`, laid
/// out as `glue::TypedActions` describes.
#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_decide<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    now_ms: jlong,
) -> jobjectArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        let typed = with_job(handle, |job| {
            let actions = job.engine.decide(now_ms);
            Ok(glue::encode_typed(&actions, job.engine.config().log_copies_per_scan))
        })?;
        let len = i32::try_from(typed.ints.len()).map_err(|_| Failure::Native("too many actions".into()))?;
        let ints = env.new_int_array(len)?;
        env.set_int_array_region(&ints, 0, &typed.ints)?;
        let strings = env.new_object_array(typed.strings.len() as i32, "java/lang/String", JObject::null())?;
        for (i, s) in typed.strings.iter().enumerate() {
            let js = env.new_string(s)?;
            env.set_object_array_element(&strings, i as i32, &js)?;
            env.delete_local_ref(js)?;
        }
        let out = env.new_object_array(2, "java/lang/Object", JObject::null())?;
        env.set_object_array_element(&out, 0, &ints)?;
        env.set_object_array_element(&out, 1, &strings)?;
        Ok(out.into_raw())
    })
}

#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_close<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) {
    guard(&mut env, (), |_| {
        if handle != 0 {
            // SAFETY: see `with_job`; the Java side never passes a handle again after this call.
            drop(unsafe { Box::from_raw(handle as *mut Shared) });
        }
        Ok(())
    })
}

/// The decision log's records since the last call, one JSON object a line (empty when the log
/// is off).
#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_records<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jstring {
    guard(&mut env, std::ptr::null_mut(), |env| {
        let text = with_job(handle, |job| Ok(glue::encode_records(&job.engine.take_records())))?;
        Ok(env.new_string(text)?.into_raw())
    })
}

/// The decision log's summary record at `now_ms`.
#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_summary<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    now_ms: jlong,
) -> jstring {
    guard(&mut env, std::ptr::null_mut(), |env| {
        let text = with_job(handle, |job| Ok(job.engine.summary_record(now_ms)))?;
        Ok(env.new_string(text)?.into_raw())
    })
}

/// Return on investment so far, as `glue::encode_roi` writes it.
#[no_mangle]
pub extern "system" fn Java_io_rein_yarn_NativeEngine_roi<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jstring {
    guard(&mut env, std::ptr::null_mut(), |env| {
        let text = with_job(handle, |job| Ok(glue::encode_roi(&job.engine.roi())))?;
        Ok(env.new_string(text)?.into_raw())
    })
}
