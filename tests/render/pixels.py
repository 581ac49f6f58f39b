#!/usr/bin/env python3
"""Counts what headless Chromium actually painted for GET /render.svg.

Each case is an XGID (plus optional query parameters), or a Plakoto board
with a pinned checker; the expected picture is worked out here from that
text alone (its own little parser, not the server's): per point, from the
viewer's side (the `perspective` parameter, else the side on roll), whose
checkers and how many are drawn (five at most; a taller stack also shows
its count, dark red on x's checkers and light red on o's); the checkers on
the bar, the borne-off slabs in the tray, where the cube sits (middle when
centred, bottom when the viewer owns it, top otherwise; none in the
Crawford game and in Plakoto; in the left half's middle while a double
waits, where a resignation waiting shows its flag), a pinned checker at the foot of its
pinner's stack, and the pips on each die (in the player on roll's
colours).

The script writes one HTML page with every case's SVG as an <img> in a
grid, has Chromium screenshot it once, decodes the PNG with the standard
library (zlib, PNG filters) and counts the connected blobs of each checker
colour in each region of the layout (the numbers of service/src/api/render/
svg.rs, repeated below).

With --png, the pictures are bgref's own GET /render.png (resvg's
rasterisation of the same SVG, fetched one by one; no browser) instead of
Chromium's screenshot, checked against the same expectations.

Usage: pixels.py --base-url URL (--chromium PATH | --png) --work DIR [--expect-wrong]
After the real check, the same pixels are checked against a deliberately
wrong expectation (one checker fewer on the first picture's 6 point), which
must be caught, else the run fails. --expect-wrong runs only that wrong
check (exit 1 when caught), to see a failure by hand.
Exit status: 0 all as expected, 1 a mismatch, 2 a setup failure.
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import urllib.parse
import urllib.request
import zlib

# The layout of svg.rs (viewBox 670 x 540).
W, H = 670, 540
FIELD_TOP, FIELD_BOTTOM, MID, HALF_GAP = 60, 476, 268, 24
POINT_W, LEFT, BAR, BAR_W, RIGHT, TRAY = 40, 60, 300, 48, 348, 606
X_FILL, O_FILL, CUBE_FILL = (240, 230, 200), (31, 31, 31), (255, 255, 255)
FILL = {"x": X_FILL, "o": O_FILL}
# A stack's count: dark red on x's checkers, light red on o's; each with
# the colour tolerance that keeps it apart from the board's other colours
# (the light red is within 60 of the light points' #c9a26b).
COUNT_FILL = {"x": ((160, 0, 0), 60), "o": ((255, 128, 128), 30)}
COLS = 2

CASES = [
    # The start, x on roll, cube centred, no dice.
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", ""),
    # o on roll with 6-5 and the cube (4) on its side; x one on the bar and
    # six on its 6 point; o one borne off.
    ("XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10", ""),
    # x on roll with 3-1; both on the bar (o two); two stacks of six; cube
    # 2 owned by o (the top); a 5-point match.
    ("XGID=bB----FF-----d----c-e----A:1:-1:1:31:2:1:0:5:10", ""),
    # A stack of fifteen; o on roll with 4-4.
    ("XGID=------O-------------a-cdg-:0:0:-1:44:0:0:0:0:10", ""),
    # Bearing off: x two off, o nine off; o on roll with 2-1; the cube 8
    # on x's side, given as query parameters.
    ("XGID=-BBCBBB---------------bbb-:0:0:-1:21:0:0:0:0:10", "cube_value=8&cube_owner=x"),
    # Plakoto, o on roll with 5-3: x's checker on x's 20 point pinned under
    # two of o's (drawn at the foot of o's stack); no cube in this game.
    # The second picture again, seen from x (o still on roll): o's cube and
    # dice, x's checker on the bar below the middle.
    ("XGID=-a----F-C---eE---c-e-----A:2:-1:-1:65:0:0:0:0:10", "perspective=x"),
    # The Crawford game of a 5-point match (x 4, o 2): no cube drawn.
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10", ""),
    # o redoubles its cube of 2: the cube waits in the left half's middle,
    # none left of the board.
    ("XGID=-a----F-C---eE---c-e-----A:1:-1:-1:00:0:0:0:0:10", "cube_offered_by=o&name_o=Bob"),
    # x offers to resign a gammon: a white flag in the left half's middle;
    # the cube (4) on o's side as ever.
    ("XGID=-b----E-C---eE---c-e----B-:2:-1:1:00:0:0:0:0:10",
     "resignation_by=x&resignation_level=gammon"),
    ("plakoto", "variant=plakoto&dice=53&board=" + json.dumps({
        "points": [-12, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, 0, 0, 0, 13],
        "turn": "o", "pins": [0] * 19 + [1] + [0] * 4})),
]


def expectation(xgid, extra):
    """What must be drawn, from the XGID (or the plakoto board) text and
    the extra parameters: per viewer point the checker blobs of each
    colour and whether a count label shows."""
    params = dict(urllib.parse.parse_qsl(extra))
    x = [0] * 26  # x's checkers on x's points (1..24), 25 the bar
    o = [0] * 26  # o's checkers on x's points (1..24); o's bar apart
    pins = [0] * 25  # x's numbering: 1 an x checker pinned under o's, -1 the reverse
    if xgid == "plakoto":
        board = json.loads(params["board"])
        for i, n in enumerate(board["points"]):
            x[i + 1], o[i + 1] = max(n, 0), max(-n, 0)
            pins[i + 1] = board["pins"][i]
        o_bar, x_bar, turn, owner = 0, 0, board["turn"], None
        dice = [int(d) for d in params.get("dice", "")]
    else:
        fields = xgid[len("XGID="):].split(":")
        for i, c in enumerate(fields[0]):
            if c.isupper():
                x[i] = ord(c) - 64
            elif c.islower():
                o[i] = ord(c) - 96
        o_bar, x_bar = o[0], x[25]
        turn = "x" if fields[3] == "1" else "o"
        owner = {"0": "centre", "1": "x", "-1": "o"}[fields[2]]
        owner = params.get("cube_owner", owner)
        if fields[8] != "0" and fields[7] == "1" or params.get("crawford") == "true":
            owner = None  # the Crawford game: no cube
        dice = [int(d) for d in fields[4]] if fields[4].isdigit() and fields[4] != "00" else []
    viewer = params.get("perspective", turn)
    other = "o" if viewer == "x" else "x"
    points = {}
    for p in range(1, 25):
        i = p if viewer == "x" else 25 - p  # the viewer's point p on x's numbering
        count = {"x": x[i], "o": o[i]}
        pinned = {1: "x", -1: "o"}.get(pins[i])
        pinner = {"x": "o", "o": "x"}.get(pinned)
        owner_here = pinner or ("x" if x[i] else ("o" if o[i] else None))
        if owner_here is None:
            continue
        n = count[owner_here]
        total = n + (1 if pinned else 0)
        drawn = {"x": 0, "o": 0}
        if pinned:
            drawn[pinned] = 1
        drawn[owner_here] += min(total, 5) - (1 if pinned else 0)
        points[p] = {"x": drawn["x"], "o": drawn["o"], "label": total > 5, "n": n,
                     "owner": owner_here}
    off = {"x": 15 - sum(x[1:26]) - sum(1 for v in pins if v == 1),
           "o": 15 - sum(o[1:25]) - o_bar - sum(1 for v in pins if v == -1)}
    bar = {"x": x_bar, "o": o_bar}
    opp = "o" if turn == "x" else "x"
    cube = None if owner is None else (
        "middle" if owner == "centre" else ("bottom" if owner == viewer else "top"))
    if "cube_offered_by" in params:
        cube = "offered"
    return {"turn": turn, "opp": opp, "viewer": viewer, "other": other, "points": points,
            "bar": bar, "off": off, "cube": cube, "dice": dice,
            "flag": "resignation_by" in params}


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError("unsupported PNG: depth %d colour type %d" % (depth, colour))
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for k in range(stride):
            a = line[k - bpp] if k >= bpp else 0
            b = prev[k]
            c = prev[k - bpp] if k >= bpp else 0
            if f == 1:
                line[k] = (line[k] + a) & 255
            elif f == 2:
                line[k] = (line[k] + b) & 255
            elif f == 3:
                line[k] = (line[k] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[k] = (line[k] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


class Shot:
    def __init__(self, png, origin):
        self.width, self.height, self.bpp, self.rows = png
        self.ox, self.oy = origin

    def rgb(self, x, y):
        row, k = self.rows[self.oy + y], (self.ox + x) * self.bpp
        return row[k], row[k + 1], row[k + 2]

    def blobs(self, colour, x0, y0, x1, y1, min_size, tol=24):
        """Connected (4-neighbour) blobs of `colour` in [x0, x1) x [y0, y1)."""
        near = lambda p: all(abs(p[i] - colour[i]) <= tol for i in range(3))
        mask = {(x, y) for y in range(y0, y1) for x in range(x0, x1) if near(self.rgb(x, y))}
        sizes = []
        while mask:
            stack, size = [mask.pop()], 0
            while stack:
                x, y = stack.pop()
                size += 1
                for q in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if q in mask:
                        mask.remove(q)
                        stack.append(q)
            sizes.append(size)
        return [s for s in sizes if s >= min_size]


def column(p):
    if p <= 6:
        return RIGHT + 6 * POINT_W - p * POINT_W, True
    if p <= 12:
        return LEFT + (12 - p) * POINT_W, True
    if p <= 18:
        return LEFT + (p - 13) * POINT_W, False
    return RIGHT + (p - 19) * POINT_W, False


def check(shot, want):
    """Every mismatch between the pixels and `want`, as text."""
    bad = []
    checker = 300  # a disc of radius 16 has about 800 pixels of fill
    for p in range(1, 25):
        x0, bottom = column(p)
        y0, y1 = (MID + HALF_GAP, FIELD_BOTTOM) if bottom else (FIELD_TOP, MID - HALF_GAP)
        here = want["points"].get(p, {"x": 0, "o": 0, "label": False})
        for who in ("x", "o"):
            seen = len(shot.blobs(FILL[who], x0, y0, x0 + POINT_W, y1, checker))
            if seen != here[who]:
                bad.append("point %d: %d %s checkers drawn, expected %d" % (p, seen, who, here[who]))
        # The count in its owner's colour (either colour on an empty point).
        colours = [COUNT_FILL[here["owner"]]] if "owner" in here else COUNT_FILL.values()
        label = any(shot.blobs(colour, x0, y0, x0 + POINT_W, y1, 8, tol=tol)
                    for colour, tol in colours)
        if label != here["label"]:
            bad.append("point %d: count label %s, expected %s" % (
                p, "shown" if label else "missing", "one" if here["label"] else "none"))
    for who, (y0, y1) in ((want["viewer"], (MID + HALF_GAP, FIELD_BOTTOM)),
                          (want["other"], (FIELD_TOP, MID - HALF_GAP))):
        seen = len(shot.blobs(FILL[who], BAR, y0, BAR + BAR_W, y1, checker))
        if seen != min(want["bar"][who], 5):
            bad.append("bar: %d %s checkers drawn, expected %d" % (seen, who, want["bar"][who]))
        slabs = len(shot.blobs(FILL[who], TRAY, y0 - 40 if y0 > MID else y0, TRAY + 40,
                               y1 if y0 > MID else y1 + 40, 100))
        if slabs != want["off"][who]:
            bad.append("tray: %d %s slabs, expected %d borne off" % (slabs, who, want["off"][who]))
    cube = shot.blobs(CUBE_FILL, 0, 0, 50, H, 200, tol=8)
    ys = [y for y in range(H) for x in range(0, 50) if shot.rgb(x, y) == CUBE_FILL]
    # In the left half's middle: a double waiting (the cube) or a
    # resignation waiting (the flag), each a white blob.
    field = shot.blobs(CUBE_FILL, LEFT, MID - HALF_GAP, BAR, MID + HALF_GAP, 200, tol=8)
    waiting = int(want["cube"] == "offered") + int(want["flag"])
    if len(field) != waiting:
        bad.append("left half's middle: %d white blobs, expected %d (a double or a resignation "
                   "waiting)" % (len(field), waiting))
    if want["cube"] in (None, "offered"):
        if cube:
            bad.append("cube: drawn left of the board, but this game has none there")
    elif len(cube) != 1 or not ys:
        bad.append("cube: %d white blobs left of the board, expected 1" % len(cube))
    else:
        y = sum(ys) / len(ys)
        where = "top" if y < MID - 60 else ("bottom" if y > MID + 60 else "middle")
        if where != want["cube"]:
            bad.append("cube: at the %s, expected the %s" % (where, want["cube"]))
    pip = FILL[want["opp"]]
    for i, value in enumerate(want["dice"]):
        x0 = RIGHT + 80 + 48 * i
        seen = len(shot.blobs(pip, x0 + 3, MID - 13, x0 + 29, MID + 13, 10))
        if seen != value:
            bad.append("die %d: %d pips drawn, expected %d" % (i + 1, seen, value))
    if not want["dice"] and shot.blobs(FILL[want["turn"]], RIGHT + 70, MID - 20, RIGHT + 180, MID + 20, 300):
        bad.append("dice drawn, but none were rolled")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--chromium")
    ap.add_argument("--png", action="store_true")
    ap.add_argument("--work", required=True)
    ap.add_argument("--expect-wrong", action="store_true")
    args = ap.parse_args()
    if args.png:
        shots = []
        for i, (xgid, extra) in enumerate(CASES):
            url = "%s/render.png?%s" % (args.base_url, query_of(xgid, extra))
            path = os.path.join(args.work, "case-%d.png" % i)
            with urllib.request.urlopen(url, timeout=60) as answer, open(path, "wb") as f:
                f.write(answer.read())
            png = read_png(path)
            if png[:2] != (W, H):
                print("render-pixels: /render.png is %dx%d" % png[:2], file=sys.stderr)
                return 2
            shots.append(Shot(png, (0, 0)))
        return report(shots, args.expect_wrong)
    if not args.chromium:
        print("render-pixels: give --chromium PATH or --png", file=sys.stderr)
        return 2
    png_path = os.path.join(args.work, "render.png")
    rows = (len(CASES) + COLS - 1) // COLS
    if not os.path.exists(png_path):
        imgs = []
        for i, (xgid, extra) in enumerate(CASES):
            query = query_of(xgid, extra)
            imgs.append('<img src="%s/render.svg?%s" style="position:absolute;left:%dpx;top:%dpx;'
                        'width:%dpx;height:%dpx">' % (args.base_url, query, (i % COLS) * W,
                                                     (i // COLS) * H, W, H))
        page = os.path.join(args.work, "render.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write('<!doctype html><html><body style="margin:0;background:#ffffff">%s</body></html>'
                    % "".join(imgs))
        profile = os.path.join(args.work, "profile")
        cmd = [args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1",
               "--user-data-dir=" + profile, "--screenshot=" + png_path,
               "--window-size=%d,%d" % (COLS * W, rows * H), "file://" + page]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if not os.path.exists(png_path):
            print(run.stderr[-2000:], file=sys.stderr)
            print("render-pixels: Chromium wrote no screenshot", file=sys.stderr)
            return 2
    png = read_png(png_path)
    if png[0] < COLS * W or png[1] < rows * H:
        print("render-pixels: screenshot is %dx%d" % png[:2], file=sys.stderr)
        return 2
    shots = [Shot(png, ((i % COLS) * W, (i // COLS) * H)) for i in range(len(CASES))]
    return report(shots, args.expect_wrong)


def query_of(xgid, extra):
    """The picture's query string."""
    first = [] if xgid == "plakoto" else [("xgid", xgid)]
    return urllib.parse.urlencode(first + urllib.parse.parse_qsl(extra))


