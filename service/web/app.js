// The referee page: plain JS, no build step. Talks to the REST API and the SSE live feed.
"use strict";

const BALLS = [..."123456789"].concat(["10", "11", "12", "13", "14", "15"]);
const POCKETS = ["front_left", "front_right", "middle_left", "middle_right", "rear_left", "rear_right"];
const CUSHIONS = ["front", "rear", "left_front", "left_rear", "right_front", "right_rear"];
let current = null;  // selected match id
let source = null;   // EventSource
let lastSeq = 0;     // last log line received: a reconnect replays only what came after it
let retryMs = 1000;  // back-off for a reconnect the browser does not do itself
let retryTimer = null;
let announced = new Map();  // shot -> what the feed last said of its verdict (a re-fold repeats them)

const $ = (sel) => document.querySelector(sel);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body instanceof FormData) opts.body = body;  // multipart: the browser sets the boundary
  else if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
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
  document.querySelectorAll(".balls-all").forEach((s) => fillSelect(s, [...BALLS, "C"]));
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
  // a lag is no shot (no verdict row): who won it, and why on hover
  const lags = state.lags || [];
  $("#lag").textContent = lags.map((l) => l.replay ? `lag (${l.purpose}): replayed (1.7.3)`
    : `lag (${l.purpose}) won by ${l.winner}`).join("; ");
  $("#lag").title = lags.map((l) => l.text || "").join("\n");
  $("#fold-error").textContent = state.error || "";
}

function isFoul(v) { return !["legal", "ok", "pot", "break"].includes(String(v.outcome).toLowerCase()); }

function showVerdicts(verdicts) {
  $("#verdicts").replaceChildren(...verdicts.map((v) => {
    const tr = el("tr");
    tr.className = (isFoul(v) ? "foul" : "") + (v.review ? " review" : "");
    tr.dataset.shot = v.shot;
    const why = el("td", undefined, "why");
    why.append(el("div", v.explanation || ""));
    if (v.review) {  // the evidence the flag rests on, so the referee knows what to look at
      const reasons = v.review_reasons && v.review_reasons.length ? v.review_reasons : ["(no reason given)"];
      const ul = el("ul", undefined, "review-reasons"); ul.dataset.testid = "review-reasons";
      ul.append(...reasons.map((r) => el("li", r)));
      why.append(el("b", "review:"), ul);
    }
    if (v.override) why.append(el("div", `overridden: ${v.override.reason || ""}`, "override"));
    tr.append(el("td", v.shot), el("td", v.outcome + (v.review ? " (review)" : "")), el("td", (v.clauses || []).join(", ")), why);
    return tr;
  }));
}

function announceVerdicts(verdicts) {
  for (const v of verdicts) {  // only verdicts that are new or changed since the feed last said them
    const says = `verdict shot ${v.shot}: ${v.outcome} ${(v.clauses || []).join(", ")}${v.review ? " (review)" : ""}`.trim();
    if (announced.get(v.shot) !== says) { announced.set(v.shot, says); feedLine(says); }
  }
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
  if (d.type === "camera") return `CAMERA MOVED at ${Number(d.t).toFixed(2)}s: verdicts from then on are flagged for review`;
  const show = (v) => (v !== null && typeof v === "object" ? JSON.stringify(v) : v);
  return `input: ${d.type} ${Object.entries(d).filter(([k]) => k !== "type").map(([k, v]) => `${k}=${show(v)}`).join(" ")}`;
}

// A knocked camera (a `camera` line in the log): the whole match is shown as degraded, saying from when and why.
function showDegraded(d) {
  const p = $("#degraded");
  p.textContent = `Degraded analysis: the camera moved at ${Number(d.t).toFixed(2)} s. ${d.why || ""}`.trim();
  p.hidden = false;
}

function setConn(text, on) { $("#conn").textContent = text; $("#conn").className = on ? "on" : ""; }

