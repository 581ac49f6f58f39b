#!/usr/bin/env python3
"""Independent verifier for bgref's dice, in Python with the standard library.

It does two things:

1. Reproduces every test vector in ``core/tests/data/dice-vectors.json``
   (seeds, commitments, rolls, opening rolls, the skipped byte >= 252) from
   the scheme alone, with nothing but ``hashlib`` and ``hmac``.
2. With ``--base-url`` (repeatable), fetches a match's commitment, rolls and
   opening rolls from running services, checks their Ed25519 signatures
   against ``GET /dice/keys`` (and each key id against the key), checks that
   every service gives the same answers (statelessness), refuses a roll and
   a reveal with a wrong token, and, given the operator's reveal token,
   reveals the seed, recomputes every roll and checks that ``POST
   /dice/verify`` agrees. Rolling on demand needs the operator's roll token
   (``--roll-token``, ``BGREF_DICE_ROLL_TOKEN``): without one the service
   answers 403 ``roll-disabled`` (players roll through ``POST /games``).

Usage::

    python3 tests/python/verify_dice.py                  # vectors only
    python3 tests/python/verify_dice.py --base-url http://127.0.0.1:8080 \\
        --roll-token="$BGREF_DICE_ROLL_TOKEN" \\
        --reveal-token="$BGREF_REVEAL_TOKEN" --require-signatures

Signature checks need ``cryptography`` or ``PyNaCl`` (optional imports); the
vector check needs the standard library only. The last line printed is
``N passed, M failed``; the exit status is 0 only when nothing failed.

The scheme (``api.md``, section "Dice"):

- ``server_seed = HMAC-SHA256(master_secret, "bgref-seed-v1:" + match_id)``
- ``commitment = hex(SHA-256(server_seed))``
- stream = blocks ``HMAC-SHA256(server_seed, client_seed:game:turn:counter)``,
  counter = 0, 1, 2, ...; a byte b < 252 gives the die b % 6 + 1, bytes
  >= 252 are skipped.
- a roll is the first two dice of its stream; the opening roll reads the
  stream of turn 0 as pairs (x, o), ties thrown again.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

DEFAULT_VECTORS = (
    Path(__file__).resolve().parents[2] / "core" / "tests" / "data" / "dice-vectors.json"
)

# --------------------------------------------------------------------------
# The scheme: standard library only.
# --------------------------------------------------------------------------

SEED_PREFIX = b"bgref-seed-v1:"
REJECT_FROM = 252  # 252 = 6 * 42: each face comes from exactly 42 byte values


def server_seed(master_secret: bytes, match_id: str) -> bytes:
    """HMAC-SHA256(key=master_secret, msg="bgref-seed-v1:" || match_id)."""
    return hmac.new(master_secret, SEED_PREFIX + match_id.encode("utf-8"), hashlib.sha256).digest()


def commitment(seed: bytes) -> str:
    """Lower-case hex of SHA-256(server_seed)."""
    return hashlib.sha256(seed).hexdigest()


def stream_block(seed: bytes, client_seed: str, game: int, turn: int, counter: int) -> bytes:
    """Block `counter` of a roll's byte stream."""
    msg = f"{client_seed}:{game}:{turn}:{counter}".encode("utf-8")
    return hmac.new(seed, msg, hashlib.sha256).digest()


def byte_stream(seed: bytes, client_seed: str, game: int, turn: int) -> Iterator[int]:
    """The endless byte stream of one roll."""
    counter = 0
    while True:
        yield from stream_block(seed, client_seed, game, turn, counter)
        counter += 1


def die_stream(seed: bytes, client_seed: str, game: int, turn: int) -> Iterator[int]:
    """The endless die stream of one roll: bytes >= 252 skipped."""
    for b in byte_stream(seed, client_seed, game, turn):
        if b < REJECT_FROM:
            yield b % 6 + 1


def roll(seed: bytes, client_seed: str, game: int, turn: int) -> tuple[int, int]:
    """The first two dice of the stream of (game, turn)."""
    dice = die_stream(seed, client_seed, game, turn)
    return next(dice), next(dice)


def opening_roll(seed: bytes, client_seed: str, game: int) -> dict[str, Any]:
    """Turn 0's stream read as pairs (x, o); ties thrown again and counted."""
    dice = die_stream(seed, client_seed, game, 0)
    ties = 0
    while True:
        x, o = next(dice), next(dice)
        if x != o:
            return {
                "x_die": x,
                "o_die": o,
                "starts": "x" if x > o else "o",
                "ties": ties,
                "dice": [x, o],
            }
        ties += 1


