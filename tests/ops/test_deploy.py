"""docker/: the image, compose and the Kubernetes manifests, checked offline.

No container runtime works on these machines, so nothing here builds or runs an image. Instead:
every rendered manifest is validated against the Kubernetes 1.37 schemas (`kubernetes-validate`,
strict: unknown fields fail), and the facts that matter are checked against the code itself: probes
hit routes the app really serves, ports match the settings the ConfigMap produces, secrets are not
in ConfigMaps, the gateway is a native sidecar in vLLM's pod, the drain fits the grace period, the
Dockerfile runs the Makefile's own setup, and `.env.example` lists every field of `Settings`.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gateway.config import Settings, load_settings
from gateway.http.app import create_app
from gateway.telemetry.logs import scrub
from tests.support.kustomize import render
from tests.support.procs import ROOT

DOCKER = ROOT / "docker"
OVERLAYS = sorted(p for p in (DOCKER / "k8s" / "overlays").iterdir() if p.is_dir())
K8S_VERSION = "1.37.0"
pytestmark = pytest.mark.filterwarnings("ignore:It is recommended to use web.AppKey")
SECRET_FIELDS = {name for name in Settings.model_fields if name.endswith(("_api_key", "_token"))} | {
    "admin_key",
    "database_url",  # carries the database password
}


def _kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def _routes() -> set[tuple[str, str]]:
    app = create_app(load_settings(env={}, data_dir="/nonexistent-not-opened"))
    return {(r.method, r.resource.canonical) for r in app.router.routes() if r.resource is not None}


@pytest.fixture(scope="module")
def routes() -> set[tuple[str, str]]:
    return _routes()


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_every_rendered_manifest_is_valid(overlay: Path) -> None:
    docs = render(overlay)
    assert {d["kind"] for d in docs} >= {"ConfigMap", "Secret", "Service", "StatefulSet"}
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_the_validator_rejects_a_broken_manifest() -> None:
    doc = _kind(render(OVERLAYS[0]), "StatefulSet")[0]
    doc["spec"]["template"]["spec"]["initContainers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_manifests_match_the_code(overlay: Path, routes: set[tuple[str, str]]) -> None:
    docs = render(overlay)
    (cm,) = _kind(docs, "ConfigMap")
    (secret,) = _kind(docs, "Secret")
    (sts,) = _kind(docs, "StatefulSet")
    settings = load_settings(env={k: v for k, v in cm["data"].items() if k.startswith("GATEWAY_")})
    # every GATEWAY_ key of the ConfigMap is a real setting; secrets are never there
    for key, value in cm["data"].items():
        if key.startswith("GATEWAY_"):
            assert key.removeprefix("GATEWAY_").lower() in Settings.model_fields, key
            assert key.removeprefix("GATEWAY_").lower() not in SECRET_FIELDS, key
        assert not re.search(r"(?i)(key|token|secret|password)", key), key
        assert scrub(value) == value, key  # nothing that looks like a credential
    assert {f"GATEWAY_{n.upper()}" for n in SECRET_FIELDS} <= set(secret["stringData"])

    pod = sts["spec"]["template"]["spec"]
    (gw,) = [c for c in pod["initContainers"] if c["name"] == "gateway"]
    accelerator, _, store = overlay.name.partition("-")
    if store in (
        "postgres",
        "fleet",
    ):  # many replicas, all on one PostgreSQL (required, from the Secret), pgvector, keys
        assert sts["spec"]["replicas"] >= 2
        url = next(e for e in gw["env"] if e["name"] == "GATEWAY_DATABASE_URL")["valueFrom"]["secretKeyRef"]
        assert url["optional"] is False and url["key"] in secret["stringData"]
        assert settings.vector_backend == "pgvector" and settings.auth == "keys"
    else:
        assert sts["spec"]["replicas"] == 1  # SQLite: one pod owns the data dir
    (vllm,) = [c for c in pod["containers"] if c["name"] == "vllm"]
    assert gw["restartPolicy"] == "Always"  # a native sidecar in vLLM's pod
    ports = {p["name"]: p["containerPort"] for p in gw["ports"]}
    assert ports == {"envoy": settings.envoy_port, "http": settings.http_port}
    assert "--port=8000" in vllm["args"] and vllm["ports"][0]["containerPort"] == 8000
    pool_services = set()
    if store == "fleet":  # every sidecar sees every pod's vLLM through a headless Service (#27)
        (pool,) = settings.backends or []
        host, _, port = (pool.dns or "").rpartition(":")
        (svc,) = [s for s in _kind(docs, "Service") if s["metadata"]["name"] == host]
        pool_services.add(host)
        assert svc["spec"]["clusterIP"] == "None" and not svc["spec"].get("publishNotReadyAddresses")
        assert svc["spec"]["selector"].items() <= sts["spec"]["template"]["metadata"]["labels"].items()
        assert [(p["port"], p["targetPort"]) for p in svc["spec"]["ports"]] == [(int(port), vllm["ports"][0]["name"])]
        assert "--host=0.0.0.0" in vllm["args"]  # reachable from the other pods
        # the pool's key is the one vLLM checks, both from the Secret
        assert pool.api_key_env is not None
        key_ref = next(e for e in gw["env"] if e["name"] == pool.api_key_env)["valueFrom"]["secretKeyRef"]
        vllm_ref = next(e for e in vllm["env"] if e["name"] == "VLLM_API_KEY")["valueFrom"]["secretKeyRef"]
        assert key_ref == vllm_ref
    else:  # the sidecar reaches vLLM over the pod's loopback, on vLLM's port
        assert settings.backend_base == f"http://127.0.0.1:{vllm['ports'][0]['containerPort']}/v1"
        assert "--host=127.0.0.1" in vllm["args"]
    # probes: real routes, on the ports the settings give
    for name in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = gw[name]["httpGet"]
        assert ("GET", probe["path"]) in routes, (name, probe)
        assert ports[probe["port"]] == settings.envoy_port
    assert gw["readinessProbe"]["httpGet"]["path"] == "/ready"  # 503 while draining
    # secrets only through secretKeyRef, all of them from the Secret
    for env in gw["env"] + vllm["env"]:
        if env["name"].endswith(("_KEY", "_TOKEN", "_DATABASE_URL")):
            assert env["valueFrom"]["secretKeyRef"]["name"] == secret["metadata"]["name"]
            assert env["valueFrom"]["secretKeyRef"]["key"] in secret["stringData"]
    # one worker per CPU of the container's limit
    workers = next(int(e["value"]) for e in gw["env"] if e["name"] == "GATEWAY_WORKERS")
    assert workers == int(gw["resources"]["limits"]["cpu"])
    # termination: vLLM keeps serving for the drain, then the gateway drains; the grace period covers both
    drain = settings.drain_seconds
    assert vllm["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", str(int(drain))]
    assert pod["terminationGracePeriodSeconds"] >= 2 * drain + 20
    # the data dir is the StatefulSet's PVC; metrics on a fresh emptyDir
    mounts = {m["name"]: m["mountPath"] for m in gw["volumeMounts"]}
    assert mounts["data"] == str(settings.data_dir)
    assert "data" in {t["metadata"]["name"] for t in sts["spec"]["volumeClaimTemplates"]}
    assert mounts["metrics"] == str(settings.metrics_dir)
    assert {v["name"]: v for v in pod["volumes"]}["metrics"] == {"name": "metrics", "emptyDir": {}}
    # scraping: the HTTP server's /metrics
    ann = sts["spec"]["template"]["metadata"]["annotations"]
    assert ann["prometheus.io/scrape"] == "true" and int(ann["prometheus.io/port"]) == settings.http_port
    assert ("GET", ann["prometheus.io/path"]) in routes
    # the Services send :8081 to Envoy and select this pod
    for svc in [s for s in _kind(docs, "Service") if s["metadata"]["name"] not in pool_services]:
        assert svc["spec"]["selector"].items() <= sts["spec"]["template"]["metadata"]["labels"].items()
        assert [(p["port"], p["targetPort"]) for p in svc["spec"]["ports"]] == [(settings.envoy_port, "envoy")]
    assert sts["spec"]["serviceName"] in {s["metadata"]["name"] for s in _kind(docs, "Service")}
    # the accelerator
    gpu = {"rocm": "amd.com/gpu", "cuda": "nvidia.com/gpu"}[accelerator]
    assert vllm["resources"]["limits"][gpu] == 1


def _dockerfile() -> list[tuple[str, str]]:
    text = (DOCKER / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_the_dockerfile_runs_the_makefile_setup_and_the_cli() -> None:
    steps = _dockerfile()
    froms = [rest for word, rest in steps if word == "FROM"]
    assert len(froms) == 2  # build and runtime stages
    base = next(rest for word, rest in steps if word == "ARG" and rest.startswith("PYTHON_IMAGE="))
    assert re.fullmatch(r"PYTHON_IMAGE=python:\d+\.\d+\.\d+-slim-\w+", base)  # pinned, slim
    (setup,) = [rest for word, rest in steps if word == "RUN" and "make setup" in rest]
    make = shlex.split(setup.split("&&")[0])
    assert make[:2] == ["make", "setup"]
    makefile = (ROOT / "Makefile").read_text()
    for assignment in make[2:]:
        var = assignment.split("=")[0]
        assert re.search(rf"^{var}\s*\?=", makefile, re.M), f"the Makefile has no overridable {var}"
    assert "EXTRAS=all" in make and "BUNDLE_MODEL=${BUNDLE_MODEL}" in make
    assert ("ARG", "BUNDLE_MODEL=0") in steps  # no weights unless asked
    user = next(rest for word, rest in steps if word == "USER")
    assert user.split(":")[0] not in ("0", "root")
    entry = next(rest for word, rest in steps if word == "ENTRYPOINT")
    assert yaml.safe_load(entry) == ["responses-gateway", "up"]
    health = next(rest for word, rest in steps if word == "HEALTHCHECK")
    assert health.endswith('CMD ["responses-gateway", "healthcheck"]')
    copied = {rest.split()[0] for word, rest in steps if word == "COPY" and "--from" not in rest}
    packages = {"gateway", "extproc", "storage", "vectorstore", "envoy"}
    assert packages <= copied  # the packages setuptools installs, and Envoy's template
    # the runtime listens where clients and probes reach it
    env = " ".join(rest for word, rest in steps if word == "ENV")
    assert "GATEWAY_HOST=0.0.0.0" in env and "GATEWAY_DATA_DIR=/data" in env


class _ComposeLoader(yaml.SafeLoader):
    """Compose's `!reset` / `!override` tags."""


