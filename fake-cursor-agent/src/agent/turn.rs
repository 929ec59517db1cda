//! One prompt turn: plays a scenario's steps, answering the prompt at the end (`end_turn` unless
//! a step answered it already). While it waits (a sleep, an answer to one of its requests) it
//! keeps serving the client: `session/set_mode` and the like are answered, a second
//! `session/prompt` is refused, and `session/cancel` ends the turn: pending requests are
//! abandoned and the prompt answers `stopReason: "cancelled"` a few ms later (spike, item 6:
//! 4 ms). Between steps, messages already queued are served too, so a cancel is seen promptly.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::vars::{Vars, fill};
use super::{Agent, Handled, Next};
use crate::out::stderr;
use crate::scenario::{Answer, RequestStep, Scenario, Step};
use crate::{process, rpc};

/// A request step's `id` that means "the id of the prompt being answered" (README).
const PROMPT_ID: &str = "{{prompt_id}}";

/// Why a turn stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The client cancelled before the answer.
    Cancelled,
}

/// A running turn.
pub struct Turn<'a> {
    agent: &'a mut Agent,
    prompt_id: Value,
    session: usize,
    vars: Vars,
    answered: bool,
    /// Answers to the agent's requests served so far in this turn, whoever served them (a
    /// step's own wait, or the queue served before each step).
    answers: u64,
    cancel_answer_ms: u64,
}

impl<'a> Turn<'a> {
    /// A turn answering prompt `prompt_id` of session index `session`.
    pub fn new(
        agent: &'a mut Agent,
        prompt_id: Value,
        session: usize,
        prompt: &str,
        scenario: &Scenario,
    ) -> Self {
        let vars = Vars::of(&agent.sessions[session], Some(prompt));
        let cancel_answer_ms = scenario
            .cancel_answer_ms
            .unwrap_or_else(|| agent.profile.cancel_answer_ms());
        Self {
            agent,
            prompt_id,
            session,
            vars,
            answered: false,
            answers: 0,
            cancel_answer_ms,
        }
    }

    /// Plays `steps` and settles the prompt.
    pub fn play(mut self, steps: &[Step]) {
        match self.run(steps) {
            Ok(()) => {
                if !self.answered {
                    self.answer(&Answer::Stop("end_turn".into()));
                }
            }
            Err(Stop::Cancelled) => {
                std::thread::sleep(Duration::from_millis(self.cancel_answer_ms));
                self.answer(&Answer::Stop("cancelled".into()));
            }
        }
    }

    fn session_id(&self) -> String {
        self.agent.sessions[self.session].id.clone()
    }

    fn run(&mut self, steps: &[Step]) -> Result<(), Stop> {
        for step in steps {
            // Process-level ends (hang, exit, signal) happen whatever the client sent meanwhile:
            // a stuck or crashing agent does not read its input first.
            if !matches!(step, Step::Hang | Step::Exit(_) | Step::Signal(_)) {
                self.serve_queued()?;
            }
            self.step(step)?;
        }
        Ok(())
    }

    fn step(&mut self, step: &Step) -> Result<(), Stop> {
        match step {
            Step::Update(u) => {
                let msg = rpc::session_update(&self.session_id(), fill(u, &self.vars));
                self.agent.out.send(&msg);
            }
            Step::Notify { method, params } => {
                let msg = rpc::notification(method, fill(params, &self.vars));
                self.agent.out.send(&msg);
            }
            Step::Request(r) => self.request(r)?,
            Step::SleepMs(ms) => {
                let until = Instant::now() + Duration::from_millis(*ms);
                self.wait(Some(until), None)?;
            }
            Step::AwaitAnswers(n) => self.await_answers(*n)?,
            Step::Hang => process::hang(),
            Step::Exit(code) => process::exit(*code),
            Step::Signal(sig) => process::die_by(*sig),
            Step::Raw { bytes, newline } => {
                let mut b = bytes.clone();
                if *newline {
                    b.push(b'\n');
                }
                self.agent.out.write(&b);
            }
            Step::Line { bytes, msg, pad } => self.sized_line(*bytes, msg, pad),
            Step::Stderr { text, newline } => {
                let Value::String(text) = fill(&Value::String(text.clone()), &self.vars) else {
                    return Ok(());
                };
                stderr(&text, *newline);
            }
            Step::Answer(a) => self.answer(a),
            Step::AnswerAgain(a) => {
                self.answered = false;
                self.answer(a);
            }
            Step::Repeat { n, steps } => {
                for i in 0..*n {
                    self.vars.set("i", &i.to_string());
                    self.run(steps)?;
                }
            }
            Step::Capability(branches) => {
                let key = branches
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .find(|k| *k != "*" && self.agent.advertised(k))
                    .unwrap_or("*")
                    .to_owned();
                if let Some(steps) = pick(branches, &key) {
                    self.run(steps)?;
                }
            }
            Step::Mode(branches) => {
                let mode = self.agent.sessions[self.session].mode.clone();
                self.vars.set("mode", &mode);
                if let Some(steps) = pick(branches, &mode) {
                    self.run(steps)?;
                }
            }
        }
        Ok(())
    }

