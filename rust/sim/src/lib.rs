//! rein-sim: the trace-driven simulator over rein-core. It grows in its own milestone; for now it
//! only proves that the engine builds as a library for a second host.

pub use rein_core::Engine;
