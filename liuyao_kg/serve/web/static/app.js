// The liuyao-kg web reader: one page over the JSON API (/api/…) and the SPARQL endpoint (/sparql).
// No framework, no build step: the address is the state (/cast?spec=…&month=…&day=…&topic=…&lang=…,
// /passage/ID, /rules?…, /query), so every view can be shared and bookmarked. A cast opens with its reading in
// plain words (the API's `reading`, in the page's language), then the chart as practitioners draw it, then the
// evidence, folded. Every string the page writes itself is in UI below, in each language of the page.
"use strict";

// The page's own words. zh-Hans is zh-Hant through OpenCC's t2s tables (liuyao_kg.chart.i18n.simplified), written
// out once here; tests/serve/test_web.py holds the two equal.
const UI = {
  "zh-Hant": {
    nav_cast: "起卦", nav_rules: "規則", nav_query: "SPARQL", f_spec: "卦", f_coins: "錢", f_lines: "爻值", f_month: "月",
    f_day: "日", f_year: "年", f_date: "時間", f_topic: "占事", f_about: "所占之人", f_birth: "本命", f_sex: "性別",
    f_use_god: "用神", f_school: "流派", f_horizon: "應期單位", f_day_boundary: "換日", more_fields: "更多欄位",
    sex_男: "男", sex_女: "女", h_日: "日", h_月: "月", h_年: "年", any: "（依占事）", db_00: "子夜 00:00", db_23: "子時 23:00",
    now: "此刻", toss: "擲錢", cast: "起卦", copy_link: "複製連結", copied: "已複製連結", cite_as: "引用作", print: "列印",
    reading: "斷語", because: "因", timing: "應期", no_dates: "（未給時間，故無日期；加上時間即有日期）",
    chart: "卦圖", evidence: "依據", line_states: "爻之狀態", cast_states: "卦之狀態", judgments: "斷",
    back: "← 返回", citing_rules: "引此段之規則", f_work: "典籍", f_chapter: "章", f_term: "詞", search: "查",
    col_rule: "規則", col_polarity: "吉凶", col_conclusion: "斷語", col_where: "出處", col_condition: "條件",
    conflicts: "異說並列", run: "執行", void: "旬空", month: "月", day: "日", year: "年", hour: "時", passage: "原文",
    rule: "規則", convention: "通行之法，非出種子典籍", rules_found: "條規則", tap_again: "再點一下看原文",
    吉: "吉", 凶: "凶", neutral: "平", g_用神: "關乎用神", g_世: "關乎世爻", g_應: "關乎應爻", g_他爻: "關乎他爻",
    g_卦: "關乎全卦", of: "之", palace: "宮", hidden: "伏", line_n: "{n}爻", pos_1: "初爻", pos_2: "二爻", pos_3: "三爻",
    pos_4: "四爻", pos_5: "五爻", pos_6: "上爻", m_世: "世", m_應: "應", m_卦身: "卦身", m_世身: "世身", m_用: "用",
    m_空: "空", m_破: "破", moving_9: "老陽動", moving_6: "老陰動", r_nuclear: "互", r_opposite: "錯", r_inverse: "綜",
    schools: "流派", err_network: "伺服器無回應，請稍後再試。", err_bad_answer: "伺服器回應有誤（{status}）。",
    err_lang: "不支援此語言。", sep: "、", colon: "：", open: "（", close: "）", ask_first: "先給卦或錢（或按「擲錢」）。", edit_cast: "起卦",
  },
  "zh-Hans": {
    nav_cast: "起卦", nav_rules: "规则", nav_query: "SPARQL", f_spec: "卦", f_coins: "钱", f_lines: "爻值", f_month: "月",
    f_day: "日", f_year: "年", f_date: "时间", f_topic: "占事", f_about: "所占之人", f_birth: "本命", f_sex: "性别",
    f_use_god: "用神", f_school: "流派", f_horizon: "应期单位", f_day_boundary: "换日", more_fields: "更多栏位",
    sex_男: "男", sex_女: "女", h_日: "日", h_月: "月", h_年: "年", any: "（依占事）", db_00: "子夜 00:00", db_23: "子时 23:00",
    now: "此刻", toss: "掷钱", cast: "起卦", copy_link: "复制连结", copied: "已复制连结", cite_as: "引用作", print: "列印",
    reading: "断语", because: "因", timing: "应期", no_dates: "（未给时间，故无日期；加上时间即有日期）",
    chart: "卦图", evidence: "依据", line_states: "爻之状态", cast_states: "卦之状态", judgments: "断",
    back: "← 返回", citing_rules: "引此段之规则", f_work: "典籍", f_chapter: "章", f_term: "词", search: "查",
    col_rule: "规则", col_polarity: "吉凶", col_conclusion: "断语", col_where: "出处", col_condition: "条件",
    conflicts: "异说并列", run: "执行", void: "旬空", month: "月", day: "日", year: "年", hour: "时", passage: "原文",
    rule: "规则", convention: "通行之法，非出种子典籍", rules_found: "条规则", tap_again: "再点一下看原文",
    吉: "吉", 凶: "凶", neutral: "平", g_用神: "关乎用神", g_世: "关乎世爻", g_應: "关乎应爻", g_他爻: "关乎他爻",
    g_卦: "关乎全卦", of: "之", palace: "宫", hidden: "伏", line_n: "{n}爻", pos_1: "初爻", pos_2: "二爻", pos_3: "三爻",
    pos_4: "四爻", pos_5: "五爻", pos_6: "上爻", m_世: "世", m_應: "应", m_卦身: "卦身", m_世身: "世身", m_用: "用",
    m_空: "空", m_破: "破", moving_9: "老阳动", moving_6: "老阴动", r_nuclear: "互", r_opposite: "错", r_inverse: "综",
    schools: "流派", err_network: "伺服器无回应，请稍后再试。", err_bad_answer: "伺服器回应有误（{status}）。",
    err_lang: "不支援此语言。", sep: "、", colon: "：", open: "（", close: "）", ask_first: "先给卦或钱（或按「掷钱」）。", edit_cast: "起卦",
  },
  en: {
    nav_cast: "Cast", nav_rules: "Rules", nav_query: "SPARQL", f_spec: "Hexagram", f_coins: "Coins", f_lines: "Line values",
    f_month: "Month", f_day: "Day", f_year: "Year", f_date: "Date", f_topic: "Topic", f_about: "About whom",
    f_birth: "Birth year", f_sex: "Sex", f_use_god: "Use-god", f_school: "School", f_horizon: "Timing unit",
    f_day_boundary: "Day starts", more_fields: "More fields", sex_男: "male", sex_女: "female", h_日: "days",
    h_月: "months", h_年: "years", any: "(by the topic)", db_00: "midnight 00:00", db_23: "zi hour 23:00", now: "Now",
    toss: "Toss coins", cast: "Cast", copy_link: "Copy link", copied: "Link copied", cite_as: "Cite as", print: "Print",
    reading: "Reading", because: "because", timing: "Timing",
    no_dates: "(no calendar dates: give the date of the cast to get them)", chart: "Chart", evidence: "Evidence",
    line_states: "Line states", cast_states: "Hexagram states", judgments: "Judgments", back: "← back",
    citing_rules: "Rules citing this passage", f_work: "Work", f_chapter: "Chapter", f_term: "Term", search: "Search",
    col_rule: "Rule", col_polarity: "Polarity", col_conclusion: "Conclusion", col_where: "Source",
    col_condition: "Condition", conflicts: "Conflicting readings side by side", run: "Run", void: "void",
    month: " month", day: " day", year: " year", hour: " hour", passage: "passage", rule: "rule",
    convention: "standard convention, not in the seed texts", rules_found: "rules", tap_again: "tap again for the passage",
    吉: "auspicious", 凶: "inauspicious", neutral: "neutral", g_用神: "About the use-god", g_世: "About the self line",
    g_應: "About the other line", g_他爻: "About other lines", g_卦: "About the whole hexagram", of: "→", palace: "palace",
    hidden: "hidden", line_n: "line {n}", pos_1: "line 1", pos_2: "line 2", pos_3: "line 3", pos_4: "line 4",
    pos_5: "line 5", pos_6: "line 6", m_世: "shi", m_應: "ying", m_卦身: "body", m_世身: "self-body", m_用: "use",
    m_空: "void", m_破: "broken", moving_9: "old yang, moving", moving_6: "old yin, moving", r_nuclear: "nuclear",
    r_opposite: "opposite", r_inverse: "inverse", schools: "schools",
    err_network: "The server did not answer; try again.", err_bad_answer: "The server's answer was not readable ({status}).",
    err_lang: "That language is not offered.", sep: ", ", colon: ": ", open: " (", close: ")",
    ask_first: "Give a hexagram or coins first (or press Toss coins).", edit_cast: "Cast",
  },
  ko: {
    nav_cast: "점치기", nav_rules: "규칙", nav_query: "SPARQL", f_spec: "괘", f_coins: "동전", f_lines: "효값", f_month: "월",
    f_day: "일", f_year: "년", f_date: "일시", f_topic: "점사", f_about: "점치는 대상", f_birth: "본명", f_sex: "성별",
    f_use_god: "용신", f_school: "유파", f_horizon: "응기 단위", f_day_boundary: "날의 경계", more_fields: "항목 더 보기",
    sex_男: "남", sex_女: "여", h_日: "일", h_月: "월", h_年: "년", any: "(점사에 따라)", db_00: "자정 00:00",
    db_23: "자시 23:00", now: "지금", toss: "동전 던지기", cast: "점치기", copy_link: "링크 복사", copied: "링크를 복사했습니다", cite_as: "인용 표기",
    print: "인쇄", reading: "판단", because: "근거", timing: "응기",
    no_dates: "(일시가 없어 날짜가 없습니다: 점친 일시를 주면 날짜가 나옵니다)", chart: "괘도", evidence: "근거 자료",
    line_states: "효의 상태", cast_states: "괘의 상태", judgments: "판단", back: "← 돌아가기",
    citing_rules: "이 구절을 인용한 규칙", f_work: "문헌", f_chapter: "장", f_term: "용어", search: "찾기", col_rule: "규칙",
    col_polarity: "길흉", col_conclusion: "판단", col_where: "출처", col_condition: "조건", conflicts: "이설 대조",
    run: "실행", void: "공망", month: "월", day: "일", year: "년", hour: "시", passage: "원문", rule: "규칙",
    convention: "통행 관례, 시드 문헌에 없음", rules_found: "개 규칙", tap_again: "한 번 더 누르면 원문",
    吉: "길", 凶: "흉", neutral: "중립", g_用神: "용신에 관한 것", g_世: "세효에 관한 것", g_應: "응효에 관한 것",
    g_他爻: "다른 효에 관한 것", g_卦: "괘 전체에 관한 것", of: "→", palace: "궁", hidden: "복신", line_n: "{n}효",
    pos_1: "초효", pos_2: "이효", pos_3: "삼효", pos_4: "사효", pos_5: "오효", pos_6: "상효", m_世: "세", m_應: "응",
    m_卦身: "괘신", m_世身: "세신", m_用: "용", m_空: "공", m_破: "파", moving_9: "노양 동", moving_6: "노음 동",
    r_nuclear: "호괘", r_opposite: "착괘", r_inverse: "종괘", schools: "유파",
    err_network: "서버가 응답하지 않습니다. 잠시 후 다시 시도하십시오.", err_bad_answer: "서버의 응답을 읽을 수 없습니다({status}).",
    err_lang: "지원하지 않는 언어입니다.", sep: ", ", colon: ": ", open: " (", close: ")",
    ask_first: "먼저 괘나 동전을 주십시오(또는 동전 던지기).", edit_cast: "점치기",
  },
};
const LANGS = Object.keys(UI);
// the cast fields of /api/cast (the CLI's cast options); school may repeat in the address
const CAST_FIELDS = ["spec", "coins", "lines", "month", "day", "date", "year", "topic", "about", "birth", "sex", "use_god",
                     "school", "horizon", "day_boundary"];
