"""CEL selector messages a user can act on, through the real CLI: a quantity compared with `>`, `=` for
`==`, and an unknown function told from an unknown variable (dralint.cel)."""

from __future__ import annotations

from pathlib import Path

from conftest import lint_json

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.capacity["gpu.example.com"].memory > quantity("40Gi")
  - cel:
      expression: device.capacity["gpu.example.com"].memory <= quantity("80Gi")
  - cel:
      expression: device.attributes["gpu.example.com"].model = "H100"
  - cel:
      expression: device.attributes["gpu.example.com"].model == "a=b" && device.driver != "x"
  - cel:
      expression: device.capacity["gpu.example.com"].memory.asFloat() > 1.0
  - cel:
      expression: x.asFloat() > 1.0
"""


def _rows(path: Path, *args: str) -> list[tuple]:
    run = lint_json("-k", "1.35", *args, str(path))
    return [(p["rule"], p["line"], p["column"], p["end_column"], p["message"]) for p in run.problems]


def test_cel_messages_say_what_is_wrong_and_what_to_write(tmp_path):
    path = tmp_path / "class.yaml"
    path.write_text(CLASS)
    overload = "found no matching overload for '{op}' applied to '(dyn, kubernetes.Quantity)'; quantities are compared " \
               "with compareTo, isGreaterThan or isLessThan, not `{sign}`: write {how}, with b a quantity (quantity(\"40Gi\"))"
    assert _rows(path) == [
        ("DRA403", 8, 61, 62, overload.format(op="_>_", sign=">", how="a.compareTo(b) > 0 or a.isGreaterThan(b)")),
        ("DRA403", 10, 61, 63, overload.format(op="_<=_", sign="<=", how="a.compareTo(b) <= 0")),
        # One error at the `=`, not two about token recognition and extraneous input; a `=` in a string is data.
        ("DRA401", 12, 62, 63, "syntax error: `=` is no CEL operator; did you mean `==`?"),
        # A function called on a value is no variable.
        ("DRA402", 16, 61, 68, "undeclared reference to 'asFloat': no such function; did you mean 'asApproximateFloat'?"),
        ("DRA402", 18, 19, 20, "undeclared reference to 'x': the only variable is `device`"),
        ("DRA402", 18, 21, 28, "undeclared reference to 'asFloat': no such function; did you mean 'asApproximateFloat'?"),
    ]


def test_the_lone_equals_is_fixed_to_double_equals(tmp_path):
    path = tmp_path / "class.yaml"
    path.write_text(CLASS)
    lint_json("--fix", "--select", "DRA401", str(path))
    assert path.read_text().splitlines()[11] == '      expression: device.attributes["gpu.example.com"].model == "H100"'
    assert _rows(path, "--select", "DRA401") == []
