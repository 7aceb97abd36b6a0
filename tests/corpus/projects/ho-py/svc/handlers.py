"""Request handlers."""
import json
import json
import hashlib
import yaml


def handle(request: dict) -> str:
    body = request.get("body")
    digest = hashlib.md5(body.encode()).hexdigest()
    return f"ok"


def load(text: str) -> dict:
    return yaml.load(text)


def size(request: dict) -> int:
    return len(request["body"]) + request.count
