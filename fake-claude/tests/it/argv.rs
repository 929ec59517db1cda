//! argv handling compared with the real claude 2.1.328 (FAKE-CLAUDE-1): every case of
//! tests/fixtures/argv-cases.json was run through the real CLI by
//! tests/fixtures/capture-real-argv.py into tests/fixtures/real-argv.jsonl; the fake must give
//! the same exit status, the same stderr (errors.md texts, verbatim) and the same kind of stdout.
//! Where the real CLI accepted the argv it then failed "Not logged in"; the fake instead plays its
//! `success` scenario, so "accepted" means: the fake ran a scenario and exited 0.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::{crate_dir, fake, json_lines};

struct Case {
    name: String,
    args: Vec<String>,
    env: HashMap<String, String>,
    root_only: bool,
}

fn cases() -> Vec<Case> {
    let text =
        std::fs::read_to_string(crate_dir().join("tests/fixtures/argv-cases.json")).expect("cases");
    let list: Vec<Value> = serde_json::from_str(&text).expect("cases json");
    list.iter()
        .map(|c| Case {
            name: c["name"].as_str().expect("name").to_owned(),
            args: c["args"]
                .as_array()
                .expect("args")
                .iter()
                .map(|a| a.as_str().expect("arg").to_owned())
                .collect(),
            env: c
                .get("env")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
            root_only: c.get("root_only").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect()
}

fn reference() -> HashMap<String, Value> {
    let text = std::fs::read_to_string(crate_dir().join("tests/fixtures/real-argv.jsonl"))
        .expect("reference");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("reference row"))
        .filter_map(|r| Some((r.get("name")?.as_str()?.to_owned(), r)))
        .collect()
}

fn setup(dir: &Path) {
    std::fs::write(dir.join("prompt.txt"), "be terse\n").expect("prompt.txt");
    std::fs::write(dir.join("mcp.json"), "{\"mcpServers\":{}}\n").expect("mcp.json");
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

#[test]
fn every_argv_case_answers_like_the_real_cli() {
    let reference = reference();
    let mut failures = Vec::new();
    let cases = cases();
    assert!(
        cases.len() > 100,
        "the case list is the contract; it must not shrink silently"
    );
    for case in cases {
        let real = reference
            .get(&case.name)
            .unwrap_or_else(|| panic!("{}: not captured; rerun capture-real-argv.py", case.name));
        let dir = tempfile::tempdir().expect("tempdir");
        let cwd = dir.path().canonicalize().expect("canonical cwd");
        setup(&cwd);
        let out = fake(&cwd)
            .args(&case.args)
            .envs(&case.env)
            .output()
            .expect("run fake");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr =
            String::from_utf8_lossy(&out.stderr).replace(&cwd.display().to_string(), "<cwd>");
        let code = out.status.code();
        let mut expect_kind = real["stdout"].as_str().unwrap_or_default().to_owned();
        let mut expect_stderr = real["stderr"].as_str().unwrap_or_default().to_owned();
        let expect_code = real["exit"].as_i64().and_then(|c| i32::try_from(c).ok());
        if case.root_only && !is_root() {
            // The real CLI refuses bypass modes only for uid 0; as anyone else it accepts them.
            expect_kind = "accepted".into();
            expect_stderr.clear();
        }
        let verdict: Result<(), String> = (|| {
            match expect_kind.as_str() {
                "accepted" => {
                    if code != Some(0) || stdout.is_empty() {
                        return Err(format!(
                            "expected a run, got exit {code:?}, stdout {stdout:.200?}, stderr {stderr:?}"
                        ));
                    }
                    // Only warnings are the fake's business on an accepted argv.
                    let warnings: String = expect_stderr
                        .lines()
                        .filter(|l| l.starts_with("Warning: "))
                        .map(|l| format!("{l}\n"))
                        .collect();
                    if stderr != warnings {
                        return Err(format!("stderr {stderr:?}, real warnings {warnings:?}"));
                    }
                    return Ok(());
                }
                "version" => {
                    let line = real["version_line"].as_str().unwrap_or_default();
                    if stdout.trim_end() != line {
                        return Err(format!("version stdout {stdout:?}, want {line:?}"));
                    }
                }
                "help" => {
                    let usage = real["help_usage"].as_str().unwrap_or_default();
                    let commands = real["help_commands"].as_bool().unwrap_or_default();
                    if stdout.lines().next() != Some(usage)
                        || stdout.contains("\nCommands:\n") != commands
                    {
                        return Err(format!(
                            "help stdout {stdout:.80?}, want usage {usage:?}, commands {commands}"
                        ));
                    }
                }
                "empty" => {
                    if !stdout.is_empty() {
                        return Err(format!("stdout should be empty, got {stdout:.200?}"));
                    }
                }
                "result" => {
                    let lines = json_lines(stdout.as_bytes());
                    let [line] = lines.as_slice() else {
                        return Err(format!("want one result line, got {stdout:.300?}"));
                    };
                    let keys: Vec<&str> = line
                        .as_object()
                        .map(|m| m.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    let want: Vec<&str> = real["detail"]["keys"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .collect();
                    if keys != want
                        || line["errors"] != real["detail"]["errors"]
                        || line["subtype"] != real["detail"]["subtype"]
                    {
                        return Err(format!(
                            "result line {line} differs from {}",
                            real["detail"]
                        ));
                    }
                }
                other => return Err(format!("unknown reference kind {other}")),
            }
            if code != expect_code {
                return Err(format!("exit {code:?}, real {expect_code:?}"));
            }
            if stderr != expect_stderr {
                return Err(format!(
                    "stderr\n  fake {stderr:?}\n  real {expect_stderr:?}"
                ));
            }
            Ok(())
        })();
        if let Err(e) = verdict {
            failures.push(format!("{} {:?}: {e}", case.name, case.args));
        }
    }
    assert!(
        failures.is_empty(),
        "{} argv case(s) differ from the real CLI:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn help_prints_the_real_help_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let real = std::fs::read_to_string(crate_dir().join("assets/help.txt")).expect("help.txt");
    assert!(
        real.contains("--include-partial-messages"),
        "help.txt is the real capture"
    );
    assert_cmd::Command::from_std(fake(dir.path()))
        .arg("--help")
        .assert()
        .code(0)
        .stdout(real);
}

#[test]
fn without_print_mode_the_fake_says_it_is_the_fake() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_cmd::Command::from_std(fake(dir.path()))
        .arg("hi")
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with("fake-claude: "));
}

#[test]
fn piped_stdin_is_appended_to_the_prompt_after_eof() {
    let dir = tempfile::tempdir().expect("tempdir");
    let scenario = serde_json::json!({"description": "echo", "steps": [
        {"emit": {"type": "result", "subtype": "success", "is_error": false, "result": "{{prompt}}", "session_id": "{{session_id}}"}}
    ]});
    let path = crate::scenario_file(dir.path(), "echo", &scenario);
    let out = crate::output_with_stdin(
        fake(dir.path())
            .args(["-p", "--output-format", "json", "--", "arg"])
            .env("FAKE_CLAUDE_SCENARIO", &path),
        b"piped\n",
    );
    let result = &json_lines(&out.stdout)[0];
    assert_eq!(
        result["result"], "arg\npiped\n",
        "real 2.1.328 joins argument and stdin with a newline"
    );
}

const STREAM_INPUT: [&str; 6] = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
];

fn user_line(text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}})
    )
}

