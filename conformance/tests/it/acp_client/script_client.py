#!/usr/bin/env python3
"""A small ACP client (standard library only) for client-mode tests: well-behaved by default,
with one flag per deliberate defect, so each mutant fails exactly its own case.

    script_client.py [FLAGS] -- AGENT_COMMAND...   (or env ACP_CONFORMANCE_AGENT)

One turn: initialize, session/new, session/prompt "hello"; answers every agent request
(permission: the offered option of --select-kind, by kind, echoing its optionId; cursor/*: {};
anything else: -32601); SIGINT cancels the turn (session/cancel, then every pending permission
request answered cancelled); after the prompt's answer it ends the agent and exits 0.

Defects: --select-kind allow_always; --ignore-method M (never answers M); --refuse-method M
(answers M -32601, as a client that does not implement it); --prompt-block TYPE (adds a block
of TYPE, image, audio or resource, to its prompt whatever the agent advertised); --authenticate (calls
authenticate unprompted); --bogus-option (selects an optionId nobody offered);
--no-cancel-answer (on cancel leaves pending permission requests unanswered); --answer-twice M
(answers each M request twice); --stray-answer (after its answer to the agent's first request,
answers an id the agent never sent); --wrong-id M (answers each M request under an id the agent
never sent: 1000 more); --retype-id M (answers each M request under its id retyped: 1 as "1");
--answer-notifications (answers each notification, session/update, with a result under id null);
--answer-after-turn M (once the prompt is answered, answers the last M request again, then ends);
--answer-first-only M (answers the first M request and leaves every later one unanswered, as a
client whose later prompts read a stdin an earlier prompt already drained).
Not a defect: --end-agent-at-cancel stops the agent (SIGSTOP) before it cancels, so the agent
cannot read what follows, then ends it (SIGTERM, SIGCONT) and exits 0 without waiting for the
prompt's answer: its session/cancel and cancelled answer are still in the agent's stdin when the
SIGTERM comes.
--think-ms N: permission requests are answered N ms after they arrive (a person deciding),
unless a cancel comes first.
"""
import argparse
import json
import os
import select
import signal
import subprocess
import sys
import time


