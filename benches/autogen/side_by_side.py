#!/usr/bin/env python3
"""CPU per agent message, bmad-party against AutoGen, on the same loopback
OpenAI server (the `fake_openai` example: 60 streamed tokens a reply, at
once). Both run the same party: 100 rounds of three personas (bmad-party's
own persona files), a facilitator line a round, the full history in every
call, every streamed piece written to stdout as a JSON line. bmad-party also
saves its session file after every message (AutoGen keeps no file). The
server is a process of its own, not counted.

Per run and program: (user + sys CPU of the whole process, start-up
included) / agent messages, and the peak RSS, from wait4(2); for AutoGen
also the CPU of its rounds alone (its start-up, mostly imports, apart).
Runs alternate, so the machine's drift spreads over both. The session file
goes under the temp folder: `TMPDIR=/dev/shm` puts it on tmpfs, leaving out
the disk's fdatasync (AutoGen writes no file).

    cargo build --release --locked --example fake_openai
    python3 benches/autogen/side_by_side.py --bin target/release/bmad-party \\
        --fake target/release/examples/fake_openai \\
        --autogen-python "$(benches/autogen/setup.sh)" --runs 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PERSONAS = [os.path.join(ROOT, "agents", f) for f in ("analyst.md", "architect.md", "developer.md")]


def waited(p):
    """The child's exit status and rusage (it must have closed its stdout)."""
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = status
    return status, usage


def run_bmad(bin_path, url, rounds):
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "bench.yaml")
        with open(cfg, "w") as f:
            f.write(
                "bmad:\n  party_mode:\n    auto_exit_enabled: true\n    round_mode: sequential\n"
                f"    max_rounds: {rounds}\n    agents_per_round: {{ min: 3, max: 3 }}\n"
                "    consensus: { enabled: false }\n    silence: { enabled: false }\n"
            )
        env = dict(os.environ, OPENAI_BASE_URL=url, OPENAI_API_KEY="bench", BMAD_PARTY_LOG="warn")
        members = os.path.join(d, "agents")
        os.mkdir(members)
        for path in PERSONAS:
            with open(path, encoding="utf-8") as f, open(os.path.join(members, os.path.basename(path)), "w") as g:
                g.write(f.read())
        p = subprocess.Popen(
            [bin_path, "--headless", "--events", "json", "--config", cfg, "--output", d, "--no-memory", "--agents", members],
            cwd=d, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )

        def feed():
            for i in range(rounds):
                p.stdin.write(f"Round {i}: what should we decide next about the plugin system?\n")
            p.stdin.close()

        threading.Thread(target=feed, daemon=True).start()
        messages = sum(1 for line in p.stdout if line.startswith('{"type":"agent_message"'))
        status, usage = waited(p)
        assert status == 0, f"bmad-party exited {status}"
        return messages, usage


def run_autogen(python, url, rounds):
    p = subprocess.Popen(
        [python, os.path.join(HERE, "autogen_party.py"), "--base-url", url, "--rounds", str(rounds), "--agents", *PERSONAS],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    messages, rounds_cpu = 0, None
    for line in p.stdout:
        if line.startswith('{"type": "agent_message"'):
            messages += 1
        elif line.startswith('{"type": "done"'):
            rounds_cpu = json.loads(line)["rounds_cpu_s"]
    err = p.stderr.read()
    status, usage = waited(p)
    assert status == 0, f"AutoGen exited {status}: {err[-2000:]}"
    return messages, usage, rounds_cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--fake", required=True)
    ap.add_argument("--autogen-python", required=True)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    a.bin, a.fake = os.path.abspath(a.bin), os.path.abspath(a.fake)
    server = subprocess.Popen([a.fake], stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    ours, theirs, theirs_rounds, rss_ours, rss_theirs = [], [], [], [], []
    try:
        for run in range(a.runs):
            n, u = run_bmad(a.bin, url, a.rounds)
            ms = (u.ru_utime + u.ru_stime) * 1000 / n
            ours.append(ms)
            rss_ours.append(u.ru_maxrss / 1024)
            print(f"run {run + 1} bmad-party: {n} messages, {ms:.2f} ms CPU each, peak RSS {u.ru_maxrss / 1024:.1f} MB", flush=True)
            n, u, rc = run_autogen(a.autogen_python, url, a.rounds)
            ms = (u.ru_utime + u.ru_stime) * 1000 / n
            theirs.append(ms)
            theirs_rounds.append(rc * 1000 / n)
            rss_theirs.append(u.ru_maxrss / 1024)
            print(
                f"run {run + 1} AutoGen:    {n} messages, {ms:.2f} ms CPU each ({rc * 1000 / n:.2f} in its rounds alone), "
                f"peak RSS {u.ru_maxrss / 1024:.1f} MB",
                flush=True,
            )
    finally:
        server.kill()
    o, t = statistics.median(ours), statistics.median(theirs)
    print(
        f"medians of {a.runs}: bmad-party {o:.2f} ms, AutoGen {t:.2f} ms ({statistics.median(theirs_rounds):.2f} in its rounds): "
        f"{t / o:.1f}x less CPU per agent message; peak RSS {statistics.median(rss_ours):.1f} MB against {statistics.median(rss_theirs):.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
