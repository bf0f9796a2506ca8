"""Fuzz dralint in process: mutants of real manifests through the whole pipeline and every format.

Each input is a real manifest (tests/cases, examples, and ../shared/corpus when
present) broken at the byte and line level in ways YAML and JSON readers find
hard: structure characters, anchors and merge keys, tags, tabs, every kind of
line break, BOMs, NUL bytes, huge numbers, document markers, truncation,
duplicated and swapped lines. Each mutant is linted (every rule) and rendered
in every output format; the checks are:

* no exception and no DRA901 internal-error problem;
* JSON and SARIF output is valid JSON;
* every problem's position lies inside its file (lines end at ``\\n``; a column
  is at most one past the line's last character);
* each input takes less than --max-seconds of CPU.

A deeper run than the test suite's (tests/test_fuzz.py runs a few hundred
mutants with a fixed seed):

    .venv/bin/python tools/fuzz.py --seconds 600 --seed 1 [--save-failures DIR]

It prints a line per failure (seed, mutant number, what failed) and exits 1
if there was any; with --save-failures, the failing inputs are written there.
``DRALINT_PURE_PYTHON=1`` in the environment fuzzes the pure-Python parser.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Iterator

from dralint.lint import LintOptions, lint
from dralint.pipeline.sources import Source
from dralint.report import FORMATS, ReportOptions, renderer

ROOT = Path(__file__).resolve().parents[1]

# Fragments that YAML and JSON readers treat specially.
TOKENS = [
    b":", b": ", b"- ", b"[", b"]", b"{", b"}", b",", b"&a ", b"*a", b"<<: *a\n", b"? ", b"!!int ", b"!!str ",
    b"!!float ", b"!!bool ", b"!!null ", b"!foo ", b"\t", b"\r", b"\r\n", "\u0085".encode(), "\u2028".encode(),
    "\u2029".encode(), b"---\n", b"--- ", b"...\n", b'"', b"'", b"|", b">-", b"|+2", b"#", b"%YAML 1.1\n",
    b"%TAG ! tag:x,2000:\n", b"9" * 5000, b"-" + b"1" * 400, b"0x" + b"f" * 40, b"1e400", b".nan", b"~",
    b"null", b"yes", b"\xef\xbb\xbf", b"\x00", b"\xff", "\u00e9".encode(), "\U0001f600".encode(), b"\\u0000",
    b'"\\ud800"', b"apiVersion: resource.k8s.io/v1\n", b"kind: List\nitems:\n- ", b"  ", b"\n", b"\n\n",
]


def corpus_files(root: Path = ROOT) -> list[Path]:
    """Real manifests: the test cases, the examples and the shared corpus when it is there."""
    files = sorted(p for p in (root / "tests" / "cases").rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    files += sorted(p for p in (root / "examples").rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    shared = root.parent / "shared" / "corpus"
    if shared.is_dir():
        files += sorted(p for p in shared.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    return [p for p in files if p.is_file() and p.stat().st_size < 256 * 1024]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four random edits of `data`."""
    for _ in range(rng.randint(1, 4)):
        data = rng.choice(_EDITS)(data, rng)
    return data


def _insert(data: bytes, rng: random.Random) -> bytes:
    i = rng.randint(0, len(data))
    return data[:i] + rng.choice(TOKENS) + data[i:]


def _delete(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, 40):]


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randint(0, len(data))]


def _line_edit(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    j = rng.randrange(len(lines))
    choice = rng.randrange(4)
    if choice == 0:
        lines[i], lines[j] = lines[j], lines[i]
    elif choice == 1:
        lines[i:i] = lines[j:j + rng.randint(1, 5)] * rng.randint(1, 3)
    elif choice == 2:
        lines[i] = b" " * rng.choice((1, 2, 3, 4, 8)) + lines[i]
    else:
        lines[i] = lines[i].lstrip(b" ")
    return b"\n".join(lines)


def _line_endings(data: bytes, rng: random.Random) -> bytes:
    return data.replace(b"\n", rng.choice((b"\r\n", b"\r", "\u2028".encode(), "\u0085".encode(), b"\n\n")))


def _repeat(data: bytes, rng: random.Random) -> bytes:
    return (data + rng.choice((b"\n---\n", b"\n", b""))) * rng.randint(2, 5)


_EDITS = [_insert, _insert, _insert, _delete, _delete, _truncate, _line_edit, _line_edit, _line_endings, _repeat]


def mutants(seed: int, files: list[Path]) -> Iterator[tuple[int, str, bytes]]:
    """(number, name, bytes) of an endless, reproducible stream of mutants."""
    rng = random.Random(seed)
    originals = [(p, p.read_bytes()) for p in files]
    n = 0
    while True:
        path, data = rng.choice(originals)
        yield n, path.name, mutate(data, rng)
        n += 1


def _lines(data: bytes) -> list[str]:
    """The file's lines as an editor shows them (`\n` or `\r\n` ends a line), for checking positions."""
    text = data.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    # the \r of a \r\n ends a line; a lone \r at the very end is a character of the last line
    lines = [line[:-1] if line.endswith("\r") else line for line in lines[:-1]] + lines[-1:]
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def check(name: str, data: bytes, max_seconds: float) -> list[str]:
    """What is wrong with dralint's handling of one input (empty: nothing)."""
    start = time.process_time()  # CPU, not wall: a loaded machine must not turn a fast input slow
    try:
        result = lint([Source(name, data)], LintOptions(plugins=False))
        outputs = {fmt: renderer(fmt)(result, ReportOptions(show_source=True)) for fmt in FORMATS}
    except Exception as exc:  # noqa: BLE001 - that is what the fuzzer looks for
        return [f"exception {type(exc).__name__}: {exc}"]
    elapsed = time.process_time() - start
    failures = []
    if elapsed > max_seconds:
        failures.append(f"took {elapsed:.1f} s")
    for fmt in ("json", "sarif"):
        try:
            json.loads(outputs[fmt])
        except ValueError as exc:
            failures.append(f"{fmt} output is not JSON: {exc}")
    lines = _lines(data)
    for p in result.problems:
        if p.rule == "DRA901":
            failures.append(f"internal error: {p.message}")
        span = p.span
        for line, column in ((span.line, span.column), (span.end_line, span.end_column)):
            if not (1 <= line <= max(1, len(lines)) and 1 <= column <= (len(lines[line - 1]) if lines else 0) + 1):
                failures.append(f"{p.rule} position {tuple(span)} outside the file ({len(lines)} lines)")
                break
    return failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=300, help="how long to run (default 300)")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--max-seconds", type=float, default=5.0, help="the most CPU seconds one input may take (default 5)")
    ap.add_argument("--save-failures", metavar="DIR", help="write failing inputs here")
    args = ap.parse_args()
    files = corpus_files()
    print(f"seed {args.seed}, {len(files)} files", flush=True)
    deadline = time.monotonic() + args.seconds
    failed = 0
    n = 0
    for n, name, data in mutants(args.seed, files):
        if time.monotonic() > deadline:
            break
        for failure in check(name, data, args.max_seconds):
            failed += 1
            print(f"seed {args.seed} mutant {n} ({name}): {failure}", flush=True)
            if args.save_failures:
                os.makedirs(args.save_failures, exist_ok=True)
                Path(args.save_failures, f"{args.seed}-{n}-{name}").write_bytes(data)
    print(f"{n} inputs, {failed} failures")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
