// A conversation: its metadata and every item, oldest first.
import { api } from "../api.js";
import { h, kv, when, put } from "../dom.js";
import { itemCard } from "./items.js";

export async function conversationPage(ctx, id) {
  const path = `/conversations/${encodeURIComponent(id)}`;
  const conv = await api(path);
  const items = [];
  let after;
  for (let i = 0; i < 10; i++) {
    const page = await api(path + "/items", { query: { order: "asc", limit: 100, after } });
    items.push(...page.data);
    if (!page.has_more) break;
    after = page.last_id;
  }
  put(ctx.main, 
    h("h1", {}, "Conversation ", h("span", { class: "mono" }, conv.id)),
    h("div", { class: "card" }, kv([["Created", when(conv.created_at)], ["Items", String(items.length)],
      ["Metadata", conv.metadata && Object.keys(conv.metadata).length ? JSON.stringify(conv.metadata) : undefined]])),
    h("h2", {}, "Items"),
    h("div", { class: "timeline" }, items.map((i) => itemCard(i))),
  );
}
