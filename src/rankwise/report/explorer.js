/* rankwise report: sortable tables, the query explorer, the paired scatter.
 *
 * One inline script, allowed by the page's Content-Security-Policy through its
 * hash. It reads the data the report packed in the element #rankwise-data
 * (JSON with a base64, DEFLATE-compressed block of typed arrays; see
 * rankwise/report/explorer_data.py), and writes to the page with DOM methods
 * and textContent only: no text of the data is ever parsed as markup.
 * It makes no request: everything it needs is in the page.
 */
(() => {
  "use strict";

  const ROW = 30; // pixel height of a row of the explorer's table (fixed: rows are virtual)
  const EXTRA = 8; // rows drawn above and below the visible ones
  const NF = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0});

  // ---------------------------------------------------------------- helpers

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [key, value] of Object.entries(attrs)) {
        if (value === null || value === undefined || value === false) continue;
        if (key === "text") node.textContent = value;
        else if (key === "cls") node.className = value;
        else node.setAttribute(key, value === true ? "" : String(value));
      }
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const fmt = (v, d = 4) => (Number.isFinite(v) ? v.toFixed(d) : "–");
  const signed = (v, d = 4) =>
    Number.isFinite(v) ? (v > 0 ? "+" : v < 0 ? "−" : "±") + Math.abs(v).toFixed(d) : "–";
  const score4 = (v) => { // scores travel with 16 bits of mantissa: 4 digits are exact
    if (!Number.isFinite(v)) return "–";
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e4 || a < 1e-3)) return v.toPrecision(4);
    return String(Number(v.toPrecision(4)));
  };

  // ---------------------------------------------------------------- sortable tables

  function cellValue(cell) {
    if (!cell) return {num: NaN, text: ""};
    const raw = cell.getAttribute("data-v");
    if (raw !== null) {
      const num = raw === "" ? NaN : Number(raw);
      return {num, text: cell.textContent.trim()};
    }
    return {num: NaN, text: cell.textContent.trim()};
  }

  function sortTable(table, column, button) {
    const th = button.closest("th");
    const ascending = th.getAttribute("aria-sort") !== "ascending";
    for (const other of table.tHead.querySelectorAll("th[aria-sort]")) {
      other.setAttribute("aria-sort", "none");
    }
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    const body = table.tBodies[0];
    const rows = [...body.rows];
    const keyed = rows.map((row, index) => ({row, index, ...cellValue(row.cells[column])}));
    const numeric = keyed.some((k) => !Number.isNaN(k.num));
    keyed.sort((a, b) => {
      let c = 0;
      if (numeric) {
        const an = Number.isNaN(a.num), bn = Number.isNaN(b.num);
        if (an || bn) return an === bn ? a.index - b.index : an ? 1 : -1; // no value: last
        c = a.num - b.num;
      } else {
        c = a.text.localeCompare(b.text, undefined, {numeric: true});
      }
      return (ascending ? c : -c) || a.index - b.index;
    });
    body.append(...keyed.map((k) => k.row));
  }

  function enhanceTables() {
    for (const table of document.querySelectorAll("table[data-sortable]")) {
      const head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
      if (!head) continue;
      [...head.cells].forEach((th, column) => {
        if (th.hasAttribute("data-nosort")) return;
        const button = el("button", {type: "button", cls: "sort",
                                     title: "sort by this column (again: reverse)"});
        button.append(...th.childNodes);
        th.append(button);
        th.setAttribute("aria-sort", "none");
        button.addEventListener("click", () => sortTable(table, column, button));
      });
    }
    for (const input of document.querySelectorAll("input[data-filter]")) {
      const table = document.getElementById(input.getAttribute("data-filter"));
      if (!table) continue;
      const counter = document.getElementById(input.getAttribute("aria-describedby") || "");
      input.addEventListener("input", () => {
        const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
        let shown = 0;
        for (const row of table.tBodies[0].rows) {
          const text = row.textContent.toLowerCase();
          const keep = words.every((w) => text.includes(w));
          row.hidden = !keep;
          shown += keep;
        }
        if (counter) counter.textContent = `${shown} of ${table.tBodies[0].rows.length} rows`;
      });
    }
  }

  // ---------------------------------------------------------------- the data

  function bytesOf(base64) {
    if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(base64);
    const text = atob(base64);
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }

  async function inflate(bytes) {
    if (typeof DecompressionStream !== "function") {
      throw new Error("this browser cannot unpack the explorer's data (it needs " +
                      "DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 or later)");
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  const TYPES = {u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array,
                 f64: Float64Array};

  function sections(layout, raw) {
    const out = {};
    let at = 0;
    for (const [name, kind, count] of layout) {
      const Type = TYPES[kind];
      const size = Type.BYTES_PER_ELEMENT;
      const planes = raw.subarray(at, at + size * count);
      at += size * count;
      if (size === 1) { out[name] = planes; continue; }
      const bytes = new Uint8Array(size * count); // back from byte planes
      for (let p = 0; p < size; p++) {
        const plane = planes.subarray(p * count, (p + 1) * count);
        for (let i = 0, j = p; i < count; i++, j += size) bytes[j] = plane[i];
      }
      out[name] = new Type(bytes.buffer);
    }
    return out;
  }

  class Strings {
    constructor(lengths, utf8) {
      this.utf8 = utf8;
      this.start = new Float64Array(lengths.length + 1);
      for (let i = 0; i < lengths.length; i++) this.start[i + 1] = this.start[i] + lengths[i];
      this.decoder = new TextDecoder();
      this.cache = new Map();
    }
    get length() { return this.start.length - 1; }
    get(i) {
      let value = this.cache.get(i);
      if (value === undefined) {
        value = this.decoder.decode(this.utf8.subarray(this.start[i], this.start[i + 1]));
        if (this.cache.size > 50000) this.cache.clear();
        this.cache.set(i, value);
      }
      return value;
    }
    all() {
      const text = this.decoder.decode(this.utf8);
      if (this.utf8.length === text.length) { // ASCII: slice the text, no decoder per item
        const out = new Array(this.length);
        for (let i = 0; i < out.length; i++) out[i] = text.slice(this.start[i], this.start[i + 1]);
        return out;
      }
      return Array.from({length: this.length}, (_, i) => this.get(i));
    }
  }

  function scores(deltas, counts) {
    const bits = new Uint32Array(deltas.length);
    let at = 0;
    for (let k = 0; k < counts.length; k++) {
      let value = 0;
      for (let j = 0; j < counts[k]; j++, at++) {
        value = j === 0 ? deltas[at] : value + deltas[at];
        bits[at] = (value << 8) >>> 0;
      }
    }
    return new Float32Array(bits.buffer);
  }

  async function load() {
    const holder = document.getElementById("rankwise-data");
    if (!holder) return null;
    const meta = JSON.parse(holder.textContent);
    const arrays = sections(meta.layout, await inflate(bytesOf(meta.data)));
    const Q = meta.queries, S = meta.systems.length;
    const data = {meta, Q, S, M: meta.measures.length, values: arrays.val};
    data.qid = new Strings(arrays["qid.len"], arrays["qid.utf8"]).all();
    data.qtext = meta.texts ? new Strings(arrays["qtext.len"], arrays["qtext.utf8"]).all() : null;
    if (meta.depth > 0) {
      const counts = arrays.cnt;
      data.offsets = new Float64Array(counts.length + 1);
      for (let i = 0; i < counts.length; i++) data.offsets[i + 1] = data.offsets[i] + counts[i];
      data.retrieved = arrays.ret;
      data.base = arrays.dbase;
      data.doc = arrays.doc;
      data.score = scores(arrays.score, counts);
      data.grade = arrays.grade;
      data.tie = arrays.tie;
      data.grades = arrays.grades;
      data.rcount = arrays.rcnt;
      data.roffsets = new Float64Array(Q + 1);
      for (let q = 0; q < Q; q++) data.roffsets[q + 1] = data.roffsets[q] + arrays.rcnt[q];
      data.rdoc = arrays.rdoc;
      data.rgrade = arrays.rgrade;
      data.rrank = arrays.rrank;
      data.docs = new Strings(arrays["did.len"], arrays["did.utf8"]);
      data.doctext = meta.doctexts ? new Strings(arrays["dtext.len"], arrays["dtext.utf8"]) : null;
    }
    return data;
  }

  // ---------------------------------------------------------------- grades

  function gradeClass(data, code) {
    if (!code) return "g-unjudged";
    const value = data.grades[code - 1];
    if (value < 0) return "g-neg";
    if (value < data.meta.rel) return "g-0";
    let level = 0; // the rank of this relevant grade among the relevant grades
    for (let i = 0; i < data.grades.length; i++) {
      if (data.grades[i] >= data.meta.rel && data.grades[i] < value) level++;
    }
    return `g-${Math.min(level + 1, 4)}`;
  }

  function gradeChip(data, code) {
    const label = code ? String(Number(data.grades[code - 1].toPrecision(4))) : "?";
    const title = code ? `grade ${label}` : "unjudged";
    return el("span", {cls: `gr ${gradeClass(data, code)}`, title, "aria-label": title,
                       text: label});
  }

  // ---------------------------------------------------------------- the explorer

  class Explorer {
    constructor(root, data) {
      this.root = root;
      this.data = data;
      this.baseline = data.meta.baseline;
      this.measure = 0;
      this.system = this.firstOther();
      this.sortKey = null;
      this.sortUp = true;
      this.words = [];
      this.show = "all";
      this.pinned = null; // queries picked on the scatter
      this.active = 0; // position in the view of the row with the keyboard focus
      this.open = -1; // the query shown below
      this.order = Uint32Array.from({length: data.Q}, (_, i) => i);
      this.view = this.order;
      this.search = data.qid.map((id, q) =>
        (id + "\u0000" + (data.qtext ? data.qtext[q] : "")).toLowerCase());
      this.build();
    }

    firstOther() {
      const S = this.data.S;
      for (let s = 0; s < S; s++) if (s !== this.baseline) return s;
      return 0;
    }

    value(m, s, q) { return this.data.values[(m * this.data.S + s) * this.data.Q + q]; }

    delta(m, s, q) {
      return this.baseline === null ? NaN : this.value(m, s, q) - this.value(m, this.baseline, q);
    }

    // -- layout
    build() {
      const d = this.data, meta = d.meta;
      const $ = (id) => this.root.querySelector(`#${id}`);
      this.status = $("x-status");
      this.controls = $("x-controls");
      this.measureSelect = $("x-measure");
      meta.measures.forEach((name, m) => this.measureSelect.append(el("option", {value: m, text: name})));
      this.systemSelect = $("x-system");
      meta.systems.forEach((name, s) => {
        if (s !== this.baseline) this.systemSelect.append(el("option", {value: s, text: name}));
      });
      this.systemSelect.value = String(this.system);
      if (this.baseline === null) this.systemSelect.closest("label").hidden = true;
      this.input = $("x-search");
      this.showSelect = $("x-show");
      if (this.baseline === null) this.showSelect.closest("label").hidden = true;
      this.count = $("x-count");
      this.clear = $("x-clear");
      this.wrap = $("x-wrap");
      this.table = $("x-table");
      this.panel = $("x-query");
      this.buildHead();
      this.measureSelect.addEventListener("change", () => {
        this.measure = Number(this.measureSelect.value);
        this.refilter();
        if (this.open >= 0) this.openQuery(this.open, false);
      });
      this.systemSelect.addEventListener("change", () => {
        this.system = Number(this.systemSelect.value);
        this.showScatter();
        this.refilter();
      });
      this.input.addEventListener("input", () => {
        const start = performance.now();
        this.words = this.input.value.toLowerCase().split(/\s+/).filter(Boolean);
        this.refilter();
        const end = performance.now();
        performance.measure("rankwise-filter", {start, end});
        requestAnimationFrame(() => performance.measure("rankwise-filter-paint",
                                                        {start, end: performance.now()}));
      });
      this.showSelect.addEventListener("change", () => {
        this.show = this.showSelect.value;
        this.refilter();
      });
      this.clear.addEventListener("click", () => { this.pinned = null; this.refilter(); });
      this.wrap.addEventListener("scroll", () => this.render(), {passive: true});
      this.table.tBodies[0].addEventListener("click", (event) => {
        const row = event.target.closest("tr[data-q]");
        if (row) { this.active = Number(row.dataset.at); this.openQuery(Number(row.dataset.q)); }
      });
      this.table.tBodies[0].addEventListener("keydown", (event) => this.rowKey(event));
      this.panel.addEventListener("keydown", (event) => {
        if (event.key === "Escape") { this.closeQuery(); }
      });
      this.setupScatter();
      this.controls.hidden = false;
      this.wrap.hidden = false;
      this.status.textContent = "";
      this.status.hidden = true;
      this.refilter();
      const wanted = decodeURIComponent((location.hash.match(/^#query=(.*)$/) || [])[1] || "");
      if (wanted) {
        const q = this.data.qid.indexOf(wanted);
        if (q >= 0) this.openQuery(q, false);
      }
    }

    buildHead() {
      const d = this.data, meta = d.meta;
      const columns = [{key: "id", label: "query", cls: "qid"}];
      if (d.qtext) columns.push({key: "text", label: "text", cls: "qtext"});
      meta.systems.forEach((name, s) => {
        columns.push({key: `v${s}`, label: name, cls: "num", title: `${name}: value`});
        if (this.baseline !== null && s !== this.baseline) {
          columns.push({key: `d${s}`, label: "Δ", cls: "num delta",
                        title: `${name} − ${meta.systems[this.baseline]}`});
        }
      });
      this.columns = columns;
      const row = el("tr");
      for (const column of columns) {
        const button = el("button", {type: "button", cls: "sort", title: column.title ?
          `sort by ${column.title} (again: reverse)` : "sort (again: reverse)"}, column.label);
        const th = el("th", {scope: "col", cls: column.cls, "aria-sort": "none",
                             "data-key": column.key}, button);
        button.addEventListener("click", () => this.sortBy(column.key));
        row.append(th);
      }
      this.table.tHead.replaceChildren(row);
    }

    // -- which queries, in which order
    sortBy(key) {
      if (this.sortKey === key) this.sortUp = !this.sortUp;
      else { this.sortKey = key; this.sortUp = key === "id" || key === "text" || key[0] === "d"; }
      for (const th of this.table.tHead.rows[0].cells) {
        th.setAttribute("aria-sort", th.dataset.key === key ?
          (this.sortUp ? "ascending" : "descending") : "none");
      }
      const d = this.data, Q = d.Q, up = this.sortUp ? 1 : -1;
      const order = Uint32Array.from({length: Q}, (_, i) => i);
      if (key === "id" || key === "text") {
        const texts = key === "id" ? d.qid : d.qtext;
        const collator = new Intl.Collator(undefined, {numeric: true});
        order.sort((a, b) => up * collator.compare(texts[a], texts[b]) || a - b);
      } else {
        const s = Number(key.slice(1)), m = this.measure;
        const keys = new Float64Array(Q);
        for (let q = 0; q < Q; q++) keys[q] = key[0] === "v" ? this.value(m, s, q) : this.delta(m, s, q);
        order.sort((a, b) => {
          const x = keys[a], y = keys[b];
          const xn = Number.isNaN(x), yn = Number.isNaN(y);
          if (xn || yn) return xn === yn ? a - b : xn ? 1 : -1; // no value: last
          return up * (x - y) || a - b;
        });
      }
      this.order = order;
      this.refilter();
    }

    refilter() {
      const d = this.data, words = this.words, order = this.order;
      const m = this.measure, s = this.system, show = this.show;
      const out = new Uint32Array(order.length);
      const pinned = this.pinned ? new Set(this.pinned) : null;
      let n = 0;
      for (let i = 0; i < order.length; i++) {
        const q = order[i];
        if (pinned && !pinned.has(q)) continue;
        if (show !== "all") {
          const delta = this.delta(m, s, q);
          if (Number.isNaN(delta) || (show === "lost" ? delta >= 0 : show === "gained" ?
              delta <= 0 : delta !== 0)) continue;
        }
        if (words.length) {
          const text = this.search[q];
          let keep = true;
          for (const w of words) if (!text.includes(w)) { keep = false; break; }
          if (!keep) continue;
        }
        out[n++] = q;
      }
      this.view = out.subarray(0, n);
      this.active = Math.min(this.active, Math.max(n - 1, 0));
      const note = this.pinned ? ` (${this.pinned.length} picked on the scatter)` : "";
      this.count.textContent = `${NF.format(n)} of ${NF.format(d.Q)} queries${note}`;
      this.clear.hidden = !this.pinned;
      this.wrap.scrollTop = Math.min(this.wrap.scrollTop, Math.max(0, n * ROW));
      this.render(true);
    }

    // -- the visible rows only
    render(force) {
      const n = this.view.length;
      const top = this.wrap.scrollTop;
      const height = Math.max(this.wrap.clientHeight, 450); // the wrapper's most
      const first = Math.max(0, Math.floor(top / ROW) - EXTRA);
      const last = Math.min(n, Math.ceil((top + height) / ROW) + EXTRA);
      if (!force && first === this.first && last === this.last) return;
      this.first = first; this.last = last;
      const body = this.table.tBodies[0];
      const rows = [el("tr", {cls: "spacer", "aria-hidden": "true",
                              style: `height:${first * ROW}px`})];
      for (let at = first; at < last; at++) rows.push(this.row(this.view[at], at));
      rows.push(el("tr", {cls: "spacer", "aria-hidden": "true",
                          style: `height:${(n - last) * ROW}px`}));
      const focused = body.contains(document.activeElement);
      body.replaceChildren(...rows);
      if (!n) body.append(el("tr", {}, el("td", {colspan: this.columns.length, cls: "empty",
                                                 text: "no query matches"})));
      if (focused) this.focusActive();
    }

    row(q, at) {
      const d = this.data, m = this.measure;
      const cells = [el("td", {cls: "qid", title: d.qid[q]}, d.qid[q])];
      if (d.qtext) cells.push(el("td", {cls: "qtext", title: d.qtext[q]}, d.qtext[q]));
      for (let s = 0; s < d.S; s++) {
        cells.push(el("td", {cls: "num"}, fmt(this.value(m, s, q))));
        if (this.baseline !== null && s !== this.baseline) {
          const delta = this.delta(m, s, q);
          cells.push(el("td", {cls: `num delta ${delta > 0 ? "pos" : delta < 0 ? "neg" : ""}`},
                        signed(delta)));
        }
      }
      const row = el("tr", {"data-q": q, "data-at": at, tabindex: at === this.active ? 0 : -1,
                            cls: q === this.open ? "open" : null,
                            "aria-selected": q === this.open ? "true" : "false"}, ...cells);
      return row;
    }

    focusActive() {
      const row = this.table.tBodies[0].querySelector(`tr[data-at="${this.active}"]`);
      if (row) row.focus({preventScroll: true});
    }

    rowKey(event) {
      const n = this.view.length;
      if (!n) return;
      const page = Math.max(1, Math.floor(this.wrap.clientHeight / ROW) - 1);
      const moves = {ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page};
      let target = this.active;
      if (event.key in moves) target += moves[event.key];
      else if (event.key === "Home") target = 0;
      else if (event.key === "End") target = n - 1;
      else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        this.openQuery(this.view[this.active]);
        return;
      } else return;
      event.preventDefault();
      this.active = Math.max(0, Math.min(n - 1, target));
      const y = this.active * ROW;
      if (y < this.wrap.scrollTop) this.wrap.scrollTop = y;
      else if (y + ROW > this.wrap.scrollTop + this.wrap.clientHeight) {
        this.wrap.scrollTop = y + ROW - this.wrap.clientHeight;
      }
      this.render(true);
      this.focusActive();
    }

    // -- one query: values, relevant documents, the ranked lists side by side
    openQuery(q, focus = true) {
      const d = this.data, meta = d.meta;
      if (q !== this.open) this.allRelevant = false;
      this.open = q;
      this.render(true);
      this.markScatter(q);
      history.replaceState(null, "", `#query=${encodeURIComponent(d.qid[q])}`);
      const close = el("button", {type: "button", cls: "x-close", title: "close (Escape)"},
                       "close");
      close.addEventListener("click", () => this.closeQuery());
      const at = this.view.indexOf(q);
      const step = (by, label) => {
        const button = el("button", {type: "button", cls: "x-step"}, label);
        const target = at + by;
        if (at < 0 || target < 0 || target >= this.view.length) button.disabled = true;
        button.addEventListener("click", () => {
          this.active = target;
          this.openQuery(this.view[target]);
        });
        return button;
      };
      const head = el("div", {cls: "x-qhead"},
        el("h3", {id: "x-query-title"}, "Query ", el("code", {}, d.qid[q])),
        el("div", {cls: "x-nav"}, step(-1, "← previous"), step(1, "next →"), close));
      const parts = [head];
      if (d.qtext && d.qtext[q]) parts.push(el("p", {cls: "x-qtext"}, d.qtext[q]));
      parts.push(this.valuesTable(q));
      if (meta.depth > 0) {
        parts.push(this.legend());
        parts.push(this.lists(q));
        this.docBox = el("div", {cls: "x-doc", "aria-live": "polite", id: "x-doc"},
          el("p", {cls: "legend"}, "Point at a document to see it in every list; " +
                   "click it (or Enter) to show what is known of it here."));
        parts.push(this.docBox);
        parts.push(this.relevantTable(q));
      } else {
        parts.push(el("p", {cls: "empty"}, "No ranked lists: this report was built from " +
                                             "evaluated results, or with a list depth of 0."));
      }
      this.panel.replaceChildren(...parts);
      this.panel.hidden = false;
      this.panel.setAttribute("aria-labelledby", "x-query-title");
      if (focus) {
        this.panel.focus({preventScroll: true});
        this.panel.scrollIntoView({block: "start"});
      }
    }

    closeQuery() {
      const q = this.open;
      this.open = -1;
      this.panel.hidden = true;
      this.panel.replaceChildren();
      this.markScatter(-1);
      history.replaceState(null, "", location.pathname + location.search);
      this.render(true);
      const at = this.view.indexOf(q);
      if (at >= 0) {
        this.active = at;
        const y = at * ROW;
        if (y < this.wrap.scrollTop || y > this.wrap.scrollTop + this.wrap.clientHeight - ROW) {
          this.wrap.scrollTop = Math.max(0, y - ROW * 3);
        }
        this.render(true);
        this.focusActive();
      }
    }

    valuesTable(q) {
      const d = this.data, meta = d.meta;
      const head = el("tr", {}, el("th", {scope: "col"}, "measure"));
      meta.systems.forEach((name, s) => {
        head.append(el("th", {scope: "col", cls: "num"}, name));
        if (this.baseline !== null && s !== this.baseline) head.append(el("th", {cls: "num"}, "Δ"));
      });
      const body = meta.measures.map((name, m) => {
        const row = el("tr", {cls: m === this.measure ? "current" : null},
                       el("th", {scope: "row"}, el("code", {}, name)));
        for (let s = 0; s < d.S; s++) {
          row.append(el("td", {cls: "num"}, fmt(this.value(m, s, q))));
          if (this.baseline !== null && s !== this.baseline) {
            const delta = this.delta(m, s, q);
            row.append(el("td", {cls: `num ${delta > 0 ? "pos" : delta < 0 ? "neg" : ""}`},
                          signed(delta)));
          }
        }
        return row;
      });
      return el("div", {cls: "scroll"}, el("table", {cls: "x-values"},
        el("thead", {}, head), el("tbody", {}, ...body)));
    }

    legend() {
      const d = this.data;
      const chips = [];
      for (let code = 1; code <= d.grades.length; code++) chips.push(gradeChip(d, code));
      chips.push(gradeChip(d, 0));
      return el("p", {cls: "legend x-grades"}, "Grades: ", ...chips.flatMap((c) => [c, " "]),
        `(relevant: grade ≥ ${d.meta.rel}; ? = unjudged). `,
        el("span", {cls: "tie-demo"}, "="), " marks documents whose scores tie (the bar joins " +
        `them; tied documents are shown in the order of the ties rule: ${d.meta.ties}).`);
    }

    relevantTable(q) {
      const d = this.data, meta = d.meta, S = d.S;
      const from = d.roffsets[q], to = d.roffsets[q + 1];
      const found = meta.systems.map((name, s) => {
        let n = 0;
        for (let r = from; r < to; r++) {
          const rank = d.rrank[r * S + s];
          if (rank > 0 && rank <= meta.depth) n++;
        }
        return `${name} ${n}`;
      });
      const title = el("summary", {}, `Relevant documents (${to - from}) and the rank each ` +
                       `system gave them; in the top ${meta.depth}: ${found.join(", ")}`);
      if (to === from) {
        return el("div", {cls: "x-relevant"}, el("h4", {}, "No judged relevant document " +
                                                 "for this query."));
      }
      const head = el("tr", {}, el("th", {scope: "col"}, "document"),
                      el("th", {scope: "col"}, "grade"),
                      ...meta.systems.map((name) => el("th", {scope: "col", cls: "num"}, name)));
      // best placed first: by the highest rank any system gave them, then grade
      const order = [];
      for (let r = from; r < to; r++) {
        let best = Infinity;
        for (let s = 0; s < S; s++) {
          const rank = d.rrank[r * S + s];
          if (rank > 0) best = Math.min(best, rank);
        }
        order.push([best, r]);
      }
      order.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const rows = [];
      const limit = 25;
      for (const [, r] of order.slice(0, this.allRelevant ? order.length : limit)) {
        const doc = d.base[q] + d.rdoc[r];
        const row = el("tr", {"data-d": doc},
          el("td", {cls: "mono"}, d.docs.get(doc)), el("td", {}, gradeChip(d, d.rgrade[r])));
        for (let s = 0; s < S; s++) {
          const rank = d.rrank[r * S + s];
          const text = rank < 0 ? "no list" : rank === 0 ? "not retrieved" : String(rank);
          row.append(el("td", {cls: `num ${rank > 0 && rank <= meta.depth ? "in" :
                                          rank === 0 ? "missed" : "deep"}`}, text));
        }
        rows.push(row);
      }
      let more = null;
      if (to - from > limit && !this.allRelevant) {
        more = el("button", {type: "button", cls: "x-more"},
                  `show the ${to - from - limit} others`);
        more.addEventListener("click", () => {
          this.allRelevant = true;
          const box = this.panel.querySelector(".x-relevant");
          box.replaceWith(this.relevantTable(q));
        });
      }
      return el("details", {cls: "x-relevant", open: true}, title,
        el("div", {cls: "scroll"}, el("table", {}, el("thead", {}, head),
                                      el("tbody", {}, ...rows))), more);
    }

    lists(q) {
      const d = this.data, meta = d.meta, Q = d.Q;
      const columns = [];
      const where = new Map(); // document -> [rank per system]
      for (let s = 0; s < d.S; s++) {
        const k = s * Q + q;
        for (let e = d.offsets[k]; e < d.offsets[k + 1]; e++) {
          const doc = d.base[q] + d.doc[e];
          if (!where.has(doc)) where.set(doc, new Array(d.S).fill(0));
          where.get(doc)[s] = e - d.offsets[k] + 1;
        }
      }
      this.where = where;
      for (let s = 0; s < d.S; s++) {
        const k = s * Q + q;
        const color = meta.colors[s % meta.colors.length];
        const header = el("h4", {cls: "x-lhead"}, el("span", {cls: "swatch",
          style: `background:${color}`, "aria-hidden": "true"}), meta.systems[s]);
        if (!meta.lists[s]) {
          columns.push(el("div", {cls: "x-col"}, header,
            el("p", {cls: "empty"}, "No ranked list (given as evaluated results).")));
          continue;
        }
        const items = [];
        for (let e = d.offsets[k]; e < d.offsets[k + 1]; e++) {
          const doc = d.base[q] + d.doc[e];
          const tie = d.tie[e];
          const ranks = where.get(doc);
          const others = ranks.filter((rank, t) => t !== s && rank > 0).length;
          const shared = meta.systems.map((name, t) =>
            `${name} ${ranks[t] ? "#" + ranks[t] : "–"}`).join(", ");
          const cls = ["x-item", tie & 1 ? "tie-up" : "", tie & 2 ? "tie-down" : "",
                       others ? "shared" : "alone"].join(" ");
          const item = el("li", {cls, tabindex: 0, "data-d": doc, "data-s": s,
                                 title: `${d.docs.get(doc)}: ${shared}`},
            el("span", {cls: "rk"}, String(e - d.offsets[k] + 1)),
            gradeChip(d, d.grade[e]),
            el("span", {cls: "id"}, d.docs.get(doc)),
            el("span", {cls: "sc"}, (tie ? "= " : "") + score4(d.score[e])));
          items.push(item);
        }
        const n = d.offsets[k + 1] - d.offsets[k];
        const retrieved = d.retrieved[k];
        const relevantHere = [];
        for (let r = d.roffsets[q]; r < d.roffsets[q + 1]; r++) {
          const rank = d.rrank[r * d.S + s];
          if (!(rank > 0 && rank <= meta.depth)) relevantHere.push(rank);
        }
        const foot = retrieved === 0 ? "retrieved nothing for this query" :
          `top ${n} of ${NF.format(retrieved)} retrieved` + (relevantHere.length ?
            `; ${relevantHere.length} relevant document${relevantHere.length > 1 ? "s" : ""} ` +
            "below them or not retrieved" : "");
        columns.push(el("div", {cls: "x-col", style: `--system:${color}`}, header,
          el("ol", {cls: "x-list", "aria-label": `${meta.systems[s]}: first ${n} documents`},
             ...items),
          el("p", {cls: "x-foot"}, foot)));
      }
      const grid = el("div", {cls: "x-lists", style: `--columns:${d.S}`}, ...columns);
      const highlight = (doc) => {
        for (const node of grid.querySelectorAll(".hl")) node.classList.remove("hl");
        if (doc === null) return;
        for (const node of grid.querySelectorAll(`li[data-d="${doc}"]`)) node.classList.add("hl");
      };
      grid.addEventListener("mouseover", (event) => {
        const item = event.target.closest("li[data-d]");
        highlight(item ? item.dataset.d : this.pinnedDoc ?? null);
      });
      grid.addEventListener("mouseleave", () => highlight(this.pinnedDoc ?? null));
      grid.addEventListener("focusin", (event) => {
        const item = event.target.closest("li[data-d]");
        if (item) highlight(item.dataset.d);
      });
      const pick = (item) => {
        this.pinnedDoc = item.dataset.d;
        for (const node of grid.querySelectorAll(".pick")) node.classList.remove("pick");
        for (const node of grid.querySelectorAll(`li[data-d="${item.dataset.d}"]`)) {
          node.classList.add("pick");
        }
        highlight(item.dataset.d);
        this.showDoc(Number(item.dataset.d), q);
      };
      grid.addEventListener("click", (event) => {
        const item = event.target.closest("li[data-d]");
        if (item) pick(item);
      });
      grid.addEventListener("keydown", (event) => {
        const item = event.target.closest("li[data-d]");
        if (!item) return;
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); pick(item); }
        else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          event.preventDefault();
          const next = event.key === "ArrowDown" ? item.nextElementSibling :
            item.previousElementSibling;
          if (next) next.focus();
        } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
          event.preventDefault();
          const columnsWithLists = [...grid.querySelectorAll(".x-list")];
          const list = item.parentElement;
          const at = columnsWithLists.indexOf(list) + (event.key === "ArrowRight" ? 1 : -1);
          const target = columnsWithLists[at];
          if (target) {
            const same = target.querySelector(`li[data-d="${item.dataset.d}"]`);
            const index = [...list.children].indexOf(item);
            (same || target.children[Math.min(index, target.children.length - 1)] ||
             target).focus();
          }
        }
      });
      this.pinnedDoc = null;
      return grid;
    }

    showDoc(doc, q) {
      const d = this.data, meta = d.meta;
      const ranks = this.where.get(doc) || new Array(d.S).fill(0);
      let grade = 0;
      for (let r = d.roffsets[q]; r < d.roffsets[q + 1]; r++) {
        if (d.base[q] + d.rdoc[r] === doc) grade = d.rgrade[r];
      }
      if (!grade) { // judged but not relevant, or unjudged: read it off a list
        for (let s = 0; s < d.S && !grade; s++) {
          const k = s * d.Q + q;
          for (let e = d.offsets[k]; e < d.offsets[k + 1]; e++) {
            if (d.base[q] + d.doc[e] === doc) { grade = d.grade[e]; break; }
          }
        }
      }
      const placed = meta.systems.map((name, s) => `${name}: ${ranks[s] ? `#${ranks[s]}` :
        `not in its top ${meta.depth}`}`).join(" · ");
      const text = d.doctext ? d.doctext.get(doc) : "";
      this.docBox.replaceChildren(
        el("h4", {}, "Document ", el("code", {}, d.docs.get(doc)), " ", gradeChip(d, grade)),
        el("p", {cls: "legend"}, placed),
        text ? el("blockquote", {cls: "x-text"}, text) :
          el("p", {cls: "legend"}, d.doctext ? "(no text for this document in the collection)" :
            "(no document texts: give the collection with --documents)"));
    }

    // -- the scatter: one figure per system, its dots linked to the queries
    setupScatter() {
      this.figures = [...this.root.querySelectorAll("figure[data-plot='scatter']")];
      this.showScatter();
      for (const figure of this.figures) {
        const svg = figure.querySelector("svg");
        svg.addEventListener("click", (event) => this.scatterClick(svg, event));
      }
    }

    showScatter() {
      for (const figure of this.figures) {
        figure.hidden = Number(figure.dataset.system) !== this.system;
      }
      this.markScatter(this.open);
    }

    panels(svg) {
      return [...svg.querySelectorAll("g.panel")].map((g) => {
        const [x, y, w, h] = g.dataset.box.split(" ").map(Number);
        const [x0, x1] = g.dataset.xlim.split(" ").map(Number);
        const [y0, y1] = g.dataset.ylim.split(" ").map(Number);
        const m = this.data.meta.measures.indexOf(g.dataset.measure);
        return {g, x, y, w, h, x0, x1, y0, y1, m,
                px: (v) => x + (v - x0) / (x1 - x0) * w,
                py: (v) => y + (1 - (v - y0) / (y1 - y0)) * h};
      });
    }

    scatterClick(svg, event) {
      const point = svg.createSVGPoint();
      point.x = event.clientX; point.y = event.clientY;
      const p = point.matrixTransform(svg.getScreenCTM().inverse());
      const system = Number(svg.closest("figure").dataset.system);
      for (const panel of this.panels(svg)) {
        if (p.x < panel.x - 6 || p.x > panel.x + panel.w + 6 ||
            p.y < panel.y - 6 || p.y > panel.y + panel.h + 6 || panel.m < 0) continue;
        const near = this.near(panel, system, p.x, p.y, 7);
        if (!near.length) return;
        this.measure = panel.m;
        this.measureSelect.value = String(panel.m);
        if (near.length > 1) {
          this.pinned = near;
          this.words = []; this.input.value = "";
          this.show = "all"; this.showSelect.value = "all";
        }
        this.refilter();
        this.active = Math.max(0, this.view.indexOf(near[0]));
        this.openQuery(near[0]);
        return;
      }
    }

    near(panel, system, x, y, radius) {
      // the queries drawn within radius pixels: the nearest, and all on its pixel
      const d = this.data, base = this.baseline;
      let best = Infinity;
      const found = [];
      for (let q = 0; q < d.Q; q++) {
        const a = this.value(panel.m, base, q), b = this.value(panel.m, system, q);
        if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
        const dx = Math.round(panel.px(a)) - x, dy = Math.round(panel.py(b)) - y;
        const dist = Math.hypot(dx, dy);
        if (dist <= radius) found.push([dist, q, Math.round(panel.px(a)), Math.round(panel.py(b))]);
        best = Math.min(best, dist);
      }
      if (!found.length) return [];
      found.sort((u, v) => u[0] - v[0] || u[1] - v[1]);
      const [, , cx, cy] = found[0];
      return found.filter((f) => f[2] === cx && f[3] === cy).map((f) => f[1]);
    }

    markScatter(q) {
      for (const ring of this.root.querySelectorAll(".x-ring")) ring.remove();
      if (q < 0 || this.baseline === null) return;
      for (const figure of this.figures) {
        const system = Number(figure.dataset.system);
        for (const panel of this.panels(figure.querySelector("svg"))) {
          if (panel.m < 0) continue;
          const a = this.value(panel.m, this.baseline, q), b = this.value(panel.m, system, q);
          if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
          const ring = document.createElementNS("http://www.w3.org/2000/svg", "circle");
          ring.setAttribute("cx", Math.round(panel.px(a)));
          ring.setAttribute("cy", Math.round(panel.py(b)));
          ring.setAttribute("r", "7");
          ring.setAttribute("class", "x-ring");
          panel.g.append(ring);
        }
      }
    }
  }

  // ---------------------------------------------------------------- start

  async function start() {
    enhanceTables();
    const root = document.getElementById("x-app");
    if (!root) { performance.mark("rankwise-interactive"); return; }
    const status = root.querySelector("#x-status");
    try {
      const data = await load();
      if (!data) return;
      window.rankwiseExplorer = new Explorer(root, data);
      root.dataset.state = "ready";
    } catch (error) {
      status.textContent = `The explorer could not start: ${error.message}`;
      root.dataset.state = "failed";
    } finally {
      performance.mark("rankwise-interactive");
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
