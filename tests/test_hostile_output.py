"""What a manifest or a file name holds never reaches a terminal, a CI log or a report raw: control
characters are escaped in the human-readable formats (text, github), and a file name that is not UTF-8
leaves every format valid (json: UTF-8 JSON; junit: XML valid against the XSD), through the real CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess

from test_formats import BAD, _junit_schema

from conftest import dralint_exe

EVIL = (
    'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: "evil\\e[2J\\e]0;pwned\\a"\n'
    'spec:\n  devices:\n    requests:\n    - name: "gpu\\nx.yaml:1:1: error: forged"\n      exactly:\n'
    '        deviceClassName: "c\\u202eab\\u0085\\x9b"\n'
)
# What may reach the output: printable text, line ends, and (with --color always) the report's own colours.
_RAW = re.compile(r"(?!\x1b\[[0-9;]*m)[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _run(*args: str, cwd, locale: str = "C.UTF-8") -> tuple[int, bytes]:
    # C.UTF-8: standard output encodes strictly (a C or POSIX locale would let surrogate escapes through).
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "PYTHONIOENCODING", "PYTHONUTF8")}
    env.update({"DRALINT_NO_CACHE": "1", "LC_ALL": locale})
    proc = subprocess.run([*dralint_exe(), "--no-config", *args], cwd=cwd, env=env, capture_output=True, timeout=60)
    assert b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout


def test_control_characters_from_manifests_are_escaped_in_text_and_github(tmp_path):
    (tmp_path / "evil.yaml").write_text(EVIL)
    code, out = _run("--format", "text", "evil.yaml", cwd=tmp_path)
    text = out.decode("utf-8")
    assert code == 1 and not _RAW.search(text), text
    lines = text.splitlines()
    assert [line.split(": ", 2)[0] for line in lines] == ["evil.yaml:4:9", "evil.yaml:8:13", "evil.yaml:10:26", "evil.yaml:10:26"]
    assert lines[0].startswith("evil.yaml:4:9: error: metadata.name 'evil\\x1b[2J\\x1b]0;pwned\\x07' is invalid")
    assert lines[1].startswith("evil.yaml:8:13: error: request name 'gpu\\nx.yaml:1:1: error: forged' is invalid")
    assert lines[2].startswith("evil.yaml:10:26: error: deviceClassName 'c\\u202eab\\x85\\x9b' is invalid")

    code, out = _run("--format", "text", "--color", "always", "evil.yaml", cwd=tmp_path)
    shown = out.decode("utf-8")
    assert code == 1 and not _RAW.search(shown), shown
    assert "evil\\x1b[2J\\x1b]0;pwned\\x07" in shown

    code, out = _run("--format", "github", "evil.yaml", cwd=tmp_path)
    log = out.decode("utf-8")
    assert code == 1 and not _RAW.search(log), log
    assert [line.split(" ", 1)[0] for line in log.splitlines()] == ["::error", "::error", "::error", "::notice"]
    assert "::request name 'gpu\\nx.yaml:1:1: error: forged' is invalid" in log

    # JUnit cannot carry ESC or BEL even as character references: escaped there too, and the XML valid.
    code, out = _run("--format", "junit", "evil.yaml", cwd=tmp_path)
    _junit_schema().validate(out.decode("utf-8"))
    assert code == 1 and "metadata.name 'evil\\x1b[2J\\x1b]0;pwned\\x07' is invalid" in out.decode("utf-8")


def test_the_quoted_source_line_is_escaped_and_the_carets_follow(tmp_path):
    # U+202E (right-to-left override) and U+200B may stand raw in YAML: shown escaped, carets under the escapes.
    (tmp_path / "c.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: \u202ex\u200b\n")
    code, out = _run("--format", "text", "--color", "always", "c.yaml", cwd=tmp_path)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.decode("utf-8"))
    assert code == 1 and not _RAW.search(plain)
    quoted, carets = plain.splitlines()[1:3]
    assert quoted == "    4 |   name: \\u202ex\\u200b"
    assert carets == "      |         " + "^" * len("\\u202ex\\u200b")


def test_a_file_name_that_is_not_utf8_gives_valid_reports_in_every_format(tmp_path):
    (tmp_path / "k8s").mkdir()
    raw_name = b"k8s/bad\xff\xfename.yaml"
    with open(os.path.join(os.fsencode(tmp_path), raw_name), "w") as handle:
        handle.write(BAD)

    code, out = _run("--format", "json", "k8s", cwd=tmp_path)
    report = json.loads(out.decode("utf-8"))  # strict UTF-8
    assert code == 1 and {os.fsencode(p["file"]) for p in report["problems"]} == {raw_name}  # the name's bytes, back

    code, out = _run("--format", "junit", "k8s", cwd=tmp_path)
    xml = out.decode("utf-8")
    assert code == 1
    _junit_schema().validate(xml)
    assert 'name="k8s/bad\\xff\\xfename.yaml#0 ResourceClaim/ml/gpu"' in xml

    for fmt, shown in (("text", "k8s/bad\\xff\\xfename.yaml:11:9: error: unknown field"), ("github", "::error file=k8s/bad\\xff\\xfename.yaml,line=11")):
        code, out = _run("--format", fmt, "k8s", cwd=tmp_path)
        assert code == 1 and out.decode("utf-8").startswith(shown), out
