"""A compaction item's `encrypted_content`: the summary sealed with AES-GCM under the deployment's key.

Why sealed: a client sends the item back as input and the gateway trusts what it decodes as the
model's memory of the conversation, so the gateway must know that it made the item. AES-GCM both
hides the summary (the field is called `encrypted_content`, and clients treat it as opaque) and
authenticates it: a changed byte, an item sealed under another key (another deployment's) or one
forged from scratch fails to open and is a 400, never a 500 and never silently accepted.

The key: `GATEWAY_COMPACTION_KEY` when set (required with several hosts, e.g. replicas on
PostgreSQL: every replica must open every other's items); unset, a random key kept in the data
directory (`compaction.key`, created once, mode 0600), which every process of one data directory
(both doors, their workers) shares. One key per process: it is loaded once (`load`, from the
async `prepare` step, off the event loop) and used by the synchronous sealing and opening.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import os
import secrets
from pathlib import Path

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from gateway.common.errors import InvalidRequest
from gateway.config import Settings

PREFIX = "rgw-cmp-v2."
AAD = b"responses-gateway compaction item v2"
NONCE = 12
KEY_FILE = "compaction.key"

_aead: AESGCM | None = None
_loaded_from: tuple[str | None, str] | None = None


def _key_bytes(material: str) -> bytes:
    return hashlib.sha256(material.encode()).digest()  # any configured text becomes a 256-bit key


def _read_or_create(path: Path) -> str:
    """The data directory's key, created once: written whole to a private temporary file, then
    linked into place (atomic; the first process wins), so no process ever reads a partial key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process published its key first: that one is the key
        finally:
            tmp.unlink()
    return path.read_text().strip()


async def load(settings: Settings) -> None:
    """Make the deployment's key ready (cheap once loaded)."""
    global _aead, _loaded_from
    source = (settings.compaction_key, str(settings.data_dir))
    if _loaded_from == source:
        return
    # no lock: two first requests racing load the same key (the file is published once, atomically)
    material = settings.compaction_key
    if not material:
        material = await asyncio.to_thread(_read_or_create, settings.data_dir / KEY_FILE)
    _aead = AESGCM(_key_bytes(material))
    _loaded_from = source


def _cipher() -> AESGCM:
    if _aead is None:
        raise RuntimeError("the compaction key is not loaded (compaction_seal.load runs in prepare)")
    return _aead


def seal(summary: str) -> str:
    nonce = secrets.token_bytes(NONCE)
    sealed = _cipher().encrypt(nonce, orjson.dumps({"summary": summary}), AAD)
    return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")


def unseal(content: str, param: str) -> str:
    """The summary in a compaction item this deployment sealed; a 400 for anything else."""
    if not isinstance(content, str) or not content.startswith(PREFIX):
        raise InvalidRequest(
            f"Invalid value for '{param}': this compaction item was not produced by this gateway.",
            param=param,
            code="invalid_encrypted_content",
        )
    body = content[len(PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        plain = _cipher().decrypt(raw[:NONCE], raw[NONCE:], AAD)
        summary = orjson.loads(plain)["summary"]
    except (InvalidTag, binascii.Error, ValueError, KeyError, TypeError):
        summary = None
    if not isinstance(summary, str):
        raise InvalidRequest(
            f"Invalid value for '{param}': the compaction item was changed or sealed by another deployment.",
            param=param,
            code="invalid_encrypted_content",
        )
    return summary
