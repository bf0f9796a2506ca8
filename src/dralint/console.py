"""The `dralint` console script: a process that is dralint's from its first line.

The cyclic garbage collector is off before anything else is imported, and on again once start-up is
over (dralint.runtime.start_up_over, before the first file of a lint or any other command's work):
start-up only builds what lives as long as the process, so collections during it would free nothing.
Only this entry does it; `dralint.cli.main` called in process leaves the collector as it is.
"""

import gc


def main() -> int:
    collecting = gc.isenabled()
    gc.disable()
    from . import runtime  # noqa: PLC0415 - every import after the collector is off

    runtime.start_up_paused(collecting)
    from .cli import main as run  # noqa: PLC0415

    try:
        return run()
    finally:
        runtime.start_up_over()
