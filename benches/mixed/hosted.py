#!/usr/bin/env python3
"""A stand-in for a hosted model in a mixed room (docs/real-models.md, "A room
of two servers"): an OpenAI-compatible server on 127.0.0.1 that answers many
requests at once, each after FIRST seconds, at RATE tokens a second, with a
few sentences of a colleague's kind (a pool of 24 walked in turn: one comes
again only after the other 23), and counts the tokens as a hosted API does. It stands
in for the latency of a hosted API, not for its judgement: the local model's
replies are the ones to read.

    python3 benches/mixed/hosted.py --port 18600 --first 1.2 --rate 40

Checks the key header it is given (`--key`, default `stand-in-key`): a
request without it is refused with 401, as a hosted API does.
"""
import argparse
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SENTENCES = [
    "The contract between the two services needs a version number before anything ships.",
    "I would put the riskiest part first, so we learn in week one rather than week six.",
    "That plan holds only if someone owns the rollback, and today nobody does.",
    "Let's write down the one number that tells us it worked, and check it on Friday.",
    "The cheapest test is a dry run with the real data, not a demo with clean data.",
    "We can keep the old path alive behind a flag until the new one has run for a week.",
    "Whoever gets paged at three in the morning should have written the runbook.",
    "Two teams sharing one queue need one person who decides what is urgent.",
    "My worry is the handover on Monday mornings, where tickets fall between desks.",
    "A pilot with one product line tells us more than a survey of every team.",
    "If the escalation path has more than two steps, customers feel every one of them.",
    "Budget a quarter for training, or the first incident teaches it the hard way.",
    "Our alert noise is the real problem; halve it before anyone else joins the rotation.",
    "Support knows which customers are angry; engineering knows which fixes are safe.",
    "I'd rather pay overtime for six weeks than hire before we know the load.",
    "The dashboard should show open incidents by owner, not by severity alone.",
    "Legal will ask who sees customer data at night, so settle access first.",
    "Let's compare the last ten incidents: how many needed an engineer at all?",
    "A rotation of five people means one week in five; fewer and people burn out.",
    "Write the exit criteria now, so the pilot can end without a debate.",
    "Pair a support lead with an engineer for the first month of shifts.",
    "The tooling cost is small next to the cost of one missed outage.",
    "Ask the night shift what they would drop first; they know the waste.",
    "Keep the customer update template short enough to send from a phone.",
]


def reply_for(messages, served):
    """Two or three sentences, the next of the pool in turn, so the room's
    echo check mostly sees a colleague's new point; the prompt only picks
    how many."""
    seed = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
    n = 2 + seed[0] % 2
    picks = [SENTENCES[(served + i) % len(SENTENCES)] for i in range(n)]
    return " ".join(picks), n


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        if self.headers.get("Authorization") == f"Bearer {self.server.key}":
            return True
        self.send_json(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error"}})
        return False

    def do_GET(self):
        if not self.authorized():
            return
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [{"id": self.server.model, "object": "model"}]})
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if not self.authorized():
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": "not found"}})
            return
        with self.server.lock:
            text, n = reply_for(body.get("messages", []), self.server.served)
            self.server.served += n
        words = text.split(" ")
        # About four characters a token, as a hosted API would count the prompt.
        prompt = max(1, len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4)
        usage = {"prompt_tokens": prompt, "completion_tokens": len(words), "total_tokens": prompt + len(words)}
        time.sleep(self.server.first)
        if not body.get("stream"):
            self.send_json(200, {
                "id": "stand-in", "object": "chat.completion", "model": self.server.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": usage,
            })
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()

        def chunk(delta, finish=None):
            event = {"id": "stand-in", "object": "chat.completion.chunk", "model": self.server.model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()

        try:
            chunk({"role": "assistant", "content": ""})
            for i, w in enumerate(words):
                chunk({"content": w if i == 0 else " " + w})
                time.sleep(1.0 / self.server.rate)
            chunk({}, "stop")
            if (body.get("stream_options") or {}).get("include_usage"):
                # A hosted API's last chunk counts the tokens.
                last = {"id": "stand-in", "object": "chat.completion.chunk", "model": self.server.model,
                        "choices": [], "usage": usage}
                self.wfile.write(f"data: {json.dumps(last)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=18600)
    ap.add_argument("--first", type=float, default=1.2, help="seconds to the first token")
    ap.add_argument("--rate", type=float, default=40.0, help="tokens a second")
    ap.add_argument("--model", default="hosted-stand-in")
    ap.add_argument("--key", default="stand-in-key")
    a = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    server.first, server.rate, server.model, server.key = a.first, a.rate, a.model, a.key
    server.lock, server.served = threading.Lock(), 0
    server.serve_forever()


if __name__ == "__main__":
    main()
