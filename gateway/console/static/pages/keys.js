// API keys (admin): list a project's keys, mint one (its value is shown once), revoke.
import { api, session } from "../api.js";
import { h, when, put } from "../dom.js";

export async function keysPage(ctx) {
  const project = ctx.params.get("project") || session.project;
  const base = `/organization/projects/${encodeURIComponent(project)}/api_keys`;
  const keys = [];
  let after;
  for (let i = 0; i < 20; i++) {
    const page = await api(base, { query: { limit: 100, after } });
    keys.push(...page.data);
    if (!page.has_more) break;
    after = page.last_id;
  }
  const shown = h("div", {});
  const pick = h("form", { class: "bar", onsubmit: (ev) => { ev.preventDefault(); ctx.go("/console/keys?project=" + encodeURIComponent(pick.elements.project.value)); } },
    h("label", {}, "Project", h("input", { name: "project", value: project })), h("button", { class: "plain", type: "submit" }, "Show"));
  const mint = h("form", { class: "bar", onsubmit: async (ev) => {
    ev.preventDefault();
    const body = { name: mint.elements.name.value };
    if (mint.elements.expires.value) body.expires_in = mint.elements.expires.value;
    try {
      const made = await api(base, { method: "POST", body });
      await keysPage(ctx);
      ctx.main.querySelector(".minted").replaceChildren(h("div", { class: "card" }, "New key (shown once, copy it now): ", h("code", { class: "new-key" }, made.value)));
    } catch (e) { put(shown, h("p", { class: "error" }, e.message)); }
  } }, h("label", {}, "Name", h("input", { name: "name", placeholder: "what it is for" })),
  h("label", {}, "Expires in", h("input", { name: "expires", placeholder: "e.g. 30d (optional)", size: 12 })), h("button", { type: "submit" }, "Mint key"));
  const revoke = async (k) => {
    if (!confirm(`Revoke ${k.name || k.id}? Clients using it stop within a second.`)) return;
    await api(`${base}/${encodeURIComponent(k.id)}`, { method: "DELETE" });
    await keysPage(ctx);
  };
  put(ctx.main, h("h1", {}, "API keys"), pick, h("h2", {}, `Mint a key for ${project}`), mint, h("div", { class: "minted" }), shown,
    h("h2", {}, `Keys of ${project}`),
    keys.length ? h("table", { class: "keys" }, h("tr", {}, ["Name", "Key", "Created", "Last used", "Expires", "State", ""].map((t) => h("th", {}, t))),
      keys.map((k) => h("tr", { "data-id": k.id }, h("td", {}, k.name || "—"), h("td", { class: "mono" }, k.redacted_value || k.id), h("td", {}, when(k.created_at)),
        h("td", {}, when(k.last_used_at)), h("td", {}, k.expires_at ? when(k.expires_at) : "never"), h("td", {}, k.revoked_at ? "revoked" : "active"),
        h("td", {}, k.revoked_at ? "" : h("button", { class: "plain", onclick: () => revoke(k) }, "Revoke"))))) : h("p", { class: "muted" }, "No keys for this project."));
}
