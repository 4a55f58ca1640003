#!/usr/bin/env python3
"""Tries self-check designs on a local model, fast: eight conversation states of the room
(a real prompt's shape: persona, the room's rules, the conversation, the turn's note, a
reply), each asked every design's question with the design's JSON schema enforced, at
temperature 0, and scored against what a facilitator expects (end / ask / stance).

    python3 benches/judgement/probe.py what-was-said own-opinion    # designs/NAME.txt + NAME.schema.json
    python3 benches/judgement/probe.py --logprobs                   # yes/no questions, P(yes)

A server must answer on --port (18555): benches/voice/local-model.sh starts one
(`LOCAL_MODEL_LOGITS_ALL=True` for --logprobs: llama-cpp-python gives none without). The states
are the ones the designs were tried on; judge a design on the judgement bench's holdout.
"""
import argparse, json, math, os, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = """You are one voice in a BMAD "party mode" session: a small room of expert personas discussing a topic with Sam, the facilitator. The room: Maya (Business Analyst), Kofi (Product Manager), Ingrid (Architect).

How you speak:
- Only as yourself, in your persona's voice: your role, style and principles shape what you say.
- Never write lines for anyone else, and never start a line with a name and a colon: the room already shows who is speaking.
- Answer the people who spoke before you, by name: agree, disagree or build on what they actually said above.
- Add something new. Do not repeat what was already said, by you or by others.
- Be brief: two to five sentences, the length of a spoken turn in a meeting.
- Talk as a colleague in that meeting, not as an assistant: no greeting, no sign-off, no praise for the question.
- Write in English."""
PERSONAS = {
    "Maya": "You are Maya, Business Analyst 📊.\n\nRole: Business analyst who turns fuzzy ideas into evidence, market context and sharp requirements\nCommunication style: Asks the question behind the question, then answers with numbers and a concrete example.",
    "Kofi": "You are Kofi, Product Manager 📋.\n\nRole: Product manager who decides what to build and why\nCommunication style: Direct, outcome-first, names trade-offs.",
    "Ingrid": "You are Ingrid, Architect 🏗️.\n\nRole: System architect who designs for reliability and simplicity\nCommunication style: Calm, precise, thinks in failure modes.",
}
STATES = [
    dict(id="close-invited", expect=dict(end=True, ask=False, stance="agree"), speaker="Ingrid",
         conv=[("Sam", "Should we move our monolith to microservices?"),
               ("Kofi", "Only where it pays: billing changes weekly and blocks every release, so split that first."),
               ("Maya", "What would we have to believe? That billing's release cadence is the bottleneck; the deploy logs say it is."),
               ("Sam", "Great: we move the billing module out first, behind a feature flag, and keep the rest in the monolith this quarter. Anything left to add, or are we done?")],
         reply="That plan works for me. The feature flag gives us a safe rollback, and keeping the rest in the monolith limits the blast radius."),
    dict(id="close-invited2", expect=dict(end=True, ask=False, stance="agree"), speaker="Maya",
         conv=[("Sam", "What should we name our internal goal-tracking tool?"), ("Kofi", "Compass: it says direction, and it is short."),
               ("Ingrid", "Compass is fine, and the domain is free."),
               ("Sam", "Compass it is, and we announce it on Monday. I have what I need. Shall we close?")],
         reply="Yes, Compass is a good name. Announcing it on Monday gives the teams the whole week to try it."),
    dict(id="missing-info", expect=dict(end=False, ask=True, stance="new"), speaker="Maya",
         conv=[("Sam", "Please plan our team offsite for us.")],
         reply="Let's start by listing the activities that build trust across teams, then pick a venue that fits them."),
    dict(id="missing-info2", expect=dict(end=False, ask=True, stance="new"), speaker="Kofi",
         conv=[("Sam", "We want to launch a new product next year. Write us the launch plan.")],
         reply="A launch plan starts with the outcome we want: who buys it and why now. Then we work back from the date."),
    dict(id="disagree", expect=dict(end=False, ask=False, stance="disagree"), speaker="Ingrid",
         conv=[("Sam", "Should we rewrite our Java backend in Rust?"),
               ("Kofi", "Yes. The Java service costs us two outages a month and the team wants Rust; a rewrite this year pays back.")],
         reply="Kofi, I don't buy that. The outages come from our deploy process, not from Java; a rewrite adds a year of risk and fixes neither."),
    dict(id="mid-complete", expect=dict(end=False, ask=False, stance="new"), speaker="Kofi",
         conv=[("Sam", "We are five engineers with a $20k budget and three months. How do we launch our mobile app?")],
         reply="Cut scope to one platform first. With five engineers and three months, iOS alone with the two core flows is what we can ship well."),
    dict(id="mid-build", expect=dict(end=False, ask=False, stance="new"), speaker="Ingrid",
         conv=[("Sam", "We are five engineers with a $20k budget and three months. How do we launch our mobile app?"),
               ("Kofi", "Cut scope to one platform first: iOS alone with the two core flows.")],
         reply="Building on Kofi's point: if we pick one platform, React Native still lets us add Android later without a rewrite."),
    dict(id="agree-stated", expect=dict(end=False, ask=False, stance="agree"), speaker="Kofi",
         conv=[("Sam", "What should we name our internal goal-tracking tool?"), ("Maya", "Compass: short and it says direction."),
               ("Sam", "I like Compass. Does everyone agree?"), ("Ingrid", "Yes, Compass works for me too.")],
         reply="Agreed, Compass it is. It is easy to say in every language we work in."),
]
YES_NO = {
    "end": "(Note from the session, not part of the conversation: does Sam's last message ask the room whether the discussion is finished and can be closed? Answer yes or no.)",
    "ask": "(Note from the session, not part of the conversation: to give a good answer, does the room still need a fact that only Sam knows and has not given — such as how many people, the budget, the date or the place? Answer yes or no.)",
    "agree": "(Note from the session, not part of the conversation: in {name}'s reply just now, does {name} agree with what was said before? Answer yes or no.)",
}