    fn request(&mut self, r: &RequestStep) -> Result<(), Stop> {
        let id = match &r.id {
            // The id of the client's own pending `session/prompt`: a deliberate collision (ACP-1).
            Some(Value::String(s)) if s == PROMPT_ID => self.prompt_id.clone(),
            Some(id) => id.clone(),
            None => self.agent.request_id(),
        };
        let params = fill(&r.params, &self.vars);
        self.agent.out.send(&rpc::request(&id, &r.method, params));
        if !r.wait {
            return Ok(());
        }
        let answer = self.wait(None, Some(&id))?.unwrap_or(Value::Null);
        for (name, pointer) in &r.bind {
            match answer.pointer(pointer) {
                Some(Value::String(s)) => self.vars.set(name, s),
                Some(other) => self.vars.set(name, &other.to_string()),
                None => {}
            }
        }
        if let Some(steps) = pick(&r.on, &branch_key(&answer)) {
            self.run(steps)?;
        }
        Ok(())
    }

    /// Serves client messages until `deadline` or, with `want`, until the answer to request
    /// `want` arrives (returned). A cancel before the prompt's answer stops the turn.
    fn wait(
        &mut self,
        deadline: Option<Instant>,
        want: Option<&Value>,
    ) -> Result<Option<Value>, Stop> {
        loop {
            match self.agent.next(deadline) {
                Next::Timeout => return Ok(None),
                Next::Eof => {
                    // Nothing more can come: a wait for an answer never ends (the real agent
                    // keeps waiting too); a timed wait sleeps on to its deadline (the next call
                    // does) and the turn goes on.
                    if want.is_some() {
                        process::hang();
                    }
                    if deadline.is_none() {
                        return Ok(None);
                    }
                }
                Next::Msg(msg) => {
                    if let Some(answer) = self.serve(msg)?
                        && want.is_some_and(|w| answer.get("id") == Some(w))
                    {
                        return Ok(Some(answer));
                    }
                }
            }
        }
    }

    /// Serves client messages until `n` answers to the agent's requests have come in this turn,
    /// whatever their ids: those served before this step count (the queue is served before
    /// every step, so an early answer must not be waited for again). At end of input the wait
    /// never ends, as a wait for one answer.
    fn await_answers(&mut self, n: u64) -> Result<(), Stop> {
        while self.answers < n {
            match self.agent.next(None) {
                Next::Timeout => {}
                Next::Eof => process::hang(),
                Next::Msg(msg) => {
                    self.serve(msg)?;
                }
            }
        }
        Ok(())
    }

    /// Serves whatever the client has already sent, without waiting.
    fn serve_queued(&mut self) -> Result<(), Stop> {
        while let Next::Msg(msg) = self.agent.next(Some(Instant::now())) {
            self.serve(msg)?;
        }
        Ok(())
    }

    /// Serves one message; returns it when it is an answer to one of our requests.
    fn serve(&mut self, msg: Value) -> Result<Option<Value>, Stop> {
        match self.agent.handle(msg) {
            Handled::Done => Ok(None),
            Handled::Answer(a) => {
                self.answers += 1;
                Ok(Some(a))
            }
            Handled::Cancel(sid) => {
                if !self.answered && sid == self.session_id() {
                    return Err(Stop::Cancelled);
                }
                Ok(None)
            }
            Handled::Prompt(p) => {
                let id = p.get("id").cloned().unwrap_or(Value::Null);
                self.agent.reply_error(&id, rpc::prompt_busy());
                Ok(None)
            }
        }
    }

    fn answer(&mut self, a: &Answer) {
        if self.answered {
            return;
        }
        self.answered = true;
        let id = self.prompt_id.clone();
        match a {
            Answer::Stop(reason) => self.agent.reply(&id, json!({"stopReason": reason})),
            Answer::Error(e) => self.agent.reply_error(&id, fill(e, &self.vars)),
            Answer::Result(r) => self.agent.reply(&id, fill(r, &self.vars)),
        }
        self.agent.turns_answered += 1;
    }

    /// Writes `msg` as one JSON line of exactly `bytes` bytes by growing the string at `pad`.
    fn sized_line(&mut self, bytes: usize, msg: &Value, pad: &str) {
        let mut msg = fill(msg, &self.vars);
        let base = msg.to_string().len();
        match msg.pointer_mut(pad) {
            Some(Value::String(s)) if base <= bytes => s.push_str(&"x".repeat(bytes - base)),
            _ => stderr(
                &format!(
                    "fake-cursor-agent: line step: {pad} is not a string or the message exceeds {bytes} bytes"
                ),
                true,
            ),
        }
        self.agent.out.send(&msg);
    }
}

/// Which branch an answer takes: the selected `optionId`, `cancelled`, `error` or `result`.
fn branch_key(answer: &Value) -> String {
    if answer.get("error").is_some() {
        return "error".into();
    }
    let outcome = answer.pointer("/result/outcome");
    if outcome
        .and_then(|o| o.get("outcome"))
        .and_then(Value::as_str)
        == Some("cancelled")
    {
        return "cancelled".into();
    }
    if let Some(opt) = outcome
        .and_then(|o| o.get("optionId"))
        .and_then(Value::as_str)
    {
        return opt.to_owned();
    }
    "result".into()
}

/// The steps of the branch named `key`, else of `*`.
fn pick<'s>(branches: &'s [(String, Vec<Step>)], key: &str) -> Option<&'s [Step]> {
    branches
        .iter()
        .find(|(k, _)| k == key)
        .or_else(|| branches.iter().find(|(k, _)| k == "*"))
        .map(|(_, s)| s.as_slice())
}