def roll_signing_bytes(
    match_id: str, client_seed: str, game: int, turn: int, d1: int, d2: int, commitment_hex: str
) -> bytes:
    """The bytes a roll's Ed25519 signature covers (mirror of the Rust
    `bgref_core::verify::roll_signing_bytes`)."""
    fields = ["bgref-roll-v1", match_id, client_seed, str(game), str(turn), str(d1), str(d2),
              commitment_hex.lower()]
    return "\n".join(fields).encode("utf-8")


# --------------------------------------------------------------------------
# Part 1: reproduce the published vectors.
# --------------------------------------------------------------------------


class Tally:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}" + (f": {detail}" if detail else ""))
        return ok

    def skip(self, what: str) -> None:
        self.skipped += 1
        print(f"SKIP {what}")

    def summary(self) -> str:
        line = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            line += f", {self.skipped} skipped"
        return line


def check_vectors(path: Path, t: Tally) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    secret = bytes.fromhex(data["master_secret_hex"])
    for m in data["matches"]:
        mid, cs = m["match_id"], m["client_seed"]
        seed = server_seed(secret, mid)
        t.check(seed.hex() == m["server_seed_hex"], f"seed of {mid!r}",
                f"{seed.hex()} != {m['server_seed_hex']}")
        t.check(commitment(seed) == m["commitment"], f"commitment of {mid!r}")
        for r in m["rolls"]:
            got = list(roll(seed, cs, r["game"], r["turn"]))
            t.check(got == r["dice"], f"{mid!r} game {r['game']} turn {r['turn']}",
                    f"{got} != {r['dice']}")
        for o in m["opening"]:
            got = opening_roll(seed, cs, o["game"])
            want = {k: o[k] for k in ("x_die", "o_die", "starts", "ties")}
            t.check({k: got[k] for k in want} == want, f"{mid!r} opening of game {o['game']}",
                    f"{got} != {want}")
    ex = data["rejection_example"]
    seed = server_seed(secret, ex["match_id"])
    block = stream_block(seed, ex["client_seed"], ex["game"], ex["turn"], 0)
    t.check(block.hex() == ex["first_block_hex"], "rejection example: first block")
    accepted = [i for i, b in enumerate(block) if b < REJECT_FROM][:2]
    t.check(any(b >= REJECT_FROM for b in block[: accepted[1]]),
            "rejection example: a byte >= 252 comes before the second die")
    got = list(roll(seed, ex["client_seed"], ex["game"], ex["turn"]))
    t.check(got == ex["dice"], "rejection example: dice", f"{got} != {ex['dice']}")


# --------------------------------------------------------------------------
# Part 2: verify a running service.
#
# Everything that depends on the service's JSON shapes is in this section
# (see docs/dice.md and openapi/openapi.json for the shapes).
# --------------------------------------------------------------------------


