#!/usr/bin/env python3
"""Loopback fake for the webhook and similar suites.

Usage: fake_server.py PORT_FILE
Listens on 127.0.0.1 on a free port, writes the port to PORT_FILE, serves
until killed.

POST /webhook     body {"output": ..., "context": ...}: replies by the output's
                  first "WEBHOOK:" word: pass -> true, fail -> false,
                  score=X -> X (a number), object -> {"pass", "score", "reason"}
                  with score 0.6; anything else -> HTTP 500.
POST /embeddings  OpenAI shape {"model", "input": [texts]}: each text becomes
                  a 4-number vector counting the letters a-e, f-j, k-o, p-z
                  (lower-cased), so similar texts point the same way.
"""
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BUCKETS = ("abcde", "fghij", "klmno", "pqrstuvwxyz")


def embed(text):
    lower = text.lower()
    return [float(sum(lower.count(c) for c in bucket)) for bucket in BUCKETS]


def webhook_reply(output):
    match = re.search(r"WEBHOOK:(\S+)", output if isinstance(output, str) else json.dumps(output))
    word = match.group(1) if match else ""
    if word == "pass":
        return True
    if word == "fail":
        return False
    if word.startswith("score="):
        return float(word[len("score="):])
    if word == "object":
        return {"pass": True, "score": 0.6, "reason": "webhook object reply"}
    return None


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self.reply(400, {"error": "body is not JSON"})
            return
        if self.path.rstrip("/").endswith("/embeddings"):
            texts = body.get("input", [])
            if isinstance(texts, str):
                texts = [texts]
            data = [{"object": "embedding", "index": i, "embedding": embed(t)} for i, t in enumerate(texts)]
            self.reply(200, {"object": "list", "data": data, "model": body.get("model", "")})
            return
        if self.path.rstrip("/").endswith("/webhook"):
            result = webhook_reply(body.get("output", ""))
            if result is None:
                self.reply(500, {"error": "no WEBHOOK: directive"})
            else:
                self.reply(200, result)
            return
        self.reply(404, {"error": "unknown path " + self.path})


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fake_server.py PORT_FILE")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