_ComposeLoader.add_constructor("!reset", lambda loader, node: None)
_ComposeLoader.add_constructor("!override", lambda loader, node: loader.construct_sequence(node))


def test_compose_runs_vllm_on_rocm_and_the_gateway_behind_it() -> None:
    compose = yaml.load((DOCKER / "compose.yaml").read_text(), Loader=_ComposeLoader)
    vllm, gw = compose["services"]["vllm"], compose["services"]["gateway"]
    assert set(vllm["devices"]) == {"/dev/kfd", "/dev/dri"}
    assert vllm["group_add"] == ["video"] and vllm["ipc"] == "host" and vllm["shm_size"]
    assert any(v.endswith(":/models") for v in vllm["volumes"])
    assert "http://127.0.0.1:8000/health" in " ".join(vllm["healthcheck"]["test"])
    assert gw["depends_on"]["vllm"]["condition"] == "service_healthy"
    assert gw["environment"]["GATEWAY_BACKEND_URL"] == "http://vllm:8000/v1"
    assert gw["build"] == {
        "context": "..",
        "dockerfile": "docker/Dockerfile",
        "args": {"BUNDLE_MODEL": "${BUNDLE_MODEL:-0}", "BUNDLE_EMBEDDER": "${BUNDLE_EMBEDDER:-1}"},
    }
    assert gw["ports"] == ["${GATEWAY_PUBLISH:-8081}:8081"]
    assert any(v.endswith(":/data") for v in gw["volumes"])
    assert gw["healthcheck"]["test"] == ["CMD", "responses-gateway", "healthcheck"]
    profiles = {p for s in compose["services"].values() for p in s.get("profiles", [])}
    assert profiles == {"milvus", "searxng", "postgres"}
    pg = compose["services"]["postgres"]
    assert "pgvector" in pg["image"] and "pg_isready" in pg["healthcheck"]["test"]
    assert gw["depends_on"]["postgres"] == {"condition": "service_healthy", "required": False}
    searx = yaml.safe_load((DOCKER / "searxng" / "settings.yml").read_text())
    assert "json" in searx["search"]["formats"]  # the gateway asks format=json
    cuda = yaml.load((DOCKER / "compose.cuda.yaml").read_text(), Loader=_ComposeLoader)
    assert cuda["services"]["vllm"]["devices"] is None  # reset: no ROCm devices on NVIDIA
    assert cuda["services"]["vllm"]["deploy"]["resources"]["reservations"]["devices"][0]["driver"] == "nvidia"


