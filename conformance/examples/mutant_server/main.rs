//! A small MCP stdio server written for the gate's mutant suite, independently of the toy
//! server and the proxy: newline-delimited JSON-RPC 2.0 of MCP 2025-06-18 (also 2025-03-26 and
//! 2024-11-05), with two paginated read-only tools (`echo`, `add`, each with an `outputSchema`),
//! one resource, one prompt and logging. Clean, it passes the plain gate under `--strict`
//! while writing diagnostics on stderr (which MCP allows). `--defect NAME` changes exactly one
//! behaviour (`defects.rs` lists them), so each run shows which rule the gate blames for it.
//! `--revision-2025-11-25` makes it speak 2025-11-25 too, where its listings carry titles and
//! icons (`display.rs`); the display defects imply it.

mod catalogue;
mod defects;
mod display;
mod methods;
mod wire;

use std::io::{Read, Write};

use crate::defects::Defect;
use crate::methods::Server;
use crate::wire::{Line, LineSplitter, Out};

/// The longest line the server reads whole; a longer one is discarded and answered -32600.
const MAX_LINE: usize = 1024 * 1024;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let defect = args
        .iter()
        .position(|a| a == "--defect")
        .and_then(|i| args.get(i + 1))
        .map(|name| Defect::parse(name))
        .unwrap_or(Some(Defect::None));
    let Some(defect) = defect else {
        eprintln!("mutant-server: unknown --defect (see defects.rs)");
        std::process::exit(2);
    };
    if defect == Defect::IgnoreSigterm {
        // SAFETY: SIG_IGN installs no handler code.
        unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
        }
    }
    eprintln!("mutant-server: starting (defect {defect:?})");
    let also_2025_11_25 =
        defect.needs_2025_11_25() || args.iter().any(|a| a == "--revision-2025-11-25");
    let mut server = Server::new(defect, also_2025_11_25);
    let mut splitter = LineSplitter::new(MAX_LINE);
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut buf = vec![0u8; 64 * 1024];
    if defect == Defect::Banner {
        let _ = stdout.write_all(b"mutant-server 0.1.0 ready\n");
        let _ = stdout.flush();
    }
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut outs = Vec::new();
        for line in splitter.push(&buf[..n]) {
            if server.giving_up {
                break;
            }
            match line {
                Line::Whole(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {}
                Line::Whole(bytes) => outs.extend(server.line(&bytes)),
                Line::Oversized => outs.extend(server.oversized()),
            }
        }
        for out in outs {
            let bytes = match out {
                Out::Json(v) => wire::encode(&v),
                Out::Raw(mut raw) => {
                    raw.push(b'\n');
                    raw
                }
            };
            if stdout
                .write_all(&bytes)
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return;
            }
        }
        if server.giving_up {
            eprintln!("mutant-server: unreadable input, giving up");
            std::process::exit(1);
        }
    }
    if defect == Defect::NoExitOnEof {
        eprintln!("mutant-server: stdin closed, staying up");
        loop {
            std::thread::park();
        }
    }
}
