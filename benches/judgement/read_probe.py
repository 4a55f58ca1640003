#!/usr/bin/env python3
"""Tries designs of the host's reading (`read_messages`, src/engine/reading/mod.rs) on a local
model, fast: every facilitator message of the judgement bench's scenarios (tuned and
held out) and of messages.json (messages of other meetings), each sorted by the model at
temperature 0, scored against its tag (end -> A, agree -> B, ask -> C, else D).

    python3 benches/judgement/read_probe.py                                 # the shipped templates
    python3 benches/judgement/read_probe.py designs/read-four-letters.json  # letters: another design
    python3 benches/judgement/read_probe.py designs/read-yes-no.json        # yes/no questions: P(yes) per question
    python3 benches/judgement/read_probe.py --detour                        # the scripted answer after every opening too
    python3 benches/judgement/read_probe.py --messages messages-holdout.json --no-scenarios  # messages no design was tried on

A Chinese message is read with the `.zh` form of a template where there is one (`read_message.zh`;
`system.zh`, `user.zh` in a design), as a Chinese party reads it.

A server must answer on --port (18555) with `logprobs` (llama-cpp-python's does):
benches/voice/local-model.sh starts one. Messages are read with no history (only the
facilitator's earlier messages), as the engine sends them.
"""
import argparse, json, math, os, time, tomllib, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
STEP = os.path.join(HERE, "..", "..", "workflows", "party-mode", "steps", "step-02-discussion-orchestration.md")


def template(name):
    """A template's text from the step file, as src/workflow.rs reads it (None: no such template)."""
    text = open(STEP, encoding="utf-8").read()
    if f"## Template: {name}\n" not in text:
        return None
    block = text.split(f"## Template: {name}\n", 1)[1]
    return block.split("```text\n", 1)[1].split("\n```", 1)[0]


def chinese(text):
    return any("\u4e00" <= c <= "\u9fff" for c in text)
WANT = {"end": "A", "agree": "B", "ask": "C"}


def post(port, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=900))


def messages(held_out, detour=False, extra="messages.json", scenarios=True):
    rows = []
    for name in (("scenarios.toml", "holdout.toml") if held_out else ("scenarios.toml",)) if scenarios else ():
        for s in tomllib.load(open(os.path.join(HERE, name), "rb"))["scenario"]:
            earlier = []
            for m in s["messages"]:
                if not m.get("text"):
                    continue
                rows.append((s["id"], m["expect"], list(earlier), m["text"].replace("{a}", "Maya").replace("{b}", "Kofi")))
                earlier.append(m["text"])
                # An agent's question after the opening draws the answer too
                # (--detour): the facts are then among the earlier messages.
                if m["expect"] == "ask" or (detour and len(earlier) == 1):
                    earlier.append(s["answer"])
    for m in json.load(open(os.path.join(HERE, extra) if not os.path.exists(extra) else extra)):
        rows.append(("other", m["expect"], m["earlier"], m["text"]))
    return rows


def top(port, system, user, n):
    r = post(port, {"model": "local", "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
                    "temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": n, "stream": False})
    return [(e["token"].strip(), math.exp(e["logprob"])) for e in r["choices"][0]["logprobs"]["content"][0]["top_logprobs"]]


def answer_probs(port, system, user, answers):
    """The first token's probability for each of `answers` (upper case), summed over its spellings."""
    ps = {}
    for tok, p in top(port, system, user, 10):
        if tok.upper() in answers:
            ps[tok.upper()] = ps.get(tok.upper(), 0) + p
    return ps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("design", nargs="?", help="a design file; without one, the shipped templates")
    ap.add_argument("--port", type=int, default=18555)
    ap.add_argument("--tuned", action="store_true", help="leave out holdout.toml: the messages a design may be tuned on")
    ap.add_argument("--detour", action="store_true", help="the scenario's answer after every opening, as when an agent asked")
    ap.add_argument("--two-stage", action="store_true", help="read the message alone; with its earlier messages only if C")
    ap.add_argument("--messages", default="messages.json", help="the file of other meetings' messages (messages.json)")
    ap.add_argument("--no-scenarios", action="store_true", help="only the messages file, not the scenarios")
    a = ap.parse_args()
    if a.design:
        d = json.load(open(os.path.join(HERE, a.design) if not os.path.exists(a.design) else a.design))
    else:
        d = {"system": template("read_message_system"), "user": template("read_message")}
        for key, name in (("system.zh", "read_message_system.zh"), ("user.zh", "read_message.zh")):
            if template(name):
                d[key] = template(name)
    rows, t0 = messages(not a.tuned, a.detour, a.messages, not a.no_scenarios), time.time()
    if "system" in d:  # one letter A-D
        confusion = {}
        for sid, exp, earlier, text in rows:
            def letter(shown):
                zh = "zh" if chinese(text) else ""
                system, user = d.get("system." + zh, d["system"]), d.get("user." + zh, d["user"])
                user = user.replace("{{earlier}}", " / ".join(shown[-3:]) or "(nothing yet)").replace("{{message}}", text)
                ps = answer_probs(a.port, system, user, ("A", "B", "C", "D"))
                return max(ps, key=ps.get) if ps else "?"
            # --two-stage: the message alone first; its earlier messages only
            # to check a job's facts were not given before.
            got = letter([] if a.two_stage else earlier)
            if a.two_stage and got == "C" and earlier:
                got = letter(earlier)
            want = WANT.get(exp, "D")
            confusion[(want, got)] = confusion.get((want, got), 0) + 1
            print(f"{sid[:12]:12} {exp:8} want {want} got {got}  {text[:70]}")
        for letter in "ABCD":
            hit = confusion.get((letter, letter), 0)
            n = sum(v for (w, _), v in confusion.items() if w == letter)
            wrong = sum(v for (w, g), v in confusion.items() if g == letter and w != letter)
            print(f"{letter}: {hit} of {n} found; {wrong} of {len(rows) - n} others read as {letter}")
    else:  # yes/no questions
        for sid, exp, earlier, text in rows:
            line = f"{sid[:12]:12} {exp:8}"
            for key, q in d.items():
                user = q["user"].replace("{{earlier}}", "\n".join(f"- {e}" for e in earlier[-3:]) or "(nothing yet)").replace("{{message}}", text)
                yes = no = 0.0
                for tok, p in top(a.port, q["system"], user, 8):
                    yes += p if tok.lower() in ("yes", "是") else 0
                    no += p if tok.lower() in ("no", "否") else 0
                line += f"  {key}={yes / (yes + no + 1e-9):.2f}{'*' if exp == q['expect'] else ' '}"
            print(line, text[:60])
    print(f"{(time.time() - t0) / len(rows):.1f} s a message")


if __name__ == "__main__":
    main()
