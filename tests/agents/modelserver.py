"""What the scripted models (modelserver_*.py) share: their command line
(PORTFILE LOG SCRIPT), the log of every request body, JSON replies, the
choice of a turn, and the server on a loopback port written to PORTFILE.
Stdlib only; a server stops on SIGTERM."""
import http.server
import json
import sys


def script():
    """PORTFILE, LOG and the turns of SCRIPT, from the command line."""
    portfile, log, path = sys.argv[1:4]
    with open(path) as f:
        return portfile, log, json.load(f)


def pick_turn(turns, done):
    """The turn a conversation with `done` tool results is at."""
    return turns[min(done, len(turns) - 1)]


class Handler(http.server.BaseHTTPRequestHandler):
    """A request handler whose server knows the log (server.log)."""

    def log_message(self, *args):
        pass

    def body(self):
        return self.rfile.read(int(self.headers.get("content-length", 0)))

    def log_body(self, body):
        """Append body to the log as one line: the tests read it there."""
        with open(self.server.log, "a") as f:
            f.write(body.decode("utf-8", "replace").replace("\n", " ") + "\n")

    def reply(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(handler, portfile, log):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.log = log
    with open(portfile, "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
