//! A one-defect variant of any stdio server for mcp-replay's tests: `mutate FROM TO -- CMD…`
//! runs CMD with this process's stdin and replaces the first `FROM` with `TO` in each line the
//! server writes, so exactly the answers holding `FROM` change.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(from), Some(to)) = (args.first(), args.get(1)) else {
        eprintln!("usage: mutate FROM TO -- CMD...");
        std::process::exit(2);
    };
    let Some(cmd) = args.get(3..).filter(|c| !c.is_empty() && args[2] == "--") else {
        eprintln!("usage: mutate FROM TO -- CMD...");
        std::process::exit(2);
    };
    let mut child = match Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mutate: cannot start {}: {e}", cmd[0]);
            std::process::exit(2);
        }
    };
    let Some(stdout) = child.stdout.take() else {
        std::process::exit(2);
    };
    let mut out = std::io::stdout().lock();
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let _ = writeln!(out, "{}", line.replacen(from.as_str(), to, 1));
        let _ = out.flush();
    }
    let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(1);
    std::process::exit(code);
}
