#!/usr/bin/env python3
"""A scripted model on loopback that speaks the Anthropic Messages API as
Claude Code uses it with ANTHROPIC_BASE_URL set:

    POST /v1/messages                the agent's turns (streamed when asked)
    POST /v1/messages/count_tokens   a token count

    modelserver_anthropic.py PORTFILE LOG SCRIPT

SCRIPT is a JSON list of turns: {"call": TOOL, "args": {...}} asks for a tool
call, {"text": "..."} answers in words.  The turn is chosen by how many
tool_result blocks the request's messages hold.  A request that offers no
tools is one of the CLI's side requests (a title, a topic check...): it gets
a short text and is not a turn.  Every request body is appended to LOG as one
JSON line: the tests read what reached the model there.  The chosen port is
written to PORTFILE.  Stdlib only; stops on SIGTERM.
"""
import json
import sys

from modelserver import Handler, pick_turn, script, serve

PORTFILE, LOG, TURNS = script()

USAGE = {"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0,
         "cache_read_input_tokens": 0}


def tool_results(req):
    n = 0
    for m in req.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            n += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return n


class Model(Handler):
    protocol_version = "HTTP/1.1"
    counter = 0

    def do_GET(self):
        self.reply({"type": "error", "error": {"type": "not_found_error", "message": "no"}}, 404)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.body()
        sys.stderr.write("POST %s\n" % self.path)
        path = self.path.split("?")[0].rstrip("/")
        req = json.loads(body or b"{}")
        if path.endswith("/count_tokens"):
            self.reply({"input_tokens": 1})
            return
        if not path.endswith("/v1/messages"):
            self.reply({"type": "error", "error": {"type": "not_found_error", "message": "no"}}, 404)
            return
        self.log_body(body)
        Model.counter += 1
        mid = "msg_%d" % Model.counter
        if req.get("tools"):
            turn = pick_turn(TURNS, tool_results(req))
        else:
            turn = {"text": "scripted"}
        if "call" in turn:
            block = {"type": "tool_use", "id": "toolu_%d" % Model.counter, "name": turn["call"],
                     "input": turn["args"]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": turn["text"]}
            stop = "end_turn"
        message = {"id": mid, "type": "message", "role": "assistant",
                   "model": req.get("model", "scripted"), "content": [block],
                   "stop_reason": stop, "stop_sequence": None, "usage": USAGE}
        if not req.get("stream"):
            self.reply(message)
            return
        events = [("message_start", {"message": dict(message, content=[], stop_reason=None)})]
        if block["type"] == "tool_use":
            events.append(("content_block_start",
                           {"index": 0, "content_block": dict(block, input={})}))
            events.append(("content_block_delta",
                           {"index": 0, "delta": {"type": "input_json_delta",
                                                  "partial_json": json.dumps(block["input"])}}))
        else:
            events.append(("content_block_start",
                           {"index": 0, "content_block": {"type": "text", "text": ""}}))
            events.append(("content_block_delta",
                           {"index": 0, "delta": {"type": "text_delta", "text": block["text"]}}))
        events.append(("content_block_stop", {"index": 0}))
        events.append(("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 1}}))
        events.append(("message_stop", {}))
        data = b"".join(("event: %s\ndata: %s\n\n" % (k, json.dumps(dict(v, type=k)))).encode()
                        for k, v in events)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


serve(Model, PORTFILE, LOG)
