//! Transparent huge pages for a big job's blocks (`rein.memory.huge-pages`).
//!
//! A job of 100K tasks keeps about 30 MB of per-task records (tasks, briefs, bookings). Every
//! event reaches one of them at random and every decision walks them: 7,500 pages of 4 KB, more
//! than the processor's translation cache holds, so an event also waits for its page's table
//! entry. A first decision that writes a list of 100K actions (Dolly's clones, 8.8 MB) or makes
//! room for a memo per task (the stock model's, 5.3 MB) faults on each fresh page of 4 KB as it
//! first touches it (about 1 µs each on the bench machine: 2,256 faults, 2.3 ms, for the
//! clones). Linux maps a range advised with `MADV_HUGEPAGE` in pages of 2 MB as it is first
//! touched, one fault each, where `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` or
//! `always`; with `never` the advice changes nothing. rein advises only room it has just
//! reserved and not yet touched, and only blocks of 4 MB and more (jobs of about 20K tasks and
//! more); a small job's memory is used as the allocator gives it.

/// The size of a transparent huge page on x86-64 (and on arm64 with 4-KB base pages).
const HUGE_PAGE: usize = 2 << 20;

/// Room below this is not advised: it would hold one whole huge page at the most.
const ADVISE_FROM: usize = 2 * HUGE_PAGE;

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