const MORE_FIELDS = ["lines", "month", "day", "year", "about", "birth", "sex", "use_god", "school", "horizon", "day_boundary"];
const GROUPS = ["用神", "世", "應", "他爻", "卦"];   // whom a judgment concerns (chart/reading.py GROUPS)

let lang = "zh-Hant";
let labels = null;       // /api/labels: zh-Hant term → {en, ko}; school id → {zh, zh-Hans, en, ko}; "zh-Hans": names in 简体
let lastChart = null;
let words = {};          // zh-Hans: the chart's zh-Hant strings in 简体 (/api/cast's `words`, by OpenCC)

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined && k !== "") e.append(k);
  return e;
};
const u = (key, vars = {}) => (UI[lang][key] ?? UI["zh-Hant"][key] ?? key).replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");
const isZh = () => lang.startsWith("zh");
// a chart term in the page's language: en and ko by the graph's labels; a zh-Hans chart comes converted by the API,
// and the names of works and chapters elsewhere (rules, passages) by /api/labels' "zh-Hans" (OpenCC, at build time)
const t = (zh) => !zh ? "" : lang === "zh-Hans" ? (words[zh] || (labels && labels["zh-Hans"] || {})[zh] || zh)
  : (lang === "zh-Hant" || !labels) ? zh : ((labels.terms[zh] || {})[lang] || zh);
