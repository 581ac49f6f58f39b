#!/usr/bin/env python3
"""Writes the wrk Lua script of the HTTP load mix (scripts/ci-load.sh).

The mix is every operation of the served OpenAPI document with each of its
request examples (the examples the document promises the server accepts),
plus the GET endpoints, `/games/act` on a fresh `/games` token, and the
bearer tokens the protected operations need. Every request is sent once
first and must answer 2xx: the load then holds only valid requests, so any
non-2xx answer under load is a failure.

Usage: mix.py BASE_URL OUT.lua   (tokens from BGREF_REVEAL_TOKEN,
BGREF_DICE_ROLL_TOKEN and BGREF_GAME_TOKEN; Python standard library only)
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request


def send(base: str, method: str, path: str, body: str | None, headers: dict) -> tuple[int, str]:
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else body.encode())
    for k, v in headers.items():
        req.add_header(k, v)
    try:
        # Text for the JSON answers read here; a picture (GET /render.png)
        # only needs its status.
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def examples(doc: dict, op: dict) -> list[object]:
    content = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    found = []
    if "example" in content:
        found.append(content["example"])
    found += [ex["value"] for ex in content.get("examples", {}).values()]
    schema = content.get("schema", {})
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    if "example" in schema:
        found.append(schema["example"])
    found += schema.get("examples", [])
    return found


def lua_string(text: str) -> str:
    level = "=" * 4
    assert f"]{level}]" not in text
    return f"[{level}[{text}]{level}]"


def main() -> int:
    base, out = sys.argv[1].rstrip("/"), sys.argv[2]
    tokens = {
        "bearer": os.environ.get("BGREF_REVEAL_TOKEN"),
        "roll_token": os.environ.get("BGREF_DICE_ROLL_TOKEN"),
        "game_token": os.environ.get("BGREF_GAME_TOKEN"),
    }
    game_headers = {"content-type": "application/json"}
    if tokens["game_token"]:
        game_headers["authorization"] = f"Bearer {tokens['game_token']}"
    status, text = send(base, "GET", "/openapi.json", None, {})
    assert status == 200, f"/openapi.json: {status}"
    doc = json.loads(text)
    mix: list[tuple[str, str, str | None, dict]] = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            headers = {}
            # Alternatives: the first one whose tokens are all set, those
            # with a token first ({} is "no token needed").
            alternatives = sorted(op.get("security", []), key=len, reverse=True)
            usable = [r for r in alternatives if all(tokens.get(s) for s in r)]
            if alternatives and not usable:
                schemes = " or ".join(s for r in alternatives for s in r)
                sys.exit(f"{method.upper()} {path} needs the {schemes} token: set it")
            for scheme in usable[0] if usable else []:
                headers["authorization"] = f"Bearer {tokens[scheme]}"
            if method == "get":
                query = [f"{p['name']}={p.get('example', p.get('schema', {}).get('example'))}"
                         for p in op.get("parameters", [])
                         if "example" in p or "example" in p.get("schema", {})]
                full = path + ("?" + "&".join(query) if query else "")
                mix.append(("GET", full, None, headers))
                continue
            if path == "/games/act":
                continue  # needs a token of this instance: added below
            headers["content-type"] = "application/json"
            for body in examples(doc, op):
                mix.append((method.upper(), path, json.dumps(body), headers))
    # /games/act on a fresh token: the opening roll, by x.
    status, text = send(base, "POST", "/games", json.dumps(
        {"match_id": "load-match-0001", "client_seed": "load:test"}),
        game_headers)
    assert status == 200, f"POST /games: {status} {text}"
    game = json.loads(text)
    act = json.dumps({"state": game["state"], "seat": game["seats"]["x"], "action": "roll"})
    mix.append(("POST", "/games/act", act, game_headers))

    refused = []
    for method, path, body, headers in mix:
        status, text = send(base, method, path, body, headers)
        if not 200 <= status < 300:
            refused.append(f"{method} {path}: {status} {text[:300]}")
    if refused:
        print("requests of the mix the server refuses:", *refused, sep="\n  ", file=sys.stderr)
        return 1

    lines = ["-- Generated by scripts/load/mix.py: every request answered 2xx once.",
             "local mix = {"]
    for method, path, body, headers in mix:
        hdrs = ", ".join(f'["{k}"] = {lua_string(v)}' for k, v in headers.items())
        lines.append(f"  {{ {lua_string(method)}, {lua_string(path)}, {{ {hdrs} }}, "
                     f"{lua_string(body) if body is not None else 'nil'} }},")
    lines += ["}", LUA]
    with open(out, "w") as f:
        f.write("\n".join(lines))
    ops = sorted({p.split("?")[0] for _, p, _, _ in mix})
    print(f"mix: {len(mix)} requests over {len(ops)} endpoints, each answered 2xx once")
    return 0


LUA = r"""
local requests, i, threads = {}, 0, 0

function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  for k, r in ipairs(mix) do
    requests[k] = wrk.format(r[1], r[2], r[3], r[4])
  end
  -- Each thread starts at its own place in the mix.
  i = (id or 0) * 7 % #requests
end

function request()
  i = i % #requests + 1
  return requests[i]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "wrk: requests=%d non2xx=%d socket_errors=%d rps=%.0f p50_us=%d p99_us=%d\n",
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout,
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99)))
end
"""

if __name__ == "__main__":
    sys.exit(main())
