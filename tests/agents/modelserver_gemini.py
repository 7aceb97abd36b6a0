#!/usr/bin/env python3
"""A scripted model on loopback that speaks the Gemini API (generativelanguage
v1beta) as the Gemini CLI uses it with GOOGLE_GEMINI_BASE_URL set:

    POST /v1beta/models/MODEL:streamGenerateContent?alt=sse   the agent's turns
    POST /v1beta/models/MODEL:generateContent                 side requests
    POST /v1beta/models/MODEL:countTokens
    GET  /v1beta/models[/MODEL]                                a model list

    modelserver_gemini.py PORTFILE LOG SCRIPT

SCRIPT is a JSON list of turns: {"call": TOOL, "args": {...}} asks for a tool
call, {"text": "..."} answers in words.  The turn is chosen by how many
functionResponse parts the request's contents hold.  A request that asks for
JSON (generationConfig.responseMimeType application/json, or a response
schema: the CLI's next-speaker check, model router, loop detection...) gets a
minimal object valid for its schema instead, with next_speaker "user" so that
the CLI never continues on its own.  Every request body is appended to LOG as
one JSON line (the method and path go to stderr).  The chosen port is written
to PORTFILE.  Stdlib only.
"""
import json
import sys

from modelserver import Handler, pick_turn, script, serve

PORTFILE, LOG, TURNS = script()

USAGE = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
MODEL = {"name": "models/gemini-2.5-flash", "displayName": "scripted", "version": "001",
         "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
         "supportedGenerationMethods": ["generateContent", "countTokens"]}


def instance(schema, key=""):
    """A minimal value valid for a JSON (or OpenAPI-style) schema."""
    if not isinstance(schema, dict):
        return None
    if key == "next_speaker":
        return "user"
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for alt in ("anyOf", "oneOf", "allOf"):
        if schema.get(alt):
            return instance(schema[alt][0], key)
    t = schema.get("type", "object")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "null")
    t = str(t).lower()
    if t == "object":
        props = schema.get("properties", {})
        return {k: instance(v, k) for k, v in props.items()}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return schema.get("minimum", 1)
    if t == "boolean":
        return False
    if t == "null":
        return None
    return "scripted"


def wants_json(req):
    gc = req.get("generationConfig") or {}
    schema = gc.get("responseJsonSchema") or gc.get("responseSchema") or gc.get("response_json_schema")
    if schema:
        return instance(schema)
    if gc.get("responseMimeType") == "application/json":
        return {}
    return None


class Model(Handler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        sys.stderr.write("GET %s\n" % self.path)
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/models"):
            self.reply({"models": [MODEL]})
        elif "/models/" in path:
            self.reply(MODEL)
        else:
            self.reply({"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}, 404)

    def do_POST(self):
        body = self.body()
        sys.stderr.write("POST %s\n" % self.path)
        self.log_body(body)
        req = json.loads(body or b"{}")
        path = self.path.split("?")[0]
        if path.endswith(":countTokens"):
            self.reply({"totalTokens": 1})
            return
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            self.reply({"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}, 404)
            return
        obj = wants_json(req)
        if obj is not None:
            parts = [{"text": json.dumps(obj)}]
        else:
            done = sum(1 for c in req.get("contents", []) for p in c.get("parts", [])
                       if isinstance(p, dict) and "functionResponse" in p)
            turn = pick_turn(TURNS, done)
            if "call" in turn:
                parts = [{"functionCall": {"name": turn["call"], "args": turn["args"]}}]
            else:
                parts = [{"text": turn["text"]}]
        resp = {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": USAGE, "modelVersion": "scripted"}
        if path.endswith(":generateContent"):
            self.reply(resp)
            return
        data = ("data: " + json.dumps(resp) + "\r\n\r\n").encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


serve(Model, PORTFILE, LOG)
