"""Build bench/c_floor/floor.c (the floor of a compiled loader, for bench/stages.py --floor) into a folder.

    python bench/c_floor/build_floor.py OUT

`build(out)` returns the folder holding `_dralint_c_floor`, or None (with the reason) when this machine has no C
compiler, no Python headers or no libyaml headers (Debian: libyaml-dev): the measurement is then skipped.
Nothing of this is part of dralint; it answers one question, what a loader of dralint's own in C could cost
at the least (docs/performance.md, "Cold, one core").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

SOURCE = Path(__file__).with_name("floor.c")


def build(out: Path) -> tuple[Path | None, str]:
    compiler = shutil.which(os.environ.get("CC", "cc"))
    include = sysconfig.get_paths()["include"]
    if compiler is None:
        return None, "no C compiler"
    if not Path(include, "Python.h").is_file():
        return None, f"no Python headers in {include}"
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"_dralint_c_floor{sysconfig.get_config_var('EXT_SUFFIX')}"
    cmd = [compiler, "-O2", "-shared", "-fPIC", f"-I{include}", str(SOURCE), "-o", str(target), "-lyaml"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"{' '.join(cmd)} failed: {proc.stderr.strip()[:300]}"
    return out, ""


if __name__ == "__main__":
    folder, why = build(Path(sys.argv[1]))
    print(folder or why)
    sys.exit(0 if folder else 1)
