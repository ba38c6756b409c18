// A vector store's knowledge graph as an SVG: entities as labelled circles, relations as labelled
// edges, a small force layout written here (no library). Click an entity to expand its neighbours
// and to see the passages that mention it (a `kg` search for its name).
import { api } from "../api.js";
import { h, link, s, put } from "../dom.js";

const W = 1000;
const H = 560;

class Graph {
  constructor() { this.nodes = new Map(); this.edges = new Map(); }
  node(name, type, extra) {
    let n = this.nodes.get(name);
    if (!n) {
      const a = this.nodes.size * 2.399; // golden-angle spiral: a stable, spread start
      const r = 30 + 18 * Math.sqrt(this.nodes.size);
      n = { name, type, x: W / 2 + r * Math.cos(a), y: H / 2 + r * Math.sin(a), vx: 0, vy: 0 };
      this.nodes.set(name, n);
    }
    Object.assign(n, extra || {});
    if (type && !n.type) n.type = type;
    return n;
  }
  add(entity, seed) {
    this.node(entity.name, entity.type, { count: entity.mention_count, seed: seed || this.nodes.get(entity.name)?.seed, expanded: true });
    for (const nb of entity.neighbours || []) {
      this.node(nb.name, nb.type);
      const [a, b] = nb.direction === "out" ? [entity.name, nb.name] : [nb.name, entity.name];
      this.edges.set(`${a}\u0000${b}\u0000${nb.relation}`, { a, b, relation: nb.relation, weight: nb.weight });
    }
  }
  layout(steps = 250) {
    const nodes = [...this.nodes.values()];
    const edges = [...this.edges.values()];
    for (let t = 0; t < steps; t++) {
      const cool = 1 - t / steps;
      for (let i = 0; i < nodes.length; i++) {
        for (let j = i + 1; j < nodes.length; j++) {
          const p = nodes[i], q = nodes[j];
          let dx = p.x - q.x, dy = p.y - q.y;
          const d2 = Math.max(dx * dx + dy * dy, 25);
          const f = 6000 / d2;
          dx *= f / Math.sqrt(d2); dy *= f / Math.sqrt(d2);
          p.vx += dx; p.vy += dy; q.vx -= dx; q.vy -= dy;
        }
      }
      for (const e of edges) {
        const p = this.nodes.get(e.a), q = this.nodes.get(e.b);
        const dx = q.x - p.x, dy = q.y - p.y, d = Math.max(Math.hypot(dx, dy), 1);
        const f = (d - 140) * 0.02;
        p.vx += (dx / d) * f; p.vy += (dy / d) * f; q.vx -= (dx / d) * f; q.vy -= (dy / d) * f;
      }
      for (const n of nodes) {
        n.vx += (W / 2 - n.x) * 0.004; n.vy += (H / 2 - n.y) * 0.004;
        n.x = Math.min(W - 60, Math.max(60, n.x + Math.max(-20, Math.min(20, n.vx)) * cool));
        n.y = Math.min(H - 20, Math.max(20, n.y + Math.max(-20, Math.min(20, n.vy)) * cool));
        n.vx *= 0.5; n.vy *= 0.5;
      }
    }
    this.fit(nodes);
  }
  fit(nodes) { // stretch the drawing over the picture, leaving room for the names on the right
    if (nodes.length < 2) return;
    const xs = nodes.map((n) => n.x), ys = nodes.map((n) => n.y);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    for (const n of nodes) {
      n.x = 40 + ((n.x - x0) / Math.max(1, x1 - x0)) * (W - 200);
      n.y = 30 + ((n.y - y0) / Math.max(1, y1 - y0)) * (H - 60);
    }
  }
}

export async function graphPage(ctx, id) {
  const sid = encodeURIComponent(id);
  const store = await api(`/vector_stores/${sid}`);
  const g = new Graph();
  let selected = null;
  const svg = s("svg", { class: "graph", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "knowledge graph" });
  const side = h("div", { class: "side" });
  const q = h("input", { name: "entity", placeholder: "entity name contains…", value: ctx.params.get("q") || "" });

  const entities = (query, limit) => api(`/vector_stores/${sid}/entities`, { query: { query, limit } });
  const draw = () => {
    g.layout();
    const edges = [...g.edges.values()].map((e) => {
      const p = g.nodes.get(e.a), r = g.nodes.get(e.b);
      return s("g", { class: "edge" + (e.relation === "co_occurs" ? " co" : "") },
        s("line", { x1: p.x, y1: p.y, x2: r.x, y2: r.y }),
        e.relation === "co_occurs" ? null : s("text", { x: (p.x + r.x) / 2, y: (p.y + r.y) / 2 - 3, "text-anchor": "middle" }, e.relation));
    });
    const nodes = [...g.nodes.values()].map((n) => s("g", { class: "node" + (n.seed ? " seed" : "") + (n === selected ? " sel" : ""), "data-name": n.name, transform: `translate(${n.x},${n.y})`, onclick: () => choose(n.name) },
      s("title", {}, `${n.name} (${n.type || "entity"})`), s("circle", { r: 6 + Math.min(10, Math.sqrt(n.count || 1) * 2) }), s("text", { x: 12, y: 4 }, n.name)));
    put(svg, ...edges, ...nodes);
  };
  const choose = async (name) => {
    const found = (await entities(name, 5)).data.find((e) => e.name === name);
    if (found) g.add(found);
    selected = g.nodes.get(name);
    draw();
    put(side, h("h2", {}, name), h("div", { class: "muted" }, `${found?.type || "entity"} · ${found?.mention_count ?? "?"} mentions`),
      found ? h("ul", {}, found.neighbours.map((nb) => h("li", {}, nb.direction === "out" ? `${nb.relation} → ` : `← ${nb.relation} `, h("a", { href: "#", onclick: (ev) => { ev.preventDefault(); choose(nb.name); } }, nb.name)))) : null,
      h("h2", {}, "Passages"), h("p", { class: "muted" }, "Searching…"));
    const hits = await api(`/vector_stores/${sid}/search`, { method: "POST", body: { query: name, max_num_results: 5, ranking_options: { ranker: "kg" } } });
    side.lastChild.replaceWith(h("div", { class: "passages" }, hits.data.map((r) => h("div", { class: "card" }, h("b", {}, r.filename), h("div", { class: "mono" }, (r.content || []).map((c) => c.text).join(" ").slice(0, 300))))));
  };
  const start = async () => {
    g.nodes.clear(); g.edges.clear(); selected = null;
    const page = await entities(q.value.trim() || undefined, q.value.trim() ? 15 : 12);
    page.data.forEach((e) => g.add(e, true));
    draw();
    put(side, h("p", { class: "muted" }, page.data.length ? "Click an entity to expand it and see its passages." : "No entities (is the graph on and the files ingested?)"));
  };
  const form = h("form", { class: "bar", onsubmit: (ev) => { ev.preventDefault(); start(); } }, h("label", {}, "Entity", q), h("button", { type: "submit" }, "Find"));
  put(ctx.main, h("h1", {}, "Knowledge graph of ", link(`/console/vector_stores/${sid}`, store.name || store.id)), form,
    h("div", { class: "cols" }, svg, side));
  await start();
}
