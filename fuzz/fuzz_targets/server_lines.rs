//! libFuzzer target `server_lines`: see [`mcp_fuzz::server_lines`] and `docs/fuzzing.md`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::server_lines(data));
