"""Validation of the Files / Vector Stores parameters, with OpenAI's limits and `param` paths.

Every check raises `InvalidRequest` naming the exact parameter, so a client mistake is a 400 the SDK
can show, never a 500 from deeper down (a backend seeing a malformed filter, say).
"""

from __future__ import annotations

import math
from typing import Any

from gateway.common.errors import InvalidRequest
from gateway.common.ids import require_id

FILE_PURPOSES = ("assistants", "batch", "fine-tune", "vision", "user_data", "evals")
DEFAULT_CHUNKING = {"max_chunk_size_tokens": 800, "chunk_overlap_tokens": 400}
COMPARISONS = frozenset({"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"})
RANKERS = frozenset({"none", "auto", "default-2024-11-15", "kg"})  # kg: the knowledge graph (#12)
MAX_NUM_RESULTS = 50


def bad(message: str, param: str | None, code: str = "invalid_value") -> InvalidRequest:
    return InvalidRequest(message, param=param, code=code)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def require_int(value: Any, param: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise bad(f"Invalid type for '{param}': expected an integer.", param, "invalid_type")
    if not low <= value <= high:
        raise bad(f"Invalid '{param}': must be between {low} and {high}, got {value}.", param)
    return value


def purpose(value: str | None) -> str:
    if not value:
        raise bad("Missing required parameter: 'purpose'.", "purpose", "missing_required_parameter")
    if value not in FILE_PURPOSES:
        allowed = ", ".join(f"'{p}'" for p in FILE_PURPOSES)
        raise bad(f"Invalid value for 'purpose': '{value[:64]}'. Supported values are: {allowed}.", "purpose")
    return value


def file_expires_after(anchor: str | None, seconds: str | int | None) -> int | None:
    """`expires_after` of an upload (multipart form fields) → seconds after creation, or None."""
    if anchor is None and seconds is None:
        return None
    if anchor != "created_at":
        raise bad("Invalid value for 'expires_after.anchor': expected 'created_at'.", "expires_after.anchor")
    try:
        number = int(seconds) if seconds is not None else None
    except ValueError:
        number = None
    if number is None:
        raise bad("Invalid 'expires_after.seconds': expected an integer.", "expires_after.seconds", "invalid_type")
    return require_int(number, "expires_after.seconds", 3600, 2_592_000)


def store_expires_after(value: Any, param: str = "expires_after") -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    if value.get("anchor") != "last_active_at":
        raise bad(f"Invalid value for '{param}.anchor': expected 'last_active_at'.", f"{param}.anchor")
    days = require_int(value.get("days"), f"{param}.days", 1, 365)
    return {"anchor": "last_active_at", "days": days}


def chunking_strategy(value: Any, param: str = "chunking_strategy") -> dict[str, Any]:
    """Normalise to what OpenAI reports on a vector store file: `auto` is static 800/400."""
    if value is None:
        return {"type": "static", "static": dict(DEFAULT_CHUNKING)}
    if not isinstance(value, dict):
        raise bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    kind = value.get("type")
    if kind == "auto":
        if set(value) - {"type"}:
            raise bad(f"'{param}' of type 'auto' takes no other fields.", param)
        return {"type": "static", "static": dict(DEFAULT_CHUNKING)}
    if kind != "static":
        raise bad(f"Invalid value for '{param}.type': expected 'auto' or 'static'.", f"{param}.type")
    static = value.get("static")
    if not isinstance(static, dict):
        raise bad(f"Missing required parameter: '{param}.static'.", f"{param}.static", "missing_required_parameter")
    size = require_int(static.get("max_chunk_size_tokens"), f"{param}.static.max_chunk_size_tokens", 100, 4096)
    overlap = require_int(static.get("chunk_overlap_tokens"), f"{param}.static.chunk_overlap_tokens", 0, 4096)
    if overlap > size // 2:
        raise bad(
            f"Invalid '{param}.static.chunk_overlap_tokens': must not exceed half of max_chunk_size_tokens "
            f"({size // 2}), got {overlap}.",
            f"{param}.static.chunk_overlap_tokens",
        )
    return {"type": "static", "static": {"max_chunk_size_tokens": size, "chunk_overlap_tokens": overlap}}


def _small_mapping(value: Any, param: str) -> dict[str, Any]:
    """OpenAI's limits shared by metadata and attributes: an object of at most 16 keys of <= 64 chars."""
    if not isinstance(value, dict):
        raise bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    if len(value) > 16:
        raise bad(f"Invalid '{param}': at most 16 keys.", param)
    if any(len(key) > 64 for key in value):
        raise bad(f"Invalid '{param}': keys can be at most 64 characters.", param)
    return value


MAX_NAME_CHARS = 256  # a vector store's name (OpenAI documents no limit; a prompt's and a connector's too)
MAX_DESCRIPTION_CHARS = 512


def text(value: Any, param: str, limit: int) -> str | None:
    """A free-text field (a name, a description): a string of at most `limit` characters, or None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise bad(f"Invalid type for '{param}': expected a string.", param, "invalid_type")
    if len(value) > limit:
        raise bad(f"Invalid '{param}': string too long. Expected at most {limit} characters, got {len(value)}.", param)
    return value


def metadata(value: Any, param: str = "metadata") -> dict[str, str] | None:
    if value is None:
        return None
    for key, val in _small_mapping(value, param).items():
        if not isinstance(val, str) or len(val) > 512:
            raise bad(f"Invalid '{param}.{key}': values are strings of at most 512 characters.", f"{param}.{key}")
    return value


def attributes(value: Any, param: str = "attributes") -> dict[str, Any]:
    if value is None:
        return {}
    for key, val in _small_mapping(value, param).items():
        if isinstance(val, str):
            if len(val) > 512:
                raise bad(f"Invalid '{param}.{key}': strings can be at most 512 characters.", f"{param}.{key}")
        elif not (isinstance(val, bool) or _is_number(val)):
            raise bad(f"Invalid '{param}.{key}': values are strings, numbers or booleans.", f"{param}.{key}")
    return value


MAX_FILTER_TERMS = 200  # comparisons in one filter, each value of an `in`/`nin` counted (#26)


def _terms(value: dict[str, Any]) -> int:
    if value.get("type") in ("and", "or"):
        return sum(_terms(sub) for sub in value["filters"])
    operand = value.get("value")
    return max(1, len(operand)) if isinstance(operand, list) else 1


def filters(value: Any, param: str = "filters", depth: int = 0) -> dict[str, Any] | None:
    """OpenAI's attribute filter grammar (comparison or and/or compound), checked recursively.

    The whole tree is bounded too: each comparison (each value of an `in`) becomes one more term of
    the backend's expression, and 1,000 sub-filters or a 2,000-value `in` passed SQLite's expression
    depth ("Expression tree is too large"): a 500, and `file_search` failing on the SQLite text."""
    if value is None and depth == 0:
        return None
    checked = _filters(value, param, depth)
    if depth == 0 and (terms := _terms(checked)) > MAX_FILTER_TERMS:
        raise bad(
            f"Invalid '{param}': at most {MAX_FILTER_TERMS} comparisons in one filter (each value of an "
            f"'in' or 'nin' counts), got {terms}.",
            param,
        )
    return checked


def _filters(value: Any, param: str, depth: int) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    if depth > 8:
        raise bad(f"Invalid '{param}': filters nest at most 8 levels.", param)
    kind = value.get("type")
    if kind in ("and", "or"):
        subs = value.get("filters")
        if not isinstance(subs, list) or not subs:
            raise bad(f"Invalid '{param}.filters': expected a non-empty array.", f"{param}.filters")
        for i, sub in enumerate(subs):
            _filters(sub, f"{param}.filters[{i}]", depth + 1)
        return value
    if kind not in COMPARISONS:
        raise bad(
            f"Invalid value for '{param}.type': expected one of {', '.join(sorted(COMPARISONS | {'and', 'or'}))}.",
            f"{param}.type",
        )
    if not isinstance(value.get("key"), str) or not value["key"]:
        raise bad(f"Missing required parameter: '{param}.key'.", f"{param}.key", "missing_required_parameter")
    operand = value.get("value")
    if kind in ("in", "nin"):
        if not isinstance(operand, list) or not all(isinstance(v, str) or _is_number(v) for v in operand):
            raise bad(f"Invalid '{param}.value': '{kind}' expects an array of strings or numbers.", f"{param}.value")
    elif kind in ("gt", "gte", "lt", "lte"):
        if not (_is_number(operand) or isinstance(operand, str)):
            raise bad(f"Invalid '{param}.value': '{kind}' expects a number or string.", f"{param}.value")
    elif not (isinstance(operand, str | bool) or _is_number(operand)):
        raise bad(f"Invalid '{param}.value': expected a string, number or boolean.", f"{param}.value")
    return value


def ranking_options(value: Any, param: str = "ranking_options") -> dict[str, Any]:
    """Returns {"score_threshold": float, "mode": vector|keyword|hybrid, "vector_weight": float | None,
    "ranker": "kg" | None} (`kg` re-ranks with the store's knowledge graph; the others are hybrid search).

    Without `hybrid_search` the backends fuse the two rankings with RRF (no calibration needed);
    with it, the weights blend the two scores (`vector_weight` = embedding / (embedding + text)).
    """
    if value is None:
        return {"score_threshold": 0.0, "mode": "hybrid", "vector_weight": None, "ranker": None}
    if not isinstance(value, dict):
        raise bad(f"Invalid type for '{param}': expected an object.", param, "invalid_type")
    ranker = value.get("ranker")
    if ranker is not None and ranker not in RANKERS:
        raise bad(
            f"Invalid value for '{param}.ranker': expected one of {', '.join(sorted(RANKERS))}.", f"{param}.ranker"
        )
    threshold = value.get("score_threshold")
    if threshold is None:
        threshold = 0.0
    if not _is_number(threshold) or not 0 <= threshold <= 1:
        raise bad(f"Invalid '{param}.score_threshold': expected a number between 0 and 1.", f"{param}.score_threshold")
    mode = "hybrid"
    vector_weight = None
    hybrid = value.get("hybrid_search")
    if hybrid is not None:
        if not isinstance(hybrid, dict):
            raise bad(f"Invalid type for '{param}.hybrid_search': expected an object.", f"{param}.hybrid_search")
        weights: dict[str, float] = {}
        for key in ("embedding_weight", "text_weight"):
            weight: Any = hybrid.get(key)
            if not _is_number(weight) or weight < 0:
                raise bad(
                    f"Invalid '{param}.hybrid_search.{key}': expected a non-negative number.",
                    f"{param}.hybrid_search.{key}",
                )
            weights[key] = weight
        if weights["embedding_weight"] == 0 and weights["text_weight"] == 0:
            raise bad(f"Invalid '{param}.hybrid_search': both weights are 0.", f"{param}.hybrid_search")
        # a zero weight selects the other search alone
        mode = "keyword" if weights["embedding_weight"] == 0 else "vector" if weights["text_weight"] == 0 else mode
        vector_weight = weights["embedding_weight"] / (weights["embedding_weight"] + weights["text_weight"])
    return {
        "score_threshold": float(threshold),
        "mode": mode,
        "vector_weight": vector_weight,
        "ranker": "kg" if ranker == "kg" else None,
    }


def string_list(value: Any, param: str, *, required: bool = True) -> list[str]:
    if value is None and not required:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise bad(f"Invalid type for '{param}': expected an array of strings.", param, "invalid_type")
    for i, v in enumerate(value):  # ids of other objects: short and plain, before any lookup (#26)
        require_id(v, f"{param}[{i}]")
    return list(value)
