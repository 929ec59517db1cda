//! Build script: the test tier's `cfg(cmk_full)` from `CMK_FULL` (see `testkit/build/tier.rs`).

include!("../testkit/build/tier.rs");

fn main() {
    emit_tier_cfg();
}
