"use strict";
// The page's only script. Every text of the run is shown with text nodes (never parsed as
// HTML), and the only links are history run URLs checked to be http(s).
(function () {
  const run = JSON.parse(document.getElementById("agentv-run").textContent);
  const head = run.head, cases = run.cases;
  let details = null; // parsed on the first opened case: a large run opens without it
  const detailOf = (i) => {
    if (details === null) details = JSON.parse(document.getElementById("agentv-details").textContent);
    return details[i] || {};
  };
  const $ = (id) => document.getElementById(id);

  // el makes an element with a class and children: strings become text nodes.
  function el(tag, cls, ...kids) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === false || k === "") continue;
      e.appendChild(typeof k === "object" ? k : document.createTextNode(String(k)));
    }
    return e;
  }
  const isURL = (u) => typeof u === "string" && /^https?:\/\//i.test(u);
  function link(text, url) {
    if (!isURL(url)) return el("span", "", text);
    const a = el("a", "", text);
    a.href = url;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    return a;
  }
  const num = (x) => typeof x === "number" && isFinite(x);
  const fmtScore = (x) => (num(x) ? x.toFixed(3) : "");
  const fmtDelta = (x) => (num(x) ? (x > 0 ? "+" : x < 0 ? "−" : "±") + Math.abs(x).toFixed(3) : "");
  function fmtDur(ms) {
    if (!num(ms)) return "";
    if (ms < 1000) return ms + "ms";
    if (ms < 60000) return (ms / 1000).toFixed(1) + "s";
    return Math.floor(ms / 60000) + "m" + Math.round((ms % 60000) / 1000) + "s";
  }
  const fmtCost = (c) => (num(c) ? "$" + (c < 0.01 ? c.toFixed(4) : c.toFixed(2)) : "");
  const fmtInt = (n) => (num(n) ? n.toLocaleString("en-US") : "");
  const plural = (n, one, many) => fmtInt(n) + " " + (n === 1 ? one : many);

  // The headline: outcome, reason, counts, baseline.
  function renderHead() {
    const h = $("head");
    h.textContent = "";
    const title = el("h1", "", el("span", "badge o-" + head.outcome, head.outcome || "unknown"), "AgentV evals",
      head.cancelled ? " (cancelled)" : "", head.shard ? " — shard " + head.shard.i + " of " + head.shard.n : "");
    h.appendChild(title);
    if (head.reason) h.appendChild(el("div", "facts", head.reason));
    const facts = [
      el("b", "", plural(head.total, "case", "cases")), ": ", plural(head.passed, "passed", "passed"), " · ",
      plural(head.failed, "failed", "failed"), " · ", plural(head.errors, "errored", "errored"),
      head.skipped ? " · " + plural(head.skipped, "skipped", "skipped") : "",
      " · mean score ", el("b", "", fmtScore(head.mean)),
    ];
    const flaky = cases.filter((c) => c.fl).length;
    if (flaky) facts.push(" · " + plural(flaky, "flaky case", "flaky cases"));
    h.appendChild(el("div", "facts", facts));
    const meta = [];
    if (head.gate) meta.push("gate: " + head.gate);
    if (head.dur) meta.push("took " + fmtDur(head.dur));
    if (head.started) meta.push("started " + head.started);
    if (head.version) meta.push("agentv " + head.version);
    const m = el("div", "facts", meta.join(" · "));
    if (isURL(head.runUrl)) m.append(" · ", link("workflow run", head.runUrl));
    h.appendChild(m);
    const b = head.baseline;
    if (b) {
      h.appendChild(el("div", "facts", "Against the baseline", b.src ? [" (", b.src, ")"] : "", ": ",
        b.compared ? ["mean ", fmtScore(b.before), " → ", fmtScore(b.after), ", Δ ", el("b", b.delta < 0 ? "down" : b.delta > 0 ? "up" : "", fmtDelta(b.delta)),
          " (95% interval ", fmtDelta(b.lo), " to ", fmtDelta(b.hi), ") over ", plural(b.compared, "case", "cases")] : "no case in both runs",
        " · ", el("b", b.regressed ? "down" : "", plural(b.regressed, "regressed", "regressed")), " · ",
        plural(b.improved, "improved", "improved"), " · ", plural(b.new, "new", "new"), " · ", plural(b.removed, "removed", "removed"),
        b.noisy ? " · " + plural(b.noisy, "within the noise", "within the noise") : ""));
      if (head.removed && head.removed.length) {
        const d = el("details", "facts", el("summary", "", "removed cases"));
        d.appendChild(el("ul", "plain", head.removed.map((r) => el("li", "", r.ds ? r.ds + " / " : "", r.id, " (baseline " + fmtScore(r.b) + ")"))));
        h.appendChild(d);
      }
    }
    if (head.problems && head.problems.length) {
      h.appendChild(el("ul", "facts", head.problems.map((p) => el("li", "", p))));
    }
    document.title = "AgentV report: " + (head.outcome || "") + ", " + plural(head.total, "case", "cases");
  }

  // Filter choices come from the cases themselves.
  function fillSelect(id, values) {
    const s = $(id);
    for (const v of [...new Set(values)].filter((v) => v).sort()) s.appendChild(new Option(v, v));
    s.hidden = s.options.length < 2; // no value to choose
  }

  const state = { q: "", status: "", dataset: "", grader: "", target: "", flaky: false, regressed: false, sort: "" };
  let hay = null; // lower-cased searchable text of each case, made on the first search
  let view = cases.map((_, i) => i);
  let opened = -1;

  const sorters = {
    score: (c) => c.s,
    delta: (c) => (num(c.dl) ? c.dl : null),
    dur: (c) => c.d,
    cost: (c) => (num(c.c) ? c.c : null),
  };

  function applyFilters() {
    const q = state.q.trim().toLowerCase();
    if (q && hay === null) hay = cases.map((c) => [c.id, c.ds, c.tg, c.f, c.w].join("\n").toLowerCase());
    const out = [];
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      if (state.status && c.v !== state.status) continue;
      if (state.dataset && c.ds !== state.dataset) continue;
      if (state.target && c.tg !== state.target) continue;
      if (state.grader && !(c.g && c.g.includes(state.grader))) continue;
      if (state.flaky && !c.fl) continue;
      if (state.regressed && c.cl !== "regressed") continue;
      if (q && !hay[i].includes(q)) continue;
      out.push(i);
    }
    if (state.sort) {
      const desc = state.sort[0] === "-";
      const key = sorters[state.sort.replace("-", "")];
      // Cases without the value (no baseline, no cost) go last either way.
      out.sort((a, b) => {
        const x = key(cases[a]), y = key(cases[b]);
        if (x === null || y === null) return (x === null) - (y === null) || a - b;
        return (desc ? y - x : x - y) || a - b;
      });
    }
    view = out;
    $("shown").textContent = (view.length === cases.length ? "" : fmtInt(view.length) + " of ") + plural(cases.length, "case", "cases");
    $("spacer").style.height = view.length * rowHeight + "px";
    $("viewport").scrollTop = 0;
    renderRows(true);
  }

  // Only the rows in sight exist in the page: a 10,000-case run draws a few dozen.
  const rowHeight = 30;
  let drawn = "";
  function renderRows(force) {
    const vp = $("viewport"), sp = $("spacer");
    const first = Math.max(0, Math.floor(vp.scrollTop / rowHeight) - 10);
    const last = Math.min(view.length, Math.ceil((vp.scrollTop + vp.clientHeight) / rowHeight) + 10);
    const sig = first + ":" + last + ":" + view.length + ":" + opened;
    if (sig === drawn && !force) return;
    drawn = sig;
    sp.textContent = "";
    if (view.length === 0) {
      sp.appendChild(el("div", "empty", "No case matches."));
      return;
    }
    const frag = document.createDocumentFragment();
    for (let k = first; k < last; k++) frag.appendChild(rowOf(view[k], k));
    sp.appendChild(frag);
  }

  function rowOf(i, k) {
    const c = cases[i];
    const r = el("div", "row" + (i === opened ? " open" : ""),
      el("span", "st st-" + c.v, c.v),
      el("span", "", el("span", "id", c.id), c.fl ? el("span", "tag", "flaky") : "", c.cl === "regressed" ? el("span", "tag down", "regressed") : "",
        c.cl === "improved" ? el("span", "tag up", "improved") : "", c.cl === "new" ? el("span", "tag", "new") : ""),
      el("span", "", c.ds || ""), el("span", "", c.tg || ""),
      el("span", "num", fmtScore(c.s)),
      el("span", "num" + (c.dl < 0 ? " down" : c.dl > 0 ? " up" : ""), fmtDelta(c.dl)),
      el("span", "num", fmtDur(c.d)), el("span", "num", fmtCost(c.c)));
    r.setAttribute("role", "row");
    r.tabIndex = 0;
    r.dataset.i = i;
    r.style.top = k * rowHeight + "px";
    if (c.w) r.title = c.w;
    return r;
  }

  // The opened case.
  function kv(pairs) {
    const dl = el("dl");
    for (const [k, v] of pairs) {
      if (v === "" || v === null || v === undefined) continue;
      dl.append(el("dt", "", k), el("dd", "", v));
    }
    return dl;
  }
  const block = (title, text) => (text ? [el("h3", "", title), el("pre", "", text)] : []);
  function list(cls, items) {
    return items && items.length ? el("ul", "plain " + cls, items.map((t) => el("li", "", t))) : null;
  }

  function graderOf(g) {
    const box = el("div", "grader",
      el("div", "", el("b", "", g.n), g.t && g.t !== g.n ? el("span", "tag", g.t) : "", " ",
        el("span", "badge v-" + (g.err ? "error" : g.v || ""), g.err ? "error" : g.v || ""), " score ", fmtScore(g.s),
        g.w !== 1 ? " · weight " + g.w : "", g.d ? " · " + fmtDur(g.d) : ""));
    if (g.err) box.appendChild(el("pre", "", g.err));
    if (g.rs) box.appendChild(el("pre", "", g.rs));
    // A grader's assertions say what its hits and misses say, with their evidence: one list.
    if (g.as && g.as.length) {
      box.appendChild(el("ul", "plain", g.as.map((a) => el("li", a.p ? "hits" : "misses", a.p ? "✓ " : "✗ ", a.t, a.e ? el("div", "runs", a.e) : ""))));
    } else {
      box.append(...[list("hits", g.hits), list("misses", g.miss)].filter(Boolean));
    }
    for (const ch of g.ch || []) box.appendChild(graderOf(ch));
    return box;
  }

  function turnOf(t) {
    return el("div", "turn",
      el("div", "", el("b", "", "Turn " + t.n), " ", el("span", "badge v-" + t.v, t.v), " score ", fmtScore(t.s), t.d ? " · " + fmtDur(t.d) : ""),
      t.in ? [el("div", "role", "user"), el("pre", "", t.in)] : [],
      t.ans ? [el("div", "role", "assistant"), el("pre", "", t.ans)] : [],
      t.err ? el("pre", "", t.err) : "");
  }

  const svgNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const e = document.createElementNS(svgNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text) e.appendChild(document.createTextNode(text));
    return e;
  }
  // historyChart draws the case's score over past runs and this one.
  function historyChart(c, hist) {
    const pts = hist.filter((p) => num(p.s)).map((p) => ({ s: p.s, st: p.st, run: p.run, url: p.url }));
    pts.push({ s: c.s, st: c.v, run: "this run", now: true });
    const W = 360, H = 96, L = 26, R = 8, T = 8, B = 16;
    const x = (k) => (pts.length === 1 ? L + (W - L - R) / 2 : L + (k * (W - L - R)) / (pts.length - 1));
    const y = (s) => T + (1 - Math.min(1, Math.max(0, s))) * (H - T - B);
    const g = svg("svg", { class: "hist", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    g.appendChild(svg("title", {}, "score over " + plural(pts.length, "run", "runs")));
    for (const s of [0, 0.5, 1]) {
      g.appendChild(svg("line", { x1: L, x2: W - R, y1: y(s), y2: y(s) }));
      g.appendChild(svg("text", { x: 2, y: y(s) + 3 }, s.toFixed(1)));
    }
    g.appendChild(svg("polyline", { points: pts.map((p, k) => x(k).toFixed(1) + "," + y(p.s).toFixed(1)).join(" ") }));
    pts.forEach((p, k) => {
      const dot = svg("circle", { cx: x(k).toFixed(1), cy: y(p.s).toFixed(1), r: p.now ? 4.5 : 3.5, class: "p-" + (["pass", "fail", "error"].includes(p.st) ? p.st : "error") + (p.now ? " p-now" : "") });
      dot.appendChild(svg("title", {}, p.run + ": " + fmtScore(p.s) + " (" + p.st + ")"));
      g.appendChild(dot);
    });
    const runs = el("div", "runs", "runs: ");
    pts.forEach((p, k) => {
      if (k) runs.append(" · ");
      runs.append(link(p.run || "run " + (k + 1), p.url), " " + fmtScore(p.s));
    });
    return [el("h3", "", "Score over runs"), g, runs];
  }

  function openCase(i, scroll) {
    const c = cases[i];
    if (!c) return;
    opened = i;
    const d = detailOf(i);
    const box = $("detail");
    box.textContent = "";
    box.hidden = false;
    const close = el("button", "close", "close ✕");
    close.type = "button";
    close.addEventListener("click", closeCase);
    box.append(close, el("h2", "", el("span", "badge v-" + c.v, c.v), c.id));
    const tokens = c.ti || c.to ? fmtInt(c.ti) + " in · " + fmtInt(c.to) + " out" + (num(d.tc) ? " · " + fmtInt(d.tc) + " cached" : "") : "";
    box.appendChild(kv([
      ["score", fmtScore(c.s) + (num(d.th) ? " (passes at " + d.th + ")" : "")],
      ["baseline", num(c.b) ? fmtScore(c.b) + " → " + fmtScore(c.s) + " (Δ " + fmtDelta(c.dl) + (c.cl ? ", " + c.cl : "") + ")" : c.cl === "new" ? "new since the baseline" : ""],
      ["dataset", c.ds], ["target", c.tg], ["file", c.f ? c.f + (c.l ? ":" + c.l : "") : ""],
      ["trials", c.tr ? (c.tp || 0) + " of " + c.tr + " passed" + (c.fl ? " (flaky)" : "") + (d.ci ? " · 95% interval " + fmtScore(d.ci[0]) + "–" + fmtScore(d.ci[1]) : "") : ""],
      ["duration", fmtDur(c.d)], ["cost", fmtCost(c.c)], ["tokens", tokens],
      ["attempts", d.at > 1 ? String(d.at) : ""], ["tools", d.tools ? d.tools.join(", ") : ""], ["finished", d.ts || ""],
    ]));
    if (d.hist && d.hist.length) box.append(...historyChart(c, d.hist));
    box.append(...block("Error", d.err));
    if (d.warn) box.append(el("h3", "", "Warnings"), list("", d.warn));
    if (d.tu && d.tu.length) {
      box.appendChild(el("h3", "", "Conversation (" + plural(d.tu.length, "turn", "turns") + ")"));
      box.append(...d.tu.map(turnOf));
    } else {
      box.append(...block("Input", d.in), ...block("Answer", d.ans));
    }
    if (d.gr && d.gr.length) {
      box.appendChild(el("h3", "", "Graders"));
      box.append(...d.gr.map(graderOf));
    }
    box.append(...block("Reasoning", d.rs));
    if ((d.hits && d.hits.length) || (d.miss && d.miss.length)) {
      box.append(el("h3", "", "Hits and misses"), ...[list("hits", d.hits), list("misses", d.miss)].filter(Boolean));
    }
    if (d.tri && d.tri.length) {
      box.appendChild(el("h3", "", "Trials"));
      for (const t of d.tri) {
        const det = el("details", "trial", el("summary", "", "Trial " + t.n + " ", el("span", "badge v-" + t.v, t.v), " score " + fmtScore(t.s),
          t.d ? " · " + fmtDur(t.d) : "", num(t.c) ? " · " + fmtCost(t.c) : ""));
        det.append(...block("Answer", t.ans), ...block("Error", t.err), ...(t.tu || []).map(turnOf), ...(t.gr || []).map(graderOf));
        box.appendChild(det);
      }
    }
    if (d.drop) box.appendChild(el("p", "runs", plural(d.drop, "list entry", "list entries") + " left out of this page (see results.jsonl)"));
    renderRows(true);
    if (scroll) {
      const k = view.indexOf(i);
      if (k >= 0) $("viewport").scrollTop = Math.max(0, k * rowHeight - 60);
    }
    box.scrollTop = 0;
    history.replaceState(null, "", "#case-" + i);
  }

  function closeCase() {
    opened = -1;
    $("detail").hidden = true;
    $("detail").textContent = "";
    history.replaceState(null, "", "#");
    renderRows(true);
  }

  renderHead();
  fillSelect("f-dataset", cases.map((c) => c.ds));
  fillSelect("f-target", cases.map((c) => c.tg));
  fillSelect("f-grader", cases.flatMap((c) => c.g || []));
  if (!cases.some((c) => c.fl)) $("f-flaky").parentElement.hidden = true;
  if (!head.baseline) $("f-regressed").parentElement.hidden = true;
  applyFilters();
  performance.mark("agentv-first-row");

  let timer = 0;
  $("q").addEventListener("input", (e) => {
    clearTimeout(timer);
    timer = setTimeout(() => { state.q = e.target.value; applyFilters(); }, 80);
  });
  for (const [id, key] of [["f-status", "status"], ["f-dataset", "dataset"], ["f-grader", "grader"], ["f-target", "target"], ["sort", "sort"]]) {
    $(id).addEventListener("change", (e) => { state[key] = e.target.value; applyFilters(); });
  }
  for (const [id, key] of [["f-flaky", "flaky"], ["f-regressed", "regressed"]]) {
    $(id).addEventListener("change", (e) => { state[key] = e.target.checked; applyFilters(); });
  }
  let frame = 0;
  $("viewport").addEventListener("scroll", () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; renderRows(); });
  });
  window.addEventListener("resize", () => renderRows(true));
  $("spacer").addEventListener("click", (e) => {
    const r = e.target.closest(".row");
    if (r && r.dataset.i !== undefined) openCase(Number(r.dataset.i));
  });
  $("spacer").addEventListener("keydown", (e) => {
    const r = e.target.closest(".row");
    if (r && e.key === "Enter") openCase(Number(r.dataset.i));
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && opened >= 0) closeCase(); });
  // The details follow this script: a case opens once they are read.
  function ready() {
    const m = /^#case-(\d+)$/.exec(location.hash);
    if (m) openCase(Number(m[1]), true);
    document.body.dataset.ready = "1";
    performance.mark("agentv-interactive");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
