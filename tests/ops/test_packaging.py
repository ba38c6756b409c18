"""The built wheel carries what `up` reads at run time (#25, 4): the Envoy template is package data.

The wheel is built from a copy of the tree (no build/ or egg-info left in the worktree), then
unpacked alone in a directory and imported from there, away from the source tree: rendering the
Envoy configuration must work from the wheel's files only.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("gateway", "extproc", "storage", "vectorstore", "envoy", "pyproject.toml", "README.md")


def test_the_wheel_carries_the_envoy_template_and_up_renders_it(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, tree / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, tree / name)
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert "gateway/envoy.yaml.tmpl" in names
        assert z.read("gateway/envoy.yaml.tmpl") == (ROOT / "envoy" / "envoy.yaml.tmpl").read_bytes()
        site = tmp_path / "site"
        z.extractall(site)
    render = (
        "import gateway.process.envoy_runner as r, sys; "
        "assert r.__file__.startswith(sys.argv[1]), r.__file__; "
        "text = r.render_envoy_config(envoy_port=18081, admin_port=18901); "
        "print('port_value: 18081' in text and '${' not in text)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, sys.argv[1]); {render}", str(site)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True", done.stdout
