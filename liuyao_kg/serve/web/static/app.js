// The liuyao-kg web reader: one page over the JSON API (/api/…) and the SPARQL endpoint (/sparql).
// No framework, no build step: the address is the state (/cast?spec=…&month=…&day=…&topic=…&lang=…,
// /passage/ID, /rules?…, /query), so every view can be shared and bookmarked.
"use strict";

const UI = {
  zh: { nav_cast: "起卦", nav_rules: "規則", nav_query: "SPARQL", f_spec: "卦", f_coins: "錢", f_month: "月", f_day: "日",
        f_date: "時間", f_topic: "占事", cast: "起卦", reading: "斷語", reading_pending: "（斷語與應期將於此顯示）",
        cast_states: "卦之狀態", judgments: "斷", back: "← 返回", citing_rules: "引此段之規則", f_work: "典籍",
        f_chapter: "章", f_school: "流派", f_term: "詞", search: "查", col_rule: "規則", col_polarity: "吉凶",
        col_conclusion: "斷語", col_where: "出處", col_condition: "條件", conflicts: "異說並列", run: "執行",
        void: "旬空", month: "月", day: "日", year: "年", hour: "時", lines: "爻", passage: "原文", rule: "規則",
        convention: "通行之法，非出種子典籍", rules_found: "條規則", verdict: "斷", timing: "應期", usegod: "用神",
        "吉": "吉", "凶": "凶", neutral: "平" },
  en: { nav_cast: "Cast", nav_rules: "Rules", nav_query: "SPARQL", f_spec: "Hexagram", f_coins: "Coins", f_month: "Month",
        f_day: "Day", f_date: "Date", f_topic: "Topic", cast: "Cast", reading: "Reading",
        reading_pending: "(the verdict and timing will show here)", cast_states: "Hexagram states", judgments: "Judgments",
        back: "← back", citing_rules: "Rules citing this passage", f_work: "Work", f_chapter: "Chapter", f_school: "School",
        f_term: "Term", search: "Search", col_rule: "Rule", col_polarity: "Polarity", col_conclusion: "Conclusion",
        col_where: "Source", col_condition: "Condition", conflicts: "Conflicting readings side by side", run: "Run",
        void: "void", month: " month", day: " day", year: " year", hour: " hour", lines: "lines ", passage: "passage", rule: "rule",
        convention: "standard convention, not in the seeds", rules_found: "rules", verdict: "Verdict", timing: "Timing",
        usegod: "Use-god", "吉": "auspicious", "凶": "inauspicious", neutral: "neutral" },
  ko: { nav_cast: "점치기", nav_rules: "규칙", nav_query: "SPARQL", f_spec: "괘", f_coins: "동전", f_month: "월", f_day: "일",
        f_date: "시각", f_topic: "점사", cast: "점치기", reading: "판단", reading_pending: "(판단과 응기가 여기에 표시됩니다)",
        cast_states: "괘의 상태", judgments: "판단", back: "← 돌아가기", citing_rules: "이 구절을 인용한 규칙", f_work: "문헌",
        f_chapter: "장", f_school: "유파", f_term: "용어", search: "찾기", col_rule: "규칙", col_polarity: "길흉",
        col_conclusion: "판단", col_where: "출처", col_condition: "조건", conflicts: "이설 대조", run: "실행",
        void: "공망", month: "월", day: "일", year: "년", hour: "시", lines: "효 ", passage: "원문", rule: "규칙",
        convention: "통행 관례, 시드 문헌에 없음", rules_found: "개 규칙", verdict: "판단", timing: "응기", usegod: "용신",
        "吉": "길", "凶": "흉", neutral: "중립" },
};
const CAST_FIELDS = ["spec", "coins", "month", "day", "date", "topic", "year", "birth", "sex", "about", "lines", "day_boundary"];

let lang = "zh";
let labels = null;       // /api/labels: zh-Hant term → {en, ko}; school id → {zh, en, ko}
let lastChart = null;

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};
const u = (key) => UI[lang][key] ?? UI.zh[key] ?? key;
const t = (zh) => (!zh || lang === "zh" || !labels) ? (zh || "") : ((labels.terms[zh] || {})[lang] || zh);
const school = (id) => !id ? "" : (labels && labels.schools[id] ? labels.schools[id][lang] : id);
const passageId = (iri) => iri ? iri.split("/passage/")[1] : null;

