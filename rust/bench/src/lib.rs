//! Nothing here: the crate exists for its benchmarks (`benches/engine.rs`), so that Criterion
//! is built only when they are (`cargo bench -p rein-bench`), not by `scripts/test.sh`.
