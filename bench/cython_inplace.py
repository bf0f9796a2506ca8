"""Compile dralint's own modules with Cython 3 in place, to measure what compiled Python gives (issue 23).

    python bench/cython_inplace.py [--only MODULE ...] [--exclude MODULE ...] [--jobs N]
    python bench/cython_inplace.py --clean

Needs `pip install cython` in the venv and a C compiler with the Python headers. For each
`src/dralint/**.py` and `rules/*.py` (not `__init__.py`, not `__main__.py`: runpy needs a code
object) it writes `X.c` and `X.<EXT_SUFFIX>` beside `X.py`; the import system prefers the
extension module, so an editable install runs the compiled module while the `.py` stays what the
tests, ruff and vulture read. --clean removes every `.c` and extension module it would write.
Nothing here is shipped: the generated files are never committed.

What must stay true for the build to behave like the source:
  * `annotation_typing=False`: with it on, Cython checks annotated arguments by exact type
    (`self: tuple` rejects a NamedRecord, `dict` a ruamel CommentedMap...), which breaks dralint;
  * the built-in rules are compiled under their import name `dralint.rules.X` (the package's
    `__path__` is `rules/`): `registry.rules_in_module` keeps a rule only when its function's
    `__module__` equals the module's `__name__`, and Cython bakes the compile-time name in;
  * the extensions are built by setuptools' `build_ext` run from here without reading
    pyproject.toml (setuptools rejects this project's `license` table in its own validation).
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def modules() -> dict[str, Path]:
    """Import name -> source file of every module the build may compile."""
    found: dict[str, Path] = {}
    for path in sorted((ROOT / "src").rglob("*.py")):
        if path.name not in ("__init__.py", "__main__.py"):
            found[".".join(path.relative_to(ROOT / "src").with_suffix("").parts)] = path
    for path in sorted((ROOT / "rules").glob("*.py")):
        if path.name != "__init__.py":
            found[f"dralint.rules.{path.stem}"] = path
    return found


def chosen(names: dict[str, Path], only: list[str], exclude: list[str]) -> dict[str, Path]:
    """The modules named by --only (each a module or a package prefix), less those of --exclude."""
    def matches(name: str, prefixes: list[str]) -> bool:
        return any(name == p or name.startswith(p + ".") for p in prefixes)
    return {n: p for n, p in names.items() if (not only or matches(n, only)) and not matches(n, exclude)}


def build(selected: dict[str, Path], jobs: int) -> None:
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    extensions = [Extension(name, [str(path.relative_to(ROOT))]) for name, path in selected.items()]
    compiled = cythonize(extensions, language_level=3, nthreads=jobs, quiet=True,
                         compiler_directives={"annotation_typing": False})
    # build_ext --inplace puts dralint.X under package_dir's folder for "dralint", the rules under rules/.
    with tempfile.TemporaryDirectory() as scratch:  # objects and the build folder: nothing left in the checkout
        dist = Distribution({"ext_modules": compiled, "script_name": "cython_inplace",
                             "package_dir": {"dralint": "src/dralint", "dralint.rules": "rules"},
                             "script_args": ["build_ext", "--inplace", "--parallel", str(jobs),
                                             "--build-temp", scratch, "--build-lib", scratch]})
        dist.parse_command_line()
        dist.run_commands()


def clean() -> int:
    removed = 0
    for path in modules().values():
        for generated in (path.with_suffix(".c"), path.with_name(path.stem + SUFFIX)):
            if generated.exists():
                generated.unlink()
                removed += 1
    return removed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], metavar="MODULE")
    parser.add_argument("--exclude", nargs="*", default=[], metavar="MODULE")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--clean", action="store_true")
    args = parser.parse_args()
    if args.clean:
        print(f"removed {clean()} generated files")
        return 0
    selected = chosen(modules(), args.only, args.exclude)
    os.chdir(ROOT)
    build(selected, args.jobs)
    print(f"compiled {len(selected)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
