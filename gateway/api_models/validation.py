"""Turn pydantic validation failures into OpenAI's 400 body with a `param` path like `input[2].content`."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gateway.common.errors import InvalidRequest

M = TypeVar("M", bound=BaseModel)


def param_path(loc: tuple[Any, ...] | list[Any]) -> str | None:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str):
            # pydantic adds the union member it tried (e.g. "str", "list[...]"); it is not a field name.
            if part.startswith(("list[", "dict[", "function-", "constrained-")) or part in {
                "str",
                "int",
                "float",
                "bool",
            }:
                continue
            out += ("." if out else "") + part
    return out or None


def invalid_from(exc: ValidationError) -> InvalidRequest:
    err = exc.errors(include_url=False)[0]
    param = param_path(err.get("loc", ()))
    message = err.get("msg", "Invalid request")
    if param:
        got = err.get("input")
        if err.get("type") == "missing":
            message = f"Missing required parameter: '{param}'."
        elif err.get("type") == "extra_forbidden":
            message = f"Unknown parameter: '{param}'."
        else:
            message = f"Invalid value for '{param}': {message}." + (
                f" Got {type(got).__name__}." if got is not None and not isinstance(got, dict | list) else ""
            )
    code = "missing_required_parameter" if err.get("type") == "missing" else "invalid_value"
    if err.get("type") == "extra_forbidden":
        code = "unknown_parameter"
    return InvalidRequest(message, param=param, code=code)


def parse(model: type[M], data: Any) -> M:
    if not isinstance(data, dict):
        raise InvalidRequest("The request body must be a JSON object.", code="invalid_json")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_from(exc) from None