async function api(path, options) {
  const r = await fetch(path, options);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

// -- language ------------------------------------------------------------------------------------
function setLang(next, push = true) {
  lang = UI[next] ? next : "zh";
  document.documentElement.lang = { zh: "zh-Hant", en: "en", ko: "ko" }[lang];
  for (const b of document.querySelectorAll("[data-lang]")) b.classList.toggle("active", b.dataset.lang === lang);
  for (const n of document.querySelectorAll("[data-i18n]")) n.textContent = u(n.dataset.i18n);
  if (push) {
    const url = new URL(location.href);
    url.searchParams.set("lang", lang);
    history.replaceState(null, "", url);
  }
  if (lastChart && !$("#view-cast").hidden) drawChart(lastChart);
  if (!$("#view-passage").hidden) showPassage(location.pathname.split("/passage/")[1], false);
  if (!$("#view-rules").hidden) loadRules();
}

// -- hover / tap: the rule and quote behind any state or judgment --------------------------------------
function attachSource(node, { rule, id, source, title }) {
  node.tabIndex = 0;
  node.dataset.rule = rule || "";
  const show = () => {
    const tip = $("#tip");
    tip.replaceChildren();
    if (title) tip.append(el("div", { class: "title", text: title }));
    if (source && source.quote) {
      tip.append(el("div", { class: "where", text: [source.work, source.chapter].filter(Boolean).join("·") }));
      tip.append(el("div", { class: "quote", text: `「${source.quote}」` }));
      if (source.korean) tip.append(el("div", { class: "ko", text: source.korean }));
    } else {
      tip.append(el("div", { class: "where", text: (source && source.note) || u("convention") }));
    }
    tip.append(el("div", { class: "rid", text: `${u("rule")} ${id || (rule || "").split("/").pop()}` }));
    const box = node.getBoundingClientRect();
    tip.hidden = false;
    tip.style.left = `${window.scrollX + box.left}px`;
    const below = box.bottom + 4 + tip.offsetHeight <= window.innerHeight;   // else above the item
    tip.style.top = `${window.scrollY + (below ? box.bottom + 4 : box.top - 4 - tip.offsetHeight)}px`;
  };
  node.addEventListener("mouseenter", show);
  node.addEventListener("focus", show);
  node.addEventListener("mouseleave", () => { $("#tip").hidden = true; });
  node.addEventListener("blur", () => { $("#tip").hidden = true; });
  node.addEventListener("click", (ev) => {   // a tap shows the source; a second tap (or the link) opens the passage
    if (ev.target.tagName === "A") return;
    if ($("#tip").hidden) { show(); return; }
    const pid = source && passageId(source.iri);
    if (pid && source.quote) go(`/passage/${encodeURIComponent(pid)}`);
  });
}

// -- the chart, as practitioners draw it: top line first --------------------------------------------------
const gz = (x) => { const sp = lang === "zh" ? "" : " "; return `${t(x.relative)}${sp}${x.stem}${x.branch}${sp}${t(x.element)}`; };
function hexTitle(h) {
  const kinds = h.kind.filter((k) => k !== h.generation).map(t).join(" ");
  return `${t(h.name)}（${t(h.palace)}${lang === "en" ? " palace " : "宮"}${t(h.palace_element)} ${t(h.generation)}${kinds ? " " + kinds : ""}）`;
}

function drawChart(c) {
  lastChart = c;
  $("#chart").hidden = false;
  $("#chart-title").textContent = hexTitle(c.primary) + (c.changed ? (lang === "en" ? " → " : " 之 ") + hexTitle(c.changed) : "");
  const when = [`${c.month.stem || ""}${c.month.branch}${u("month")}`, `${c.day.stem}${c.day.branch}${u("day")}`];
  if (c.year) when.unshift(`${c.year.stem}${c.year.branch}${u("year")}`);
  if (c.hour) when.push(`${c.hour.stem}${c.hour.branch}${u("hour")}`);
  $("#chart-when").textContent = `${when.join(" ")}  ${u("void")} ${c.void.join("")}`;
  const body = $("#chart-lines tbody");
  body.replaceChildren();
  for (const line of [...c.lines].reverse()) {
    const yang = line.value === 7 || line.value === 9;
    const states = el("td", { class: "states" });
    for (const s of line.states) {
      const label = t(s.term) + ["stage", "strength"].filter((k) => s[k]).map((k) => `:${t(s[k])}`).join("")
        + (s.school ? `(${school(s.school)})` : "");
      const chip = el("span", { class: "state", text: label, "data-term": s.term });
      attachSource(chip, { rule: s.rule, source: s.source, title: label });
      states.append(chip);
    }
    const roles = line.roles.filter((r) => r === "世" || r === "應").map(t).join(" ");
    const row = el("tr", { "data-position": String(line.position) },
      el("td", { text: t(line.spirit) }),
      el("td", { class: "hidden-line", text: line.hidden ? gz(line.hidden) : "" }),
      el("td", { text: gz(line) }),
      el("td", { class: "bar", text: yang ? "▅▅▅▅▅" : "▅▅ ▅▅" }),
      el("td", { class: "role", text: roles }),
      el("td", { class: "moving", text: { 9: "○", 6: "×" }[line.value] || "" }),
      el("td", { text: line.change ? `→ ${gz(line.change)}` : "" }),
      states);
    body.append(row);
  }
  const cs = $("#cast-states");
  cs.replaceChildren();
  for (const s of c.states) {
    const label = `${t(s.term)}${s.kind ? " " + t(s.kind) : ""}${s.relative ? " " + t(s.relative) : ""}`
      + (s.lines.length ? ` ${u("lines")}${s.lines.join(",")}` : "");
    const chip = el("li", { class: "chip", text: label });
    attachSource(chip, { rule: s.rule, source: s.source, title: label });
    cs.append(chip);
  }
  const js = $("#judgments");
  js.replaceChildren();
  for (const j of c.judgments) {
    const text = j.conclusion[lang] || j.conclusion.zh;
    const lines = j.lines.length ? ` ${u("lines")}${[...j.lines].sort().join(",")}` : "";
    const item = el("li", { class: `judgment pol-${j.polarity}`, "data-id": j.id },
      el("span", { class: "pol", text: `[${u(j.polarity)}] ` }), el("span", { class: "text", text: text + lines }),
      el("span", { class: "id", text: `  (${j.id})` }));
    const pid = passageId(j.source.iri);
    if (pid) item.append(el("a", { href: `/passage/${encodeURIComponent(pid)}?lang=${lang}`, class: "open-passage", text: u("passage") }));
    attachSource(item, { rule: j.rule, id: j.id, source: j.source, title: text });
    js.append(item);
  }
  drawReading(c);
}

function drawReading(c) {
  // Filled by the reading module's keys when the API returns them; a marked, empty place otherwise.
  const text = (v) => v == null ? "" : (typeof v === "string" ? v : (v[lang] || v.zh || JSON.stringify(v)));
  $("#reading-verdict").textContent = c.verdict != null ? `${u("verdict")}: ${text(c.verdict)}` : u("reading_pending");
  $("#reading-timing").textContent = c.timing != null ? `${u("timing")}: ${text(c.timing)}` : "";
  $("#reading-usegod").textContent = c.use_god_condition != null ? `${u("usegod")}: ${text(c.use_god_condition)}` : "";
}

async function castFromAddress() {
  const q = new URLSearchParams(location.search);
  const form = $("#cast-form");
  for (const f of CAST_FIELDS) if (form.elements[f]) form.elements[f].value = q.get(f) || "";
  const fields = {};
  for (const f of CAST_FIELDS) if (q.get(f)) fields[f] = q.get(f);
  if (!fields.spec && !fields.coins) return;
  $("#cast-error").hidden = true;
  try {
    drawChart(await api("/api/cast", { method: "POST", headers: { "Content-Type": "application/json" },
                                       body: JSON.stringify(fields) }));
  } catch (e) {
    $("#chart").hidden = true;
    $("#cast-error").textContent = e.message;
    $("#cast-error").hidden = false;
  }
}

// -- a passage in its chapter, the sentence highlighted, the Korean beside it ---------------------------------
async function showPassage(id, fetchIt = true) {
  let data;
  try { data = await api(`/api/passages/${encodeURIComponent(decodeURIComponent(id))}`); } catch (e) {
    $("#passage-title").textContent = e.message; return;
  }
  $("#passage-title").textContent = `${t(data.work) || data.work}·${data.chapter}`;
  const box = $("#passage-text");
  box.replaceChildren();
  for (const p of data.chapter_passages) {
    const zh = el("div", { class: "zh" + (p.this ? " here" : ""), id: p.this ? "here" : `p-${p.id}` });
    const ko = el("div", { class: "ko" + (p.this ? " here" : "") });
    if (p.this) {
      zh.append(el("span", { class: "context", text: p.prefix || "" }), el("mark", { text: p.quote }),
                el("span", { class: "context", text: p.suffix || "" }));
      ko.append(el("span", { class: "context", text: p.ko_prefix || "" }), el("mark", { text: p.korean || "" }),
                el("span", { class: "context", text: p.ko_suffix || "" }));
    } else {
      zh.append(el("a", { href: `/passage/${encodeURIComponent(p.id)}?lang=${lang}`, text: p.quote }));
      ko.textContent = p.korean || "";
    }
    box.append(zh, ko);
  }
  const rules = $("#passage-rules");
  rules.replaceChildren();
  for (const r of data.rules) {
    rules.append(el("li", { text: `[${u(r.polarity)}] ${r.conclusion[lang] || r.conclusion.zh} (${r.id})` }));
  }
  const here = $("#here");
  if (here && here.scrollIntoView) here.scrollIntoView({ block: "center" });
}

// -- the rule browser ---------------------------------------------------------------------------------------
let facetsLoaded = false;
async function loadRules() {
  const form = $("#rules-form");
  const q = new URLSearchParams();
  for (const f of ["work", "chapter", "topic", "school", "term"]) if (form.elements[f].value) q.set(f, form.elements[f].value);
  const data = await api(`/api/rules?${q}`);
  if (!facetsLoaded) {
    const fill = (name, values, show = (v) => v) => {
      for (const v of values) form.elements[name].append(el("option", { value: Array.isArray(v) ? v[1] : v, text: show(v) }));
    };
    fill("work", data.facets.works, (v) => t(v) || v);
    fill("chapter", data.facets.chapters, (v) => `${v[0]}·${v[1]}`);
    fill("topic", data.facets.topics, (v) => t(v) || v);
    fill("school", data.facets.schools);
    facetsLoaded = true;
  }
  $("#rules-count").textContent = `${data.count} ${u("rules_found")}`;
  const body = $("#rules-table tbody");
  body.replaceChildren();
  for (const r of data.rules.slice(0, 300)) {
    const p = r.passages[0];
    const where = el("td");
    if (p) where.append(el("a", { href: `/passage/${encodeURIComponent(p.id)}?lang=${lang}`,
                                  text: `${r.work[lang] || r.work.zh}·${r.chapter}「${p.quote}」` }));
    body.append(el("tr", {}, el("td", { class: "id", text: r.id }), el("td", { text: u(r.polarity) }),
                   el("td", { text: r.conclusion[lang] || r.conclusion.zh }), where, el("td", { text: r.condition || "" })));
  }
  const conflicts = $("#conflicts");
  conflicts.replaceChildren();
  for (const c of await api("/api/conflicts")) {
    const side = (x) => el("div", {}, el("div", { class: "id", text: x.id }), el("div", { text: `[${u(x.polarity)}] 「${x.quote}」` }),
                           el("div", { text: x.school ? school(x.school) : "" }));
    conflicts.append(el("div", { class: "conflict", title: c.condition }, side(c.a), side(c.b)));
  }
}

// -- the SPARQL page -----------------------------------------------------------------------------------------
async function runQuery(ev) {
  ev.preventDefault();
  const text = $("#query-form").elements.query.value;
  const r = await fetch("/sparql", { method: "POST", headers: { "Content-Type": "application/sparql-query",
                                                                 Accept: "application/sparql-results+json" }, body: text });
  const err = $("#query-error");
  if (!r.ok) { err.textContent = await r.text(); err.hidden = false; return; }
  err.hidden = true;
  const data = await r.json();
  const vars = data.head.vars || [];
  $("#query-results thead").replaceChildren(el("tr", {}, ...vars.map((v) => el("th", { text: v }))));
  const rows = data.boolean !== undefined ? [] : data.results.bindings;
  $("#query-results tbody").replaceChildren(...rows.map((b) => el("tr", {}, ...vars.map((v) => el("td", { text: b[v] ? b[v].value : "" })))));
}

// -- routing: the address decides the view ---------------------------------------------------------------------
function go(path) { history.pushState(null, "", path + (path.includes("?") ? "&" : "?") + `lang=${lang}`); route(); }

function route() {
  const path = location.pathname;
  const view = path.startsWith("/passage/") ? "passage" : path === "/rules" ? "rules" : path === "/query" ? "query" : "cast";
  for (const v of ["cast", "passage", "rules", "query"]) $(`#view-${v}`).hidden = v !== view;
  for (const a of document.querySelectorAll("[data-nav]")) a.classList.toggle("active", a.dataset.nav === view);
  $("#tip").hidden = true;
  if (view === "cast") castFromAddress();
  if (view === "passage") showPassage(path.slice("/passage/".length));
  if (view === "rules") loadRules();
}

async function start() {
  labels = await api("/api/labels");
  setLang(new URLSearchParams(location.search).get("lang") || "zh", false);
  for (const b of document.querySelectorAll("[data-lang]")) b.addEventListener("click", () => setLang(b.dataset.lang));
  $("#cast-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const f of CAST_FIELDS) { const v = ev.target.elements[f]; if (v && v.value.trim()) q.set(f, v.value.trim()); }
    q.set("lang", lang);
    history.pushState(null, "", `/cast?${q}`);
    route();
  });
  $("#rules-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadRules(); });
  $("#query-form").addEventListener("submit", runQuery);
  $("#passage-back").addEventListener("click", (ev) => { ev.preventDefault(); history.back(); });
  window.addEventListener("popstate", route);
  route();
}

start();