const school = (id) => {
  const e = id && labels && labels.schools[id];
  return !id ? "" : !e ? id : isZh() ? t(e.zh) : (e[lang] || e.zh);
};
const passageId = (iri) => iri ? iri.split("/passage/")[1] : null;
const normLang = (x) => x === "zh" ? "zh-Hant" : (LANGS.includes(x) ? x : null);

class PageError extends Error {}

async function api(path, options) {
  let r;
  try { r = await fetch(path, options); } catch (e) { throw new PageError(u("err_network")); }
  let data;
  try { data = await r.json(); } catch (e) { throw new PageError(u("err_bad_answer", { status: r.status })); }
  if (!r.ok) throw new PageError(typeof data.error === "string" ? data.error : u("err_bad_answer", { status: r.status }));
  return data;
}

// -- language ------------------------------------------------------------------------------------
function setLang(next, push = true) {
  lang = normLang(next) || "zh-Hant";
  document.documentElement.lang = lang;
  for (const b of document.querySelectorAll("[data-lang]")) {
    b.classList.toggle("active", b.dataset.lang === lang);
    b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
  }
  for (const n of document.querySelectorAll("[data-i18n]")) n.textContent = u(n.dataset.i18n);
  if (push) {
    const url = new URL(location.href);
    url.searchParams.set("lang", lang);
    history.replaceState(null, "", url);
    route();   // the API answers in the page's language: ask again
  }
}