/// As probed on the real 2.1.328: each user message is a turn (the scenario its text selects),
/// all in one session; the exit status is the last final's; a line that is not JSON ends the
/// run with the real parse error after the turns before it; no user message ends quietly.
#[test]
fn stream_json_input_plays_one_turn_per_user_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |stdin: &[u8]| crate::output_with_stdin(fake(dir.path()).args(STREAM_INPUT), stdin);
    let two = format!(
        "{}{}",
        user_line("fake-claude:scenario=tool-allowed"),
        user_line("fake-claude:scenario=is-error-success")
    );
    let out = run(two.as_bytes());
    let events = json_lines(&out.stdout);
    let kinds = crate::kinds(&events);
    let inits: Vec<usize> = (0..kinds.len())
        .filter(|&i| kinds[i] == "system/init")
        .collect();
    assert_eq!(inits.len(), 2, "two turns: {kinds:?}");
    assert_eq!(kinds[inits[1] - 1], "result/success", "turn 1 ended first");
    assert!(
        events[inits[1]..]
            .iter()
            .any(|e| e["type"] == "system" && e["subtype"] == "api_retry"),
        "turn 2 played its own scenario: {kinds:?}"
    );
    assert_eq!(kinds.last().map(String::as_str), Some("result/success"));
    assert_eq!(out.status.code(), Some(1), "the last final is an error");
    assert!(
        events
            .iter()
            .all(|e| e["session_id"] == events[0]["session_id"]),
        "one session"
    );

    let then_bad = format!("{}not json\n", user_line("hi"));
    let bad = run(then_bad.as_bytes());
    assert_eq!(
        crate::kinds(&json_lines(&bad.stdout))
            .last()
            .map(String::as_str),
        Some("result/success"),
        "the turn before the bad line was answered"
    );
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "Error parsing streaming input line (type=unknown, 8 chars): SyntaxError\n",
        "errors.md"
    );
    let empty = run(b"");
    assert_eq!(
        (empty.status.code(), empty.stdout.len()),
        (Some(0), 0),
        "the real CLI ends quietly"
    );
}

/// A turn is answered while stdin stays open, as the real CLI does: a client that waits for the
/// result before it sends on (or closes stdin) does not hang.
#[test]
fn stream_json_input_answers_a_turn_before_stdin_ends() {
    use std::io::{BufRead as _, Write as _};
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = fake(dir.path())
        .args(STREAM_INPUT)
        .env("FAKE_CLAUDE_MAX_LIFETIME_S", "60")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(user_line("hi").as_bytes())
        .expect("write a turn");
    stdin.flush().expect("flush");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut answered = false;
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) if line.contains("\"type\":\"result\"") => {
                answered = true;
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    let still_running = child.try_wait().expect("try_wait").is_none();
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(answered, "no result while stdin was open");
    assert!(still_running, "it waits for further turns until EOF");
    assert_eq!(status.code(), Some(0), "EOF ends it");
}

/// Print mode's help (probed byte for byte against 2.1.328) is the full help with the usage line
/// `Usage: claude [options] [prompt]` and without the `Commands:` section.
#[test]
fn print_mode_help_is_the_full_help_without_commands() {
    let dir = tempfile::tempdir().expect("tempdir");
    let help = |args: &[&str]| {
        String::from_utf8_lossy(&fake(dir.path()).args(args).output().expect("run").stdout)
            .into_owned()
    };
    let full = help(&["--help"]);
    let print = help(&["-p", "--help"]);
    let (options, _) = full
        .split_once("\n\nCommands:\n")
        .expect("the full help lists commands");
    let options = options
        .strip_prefix("Usage: claude [options] [command] [prompt]")
        .expect("full usage line");
    assert_eq!(
        print,
        format!("Usage: claude [options] [prompt]{options}\n")
    );
}
