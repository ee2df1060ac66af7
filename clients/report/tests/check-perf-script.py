#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# A strict reader of `perf script` text (sampled callchains, default fields
# and the pid, as perf 6.1 prints them), for the tests of
# `sysprof-report export --format perf-script`.  Debian 12 packages no
# reader of this text (FlameGraph's stackcollapse-perf.pl is not in it), so
# this one is written from perf's output, and refuses what perf would not
# print: every line must be a sample header, a frame, a source line or the
# empty line that ends a sample.
#
#   check-perf-script.py functions FILE [--period N]
#       per function name: self and total (once per sample), as TSV sorted
#       by name; counts of samples, or with --period the periods summed and
#       divided by N (1000: nanoseconds to microseconds)
#   check-perf-script.py stats FILE
#       samples, threads, events, frames, inlined frames, as key=value lines
#   check-perf-script.py stacks FILE
#       each sample's frames as "pid/tid;outer;...;inner", with "@0xADDR" and
#       "(inlined)" where they are, one a line (for grep)
import re
import sys

# comm, pid/tid as "%5d/%-5d", an optional "[%03d]" CPU, seconds with
# microseconds, the period "%10lu", the event, and the ": " perf leaves at
# the end.
HEADER = re.compile(r"^(?P<comm>\S.*?) +(?P<pid>-?\d+)/(?P<tid>-?\d+) +(?:\[(?P<cpu>\d{3,})\] )?"
                    r"(?P<sec>\d+)\.(?P<usec>\d{6}): +(?P<period>\d+) (?P<event>\S+): $")
# A tab, the address "%16lx", the symbol with its offset, then the dso in
# parentheses (one field: stackcollapse-perf.pl and speedscope read \S*)
# or "(inlined)" (perf names no dso for an inlined function).
FRAME = re.compile(r"^\t(?P<addr> *[0-9a-f]+) (?P<name>.+?)(?:\+0x(?P<off>[0-9a-f]+))?"
                   r" \((?P<dso>\S*)\)$")
# With --lines, an inlined function's frame ends at its name: its
# "(inlined)" follows the source line.
BARE_FRAME = re.compile(r"^\t(?P<addr> *[0-9a-f]+) (?P<name>.+?)(?:\+0x(?P<off>[0-9a-f]+))?$")
# --lines: perf's srcline ("  FILE:LINE"), which "(inlined)" may follow.
SRCLINE = re.compile(r"^  (?P<file>\S.*?):(?P<line>\d+)(?P<inlined> \(inlined\))?$")


class Error(Exception):
    pass


def parse(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="strict")
    if text and not text.endswith("\n"):
        raise Error("the last line has no newline")
    lines = text.split("\n")[:-1]
    samples = []
    sample = None
    for number, line in enumerate(lines, 1):
        where = f"line {number}: {line[:120]!r}"
        if sample is None:
            m = HEADER.match(line)
            if not m:
                raise Error(f"{where}: not a sample header")
            sample = {"comm": m.group("comm"), "pid": int(m.group("pid")), "tid": int(m.group("tid")),
                      "cpu": m.group("cpu"), "time": int(m.group("sec")) * 1000000 + int(m.group("usec")),
                      "period": int(m.group("period")), "event": m.group("event"), "frames": []}
            continue
        if line == "":
            frames = sample["frames"]
            if frames and frames[-1]["dso"] is None:
                raise Error(f"{where}: the last frame has no dso")
            for i, frame in enumerate(frames):
                if frame["inlined"] and (i + 1 == len(frames) or frames[i + 1]["addr"] != frame["addr"]):
                    raise Error(f"sample {len(samples) + 1}: an inlined frame without the function it is in: {frame}")
            samples.append(sample)
            sample = None
            continue
        last = sample["frames"][-1] if sample["frames"] else None
        if last is not None and last["dso"] is None and not SRCLINE.match(line):
            raise Error(f"{where}: a frame without its dso, and no source line saying it is inlined")
        m = FRAME.match(line) or BARE_FRAME.match(line)
        if m:
            if len(m.group("addr")) != 16:
                raise Error(f"{where}: the address is not 16 characters wide")
            dso = m.groupdict().get("dso")
            sample["frames"].append({"addr": int(m.group("addr"), 16), "name": m.group("name"),
                                     "dso": dso, "inlined": dso == "inlined", "offset": m.group("off")})
            continue
        m = SRCLINE.match(line)
        if m and last is not None and "line" not in last:
            last["line"] = (m.group("file"), int(m.group("line")))
            if last["dso"] is None:
                if not m.group("inlined"):
                    raise Error(f"{where}: a frame without its dso that is not inlined")
                last["dso"] = "inlined"
                last["inlined"] = True
            continue
        raise Error(f"{where}: neither a frame nor the empty line ending a sample")
    if sample is not None:
        raise Error("the last sample has no empty line after it")
    events = {s["event"] for s in samples}
    if len(events) > 1:
        raise Error(f"more than one event: {sorted(events)}")
    return samples


def functions(samples, period_unit):
    self_weights, totals = {}, {}
    for s in samples:
        weight = s["period"] / period_unit if period_unit else 1
        names = [f["name"] for f in s["frames"]]
        if names:
            self_weights[names[0]] = self_weights.get(names[0], 0) + weight
        for name in set(names):
            totals[name] = totals.get(name, 0) + weight
    for name in sorted(totals):
        print(f"{name}\t{fmt(self_weights.get(name, 0))}\t{fmt(totals[name])}")


def fmt(value):
    return str(int(value)) if value == int(value) else repr(value)


def main():
    what, path = sys.argv[1], sys.argv[2]
    try:
        samples = parse(path)
    except (Error, UnicodeDecodeError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        sys.exit(1)
    if what == "functions":
        unit = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--period" else 0
        functions(samples, unit)
    elif what == "stats":
        frames = [f for s in samples for f in s["frames"]]
        print(f"samples={len(samples)}")
        print(f"threads={len({(s['pid'], s['tid']) for s in samples})}")
        print(f"events={','.join(sorted({s['event'] for s in samples}))}")
        print(f"frames={len(frames)}")
        print(f"inlined={sum(f['inlined'] for f in frames)}")
        print(f"periods={sum(s['period'] for s in samples)}")
        print(f"ordered={int(all(a['time'] <= b['time'] for a, b in zip(samples, samples[1:])))}")
    elif what == "stacks":
        for s in samples:
            parts = [f"{s['comm']} {s['pid']}/{s['tid']}"]
            for f in reversed(s["frames"]):
                parts.append(f"{f['name']}@{f['addr']:#x}" + (" (inlined)" if f["inlined"] else f" ({f['dso']})"))
            print(";".join(parts))
    else:
        sys.exit(f"unknown command {what}")


if __name__ == "__main__":
    main()
