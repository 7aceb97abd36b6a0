#!/usr/bin/env python3
"""A scripted model on loopback that speaks OpenAI Chat Completions,
streamed, with native tool calls, as the Cline CLI uses it (POST
/v1/chat/completions; GET /v1/models is answered with one model).

    modelserver_chat.py PORTFILE LOG SCRIPT

SCRIPT is a JSON list of turns: {"call": TOOL, "args": {...}} asks for a tool
call, {"text": "..."} answers in words.  The turn is chosen by how many tool
results the conversation holds.  Every request body is appended to LOG as one
JSON line.  The chosen port is written to PORTFILE.  Stdlib only.
"""
import json

from modelserver import Handler, pick_turn, script, serve

PORTFILE, LOG, TURNS = script()


class Model(Handler):
    counter = 0

    def do_GET(self):
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps({"object": "list", "data": [{"id": "scripted", "object": "model"}]}).encode())

    def chunk(self, delta, finish=None, usage=None):
        d = {"id": "c%d" % Model.counter, "object": "chat.completion.chunk", "created": 0,
             "model": "scripted",
             "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage:
            d["usage"] = usage
        self.wfile.write(("data: " + json.dumps(d) + "\n\n").encode())

    def do_POST(self):
        body = self.body()
        self.log_body(body)
        req = json.loads(body or b"{}")
        done = sum(1 for m in req.get("messages", []) if m.get("role") == "tool")
        turn = pick_turn(TURNS, done)
        Model.counter += 1
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        if "call" in turn:
            call = {"index": 0, "id": "call_%d" % Model.counter, "type": "function",
                    "function": {"name": turn["call"], "arguments": json.dumps(turn["args"])}}
            self.chunk({"role": "assistant", "tool_calls": [call]})
            self.chunk({}, "tool_calls")
        else:
            self.chunk({"role": "assistant", "content": turn["text"]})
            self.chunk({}, "stop")
        self.chunk({}, usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
        self.wfile.write(b"data: [DONE]\n\n")


serve(Model, PORTFILE, LOG)
