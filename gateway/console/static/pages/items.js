// One renderer for every kind of item (a response's input and output, a conversation's items).
import { h, json, pretty } from "../dom.js";

function text(content) {
  if (typeof content === "string") return content;
  return (content || []).map((p) => p.text ?? p.refusal ?? (p.type === "input_image" ? "[image]" : p.type === "input_file" ? `[file ${p.filename || p.file_id || ""}]` : "")).join("\n");
}

const TOOL = new Set(["function_call", "function_call_output", "mcp_call", "mcp_list_tools", "mcp_approval_request", "file_search_call", "web_search_call", "shell_call", "shell_call_output", "local_shell_call", "local_shell_call_output", "apply_patch_call", "apply_patch_call_output", "custom_tool_call", "custom_tool_call_output", "code_interpreter_call", "image_generation_call", "computer_call", "tool_search_call"]);

function body(item) {
  switch (item.type) {
    case "message":
      return [h("div", { class: "muted" }, item.role), h("pre", { class: "msg" }, text(item.content)),
        ...(item.content || []).flatMap((p) => (p.annotations || []).filter((a) => a.url).map((a) => h("div", { class: "muted" }, "cites ", h("a", { href: a.url, rel: "noreferrer", target: "_blank" }, a.title || a.url))))];
    case "reasoning":
      return [h("pre", {}, (item.summary || []).map((s) => s.text).join("\n") || text(item.content) || "(no summary)")];
    case "function_call":
    case "custom_tool_call":
      return [h("div", {}, h("b", {}, item.name), " ", h("span", { class: "muted mono" }, item.call_id || "")), h("div", { class: "muted" }, "arguments"), h("pre", { class: "args" }, pretty(item.arguments ?? item.input ?? ""))];
    case "function_call_output":
    case "custom_tool_call_output":
    case "shell_call_output":
    case "local_shell_call_output":
    case "apply_patch_call_output":
      return [h("div", { class: "muted mono" }, item.call_id || ""), h("pre", { class: "output" }, typeof item.output === "string" ? pretty(item.output) : JSON.stringify(item.output, null, 2))];
    case "mcp_call":
      return [h("div", {}, h("b", {}, `${item.server_label}.${item.name}`)), h("div", { class: "muted" }, "arguments"), h("pre", { class: "args" }, pretty(item.arguments || "")),
        item.error ? h("pre", { class: "error" }, typeof item.error === "string" ? item.error : JSON.stringify(item.error)) : [h("div", { class: "muted" }, "output"), h("pre", { class: "output" }, item.output ?? "")]];
    case "mcp_list_tools":
      return [h("div", {}, h("b", {}, item.server_label), ": ", (item.tools || []).map((t) => t.name).join(", "))];
    case "file_search_call":
      return [h("div", {}, "queries: ", h("b", {}, (item.queries || []).join(" · "))),
        item.results ? h("table", {}, h("tr", {}, h("th", {}, "file"), h("th", {}, "score"), h("th", {}, "passage")),
          item.results.map((r) => h("tr", {}, h("td", {}, r.filename || r.file_id), h("td", {}, (r.score ?? 0).toFixed(3)), h("td", {}, h("div", { class: "mono" }, (r.text || "").slice(0, 300)))))) : h("div", { class: "muted" }, "results not included (include file_search_call.results)")];
    case "web_search_call": {
      const a = item.action || {};
      return [h("div", {}, a.type || "search", ": ", h("b", {}, a.query || a.url || (a.queries || []).join(" · ") || "")),
        (a.sources || []).map((s) => h("div", {}, h("a", { href: s.url, rel: "noreferrer", target: "_blank" }, s.url)))];
    }
    case "shell_call":
    case "local_shell_call":
    case "apply_patch_call":
      return [h("div", { class: "muted mono" }, item.call_id || ""), json(item.action || item.operation || item)];
    default:
      return [json(item)];
  }
}

export function itemCard(item, role) {
  const tool = TOOL.has(item.type);
  const status = item.status && item.status !== "completed" ? ` · ${item.status}` : "";
  return h("div", { class: `card item ${tool ? "tool" : ""} ${role === "input" ? "input" : ""}`, "data-type": item.type },
    h("div", { class: "kind" }, (role ? role + " · " : "") + item.type.replaceAll("_", " ") + status), body(item));
}

export function preview(resp) {
  for (const it of resp.output || []) if (it.type === "message") return text(it.content).slice(0, 120);
  const tools = (resp.output || []).filter((i) => TOOL.has(i.type)).map((i) => i.name || i.type);
  return tools.length ? tools.join(", ") : "";
}
