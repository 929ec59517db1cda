//! libFuzzer target `acp`: see [`mcp_fuzz::acp`] and `docs/fuzzing.md`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::acp(data));
