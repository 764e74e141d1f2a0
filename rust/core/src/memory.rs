//! Transparent huge pages for a big job's blocks (`rein.memory.huge-pages`).
//!
//! A job of 100K tasks keeps about 30 MB of per-task records (tasks, briefs, bookings). Every
//! event reaches one of them at random and every decision walks them: 7,500 pages of 4 KB, more
//! than the processor's translation cache holds, so an event also waits for its page's table
//! entry. A first decision that writes a list of 100K actions (Dolly's clones, 8.8 MB), of
//! candidates (`auto`'s, 4.8 MB of room) or makes room for a memo per task (the stock model's,
//! 5.3 MB) faults on each fresh page of 4 KB as it
//! first touches it (about 1 µs each on the bench machine: 2,256 faults, 2.3 ms, for the
//! clones). Linux maps a range advised with `MADV_HUGEPAGE` in pages of 2 MB as it is first
//! touched, one fault each, where `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` or
//! `always`; with `never` the advice changes nothing. rein advises only room it has just
//! reserved and not yet touched, and only blocks of 4 MB and more (jobs of about 20K tasks and
//! more); a small job's memory is used as the allocator gives it.
//!
//! Advice reaches only the whole huge pages inside a block. glibc places a big block 16 bytes
//! past a 4-KB page, anywhere: a list of 8.8 MB then holds three or four whole huge pages and
//! leaves 0.8 to 2.8 MB at its two ends in pages of 4 KB (200 to 700 faults, about 1.2 µs each,
//! where its 2-MB pages cost 0.08 ms each to clear). rein's global allocator ([`Allocator`],
//! which librein and the simulator declare and the benchmarks link) starts every fresh block of
//! [`ADVISE_FROM`] bytes or more on a huge-page boundary, so that only its tail is left in small
//! pages.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

/// The size of a transparent huge page on x86-64 (and on arm64 with 4-KB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// Room below this is not advised: it would hold one whole huge page at the most. Fresh blocks
/// of this size and more start on a huge-page boundary ([`Allocator`]).
const ADVISE_FROM: usize = 2 * HUGE_PAGE;

/// glibc's `malloc` alignment on 64-bit Linux: a layout aligned to no more is served by `calloc`
/// and `realloc` as they are.
#[cfg(target_os = "linux")]
const MALLOC_ALIGN: usize = 16;

/// Bytes the program holds from [`Allocator`], as the layouts asked (not the allocator's
/// rounding): what the memory tests read. Counted in every build, one relaxed addition a call.
static LIVE: AtomicIsize = AtomicIsize::new(0);

/// Bytes held from [`Allocator`] now: the layouts' sizes, summed over the blocks not yet freed.
/// Zero unless the program declared `Allocator` its global allocator.
pub fn live_bytes() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// rein's global allocator: the system's, with two additions. A fresh block of 4 MB or more
/// ([`ADVISE_FROM`]) starts on a huge-page boundary, so that the advice of [`reserve_exact`]
/// reaches all of it but its tail (on Linux; elsewhere, and for the rest, the system's own
/// placement). And the bytes held are counted ([`live_bytes`]). Zeroed blocks are `calloc`'s
/// as ever (fresh memory the kernel zeroes as it is touched, not written now), and a big block
/// that grows is grown by `realloc` (which remaps a block glibc mapped on its own rather than
/// copying it), wherever it lands.
///
/// Declared by librein (`rein-jni`, and so in the benchmarks, which link it) and the simulator:
/// `#[global_allocator] static ALLOCATOR: rein_core::Allocator = rein_core::Allocator;`
pub struct Allocator;

// SAFETY: every block is the system's or glibc's malloc family's (which the system's is on
// Linux), and each is freed, grown or shrunk by the family that made it: a layout's size says
// which (`big`), and a block that crosses the bound is moved to the other side, not reallocated.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { big::alloc(layout) };
        counted(p, layout.size() as isize)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { big::alloc_zeroed(layout) };
        counted(p, layout.size() as isize)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { big::dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { big::realloc(ptr, layout, new_size) };
        counted(p, new_size as isize - layout.size() as isize)
    }
}

