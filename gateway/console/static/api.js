// The console's only way to the gateway: the public /v1 API with the signed-in key.
// The key lives in sessionStorage (this tab's session only): never in the URL, never in localStorage.
const KEY = "gateway-console-key";
const ROLE = "gateway-console-role";
const PROJECT = "gateway-console-project";

export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  get role() { return sessionStorage.getItem(ROLE) || "project"; },
  // the project the admin key acts in (sent as OpenAI-Project); a project key has its own
  get project() { return sessionStorage.getItem(PROJECT) || "default"; },
  set project(p) { sessionStorage.setItem(PROJECT, p); },
  set(key, role) { sessionStorage.setItem(KEY, key); sessionStorage.setItem(ROLE, role); },
  clear() { for (const k of [KEY, ROLE, PROJECT]) sessionStorage.removeItem(k); },
};

export function authHeaders(key) {
  const token = key === undefined ? session.key : key;
  const headers = {};
  if (token) headers.Authorization = "Bearer " + token;
  if (token && key === undefined && session.role === "admin") headers["OpenAI-Project"] = session.project;
  return headers;
}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

function url(path, query) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) {
    for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined && one !== null && one !== "") qs.append(k, one);
  }
  const s = qs.toString();
  return "/v1" + path + (s ? "?" + s : "");
}

export async function api(path, { method = "GET", body, query, key } = {}) {
  const headers = authHeaders(key);
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(url(path, query), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { error: { message: text } }; }
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

// Who a key is: the admin key reads the key routes (and any project's data); a project key its project's.
export async function probe(key) {
  try { await api("/organization/projects/default/api_keys", { query: { limit: 1 }, key }); return "admin"; } catch (e) { if (e.status !== 401 && e.status !== 404) throw e; }
  try { await api("/responses", { query: { limit: 1 }, key }); return "project"; } catch (e) { if (e.status !== 401) throw e; }
  return null;
}
