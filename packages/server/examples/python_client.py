#!/usr/bin/env python3
"""Drive a TurnGym env server from Python over OpenEnv's WebSocket protocol, with nothing but `websockets`.

    pip install websockets            # any version from 10 on
    turngym serve turngym/example-v1 --port 8000
    python python_client.py --url http://127.0.0.1:8000 --episodes 3

It plays `turngym/example-v1` (follow "see <key>" pointers to a code, then submit it) with a tiny scripted
policy, shows the info that rides along with every observation (`metadata`), the episode state, and TurnGym's
`fork` extension. The same server also works with OpenEnv's own client, unmodified:

    from openenv.core.generic_client import GenericEnvClient
    async with GenericEnvClient(base_url="http://127.0.0.1:8000") as env:
        result = await env.reset(seed=1)          # result.observation == {"text": "Find the code. ..."}
        result = await env.step({"text": "LOOKUP(amber-17)"})
"""
import argparse
import asyncio
import json
import re

import websockets


def ws_url(base_url: str, env_id: "str | None" = None) -> str:
    """OpenEnv's rule (http -> ws, https -> wss, + /ws), plus TurnGym's optional ?env=<id>."""
    url = base_url.rstrip("/")
    url = "wss://" + url[8:] if url.startswith("https://") else "ws://" + url[7:] if url.startswith("http://") else url
    return f"{url}/ws" + (f"?env={env_id}" if env_id else "")


def connect(url: str, token: "str | None"):
    headers = {"Authorization": f"Bearer {token}"} if token else None
    options = {"max_size": 100 * 1024 * 1024}
    if headers is None:
        return websockets.connect(url, **options)
    # websockets 14 renamed the header option.
    major = int(websockets.__version__.split(".")[0])
    return websockets.connect(url, **options, **({"additional_headers": headers} if major >= 14 else {"extra_headers": headers}))


class Session:
    """One env session: OpenEnv's request/reply protocol (replies come back in request order)."""

    def __init__(self, ws):
        self.ws = ws

    async def request(self, message: dict) -> dict:
        await self.ws.send(json.dumps(message))
        reply = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=60))
        if reply.get("type") == "error":
            data = reply.get("data", {})
            raise RuntimeError(f"Server error: {data.get('message')} (code: {data.get('code')})")
        return reply["data"]

    async def reset(self, **kwargs) -> dict:
        return await self.request({"type": "reset", "data": kwargs})

    async def step(self, action: dict) -> dict:
        return await self.request({"type": "step", "data": action})


def policy(observation: str, start: "str | None", state: dict) -> dict:
    """Follows the chain of keys; submits the first value that is not a pointer."""
    found = re.match(r"^LOOKUP \S+ = (.+)$", observation)
    if found:
        value = found.group(1).strip()
        pointer = re.match(r"^see (\S+)$", value)
        if not pointer:
            return {"tool": "SUBMIT", "arguments": {"answer": value}}  # a structured tool call
        state["next"] = pointer.group(1)
    elif start:
        state["next"] = start
    return {"text": f"LOOKUP({state['next']})"}  # the same action as raw text


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--env", default="turngym/example-v1")
    parser.add_argument("--token", default=None)
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()

    async with connect(ws_url(args.url, args.env), args.token) as ws:
        env = Session(ws)
        for seed in range(args.episodes):
            result = await env.reset(seed=seed, episode_id=f"py-{seed}")
            text = result["observation"]["text"]
            print(f"seed {seed}: {text}")
            if seed == 0:
                print("  system prompt:", result["metadata"]["instructions"].splitlines()[0])
            start = re.search(r"Start with key (\S+?)\.?$", text)
            state, total = {}, 0.0
            while not result["done"]:
                action = policy(text, start.group(1) if start else None, state)
                start = None
                result = await env.step(action)
                text = result["observation"]["text"]
                total += result["reward"]
                info = result.get("metadata", {})
                print(f"  {json.dumps(action)} -> {text!r} reward={result['reward']} fingerprint={info.get('fingerprint')}")
            print(f"  done: success={result['metadata'].get('success')} return={total}")
            print("  state:", await env.request({"type": "state"}))

        # TurnGym extension: fork = a new session at the same state, claimed with /ws?session=<id>.
        await env.reset(seed=7)
        fork = await env.request({"type": "fork"})
        async with connect(ws_url(args.url) + f"?session={fork['session_id']}", args.token) as twin_ws:
            twin = Session(twin_ws)
            print("fork state:", await twin.request({"type": "state"}))
            await twin_ws.send(json.dumps({"type": "close"}))
        await ws.send(json.dumps({"type": "close"}))


if __name__ == "__main__":
    asyncio.run(main())