// -- the tip: the rule and quote behind a reason, a mark, a state or a judgment ------------------------------------
// Mouse: hover shows it, a click opens the passage. Touch: a first tap shows it, a second tap on the same item opens
// the passage (a tap's emulated hover never counts as the first tap). Keyboard: focus shows it, Enter opens it.
let tipOwner = null, tipByTap = false;

function hideTip() { $("#tip").hidden = true; tipOwner = null; tipByTap = false; }

function showTip(node, info, byTap = false) {
  const { title, source, id, rule } = info;
  const tip = $("#tip");
  tip.replaceChildren();
  if (title) tip.append(el("div", { class: "title", text: title }));
  if (source && source.quote) {
    const where = [t(source.work), t(source.chapter)].filter(Boolean).join("·");
    if (where) tip.append(el("div", { class: "where", text: where }));
    tip.append(el("div", { class: "quote", lang: "zh-Hant", text: `「${source.quote}」` }));
    if (source.korean && lang === "ko") tip.append(el("div", { class: "ko", text: source.korean }));
  } else {
    tip.append(el("div", { class: "where", text: u("convention") }));
  }
  if (id || rule) tip.append(el("div", { class: "rid", text: `${u("rule")} ${id || (rule || "").split("/").pop()}` }));
  if (byTap && source && source.quote && passageId(source.iri)) {
    tip.append(el("div", { class: "hint", text: u("tap_again") }));
  }
  tip.hidden = false;
  const box = node.getBoundingClientRect();
  const width = Math.min(tip.offsetWidth, document.documentElement.clientWidth - 8);
  const left = Math.max(4, Math.min(box.left, document.documentElement.clientWidth - width - 4));
  tip.style.left = `${window.scrollX + left}px`;
  const below = box.bottom + 4 + tip.offsetHeight <= window.innerHeight;   // else above the item
  tip.style.top = `${window.scrollY + (below ? box.bottom + 4 : box.top - 4 - tip.offsetHeight)}px`;
  tipOwner = node;
}

function openPassage(source) {
  const pid = source && source.quote && passageId(source.iri);
  if (pid) go(`/passage/${encodeURIComponent(pid)}`);
}

function attachSource(node, info) {
  node.tabIndex = 0;
  node.dataset.rule = info.rule || "";
  node.classList.add("sourced");
  node.addEventListener("pointerenter", (ev) => { if (ev.pointerType === "mouse") { showTip(node, info); tipByTap = false; } });
  node.addEventListener("pointerleave", (ev) => { if (ev.pointerType === "mouse" && tipOwner === node) hideTip(); });
  node.addEventListener("focus", () => { if (tipOwner !== node) { showTip(node, info); tipByTap = false; } });
  node.addEventListener("keydown", (ev) => { if (ev.key === "Enter") openPassage(info.source); });
  node.addEventListener("click", (ev) => {
    if (ev.target.closest("a")) return;
    ev.stopPropagation();
    const touch = ev.pointerType === "touch" || ev.pointerType === "pen";
    if (!touch && tipOwner === node) { openPassage(info.source); return; }   // mouse: the tip shows on hover already
    if (touch && tipOwner === node && tipByTap) { openPassage(info.source); return; }
    showTip(node, info, touch);
    tipByTap = touch;
  });
}

// -- the title: the pair's names; under it each one's palace, generation and kind, and 互 錯 綜 when the chart has them
function hexInfo(h) {
  const kinds = (h.kind || []).filter((k) => k !== h.generation).map(t);
  const palace = lang === "en" ? `${t(h.palace)} ${u("palace")}, ${t(h.palace_element)}`
    : `${t(h.palace)}${u("palace")}${t(h.palace_element)}`;
  const info = el("span", { class: "hexinfo" }, el("b", { text: t(h.name) + u("colon") }),
                  [palace, t(h.generation), ...kinds].join(lang === "en" ? "; " : " "));
  const related = relatedLine(h);
  if (related) info.append(related);
  return info;
}

