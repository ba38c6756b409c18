// Stored responses: the list (filters in the URL) and one run as a timeline, live while it runs.
import { api, authHeaders } from "../api.js";
import { badge, h, json, kv, link, when, put } from "../dom.js";
import { itemCard, preview } from "./items.js";

const STATUSES = ["", "queued", "in_progress", "completed", "incomplete", "failed", "cancelled"];
const day = (v, end) => (v ? Date.parse(v + "T00:00:00") / 1000 + (end ? 86400 : 0) : undefined);

export function responseTable(rows) {
  return h("table", { class: "responses" },
    h("tr", {}, ["Response", "Created", "Model", "Status", "Output", "Tokens"].map((t) => h("th", {}, t))),
    rows.map((r) => h("tr", {},
      h("td", {}, link(`/console/responses/${encodeURIComponent(r.id)}`, r.id, { class: "mono" })),
      h("td", {}, when(r.created_at)), h("td", {}, r.model), h("td", {}, badge(r.status)),
      h("td", {}, preview(r)), h("td", {}, r.usage ? r.usage.total_tokens : "—"))));
}

export async function responsesPage(ctx) {
  const p = ctx.params;
  const field = (name, attrs) => h("input", { name, value: p.get(name) || "", ...attrs });
  const status = h("select", { name: "status" }, STATUSES.map((s) => h("option", { value: s, selected: p.get("status") === s }, s || "any")));
  const form = h("form", { class: "bar", onsubmit: (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams([...new FormData(form)].filter(([, v]) => v));
    ctx.go("/console/responses" + (q.toString() ? "?" + q : ""));
  } },
  h("label", {}, "Model", field("model", { placeholder: "any" })), h("label", {}, "Status", status),
  h("label", {}, "Text", field("search", { placeholder: "words in the run" })),
  h("label", {}, "From", field("from", { type: "date" })), h("label", {}, "To", field("to", { type: "date" })),
  h("button", { type: "submit" }, "Filter"));
  const query = { model: p.get("model"), status: p.get("status"), search: p.get("search"), created_after: day(p.get("from")), created_before: day(p.get("to"), true), limit: 50 };
  const page = await api("/responses", { query });
  const table = responseTable(page.data);
  const more = h("button", { class: "plain", onclick: async () => {
    const next = await api("/responses", { query: { ...query, after: table.dataset.last } });
    next.data.forEach((r) => table.append(...responseTable([r]).querySelectorAll("tr:not(:first-child)")));
    table.dataset.last = next.last_id || "";
    if (!next.has_more) more.remove();
  } }, "Load more");
  table.dataset.last = page.last_id || "";
  put(ctx.main, h("h1", {}, "Responses"), form,
    page.data.length ? table : h("p", { class: "muted" }, "No stored responses match."), page.has_more ? more : null);
}

function usage(u) {
  if (!u) return "—";
  const parts = [`${u.input_tokens} in`, `${u.output_tokens} out`, `${u.total_tokens} total`];
  if (u.input_tokens_details?.cached_tokens) parts.push(`${u.input_tokens_details.cached_tokens} cached`);
  if (u.output_tokens_details?.reasoning_tokens) parts.push(`${u.output_tokens_details.reasoning_tokens} reasoning`);
  return parts.join(" · ");
}

async function allInputs(id) {
  const out = [];
  let after;
  for (let i = 0; i < 10; i++) {
    const page = await api(`/responses/${encodeURIComponent(id)}/input_items`, { query: { order: "asc", limit: 100, after } });
    out.push(...page.data);
    if (!page.has_more) break;
    after = page.last_id;
  }
  return out;
}

export async function responsePage(ctx, id) {
  const [resp, inputs, next] = await Promise.all([
    api(`/responses/${encodeURIComponent(id)}`), allInputs(id),
    api("/responses", { query: { previous_response_id: id, limit: 10, order: "asc" } }),
  ]);
  const live = resp.status === "queued" || resp.status === "in_progress";
  const conv = resp.conversation && (resp.conversation.id || resp.conversation);
  const outBox = h("div", { class: "output-items" }, (resp.output || []).map((i) => itemCard(i, "output")));
  const took = resp.completed_at ? `${(resp.completed_at - resp.created_at).toFixed(1)} s` : undefined;
  put(ctx.main, 
    h("h1", {}, "Response ", h("span", { class: "mono" }, resp.id), " ", badge(resp.status), live ? h("span", { class: "live" }, " live") : null),
    h("div", { class: "card" }, kv([
      ["Model", resp.model], ["Created", when(resp.created_at)], ["Completed", resp.completed_at ? when(resp.completed_at) : undefined],
      ["Took", took], ["Usage", usage(resp.usage)], ["Background", resp.background ? "yes" : undefined],
      ["Previous", resp.previous_response_id ? link(`/console/responses/${encodeURIComponent(resp.previous_response_id)}`, resp.previous_response_id, { class: "mono" }) : undefined],
      ["Next", next.data.length ? h("span", {}, next.data.map((n) => link(`/console/responses/${encodeURIComponent(n.id)}`, n.id + " ", { class: "mono" }))) : undefined],
      ["Conversation", conv ? link(`/console/conversations/${encodeURIComponent(conv)}`, conv, { class: "mono" }) : undefined],
      ["Tools", (resp.tools || []).length ? resp.tools.map((t) => t.name || t.server_label || t.type).join(", ") : undefined],
      ["Metadata", resp.metadata && Object.keys(resp.metadata).length ? JSON.stringify(resp.metadata) : undefined],
    ])),
    resp.error ? h("div", { class: "card error" }, h("b", {}, resp.error.code || "error"), ": ", resp.error.message) : null,
    resp.incomplete_details ? h("div", { class: "card" }, "incomplete: ", resp.incomplete_details.reason) : null,
    resp.instructions ? [h("h2", {}, "Instructions"), json(typeof resp.instructions === "string" ? resp.instructions : resp.instructions)] : null,
    h("h2", {}, "Timeline"),
    h("div", { class: "timeline" }, inputs.map((i) => itemCard(i, "input")), outBox),
  );
  if (!live) return;
  const again = () => { if (decodeURIComponent(location.pathname).endsWith(id)) responsePage(ctx, id); };
  if (resp.background) { follow(ctx, id, outBox, again); return; }
  const timer = setTimeout(again, 1000); // a foreground run in another client: redrawn from the stored state
  ctx.onLeave(() => clearTimeout(timer));
}

// A background run's events as they happen (GET ...?stream=true replays them from the start, then
// follows): each output item is drawn when it is added and redrawn when done; at the end the page is
// drawn again from the stored response.
async function follow(ctx, id, outBox, again) {
  const stop = new AbortController();
  ctx.onLeave(() => stop.abort());
  const cards = new Map();
  const headers = authHeaders();
  try {
    const r = await fetch(`/v1/responses/${encodeURIComponent(id)}?stream=true`, { headers, signal: stop.signal });
    const reader = r.body.getReader();
    const text = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += text.decode(value, { stream: true });
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const frame = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const data = frame.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (!data || data === "[DONE]") continue;
        const ev = JSON.parse(data);
        if ((ev.type === "response.output_item.added" || ev.type === "response.output_item.done") && ev.item) {
          const card = itemCard(ev.item, "output");
          const old = cards.get(ev.output_index);
          if (old) old.replaceWith(card); else outBox.append(card);
          cards.set(ev.output_index, card);
        }
      }
    }
  } catch (e) {
    if (stop.signal.aborted) return;
  }
  if (!stop.signal.aborted) again();
}
