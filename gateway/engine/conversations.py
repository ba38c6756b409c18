"""The Conversations API: durable item lists that responses read from and append to."""

from __future__ import annotations

import time
from typing import Any

from gateway.api_models.items import normalize_input
from gateway.api_models.pages import list_body
from gateway.api_models.requests import (
    CreateConversationItemsRequest,
    CreateConversationRequest,
    UpdateConversationRequest,
)
from gateway.api_models.validation import parse
from gateway.common.errors import NotFound
from gateway.common.ids import conversation_id
from gateway.engine.dealias import dealias
from gateway.engine.references import resolve_references
from storage.base import Page, StateStore


class ConversationsService:
    def __init__(self, store: StateStore) -> None:
        self.store = store

    async def create(self, body: Any) -> dict[str, Any]:
        req = parse(CreateConversationRequest, body if body is not None else {})
        items = await dealias(self.store, req.items, normalize_input(req.items or [], "items"))
        items = await resolve_references(self.store, items, "items")
        conv = {
            "id": conversation_id(),
            "object": "conversation",
            "created_at": int(time.time()),
            "metadata": req.metadata or {},
        }
        await self.store.create_conversation(conv, items)
        return conv

    async def retrieve(self, conv_id: str) -> dict[str, Any]:
        conv = await self.store.get_conversation(conv_id)
        if conv is None:
            raise NotFound(f"Conversation with id '{conv_id}' not found.", param="conversation_id")
        return conv

    async def update(self, conv_id: str, body: Any) -> dict[str, Any]:
        req = parse(UpdateConversationRequest, body)
        conv = await self.store.update_conversation(conv_id, req.metadata)
        if conv is None:
            raise NotFound(f"Conversation with id '{conv_id}' not found.", param="conversation_id")
        return conv

    async def delete(self, conv_id: str) -> dict[str, Any]:
        if not await self.store.delete_conversation(conv_id):
            raise NotFound(f"Conversation with id '{conv_id}' not found.", param="conversation_id")
        return {"id": conv_id, "object": "conversation.deleted", "deleted": True}

    async def add_items(self, conv_id: str, body: Any) -> dict[str, Any]:
        req = parse(CreateConversationItemsRequest, body)
        items = await dealias(self.store, req.items, normalize_input(req.items, "items"))
        items = await resolve_references(self.store, items, "items")
        if not await self.store.add_conversation_items(conv_id, items):
            raise NotFound(f"Conversation with id '{conv_id}' not found.", param="conversation_id")
        return list_body(items, has_more=False)

    async def list_items(
        self, conv_id: str, *, limit: int, order: str, after: str | None, before: str | None
    ) -> dict[str, Any]:
        await self.retrieve(conv_id)
        page: Page = await self.store.list_conversation_items(
            conv_id,
            limit=limit,
            order=order,  # type: ignore[arg-type]
            after=after,
            before=before,
        )
        return list_body(page.data, page.has_more)

    async def get_item(self, conv_id: str, item_id: str) -> dict[str, Any]:
        await self.retrieve(conv_id)
        item = await self.store.get_conversation_item(conv_id, item_id)
        if item is None:
            raise NotFound(f"Item with id '{item_id}' not found in conversation '{conv_id}'.", param="item_id")
        return item

    async def delete_item(self, conv_id: str, item_id: str) -> dict[str, Any]:
        conv = await self.retrieve(conv_id)
        if not await self.store.delete_conversation_item(conv_id, item_id):
            raise NotFound(f"Item with id '{item_id}' not found in conversation '{conv_id}'.", param="item_id")
        return conv
