// driftkit pages: live search results and the run follower. The pages work
// without this file (search is a GET form; a run page shows the events so
// far on reload).
"use strict";

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of kids) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function renderHits(box, hits) {
  box.replaceChildren();
  box.append(el("p", { class: "count", id: "count" }, hits.length + " results"));
  const ol = el("ol", { class: "hits" });
  for (const h of hits) {
    const li = el("li", { class: "hit" },
      el("div", { class: "head" }, el("span", { class: "kind" }, h.kind), " ",
        el("a", { class: "name", href: h.page }, h.name), " ", el("span", { class: "module" }, h.module || "")));
    if (h.signature) li.append(el("pre", { class: "sig" }, h.signature));
    if (h.informal_statement) {
      const p = el("p", { class: "informal" });
      if (h.informal_name) p.append(el("b", {}, h.informal_name), ": ");
      p.append(h.informal_statement);
      li.append(p);
    }
    li.append(el("p", { class: "provider" }, "informal text: " + h.provider_label + " · score " + h.score.toFixed(4)));
    ol.append(li);
  }
  box.append(ol);
}

function liveSearch() {
  const form = document.getElementById("search");
  const q = document.getElementById("q");
  const box = document.getElementById("results");
  if (!form || !q || !box) return;
  let timer = null, ctrl = null;
  const run = () => {
    const fd = new FormData(form);
    const text = (fd.get("q") || "").toString();
    if (text.trim() === "") return;
    const p = new URLSearchParams({ q: text, k: fd.get("k") || "20" });
    if (!fd.get("premises")) p.set("all_kinds", "1");
    const ws = fd.get("ws");
    if (ws) p.set("ws", ws);
    if (ctrl) ctrl.abort();
    ctrl = new AbortController();
    fetch("/api/search?" + p.toString(), { signal: ctrl.signal })
      .then(r => r.json().then(j => ({ ok: r.ok, j })))
      .then(({ ok, j }) => {
        if (!ok) { box.replaceChildren(el("p", { class: "error" }, j.error || "search failed")); return; }
        renderHits(box, j.hits);
        const page = new URLSearchParams(new FormData(form));
        history.replaceState(null, "", "/?" + page.toString());
      })
      .catch(e => { if (e.name !== "AbortError") box.replaceChildren(el("p", { class: "error" }, String(e))); });
  };
  q.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 250); });
}

function followRun() {
  const box = document.getElementById("run");
  if (!box) return;
  const id = box.dataset.id, ws = box.dataset.ws || "";
  const status = document.getElementById("run-status");
  const events = document.getElementById("events");
  const list = (id) => document.getElementById(id);
  const declLink = (name) => el("a", { href: "/decl/" + encodeURIComponent(name) + ws }, name);
  const show = (ev) => {
    const d = ev.data || {};
    events.append(el("li", { class: "ev-" + ev.type }, el("code", {}, ev.type), ev.stage ? " " + ev.stage : "",
      el("pre", { class: "data" }, JSON.stringify(d, null, 2))));
    switch (ev.type) {
      case "sub_queries":
        list("subqueries").replaceChildren(...(d.sub_queries || []).map(s => el("li", {}, s.informal, s.formal ? el("pre", { class: "sig" }, s.formal) : null)));
        break;
      case "premises":
        list("premises").replaceChildren(...(d.premises || []).map(p => el("li", {}, el("span", { class: "kind" }, p.kind || ""), " ", declLink(p.name),
          p.signature ? el("pre", { class: "sig" }, p.signature) : null)));
        break;
      case "illustrations":
        list("illustrations").replaceChildren(...(d.illustrations || []).map(i => el("li", {}, declLink(i.name), " ",
          el("span", { class: "meta" }, "covers " + (i.covers || []).join(", ")))));
        break;
      case "attempt":
      case "lean":
        list("attempts").append(el("li", {}, el("code", {}, ev.type), " ", d.statement ? el("pre", { class: "sig" }, d.statement) : "",
          d.pass !== undefined ? el("b", {}, d.pass ? "Lean: passes" : "Lean: fails") : ""));
        break;
      case "done": case "failed": case "cancelled":
        status.textContent = ev.type;
        status.className = "status-" + ev.type;
        break;
    }
  };
  events.replaceChildren();
  const src = new EventSource("/api/runs/" + encodeURIComponent(id) + "/events");
  for (const t of ["stage_started", "stage_finished", "sub_queries", "premises", "illustrations", "attempt", "lean", "log", "done", "failed", "cancelled"]) {
    src.addEventListener(t, (m) => {
      show(JSON.parse(m.data));
      if (t === "done" || t === "failed" || t === "cancelled") src.close();
    });
  }
}

document.addEventListener("DOMContentLoaded", () => { liveSearch(); followRun(); });
