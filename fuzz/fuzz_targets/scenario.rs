//! libFuzzer target `scenario`: see [`mcp_fuzz::scenario`] and `docs/fuzzing.md`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::scenario(data));
