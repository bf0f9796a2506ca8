"""Scale: `dralint` on 1k, 10k and 100k documents against a bare libyaml parse, in one run.

    python bench/scale.py [--sizes 1000,10000,100000|none] [--per-file 100,1] [--repeat 3]
                          [--keep DIR] [--dralint PATH ...] [--jobs N] [--no-pin] [--real-world a,b,c|none]

For each size and layout (100 documents a file, and one a file) it writes a
corpus of bench/bench.py's mixed DRA documents, then times, alternating the
commands so that machine noise hits all alike (median of --repeat):

  * libyaml parse only: a fresh interpreter running bench/bench.py's bare
    event loop (ruamel.yaml.clib's CParser, nothing built) over the same files;
  * `dralint --no-config --format json --jobs 1 DIR` and `--jobs N` (N: the
    usable cores), for each --dralint given (e.g. a baseline venv's, to compare
    two installs); an install without --jobs gets one plain run instead.

Then the same on the shared real-world corpus's sets (a) and (b) of
bench/corpus_sets.py (--real-world a,b,c adds (c), 100,000 files), skipped when
../shared is absent.

It prints documents/s, the child's peak RSS (os.wait4 on the child; with
workers, the largest single process, not the sum) and the rate as a share of
the parse-only rate; also the child's CPU time (user + system, its workers
included) and the same ratio by CPU time, steadier on a busy machine. Each dralint run's JSON summary must count every document
the parser saw: a run that fails or loses documents is shown as such, not
timed. Parse-only and `--jobs 1` run on one core (taskset) unless --no-pin.
--bytecode DIR lets the children write and read bytecode under DIR
(PYTHONPYCACHEPREFIX, PYTHONDONTWRITEBYTECODE unset) and runs each command once
untimed first, as an installed dralint runs (pip compiles its modules); without
it the children inherit the environment, which may compile every module at each
start (PYTHONDONTWRITEBYTECODE=1 and no bytecode beside the sources).
Goals (issue 12): `--jobs 1` >= 50 % of parse-only, peak RSS <= 150 MiB at
100k documents, `--jobs 2` >= 1.8x `--jobs 1` on two idle cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_sets import SETS, build_set, corpus_root  # noqa: E402

from bench import PARSE_ONLY, TEMPLATES, generate  # noqa: E402

# bench.py's parse loop takes file names; 100,000 of them exceed the argument limit, so pass the folder.
PARSE_DIR = ("import os, sys\n"
             "d = sys.argv[1]\n"
             "sys.argv[1:] = sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith('.yaml'))\n"
             + PARSE_ONLY)


def write_one_per_file(folder: Path, documents: int) -> None:
    """bench.py's documents, one a file (os.write: 100,000 files in seconds, not a minute)."""
    docs = [(release, doc) for release, template in TEMPLATES for doc in template.split("\n---\n")]
    for n in range(documents):
        release, doc = docs[n % len(docs)]
        text = f"# dralint: kubernetes-version={release}\n" + doc.format(n=n, t=n % 7)
        if not text.endswith("\n"):
            text += "\n"
        fd = os.open(folder / f"doc-{n:06d}.yaml", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def corpus(root: Path, documents: int, per_file: int) -> Path:
    """The folder of one corpus; an existing complete one (under --keep) is reused."""
    folder = root / f"docs{documents}-per{per_file}"
    done = folder / ".complete"
    if done.exists():
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if per_file == 1:
        write_one_per_file(folder, documents)
    else:
        generate(folder, documents, per_file)
    done.write_text("")
    return folder


class Run:
    __slots__ = ("seconds", "cpu", "rss_kib", "rc", "stdout", "stderr")

    def __init__(self, seconds: float, cpu: float, rss_kib: int, rc: int, stdout: bytes, stderr: bytes) -> None:
        self.seconds, self.cpu, self.rss_kib, self.rc, self.stdout, self.stderr = seconds, cpu, rss_kib, rc, stdout, stderr


def run(cmd: list[str], scratch: Path) -> Run:
    """Run `cmd`; its wall time, its own peak RSS (wait4 on it), exit code, stdout's tail and stderr."""
    out, err = scratch / "stdout", scratch / "stderr"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe)
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    with open(out, "rb") as f:
        f.seek(max(0, out.stat().st_size - 4096))
        tail = f.read()
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode, tail,
               err.read_bytes()[-2000:])


def summary_documents(tail: bytes) -> int | None:
    """`summary.documents` of a JSON report, from the end of its text."""
    at = tail.rfind(b'"summary"')
    if at == -1:
        return None
    try:
        return json.loads(b"{" + tail[at:])["summary"]["documents"]
    except (ValueError, KeyError, TypeError):
        return None


def supports_jobs(dralint: str) -> bool:
    proc = subprocess.run([dralint, "--help"], capture_output=True, text=True)
    return "--jobs" in proc.stdout


def commands(dralints: list[str], jobs: int, pin: list[str], folder: Path) -> dict[str, list[str]]:
    cmds = {"libyaml parse only": [*pin, sys.executable, "-c", PARSE_DIR, str(folder)]}
    from dralint_cli import no_cache  # beside this script

    for i, dralint in enumerate(dralints):
        label = "dralint" if len(dralints) == 1 else f"dralint[{i}]"
        base = [dralint, "--no-config", *no_cache(dralint), "--format", "json"]
        if supports_jobs(dralint):
            cmds[f"{label} --jobs 1"] = [*pin, *base, "--jobs", "1", str(folder)]
            cmds[f"{label} --jobs {jobs}"] = [*base, "--jobs", str(jobs), str(folder)]
        else:
            cmds[f"{label} (no --jobs)"] = [*pin, *base, str(folder)]
    return cmds


