// The console's shell: sign-in, navigation and the router (each page has a stable URL under /console/).
import { api, probe, session } from "./api.js";
import { h, put } from "./dom.js";
import { responsesPage, responsePage } from "./pages/responses.js";
import { conversationPage } from "./pages/conversation.js";
import { storesPage, storePage } from "./pages/stores.js";
import { graphPage } from "./pages/graph.js";
import { researchPage } from "./pages/research.js";
import { usagePage } from "./pages/usage.js";
import { keysPage } from "./pages/keys.js";

const ROUTES = [
  [/^\/console\/responses\/?$/, responsesPage],
  [/^\/console\/responses\/([^/]+)$/, responsePage],
  [/^\/console\/conversations\/([^/]+)$/, conversationPage],
  [/^\/console\/vector_stores\/?$/, storesPage],
  [/^\/console\/vector_stores\/([^/]+)\/graph$/, graphPage],
  [/^\/console\/vector_stores\/([^/]+)$/, storePage],
  [/^\/console\/research\/?$/, researchPage],
  [/^\/console\/usage\/?$/, usagePage],
  [/^\/console\/keys\/?$/, keysPage],
];
const NAV = [
  ["Responses", "/console/responses", "project"],
  ["Research", "/console/research", "project"],
  ["Vector stores", "/console/vector_stores", "project"],
  ["Usage", "/console/usage", "admin"],
  ["Keys", "/console/keys", "admin"],
];

// "none" (no sign-in), "keys" (a key is needed), null (not known yet: the first page's own API call
// tells, a 401 meaning keys; no probe of its own, so a reload costs no extra round trip)
let mode = session.key ? "keys" : null;
let stop = null; // the current page's cleanup (a live view's timer)

export function go(path) {
  history.pushState(null, "", path);
  render();
}

function nav() {
  const role = mode !== "keys" ? "project" : session.role; // with auth off there is no admin key to send
  const el = document.getElementById("nav");
  put(el, 
    ...NAV.filter(([, , need]) => role === "admin" || need === role).map(([t, href]) =>
      h("a", { href, class: location.pathname.startsWith(href) ? "on" : "" }, t)),
  );
  const who = document.getElementById("who");
  put(who);
  if (mode === "keys" && session.key) {
    const project = h("input", { id: "project", name: "project", value: session.project, size: 14, title: "the project the admin key acts in" });
    const pick = h("form", { class: "pick", onsubmit: (ev) => { ev.preventDefault(); session.project = project.value.trim() || "default"; render(); } },
      h("label", { for: "project" }, "Acting in", project));
    if (session.role === "admin") who.append(pick);
    who.append(session.role === "admin" ? "admin key" : "project key",
      h("button", { class: "plain", onclick: () => { session.clear(); go("/console/"); } }, "Sign out"));
  }
}

function signIn(main) {
  const key = h("input", { type: "password", id: "api-key", name: "api-key", autocomplete: "off", required: true });
  const msg = h("p", { class: "error" });
  const form = h("form", {
    onsubmit: async (ev) => {
      ev.preventDefault();
      msg.textContent = "";
      try {
        const role = await probe(key.value.trim());
        if (!role) { msg.textContent = "That key was not accepted."; return; }
        session.set(key.value.trim(), role);
        const target = location.pathname.replace(/\/+$/, "");
        go(target === "/console" ? "/console/responses" : location.pathname + location.search);
      } catch (e) { msg.textContent = String(e.message || e); }
    },
  }, h("label", { for: "api-key" }, "API key", key), h("button", { type: "submit" }, "Sign in"), msg);
  put(main, h("div", { class: "signin card" }, h("h1", {}, "Sign in"), form));
}

async function detectMode() {
  try { await api("/responses", { query: { limit: 1 }, key: null }); return "none"; } catch (e) { return e.status === 401 ? "keys" : "none"; }
}

export async function render() {
  if (stop) { stop(); stop = null; }
  document.body.dataset.ready = "0";
  const main = document.getElementById("main");
  nav();
  if (mode === null && /^\/console\/(usage|keys)/.test(location.pathname)) mode = await detectMode(); // admin pages
  if (mode === "keys" && !session.key) { signIn(main); return; }
  let path = location.pathname;
  if (path === "/console" || path === "/console/") {
    path = "/console/responses";
    history.replaceState(null, "", path);
    nav();
  }
  for (const [re, page] of ROUTES) {
    const m = path.match(re);
    if (!m) continue;
    put(main, h("p", { class: "muted" }, "Loading…"));
    const ctx = { main, go, params: new URLSearchParams(location.search), onLeave: (f) => { stop = f; } };
    try { await page(ctx, ...m.slice(1).map(decodeURIComponent)); } catch (e) {
      if (e.status === 401 && mode !== "none") { mode = "keys"; session.clear(); nav(); signIn(main); return; }
      put(main, h("p", { class: "error" }, e.status === 404 ? "Not found." : String(e.message || e)));
    }
    if (mode === null) { mode = "none"; nav(); } // answered without a key: authentication is off
    document.body.dataset.page = re.source;
    document.body.dataset.ready = "1";
    return;
  }
  put(main, h("p", {}, "No such page. ", h("a", { href: "/console/responses" }, "Responses")));
}

// Same-origin console links navigate in place.
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[href^='/console']");
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || a.target) return;
  ev.preventDefault();
  go(a.getAttribute("href"));
});
window.addEventListener("popstate", render);
render();