fn counted(p: *mut u8, bytes: isize) -> *mut u8 {
    if !p.is_null() {
        LIVE.fetch_add(bytes, Ordering::Relaxed);
    }
    p
}

/// The allocator's placement, by the size of the block: below [`ADVISE_FROM`], the system's.
#[cfg(target_os = "linux")]
mod big {
    use super::*;
    use std::ffi::{c_int, c_void};

    extern "C" {
        fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> c_int;
        fn calloc(count: usize, size: usize) -> *mut c_void;
        #[link_name = "realloc"]
        fn c_realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
        fn free(ptr: *mut c_void);
    }

    fn is_big(size: usize) -> bool {
        size >= ADVISE_FROM
    }

    pub(super) unsafe fn alloc(layout: Layout) -> *mut u8 {
        if !is_big(layout.size()) {
            return unsafe { System.alloc(layout) };
        }
        let mut p = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the alignment is a power of two and a multiple of the
        // pointer's size.
        match unsafe { posix_memalign(&mut p, layout.align().max(HUGE_PAGE), layout.size()) } {
            0 => p.cast(),
            _ => std::ptr::null_mut(),
        }
    }

    pub(super) unsafe fn alloc_zeroed(layout: Layout) -> *mut u8 {
        if !is_big(layout.size()) {
            return unsafe { System.alloc_zeroed(layout) };
        }
        if layout.align() <= MALLOC_ALIGN {
            // SAFETY: calloc with a nonzero size.
            return unsafe { calloc(1, layout.size()) }.cast();
        }
        let p = unsafe { alloc(layout) };
        if !p.is_null() {
            // SAFETY: p holds layout.size() bytes.
            unsafe { p.write_bytes(0, layout.size()) };
        }
        p
    }

    pub(super) unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
        if is_big(layout.size()) {
            // SAFETY: a big block is posix_memalign's, calloc's or realloc's (`alloc`, `realloc`).
            unsafe { free(ptr.cast()) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    pub(super) unsafe fn realloc(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (is_big(layout.size()), is_big(new_size)) {
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            // SAFETY: a big block is the malloc family's; its alignment is malloc's.
            (true, true) if layout.align() <= MALLOC_ALIGN => unsafe { c_realloc(ptr.cast(), new_size) }.cast(),
            // Across the bound (or an alignment realloc does not keep): a new block on the other
            // side, the contents copied.
            _ => {
                // SAFETY: the caller's new size, nonzero, within isize with this alignment.
                let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                let p = unsafe { alloc(new) };
                if !p.is_null() {
                    // SAFETY: both blocks hold the smaller size; they are distinct.
                    unsafe { std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size)) };
                    unsafe { dealloc(ptr, layout) };
                }
                p
            }
        }
    }
}

/// Elsewhere, the system's placement throughout.
#[cfg(not(target_os = "linux"))]
mod big {
    use super::*;

    pub(super) unsafe fn alloc(layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }

    pub(super) unsafe fn alloc_zeroed(layout: Layout) -> *mut u8 {
        unsafe { System.alloc_zeroed(layout) }
    }

