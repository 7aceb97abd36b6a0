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
import http.server
import json
import sys

PORTFILE, LOG, SCRIPT = sys.argv[1:4]
with open(SCRIPT) as f:
    TURNS = json.load(f)


class Model(http.server.BaseHTTPRequestHandler):
    counter = 0

    def log_message(self, *args):
        pass

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
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with open(LOG, "a") as f:
            f.write(body.decode("utf-8", "replace").replace("\n", " ") + "\n")
        req = json.loads(body or b"{}")
        done = sum(1 for m in req.get("messages", []) if m.get("role") == "tool")
        turn = TURNS[min(done, len(TURNS) - 1)]
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


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Model)
with open(PORTFILE, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
