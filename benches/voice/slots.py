#!/usr/bin/env python3
"""Later speakers on a server with two slots: does reading the next speaker's
prompt while the current one streams bring its first token sooner, and what
does it cost the stream? Needs llama.cpp's own server with two slots, e.g.
`llama-server -m MODEL.gguf --port 18556 -np 2 -c 16384 -t $(nproc)`
(docs/decisions/2026-11-28-reading-while-a-speaker-streams.md says how it
was built here). Not in CI.

    python3 benches/voice/slots.py --url http://127.0.0.1:18556 --reps 6

Per rep: a fresh history (rep-marked). Pause read-ahead as the engine does
(B's prompt up to the round's start, max_tokens 1). Then
  base:  A streams its reply; then B's full call (history + A's reply + note).
  ahead: the same, and when A has streamed 40 tokens, B's prompt with A's
         reply so far is read in the second slot (max_tokens 1).
Reported: A's tokens/s after its 40th token, A's total, B's first token, and
B's first token counted from A's start (what the facilitator waits)."""
import argparse, json, threading, time, urllib.request, statistics, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "agents")
def persona(f):
    return open(os.path.join(ROOT, f), encoding="utf-8").read()

RULES = ("You are in a party-mode discussion with other personas and a facilitator. Speak only as yourself, "
         "in one or two short points, in plain sentences. Never write another speaker's turn.")
TURNS = [
 ("Maya", "The paper sheets fail us on busy Saturdays: people queue twice and volunteers copy names by hand. Any app must work on the cheap phones our volunteers carry, and offline, since the hall has no signal."),
 ("Ingrid", "Keep the architecture boring: a small web app with a local cache, synced when a connection comes back. No accounts for clients; a volunteer signs them in."),
 ("Tomás", "Before building anything, run a two-week pilot with one shift. Measure the queue time and the copying errors against the paper weeks."),
 ("Priya", "Design for the least confident volunteer. Big buttons, one screen per step, and a paper fallback printed every morning."),
 ("Lena", "Let's cut the pilot into three tasks: pick the tool, train two volunteers, compare the numbers after two Saturdays."),
 ("Amara", "Whatever we choose, write a one-page guide with pictures, and keep it next to the tablet."),
]

def body(system, history, rep, extra=None, note=None, max_tokens=1, stream=False):
    msgs = [{"role": "system", "content": system + "\n\n" + RULES},
            {"role": "user", "content": f"(party {rep}) Facilitator: Should our volunteer-run food bank replace its paper sign-up sheets with an app?"}]
    for name, text in history:
        msgs.append({"role": "user", "content": f"{name}: {text}"})
    if extra:
        msgs.append({"role": "user", "content": f"Kofi: {extra}"})
    if note:
        msgs.append({"role": "user", "content": note})
    return {"model": "m", "messages": msgs, "max_tokens": max_tokens, "temperature": 0, "stream": stream, "cache_prompt": True}

def call(url, b):
    req = urllib.request.Request(url + "/v1/chat/completions", data=json.dumps(b).encode(), headers={"Content-Type": "application/json"})
    t0 = time.time()
    with urllib.request.urlopen(req) as r:
        if not b["stream"]:
            json.load(r); return time.time() - t0, None
        first, pieces, stamps = None, [], []
        for line in r:
            line = line.decode().strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            d = json.loads(line[5:])
            c = d["choices"][0]["delta"].get("content") if d.get("choices") else None
            if c:
                now = time.time() - t0
                first = first if first is not None else now
                pieces.append(c); stamps.append(now)
                yield_hook(pieces, stamps)
        return first, ("".join(pieces), stamps)

def yield_hook(pieces, stamps):
    if HOOK[0]:
        HOOK[0](pieces, stamps)
HOOK = [None]

def main():
    ap = argparse.ArgumentParser(); ap.add_argument("--url", default="http://127.0.0.1:18556"); ap.add_argument("--reps", type=int, default=4)
    a = ap.parse_args()
    A, B = persona("developer.md"), persona("architect.md")
    note_a = "Kofi, it is your turn: give your view in four or five full sentences, with a concrete example."
    note_b = "Ingrid, it is your turn: answer Kofi's point in one or two points."
    res = {"base": [], "ahead": []}
    for rep in range(a.reps):
        for mode in (["base", "ahead"] if rep % 2 == 0 else ["ahead", "base"]):
            tag = f"{rep}-{mode}"
            hist = TURNS
            # the pause's read-ahead: both speakers' prompts as far as known
            call(a.url, body(A, hist, tag)); call(a.url, body(B, hist, tag))
            HOOK[0] = None; read = {}
            if mode == "ahead":
                def hook(pieces, stamps, done=[False]):
                    if not done[0] and len(pieces) >= 40:
                        done[0] = True
                        partial = "".join(pieces)
                        def r():
                            t0 = time.time(); call(a.url, body(B, hist, tag, extra=partial)); read["s"] = time.time() - t0; read["at"] = len(pieces)
                        th = threading.Thread(target=r); th.start(); read["th"] = th
                HOOK[0] = hook
            first_a, (reply, stamps) = call(a.url, body(A, hist, tag, note=note_a, max_tokens=160, stream=True))
            HOOK[0] = None
            if "th" in read: read["th"].join()
            rate = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else 0
            second_half = [s for i, s in enumerate(stamps) if i >= 40]
            rate2 = (len(second_half) - 1) / (second_half[-1] - second_half[0]) if len(second_half) > 1 else 0
            first_b, _ = call(a.url, body(B, hist, tag, extra=reply, note=note_b, max_tokens=20, stream=True))
            res[mode].append((first_a, rate, rate2, stamps[-1], first_b, read.get("s")))
            print(f"rep {rep} {mode:5}: A first {first_a:.2f}s, {len(stamps)} tokens, {rate:.1f} tok/s (after token 40: {rate2:.1f}), total {stamps[-1]:.2f}s; read {read.get('s') or 0:.2f}s; B first {first_b:.2f}s", flush=True)
    for mode, rows in res.items():
        med = lambda i: statistics.median(r[i] for r in rows)
        whole = statistics.median(r[3] + r[4] for r in rows)
        print(f"{mode}: median A tok/s after token 40 {med(2):.1f}, A total {med(3):.2f}s, B first token {med(4):.2f}s, from A's start {whole:.2f}s")

if __name__ == "__main__":
    main()
