"""Routes of `/v1/files`: multipart upload streamed to the blob store, list, retrieve, content, delete."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import quote

from aiohttp import BodyPartReader, web

from gateway.api_models.pages import list_body
from gateway.common.errors import InvalidRequest, PayloadTooLarge, RequestTimeout, ServerError
from gateway.common.ids import require_id
from gateway.http.common import json_response
from gateway.http.state import runtime
from gateway.retrieval import params
from gateway.retrieval.files import FilesService, check_filename, clean_filename, validate_fields

routes = web.RouteTableDef()
MAX_FIELD_BYTES = 64 * 1024  # the non-file form fields (purpose, expires_after[...]) are tiny
READ_CHUNK = 256 * 1024


def _svc(request: web.Request) -> FilesService:
    return runtime(request).files


async def _chunk(part: BodyPartReader, size: int, idle: float) -> bytes:
    """The next chunk of an upload; a client that sends nothing for `idle` seconds gets a 408."""
    try:
        async with asyncio.timeout(idle):
            return await part.read_chunk(size)
    except TimeoutError:
        raise RequestTimeout(f"The upload stalled for {idle:g}s.", code="request_timeout") from None


async def _part_chunks(part: BodyPartReader, idle: float) -> AsyncIterator[bytes]:
    while chunk := await _chunk(part, READ_CHUNK, idle):
        yield chunk


async def _field(part: BodyPartReader, idle: float) -> str:
    data = bytearray()
    while chunk := await _chunk(part, 8192, idle):
        data += chunk
        if len(data) > MAX_FIELD_BYTES:
            raise InvalidRequest(f"Form field '{part.name}' is too long.", param=part.name, code="invalid_value")
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise InvalidRequest(f"Form field '{part.name}' is not UTF-8 text.", param=part.name) from None


@routes.post("/v1/files")
async def create(request: web.Request) -> web.Response:
    """Upload a file (multipart/form-data: file, purpose, expires_after[anchor|seconds])."""
    svc = _svc(request)
    if not request.content_type.startswith("multipart/form-data"):
        raise InvalidRequest(
            "Uploads must be sent as multipart/form-data with 'file' and 'purpose' fields.",
            code="invalid_content_type",
        )
    limit = runtime(request).settings.max_file_bytes
    if request.content_length is not None and request.content_length > 4 * limit + MAX_FIELD_BYTES:
        # far beyond the limit: refuse before reading; smaller excess is drained for a clean reply
        raise PayloadTooLarge(
            f"File too large: the maximum file size is {limit} bytes.", param="file", code="file_too_large"
        )
    fields: dict[str, str] = {}
    idle = runtime(request).settings.body_timeout_seconds
    saved: tuple[str, int] | None = None
    filename = content_type = None
    try:
        try:
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    raise InvalidRequest("Nested multipart bodies are not supported.", code="invalid_value")
                if part.name == "file" and part.filename is not None:
                    if saved is not None:
                        raise InvalidRequest("Only one 'file' may be uploaded per request.", param="file")
                    filename, content_type = check_filename(part.filename), part.headers.get("Content-Type")
                    if "purpose" in fields:  # fail fast: do not store bytes we would refuse
                        validate_fields(fields)
                    saved = await svc.save(_part_chunks(part, idle))
                elif part.name:
                    fields[part.name] = await _field(part, idle)
        except (ValueError, AssertionError) as exc:  # aiohttp's multipart parser on a malformed body
            raise InvalidRequest(f"Malformed multipart body: {exc}", code="invalid_multipart") from None
        if saved is None:
            raise InvalidRequest("Missing required parameter: 'file'.", param="file", code="missing_required_parameter")
        purpose, expires = validate_fields(fields)
        body = await svc.create(
            saved[0],
            size=saved[1],
            filename=clean_filename(filename),
            content_type=content_type,
            purpose=purpose,
            expires_seconds=expires,
        )
    except BaseException:
        if saved is not None:
            await svc.discard(saved[0])
        raise
    return json_response(body)


@routes.get("/v1/files")
async def list_files(request: web.Request) -> web.Response:
    """List files, newest first (after, limit 1-10000, order, purpose)."""
    q = request.query
    try:
        limit = int(q.get("limit", "10000"))
    except ValueError:
        raise InvalidRequest("Invalid 'limit': expected an integer.", param="limit") from None
    if not 1 <= limit <= 10_000:
        raise InvalidRequest("Invalid 'limit': must be between 1 and 10000.", param="limit")
    order = q.get("order", "desc")
    if order not in ("asc", "desc"):
        raise InvalidRequest("Invalid 'order': expected 'asc' or 'desc'.", param="order")
    after = q.get("after") or None
    if after is not None:
        require_id(after, "after")
    purpose = q.get("purpose") or None
    if purpose is not None:
        params.purpose(purpose)  # one of the known purposes: a filter that matches nothing else
    page = await _svc(request).list_files(purpose=purpose, limit=limit, order=order, after=after)
    return json_response(list_body(page.data, page.has_more))


@routes.get("/v1/files/{file_id}")
async def retrieve(request: web.Request) -> web.Response:
    """Retrieve a file object."""
    return json_response(await _svc(request).retrieve(request.match_info["file_id"]))


@routes.delete("/v1/files/{file_id}")
async def delete(request: web.Request) -> web.Response:
    """Delete a file and remove it from every vector store."""
    return json_response(await _svc(request).delete(request.match_info["file_id"]))


@routes.get("/v1/files/{file_id}/content")
async def content(request: web.Request) -> web.StreamResponse:
    """Download a file's bytes."""
    found, chunks = await _svc(request).content(request.match_info["file_id"])
    try:
        first = await anext(chunks, b"")  # a missing blob is an error reply, not a cut-off body
    except OSError as exc:
        raise ServerError(f"The file's bytes are unavailable: {type(exc).__name__}", code="file_unavailable") from exc
    resp = web.StreamResponse(
        headers={
            "Content-Type": "application/octet-stream",
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(found['filename'])}",
        }
    )
    resp.content_length = found["bytes"]
    await resp.prepare(request)
    await resp.write(first)
    async for chunk in chunks:
        await resp.write(chunk)
    await resp.write_eof()
    return resp
