"""The memo of `.dralint.yaml` files (dralint.config_memo): a run reads a config it met before without the
YAML loader, and gets the very settings, positions and errors the loaded config gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT, run_dralint

CLAIM = (ROOT / "examples" / "resourceclaim.yaml").read_bytes()


def _project(tmp_path, config: str):
    (tmp_path / "claim.yaml").write_bytes(CLAIM)
    (tmp_path / ".dralint.yaml").write_text(config, encoding="utf-8")
    return {"DRALINT_NO_CACHE": None, "DRALINT_CACHE_DIR": str(tmp_path / "user-cache")}


def _memo_file(tmp_path):
    found = sorted((tmp_path / "user-cache").glob("config-*.memo"))
    assert len(found) == 1, found
    return found[0]


def test_a_config_met_before_is_read_without_the_yaml_loader_and_gives_the_same_report(tmp_path):
    env = _project(tmp_path, "kubernetes-version: 1.30\nseverity: {DRA713: warning}\nfail-on: warning\n")
    probe = (
        "import sys; from dralint.cli import main; code = main(['-f', 'json', 'claim.yaml']);"
        "print(sorted(m for m in ('dralint.pipeline.load', '_ruamel_yaml') if m in sys.modules), file=sys.stderr);"
        "sys.exit(code)"
    )
    full_env = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=full_env)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [1, 1], runs[0].stderr  # DRA713 a warning, failing on warnings
    assert runs[0].stdout == runs[1].stdout
    report = json.loads(runs[1].stdout)
    # 1.30 unquoted is the number 1.3 to YAML: the release is read as written, from the remembered text too.
    assert {p["rule"]: p["severity"] for p in report["problems"]}["DRA713"] == "warning"
    # The pre-commit hook's re-run: the result cache answers for the file, and the config needs no loader.
    assert runs[0].stderr.strip().splitlines()[-1] == "['_ruamel_yaml', 'dralint.pipeline.load']"
    assert runs[1].stderr.strip().splitlines()[-1] == "[]"
    seal, _, payload = _memo_file(tmp_path).read_bytes().partition(b"\n")
    entry = json.loads(payload)
    assert len(seal) == 64 and entry["fingerprint"].startswith("0.1.0|")
    assert entry["data"] == {"kubernetes-version": 1.3, "severity": {"DRA713": "warning"}, "fail-on": "warning"}
    assert entry["nodes"][0] == [None, None, [1, 1, 3, 17]] and entry["nodes"][1] == ["kubernetes-version", [1, 1, 1, 19], [1, 21, 1, 25]]


def test_a_config_error_is_told_at_the_same_place_from_the_memo(tmp_path):
    env = _project(tmp_path, "fail-on: warning\nplugins: maybe\n")
    runs = [run_dralint("claim.yaml", cwd=tmp_path, env=env) for _ in range(2)]
    assert [r.code for r in runs] == [2, 2]
    assert runs[0].stderr == runs[1].stderr
    assert ".dralint.yaml:2:10: 'plugins' must be true or false" in runs[1].stderr
    _memo_file(tmp_path)  # it loaded cleanly: remembered, and the second run's error came from the memo


def test_a_config_that_does_not_load_is_not_remembered(tmp_path):
    env = _project(tmp_path, "fail-on: [warning\n")
    runs = [run_dralint("claim.yaml", cwd=tmp_path, env=env) for _ in range(2)]
    assert [r.code for r in runs] == [2, 2] and runs[0].stderr == runs[1].stderr
    assert ".dralint.yaml:1:18: did not find expected ',' or ']'" in runs[1].stderr
    assert not list((tmp_path / "user-cache").glob("config-*.memo"))


def test_a_forged_or_damaged_memo_is_not_used(tmp_path):
    env = _project(tmp_path, "fail-on: error\nseverity: {DRA713: error}\n")
    first = run_dralint("-f", "json", "claim.yaml", cwd=tmp_path, env=env)
    assert first.code == 1
    path = _memo_file(tmp_path)
    seal, _, payload = path.read_bytes().partition(b"\n")
    entry = json.loads(payload)
    # The same seal over other settings: DRA713 no longer an error, so the run would pass.
    entry["data"]["severity"]["DRA713"] = "info"
    forged = json.dumps(entry, separators=(",", ":")).encode()
    other_bytes = json.dumps({**json.loads(payload), "bytes": "0" * 64}, separators=(",", ":")).encode()
    for damage in (seal + b"\n" + forged, b"{not json", seal + b"\n" + payload[:-1], b"0" * 64 + b"\n" + payload,
                   seal + b"\n" + other_bytes, b"\n" + payload):
        path.write_bytes(damage)
        again = run_dralint("-f", "json", "claim.yaml", cwd=tmp_path, env=env)
        assert (again.code, again.stdout, again.stderr) == (first.code, first.stdout, first.stderr), damage
    # A memo made for other bytes of the config, sealed as this module seals (a config edited back and forth).
    path.write_bytes(seal + b"\n" + payload)
    (tmp_path / ".dralint.yaml").write_text("fail-on: error\nseverity: {DRA713: info}\n", encoding="utf-8")
    edited = run_dralint("-f", "json", "claim.yaml", cwd=tmp_path, env=env)
    assert edited.code == 0 and '"severity": "info"' in edited.stdout.replace('"severity":"info"', '"severity": "info"')


def test_no_memo_is_kept_when_the_caches_are_off(tmp_path):
    env = _project(tmp_path, "fail-on: error\n")
    env["DRALINT_NO_CACHE"] = "1"
    assert run_dralint("claim.yaml", cwd=tmp_path, env=env).code == 0
    assert not (tmp_path / "user-cache").exists()


def test_a_config_is_remembered_up_to_max_bytes(tmp_path, monkeypatch):
    from dralint import config_memo  # noqa: PLC0415
    from dralint.pipeline.load import load  # noqa: PLC0415

    monkeypatch.delenv("DRALINT_NO_CACHE", raising=False)
    monkeypatch.setenv("DRALINT_CACHE_DIR", str(tmp_path / "user-cache"))
    head = b"fail-on: error\n# "
    for size, kept in ((config_memo.MAX_BYTES, True), (config_memo.MAX_BYTES + 1, False)):
        data = head + b"x" * (size - len(head) - 1) + b"\n"
        assert len(data) == size
        path = str(tmp_path / f"{size}.yaml")
        config_memo.remember(path, data, load(path, data).documents[0])
        got = config_memo.recall(path, data)
        assert (got is not None) == kept, size
        if kept:
            assert (got.data, got.text, got.positions[("fail-on",)]) == ({"fail-on": "error"}, data.decode(), load(path, data).documents[0].positions[("fail-on",)])


def test_a_memo_sealed_with_the_key_is_used_only_for_this_code_and_these_bytes(tmp_path):
    """Sealed as dralint seals it, a memo is what the run uses (so an edit of its data shows, which proves
    the seal is the check above); made for other code (another dralint, an edited loader) it is not."""
    from dralint.cache import blake2b  # noqa: PLC0415

    env = _project(tmp_path, "fail-on: error\nseverity: {DRA713: error}\n")
    first = run_dralint("-f", "json", "claim.yaml", cwd=tmp_path, env=env)
    assert first.code == 1
    path = _memo_file(tmp_path)
    secret = (tmp_path / "user-cache" / "key").read_bytes()
    entry = json.loads(path.read_bytes().partition(b"\n")[2])

    def sealed(changed):
        payload = json.dumps({**entry, **changed}, separators=(",", ":")).encode()
        return blake2b(payload, key=secret, digest_size=32, person=b"dralint-config").hexdigest().encode() + b"\n" + payload

    relaxed = {"data": {**entry["data"], "severity": {"DRA713": "info"}}}
    path.write_bytes(sealed(relaxed))
    assert run_dralint("-f", "json", "claim.yaml", cwd=tmp_path, env=env).code == 0  # the memo's settings
    path.write_bytes(sealed({**relaxed, "fingerprint": entry["fingerprint"] + "|other"}))
    again = run_dralint("-f", "json", "claim.yaml", cwd=tmp_path, env=env)
    assert (again.code, again.stdout) == (first.code, first.stdout)
