#!/usr/bin/env python3
"""Tries designs of the host's hearing of a reply (does it say yes to the facilitator's
yes/no question?) on a local model, fast: every reply of stances.json (replies the bench's
parties gave, and replies written for topics the bench does not use), each read at
temperature 0 and scored against its label (Y says yes, N objects or wants something
else, O neither).

    python3 benches/judgement/stance_probe.py                          # the shipped templates
    python3 benches/judgement/stance_probe.py designs/stance-abc.json  # another design

A server must answer on --port (18555) with `logprobs` (llama-cpp-python's does).
The figure that matters most: N or O heard as yes (a false consensus).
"""
import argparse, json, os, time

from read_probe import HERE, answer_probs, template

LETTER = {"A": "Y", "B": "N", "C": "O"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("design", nargs="?", help="a design file; without one, the shipped templates")
    ap.add_argument("--port", type=int, default=18555)
    ap.add_argument("--from", dest="src", help="only rows from 'bench' or 'written'")
    a = ap.parse_args()
    if a.design:
        d = json.load(open(a.design if os.path.exists(a.design) else os.path.join(HERE, a.design)))
    else:
        d = {"system": template("hear_answer_system"), "user": template("hear_answer"), "answers": {"yes": "Y", "no": "N"}}
    # The answer's first token -> Y / N / O; a design may answer in other words.
    letters = {k.upper(): v for k, v in d.get("answers", LETTER).items()}
    # A yes/no design: "no" means "not yes", right for a reply that says neither.
    two = "O" not in letters.values()
    rows = [r for r in json.load(open(os.path.join(HERE, "stances.json"))) if not a.src or r["from"] == a.src]
    confusion, t0 = {}, time.time()
    for r in rows:
        user = d["user"].replace("{{question}}", r["question"]).replace("{{name}}", r["name"]).replace("{{reply}}", r["reply"].strip())
        ps = answer_probs(a.port, d["system"], user, letters)
        got = letters[max(ps, key=ps.get)] if ps else "?"
        confusion[(r["says"], got)] = confusion.get((r["says"], got), 0) + 1
        mark = "  " if got == r["says"] or (two and got == "N" and r["says"] == "O") else "XX"
        print(f"{mark} want {r['says']} got {got} {' '.join(f'{k}={v:.2f}' for k, v in sorted(ps.items()))}  {r['reply'][:90]!r}")
    n = len(rows)
    right = sum(v for (w, g), v in confusion.items() if w == g or (two and g == "N" and w == "O"))
    false_yes = sum(v for (w, g), v in confusion.items() if w != "Y" and g == "Y")
    not_y = sum(1 for r in rows if r["says"] != "Y")
    missed = sum(v for (w, g), v in confusion.items() if w == "Y" and g != "Y")
    y = n - not_y
    print(f"\n{right}/{n} right; false yes {false_yes}/{not_y}; yes missed {missed}/{y}; "
          f"yes heard as no {confusion.get(('Y', 'N'), 0)}; {(time.time() - t0) / n:.1f} s per reply")
    for w in "YNO":
        print(" ", w, {g: confusion.get((w, g), 0) for g in "YNO?"})


if __name__ == "__main__":
    main()
