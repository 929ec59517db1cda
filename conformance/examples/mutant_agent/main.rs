//! A small ACP agent written for the gate's mutant suite, independently of fake-cursor-agent:
//! newline-delimited JSON-RPC 2.0 on stdio, ACP protocol version 1 (`../shared/reference/acp`:
//! the schema and its docs). It offers two modes, accepts text, resource links, images and
//! embedded resources (not audio), and answers each prompt with a turn of about 1.6 s: a
//! message chunk, a read tool call it asks permission for, a file read when the client offers
//! `fs`, the call's completion, a last chunk and `end_turn` (`cancelled` after
//! `session/cancel`). Clean, it passes the gate under `--strict` while writing diagnostics on
//! stderr. `--defect NAME` changes exactly one behaviour (`defects.rs` lists them).

mod defects;
mod peer;
mod turn;

use std::io::BufRead;

use serde_json::Value;

use crate::defects::Defect;
use crate::peer::{Peer, error_answer};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let defect = args
        .iter()
        .position(|a| a == "--defect")
        .and_then(|i| args.get(i + 1))
        .map(|name| Defect::parse(name))
        .unwrap_or(Some(Defect::None));
    let Some(defect) = defect else {
        eprintln!("mutant-agent: unknown --defect (see defects.rs)");
        std::process::exit(2);
    };
    eprintln!("mutant-agent: starting (defect {defect:?})");
    let peer = Peer::new(defect);
    let stdin = std::io::stdin();
    for line in stdin.lock().split(b'\n') {
        let Ok(line) = line else { break };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(&line) {
            Ok(Value::Object(msg)) => peer.incoming(msg),
            Ok(_) => peer.send(&error_answer(&Value::Null, -32600, "not a request object")),
            Err(_) if defect == Defect::ParseErrorSilent => {}
            Err(_) if defect == Defect::DieOnBadLine => {
                eprintln!("mutant-agent: unreadable input, giving up");
                std::process::exit(1);
            }
            Err(_) => peer.send(&error_answer(&Value::Null, -32700, "parse error")),
        }
    }
    if defect == Defect::NoExitOnEof {
        eprintln!("mutant-agent: stdin closed, staying up");
        loop {
            std::thread::park();
        }
    }
    eprintln!("mutant-agent: stdin closed, exiting");
}
