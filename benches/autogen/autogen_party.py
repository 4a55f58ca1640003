#!/usr/bin/env python3
"""The same party in AutoGen AgentChat, for the side-by-side bench
(benches/autogen/side_by_side.py): three AssistantAgents in a
RoundRobinGroupChat, each one's system message one of bmad-party's built-in
persona files, every reply streamed (`model_client_stream`) from the same
loopback OpenAI server, the full history in every call (AgentChat's
default, unbounded model context). Each round is one `run_stream` of three
turns on the team, which keeps its history between runs; every streamed
piece is written to stdout as a JSON line, as bmad-party's headless driver
writes its events. The last line says the CPU the rounds took, apart from
start-up.

    python autogen_party.py --base-url URL --rounds 100 --agents a.md b.md c.md
"""
import argparse
import asyncio
import json
import sys
import time

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import ModelClientStreamingChunkEvent, TextMessage
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_core.models import ModelInfo
from autogen_ext.models.openai import OpenAIChatCompletionClient


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--agents", nargs=3, required=True)
    a = ap.parse_args()
    client = OpenAIChatCompletionClient(
        model="bench",
        base_url=a.base_url,
        api_key="bench",
        model_info=ModelInfo(vision=False, function_calling=False, json_output=False, family="unknown", structured_output=False),
    )
    agents = []
    for i, path in enumerate(a.agents):
        with open(path, encoding="utf-8") as f:
            persona = f.read()
        agents.append(AssistantAgent(f"agent{i}", model_client=client, system_message=persona, model_client_stream=True))
    team = RoundRobinGroupChat(agents, max_turns=3)
    out = sys.stdout
    started = time.process_time()
    messages = 0
    for r in range(a.rounds):
        task = f"Round {r}: what should we decide next about the plugin system?"
        async for ev in team.run_stream(task=task):
            if isinstance(ev, ModelClientStreamingChunkEvent):
                out.write(json.dumps({"type": "agent_delta", "agent": ev.source, "text": ev.content}) + "\n")
            elif isinstance(ev, TextMessage) and ev.source != "user":
                messages += 1
                out.write(json.dumps({"type": "agent_message", "agent": ev.source, "text": ev.content}) + "\n")
        out.flush()
    out.write(json.dumps({"type": "done", "messages": messages, "rounds_cpu_s": time.process_time() - started}) + "\n")
    await client.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
