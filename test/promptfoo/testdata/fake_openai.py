#!/usr/bin/env python3
"""A deterministic OpenAI-compatible fake for recording promptfoo's scores.

Listens on 127.0.0.1 only. Serves:
  POST /v1/chat/completions  (and /chat/completions)          OpenAI chat
  POST /v1/embeddings        (and /embeddings)                OpenAI embeddings
  POST /openai/deployments/<name>/chat/completions            Azure OpenAI chat
  POST .../v1/messages                                        Anthropic messages
  POST .../models/<model>:generateContent                     Gemini
  GET  /healthz
For Azure the model is the deployment name; for Gemini the model in the path.

Answers are derived from the request alone, so a run is reproducible:

* Grader calls. If any message contains a marker GRADE(...), the reply is a
  grader verdict built from the marker's fields:
    GRADE(pass=true,score=0.75)   -> {"reason": "...", "pass": true, "score": 0.75}
    GRADE(pass=false)             -> {"reason": "...", "pass": false}  (no score)
    GRADE(score=0.4)              -> {"reason": "...", "score": 0.4}    (no pass)
    GRADE(raw=not json)           -> the text "not json" verbatim
  The first marker in the request wins.
* Model calls. The last user message (its text) is looked up in the answers
  table (answers.json next to this file, or --answers FILE): an entry
  {"model": M, "prompt": P, "answer": A} matches model M and prompt P; an entry
  without "model" matches any model. The model "echo" replies with the prompt
  itself. With no match the reply is "echo[<model>]: <prompt>".
* Embeddings. Each input is lower-cased and split into [a-z0-9]+ tokens; token
  t adds 1 to dimension int(sha256(t)[:4], big-endian) % 256. Cosine similarity
  of two texts is therefore a pure function of their words.

Usage: fake_openai.py --port N [--answers FILE] [--log FILE] [--port-file FILE]
  --port 0 picks a free port; --port-file receives the port actually bound.
"""
import argparse
import hashlib
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EMBED_DIMS = 256
MARKER = re.compile(r"GRADE\(([^)]*)\)")
AZURE_PATH = re.compile(r"^/openai/deployments/([^/]+)/chat/completions$")
GEMINI_PATH = re.compile(r"^.*/models/([^/:]+):generateContent$")