def _load_ed25519() -> Callable[[bytes, bytes, bytes], bool] | None:
    """An Ed25519 verify(public_key, message, signature) -> bool, from
    `cryptography` or PyNaCl, or None when neither is installed."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        def verify(pk: bytes, msg: bytes, sig: bytes) -> bool:
            try:
                Ed25519PublicKey.from_public_bytes(pk).verify(sig, msg)
                return True
            except (InvalidSignature, ValueError):
                return False

        return verify
    except ImportError:
        pass
    try:
        import nacl.exceptions
        import nacl.signing

        def verify(pk: bytes, msg: bytes, sig: bytes) -> bool:
            try:
                nacl.signing.VerifyKey(pk).verify(msg, sig)
                return True
            except (nacl.exceptions.BadSignatureError, ValueError):
                return False

        return verify
    except ImportError:
        return None


class HttpError(RuntimeError):
    """A non-2xx answer, with its status and problem document."""

    def __init__(self, method: str, path: str, status: int, body: str) -> None:
        super().__init__(f"{method} {path}: HTTP {status}: {body}")
        self.status = status
        try:
            self.problem = json.loads(body)
        except ValueError:
            self.problem = {}


def key_id(public_key: bytes) -> str:
    """A key id: the first 16 hex digits of SHA-256(public key)."""
    return hashlib.sha256(public_key).hexdigest()[:16]


class Service:
    """A bgref service at one base URL."""

    def __init__(self, base_url: str, timeout: float = 10.0,
                 roll_token: str | None = None) -> None:
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.roll_auth = None if roll_token is None else f"Bearer {roll_token}"

    def _call(self, method: str, path: str, body: Any = None, auth: str | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if auth is not None:
            req.add_header("Authorization", auth)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as e:
            raise HttpError(method, path, e.code, e.read().decode("utf-8", "replace")) from None

    # GET /dice/commitment?match_id=.. -> {"match_id", "commitment"}
    def commitment(self, match_id: str) -> str:
        q = urllib.parse.urlencode({"match_id": match_id})
        return self._call("GET", f"/dice/commitment?{q}")["commitment"]

    # GET /dice/keys -> {"keys": [{"key_id", "algorithm": "ed25519",
    #                              "public_key": hex, "current": bool}]}
    def keys(self) -> list[dict[str, Any]]:
        return self._call("GET", "/dice/keys")["keys"]

    # POST /dice/roll {match_id, client_seed, game, turn} with Authorization:
    # Bearer <roll token> ->
    # {"match_id", "client_seed", "game", "turn", "dice": [a, b], "commitment",
    #  "key_id", "signature"}
    def roll(self, match_id: str, client_seed: str, game: int, turn: int,
             auth: str | None = "roll token") -> dict[str, Any]:
        body = {"match_id": match_id, "client_seed": client_seed, "game": game, "turn": turn}
        auth = self.roll_auth if auth == "roll token" else auth
        return self._call("POST", "/dice/roll", body, auth=auth)

    # POST /dice/opening {match_id, client_seed, game} with the roll token ->
    # {"match_id", "client_seed", "game", "turn": 0, "x_die", "o_die", "starts",
    #  "ties", "dice": [x_die, o_die], "commitment", "key_id", "signature"}
    def opening(self, match_id: str, client_seed: str, game: int) -> dict[str, Any]:
        body = {"match_id": match_id, "client_seed": client_seed, "game": game}
        return self._call("POST", "/dice/opening", body, auth=self.roll_auth)

    # POST /dice/reveal {match_id} with Authorization: Bearer <token> ->
    # {"match_id", "server_seed": hex, "commitment"}
    def reveal(self, match_id: str, auth: str | None) -> dict[str, Any]:
        return self._call("POST", "/dice/reveal", {"match_id": match_id}, auth=auth)

    # POST /dice/verify {match_id, server_seed, commitment,
    #                    rolls: [{client_seed, game, turn, dice}]} ->
    # {"match_id", "seed_commitment", "commitment_matches",
    #  "rolls": [{"game", "turn", "dice", "expected", "matches"}],
    #  "mismatches": [index], "valid"}
    def verify(self, match_id: str, seed_hex: str, commitment_hex: str,
               rolls: list[dict[str, Any]]) -> dict[str, Any]:
        body = {"match_id": match_id, "server_seed": seed_hex, "commitment": commitment_hex,
                "rolls": rolls}
        return self._call("POST", "/dice/verify", body)


def opening_signing_bytes(match_id: str, client_seed: str, game: int, resp: dict[str, Any]) -> bytes:
    """An opening roll is signed as turn 0 with its dice [x_die, o_die]."""
    return roll_signing_bytes(match_id, client_seed, game, 0, resp["x_die"], resp["o_die"],
                              resp["commitment"])


def check_service(args: argparse.Namespace, t: Tally) -> None:
    services = [Service(u, args.timeout, args.roll_token) for u in args.base_url]
    mid, cs = args.match_id, args.client_seed

    # Rolling on demand is for the holder of the roll token only.
    for s in services:
        try:
            s.roll(mid, cs, 1, 1, auth="Bearer not-the-roll-token")
            t.check(False, f"{s.base}: a roll with a wrong token is refused", "it succeeded")
        except HttpError as e:
            t.check(e.status in (401, 403)
                    and e.problem.get("type") in ("unauthorized", "roll-disabled"),
                    f"{s.base}: a roll with a wrong token is refused", str(e))
        except OSError as e:
            t.check(False, f"{s.base}: a roll with a wrong token", str(e))
    if not args.roll_token:
        t.skip("rolls: no --roll-token (or BGREF_DICE_ROLL_TOKEN) given")
        return
    ed25519 = _load_ed25519()
    if ed25519 is None:
        msg = "Ed25519 signatures: neither `cryptography` nor PyNaCl is importable"
        if args.require_signatures:
            t.check(False, msg)
        else:
            t.skip(msg)

    def call(what: str, f: Callable[[], Any]) -> Any:
        try:
            return f()
        except (RuntimeError, OSError, KeyError, ValueError, TypeError) as e:
            t.check(False, what, f"{type(e).__name__}: {e}")
            return None

    # Every service must give the same commitment, keys, rolls and openings.
    commitments = [call(f"{s.base} commitment", lambda s=s: s.commitment(mid)) for s in services]
    if None in commitments:
        return
    published = commitments[0]
    t.check(len(published) == 64 and published == published.lower()
            and all(c in "0123456789abcdef" for c in published),
            "commitment is 64 lower-case hex digits", published)
    t.check(all(c == published for c in commitments), "same commitment on every service",
            str(commitments))
    keys: dict[str, bytes] = {}
    first_listing: list[dict[str, Any]] | None = None
    for s in services:
        listing = call(f"{s.base} keys", s.keys)
        if listing is None:
            continue
        if first_listing is None:
            first_listing = listing
            for k in listing:
                pk = bytes.fromhex(k["public_key"])
                t.check(k.get("algorithm") == "ed25519" and len(pk) == 32,
                        f"key {k.get('key_id')!r}: a 32-byte ed25519 key", str(k))
                t.check(k["key_id"] == key_id(pk),
                        f"key {k['key_id']!r}: id is the first 16 hex digits of SHA-256(key)",
                        key_id(pk))
                keys[k["key_id"]] = pk
            t.check(sum(1 for k in listing if k.get("current")) == 1,
                    "exactly one current key", str(listing))
        else:
            t.check(listing == first_listing, f"{s.base}: same /dice/keys on every service")

    def check_signature(what: str, resp: dict[str, Any], message: bytes) -> None:
        key, sig = resp.get("key_id"), resp.get("signature")
        if not t.check(key is not None and sig is not None, f"{what}: signed",
                       "no key_id/signature"):
            return
        if not t.check(key in keys, f"{what}: key id {key!r} published"):
            return
        if ed25519 is None:
            return
        try:
            sig_bytes = bytes.fromhex(sig)
        except ValueError:
            t.check(False, f"{what}: signature is hex", sig)
            return
        t.check(ed25519(keys[key], message, sig_bytes), f"{what}: Ed25519 signature verifies")
        # A signature over anything else must not verify.
        t.check(not ed25519(keys[key], message + b"x", sig_bytes),
                f"{what}: signature does not verify other bytes")

    rolls: dict[tuple[int, int], list[int]] = {}
    openings: dict[int, dict[str, Any]] = {}
    for game in range(1, args.games + 1):
        first: dict[str, Any] | None = None
        for s in services:
            what = f"{s.base} opening of game {game}"
            o = call(what, lambda s=s: s.opening(mid, cs, game))
            if o is None:
                continue
            echoed = (o.get("match_id"), o.get("client_seed"), o.get("game"), o.get("turn"))
            t.check(echoed == (mid, cs, game, 0), f"{what}: echoes its request, turn 0",
                    str(echoed))
            t.check(o.get("commitment") == published, f"{what}: commitment")
            t.check(o.get("x_die") != o.get("o_die")
                    and o.get("starts") == ("x" if o["x_die"] > o["o_die"] else "o")
                    and o.get("dice") == [o["x_die"], o["o_die"]],
                    f"{what}: higher die starts with both dice", str(o))
            check_signature(what, o, opening_signing_bytes(mid, cs, game, o))
            if first is None:
                first = o
                openings[game] = o
            else:
                t.check(o == first, f"{what}: same as {services[0].base}", f"{o} != {first}")
        for turn in range(1, args.turns + 1):
            first = None
            for s in services:
                what = f"{s.base} game {game} turn {turn}"
                r = call(what, lambda s=s: s.roll(mid, cs, game, turn))
                if r is None:
                    continue
                echoed = (r.get("match_id"), r.get("client_seed"), r.get("game"), r.get("turn"))
                t.check(echoed == (mid, cs, game, turn), f"{what}: echoes its request", str(echoed))
                t.check(r.get("commitment") == published, f"{what}: commitment")
                d = r.get("dice")
                if not t.check(isinstance(d, list) and len(d) == 2
                               and all(isinstance(x, int) and 1 <= x <= 6 for x in d),
                               f"{what}: two dice 1..6", str(d)):
                    continue
                check_signature(what, r, roll_signing_bytes(mid, cs, game, turn, d[0], d[1],
                                                            published))
                if first is None:
                    first = r
                    rolls[(game, turn)] = d
                else:
                    t.check(r == first, f"{what}: same as {services[0].base}", f"{r} != {first}")

    # The reveal is refused without the operator's token.
    for s in services:
        try:
            s.reveal(mid, "Bearer not-the-token")
            t.check(False, f"{s.base}: reveal with a wrong token is refused", "it succeeded")
        except HttpError as e:
            t.check(e.status in (401, 403)
                    and e.problem.get("type") in ("unauthorized", "reveal-disabled"),
                    f"{s.base}: reveal with a wrong token is refused", str(e))
        except OSError as e:
            t.check(False, f"{s.base}: reveal with a wrong token", str(e))

    if not args.reveal_token:
        t.skip("reveal: no --reveal-token (or BGREF_REVEAL_TOKEN) given")
        return
    revealed = call(f"{services[0].base} reveal",
                    lambda: services[0].reveal(mid, f"Bearer {args.reveal_token}"))
    if revealed is None:
        return
    seed = bytes.fromhex(revealed["server_seed"])
    t.check(revealed.get("commitment") == published, "reveal answers the published commitment")
    t.check(commitment(seed) == published, "revealed seed opens the published commitment")
    for s in services[1:]:
        other = call(f"{s.base} reveal", lambda s=s: s.reveal(mid, f"Bearer {args.reveal_token}"))
        if other is not None:
            t.check(other == revealed, f"{s.base}: same seed revealed")
    if args.master_secret_hex:
        t.check(seed == server_seed(bytes.fromhex(args.master_secret_hex), mid),
                "revealed seed derives from the given master secret")
    for (game, turn), d in rolls.items():
        want = list(roll(seed, cs, game, turn))
        t.check(d == want, f"recomputed game {game} turn {turn}", f"served {d}, seed gives {want}")
    for game, o in openings.items():
        want = opening_roll(seed, cs, game)
        got = {k: o.get(k) for k in want}
        t.check(got == want, f"recomputed opening of game {game}", f"served {got}, seed gives {want}")

    # POST /dice/verify agrees: every served roll is valid, a tampered one is caught.
    claims = [{"client_seed": cs, "game": g, "turn": 0, "dice": o["dice"]}
              for g, o in openings.items()]
    claims += [{"client_seed": cs, "game": g, "turn": tu, "dice": d}
               for (g, tu), d in rolls.items()]
    if not claims:
        return
    for s in services:
        what = f"{s.base} /dice/verify"
        v = call(what, lambda s=s: s.verify(mid, seed.hex(), published, claims))
        if v is None:
            continue
        t.check(v.get("valid") is True and v.get("commitment_matches") is True
                and v.get("mismatches") == [] and len(v.get("rolls", [])) == len(claims)
                and all(r["matches"] and r["expected"] == c["dice"]
                        for r, c in zip(v["rolls"], claims)),
                f"{what}: the served rolls verify", json.dumps(v)[:300])
    bad = [dict(c) for c in claims]
    i = len(bad) - 1
    a, b = bad[i]["dice"]
    bad[i]["dice"] = [b, a] if a != b else [a, a % 6 + 1]
    wrong_commitment = commitment(hashlib.sha256(seed).digest())
    v = call("/dice/verify (tampered)",
             lambda: services[0].verify(mid, seed.hex(), wrong_commitment, bad))
    if v is not None:
        t.check(v.get("valid") is False and v.get("commitment_matches") is False
                and v.get("mismatches") == [i],
                "/dice/verify catches a tampered roll and a wrong commitment",
                json.dumps(v)[:300])


# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS,
                   help="test vector file (default: core/tests/data/dice-vectors.json)")
    p.add_argument("--base-url", action="append", default=[],
                   help="a running service, e.g. http://127.0.0.1:8080; repeat to check that "
                        "several instances answer alike")
    p.add_argument("--match-id", default="python-verifier-match")
    p.add_argument("--client-seed", default="python:verifier")
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--turns", type=int, default=10)
    p.add_argument("--roll-token", default=os.environ.get("BGREF_DICE_ROLL_TOKEN"),
                   help="operator bearer token for POST /dice/roll and /dice/opening "
                        "(default: $BGREF_DICE_ROLL_TOKEN)")
    p.add_argument("--reveal-token", default=os.environ.get("BGREF_REVEAL_TOKEN"),
                   help="operator bearer token for POST /dice/reveal (default: $BGREF_REVEAL_TOKEN)")
    p.add_argument("--master-secret-hex", default=None,
                   help="the service's master secret, when known (tests), to check the seed too")
    p.add_argument("--require-signatures", action="store_true",
                   help="fail when no Ed25519 library is importable instead of skipping")
    p.add_argument("--timeout", type=float, default=10.0)
    args = p.parse_args(argv)

    t = Tally()
    check_vectors(args.vectors, t)
    print(f"vectors: {t.summary()}")
    if args.base_url:
        check_service(args, t)
    print(t.summary())
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
