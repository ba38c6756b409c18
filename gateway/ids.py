"""Identifiers shaped like OpenAI's (`resp_…`, `msg_…`, `fc_…`) so clients that inspect prefixes work."""

from __future__ import annotations

import os
import time


def new_id(prefix: str) -> str:
    """48 hex chars, the length OpenAI's ids have: 12 of milliseconds, then 18 random bytes.

    The time prefix keeps new rows at the right edge of SQLite's B-trees; fully random ids touched
    ~12 pages per stored response instead of ~2 (measured by the storage benchmark).
    """
    return f"{prefix}_{time.time_ns() // 1_000_000:012x}{os.urandom(18).hex()}"


def response_id() -> str:
    return new_id("resp")


def message_id() -> str:
    return new_id("msg")


def function_call_id() -> str:
    return new_id("fc")


def reasoning_id() -> str:
    return new_id("rs")


def conversation_id() -> str:
    return new_id("conv")


def call_id() -> str:
    return new_id("call")


ITEM_PREFIXES: dict[str, str] = {
    "message": "msg",
    "function_call": "fc",
    "function_call_output": "fco",
    "reasoning": "rs",
    "item_reference": "ref",
    "file_search_call": "fs",
    "web_search_call": "ws",
    "mcp_list_tools": "mcpl",
    "mcp_call": "mcp",
    "mcp_approval_request": "mcpr",
    "mcp_approval_response": "mcpa",
    "compaction": "cmp",
    "custom_tool_call": "ctc",
    "custom_tool_call_output": "ctco",
    "local_shell_call": "lsh",
    "local_shell_call_output": "lsho",
    "tool_search_call": "tsc",
    "tool_search_output": "tso",
    "shell_call": "sh",
    "shell_call_output": "sho",
    "apply_patch_call": "apc",
    "apply_patch_call_output": "apco",
}


def item_id(item_type: str) -> str:
    return new_id(ITEM_PREFIXES.get(item_type, "item"))
