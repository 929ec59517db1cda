//! The ACP Python SDK's example client (`examples/client.py` of `agent-client-protocol==0.12.1`),
//! a real ACP client nobody here wrote: `python client.py AGENT_PROGRAM [ARGS…]` starts the
//! agent, sends `initialize` (no client capabilities) and `session/new` (cwd = its own), then
//! reads prompts from its stdin, one `session/prompt` per line; at stdin EOF it terminates the
//! agent (SIGTERM) and exits. It answers `session/request_permission`, `fs/*`, `terminal/*` and
//! extension methods with `-32601`. It has no way to cancel a turn.
//!
//! It lives in the same venv as the echo agent ([`super::acp_python_echo_agent_paths`]): the
//! script is extracted on first use from the sdist that install already downloaded and checked,
//! its SHA-256 checked again here ([`super::ACP_PYTHON_SDIST_SHA256`]).

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, OnceLock};

use super::PrereqError;

const CLIENT: &str = "example_client.py";
/// Checks the sdist's hash and copies its `examples/client.py` to argv[3] (through a temporary
/// name and a rename, so concurrent first uses never see half a file).
const EXTRACT_CLIENT: &str = r#"
import hashlib, os, pathlib, sys, tarfile
sdist_dir, expected, target = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
[sdist] = list(sdist_dir.glob("agent_client_protocol-*.tar.gz"))
digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
if digest != expected:
    sys.exit(f"sha256 of {sdist.name} is {digest}, expected {expected}")
with tarfile.open(sdist) as tar:
    member = next(m for m in tar.getmembers() if m.name.endswith("/examples/client.py"))
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(tar.extractfile(member).read())
    os.replace(tmp, target)
"#;

/// The venv's `python` and the example client script, installed on first use.
pub fn acp_python_example_client_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS
        .get_or_init(|| {
            let (python, echo) = super::acp_python_echo_agent_paths()?;
            let dir = echo
                .parent()
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("."));
            let client = dir.join(CLIENT);
            if !client.is_file() {
                let out = Command::new(&python)
                    .args(["-c", EXTRACT_CLIENT])
                    .arg(dir.join("sdist"))
                    .arg(super::ACP_PYTHON_SDIST_SHA256)
                    .arg(&client)
                    .output()
                    .map_err(|e| PrereqError::Io {
                        what: "run".into(),
                        path: python.clone(),
                        source: Arc::new(e),
                    })?;
                if !out.status.success() {
                    return Err(PrereqError::StepFailed {
                        step: "extract examples/client.py".into(),
                        detail: format!("exit {:?}", out.status.code()),
                        log: client.clone(),
                        tail: String::from_utf8_lossy(&out.stderr).into_owned(),
                    });
                }
            }
            Ok((python, client))
        })
        .clone()
}

/// `python client.py` with the venv's python; the caller adds the agent's command line.
pub fn acp_python_example_client() -> Result<Command, PrereqError> {
    let (python, script) = acp_python_example_client_paths()?;
    let mut cmd = Command::new(python);
    cmd.arg(script);
    Ok(cmd)
}
