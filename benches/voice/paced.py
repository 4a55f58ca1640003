#!/usr/bin/env python3
"""A facilitator who takes time to read and write, against a real model.

Runs one headless party (`--headless --events json`): the topic (typed over
TYPE_TOPIC seconds after the welcome, a draft told at every word, as the
full screen tells one at every key; 0 sends it at once), then after each round a pause of PAUSE seconds (reading the replies, typing: a typing
event every 10 s, which holds off the idle push) before the room is let go on
([C]), for ROUNDS rounds; then the exit. Prints each reply's time
to first token by round and speaking position, and the median of every
round's second and third speakers (docs/real-models.md, "Reading ahead").

    python3 benches/voice/paced.py --bin target/release/bmad-party --pause 45 \\
        --type-topic 30 --rounds 3 --topic "…" [--config c.yaml] [-- more bmad-party flags]

The model's server comes from OPENAI_BASE_URL / OPENAI_MODEL as for any party.
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--pause", type=float, default=45.0)
    ap.add_argument("--type-topic", type=float, default=0.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--config")
    ap.add_argument("--output", default=None)
    ap.add_argument("rest", nargs="*")
    a = ap.parse_args()
    out = a.output or tempfile.mkdtemp(prefix="paced-")
    cmd = [a.bin, "--headless", "--events", "json", "--no-memory", "--output", out]
    if a.config:
        cmd += ["--config", a.config]
    cmd += a.rest
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(obj):
        p.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        p.stdin.flush()

    def type_topic():
        # The words come evenly over the typing time, each told as a draft.
        words = a.topic.split(" ")
        for k in range(1, len(words) + 1):
            time.sleep(a.type_topic / len(words))
            send({"type": "draft", "text": " ".join(words[:k])})
        send(a.topic)

    if a.type_topic <= 0:
        send(a.topic)
    topic_sent = a.type_topic <= 0
    rounds_done = 0
    by_round = {}
    current = 0
    session_file = None
    # Each typing event is answered with awaiting_input again: only the
    # first after a round's end counts.
    round_over = False
    for line in p.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("type")
        if kind == "session_file":
            session_file = ev["path"]
        elif kind == "round_started":
            current = ev["round"]
        elif kind == "agent_message" and ev.get("latency"):
            by_round.setdefault(current, []).append((ev["name"], ev["latency"]["first_token_ms"]))
        elif kind == "round_finished":
            rounds_done += 1
            round_over = True
        elif kind == "confirmation_request":
            send({"type": "answer", "request_id": ev["request_id"], "confirmed": True})
        elif kind == "awaiting_input" and ev.get("kind") == "message" and not topic_sent:
            topic_sent = True
            type_topic()
        elif kind == "awaiting_input" and ev.get("kind") == "message" and round_over:
            round_over = False
            if rounds_done >= a.rounds:
                send({"type": "exit"})
            else:
                # Typing, as a facilitator writing does: it postpones the
                # idle push, which would otherwise start a round by itself.
                end = time.time() + a.pause
                while time.time() < end:
                    send({"type": "typing"})
                    time.sleep(min(10.0, max(0.0, end - time.time())))
                send({"type": "continue"})
        elif kind == "session_ended":
            break
    p.stdin.close()
    p.wait()
    later, first = [], []
    for r in sorted(by_round):
        print(f"round {r}: " + ", ".join(f"{n} {ms / 1000:.1f} s" for n, ms in by_round[r]))
        later += [ms for _, ms in by_round[r][1:]]
        first += [ms for _, ms in by_round[r][:1]]
    if later:
        print(f"2nd/3rd speakers: {[round(ms / 1000, 1) for ms in later]} median {statistics.median(later) / 1000:.1f} s")
    if first:
        print(f"1st speakers: {[round(ms / 1000, 1) for ms in first]} median {statistics.median(first) / 1000:.1f} s")
    print(f"session file: {session_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
