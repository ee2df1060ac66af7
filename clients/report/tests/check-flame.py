#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# check-flame.py: checks of sysprof-report's SVG flame graph, for
# test-sysprof-report-flamegraph.sh.  Exits with a message on the first
# failure.
#   static SVG [NAMES]      well-formed XML, standalone, one inline script in
#                           CDATA; every frame's box where its columns say,
#                           inside its caller's, its title and label its
#                           name; with NAMES (make-flame-capture's), every
#                           function and the process shown by name
#   regex NAME              '^NAME$' as a regular expression, percent-encoded
#   searches NAMES          per function of NAMES: its regex (as above) and
#                           the samples with it on their stack
#   pick SVG                the id of a frame to zoom to: the widest of depth
#                           2 or more that has callees and does not start at
#                           the left
#   search SVG DOM REGEX SAMPLES
#                           DOM (Chromium's --dump-dom of SVG#search=REGEX,
#                           percent-encoded) says the script ran, highlights
#                           exactly the frames whose name matches and shows
#                           "Matched: SAMPLES UNIT, P%" with P SAMPLES' share
#   zoom SVG DOM ID         DOM (of SVG#zoom=ID) says the script ran and drew
#                           frame ID full width, its callees in proportion
#                           above it, its callers full width and greyed below,
#                           every other frame hidden; an ID of no frame or of
#                           the root: the picture of SVG unchanged
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
# Pixels: the tolerance of coordinates written with 2 decimals.
EPS = 0.011


def fail(message):
    sys.exit(message)


def parse(path):
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as error:
        fail(f"{path}: not well-formed XML: {error}")


class Frame:
    def __init__(self, g):
        self.g = g
        self.id = g.get("id")
        self.name = g.get("data-name")
        self.start = int(g.get("data-start"))
        self.total = int(g.get("data-total"))
        self.depth = int(g.get("data-depth"))
        self.title = g.find(SVG + "title")
        self.rect = g.find(SVG + "rect")
        self.text = g.find(SVG + "text")
        if None in (self.id, self.name, self.title, self.rect):
            fail(f"frame {self.id}: no id, data-name, title or rect")
        self.x = float(self.rect.get("x"))
        self.y = float(self.rect.get("y"))
        self.width = float(self.rect.get("width"))
        self.classes = set((g.get("class") or "").split())

    def label(self):
        return self.text.text or "" if self.text is not None else ""


def frames_of(root):
    return [Frame(g) for g in root.iter(SVG + "g") if "frame" in (g.get("class") or "").split()]


def check_label(frame, width):
    label = frame.label()
    if label == "":
        return
    if label != frame.name and not (label.endswith("..") and frame.name.startswith(label[:-2])):
        fail(f"{frame.id}: label {label!r} is not its name {frame.name!r}, whole or cut")
    if len(label) * 7 > width - 6 + EPS:
        fail(f"{frame.id}: label {label!r} does not fit {width} pixels")


def static(path, names_path=None):
    raw = open(path, "rb").read()
    for pattern in (rb"href", rb"src=", rb"@import", rb"url\("):
        if re.search(pattern, raw):
            fail(f"{path}: not standalone: {pattern.decode()}")
    if raw.count(b"<script") != 1 or not re.search(rb"\n<script><!\[CDATA\[\n.*\]\]></script>\n</svg>\n$", raw, re.S):
        fail(f"{path}: not one inline script in CDATA at the end")
    root = parse(path)
    frames = frames_of(root)
    if not frames:
        fail(f"{path}: no frame")
    base = frames[0]
    if base.id != "f0" or base.depth != 0:
        fail(f"{path}: the first frame is not the root f0")
    scale = base.width / base.total
    callers = []  # the last frame of each depth, in document order
    for i, frame in enumerate(frames):
        if frame.id != f"f{i}":
            fail(f"frame {i} has id {frame.id}")
        if abs(frame.x - (base.x + frame.start * scale)) > EPS or abs(frame.width - frame.total * scale) > EPS:
            fail(f"{frame.id}: box at {frame.x} width {frame.width}, its columns {frame.start} + {frame.total}")
        if abs(frame.y - (base.y - 16 * frame.depth)) > EPS:
            fail(f"{frame.id}: y {frame.y} for depth {frame.depth}")
        if frame.depth > 0:
            caller = callers[frame.depth - 1]
            if not caller.start <= frame.start < frame.start + frame.total <= caller.start + caller.total:
                fail(f"{frame.id}: columns {frame.start} + {frame.total} outside its caller {caller.id}'s")
        del callers[frame.depth:]
        callers.append(frame)
        title = frame.title.text or ""
        if not title.startswith(frame.name) or f" {frame.total} " not in title[len(frame.name):]:
            fail(f"{frame.id}: title {title!r} does not name {frame.name!r} and its {frame.total}")
        check_label(frame, frame.width)
    shown = {frame.name for frame in frames}
    if names_path is not None:
        for kind, name, _ in read_names(names_path):
            want = name if kind == "function" else f"[{name}]"
            if want not in shown:
                fail(f"{path}: no frame named {want!r}")
            if kind == "function" and not any(f.title.text.startswith(f"{want} (JIT) ") for f in frames if f.name == want):
                fail(f"{path}: no title of {want!r}")
    print(f"{len(frames)} frames, {len(shown)} names")