function relatedLine(h) {
  const r = h && h.related;
  if (!r) return null;
  const parts = ["nuclear", "opposite", "inverse"].filter((k) => r[k] && r[k].name)
    .map((k) => el("span", { class: "rel", "data-relation": k }, el("b", { text: u(`r_${k}`) }), ` ${t(r[k].name)}`));
  return parts.length ? el("span", { class: "related" }, ...parts) : null;
}

function pairName(c) {
  const names = [t(c.primary.name), c.changed ? t(c.changed.name) : null].filter(Boolean);
  return names.join(isZh() ? u("of") : ` ${u("of")} `);
}

// -- the reading in plain words: what a person reads first --------------------------------------------------------
function whenText(c) {
  const part = (p, key) => p ? `${p.stem || ""}${p.branch}${u(key)}` : null;
  const when = [part(c.year, "year"), part(c.month, "month"), part(c.day, "day"), part(c.hour, "hour")].filter(Boolean);
  return [when.join(" "), c.void && c.void.length ? `${u("void")} ${c.void.join("")}` : ""].filter(Boolean).join(" · ");
}

function drawReading(c) {
  const r = c.reading;
  const verdict = $("#reading-verdict");
  verdict.replaceChildren();
  verdict.className = "verdict";
  $("#reading-missing").hidden = !r.missing;
  $("#reading-missing").textContent = r.missing || "";
  if (r.verdict) {
    verdict.classList.add(r.favourable ? "good" : "bad");
    verdict.textContent = r.verdict;
  }
  const reasons = $("#reading-reasons");
  reasons.replaceChildren();
  for (const reason of r.reasons) {
    const cite = reason.work ? el("span", { class: "cite", text: t(reason.work) }) : null;
    const li = el("li", { class: "reason" }, el("span", { class: "text", text: reason.text }), cite ? " " : "", cite);
    attachSource(li, { title: reason.text, source: { quote: reason.quote, work: reason.work, chapter: reason.chapter,
                                                     iri: reason.passage ? `/passage/${reason.passage}` : null } });
    reasons.append(li);
  }
  $("#reading-because").hidden = !r.reasons.length;
  $("#reading-usegod").textContent = r.use_god ? r.use_god.text : "";
  const timing = $("#reading-timing");
  timing.replaceChildren();
  if (r.timing.length) {
    const items = r.timing.map((w) => el("li", { class: "when" }, el("b", { text: w.text }),
      w.dates.length ? el("span", { class: "dates", text: `${u("open")}${w.dates.join(u("sep"))}${u("close")}` }) : null));
    timing.append(el("span", { class: "label", text: u("timing") + u("colon") }), el("ul", {}, ...items));
    if (!r.timing.some((w) => w.dates.length)) timing.append(el("p", { class: "note", text: u("no_dates") }));
  }
}

// -- the chart, as practitioners draw it: top line first -----------------------------------------------------------
const gz = (x) => {
  const sp = isZh() ? "" : " ";
  return `${t(x.relative)}${sp}${x.stem}${x.branch}${sp}${t(x.element)}`;
};
const VOID = new Set(["旬空"]), BROKEN = new Set(["月破", "日破"]);

function mark(text, cls, info) {
  const m = el("span", { class: `mark ${cls}`, text });
  if (info) attachSource(m, info);
  return m;
}

