//! libFuzzer target `dispatch`: see [`mcp_fuzz::dispatch`] and `docs/fuzzing.md`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::dispatch(data));
