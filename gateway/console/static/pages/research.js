// Research runs (responses of the research models): queued and running first, live, then recent ones.
import { api } from "../api.js";
import { h, put } from "../dom.js";
import { responseTable } from "./responses.js";

const MODELS = ["research", "deep-research"];

export async function researchPage(ctx) {
  const [active, recent] = await Promise.all([
    api("/responses", { query: { model: MODELS, status: ["queued", "in_progress"], limit: 50 } }),
    api("/responses", { query: { model: MODELS, limit: 30 } }),
  ]);
  const sources = (r) => (r.output || []).filter((i) => i.type === "web_search_call" || i.type === "file_search_call" || i.type === "mcp_call").length;
  const rounds = (r) => (r.output || []).filter((i) => i.type === "reasoning").length;
  const withCounts = (rows) => {
    const t = responseTable(rows);
    t.querySelector("tr").append(h("th", {}, "Progress notes"), h("th", {}, "Searches"));
    [...t.querySelectorAll("tr")].slice(1).forEach((tr, i) => tr.append(h("td", {}, rounds(rows[i])), h("td", {}, sources(rows[i]))));
    return t;
  };
  put(ctx.main, h("h1", {}, "Research"),
    h("h2", {}, "Queued and running ", active.data.length ? h("span", { class: "live" }, "live") : null),
    active.data.length ? withCounts(active.data) : h("p", { class: "muted" }, "Nothing is running."),
    h("h2", {}, "Recent runs"),
    recent.data.length ? withCounts(recent.data) : h("p", { class: "muted" }, "No research runs yet: ask for model \"research\" or \"deep-research\" with a data source."));
  if (active.data.length) {
    const timer = setTimeout(() => { if (location.pathname.startsWith("/console/research")) researchPage(ctx); }, 1500);
    ctx.onLeave(() => clearTimeout(timer));
  }
}
