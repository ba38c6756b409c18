"""A small kustomize renderer for the tests (no kubectl or container runtime works here).

It implements exactly the kustomization features `docker/k8s` uses and refuses any other key, so a
manifest change that needs more makes the tests fail instead of silently rendering something else:
`resources` (files and directories), `labels` (pairs, without selectors), `images` (newName/newTag)
and `patches` with a `path` to a strategic-merge patch (lists of named objects merge by name).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

SUPPORTED = {"apiVersion", "kind", "resources", "labels", "images", "patches"}
Doc = dict[str, Any]


def render(directory: Path) -> list[Doc]:
    kfile = directory / "kustomization.yaml"
    k = yaml.safe_load(kfile.read_text())
    unknown = set(k) - SUPPORTED
    if unknown:
        raise ValueError(f"{kfile}: unsupported kustomization keys {sorted(unknown)}")
    docs: list[Doc] = []
    for entry in k.get("resources", []):
        path = (directory / entry).resolve()
        if path.is_dir():
            docs.extend(render(path))
        else:
            docs.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    for patch in k.get("patches", []):
        if set(patch) != {"path"}:
            raise ValueError(f"{kfile}: only patches with a path are supported")
        for p in yaml.safe_load_all((directory / patch["path"]).read_text()):
            target = _find(docs, p["kind"], p["metadata"]["name"])
            merged = _merge(copy.deepcopy(target), p)
            target.clear()
            target.update(merged)
    for label in k.get("labels", []):
        if label.get("includeSelectors") or label.get("includeTemplates"):
            raise ValueError(f"{kfile}: labels on selectors/templates are not supported")
        for d in docs:
            d.setdefault("metadata", {}).setdefault("labels", {}).update(label["pairs"])
    for image in k.get("images", []):
        for d in docs:
            for c in _containers(d):
                name, _, _tag = str(c.get("image", "")).partition(":")
                if name == image["name"]:
                    c["image"] = f"{image.get('newName', name)}:{image['newTag']}"
    return docs


def _find(docs: list[Doc], kind: str, name: str) -> Doc:
    for d in docs:
        if d.get("kind") == kind and d.get("metadata", {}).get("name") == name:
            return d
    raise ValueError(f"patch target {kind}/{name} not found")


def _merge(base: Any, patch: Any) -> Any:
    """Strategic merge: maps merge key by key; lists of maps with `name` merge by name; other lists
    are replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = _merge(base[key], value) if key in base else value
        return out
    if isinstance(base, list) and isinstance(patch, list) and all(isinstance(x, dict) and "name" in x for x in patch):
        out_list = [dict(x) for x in base]
        for item in patch:
            for i, existing in enumerate(out_list):
                if existing.get("name") == item["name"]:
                    out_list[i] = _merge(existing, item)
                    break
            else:
                out_list.append(item)
        return out_list
    return patch


def _containers(doc: Doc) -> list[Doc]:
    spec = doc.get("spec", {}).get("template", {}).get("spec", {})
    return [*spec.get("initContainers", []), *spec.get("containers", [])]
