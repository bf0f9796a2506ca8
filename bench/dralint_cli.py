"""What the benches pass every dralint they time (imported beside each script).

A run repeated on the same files would answer from the result cache (on by default):
the benches time the linting itself, so they turn the cache off where the dralint they
run has one (an older checkout timed as a baseline has none, nor the flag).
"""

from __future__ import annotations

import functools
import subprocess


@functools.lru_cache(maxsize=None)
def no_cache(*dralint: str) -> tuple[str, ...]:
    """("--no-cache",) when `dralint --help` lists it, else ()."""
    shown = subprocess.run([*dralint, "--help"], capture_output=True, text=True).stdout
    return ("--no-cache",) if "--no-cache" in shown else ()
