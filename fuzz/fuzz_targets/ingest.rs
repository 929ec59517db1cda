//! libFuzzer target `ingest`: see [`mcp_fuzz::ingest`] and `docs/fuzzing.md`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::ingest(data));
