// Vector stores: the list, and one store's files (ingestion status) with a search box and ranker choice.
import { api } from "../api.js";
import { badge, h, kv, link, when, put } from "../dom.js";

export async function storesPage(ctx) {
  const page = await api("/vector_stores", { query: { limit: 100 } });
  put(ctx.main, h("h1", {}, "Vector stores"),
    page.data.length ? h("table", {}, h("tr", {}, ["Store", "Name", "Files", "Status", "Created"].map((t) => h("th", {}, t))),
      page.data.map((v) => h("tr", {}, h("td", {}, link(`/console/vector_stores/${encodeURIComponent(v.id)}`, v.id, { class: "mono" })),
        h("td", {}, v.name || ""), h("td", {}, `${v.file_counts.completed}/${v.file_counts.total}`), h("td", {}, badge(v.status)), h("td", {}, when(v.created_at))))) : h("p", { class: "muted" }, "No vector stores."));
}

function breakdown(b) {
  if (!b) return "";
  return h("div", { class: "breakdown" }, Object.entries(b).map(([k, v]) => h("span", { class: "sig", title: k },
    k, " ", h("b", { class: "mono" }, typeof v === "number" ? v.toFixed(3) : JSON.stringify(v)),
    typeof v === "number" ? h("i", { style: `width:${Math.round(Math.max(0, Math.min(1, v)) * 40)}px` }) : null)));
}

export function searchBox(storeId, initial) {
  const q = h("input", { name: "query", placeholder: "search this store", size: 40, value: initial || "" });
  const ranker = h("select", { name: "ranker" }, ["auto", "kg", "none"].map((r) => h("option", { value: r }, r === "none" ? "hybrid (none)" : r)));
  const out = h("div", { class: "hits" });
  const run = async () => {
    put(out, h("p", { class: "muted" }, "Searching…"));
    try {
      const page = await api(`/vector_stores/${encodeURIComponent(storeId)}/search`, { method: "POST", body: { query: q.value, max_num_results: 10, ranking_options: { ranker: ranker.value } } });
      put(out, page.data.length ? h("table", {}, h("tr", {}, ["File", "Score", "Breakdown", "Passage"].map((t) => h("th", {}, t))),
        page.data.map((r) => h("tr", { class: "hit" }, h("td", {}, r.filename), h("td", {}, r.score.toFixed(3)), h("td", {}, breakdown(r.score_breakdown)),
          h("td", {}, h("div", { class: "mono" }, (r.content || []).map((c) => c.text).join(" ").slice(0, 400)))))) : h("p", { class: "muted" }, "No hits."));
    } catch (e) { put(out, h("p", { class: "error" }, e.message)); }
  };
  const form = h("form", { class: "bar", onsubmit: (ev) => { ev.preventDefault(); run(); } }, h("label", {}, "Query", q), h("label", {}, "Ranker", ranker), h("button", { type: "submit" }, "Search"));
  return { form, out, run, q, ranker };
}

export async function storePage(ctx, id) {
  const sid = encodeURIComponent(id);
  const [store, files, named] = await Promise.all([
    api(`/vector_stores/${sid}`), api(`/vector_stores/${sid}/files`, { query: { limit: 100 } }), api("/files", { query: { limit: 10000 } }),
  ]);
  const names = Object.fromEntries(named.data.map((f) => [f.id, f.filename]));
  const box = searchBox(id, ctx.params.get("q"));
  put(ctx.main, 
    h("h1", {}, "Vector store ", h("span", { class: "mono" }, store.id), " ", badge(store.status)),
    h("div", { class: "card" }, kv([["Name", store.name || "—"], ["Created", when(store.created_at)], ["Size", `${store.usage_bytes} bytes`],
      ["Files", `${store.file_counts.completed} completed, ${store.file_counts.in_progress} in progress, ${store.file_counts.failed} failed`],
      ["Knowledge graph", link(`/console/vector_stores/${sid}/graph`, "open the graph")]])),
    h("h2", {}, "Files"),
    h("table", { class: "files" }, h("tr", {}, ["File", "Name", "Status", "Bytes", "Error"].map((t) => h("th", {}, t))),
      files.data.map((f) => h("tr", {}, h("td", { class: "mono" }, f.id), h("td", {}, names[f.id] || ""), h("td", {}, badge(f.status)), h("td", {}, f.usage_bytes), h("td", { class: "error" }, f.last_error ? f.last_error.message : "")))),
    h("h2", {}, "Search"), box.form, box.out,
  );
  if (ctx.params.get("q")) await box.run();
}
