#!/usr/bin/env python3
"""One headless party in a room of two servers (docs/real-models.md, "A room of
two servers"): the default endpoint (a local model, from OPENAI_BASE_URL) and
a named one, `hosted` (benches/mixed/hosted.py standing in for a hosted API).
The room goes on by itself ([C]) for ROUNDS rounds. Prints each endpoint's
first-token and whole-reply times and each round's wall time beside the sum
of its replies' times (below it: replies streamed at once).

    python3 benches/mixed/mixed.py --bin target/release/bmad-party \\
        --hosted http://127.0.0.1:18600/v1 --mode hybrid --rounds 3 \\
        --topic "…" --on-hosted architect,developer

The stand-in's key is read from STAND_IN_KEY (set here from --key): only its
name is written in the config.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--hosted", required=True, help="the stand-in's base URL")
    ap.add_argument("--key", default="stand-in-key")
    ap.add_argument("--mode", choices=["sequential", "hybrid", "parallel"], required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--on-hosted", default="architect,developer", help="agents on the stand-in")
    ap.add_argument("--members", default="", help="a standing cast (a party of these agents), else the whole room")
    ap.add_argument("--per-round", type=int, default=0, help="speakers in each round (0: the default 2–3)")
    a = ap.parse_args()
    out = tempfile.mkdtemp(prefix="mixed-")
    config = os.path.join(out, "mixed.yaml")
    with open(config, "w") as f:
        f.write(
            "bmad:\n"
            "  llm:\n"
            "    endpoints:\n"
            f"      hosted: {{ base_url: {a.hosted}, model: hosted-stand-in, api_key_env: STAND_IN_KEY, parallel_requests: true }}\n"
        )
        if a.per_round:
            f.write(f"  party_mode:\n    agents_per_round: {{ min: {a.per_round}, max: {a.per_round} }}\n")
        if a.members:
            # The same few speakers every round: the modes compare round by round.
            f.write(f"  parties:\n    mixed:\n      members: [{a.members}]\n      memory: false\n")
    hosted = [x for x in a.on_hosted.split(",") if x]
    cmd = [a.bin, "--headless", "--events", "json", "--no-memory", "--output", out, "--config", config,
           "--round-mode", a.mode]
    for agent in hosted:
        cmd += ["--endpoint", f"{agent}=hosted"]
    if a.members:
        cmd += ["--party", "mixed"]
    env = dict(os.environ, STAND_IN_KEY=a.key)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1, env=env)

    def send(obj):
        p.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        p.stdin.flush()

    send(a.topic)
    by_endpoint = {}
    walls = []
    speakers = []
    summed = []  # each round's replies one after another, ms
    in_round = False
    started = None
    rounds_done = 0
    for line in p.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("type")
        if kind == "round_started":
            started = time.monotonic()
            speakers.append([])
            summed.append(0)
            in_round = True
        elif kind == "agent_message" and ev.get("latency"):
            where = "hosted" if ev["agent"] in hosted else "default"
            lat = ev["latency"]
            by_endpoint.setdefault(where, []).append((lat["first_token_ms"], lat["total_ms"]))
            # A reply between rounds (the moderator's) is no round's.
            if in_round:
                speakers[-1].append(ev["agent"] + ("@hosted" if where == "hosted" else ""))
                summed[-1] += lat["total_ms"]
        elif kind == "round_finished":
            in_round = False
            if started is not None:
                walls.append(time.monotonic() - started)
            rounds_done += 1
        elif kind == "confirmation_request":
            send({"type": "answer", "request_id": ev["request_id"], "confirmed": False})
        elif kind == "awaiting_input" and ev.get("kind") == "message" and rounds_done:
            send({"type": "exit"} if rounds_done >= a.rounds else {"type": "continue"})
        elif kind == "session_ended":
            break
    p.stdin.close()
    p.wait()
    print(f"mode {a.mode}, {rounds_done} rounds, on the stand-in: {', '.join(hosted)}")
    for where, times in sorted(by_endpoint.items()):
        first = statistics.median(t[0] for t in times) / 1000
        whole = statistics.median(t[1] for t in times) / 1000
        print(f"  {where}: {len(times)} replies, first token median {first:.1f} s, whole reply median {whole:.1f} s")
    if walls:
        print(f"  round wall time: {', '.join(f'{w:.0f} s' for w in walls)}; median {statistics.median(walls):.0f} s")
    # A round's wall time below its replies' sum is replies streaming at once
    # (a pass's attempts count in the wall time only).
    for i, (who, wall, ms) in enumerate(zip(speakers, walls, summed), 1):
        print(f"  round {i}: {wall:.0f} s, its replies one after another {ms / 1000:.0f} s: {' '.join(who)}")
    print(f"  output: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