    pub(super) unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    pub(super) unsafe fn realloc(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// `Vec::reserve_exact`, with the new room advised for huge pages when `huge` and it spans
/// [`ADVISE_FROM`] bytes or more. Advice only: nothing changes for the list but how the kernel
/// maps it.
pub(crate) fn reserve_exact<T>(list: &mut Vec<T>, additional: usize, huge: bool) {
    let before = list.capacity();
    list.reserve_exact(additional);
    if huge && list.capacity() != before {
        let size = std::mem::size_of::<T>();
        let room = (list.capacity() - list.len()) * size;
        if room >= ADVISE_FROM {
            advise_huge(list.as_ptr() as usize + list.len() * size, room);
        }
    }
}

/// `Vec::with_capacity`, the room advised as [`reserve_exact`] advises it.
pub(crate) fn with_capacity<T>(capacity: usize, huge: bool) -> Vec<T> {
    let mut list = Vec::new();
    reserve_exact(&mut list, capacity, huge);
    list
}

/// The whole huge pages within `len` bytes from `start`, as a start and an end; empty (start ≥
/// end) when there are none. The pages at either end that the block shares with other memory
/// are left out.
fn whole_huge_pages(start: usize, len: usize) -> (usize, usize) {
    let from = start.next_multiple_of(HUGE_PAGE);
    let to = start.saturating_add(len) / HUGE_PAGE * HUGE_PAGE;
    (from, to)
}

#[cfg(target_os = "linux")]
fn advise_huge(start: usize, len: usize) {
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: std::ffi::c_int) -> std::ffi::c_int;
    }
    const MADV_HUGEPAGE: std::ffi::c_int = 14;
    let (from, to) = whole_huge_pages(start, len);
    if to > from {
        // A kernel built without transparent huge pages refuses the advice (EINVAL); the memory
        // is then used as it is, so the result is not looked at.
        // SAFETY: the range lies within the caller's allocation; MADV_HUGEPAGE changes how the
        // kernel maps it, never its contents.
        unsafe { madvise(from as *mut std::ffi::c_void, to - from, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_the_block_are_advised() {
        // A block of 4 MB that starts 4 KB past a huge page's start holds one whole huge page.
        let start = 7 * HUGE_PAGE + 4096;
        assert_eq!(whole_huge_pages(start, 4 << 20), (8 * HUGE_PAGE, 9 * HUGE_PAGE));
        // An aligned block of exactly two huge pages is advised whole.
        assert_eq!(whole_huge_pages(4 * HUGE_PAGE, 2 * HUGE_PAGE), (4 * HUGE_PAGE, 6 * HUGE_PAGE));
        // A block of nearly two huge pages across a boundary holds none.
        let (from, to) = whole_huge_pages(HUGE_PAGE + 4096, 2 * HUGE_PAGE - 8192);
        assert!(from >= to, "no whole huge page in the block");
        for (start, len) in [(1usize, 10 << 20), (HUGE_PAGE - 1, 3 * HUGE_PAGE + 5), (123_456_789, 9_999_999)] {
            let (from, to) = whole_huge_pages(start, len);
            assert!(from % HUGE_PAGE == 0 && to % HUGE_PAGE == 0, "whole pages only");
            assert!(from >= start && to <= start + len, "inside the block");
            assert!(from - start < HUGE_PAGE && start + len - to < HUGE_PAGE, "no whole page left out");
        }
    }

    /// The allocator called directly (the unit tests run under the system's): blocks on each side
    /// of the bound, and moved across it, keep their contents; a fresh big block starts on a huge
    /// page; the count follows every call.
    #[test]
    fn the_allocator_places_big_blocks_on_huge_pages_and_counts_what_it_holds() {
        let a = Allocator;
        let at = |size: usize, align: usize| Layout::from_size_align(size, align).unwrap();
        // The count is process-wide, and other tests allocate through the system's allocator
        // only: it moves with this test's calls alone.
        let before = live_bytes();
        unsafe {
            for align in [8, 64] {
                let small = a.alloc(at(1000, align));
                assert!(!small.is_null() && small as usize % align == 0);
                small.write_bytes(7, 1000);
                // Small to big: moved, on a huge page where huge pages are placed.
                let big = a.realloc(small, at(1000, align), 5 << 20);
                assert!(!big.is_null() && big as usize % align == 0);
                assert_eq!((*big, *big.add(999)), (7, 7));
                if cfg!(target_os = "linux") {
                    assert_eq!(big as usize % HUGE_PAGE, 0, "a block moved past the bound starts on a huge page");
                }
                big.add(1000).write_bytes(9, (5 << 20) - 1000);
                // Big to bigger, then back below the bound.
                let bigger = a.realloc(big, at(5 << 20, align), 9 << 20);
                assert_eq!((*bigger, *bigger.add(999), *bigger.add((5 << 20) - 1)), (7, 7, 9));
                assert_eq!(live_bytes() - before, 9 << 20);
                let back = a.realloc(bigger, at(9 << 20, align), 2000);
                assert_eq!((*back, *back.add(999), *back.add(1999)), (7, 7, 9));
                a.dealloc(back, at(2000, align));
                assert_eq!(live_bytes(), before);
            }
            let fresh = a.alloc(at(8 << 20, 8));
            if cfg!(target_os = "linux") {
                assert_eq!(fresh as usize % HUGE_PAGE, 0, "a fresh big block starts on a huge page");
            }
            a.dealloc(fresh, at(8 << 20, 8));
            for align in [8, 4096] {
                let zeroed = a.alloc_zeroed(at(6 << 20, align));
                assert!(!zeroed.is_null() && zeroed as usize % align == 0);
                assert!(std::slice::from_raw_parts(zeroed, 6 << 20).iter().all(|&b| b == 0));
                a.dealloc(zeroed, at(6 << 20, align));
            }
        }
        assert_eq!(live_bytes(), before);
    }

    #[test]
    fn reserving_keeps_the_list_and_its_room_as_reserve_exact_does() {
        for huge in [false, true] {
            let mut list: Vec<u64> = (0..10).collect();
            reserve_exact(&mut list, 1 << 20, huge);
            assert!(list.capacity() >= 10 + (1 << 20));
            assert_eq!(list, (0..10).collect::<Vec<u64>>());
            list.resize(1 << 20, 7);
            assert_eq!((list[9], list[10], list[(1 << 20) - 1]), (9, 7, 7));
            let fresh: Vec<u64> = with_capacity(1 << 20, huge);
            assert!(fresh.is_empty() && fresh.capacity() >= 1 << 20);
        }
    }

    /// Whether the mapping that holds address `at` carries the `hg` flag in `/proc/self/smaps`:
    /// advised for huge pages (`MADV_HUGEPAGE`).
    #[cfg(target_os = "linux")]
    fn advised(at: usize) -> bool {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps");
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split(' ').next().unwrap_or("");
            if let Some((lo, hi)) = first.split_once('-').filter(|_| !first.ends_with(':')) {
                let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap(), usize::from_str_radix(hi, 16).unwrap());
                inside = lo <= at && at < hi;
            } else if let Some(flags) = line.strip_prefix("VmFlags:").filter(|_| inside) {
                return flags.split_whitespace().any(|f| f == "hg");
            }
        }
        panic!("no mapping in /proc/self/smaps holds {at:#x}")
    }

    #[cfg(target_os = "linux")]
    fn kernel_has_huge_pages() -> bool {
        let has = std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists();
        if !has {
            eprintln!("skipped: this kernel has no transparent huge pages");
        }
        has
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_big_block_is_advised_where_the_kernel_has_huge_pages() {
        if !kernel_has_huge_pages() {
            return;
        }
        let list: Vec<u8> = with_capacity(16 << 20, true);
        let (from, to) = whole_huge_pages(list.as_ptr() as usize, list.capacity());
        assert!(to > from);
        assert!(advised(from) && advised(to - 1), "the block's whole huge pages are advised");
    }

    /// A big job's task list, made when the job's size arrives, is advised; the key is the
    /// engine's.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_big_jobs_records_are_advised_unless_the_key_says_no() {
        use crate::{Engine, Event, TaskKind};
        let (off, _) = Engine::from_pairs([("rein.memory.huge-pages", "false")]).unwrap();
        assert!(!off.job().huge_pages);
        if !kernel_has_huge_pages() {
            return;
        }
        let (mut e, _) = Engine::from_pairs([]).unwrap();
        assert!(e.job().huge_pages);
        e.ingest(0, Event::JobCreated { maps: 100_000, reduces: 0 });
        let tasks = e.job().tasks(TaskKind::Map);
        let bytes = std::mem::size_of_val(tasks);
        assert!(bytes >= 8 << 20, "a 100K-task job's list spans {bytes} bytes");
        let (from, to) = whole_huge_pages(tasks.as_ptr() as usize, bytes);
        assert!(advised(from) && advised(to - 1), "the task list's whole huge pages are advised");
    }
}
