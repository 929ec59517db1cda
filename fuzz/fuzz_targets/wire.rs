//! libFuzzer target `wire`: see [`mcp_fuzz::wire`] and `docs/fuzzing.md`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::wire(data));
