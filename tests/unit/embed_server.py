#!/usr/bin/env python3
"""A loopback stand-in for an OpenAI-compatible /v1/embeddings endpoint,
for tests/unit/test_embed_remote.c.  Standard library only.

    embed_server.py [--key KEY] [--log FILE] [--dim N]

Binds 127.0.0.1 on a free port and prints that port on the first line of
stdout.  POST /v1/embeddings with {"model": M, "input": [...strings]}
answers {"object": "list", "data": [{"index": i, "embedding": [...]}],
"model": M}, the items in reverse order (clients must sort by index).

Text t's vector has --dim (default 16) components, component j being
((fnv1a32(utf8(t) + bytes([j])) % 2001) - 1000) / 250 (past 255, j's two
bytes, little-endian): deterministic, not normalized, and easy to recompute in C.

With --key, a request whose Authorization header is not "Bearer KEY" gets
401 and a body that echoes the header it got (as careless servers do), so
that the client's redaction is exercised.  With --log, each request appends
one JSON line: {"model", "n", "auth": "expected" | "none" | "other",
"content_type"} (never the key).

The model name selects a misbehaviour:
    fail-500      500 with a JSON error body
    malformed     200 with a body that is not JSON
    wrong-count   one embedding fewer than inputs
    mixed-dims    the second embedding one component shorter
    no-index      items without "index", in input order
    sleep-MS      sleep MS milliseconds, then answer normally
anything else answers normally.
"""
import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def fnv1a32(data):
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def vector(text, dim):
    raw = text.encode("utf-8")
    return [((fnv1a32(raw + (bytes([j]) if j < 256 else j.to_bytes(2, "little"))) % 2001)
             - 1000) / 250.0 for j in range(dim)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # stderr belongs to the test's output

    def reply(self, status, body, ctype="application/json"):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        opts = self.server.opts
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        auth = self.headers.get("Authorization")
        if auth is None:
            seen = "none"
        elif opts.key is not None and auth == "Bearer " + opts.key:
            seen = "expected"
        else:
            seen = "other"
        try:
            req = json.loads(raw)
            model, texts = req["model"], req["input"]
            assert isinstance(model, str) and isinstance(texts, list)
            assert all(isinstance(t, str) for t in texts)
        except Exception as e:  # noqa: BLE001 - any bad request is a 400
            self.reply(400, json.dumps({"error": {"message": "bad request: %s" % e}}))
            return
        if opts.log:
            with open(opts.log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"model": model, "n": len(texts), "auth": seen,
                                    "content_type": self.headers.get("Content-Type")}) + "\n")
        if opts.key is not None and seen != "expected":
            self.reply(401, json.dumps({"error": {
                "message": "Incorrect API key; got header %s" % auth,
                "type": "invalid_request_error"}}))
            return
        if model.startswith("sleep-"):
            time.sleep(int(model[6:]) / 1000.0)
        if model == "fail-500":
            self.reply(500, json.dumps({"error": {"message": "the model fell over"}}))
            return
        if model == "malformed":
            self.reply(200, '{"data": [{"index": 0, "embedding": [0.1, ')
            return
        data = [{"object": "embedding", "index": i, "embedding": vector(t, opts.dim)}
                for i, t in enumerate(texts)]
        if model == "wrong-count":
            data = data[:-1]
        if model == "mixed-dims" and len(data) > 1:
            data[1]["embedding"] = data[1]["embedding"][:-1]
        if model == "no-index":
            for item in data:
                del item["index"]
        else:
            data.reverse()
        self.reply(200, json.dumps({"object": "list", "data": data, "model": model,
                                    "usage": {"prompt_tokens": 0, "total_tokens": 0}}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--key")
    ap.add_argument("--log")
    ap.add_argument("--dim", type=int, default=16)
    opts = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.opts = opts
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