def post(port, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=900))


def messages(st, question):
    sp = st["speaker"]
    conv = "\n\n".join(f"{who}: {t}" for who, t in st["conv"])
    note = f"(Note from the session, not part of the conversation: round 2. Now write {sp}'s reply, in {sp}'s own voice, without a name label.)"
    sam = [t for w, t in st["conv"] if w == "Sam"][-1]
    q = question.replace("{{name}}", sp).replace("{name}", sp).replace("{{user_name}}", "Sam").replace("{{message}}", sam)
    return [{"role": "system", "content": PERSONAS[sp] + "\n\n" + RULES}, {"role": "user", "content": conv + "\n\n" + note},
            {"role": "assistant", "content": st["reply"]}, {"role": "user", "content": q}]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("designs", nargs="*")
    ap.add_argument("--port", type=int, default=18555)
    ap.add_argument("--logprobs", action="store_true")
    a = ap.parse_args()
    if a.logprobs:
        for st in STATES:
            row = []
            for key, q in YES_NO.items():
                r = post(a.port, {"model": "local", "messages": messages(st, q), "temperature": 0, "max_tokens": 1,
                                  "logprobs": True, "top_logprobs": 5, "stream": False})
                yes = no = 0.0
                for e in r["choices"][0]["logprobs"]["content"][0]["top_logprobs"]:
                    tok = e["token"].strip().lower()
                    yes += math.exp(e["logprob"]) if tok.startswith("yes") else 0
                    no += math.exp(e["logprob"]) if tok.startswith("no") else 0
                row.append(f"{key}={yes / (yes + no + 1e-9):.2f}")
            print(f"{st['id']:14} expect={st['expect']}  " + "  ".join(row))
        return
    score = {d: [0, 0, 0] for d in a.designs}
    for st in STATES:  # design after design on one state: the server's cached prompt serves them all
        for d in a.designs:
            note = open(os.path.join(HERE, "designs", d + ".txt")).read().strip()
            schema = json.load(open(os.path.join(HERE, "designs", d + ".schema.json")))
            t = time.time()
            r = post(a.port, {"model": "local", "messages": messages(st, note), "temperature": 0, "max_tokens": 120, "stream": False,
                              "response_format": {"type": "json_object", "schema": schema}})
            out = r["choices"][0]["message"]["content"]
            try:
                v = json.loads(out)
            except ValueError:
                v = {}
            end = bool(v.get("end")) or v.get("sam") == "close"
            got = (end == st["expect"]["end"], bool((v.get("ask") or "").strip()) == st["expect"]["ask"], v.get("stance") == st["expect"]["stance"])
            for i, g in enumerate(got):
                score[d][i] += g
            print(f"{st['id']:14} {d:18} {time.time() - t:5.1f}s {''.join('.' if g else 'X' for g in got)} {out.strip()[:150]}")
    for d, (e, q, s) in score.items():
        print(f"{d}: end {e}, ask {q}, stance {s} of {len(STATES)} each")


if __name__ == "__main__":
    main()
