"""`.gitignore` files as the walk reads them (dralint.pipeline.gitignore), against git itself: the files a walk
reads are the files `git ls-files --others --exclude-standard` lists (less hidden files, and only
*.yaml, *.yml, *.json), over hand-picked patterns and generated trees."""

from __future__ import annotations

import os
import random
import shutil

import pytest

from dralint.pipeline import sources

from conftest import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not available")

NAMES = ["a", "b", "ab", "x.yaml", "a.yaml", "b.yml", "c.json", "deep", "ba.yaml", "[a].yaml", "a b.yaml", ".h", "é.yaml"]
PIECES = ["a", "b", "*", "?", "**", "/", "!", "[ab]", "[!a]", ".yaml", "x", "deep", "\\", " ", "[a-b]", "[", "]", "-", "#", "\\ ", "é"]
TRICKY = [
    "generated/", "*.local.yaml", "!keep.local.yaml", "/top-only", "deep/**/x.yaml", "**/b.yml", "a/**", "ab/*",
    "\\#hash.yaml", "\\!bang.yaml", "trailing.yaml   ", "escaped\\ .yaml", "[abc].json", "[!a]b.yaml", "//[ab]",
    "****/nested", "unclosed[.yaml", "x?.yaml", "# a comment", "", "é*.yaml", "deep//",
]


def _compare(root):
    listed = git("ls-files", "-o", "--exclude-standard", "-z", cwd=root)
    expected = sorted(f for f in listed.split("\0") if f and f.lower().endswith(sources.EXTENSIONS) and not os.path.basename(f).startswith("."))
    walked = sorted(os.path.relpath(name, root) for name, error in sources.files([str(root)]) if error is None)
    return walked, expected


def _tree(root, rng, patterns):
    git("init", "-q", ".", cwd=root)
    folders = [root]
    for _ in range(30):
        path = rng.choice(folders) / rng.choice(NAMES)
        if path.exists():
            continue
        if rng.random() < 0.35 and len(path.relative_to(root).parts) < 6:
            path.mkdir()
            folders.append(path)
        else:
            path.write_text("a: 1\n")
    for folder in folders:
        if rng.random() < 0.6:
            (folder / ".gitignore").write_text("\n".join(patterns(rng)) + "\n")


def test_hand_picked_patterns_exclude_what_git_excludes(tmp_path):
    git("init", "-q", ".", cwd=tmp_path)
    names = ["generated/a.yaml", "x/generated/b.yaml", "a.local.yaml", "keep.local.yaml", "top-only/a.yaml", "x/top-only/a.yaml",
             "deep/x.yaml", "deep/1/2/x.yaml", "b.yml", "z/b.yml", "a/a.yaml", "ab/c.json", "ab/d/c.json", "#hash.yaml", "!bang.yaml",
             "trailing.yaml", "escaped .yaml", "a.json", "b.json", "ab.yaml", "bb.yaml", "a/nested/x.yaml", "unclosed[.yaml",
             "xy.yaml", "é1.yaml", "other.yaml"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("a: 1\n")
    (tmp_path / ".gitignore").write_text("\n".join(TRICKY) + "\n")
    walked, expected = _compare(tmp_path)
    assert walked == expected
    assert "other.yaml" in walked and "keep.local.yaml" in walked and "a.local.yaml" not in walked


@pytest.mark.parametrize("seed", range(8))
def test_generated_trees_and_patterns_exclude_what_git_excludes(tmp_path, seed):
    rng = random.Random(seed)
    _tree(tmp_path, rng, lambda r: ["".join(r.choice(PIECES) for _ in range(r.randint(1, 5))) for _ in range(r.randint(1, 4))])
    walked, expected = _compare(tmp_path)
    assert walked == expected, [p.read_text() for p in sorted(tmp_path.rglob(".gitignore"))]
