// The referee page: plain JS, no build step. Talks to the REST API and the SSE live feed.
"use strict";

const BALLS = [..."123456789"].concat(["10", "11", "12", "13", "14", "15"]);
const POCKETS = ["front_left", "front_right", "middle_left", "middle_right", "rear_left", "rear_right"];
const CUSHIONS = ["front", "rear", "left_front", "left_rear", "right_front", "right_rear"];
let current = null;  // selected match id
let source = null;   // EventSource

const $ = (sel) => document.querySelector(sel);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  const res = await fetch(path, opts);
  const data = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text();
  if (!res.ok) {
    const detail = typeof data === "object" && data.detail !== undefined ? data.detail : data;
    throw new Error(typeof detail === "string" ? detail : JSON.stringify(detail));
  }
  return data;
}

function fillSelect(select, values) { select.replaceChildren(...values.map((v) => { const o = el("option", v); o.value = v; return o; })); }

async function loadMeta() {
  const meta = await api("GET", "/meta");
  fillSelect($("#games"), meta.games); $("#games").value = meta.default_game;
  fillSelect($("#tables"), meta.tables); $("#tables").value = "pyramid-12ft";
  document.querySelectorAll(".balls").forEach((s) => fillSelect(s, BALLS));
  document.querySelectorAll(".pockets").forEach((s) => fillSelect(s, POCKETS));
  document.querySelectorAll(".cushions").forEach((s) => fillSelect(s, CUSHIONS));
}

async function loadMatches() {
  const list = await api("GET", "/matches");
  const ul = $("#matches");
  ul.replaceChildren(...list.map((m) => {
    const li = el("li", `#${m.id} ${m.name} (${m.game})`);
    li.dataset.id = m.id; if (m.id === current) li.className = "sel";
    li.onclick = () => selectMatch(m.id);
    if (m.report_url) { const a = el("a", " report"); a.href = m.report_url; a.target = "_blank"; li.append(a); }
    return li;
  }));
}

function showState(state) {
  if (!state) return;
  const score = state.score || {};
  $("#score").textContent = Object.keys(score).length ? Object.entries(score).map(([p, s]) => `${p} ${s}`).join(" : ") : "–";
  $("#to-play").textContent = state.to_play ? `to play: ${state.to_play}` : "";
  $("#owed").replaceChildren(...(state.owed || []).map((o) => el("li", typeof o === "string" ? o : JSON.stringify(o))));
  $("#fold-error").textContent = state.error || "";
}

function showVerdicts(verdicts) {
  $("#verdicts").replaceChildren(...verdicts.map((v) => {
    const tr = el("tr"); const foul = !["legal", "ok", "pot", "break"].includes(String(v.outcome).toLowerCase());
    tr.className = (foul ? "foul" : "") + (v.review ? " review" : "");
    tr.append(el("td", v.shot), el("td", v.outcome + (v.review ? " (review)" : "")), el("td", (v.clauses || []).join(", ")), el("td", v.explanation || ""));
    return tr;
  }));
}

function feedLine(text) {
  const li = el("li", text); const ol = $("#feed"); ol.prepend(li);
  while (ol.children.length > 300) ol.lastChild.remove();
}

function describe(kind, d) {
  if (kind === "event") {
    const who = d.balls ? d.balls.join("-") : (d.ball || "");
    return `${Number(d.t).toFixed(2)}s ${d.type} ${who} ${d.cushion || d.pocket || d.line || ""}`.trim();
  }
  return `input: ${d.type} ${Object.entries(d).filter(([k]) => k !== "type").map(([k, v]) => `${k}=${v}`).join(" ")}`;
}

function connectFeed(id) {
  if (source) source.close();
  source = new EventSource(`/live/${id}`);
  source.onopen = () => { $("#conn").textContent = "live"; $("#conn").className = "on"; };
  source.onerror = () => { $("#conn").textContent = "reconnecting"; $("#conn").className = ""; };
  for (const kind of ["event", "input"]) {
    source.addEventListener(kind, (m) => { const item = JSON.parse(m.data); feedLine(describe(kind, item.data)); });
  }
  source.addEventListener("verdicts", (m) => {
    const item = JSON.parse(m.data); showVerdicts(item.data);
    const last = item.data[item.data.length - 1];
    if (last) feedLine(`verdict shot ${last.shot}: ${last.outcome} ${(last.clauses || []).join(", ")}`);
  });
  source.addEventListener("state", (m) => showState(JSON.parse(m.data).data));
  source.addEventListener("progress", (m) => { const p = JSON.parse(m.data).data; $("#analysis-status").textContent = `analysis ${p.analysis}: ${(100 * p.progress).toFixed(0)} %`; });
  source.addEventListener("reconnect", () => { source.close(); setTimeout(() => connectFeed(id), 500); });
}

async function selectMatch(id) {
  current = id;
  const m = await api("GET", `/matches/${id}`);
  $("#match").hidden = false;
  $("#match-title").textContent = `#${m.id} ${m.name} — ${m.game}, ${m.table}, ${m.players.join(" v ")}`;
  $("#report").replaceChildren(m.report_url ? Object.assign(el("a", "open report"), { href: m.report_url, target: "_blank" }) : el("span", "none yet"));
  $("#feed").replaceChildren();
  showState(m.state);
  showVerdicts(await api("GET", `/matches/${id}/verdicts`));
  connectFeed(id);
  loadMatches();
}

function formData(form) {
  const d = {}; for (const [k, v] of new FormData(form).entries()) d[k] = v; return d;
}

function wireInputs() {
  document.querySelectorAll(".input-form").forEach((form) => form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (current === null) return;
    const body = { type: form.dataset.type, ...formData(form) };
    if (body.shot !== undefined) body.shot = Number(body.shot);
    if (body.type === "override") {  // the engine's override: {shot, verdict: {legal | fouls}, reason}
      body.verdict = body.outcome === "legal" ? { legal: true } : { legal: false, clause: body.clause || "override" };
      delete body.outcome;
    }
    const out = $("#input-result");
    try {
      const row = await api("POST", `/matches/${current}/inputs`, body);
      out.textContent = `recorded: ${row.type} (#${row.seq})`; out.className = "ok";
    } catch (e) { out.textContent = `refused: ${e.message}`; out.className = "err"; }
  }));
  $("#new-match").addEventListener("submit", async (ev) => {
    ev.preventDefault(); const d = formData(ev.target);
    try {
      const m = await api("POST", "/matches", { name: d.name, game: d.game, table: d.table, players: [d.p1, d.p2] });
      await selectMatch(m.id);
    } catch (e) { alert(e.message); }
  });
  $("#new-analysis").addEventListener("submit", async (ev) => {
    ev.preventDefault(); const d = formData(ev.target);
    try {
      const a = await api("POST", "/analyses", { video_path: d.video_path });
      $("#analysis-status").textContent = `analysis ${a.id}: ${a.status}`;
      await selectMatch(a.match_id);
      pollAnalysis(a.id);
    } catch (e) { $("#analysis-status").textContent = `refused: ${e.message}`; }
  });
}

async function pollAnalysis(id) {
  const a = await api("GET", `/analyses/${id}`);
  $("#analysis-status").textContent = `analysis ${a.id}: ${a.status} ${a.message}`;
  if (a.status === "queued" || a.status === "running") setTimeout(() => pollAnalysis(id), 1500);
  else loadMatches();
}

(async () => {
  wireInputs();
  await loadMeta();
  await loadMatches();
  const want = Number(new URLSearchParams(location.search).get("match"));
  if (want) await selectMatch(want);
})();
