#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# What test-sysprof-report-speedscope.sh reads out of a speedscope file.
#   check-speedscope.py validate SCHEMA FILE   validates FILE against speedscope's JSON schema
#   check-speedscope.py self FILE              name, file and self weight of each frame (TSV, sorted)
#   check-speedscope.py threads FILE           profile name and total weight, one a line (TSV)
#   check-speedscope.py get FILE EXPR          a value: EXPR evaluated with `d` the parsed file
import json
import sys


def load(path):
    # Strict: NaN, Infinity and duplicate keys are not JSON.
    def no_constants(name):
        raise ValueError(f"{name} is not JSON")

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError(f"duplicate keys in {keys}")
        return dict(pairs)

    with open(path, "rb") as f:
        data = f.read()
    return json.loads(data.decode("utf-8", errors="strict"), parse_constant=no_constants,
                      object_pairs_hook=no_duplicates)


def main():
    what = sys.argv[1]
    path = sys.argv[3] if what == "validate" else sys.argv[2]
    if what == "validate":
        import jsonschema

        with open(sys.argv[2]) as f:
            schema = json.load(f)
        d = load(path)
        jsonschema.Draft7Validator.check_schema(schema)
        errors = list(jsonschema.Draft7Validator(schema).iter_errors(d))
        for e in errors[:3]:
            print(f"{list(e.absolute_path)}: {e.message[:300]}", file=sys.stderr)
        # What the schema cannot say: frame indexes in the table, one weight
        # per sample.
        frames = len(d["shared"]["frames"])
        for p in d["profiles"]:
            if len(p["samples"]) != len(p["weights"]):
                errors.append(f"{p['name']}: {len(p['samples'])} samples, {len(p['weights'])} weights")
            for s in p["samples"]:
                if any(not isinstance(i, int) or i < 0 or i >= frames for i in s):
                    errors.append(f"{p['name']}: frame index out of the table in {s}")
                    break
        for e in errors[:3]:
            if isinstance(e, str):
                print(e, file=sys.stderr)
        sys.exit(1 if errors else 0)
    d = load(path)
    frames = d["shared"]["frames"]
    if what == "self":
        self_weights = {}
        for p in d["profiles"]:
            for s, w in zip(p["samples"], p["weights"]):
                if s:
                    f = frames[s[-1]]
                    key = (f["name"], f.get("file", ""))
                    self_weights[key] = self_weights.get(key, 0) + w
        for (name, file), w in sorted(self_weights.items()):
            print(f"{name}\t{file}\t{w}")
    elif what == "threads":
        for p in d["profiles"]:
            print(f"{p['name']}\t{sum(p['weights'])}\t{p['endValue'] - p['startValue']}\t{p['unit']}")
    elif what == "get":
        print(eval(sys.argv[3], {"d": d}))


if __name__ == "__main__":
    main()
