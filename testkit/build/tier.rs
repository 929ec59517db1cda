// The test tier, shared by the build scripts of every package whose tests are tiered (each
// `build.rs` includes this file and calls `emit_tier_cfg`). `CMK_FULL=1` (or `true`) at build
// time sets `cfg(cmk_full)`: the full tier, whose tests need real peers (the real claude, npm and
// PyPI servers, hosts, real ACP agents) or run whole-gate matrices. Without it those tests are
// `#[ignore]`d with the reason `full tier: CMK_FULL=1`, so `cargo test --workspace` is the fast,
// hermetic tier and says how many it left out. Cargo rebuilds the package when the variable
// changes (`rerun-if-env-changed`), so switching tiers needs no `cargo clean`.

/// Prints the cargo directives of the tier: the `cmk_full` cfg when `CMK_FULL` asks for it, and
/// the cfg's declaration either way (so `unexpected_cfgs` knows it).
fn emit_tier_cfg() {
    println!("cargo::rerun-if-env-changed=CMK_FULL");
    println!("cargo::rustc-check-cfg=cfg(cmk_full)");
    let value = std::env::var("CMK_FULL").unwrap_or_default();
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" => println!("cargo::rustc-cfg=cmk_full"),
        "" | "0" | "false" => {}
        _ => panic!("CMK_FULL={value:?}: set CMK_FULL=1 for the full test tier, or leave it unset"),
    }
}