function drawChart(c) {
  lastChart = c;
  words = c.words || {};
  $("#chart").hidden = false;
  document.title = `${pairName(c)} · ${isZh() ? "六爻" : lang === "ko" ? "육효" : "Liu Yao"}`;
  $("#chart-title").textContent = pairName(c);
  $("#chart-hexes").replaceChildren(...[c.primary, c.changed].filter(Boolean).map(hexInfo));
  $("#cast-form-box").open = false;   // the chart is shown: the reading comes first, the form folds away
  $("#form-summary").textContent = `${u("edit_cast")} · ${pairName(c)}${c.topic ? " · " + t(c.topic) : ""}`;
  $("#chart-when").textContent = whenText(c);
  drawReading(c);

  const useGod = new Map(((c.use_god_condition || {}).lines || []).filter((l) => l.read !== false)
    .map((l) => [l.position, l]));
  const body = $("#chart-lines tbody");
  body.replaceChildren();
  for (const line of [...c.lines].reverse()) {
    const yang = line.value === 7 || line.value === 9;
    const marks = el("td", { class: "marks" });
    const ug = useGod.get(line.position);
    if (ug && !ug.hidden) marks.append(mark(u("m_用"), "use", null));
    for (const role of line.roles.filter((r) => r === "卦身" || r === "世身")) marks.append(mark(u(`m_${role}`), "body", null));
    const seen = new Set();
    for (const s of line.states) {
      const kind = VOID.has(s.term) ? "空" : BROKEN.has(s.term) ? "破" : null;
      if (!kind || seen.has(s.term)) continue;
      seen.add(s.term);
      marks.append(mark(kind === "破" && s.term === "日破" ? t("日破") : u(`m_${kind}`), kind === "空" ? "void" : "broken",
                        { title: t(s.term), source: s.source, rule: s.rule }));
    }
    const hidden = el("td", { class: "hidden-line" });
    if (line.hidden) {
      hidden.append(el("span", { class: "tag", text: u("hidden") }), " ", gz(line.hidden));
      if (ug && ug.hidden) hidden.append(" ", mark(u("m_用"), "use", null));
    }
    const role = line.roles.filter((r) => r === "世" || r === "應").map((r) => u(`m_${r}`)).join(" ");
    const moving = { 9: "○", 6: "×" }[line.value] || "";
    const row = el("tr", { "data-position": String(line.position), class: ug ? "use-god" : "" },
      el("td", { class: "spirit", text: t(line.spirit) }),
      hidden,
      el("td", { class: "line", text: gz(line) }),
      el("td", { class: "bar", "aria-label": yang ? "yang" : "yin", text: yang ? "▅▅▅▅▅" : "▅▅ ▅▅" }),
      el("td", { class: "role", text: role }),
      el("td", { class: "moving", title: moving ? u(`moving_${line.value}`) : "", text: moving }),
      el("td", { class: "change", text: line.change ? `→ ${gz(line.change)}` : "" }),
      marks);
    body.append(row);
  }
  drawEvidence(c);
}

// -- the evidence, last and folded: states by line, the hexagram's states, judgments by whom they concern -----------
function stateLabel(s) {
  return t(s.term) + ["stage", "strength"].filter((k) => s[k]).map((k) => `${u("colon")}${t(s[k])}`).join("");
}

// one chip per state, its school variants named once: 暗動 (增刪卜易說)
function stateChips(states, extra = () => "") {
  const merged = new Map();
  for (const s of states) {
    const key = stateLabel(s) + extra(s);
    const m = merged.get(key) || { s, label: key, schools: [] };
    if (s.school && !m.schools.includes(s.school)) m.schools.push(s.school);
    if (!m.s.source.quote && s.source && s.source.quote) m.s = s;
    merged.set(key, m);
  }
  return [...merged.values()].map((m) => {
    const chip = el("li", { class: "chip", "data-term": m.s.term },
      m.label, m.schools.length ? el("span", { class: "school", text: `${u("open")}${m.schools.map(school).join(u("sep"))}${u("close")}` }) : null);
    attachSource(chip, { rule: m.s.rule, source: m.s.source, title: m.label });
    return chip;
  });
}

function details(id, summary, count, ...content) {
  return el("details", { id }, el("summary", {}, summary, el("span", { class: "count", text: ` ${count}` })), ...content);
}

function drawEvidence(c) {
  const box = $("#evidence-body");
  box.replaceChildren();
  // judgments: one sentence once (all the lines it matched, the schools holding it), grouped by whom they concern
  for (const group of GROUPS) {
    const merged = new Map();
    for (const j of c.judgments.filter((x) => (x.group || "卦") === group)) {
      const key = `${j.conclusion.zh}|${j.source.quote}|${j.polarity}`;
      const m = merged.get(key) || { j, lines: new Set(), schools: [] };
      for (const n of j.lines) m.lines.add(n);
      if (j.school && !m.schools.includes(j.school)) m.schools.push(j.school);
      merged.set(key, m);
    }
    if (!merged.size) continue;
    const items = [...merged.values()].sort((a, b) => ["吉", "凶", "neutral"].indexOf(a.j.polarity) - ["吉", "凶", "neutral"].indexOf(b.j.polarity))
      .map(({ j, lines, schools }) => {
        const text = isZh() ? t(j.conclusion.zh) : (j.conclusion[lang] || j.conclusion.zh);
        const at = lines.size ? `${u("open")}${[...lines].sort().map((n) => u(`pos_${n}`)).join(u("sep"))}${u("close")}` : "";
        const item = el("li", { class: `judgment pol-${j.polarity}`, "data-id": j.id },
          el("span", { class: "pol", text: u(j.polarity) }), " ", el("span", { class: "text", text: text + at }),
          schools.length ? el("span", { class: "school", text: ` ${u("open")}${schools.map(school).join(u("sep"))}${u("close")}` }) : null);
        const pid = passageId(j.source.iri);
        if (pid) item.append(" ", el("a", { href: `/passage/${encodeURIComponent(pid)}?lang=${lang}`, class: "open-passage", text: u("passage") }));
        attachSource(item, { rule: j.rule, id: j.id, source: j.source, title: text });
        return item;
      });
    box.append(details(`group-${group}`, u(`g_${group}`), items.length, el("ul", { class: "judgments" }, ...items)));
  }
  const lines = [...c.lines].reverse().map((line) =>
    el("div", { class: "line-states", "data-position": String(line.position) },
       el("span", { class: "where", text: `${u(`pos_${line.position}`)} ${gz(line)}` }),
       el("ul", { class: "chips" }, ...stateChips(line.states))));
  box.append(details("line-states", u("line_states"), c.lines.reduce((n, l) => n + l.states.length, 0), ...lines));
  const castStates = stateChips(c.states, (s) => (s.relative ? ` ${t(s.relative)}` : "")
    + (s.lines.length ? ` ${u("open")}${s.lines.map((n) => u(`pos_${n}`)).join(u("sep"))}${u("close")}` : ""));
  box.append(details("cast-states", u("cast_states"), castStates.length, el("ul", { class: "chips" }, ...castStates)));
}