def message_text(content):
    """Flattens a chat message content (string or list of parts) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return ""


def grade_reply(fields_text):
    fields = {}
    for item in fields_text.split(","):
        if "=" in item:
            key, value = item.split("=", 1)
            fields[key.strip()] = value.strip()
    if "raw" in fields:
        return fields["raw"]
    verdict = {"reason": "fake grader: " + fields_text}
    if "pass" in fields:
        verdict["pass"] = fields["pass"].lower() == "true"
    if "score" in fields:
        verdict["score"] = float(fields["score"])
    return json.dumps(verdict)


def embed(text):
    vec = [0.0] * EMBED_DIMS
    for token in re.findall(r"[a-z0-9]+", text.lower()):
        digest = hashlib.sha256(token.encode("utf-8")).digest()
        vec[int.from_bytes(digest[:4], "big") % EMBED_DIMS] += 1.0
    return vec


class Fake:
    def __init__(self, answers, log_path):
        self.answers = answers
        self.log_path = log_path
        self.lock = threading.Lock()

    def log(self, record):
        if not self.log_path:
            return
        with self.lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, sort_keys=True) + "\n")

    def answer(self, model, prompt):
        for entry in self.answers:
            if entry.get("prompt") == prompt and entry.get("model") == model:
                return entry["answer"]
        for entry in self.answers:
            if entry.get("prompt") == prompt and "model" not in entry:
                return entry["answer"]
        if model == "echo":
            return prompt
        return "echo[%s]: %s" % (model, prompt)

    def reply(self, model, turns):
        """turns: (role, text) pairs in order, system text included."""
        for _, text in turns:
            found = MARKER.search(text)
            if found:
                return grade_reply(found.group(1)), "grader"
        user = [text for role, text in turns if role == "user"]
        prompt = user[-1] if user else (turns[-1][1] if turns else "")
        return self.answer(model, prompt), "model"

    def chat(self, body, model=None):
        model = body.get("model", "") if model is None else model
        turns = [(m.get("role", ""), message_text(m.get("content")))
                 for m in body.get("messages") or [] if isinstance(m, dict)]
        text, kind = self.reply(model, turns)
        return model, text, kind

    def anthropic(self, body):
        model = body.get("model", "")
        turns = []
        system = body.get("system")
        if system:
            turns.append(("system", message_text(system)))
        turns += [(m.get("role", ""), message_text(m.get("content")))
                  for m in body.get("messages") or [] if isinstance(m, dict)]
        text, kind = self.reply(model, turns)
        return model, text, kind

    def gemini(self, body, model):
        turns = []
        system = body.get("systemInstruction") or body.get("system_instruction")
        if isinstance(system, dict):
            turns.append(("system", message_text(system.get("parts"))))
        for c in body.get("contents") or []:
            if isinstance(c, dict):
                role = "user" if c.get("role", "user") == "user" else c.get("role")
                turns.append((role, message_text(c.get("parts"))))
        text, kind = self.reply(model, turns)
        return model, text, kind


def make_handler(fake):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):  # keep stderr quiet
            pass

        def send_json(self, status, payload):
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/healthz":
                self.send_json(200, {"ok": True})
            else:
                self.send_json(404, {"error": {"message": "not found: " + self.path}})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError as err:
                self.send_json(400, {"error": {"message": "bad json: %s" % err}})
                return
            path = self.path.split("?", 1)[0]
            azure = AZURE_PATH.match(path)
            gemini = GEMINI_PATH.match(path)
            if path.endswith("/v1/messages"):
                model, text, kind = fake.anthropic(body)
                fake.log({"kind": kind, "api": "anthropic", "model": model, "request": body, "reply": text})
                self.send_json(200, {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                })
            elif gemini:
                model, text, kind = fake.gemini(body, gemini.group(1))
                fake.log({"kind": kind, "api": "gemini", "model": model, "request": body, "reply": text})
                self.send_json(200, {
                    "candidates": [{
                        "content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": "STOP",
                        "index": 0,
                    }],
                    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                    "modelVersion": model,
                })
            elif path in ("/v1/chat/completions", "/chat/completions") or azure:
                model, text, kind = fake.chat(body, azure.group(1) if azure else None)
                fake.log({"kind": kind, "model": model, "request": body, "reply": text})
                self.send_json(200, {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })
            elif path in ("/v1/embeddings", "/embeddings"):
                inputs = body.get("input")
                if isinstance(inputs, str):
                    inputs = [inputs]
                if not isinstance(inputs, list):
                    self.send_json(400, {"error": {"message": "input must be a string or list"}})
                    return
                fake.log({"kind": "embedding", "model": body.get("model", ""), "request": body})
                self.send_json(200, {
                    "object": "list",
                    "model": body.get("model", ""),
                    "data": [{"object": "embedding", "index": i, "embedding": embed(str(t))}
                             for i, t in enumerate(inputs)],
                    "usage": {"prompt_tokens": 3, "total_tokens": 3},
                })
            else:
                self.send_json(404, {"error": {"message": "not found: " + path}})

    return Handler


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="deterministic OpenAI-compatible fake (loopback only)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--answers", default=os.path.join(here, "answers.json"))
    parser.add_argument("--log", default="")
    parser.add_argument("--port-file", default="")
    args = parser.parse_args()
    with open(args.answers, encoding="utf-8") as f:
        answers = json.load(f)
    if not isinstance(answers, list):
        sys.exit("%s: the answers table must be a JSON list" % args.answers)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(Fake(answers, args.log)))
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(args.port_file + ".tmp", args.port_file)
    print("fake_openai listening on 127.0.0.1:%d" % port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
