//! A scripted ACP agent on the other end of in-memory pipes: the test body plays the agent
//! (reads what the client sent, writes agent lines) while `run_turn` runs in a task.

use std::path::PathBuf;
use std::time::Duration;

use acp_client::{AgentRequestPolicy, GenericPolicy, TurnConfig, TurnReport, run_turn};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::io::{ReadHalf, WriteHalf};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Generous bound on any single wait in a test (the machine is shared and slow).
pub const PATIENCE: Duration = Duration::from_secs(20);
/// Pipe capacity between client and agent.
const PIPE: usize = 64 * 1024;

/// The agent's end of the pipes.
pub struct Agent {
    from_client: BufReader<ReadHalf<DuplexStream>>,
    to_client: WriteHalf<DuplexStream>,
}

/// A running turn against a scripted agent.
pub struct Harness {
    pub agent: Agent,
    pub cancel: watch::Sender<bool>,
    pub turn: JoinHandle<TurnReport>,
    /// Everything the client wrote to `events`, once the turn ended.
    pub events: JoinHandle<Vec<u8>>,
}

/// A `modes` block that advertises `plan` (ACP-11), as Cursor's `session/new` answers.
pub fn plan_modes() -> Value {
    json!({"currentModeId": "agent", "availableModes": [
        {"id": "agent", "name": "Agent"}, {"id": "plan", "name": "Plan"}
    ]})
}

/// An absolute cwd for configs.
pub fn cwd() -> PathBuf {
    PathBuf::from("/tmp/acp-client-test")
}

/// A config with short test bounds.
pub fn config(prompt: &str) -> TurnConfig {
    let mut cfg = TurnConfig::new(cwd(), prompt);
    cfg.step_timeout = PATIENCE;
    cfg
}

/// Starts a turn with [`GenericPolicy`] and an events reader that keeps up.
pub fn start(cfg: TurnConfig) -> Harness {
    start_with(cfg, Box::new(GenericPolicy))
}

/// Starts a turn with `policy` and an events reader that keeps up.
pub fn start_with(cfg: TurnConfig, policy: Box<dyn AgentRequestPolicy>) -> Harness {
    let (events_in, mut events_out) = tokio::io::duplex(PIPE);
    let events = tokio::spawn(async move {
        let mut all = Vec::new();
        let _ = events_out.read_to_end(&mut all).await;
        all
    });
    let (agent, cancel, turn) = start_raw(cfg, policy, events_in, PIPE);
    Harness {
        agent,
        cancel,
        turn,
        events,
    }
}

/// Starts a turn writing events to `events_in` (the test reads them itself); the agent → client
/// pipe holds `pipe` bytes.
pub fn start_raw(
    cfg: TurnConfig,
    policy: Box<dyn AgentRequestPolicy>,
    events_in: DuplexStream,
    pipe: usize,
) -> (Agent, watch::Sender<bool>, JoinHandle<TurnReport>) {
    let (client_end, agent_end) = tokio::io::duplex(pipe);
    let (client_read, client_write) = tokio::io::split(client_end);
    let (agent_read, agent_write) = tokio::io::split(agent_end);
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let turn = tokio::spawn(async move {
        run_turn(
            client_read,
            client_write,
            events_in,
            &cfg,
            policy.as_ref(),
            cancel_rx,
        )
        .await
    });
    (
        Agent {
            from_client: BufReader::new(agent_read),
            to_client: agent_write,
        },
        cancel_tx,
        turn,
    )
}

impl Harness {
    /// The report, once the turn ends (bounded by [`PATIENCE`]).
    pub async fn report(self) -> (TurnReport, Agent, Vec<u8>) {
        let report = tokio::time::timeout(PATIENCE, self.turn)
            .await
            .expect("the turn ended in time")
            .expect("run_turn did not panic");
        let events = tokio::time::timeout(PATIENCE, self.events)
            .await
            .expect("events closed after the turn")
            .expect("events reader");
        (report, self.agent, events)
    }
}

impl Agent {
    /// The next message the client sent; panics on EOF or after [`PATIENCE`].
    pub async fn recv(&mut self) -> Value {
        self.try_recv()
            .await
            .expect("the client sent a message before closing")
    }

    /// The next message, or `None` at EOF (the client is done and dropped its stdin).
    pub async fn try_recv(&mut self) -> Option<Value> {
        let mut line = String::new();
        let n = tokio::time::timeout(PATIENCE, self.from_client.read_line(&mut line))
            .await
            .expect("the client wrote or closed in time")
            .expect("read from the client");
        if n == 0 {
            return None;
        }
        assert!(line.ends_with('\n'), "one message per line: {line:?}");
        Some(serde_json::from_str(&line).expect("the client sends JSON"))
    }

    /// The next line the client sent, as text (newline included).
    pub async fn recv_line(&mut self) -> String {
        let mut line = String::new();
        tokio::time::timeout(PATIENCE, self.from_client.read_line(&mut line))
            .await
            .expect("the client wrote in time")
            .expect("read from the client");
        line
    }

    /// The next message, which must be a request for `method`.
    pub async fn expect(&mut self, method: &str) -> Value {
        let msg = self.recv().await;
        assert_eq!(msg["method"], method, "unexpected message {msg}");
        assert_eq!(msg["jsonrpc"], "2.0");
        msg
    }

    /// Writes one agent line.
    pub async fn send(&mut self, msg: Value) {
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(b'\n');
        self.send_raw(&bytes).await;
    }

    /// Writes raw bytes.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.to_client
            .write_all(bytes)
            .await
            .expect("write to the client");
    }

    /// Answers `request` with `result`.
    pub async fn reply(&mut self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await;
    }

    /// Answers `request` with an error.
    pub async fn reply_error(&mut self, request: &Value, error: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": error}))
            .await;
    }

    /// `initialize` answered with `capabilities`; returns the request.
    pub async fn initialize(&mut self, capabilities: Value) -> Value {
        let init = self.expect("initialize").await;
        self.reply(
            &init,
            json!({"protocolVersion": 1, "agentCapabilities": capabilities, "authMethods": [
                {"id": "login", "name": "Login"}
            ]}),
        )
        .await;
        init
    }

    /// `initialize` and `session/new` (session `sess-1`); returns the `session/prompt` request.
    pub async fn handshake_to_prompt(&mut self) -> Value {
        self.initialize(json!({"loadSession": false})).await;
        let new = self.expect("session/new").await;
        self.reply(&new, json!({"sessionId": "sess-1"})).await;
        self.expect("session/prompt").await
    }

    /// A `session/update` notification of session `sess-1`.
    pub async fn update(&mut self, update: Value) {
        self.update_of("sess-1", update).await;
    }

    /// A `session/update` notification of `session`.
    pub async fn update_of(&mut self, session: &str, update: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": session, "update": update}}))
            .await;
    }

    /// An `agent_message_chunk` with `text`.
    pub async fn say(&mut self, text: &str) {
        self.update(json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text}}))
            .await;
    }

    /// Sends an agent request and returns the client's answer to it (the next message).
    pub async fn ask(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let answer = self.recv().await;
        assert_eq!(answer["id"], id, "the answer echoes the id: {answer}");
        assert!(answer.get("method").is_none(), "an answer, not a request");
        answer
    }
}

/// The events stream's lines parsed (every line must be JSON in these tests unless noted).
pub fn event_lines(events: &[u8]) -> Vec<Value> {
    events
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect()
}

/// The client's own records (`acp_client` key) in order.
pub fn records(events: &[u8]) -> Vec<Value> {
    event_lines(events)
        .into_iter()
        .filter(|v| v.get("acp_client").is_some())
        .collect()
}
