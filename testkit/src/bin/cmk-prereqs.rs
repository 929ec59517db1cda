//! `cmk-prereqs`: installs every pinned real peer and host into the cache (CI runs it first so install
//! failures surface early and apart from test failures) and prints where each one is.
//!
//! `cmk-prereqs --print NAME` installs only that peer and prints just where it is, for scripts:
//! `claude` (its path; CI's drift check), `server-everything` (its entry script), `python-mcp`
//! (the venv's `python`), `rust-mcp-server` (its binary), `mcp-reference-servers` (the entry
//! scripts of the filesystem, memory and sequential-thinking servers, on one line),
//! `mcp-reference-servers-py` (the venv's `bin` folder, with `mcp-server-time` and
//! `mcp-server-git`) and `official-conformance` (its `node` and entry script on one line: the
//! official MCP conformance suite, which the plain run leaves out since no test needs it). `scripts/official-suite.sh` uses `server-everything`,
//! `python-mcp` and `official-conformance`.

use std::process::ExitCode;

use testkit::prereq::{self, PrereqError};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => {}
        ["--print", name] => return print_one(name),
        _ => {
            eprintln!("usage: cmk-prereqs [--print {}]", PRINTABLE.join("|"));
            return ExitCode::from(2);
        }
    }
    let root = match prereq::cache_root() {
        Ok(root) => root,
        Err(error) => {
            eprintln!("cmk-prereqs: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("cache: {}", root.display());
    let results: [(&str, Result<String, PrereqError>); 26] = [
        (
            "claude",
            prereq::claude().map(|p| format!("{} ({})", p.display(), prereq::CLAUDE_VERSION_LINE)),
        ),
        (
            "server-everything",
            prereq::everything_server().map(|cmd| format!("{cmd:?}")),
        ),
        (
            "python-mcp",
            prereq::python_mcp()
                .map(|p| format!("{} (mcp {})", p.display(), prereq::PYTHON_MCP_VERSION)),
        ),
        (
            "rust-mcp-server",
            prereq::rust_mcp_server().map(|cmd| {
                format!(
                    "{cmd:?} (rust-mcp-server {}, rmcp {})",
                    prereq::RUST_MCP_SERVER_VERSION,
                    prereq::RUST_MCP_SERVER_RMCP_VERSION
                )
            }),
        ),
        (
            "kubernetes-mcp-server",
            prereq::kubernetes_mcp_server().map(|cmd| {
                format!(
                    "{cmd:?} (kubernetes-mcp-server {}, on {})",
                    prereq::KUBERNETES_MCP_SERVER_VERSION,
                    prereq::KUBERNETES_MCP_SERVER_SDK
                )
            }),
        ),
        (
            "azure-mcp",
            prereq::azure_mcp_binary().map(|p| {
                format!(
                    "{} server start (@azure/mcp {}, on {})",
                    p.display(),
                    prereq::AZURE_MCP_VERSION,
                    prereq::AZURE_MCP_SDK
                )
            }),
        ),
        (
            "context7-mcp",
            prereq::context7_mcp_entry().map(|p| {
                format!(
                    "node {} (@upstash/context7-mcp {}, on {})",
                    p.display(),
                    prereq::CONTEXT7_MCP_VERSION,
                    prereq::CONTEXT7_MCP_SDK
                )
            }),
        ),
        (
            "mcp-reference-servers",
            prereq::mcp_reference_server_entries().map(|entries| {
                format!(
                    "{} (@modelcontextprotocol/server-filesystem, server-memory, \
                     server-sequential-thinking {})",
                    entries
                        .iter()
                        .map(|p| format!("node {}", p.display()))
                        .collect::<Vec<_>>()
                        .join(", "),
                    prereq::MCP_REFERENCE_SERVERS_VERSION
                )
            }),
        ),
        (
            "mcp-reference-servers-py",
            prereq::mcp_reference_servers_py_bin().map(|bin| {
                format!(
                    "{}/mcp-server-time, {}/mcp-server-git (both {})",
                    bin.display(),
                    bin.display(),
                    prereq::MCP_REFERENCE_SERVERS_PY_VERSION
                )
            }),
        ),
        (
            "fastmcp-server",
            prereq::fastmcp_server_bin().map(|p| {
                format!(
                    "{} ROOT (better-mcps-filesystem {}, on fastmcp {})",
                    p.display(),
                    prereq::FASTMCP_SERVER_VERSION,
                    prereq::FASTMCP_VERSION
                )
            }),
        ),
        (
            "rust-mcp-filesystem",
            prereq::rust_mcp_filesystem().map(|cmd| {
                format!(
                    "{cmd:?} (rust-mcp-filesystem {}, on {})",
                    prereq::RUST_MCP_FILESYSTEM_VERSION,
                    prereq::RUST_MCP_FILESYSTEM_SDK
                )
            }),
        ),
        (
            "firecrawl-mcp",
            prereq::firecrawl_mcp_entry().map(|p| {
                format!(
                    "node {} (firecrawl-mcp {}, on {})",
                    p.display(),
                    prereq::FIRECRAWL_MCP_VERSION,
                    prereq::FIRECRAWL_MCP_SDK
                )
            }),
        ),
        (
            "acp-ts-example-agent",
            prereq::acp_ts_example_agent().map(|cmd| {
                format!(
                    "{cmd:?} (@agentclientprotocol/sdk {})",
                    prereq::ACP_TS_SDK_VERSION
                )
            }),
        ),
        (
            "acp-claude-agent",
            prereq::acp_claude_agent_entry().map(|p| {
                format!(
                    "node {} (@zed-industries/claude-agent-acp {})",
                    p.display(),
                    prereq::ACP_CLAUDE_AGENT_VERSION
                )
            }),
        ),
        (
            "acp-claude-code",
            prereq::acp_claude_code_entry().map(|p| {
                format!(
                    "node {} (@zed-industries/claude-code-acp {})",
                    p.display(),
                    prereq::ACP_CLAUDE_CODE_VERSION
                )
            }),
        ),
        (
            "acp-gemini-cli",
            prereq::acp_gemini_cli_entry().map(|p| {
                format!(
                    "node {} --acp (@google/gemini-cli {})",
                    p.display(),
                    prereq::ACP_GEMINI_CLI_VERSION
                )
            }),
        ),
        (
            "acp-codex",
            prereq::acp_codex_binary().map(|p| {
                format!(
                    "{} (@zed-industries/codex-acp {})",
                    p.display(),
                    prereq::ACP_CODEX_VERSION
                )
            }),
        ),
        (
            "acp-qwen-code",
            prereq::acp_qwen_code_paths().map(|(entry, node)| {
                format!(
                    "{} --expose-gc {} --acp (@qwen-code/qwen-code {} on Node.js 22.23.5)",
                    node.display(),
                    entry.display(),
                    prereq::ACP_QWEN_CODE_VERSION
                )
            }),
        ),
        (
            "acp-copilot",
            prereq::acp_copilot_binary().map(|p| {
                format!(
                    "{} --acp (@github/copilot {})",
                    p.display(),
                    prereq::ACP_COPILOT_VERSION
                )
            }),
        ),
        (
            "acp-cursor-agent",
            prereq::acp_cursor_agent_entry().map(|p| {
                format!(
                    "node {} (@blowmage/cursor-agent-acp {})",
                    p.display(),
                    prereq::ACP_CURSOR_AGENT_VERSION
                )
            }),
        ),
        (
            "acp-python-echo-agent",
            prereq::acp_python_echo_agent().map(|cmd| {
                format!(
                    "{cmd:?} (agent-client-protocol {})",
                    prereq::ACP_PYTHON_SDK_VERSION
                )
            }),
        ),
        (
            "acp-acpx",
            prereq::acp_acpx_paths().map(|(entry, node)| {
                format!(
                    "{} {} (acpx {} on Node.js 22.23.5)",
                    node.display(),
                    entry.display(),
                    prereq::ACP_ACPX_VERSION
                )
            }),
        ),
        (
            "acp-rust-example-client",
            prereq::acp_rust_example_client_binary().map(|p| {
                format!(
                    "{} (agent-client-protocol {} examples/yolo_one_shot_client.rs)",
                    p.display(),
                    prereq::ACP_RUST_SDK_VERSION
                )
            }),
        ),
        (
            "mcp-ts-client",
            prereq::mcp_ts_client().map(|cmd| {
                format!(
                    "{cmd:?} (@modelcontextprotocol/sdk {})",
                    prereq::MCP_TS_SDK_VERSION
                )
            }),
        ),
        (
            "mcp-inspector-cli",
            prereq::mcp_inspector_cli().map(|cmd| {
                format!(
                    "{cmd:?} (@modelcontextprotocol/inspector {})",
                    prereq::MCP_INSPECTOR_VERSION
                )
            }),
        ),
        (
            "mcp-inspector-2-cli",
            prereq::mcp_inspector_2_cli().map(|cmd| {
                format!(
                    "{cmd:?} (@modelcontextprotocol/inspector {} on Node.js {})",
                    prereq::MCP_INSPECTOR_2_VERSION,
                    prereq::INSPECTOR_NODE_VERSION
                )
            }),
        ),
    ];
    let mut failed = false;
    for (name, result) in results {
        match result {
            Ok(where_) => println!("{name}: {where_}"),
            Err(error) => {
                failed = true;
                eprintln!("cmk-prereqs: {name}: {error}");
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The peers `--print` knows.
const PRINTABLE: [&str; 7] = [
    "claude",
    "server-everything",
    "python-mcp",
    "rust-mcp-server",
    "mcp-reference-servers",
    "mcp-reference-servers-py",
    "official-conformance",
];

/// `--print NAME`: installs that one peer and prints where it is (exit 1 when it cannot).
fn print_one(name: &str) -> ExitCode {
    let found = match name {
        "claude" => prereq::claude().map(|p| p.display().to_string()),
        "server-everything" => prereq::everything_server_entry().map(|p| p.display().to_string()),
        "python-mcp" => prereq::python_mcp().map(|p| p.display().to_string()),
        "rust-mcp-server" => prereq::rust_mcp_server_dir()
            .map(|p| p.join("bin/rust-mcp-server").display().to_string()),
        "mcp-reference-servers" => prereq::mcp_reference_server_entries().map(|entries| {
            entries
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        }),
        "mcp-reference-servers-py" => {
            prereq::mcp_reference_servers_py_bin().map(|p| p.display().to_string())
        }
        "official-conformance" => prereq::official_conformance_paths()
            .map(|(script, node)| format!("{} {}", node.display(), script.display())),
        _ => {
            eprintln!("usage: cmk-prereqs [--print {}]", PRINTABLE.join("|"));
            return ExitCode::from(2);
        }
    };
    match found {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("cmk-prereqs: {name}: {error}");
            ExitCode::FAILURE
        }
    }
}
