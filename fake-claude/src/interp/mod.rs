//! Runs a scenario's steps in order against the invocation's output format.
//!
//! Exit status when the steps run out without an `exit` step: like the real CLI, 0 when the last
//! final result (a `result` event) had `is_error: false`, 1 when it had anything else; 0 when no
//! final was emitted at all (scenarios modelling a missing final say `exit` themselves).

pub mod output;
pub mod placeholders;
pub mod process;
pub mod sized;

use std::io::Write as _;
use std::time::Duration;

use serde_json::Value;

use crate::scenario::{RawBytes, Scenario, Step};
use crate::validate::OutputFormat;
use output::Out;
use placeholders::Vars;

/// Default formats of steps that put bytes on stdout other than `emit`.
const RAW_DEFAULT: &[OutputFormat] = &[OutputFormat::StreamJson, OutputFormat::Json];

/// How a scenario ended when it did not exit or die itself.
pub struct Interp<'a> {
    pub out: Out,
    pub vars: Vars,
    /// The invocation record, for `dump` steps.
    pub record: &'a Value,
    /// `is_error` of the last final emitted (`Some(true)` for any final without `is_error: false`).
    last_final_is_error: Option<bool>,
}

impl<'a> Interp<'a> {
    pub fn new(out: Out, vars: Vars, record: &'a Value) -> Self {
        Self {
            out,
            vars,
            record,
            last_final_is_error: None,
        }
    }

    /// Runs every step; returns the exit code for a scenario that simply ends.
    pub fn run(&mut self, scenario: &Scenario) -> Result<i32, String> {
        self.steps(&scenario.steps)?;
        self.out.finish();
        Ok(match self.last_final_is_error {
            Some(true) => 1,
            Some(false) | None => 0,
        })
    }

    fn note_final(&mut self, v: &Value) {
        if v.get("type").and_then(Value::as_str) == Some("result") {
            self.last_final_is_error = Some(v.get("is_error") != Some(&Value::Bool(false)));
        }
    }

    fn steps(&mut self, steps: &[Step]) -> Result<(), String> {
        for step in steps {
            self.step(step)?;
        }
        Ok(())
    }

    fn step(&mut self, step: &Step) -> Result<(), String> {
        match step {
            Step::Emit {
                event,
                modes,
                text,
                requires_partial,
            } => {
                let ev = self.vars.fill_value(event);
                let text = text.as_deref().map(|t| self.vars.fill(t));
                self.note_final(&ev);
                if !*requires_partial || self.out.partial() {
                    self.out.event(&ev, modes.as_deref(), text.as_deref());
                }
            }
            Step::Raw {
                bytes,
                newline,
                modes,
            } => {
                if self.out.shows(modes.as_deref(), RAW_DEFAULT) {
                    let mut b = match bytes {
                        RawBytes::Text(t) => self.vars.fill(t).into_bytes(),
                        RawBytes::Bytes(b) => b.clone(),
                    };
                    if *newline {
                        b.push(b'\n');
                    }
                    self.out.write(&b);
                }
            }
            Step::Line {
                bytes,
                kind,
                fields,
                pad,
                modes,
            } => {
                if kind == "result" {
                    let is_error = fields.get("is_error") != Some(&Value::Bool(false));
                    self.last_final_is_error = Some(is_error);
                }
                if self.out.shows(modes.as_deref(), RAW_DEFAULT) && !self.out.gated(Some(kind)) {
                    let mut line = sized::sized_line(*bytes, kind, fields, pad, &self.vars)?;
                    line.push(b'\n');
                    self.out.write(&line);
                }
            }
            Step::Flood {
                event,
                default_mib,
                env,
                modes,
            } => {
                let ev = self.vars.fill_value(event);
                let kind = ev.get("type").and_then(Value::as_str);
                if self.out.shows(modes.as_deref(), RAW_DEFAULT) && !self.out.gated(kind) {
                    let mut line = serde_json::to_vec(&ev).map_err(|e| e.to_string())?;
                    line.push(b'\n');
                    let out = &mut self.out;
                    sized::flood(&line, sized::flood_mib(env, *default_mib), |b| out.write(b));
                }
            }
            Step::Stderr { text, newline } => {
                let mut t = self.vars.fill(text);
                if *newline {
                    t.push('\n');
                }
                let _ = std::io::stderr().write_all(t.as_bytes());
            }
            Step::SleepMs(ms) => std::thread::sleep(Duration::from_millis(*ms)),
            Step::Exit(code) => {
                self.out.finish();
                std::process::exit(*code);
            }
            Step::Signal(sig) => process::die_by(*sig),
            Step::Hang => {
                self.out.finish();
                process::hang(None);
            }
            Step::IgnoreSignals(sigs) => sigs.iter().for_each(|s| process::ignore(*s)),
            Step::Fork(spec) => {
                process::fork_child(spec)?;
            }
            Step::CloseStdout => self.out.close(),
            Step::Dump(path) => {
                let path = self.vars.fill(path);
                crate::invocation::write_dump(&path, self.record)
                    .map_err(|e| format!("dump to {path}: {e}"))?;
            }
            Step::Repeat { count, steps } => {
                let outer = self.vars.get("i").map(str::to_owned);
                for i in 0..*count {
                    self.vars.set("i", i.to_string());
                    self.steps(steps)?;
                }
                match outer {
                    Some(o) => self.vars.set("i", o),
                    None => self.vars.fixed.retain(|(n, _)| n != "i"),
                }
            }
        }
        Ok(())
    }
}
