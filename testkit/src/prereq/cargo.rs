//! The `cargo` that builds a pinned Rust peer from crates.io: `CMK_CARGO`, else the `cargo`
//! running this build (`CARGO`), else `cargo` on the PATH, without the calling cargo's build
//! variables (a test run sets them): extra compiler flags (`-D warnings` or a `cfg` of this
//! workspace) and target or install folders must not reach a build of another project.

use std::process::Command;

/// Variables of the calling cargo that must not reach a build of another project.
const BUILD_VARS: [&str; 6] = [
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "CARGO_INSTALL_ROOT",
];

/// A `cargo` command for another project's build.
pub(crate) fn cargo() -> Command {
    let cargo = std::env::var_os("CMK_CARGO")
        .or_else(|| std::env::var_os("CARGO"))
        .unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    for var in BUILD_VARS {
        cmd.env_remove(var);
    }
    cmd
}