# Blocks beyond the baseline (text, resource_link): each needs a prompt capability.
EXTRA_BLOCKS = {
    "image": {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
    "audio": {"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"},
    "resource": {"type": "resource",
                 "resource": {"uri": "file:///tmp/notes.txt", "mimeType": "text/plain", "text": "notes"}},
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--select-kind", default="reject_once")
    p.add_argument("--ignore-method", action="append", default=[])
    p.add_argument("--refuse-method", action="append", default=[])
    p.add_argument("--prompt-block", action="append", default=[])
    p.add_argument("--authenticate", action="store_true")
    p.add_argument("--bogus-option", action="store_true")
    p.add_argument("--no-cancel-answer", action="store_true")
    p.add_argument("--answer-twice", action="append", default=[])
    p.add_argument("--stray-answer", action="store_true")
    p.add_argument("--wrong-id", action="append", default=[])
    p.add_argument("--retype-id", action="append", default=[])
    p.add_argument("--answer-notifications", action="store_true")
    p.add_argument("--answer-after-turn", action="append", default=[])
    p.add_argument("--answer-first-only", action="append", default=[])
    p.add_argument("--end-agent-at-cancel", action="store_true")
    p.add_argument("--think-ms", type=int, default=0)
    p.add_argument("--crash-after-authenticate", action="store_true")
    p.add_argument("--crash-before-prompt", action="store_true")
    p.add_argument("--hang-before-prompt", action="store_true")
    p.add_argument("agent", nargs="*")
    a = p.parse_args()
    agent = a.agent or [os.environ["ACP_CONFORMANCE_AGENT"]]

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGINT, lambda *_: None)

    proc = subprocess.Popen(agent, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out_fd = proc.stdout.fileno()
    buf = b""
    next_id = [0]
    pending_mine = {}  # id -> method
    session = {"id": None}
    prompt_id = [None]
    thinking = {}  # agent request id -> (deadline, msg)
    cancelled = [False]
    want_cancel = [False]
    strayed = [False]

    last_of = {}  # method -> the agent's last request of it
    seen = {}  # method -> how many requests of it the agent sent

    def send(msg):
        method = answering.get(json.dumps(msg.get("id"))) if "method" not in msg else None
        if method in a.wrong_id:
            msg = dict(msg, id=msg["id"] + 1000 if isinstance(msg["id"], int) else "wrong-" + str(msg["id"]))
        elif method in a.retype_id:
            msg = dict(msg, id=str(msg["id"]) if isinstance(msg["id"], int) else int(msg["id"]))
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()

    def request(method, params):
        i = next_id[0]
        next_id[0] += 1
        pending_mine[i] = method
        send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return i

    def permission_answer(msg):
        options = msg.get("params", {}).get("options", [])
        if a.bogus_option:
            return {"outcome": {"outcome": "selected", "optionId": "allow"}}
        for o in options:
            if o.get("kind") == a.select_kind:
                return {"outcome": {"outcome": "selected", "optionId": o.get("optionId")}}
        return {"outcome": {"outcome": "cancelled"}}

    answering = {}  # json id -> method of the agent request under that id

    def on_agent_request(msg):
        answering[json.dumps(msg["id"])] = msg["method"]
        last_of[msg["method"]] = msg
        seen[msg["method"]] = seen.get(msg["method"], 0) + 1
        if msg["method"] in a.answer_first_only and seen[msg["method"]] > 1:
            return
        answer_agent_request(msg)
        if msg["method"] in a.answer_twice:
            answer_agent_request(msg)
        if a.stray_answer and not strayed[0]:
            strayed[0] = True
            send({"jsonrpc": "2.0", "id": "script-client-stray", "result": {}})

    def answer_agent_request(msg):
        method = msg["method"]
        if method in a.ignore_method:
            return
        if method in a.refuse_method:
            send({"jsonrpc": "2.0", "id": msg["id"],
                  "error": {"code": -32601, "message": "Method not found", "data": {"method": method}}})
            return
        if method == "session/request_permission":
            if cancelled[0]:
                # Arrived with (or after) the cancel: it was pending at the cancel all the same.
                if a.no_cancel_answer:
                    return
                send({"jsonrpc": "2.0", "id": msg["id"], "result": {"outcome": {"outcome": "cancelled"}}})
            elif a.think_ms > 0:
                thinking[json.dumps(msg["id"])] = (time.monotonic() + a.think_ms / 1000, msg)
            else:
                send({"jsonrpc": "2.0", "id": msg["id"], "result": permission_answer(msg)})
        elif method.startswith("cursor/"):
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": msg["id"],
                  "error": {"code": -32601, "message": "Method not found", "data": {"method": method}}})

    def cancel():
        if cancelled[0] or session["id"] is None:
            return
        cancelled[0] = True
        if a.end_agent_at_cancel:
            os.kill(proc.pid, signal.SIGSTOP)
        send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session["id"]}})
        if not a.no_cancel_answer:
            for _, msg in list(thinking.values()):
                send({"jsonrpc": "2.0", "id": msg["id"], "result": {"outcome": {"outcome": "cancelled"}}})
        thinking.clear()
        if a.end_agent_at_cancel:
            proc.terminate()
            os.kill(proc.pid, signal.SIGCONT)
            proc.wait()
            sys.exit(0)

    def end(code):
        try:
            proc.stdin.close()
        except OSError:
            pass
        proc.terminate()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        sys.exit(code)

    init = request("initialize", {"protocolVersion": 1,
                                  "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False},
                                  "clientInfo": {"name": "script-client", "version": "0.1.0"}})
    while True:
        if want_cancel[0] and thinking:
            cancel()
        timeout = None
        if thinking:
            timeout = max(0.0, min(d for d, _ in thinking.values()) - time.monotonic())
        ready, _, _ = select.select([out_fd, wake_r], [], [], timeout)
        if wake_r in ready:
            os.read(wake_r, 64)
            if a.end_agent_at_cancel:
                want_cancel[0] = True  # once the permission request is read (below)
            else:
                cancel()
        now = time.monotonic()
        for key, (deadline, msg) in list(thinking.items()):
            if deadline <= now:
                del thinking[key]
                send({"jsonrpc": "2.0", "id": msg["id"], "result": permission_answer(msg)})
        if out_fd not in ready:
            continue
        chunk = os.read(out_fd, 65536)
        if not chunk:
            end(1)
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if not isinstance(msg, dict):
                continue
            if "method" in msg and "id" in msg:
                on_agent_request(msg)
            elif "method" in msg:
                # notifications: session/update of any variant
                if a.answer_notifications:
                    send({"jsonrpc": "2.0", "id": msg.get("id"), "result": {}})
            elif "id" in msg and msg["id"] in pending_mine:
                method = pending_mine.pop(msg["id"])
                if method == "initialize":
                    if a.authenticate or a.crash_after_authenticate:
                        request("authenticate", {"methodId": "cursor_login"})
                    if a.crash_after_authenticate:
                        end(1)
                    request("session/new", {"cwd": os.getcwd(), "mcpServers": []})
                elif method == "session/new" and a.crash_before_prompt:
                    end(1)
                elif method == "session/new" and a.hang_before_prompt:
                    pass
                elif method == "session/new":
                    session["id"] = msg.get("result", {}).get("sessionId")
                    blocks = [{"type": "text", "text": "hello"}] + [EXTRA_BLOCKS[k] for k in a.prompt_block]
                    prompt_id[0] = request("session/prompt", {"sessionId": session["id"],
                                                              "prompt": blocks})
                elif method == "session/prompt":
                    for m in a.answer_after_turn:
                        if m in last_of:
                            answer_agent_request(last_of[m])
                    end(0)


if __name__ == "__main__":
    main()