def test_env_example_lists_every_setting() -> None:
    """Reads the Settings model, so a setting added later must be documented here too."""
    listed = set(re.findall(r"^#?\s*(GATEWAY_[A-Z0-9_]+)=", (DOCKER / ".env.example").read_text(), re.M))
    expected = {f"GATEWAY_{name.upper()}" for name in Settings.model_fields}
    assert expected - listed == set(), "missing from docker/.env.example"
    assert listed - expected <= {"GATEWAY_IMAGE", "GATEWAY_PUBLISH"}, "not settings"
    for line in (DOCKER / ".env.example").read_text().splitlines():
        name, _, value = line.partition("=")
        if name.removeprefix("GATEWAY_").lower() in SECRET_FIELDS:
            assert value == "", f"{name} must ship empty"


def test_scrub_removes_secrets_from_log_text() -> None:
    text = (
        "Authorization: Bearer sk-abc123def456 and api_key=tvly-XYZ987654 "
        "url http://user:hunter2@10.0.0.1:8000/v1 token: 'ghp_abcdefgh' X-API-Key: k-123456789"
    )
    out = scrub(text)
    for secret in ("sk-abc123def456", "tvly-XYZ987654", "hunter2", "ghp_abcdefgh", "k-123456789"):
        assert secret not in out
    assert "http://[redacted]@10.0.0.1:8000/v1" in out
    assert scrub("response resp_123 completed in 12 ms") == "response resp_123 completed in 12 ms"