// -- the form: every field the CLI has, "now" and a coin toss -------------------------------------------------------
function fieldsFromAddress() {
  const q = new URLSearchParams(location.search);
  const fields = {};
  for (const f of CAST_FIELDS) {
    const all = q.getAll(f).filter((v) => v.trim());
    if (all.length) fields[f] = f === "school" && all.length > 1 ? all : all[all.length - 1];
  }
  return fields;
}

function fillForm(fields) {
  const form = $("#cast-form");
  for (const f of CAST_FIELDS) {
    const v = fields[f];
    form.elements[f].value = Array.isArray(v) ? v.join(" ") : (v || "");
  }
  if (MORE_FIELDS.some((f) => fields[f])) $("#more-fields").open = true;
}

// the moment, ISO 8601 with the browser's zone offset: 2024-02-04T16:28+08:00
function nowText(d = new Date()) {
  const p = (n) => String(Math.abs(n)).padStart(2, "0");
  const off = -d.getTimezoneOffset();
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
    + `${off >= 0 ? "+" : "-"}${p(Math.trunc(off / 60))}:${p(off % 60)}`;
}

function fillNow() {
  const form = $("#cast-form");
  form.elements.date.value = nowText();
  for (const f of ["month", "day", "year"]) form.elements[f].value = "";   // the date gives them
}

// six tosses of three coins, bottom line first, as the CLI reads them (H = 字 counts 2, T = 背 counts 3)
function tossCoins() {
  const bits = crypto.getRandomValues(new Uint8Array(18));
  const tosses = [];
  for (let i = 0; i < 6; i++) tosses.push([0, 1, 2].map((k) => (bits[3 * i + k] & 1 ? "H" : "T")).join(""));
  const form = $("#cast-form");
  form.elements.coins.value = tosses.join(",");
  form.elements.spec.value = "";
  form.elements.lines.value = "";
  if (!form.elements.date.value && !form.elements.month.value && !form.elements.day.value) fillNow();
}

function submitCast(ev) {
  ev.preventDefault();
  const form = ev.target;
  const q = new URLSearchParams();
  for (const f of CAST_FIELDS) {
    const v = form.elements[f].value.trim();
    if (v) q.set(f, v);
  }
  if (!q.get("spec") && !q.get("coins")) { showError(u("ask_first")); return; }
  q.set("lang", lang);
  history.pushState(null, "", `/cast?${q}`);
  route();
}

function showError(message) {
  $("#cast-error").textContent = message;
  $("#cast-error").hidden = false;
}

let castSeq = 0;
async function castFromAddress() {
  const fields = fieldsFromAddress();
  fillForm(fields);
  $("#cast-error").hidden = true;
  if (!fields.spec && !fields.coins) {
    $("#chart").hidden = true;
    $("#cast-form-box").open = true;
    $("#form-summary").textContent = u("edit_cast");
    document.title = $("title").dataset.base || document.title;
    return;
  }
  const seq = ++castSeq;
  try {
    const chart = await api("/api/cast", { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify({ ...fields, lang }) });
    if (seq === castSeq) drawChart(chart);
  } catch (e) {
    if (seq !== castSeq) return;
    $("#chart").hidden = true;
    $("#cast-form-box").open = true;
    showError(e instanceof PageError ? e.message : u("err_bad_answer", { status: "" }));
  }
}

async function copyLink() {
  const button = $("#copy-link");
  try {
    await navigator.clipboard.writeText(location.href);
  } catch (e) {   // no clipboard (an insecure origin): select the address for the reader to copy
    const box = el("input", { value: location.href, readonly: "" });
    document.body.append(box);
    box.select();
    document.execCommand("copy");
    box.remove();
  }
  button.textContent = u("copied");
  setTimeout(() => { button.textContent = u("copy_link"); }, 2000);
}

