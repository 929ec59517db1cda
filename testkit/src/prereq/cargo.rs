//! The `cargo` that builds a pinned Rust peer from crates.io: `CMK_CARGO`, else the `cargo`
//! running this build (`CARGO`), else `cargo` on the PATH, without the calling cargo's build
//! variables (a test run sets them): extra compiler flags (`-D warnings` or a `cfg` of this
//! workspace) and target or install folders must not reach a build of another project.

use std::path::Path;
use std::process::Command;

use super::PrereqError;
use super::install::{StepLog, cache_root, io_err};

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

/// `cargo install --locked --debug` of `name@version` (with `features`) into `store`, as the
/// install step `cargo install NAME`: the crate's own lock file pins its dependencies, a debug
/// build suffices (the gates grade protocol behaviour, which optimisation does not change), and
/// it compiles in `build/INSTALL_NAME/` under the cache root, kept after the install so that an
/// interrupted or repeated install does not start over. Run in `store`, outside any workspace,
/// so no project's `.cargo/config.toml` applies.
pub(crate) fn install_crate(
    store: &Path,
    install_name: &str,
    (name, version): (&str, &str),
    features: &[&str],
    log: &mut StepLog,
) -> Result<(), PrereqError> {
    let target = cache_root()?.join("build").join(install_name);
    std::fs::create_dir_all(&target).map_err(|e| io_err("create build folder", &target, e))?;
    let mut cmd = cargo();
    cmd.args(["install", "--locked", "--debug"]);
    for feature in features {
        cmd.args(["--features", feature]);
    }
    cmd.arg("--root")
        .arg(store)
        .arg("--target-dir")
        .arg(&target)
        .arg(format!("{name}@{version}"))
        .current_dir(store);
    log.run(&format!("cargo install {name}"), &mut cmd)
}
