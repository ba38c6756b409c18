"""`responses-gateway keys create|list|revoke`: key administration on the gateway's own database.

Works with the gateway running or not (SQLite in WAL mode, or PostgreSQL): a revocation reaches
every running process within `auth_cache_seconds`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from gateway.auth.keys import create_key, key_limits, parse_duration, revoke_key
from gateway.common.errors import APIError
from gateway.config import Settings
from gateway.runtime import Door, Runtime


async def _run(settings: Settings, args: argparse.Namespace) -> Any:
    async with Runtime.start(settings, Door.CLI) as runtime:  # the store the doors share, opened and closed alike
        keys = runtime.keys
        if args.action == "create":
            expires = parse_duration(args.expires_in) if args.expires_in else None
            rates = {"requests_per_minute": args.requests_per_minute, "tokens_per_minute": args.tokens_per_minute}
            return await create_key(
                keys, args.project, name=args.name or "", expires_in=expires, limits=key_limits(rates)
            )
        if args.action == "list":
            found = await keys.list(args.project, limit=100, after=None)
            return found.data
        return await revoke_key(keys, args.key_id)


def run_keys(settings: Settings, args: argparse.Namespace) -> int:
    try:
        out = asyncio.run(_run(settings, args))
    except APIError as err:
        print(f"responses-gateway keys: {err.message}")
        return 2
    print(json.dumps(out, indent=2))
    return 0


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser("keys", help="create, list and revoke API keys")
    p.add_argument("--data-dir", default=None)
    actions = p.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="mint a key for a project (the key is printed once)")
    create.add_argument("--project", required=True)
    create.add_argument("--name", default="")
    create.add_argument("--expires-in", default=None, help="e.g. 30d, 12h, 90m")
    create.add_argument("--requests-per-minute", type=int, default=None, help="this key's own rate (shared)")
    create.add_argument("--tokens-per-minute", type=int, default=None, help="this key's own token rate (shared)")
    listing = actions.add_parser("list", help="keys (prefix only) of one project or all")
    listing.add_argument("--project", default=None)
    revoke = actions.add_parser("revoke", help="revoke a key by id (key_...)")
    revoke.add_argument("key_id")
    return p