// -- a passage in its chapter, the sentence highlighted, the Korean beside it ---------------------------------
async function showPassage(id) {
  let data;
  try { data = await api(`/api/passages/${encodeURIComponent(decodeURIComponent(id))}`); } catch (e) {
    $("#passage-title").textContent = e.message; return;
  }
  $("#passage-title").textContent = `${t(data.work) || data.work}·${t(data.chapter)}`;
  // the passage's citation (docs/citation.md), a link that resolves here
  $("#passage-urn").replaceChildren(...(data.urn ? [`${u("cite_as")} `, el("a", { href: `/urn/${data.urn}?lang=${lang}`,
                                                                               text: data.urn })] : []));
  const box = $("#passage-text");
  box.replaceChildren();
  const shown = new Set();   // one sentence once, though several rules cite it through passages of their own
  const sentences = data.chapter_passages.filter((p) => p.this || !data.chapter_passages.some((o) => o.this && o.quote === p.quote));
  for (const p of sentences) {
    if (shown.has(p.quote)) continue;
    shown.add(p.quote);
    const zh = el("div", { class: "zh" + (p.this ? " here" : ""), id: p.this ? "here" : `p-${p.id}`, lang: "zh-Hant" });
    const ko = el("div", { class: "ko" + (p.this ? " here" : ""), lang: "ko" });
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
    const text = (lang === "zh-Hans" ? t(r.conclusion.zh) : isZh() ? r.conclusion.zh : r.conclusion[lang])
      || r.conclusion.zh;
    rules.append(el("li", { text: `[${u(r.polarity)}] ${text} (${r.id})` }));
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
    fill("chapter", data.facets.chapters, (v) => `${t(v[0])}·${t(v[1])}`);
    fill("topic", data.facets.topics, (v) => t(v) || v);
    fill("school", data.facets.schools);
    facetsLoaded = true;
  }
  $("#rules-count").textContent = `${data.count} ${u("rules_found")}`;
  const body = $("#rules-table tbody");
  body.replaceChildren();
  const words = (x) => (lang === "zh-Hans" ? t(x.zh) : isZh() ? x.zh : x[lang]) || x.zh;
  for (const r of data.rules.slice(0, 300)) {
    const p = r.passages[0];
    const where = el("td");
    if (p) where.append(el("a", { href: `/passage/${encodeURIComponent(p.id)}?lang=${lang}`,
                                  text: `${words(r.work)}·${t(r.chapter)}「${p.quote}」` }));
    body.append(el("tr", {}, el("td", { class: "id", text: r.id }), el("td", { text: u(r.polarity) }),
                   el("td", { text: words(r.conclusion) }), where, el("td", { text: r.condition || "" })));
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
  const err = $("#query-error");
  let r;
  try {
    r = await fetch("/sparql", { method: "POST", headers: { "Content-Type": "application/sparql-query",
                                                            Accept: "application/sparql-results+json" }, body: text });
  } catch (e) { err.textContent = u("err_network"); err.hidden = false; return; }
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
  const view = path.startsWith("/passage/") || path.startsWith("/urn/") ? "passage" : path === "/rules" ? "rules" : path === "/query" ? "query" : "cast";
  for (const v of ["cast", "passage", "rules", "query"]) $(`#view-${v}`).hidden = v !== view;
  for (const a of document.querySelectorAll("[data-nav]")) a.classList.toggle("active", a.dataset.nav === view);
  hideTip();
  if (view === "cast") castFromAddress();
  if (view === "passage") showPassage(path.slice(path.indexOf("/", 1) + 1));  // /passage/ID or /urn/URN
  if (view === "rules") loadRules().catch((e) => { $("#rules-count").textContent = e.message; });
}

async function start() {
  setLang(new URLSearchParams(location.search).get("lang") || "zh-Hant", false);
  $("title").dataset.base = document.title;
  try { labels = await api("/api/labels"); } catch (e) { labels = null; }
  for (const b of document.querySelectorAll("[data-lang]")) b.addEventListener("click", () => setLang(b.dataset.lang));
  $("#cast-form").addEventListener("submit", submitCast);
  $("#now").addEventListener("click", fillNow);
  $("#toss").addEventListener("click", tossCoins);
  $("#copy-link").addEventListener("click", copyLink);
  $("#print").addEventListener("click", () => window.print());
  $("#rules-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadRules(); });
  $("#query-form").addEventListener("submit", runQuery);
  $("#passage-back").addEventListener("click", (ev) => { ev.preventDefault(); history.back(); });
  document.addEventListener("click", (ev) => { if (tipOwner && !ev.target.closest(".sourced, #tip")) hideTip(); });
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") hideTip(); });
  window.addEventListener("popstate", route);
  route();
}

start();