function connectFeed(id) {
  if (source) source.close();
  clearTimeout(retryTimer);
  // The feed replays the log after `after` (and the browser's own reconnects send Last-Event-ID), so
  // nothing is shown twice and nothing is missed.
  const es = new EventSource(`/live/${id}?after=${lastSeq}`);
  source = es;
  const mine = (f) => (m) => { if (source === es) f(m); };  // ignore a feed replaced by a newer one
  const seen = (m) => { const n = Number(m.lastEventId); if (n > lastSeq) lastSeq = n; };
  es.onopen = mine(() => { setConn("live", true); retryMs = 1000; });
  es.onerror = mine(() => {
    if (es.readyState === EventSource.CLOSED) {  // the browser gave up (e.g. an error page while restarting)
      setConn(`offline, retrying in ${Math.round(retryMs / 1000)} s`, false);
      retryTimer = setTimeout(() => { if (current === id) connectFeed(id); }, retryMs);
      retryMs = Math.min(2 * retryMs, 15000);
    } else setConn("reconnecting", false);
  });
  for (const kind of ["event", "input"]) {
    es.addEventListener(kind, mine((m) => {
      seen(m); const item = JSON.parse(m.data); feedLine(describe(kind, item.data));
      if (kind === "input" && item.data.type === "camera") showDegraded(item.data);
    }));
  }
  es.addEventListener("verdicts", mine((m) => { const item = JSON.parse(m.data); showVerdicts(item.data); announceVerdicts(item.data); }));
  es.addEventListener("state", mine((m) => { showState(JSON.parse(m.data).data); setConn("live", true); }));
  es.addEventListener("progress", mine((m) => { const p = JSON.parse(m.data).data; $("#analysis-status").textContent = `analysis ${p.analysis}: ${(100 * p.progress).toFixed(0)} %`; }));
  es.addEventListener("reconnect", mine(() => { es.close(); retryTimer = setTimeout(() => connectFeed(id), 500); }));
}

async function selectMatch(id) {
  current = id;
  const m = await api("GET", `/matches/${id}`);
  $("#match").hidden = false;
  $("#match-title").textContent = `#${m.id} ${m.name} — ${m.game}, ${m.table}, ${m.players.join(" v ")}`;
  $("#report").replaceChildren(m.report_url ? Object.assign(el("a", "open report"), { href: m.report_url, target: "_blank" }) : el("span", "none yet"));
  $("#feed").replaceChildren();
  $("#degraded").hidden = true;  // the feed's replay of the log shows it again for a match that has one
  lastSeq = 0; retryMs = 1000; announced = new Map();
  showState(m.state);
  const verdicts = await api("GET", `/matches/${id}/verdicts`);
  showVerdicts(verdicts);
  connectFeed(id);
  loadMatches();
  // The match's latest analysis (one resumed after a restart, too): its status, followed while it runs.
  const mine = (await api("GET", "/analyses")).filter((a) => a.match_id === id);
  if (current !== id) return;
  if (mine.length) pollAnalysis(mine[0].id); else { $("#analysis-status").textContent = ""; $("#analysis-status").className = ""; }
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
    if (body.type === "identify") {  // one ball's place (table mm); the other balls are left alone
      body.balls = { [body.ball]: [Number(body.x), Number(body.y)] };
      if (body.t === "") delete body.t; else body.t = Number(body.t);
      delete body.ball; delete body.x; delete body.y;
    }
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
  const startAnalysis = async (request) => {
    const status = $("#analysis-status");
    status.textContent = "sending ..."; status.className = "";
    try {
      const a = await request();
      status.textContent = `analysis ${a.id}: ${a.status}`;
      await selectMatch(a.match_id);
      pollAnalysis(a.id);
    } catch (e) { status.textContent = `refused: ${e.message}`; status.className = "err"; }
  };
  $("#new-analysis").addEventListener("submit", (ev) => {
    ev.preventDefault(); const d = formData(ev.target);
    startAnalysis(() => api("POST", "/analyses", { video_path: d.video_path }));
  });
  $("#upload-analysis").addEventListener("submit", (ev) => {
    ev.preventDefault();
    startAnalysis(() => api("POST", "/analyses/upload", new FormData(ev.target)));
  });
}

async function pollAnalysis(id) {
  const a = await api("GET", `/analyses/${id}`);
  $("#analysis-status").textContent = `analysis ${a.id}: ${a.status} ${a.message}`;
  $("#analysis-status").className = a.status === "failed" ? "err" : "";
  if (["queued", "running", "waiting"].includes(a.status)) setTimeout(() => pollAnalysis(id), 1500);
  else {
    loadMatches();
    if (current === a.match_id && a.report_url) $("#report").replaceChildren(Object.assign(el("a", "open report"), { href: a.report_url, target: "_blank" }));
  }
}

(async () => {
  wireInputs();
  await loadMeta();
  await loadMatches();
  const want = Number(new URLSearchParams(location.search).get("match"));
  if (want) await selectMatch(want);
})();
