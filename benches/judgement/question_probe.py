#!/usr/bin/env python3
"""Tries designs of the host's weighing of an agent's question to the facilitator (does it
ask for what only the facilitator knows, or is it for the room?) on a local model: every
question of questions.json (questions the bench's parties asked, and questions written for
topics the bench does not use), read at temperature 0 and scored against its label (F asks
the facilitator for a fact, a constraint or a decision of theirs; R asks for an opinion on
the topic, calls on another agent, proposes in question form, or asks the facilitator's
own question back).

    python3 benches/judgement/question_probe.py designs/question-yes-no.json

No design is shipped: the program decides by words (src/engine/cleanup/addressee.rs), which
the unit test `the_benchs_labelled_questions_keep_every_question_for_facts` scores on the
same file.

A server must answer on --port (18555) with `logprobs` (llama-cpp-python's does). The
figures that matter: R kept as a question (a wait for nothing), F lost (a question the
facilitator never sees as one).
"""
import argparse, json, os, time

from read_probe import HERE, answer_probs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("design", help="a design file (designs/question-yes-no.json)")
    ap.add_argument("--port", type=int, default=18555)
    ap.add_argument("--from", dest="src", help="only rows from 'bench' or 'written'")
    a = ap.parse_args()
    d = json.load(open(a.design if os.path.exists(a.design) else os.path.join(HERE, a.design)))
    letters = {k.upper(): v for k, v in d["answers"].items()}
    rows = [r for r in json.load(open(os.path.join(HERE, "questions.json"))) if not a.src or r["from"] == a.src]
    confusion, t0 = {}, time.time()
    for r in rows:
        user = (d["user"].replace("{{message}}", r["message"]).replace("{{name}}", r["name"])
                .replace("{{question}}", r["question"].strip()))
        ps = answer_probs(a.port, d["system"], user, letters)
        got = letters[max(ps, key=ps.get)] if ps else "?"
        confusion[(r["asks"], got)] = confusion.get((r["asks"], got), 0) + 1
        mark = "  " if got == r["asks"] else "XX"
        print(f"{mark} want {r['asks']} got {got} {' '.join(f'{k}={v:.2f}' for k, v in sorted(ps.items()))}  {r['question'][:90]!r}")
    n = len(rows)
    right = sum(v for (w, g), v in confusion.items() if w == g)
    f = sum(1 for r in rows if r["asks"] == "F")
    print(f"\n{right}/{n} right; F kept {confusion.get(('F', 'F'), 0)}/{f}; R kept as a question "
          f"{confusion.get(('R', 'F'), 0)}/{n - f}; {(time.time() - t0) / n:.1f} s per question")


if __name__ == "__main__":
    main()
