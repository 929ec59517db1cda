//! Target `dispatch`: the MCP dispatcher behind the codec (initialize gate, method table,
//! batches, params handling, the tools that read the run table, resources), one line per frame.
//!
//! `tools/call` of `claude.run` and `claude.run.start` is skipped: it would start a supervisor,
//! which is this very executable re-run (`current_exe`), not something a fuzzer may spawn. Every
//! other tool (list, result, events, cancel, release) and every other method is exercised.

use std::sync::{Arc, OnceLock};

use clap::Parser;
use cmk_engine::{Engine, EngineConfig};
use cmk_mcp_server::catalogue::Catalogue;
use cmk_mcp_server::config::ServeArgs;
use cmk_mcp_server::server::Server;
use cmk_mcp_server::transport::Outbox;
use mcp_wire::{Message, Parsed, message};
use serde_json::Value;

use crate::runtime;

#[derive(Parser)]
struct Args {
    #[command(flatten)]
    providers: claude_mcp_adapter::providers::Served,
    #[command(flatten)]
    serve: ServeArgs,
}

struct World {
    engine: Engine,
    catalogue: Arc<Catalogue>,
    max_frame_bytes: usize,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        #[expect(
            clippy::expect_used,
            reason = "the default configuration always builds"
        )]
        let built = runtime().block_on(async {
            let Args {
                providers,
                serve: args,
            } = Args::parse_from(["claude-mcp-adapter"]);
            let providers = providers.build(&args, None).expect("the embedded cli tree");
            let catalogue = Catalogue::new(args.tool_names, args.max_timeout_s, &providers)
                .expect("the catalogue");
            let engine = Engine::new(
                EngineConfig {
                    max_timeout_s: args.max_timeout_s,
                    recorder: None,
                    tool_names: args.tool_names,
                    hooks: cmk_mcp_server::hooks(),
                },
                providers,
            );
            World {
                engine,
                catalogue: Arc::new(catalogue),
                // Small, so the fuzzer reaches the cost bound (C-T6a) too.
                max_frame_bytes: 4096,
            }
        });
        built
    })
}

/// Each line of the input is one frame to a fresh connection.
pub fn dispatch(data: &[u8]) {
    let w = world();
    runtime().block_on(async {
        let (out, _sent) = Outbox::discarding();
        let mut server = Server {
            engine: w.engine.clone(),
            catalogue: w.catalogue.clone(),
            out,
            version: None,
            inflight: Default::default(),
            max_frame_bytes: w.max_frame_bytes,
            recorder: None,
            tasks: tokio::task::JoinSet::new(),
        };
        for line in data.split(|&b| b == b'\n') {
            if line.len() > w.max_frame_bytes {
                server.on_oversized(line.len() as u64).await;
            } else if !starts_a_run(line, w.max_frame_bytes) {
                server.on_line(line).await;
            }
        }
        server.tasks.abort_all();
        while server.tasks.join_next().await.is_some() {}
    });
}

/// Whether the frame holds a `tools/call` of a tool that starts a run.
fn starts_a_run(line: &[u8], bound: usize) -> bool {
    let is_start = |v: Value| match message::classify(v) {
        Ok(Message::Request { method, params, .. }) if method == "tools/call" => params
            .as_ref()
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .is_some_and(|n| n == "claude.run" || n == "claude.run.start"),
        _ => false,
    };
    match mcp_wire::parse_frame(line, bound) {
        Ok(Parsed::Single(v)) => is_start(v),
        Ok(Parsed::Batch { .. }) => {
            let mut any = false;
            let _ = mcp_wire::cost::for_each_element(line, &mut |v| any |= is_start(v));
            any
        }
        Err(_) => false,
    }
}
