#!/usr/bin/env python3
"""A scripted model on loopback that speaks the OpenAI Responses API (SSE),
as Codex CLI uses it: POST /v1/responses, answered with one output item.

    modelserver_responses.py PORTFILE LOG SCRIPT

SCRIPT is a JSON list of turns: {"call": TOOL, "args": {...}} asks for a tool
call, {"text": "..."} answers in words.  The turn is chosen by how many tool
results the request carries, so that Codex's extra requests (a retry, a
compaction) get the answer its conversation is at.  Every request body is
appended to LOG as one JSON line: the tests read what reached the model there.
The chosen port is written to PORTFILE.  Stdlib only; stops on SIGTERM.
"""
import json

from modelserver import Handler, pick_turn, script, serve

PORTFILE, LOG, TURNS = script()


class Model(Handler):
    counter = 0

    def event(self, kind, data):
        data["type"] = kind
        self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())

    def do_POST(self):
        body = self.body()
        self.log_body(body)
        req = json.loads(body or b"{}")
        done = sum(1 for it in req.get("input", [])
                   if isinstance(it, dict) and it.get("type") == "function_call_output")
        turn = pick_turn(TURNS, done)
        Model.counter += 1
        rid = "resp_%d" % Model.counter
        if "call" in turn:
            item = {"type": "function_call", "id": "fc_" + rid, "call_id": "call_" + rid,
                    "name": turn["call"], "arguments": json.dumps(turn["args"])}
        else:
            item = {"type": "message", "id": "msg_" + rid, "role": "assistant",
                    "content": [{"type": "output_text", "text": turn["text"]}]}
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.event("response.created", {"response": {"id": rid}})
        self.event("response.output_item.added", {"output_index": 0, "item": item})
        self.event("response.output_item.done", {"output_index": 0, "item": item})
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                 "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens_details": {"reasoning_tokens": 0}}
        self.event("response.completed", {"response": {"id": rid, "output": [item], "usage": usage}})

    def do_GET(self):
        self.send_response(404)
        self.end_headers()


serve(Model, PORTFILE, LOG)