def test_compose_fleet_puts_every_vllm_replica_in_the_gateways_dns_pool() -> None:
    """compose.fleet.yaml: each vLLM replica on its own GPU, all under one network alias, which is the
    gateway's one DNS pool (on vLLM's port, with the key vLLM checks)."""
    base = yaml.load((DOCKER / "compose.yaml").read_text(), Loader=_ComposeLoader)
    fleet = yaml.load((DOCKER / "compose.fleet.yaml").read_text(), Loader=_ComposeLoader)
    services = fleet["services"]
    replicas = {
        name: s for name, s in services.items() if name == "vllm" or s.get("extends", {}).get("service") == "vllm"
    }
    assert len(replicas) >= 2
    for name, s in replicas.items():
        if name != "vllm":
            assert s["extends"]["file"] == "compose.yaml" and name not in base["services"]
    aliases = [tuple(s["networks"]["default"]["aliases"]) for s in replicas.values()]
    assert len(set(aliases)) == 1 and len(aliases[0]) == 1
    gpus = [s["environment"]["HIP_VISIBLE_DEVICES"] for s in replicas.values()]
    assert len(set(gpus)) == len(gpus)  # one GPU each
    gw = services["gateway"]
    settings = load_settings(env={"GATEWAY_BACKENDS": gw["environment"]["GATEWAY_BACKENDS"]})
    (pool,) = settings.backends or []
    host, _, port = (pool.dns or "").rpartition(":")
    assert host == aliases[0][0] and f"--port={port}" in base["services"]["vllm"]["command"]
    assert pool.api_key_env == "GATEWAY_BACKEND_API_KEY"
    assert base["services"]["vllm"]["environment"]["VLLM_API_KEY"] == "${GATEWAY_BACKEND_API_KEY:-}"
    assert set(gw["depends_on"]) | set(base["services"]["gateway"]["depends_on"]) >= set(replicas)
