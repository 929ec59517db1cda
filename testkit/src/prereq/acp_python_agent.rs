//! The ACP Python SDK `agent-client-protocol==0.12.1` (the version of the reference transcript
//! `python-sdk-0.12.1-echo_agent.jsonl`) in a venv of its own, plus the SDK's echo agent.
//!
//! The wheel ships only the `acp` package; the echo agent lives in the source distribution's
//! `examples/echo_agent.py`. The install therefore also downloads that sdist (`pip download
//! --no-deps --no-binary :all:`), checks its SHA-256 against [`ACP_PYTHON_SDIST_SHA256`] and
//! copies `examples/echo_agent.py` into the venv folder. Run with the venv's `python`, the echo
//! agent answers `initialize` (echoing the protocol version, no capabilities), `session/new`,
//! and `session/prompt` with one `agent_message_chunk` per prompt block carrying the block's
//! text (plus `_meta` fields), then `stopReason: "end_turn"`. Transitive Python dependencies
//! (pydantic) are not pinned. `CMK_PYTHON` overrides the `python3` that creates the venv.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::{self, StepLog};
use super::venv;

/// The pinned SDK version.
pub const ACP_PYTHON_SDK_VERSION: &str = "0.12.1";
/// SHA-256 of `agent_client_protocol-0.12.1.tar.gz` on PyPI (the echo agent's source).
pub const ACP_PYTHON_SDIST_SHA256: &str =
    "9963ccb590ed96d7dc542c9c023e90676fc76b1c6562e21a9ee112f4fbcb0095";

const INSTALL_NAME: &str = "acp-python-sdk-0.12.1";
const ECHO_AGENT: &str = "echo_agent.py";
const VERSION_PROBE: &str =
    "import importlib.metadata as m, acp; print(m.version('agent-client-protocol'))";
/// Checks the sdist's hash and copies its `examples/echo_agent.py` to argv[3].
const EXTRACT_ECHO: &str = r#"
import hashlib, pathlib, sys, tarfile
sdist_dir, expected, target = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
[sdist] = list(sdist_dir.glob("agent_client_protocol-*.tar.gz"))
digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
if digest != expected:
    sys.exit(f"sha256 of {sdist.name} is {digest}, expected {expected}")
with tarfile.open(sdist) as tar:
    member = next(m for m in tar.getmembers() if m.name.endswith("/examples/echo_agent.py"))
    target.write_bytes(tar.extractfile(member).read())
"#;

/// The venv's `python` and the echo agent script, installed on first use.
pub fn acp_python_echo_agent_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS
        .get_or_init(|| {
            let dir = install::ensure(INSTALL_NAME, is_complete, build)?;
            Ok((venv::python_in(&dir), dir.join(ECHO_AGENT)))
        })
        .clone()
}

/// `python echo_agent.py` with the venv's python: the Python SDK's echo agent on stdio. The
/// caller sets stdio and the process group.
pub fn acp_python_echo_agent() -> Result<Command, PrereqError> {
    let (python, script) = acp_python_echo_agent_paths()?;
    let mut cmd = Command::new(python);
    cmd.arg(script);
    Ok(cmd)
}

fn is_complete(dir: &Path) -> bool {
    venv::python_in(dir).is_file() && dir.join(ECHO_AGENT).is_file()
}

fn build(dir: &Path, log: &mut StepLog) -> Result<(), PrereqError> {
    let python = venv::create(dir, log)?;
    let requirement = format!("agent-client-protocol=={ACP_PYTHON_SDK_VERSION}");
    log.run(
        "pip install agent-client-protocol",
        &mut venv::pip(&python, &["install", &requirement]),
    )?;
    let sdist_dir = dir.join("sdist");
    let sdist_arg = sdist_dir.to_string_lossy().into_owned();
    log.run(
        "pip download the sdist",
        &mut venv::pip(
            &python,
            &[
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                &sdist_arg,
                &requirement,
            ],
        ),
    )?;
    log.run(
        "extract examples/echo_agent.py",
        Command::new(&python)
            .args(["-c", EXTRACT_ECHO])
            .arg(&sdist_dir)
            .arg(ACP_PYTHON_SDIST_SHA256)
            .arg(dir.join(ECHO_AGENT)),
    )?;
    match venv::probe(&python, "import acp", VERSION_PROBE, log) {
        Ok(found) if found == ACP_PYTHON_SDK_VERSION => Ok(()),
        Ok(found) | Err(found) => Err(PrereqError::WrongVersion {
            what: "python agent-client-protocol",
            expected: ACP_PYTHON_SDK_VERSION,
            found,
        }),
    }
}
