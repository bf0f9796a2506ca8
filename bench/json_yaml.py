"""JSON against YAML: `dralint` on a real-world set and on its JSON copy, in one run.

    python bench/json_yaml.py [--set a] [--repeat 5] [--dralint PATH ...] [--keep DIR]

Builds set (a) of bench/corpus_sets.py (10,000 one-document files of the shared real-world
corpus) and its JSON copy (`--json`: the same documents, as dralint reads them, written as
JSON), then times `dralint --no-config --format json --jobs 1` on each, on one core, for each
--dralint given (e.g. a baseline checkout's, to compare two installs), alternating every command
in every round so that machine noise hits all alike. Prints the median wall and CPU time (user +
system) of each, and for each install the ratio JSON / YAML, wall and CPU (goal of issue 23: at
most 1.0, the JSON copy at least as fast as the YAML). Skipped when ../shared is absent.

The JSON copy carries no release comment (JSON has none): it is judged at the default release,
the YAML at each file's, so the two runs do not report the same problems. A run that fails or
loses documents is shown as such, not timed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_sets import SETS, build_set, corpus_root  # noqa: E402
from dralint_cli import no_cache  # noqa: E402
from scale import run, summary_documents  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="a", choices=sorted(SETS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dralint", metavar="PATH", action="append",
                        help="a dralint executable (repeatable, to compare installs; default: this venv's)")
    parser.add_argument("--keep", metavar="DIR", help="write the sets here, keep them, reuse complete ones")
    args = parser.parse_args()
    if corpus_root() is None:
        print("skipped: ../shared/corpus/real-world is absent")
        return
    default = shutil.which("dralint", path=str(Path(sys.executable).parent)) or shutil.which("dralint")
    dralints = args.dralint or ([default] if default else [])
    if not dralints:
        raise SystemExit("dralint is not installed in this environment; pass --dralint PATH")
    pin = ["taskset", "-c", str(min(os.sched_getaffinity(0)))] if shutil.which("taskset") else []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        folders = {"yaml": build_set(root, args.set), "json": build_set(root, args.set, as_json=True)}
        documents = SETS[args.set][0]
        cmds = {(i, fmt): [*pin, d, "--no-config", *no_cache(d), "--format", "json", "--jobs", "1", str(folder)]
                for i, d in enumerate(dralints) for fmt, folder in folders.items()}
        for cmd in cmds.values():
            run(cmd, Path(tmp))  # warm the page cache and the bytecode
        times: dict[tuple[int, str], list] = {key: [] for key in cmds}
        failed: dict[tuple[int, str], str] = {}
        for _ in range(args.repeat):
            for key, cmd in cmds.items():
                if key in failed:
                    continue
                r = run(cmd, Path(tmp))
                seen = summary_documents(r.stdout)
                if r.rc not in (0, 1) or seen != documents:
                    failed[key] = f"FAILED: exit {r.rc}, {seen} of {documents} documents reported"
                    continue
                times[key].append(r)
    print(f"set ({args.set}), {documents:,} documents, one core: {bool(pin)}, median of {args.repeat}")
    for i, d in enumerate(dralints):
        print(f"dralint[{i}] = {d}")
        medians = {}
        for fmt in folders:
            if (i, fmt) in failed:
                print(f"  {fmt:<5} {failed[i, fmt]}")
                continue
            runs = times[i, fmt]
            medians[fmt] = (statistics.median(r.seconds for r in runs), statistics.median(r.cpu for r in runs))
            print(f"  {fmt:<5} {medians[fmt][0]:7.2f} s wall {medians[fmt][1]:7.2f} s CPU")
        if len(medians) == 2:
            print(f"  JSON / YAML: {medians['json'][0] / medians['yaml'][0]:.3f} wall, "
                  f"{medians['json'][1] / medians['yaml'][1]:.3f} CPU")
    print("goal (issue 23): JSON / YAML <= 1.0")


if __name__ == "__main__":
    main()
