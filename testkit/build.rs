//! Build script: the test tier's `cfg(cmk_full)` from `CMK_FULL` (see `testkit/build/tier.rs`).

include!("build/tier.rs");

fn main() {
    emit_tier_cfg();
}