def report(shots, expect_wrong):
    """Checks the pictures, then the deliberately wrong expectation."""
    failures = evaluate(shots, wrong=expect_wrong)
    if expect_wrong:
        return 1 if failures else 0
    # The same pixels against a deliberately wrong expectation: the check
    # must catch it, or it proves nothing.
    print("render-pixels: now a deliberately wrong expectation (one x checker fewer on "
          "the first picture's 6 point), which must be caught:", file=sys.stderr)
    if not evaluate(shots, wrong=True):
        print("render-pixels: the wrong expectation was NOT caught", file=sys.stderr)
        return 1
    print("render-pixels: caught", file=sys.stderr)
    return 1 if failures else 0


def evaluate(shots, wrong):
    """Checks every picture; returns the number that differ."""
    failures = 0
    for i, (xgid, extra) in enumerate(CASES):
        want = expectation(xgid, extra)
        if wrong and i == 0:
            want["points"][6]["x"] -= 1
        bad = check(shots[i], want)
        if wrong and not bad:
            continue
        counted = sum(v["x"] + v["o"] for v in want["points"].values())
        status = "ok" if not bad else "MISMATCH"
        print("render-pixels: %s %s: %d checkers on points, bar x %d o %d, off x %d o %d, cube %s, "
              "dice %s" % (status, xgid + (" " + extra if extra else ""), counted, want["bar"]["x"],
                          want["bar"]["o"], want["off"]["x"], want["off"]["o"], want["cube"],
                          want["dice"] or "none"), file=sys.stderr)
        for line in bad:
            print("    " + line, file=sys.stderr)
        failures += bool(bad)
    if not wrong:
        print("render-pixels: %d of %d pictures as expected" % (len(CASES) - failures, len(CASES)),
              file=sys.stderr)
    return failures


if __name__ == "__main__":
    sys.exit(main())
