//! The adapter over MCP stdio as the benches drive it: line-delimited JSON-RPC on the child's
//! piped stdin and stdout, initialized once; each bench starts the child its own way and adds
//! its own calls (`impl Adapter` in the bench).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout};

use serde_json::{Value, json};

/// The adapter over MCP stdio, initialized.
pub struct Adapter {
    /// The adapter process.
    pub child: Child,
    /// Its stdin; `None` once closed (EOF is the adapter's signal to shut down).
    pub stdin: Option<ChildStdin>,
    /// Its stdout, read line by line.
    pub stdout: BufReader<ChildStdout>,
    next_id: i64,
}

impl Adapter {
    /// Takes `child`'s piped stdin and stdout and initializes the session as `client_name`
    /// (`initialize`, then `notifications/initialized`).
    pub fn initialized(mut child: Child, client_name: &str) -> Result<Self, String> {
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut a = Self {
            child,
            stdin: Some(stdin),
            stdout,
            next_id: 1,
        };
        a.call(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": client_name, "version": "1"}}),
        )?;
        a.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(a)
    }

    /// Writes one message as a line.
    pub fn send(&mut self, v: &Value) -> Result<(), String> {
        let mut line = v.to_string();
        line.push('\n');
        self.stdin
            .as_mut()
            .ok_or("stdin closed")?
            .write_all(line.as_bytes())
            .map_err(|e| e.to_string())
    }

    /// One request; returns its answer (messages in between, e.g. notifications, are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let mut line = String::new();
            if self
                .stdout
                .read_line(&mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err("the adapter closed stdout".into());
            }
            let v: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
            if v["id"] == id {
                return Ok(v);
            }
        }
    }
}