def measure(folder: Path, cmds: dict[str, list[str]], repeat: int, scratch: Path,
            warm: bool = False) -> tuple[int, dict[str, Any]]:
    parsed = run(cmds["libyaml parse only"], scratch)  # also warms the page cache
    for cmd in list(cmds.values())[1:] if warm else ():  # writes the bytecode (--bytecode)
        run(cmd, scratch)
    if parsed.rc != 0:
        raise SystemExit(f"parse-only failed: {parsed.stderr.decode(errors='replace')}")
    documents = int(parsed.stdout.split()[-1])
    runs: dict[str, list[Run]] = {name: [] for name in cmds}
    failed: dict[str, str] = {}
    for _ in range(repeat):
        for name, cmd in cmds.items():
            if name in failed:
                continue
            r = run(cmd, scratch)
            if name != "libyaml parse only":
                seen = summary_documents(r.stdout)
                if r.rc not in (0, 1) or seen != documents:
                    last = (r.stderr.decode(errors="replace").strip().splitlines() or [""])[-1]
                    failed[name] = f"FAILED: exit {r.rc}, {seen} of {documents} documents reported; {last[:120]}"
                    continue
            runs[name].append(r)
    results: dict[str, Any] = {}
    for name in cmds:
        if name in failed:
            results[name] = failed[name]
        else:
            results[name] = (statistics.median(r.seconds for r in runs[name]),
                             statistics.median(r.cpu for r in runs[name]),
                             statistics.median(r.rss_kib for r in runs[name]) / 1024)
    return documents, results


def report(documents: int, files: int, results: dict[str, Any], repeat: int) -> None:
    print(f"\n{documents:,} documents in {files:,} files, median of {repeat}")
    parse_rate = documents / results["libyaml parse only"][0]
    cpu_parse = results["libyaml parse only"][1]
    for name, r in results.items():
        if isinstance(r, str):
            print(f"  {name:<26} {r}")
            continue
        seconds, cpu, rss = r
        rate = documents / seconds
        print(f"  {name:<26} {rate:9,.0f} docs/s {seconds:7.2f} s {rss:7.1f} MiB peak RSS {rate / parse_rate:7.1%} "
              f"of parse-only   (CPU {cpu:6.2f} s, {cpu_parse / cpu:6.1%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000", help="documents per corpus, comma-separated")
    parser.add_argument("--per-file", default="100,1", help="documents a file, comma-separated layouts")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="write the corpora here, keep them, reuse complete ones")
    parser.add_argument("--dralint", metavar="PATH", action="append",
                        help="a dralint executable (repeatable, to compare installs; default: this venv's)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="N of --jobs N")
    parser.add_argument("--no-pin", action="store_true", help="do not pin parse-only and --jobs 1 to one core")
    parser.add_argument("--real-world", default="a,b", metavar="SETS",
                        help="bench/corpus_sets.py sets of the shared corpus, comma-separated (a, b, c; 'none'); "
                             "skipped when ../shared is absent")
    parser.add_argument("--bytecode", metavar="DIR", help="the children's bytecode kept under DIR (see above)")
    args = parser.parse_args()
    if args.bytecode:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(args.bytecode).resolve())

    default = shutil.which("dralint", path=str(Path(sys.executable).parent)) or shutil.which("dralint")
    dralints = args.dralint or ([default] if default else [])
    if not dralints:
        raise SystemExit("dralint is not installed in this environment; pass --dralint PATH")
    pin = ["taskset", "-c", str(min(os.sched_getaffinity(0)))] if shutil.which("taskset") and not args.no_pin else []
    print(f"{os.cpu_count()} cores, pinned to one for parse-only and --jobs 1: {bool(pin)}")
    for i, d in enumerate(dralints):
        print(f"dralint[{i}] = {d}, --jobs: {'yes' if supports_jobs(d) else 'no'}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        scratch = Path(tmp)
        synthetic = [(size, per_file) for size in (int(s) for s in args.sizes.split(",") if s not in ("", "none"))
                     for per_file in (int(p) for p in args.per_file.split(","))]
        real = [n for n in args.real_world.split(",") if n in SETS]
        if real and corpus_root() is None:
            print("real-world sets skipped: ../shared/corpus/real-world is absent")
            real = []
        builds = [lambda s=size, p=per_file: corpus(root, s, p) for size, per_file in synthetic]
        builds += [lambda n=name: build_set(root, n) for name in real]
        for build in builds:
            t0 = time.perf_counter()
            folder = build()
            generated = time.perf_counter() - t0
            cmds = commands(dralints, args.jobs, pin, folder)
            documents, results = measure(folder, cmds, args.repeat, scratch, warm=bool(args.bytecode))
            files = sum(1 for n in os.listdir(folder) if n.endswith(".yaml"))
            report(documents, files, results, args.repeat)
            print(f"  (corpus {folder.name}: {generated:.1f} s to write or reuse)")
            if not args.keep:
                shutil.rmtree(folder)
    print("\ngoals: --jobs 1 >= 50% of parse-only; <= 150 MiB at 100k documents; --jobs 2 >= 1.8x --jobs 1")


if __name__ == "__main__":
    main()
