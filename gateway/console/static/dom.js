// Building the page: every value from the API goes in as text (textContent), never as markup.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v; // CSSOM: allowed by the page's CSP, a style attribute is not
    else el.setAttribute(k, v === true ? "" : v);
  }
  add(el, children);
  return el;
}

function add(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) add(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

const SVG = "http://www.w3.org/2000/svg";
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) el.setAttribute(k, v);
  }
  add(el, children);
  return el;
}

export const link = (href, text, attrs) => h("a", { href, ...(attrs || {}) }, text);
export const when = (t) => (t ? new Date(t * 1000).toLocaleString() : "—");
export const badge = (status) => h("span", { class: "badge " + (status || "") }, status || "—");
export const json = (v) => h("pre", { class: "mono" }, typeof v === "string" ? v : JSON.stringify(v, null, 2));
export function pretty(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}
export function errorBox(e) {
  return h("p", { class: "error" }, e.status === 404 ? "Not found." : String(e.message || e));
}
export const kv = (pairs) => h("dl", { class: "kv" }, pairs.filter((p) => p[1] !== undefined && p[1] !== null).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));

// Replace an element's children, skipping empty ones (null, false) as `h` does.
export function put(el, ...children) {
  el.replaceChildren();
  add(el, children);
  return el;
}
