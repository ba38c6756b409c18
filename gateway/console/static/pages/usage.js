// Usage (admin): tokens and cost per day, by project and model, from OpenAI's usage and costs shapes
// (GET /v1/organization/usage/completions, /v1/organization/costs). A gateway without the usage
// ledger answers 404 there, and the page says so.
import { api } from "../api.js";
import { h, s, put } from "../dom.js";

const DAYS = 30;

function bars(buckets, value, label) {
  const W = 900, H = 180, pad = 40;
  const totals = buckets.map((b) => b.results.reduce((a, r) => a + value(r), 0));
  const max = Math.max(1, ...totals);
  const bw = (W - pad) / Math.max(1, buckets.length);
  return s("svg", { class: "chart", viewBox: `0 0 ${W} ${H + 24}`, role: "img", "aria-label": label },
    s("text", { x: 4, y: 12 }, `${label} (max ${max.toLocaleString()})`),
    ...buckets.map((b, i) => {
      const hgt = (totals[i] / max) * (H - 20);
      return s("g", {}, s("rect", { x: pad + i * bw + 1, y: H - hgt, width: Math.max(1, bw - 2), height: hgt, fill: "#2f6fed" },
        s("title", {}, `${new Date(b.start_time * 1000).toLocaleDateString()}: ${totals[i].toLocaleString()}`)),
      i % 5 === 0 ? s("text", { x: pad + i * bw, y: H + 16 }, new Date(b.start_time * 1000).toLocaleDateString(undefined, { month: "short", day: "numeric" })) : null);
    }));
}

function totalsBy(buckets, keys, value) {
  const out = new Map();
  for (const b of buckets) for (const r of b.results) {
    const k = keys.map((x) => r[x] ?? "—").join(" · ");
    out.set(k, (out.get(k) || 0) + value(r));
  }
  return [...out.entries()].sort((a, b) => b[1] - a[1]);
}

export async function usagePage(ctx) {
  const start = Math.floor(Date.now() / 1000 / 86400 - DAYS + 1) * 86400;
  let usage, costs;
  try {
    [usage, costs] = await Promise.all([
      api("/organization/usage/completions", { query: { start_time: start, bucket_width: "1d", group_by: ["project_id", "model"], limit: DAYS } }),
      api("/organization/costs", { query: { start_time: start, bucket_width: "1d", group_by: ["project_id"], limit: DAYS } }).catch((e) => (e.status === 404 ? null : Promise.reject(e))),
    ]);
  } catch (e) {
    if (e.status !== 404) throw e;
    put(ctx.main, h("h1", {}, "Usage"), h("p", { class: "card" }, "Usage is not recorded by this gateway."), h("p", { class: "muted" }, e.message));
    return;
  }
  const tokens = (r) => (r.input_tokens || 0) + (r.output_tokens || 0);
  const money = (r) => (r.amount ? Number(r.amount.value) : 0);
  const cur = costs?.data?.flatMap((b) => b.results).find((r) => r.amount)?.amount.currency || "usd";
  put(ctx.main, h("h1", {}, `Usage, last ${DAYS} days`),
    bars(usage.data, tokens, "tokens per day"),
    h("h2", {}, "Tokens by project and model"),
    h("table", { class: "usage" }, h("tr", {}, h("th", {}, "project · model"), h("th", {}, "tokens"), h("th", {}, "requests")),
      totalsBy(usage.data, ["project_id", "model"], tokens).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, v.toLocaleString()),
        h("td", {}, totalsBy(usage.data, ["project_id", "model"], (r) => r.num_model_requests || 0).find(([x]) => x === k)?.[1] ?? "")))),
    costs ? [bars(costs.data, money, `cost per day (${cur})`), h("h2", {}, "Cost by project"),
      h("table", {}, totalsBy(costs.data, ["project_id"], money).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, `${v.toFixed(4)} ${cur}`))))] : h("p", { class: "muted" }, "Costs are not recorded by this gateway."));
}
