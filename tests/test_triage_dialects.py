"""Braces that are not Helm's, and JSON as editors keep it (dralint.pipeline.triage), through the real CLI.

A GitHub Actions workflow (`${{ }}`), an Ansible playbook or role (Jinja `{{ }}`) and JSON with comments
and trailing commas (tsconfig.json, .vscode/settings.json, devcontainer.json) hold no Kubernetes object:
they are passed over without a word, so `--fail-on info` passes. A Helm template stays a template.
"""

from __future__ import annotations

from pathlib import Path

from conftest import lint_json

WORKFLOW = """\
name: ci
on: [push]
jobs:
  test:
    runs-on: ${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest]
    steps:
      - uses: actions/checkout@v4
      - if: ${{ github.event_name == 'push' && !cancelled() }}
        run: echo ${{ github.sha }}
        env:
          TOKEN: ${{ secrets.TOKEN }}
          OUT: ${{ fromJSON(needs.build.outputs.matrix).include }}
"""

PLAYBOOK = """\
- hosts: all
  vars:
    packages: [curl]
  tasks:
    - name: Install {{ item }}
      ansible.builtin.apt:
        name: "{{ item }}"
      loop: "{{ packages }}"
    - ansible.builtin.debug:
        msg: "{{ range(3) | list }} {{ template.name | default('x') }}"
      when: packages is defined
"""

ROLE_TASKS = """\
- name: Write the config
  ansible.builtin.copy:
    content: "{{ lookup('file', 'app.conf') }}"
    dest: /etc/app.conf
- name: Report
  ansible.builtin.debug:
    msg: "{{ ansible_facts.hostname }}: {% if ok %}ok{% endif %}"
"""

TSCONFIG = """\
{
  // compiler options
  "compilerOptions": {
    "target": "es2020", /* modern */
    "paths": {"@/*": ["src/*"]},
    "strict": true,
  },
}
"""

SETTINGS = '{\n  // the editor\n  "editor.formatOnSave": true,\n  "url": "http://example.com/a//b",\n}\n'

DEVCONTAINER = """\
// https://containers.dev/implementors/json_reference/
{
  "name": "dev",
  "image": "mcr.microsoft.com/devcontainers/python:3.12",
  /* features
     to install */
  "features": {},
}
"""

HELM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: {{ include "app.fullname" . }}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: {{ .Values.deviceClass }}
          {{- toYaml .Values.extra | nindent 10 }}
"""

GO_TEMPLATE = "a Go template (Helm): dralint checks rendered manifests, not templates"


def _write(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return [str(root / name) for name in files]


def _rows(root: Path, run) -> list[tuple]:
    return [(Path(p["file"]).relative_to(root).as_posix(), p["line"], p["column"], p["rule"], p["message"])
            for p in run.problems]


def test_workflows_playbooks_and_jsonc_say_nothing_and_pass_fail_on_info(tmp_path):
    paths = _write(tmp_path, {
        ".github/workflows/ci.yml": WORKFLOW,
        "playbook.yml": PLAYBOOK,
        "roles/web/tasks/main.yml": ROLE_TASKS,
        "tsconfig.json": TSCONFIG,
        ".vscode/settings.json": SETTINGS,
        ".devcontainer/devcontainer.json": DEVCONTAINER,
    })
    run = lint_json("--fail-on", "info", *paths)
    assert run.code == 0, run.stdout
    assert run.problems == []
    assert run.json["summary"]["files_passed_over"] == 6


def test_a_helm_template_of_a_dra_object_is_still_one(tmp_path):
    paths = _write(tmp_path, {
        "templates/claim.yaml": HELM,
        # Quoted, the actions parse as YAML; `.Values` still makes it a template, next to `${{ }}` data.
        "templates/class.yaml": 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n'
                                '  name: "{{ .Values.name }}"\n  annotations: {ci: "${{ github.sha }}"}\n',
    })
    run = lint_json("--fail-on", "info", *paths)
    assert run.code == 1
    rows = [row[:4] for row in _rows(tmp_path, run)]
    assert rows == [("templates/claim.yaml", 4, 9, "DRA014"), ("templates/class.yaml", 4, 10, "DRA014")]
    assert all(GO_TEMPLATE in p["message"] for p in run.problems)


def test_a_jinja_template_of_a_manifest_is_a_template_but_not_helm(tmp_path):
    # Unquoted Jinja broke an object: render it first, and no `helm template` advice.
    paths = _write(tmp_path, {"claim.yaml": "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
                                            "  name: {{ class_name | default('gpu') }}\n"})
    run = lint_json(*paths)
    assert _rows(tmp_path, run) == [(
        "claim.yaml", 4, 9, "DRA014",
        "a Jinja template (Ansible): dralint checks rendered manifests, not templates; render it first",
    )]


def test_a_dra_object_in_a_playbook_and_a_manifest_with_comments_are_still_pointed_out(tmp_path):
    paths = _write(tmp_path, {
        "site.yml": "- hosts: localhost\n  tasks:\n    - name: Apply {{ item }}\n      kubernetes.core.k8s:\n"
                    "        definition:\n          apiVersion: resource.k8s.io/v1\n          kind: DeviceClass\n"
                    "          metadata: {name: '{{ item }}'}\n      loop: '{{ classes }}'\n",
        # The API server reads plain JSON: a manifest written with comments is an error.
        "class.json": '{\n  // a class\n  "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",\n'
                      '  "metadata": {"name": "gpu"},\n}\n',
        # An unclosed comment or another fault is not JSON with comments: still an info.
        "unclosed.json": '{\n  "a": 1 /* open\n}\n',
    })
    run = lint_json(*paths)
    assert [row[:4] for row in _rows(tmp_path, run)] == [
        ("class.json", 2, 3, "DRA001"),
        ("site.yml", 6, 23, "DRA015"),
        ("unclosed.json", 2, 10, "DRA015"),
    ]