def read_names(path):
    """(kind, name as the SVG shows it, samples) per function and process."""
    names = []
    for line in open(path):
        fields = line.rstrip("\n").split("\t")
        if fields[0] in ("function", "process"):
            # As sysprof-report writes names into XML: invalid UTF-8 and
            # U+FFFE, U+FFFF as U+FFFD, control characters as spaces.
            text = bytes.fromhex(fields[1]).decode("utf-8", "replace")
            text = re.sub("[\ufffe\uffff]", "\ufffd", re.sub(r"[\x00-\x1f]", " ", text))
            names.append((fields[0], text, int(fields[2])))
    return names


def regex_of(name):
    return urllib.parse.quote("^" + re.escape(name) + "$", safe="")


def searches(names_path):
    for kind, name, samples in read_names(names_path):
        if kind == "function":
            print(f"{regex_of(name)}\t{samples}")


def pick(path):
    frames = frames_of(parse(path))
    has_callees = {caller.id for caller, frame in zip(frames, frames[1:]) if frame.depth == caller.depth + 1}
    candidates = [f for f in frames if f.depth >= 2 and f.start > 0 and f.id in has_callees]
    if not candidates:
        fail(f"{path}: no frame to zoom to")
    print(max(candidates, key=lambda f: f.total).id)


def ready(dom):
    if dom.get("data-flame-error") is not None:
        fail(f"the script threw: {dom.get('data-flame-error')}")
    if dom.get("data-flame-ready") != "true" or "interactive" not in (dom.get("class") or "").split():
        fail("the script did not finish (no data-flame-ready on the root)")


def search(svg_path, dom_path, encoded, samples):
    regex = urllib.parse.unquote(encoded)
    root = parse(svg_path)
    dom = parse(dom_path)
    ready(dom)
    shown = {frame.id: frame for frame in frames_of(dom)}
    frames = frames_of(root)
    highlighted = 0
    for frame in frames:
        want = re.search(regex, frame.name) is not None
        got = "match" in shown[frame.id].classes
        if want != got:
            fail(f"{frame.id} {frame.name!r}: highlighted {got}, matches {regex!r}: {want}")
        highlighted += got
    if samples > 0 and highlighted == 0:
        fail(f"no frame matches {regex!r}")
    text = "".join(t.text or "" for t in dom.iter(SVG + "text") if t.get("id") == "flame-matched")
    m = re.fullmatch(r"Matched: (\d+) (.+), (\d+\.\d\d)%", text)
    if m is None:
        fail(f"the matched share reads {text!r}")
    share = 100 * samples / frames[0].total
    if int(m[1]) != samples or m[2] != root.get("data-unit") or abs(float(m[3]) - share) > 0.005 + 1e-9:
        fail(f"{regex!r}: {text!r}, want {samples} {root.get('data-unit')}, {share:.4f}%")
    print(f"{highlighted} frames highlighted, {text}")


def zoom(svg_path, dom_path, target_id):
    frames = frames_of(parse(svg_path))
    dom = parse(dom_path)
    ready(dom)
    shown = {frame.id: frame for frame in frames_of(dom)}
    base = frames[0]
    target = next((f for f in frames if f.id == target_id), base)
    zoomed = "zoomed" in (dom.get("class") or "").split()
    if zoomed != (target is not base):
        fail(f"the root's class is {dom.get('class')!r} for #zoom={target_id}")
    left, full = base.x, base.width
    scale = full / target.width
    counts = {"callee": 0, "caller": 0, "hidden": 0}
    for frame in frames:
        after = shown[frame.id]
        # The relation from the picture alone: y (deeper is higher) and the
        # pixel columns.
        within = frame.x >= target.x - EPS and frame.x + frame.width <= target.x + target.width + EPS
        spans = frame.x <= target.x + EPS and frame.x + frame.width >= target.x + target.width - EPS
        if target is base or (frame.y <= target.y and within):
            x, width, kind = left + (frame.x - target.x) * scale, frame.width * scale, "callee"
            if after.classes & {"hidden", "context"}:
                fail(f"{frame.id} in the zoomed subtree has class {after.classes}")
        elif frame.y > target.y and spans:
            x, width, kind = left, full, "caller"
            if "context" not in after.classes or "hidden" in after.classes:
                fail(f"{frame.id}, a caller, has class {after.classes}")
        else:
            kind = "hidden"
            if "hidden" not in after.classes:
                fail(f"{frame.id}, outside the zoomed subtree, has class {after.classes}")
        counts[kind] += 1
        if kind == "hidden":
            continue
        tolerance = 2 * EPS * scale
        if abs(after.x - x) > tolerance or abs(after.width - width) > tolerance:
            fail(f"{frame.id} ({kind}): x {after.x} width {after.width}, want {x:.2f} {width:.2f}")
        check_label(after, after.width)
    if target is not base:
        after = shown[target.id]
        if abs(after.x - left) > EPS or abs(after.width - full) > EPS:
            fail(f"{target.id}: x {after.x} width {after.width}, not the full {left} + {full}")
        if after.label() == "":
            fail(f"{target.id}: no label at full width")
    print(f"{target.id} {target.name!r}: {counts['callee']} frames in its subtree, "
          f"{counts['caller']} callers, {counts['hidden']} hidden")


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "static":
        static(*args)
    elif command == "regex":
        print(regex_of(args[0]))
    elif command == "searches":
        searches(args[0])
    elif command == "pick":
        pick(args[0])
    elif command == "search":
        search(args[0], args[1], args[2], int(args[3]))
    elif command == "zoom":
        zoom(*args)
    else:
        fail(f"unknown command {command}")


if __name__ == "__main__":
    main()
