(function () {
  "use strict";
  // The page's data: every Trial and transcript as recorded, deflated (see payload.py).
  var loaded = inflate(document.getElementById("report-data"));
  var table = document.getElementById("cases");
  var rows = Array.prototype.slice.call(table.querySelectorAll(".case"));
  var LABEL = { passed: "PASS", failed: "FAIL", errored: "ERR", unexercised: "UNEX" };
  var CLASS = { passed: "pass", failed: "fail", errored: "err", unexercised: "unex" };

  function inflate(node) {
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot inflate the transcripts (it lacks DecompressionStream)"));
    }
    var text = atob(node.textContent.trim());
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse).then(function (data) {
      document.body.dataset.loaded = "true";
      return data;
    });
  }

  function clone(id) {
    return document.getElementById(id).content.firstElementChild.cloneNode(true);
  }
  function field(node, name) {
    var selector = '[data-f="' + name + '"]';  // the node itself, or one inside it
    return node.matches(selector) ? node : node.querySelector(selector);
  }
  // Text only (textContent): nothing recorded is ever read as markup.
  function set(node, name, value) {
    var el = field(node, name);
    if (value === null || value === undefined || value === "") {
      el.hidden = true;
    } else {
      el.textContent = String(value);
    }
    return el;
  }
  function json(value) {
    if (value === null || value === undefined) return null;
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  // Filters: verdict (any model's), tier, family, and text over the id and the reasons.
  var fVerdict = document.getElementById("f-verdict");
  var fTier = document.getElementById("f-tier");
  var fFamily = document.getElementById("f-family");
  var fText = document.getElementById("f-text");
  var shown = document.getElementById("shown");
  function apply() {
    var v = fVerdict.value, t = fTier.value, f = fFamily.value;
    var text = fText.value.trim().toLowerCase();
    var n = 0;
    rows.forEach(function (row) {
      var ok = (!v || row.dataset.v.split(" ").indexOf(v) >= 0) &&
        (!t || row.dataset.tier === t) &&
        (!f || row.dataset.fam.split("|").indexOf(f) >= 0) &&
        (!text || row.dataset.text.indexOf(text) >= 0);
      if (row.hidden !== !ok) row.hidden = !ok;
      var next = row.nextElementSibling;
      if (next && next.classList.contains("case-detail")) next.hidden = !ok || !row.classList.contains("opened");
      if (ok) n += 1;
    });
    shown.textContent = n + " of " + rows.length + " Cases shown";
    if (current.hidden) {
      var first = rows.filter(function (r) { return !r.hidden; })[0];
      if (first) rove(first);
    }
  }
  [fVerdict, fTier, fFamily].forEach(function (el) { el.addEventListener("change", apply); });
  fText.addEventListener("input", apply);

  // Opening a Case lays out its Trials, once. A click on the row opens or closes it; its id
  // is a real link (#case-<id>), as are the Matrix's, and the page opens what a link names.
  table.addEventListener("click", function (event) {
    var row = event.target.closest(".case");
    if (row && !event.target.closest(".case-detail") && !event.target.closest("a")) {
      rove(row);
      toggle(row);
    }
  });
  function toggle(row, open) {
    var next = row.nextElementSibling;
    var built = next && next.classList.contains("case-detail");
    var show = open === undefined ? !row.classList.contains("opened") : open;
    row.classList.toggle("opened", show);
    row.setAttribute("aria-expanded", show ? "true" : "false");
    row.querySelector(".open").textContent = show ? "▾" : "▸";
    if (built) {
      next.hidden = !show;
      return Promise.resolve(next);
    }
    if (!show) return Promise.resolve(null);
    var holder = clone("t-detail");
    row.after(holder);
    return loaded.then(function (data) {
      detail(field(holder, "trials"), data, Number(row.dataset.i));
      return holder;
    }, function (error) {
      field(holder, "trials").appendChild(note("The transcripts could not be read: " + error.message));
      return holder;
    });
  }

  // What a jump must clear: the sticky filter bar, however many lines it wraps to.
  var bar = document.getElementById("filters");
  function clearance() {
    document.documentElement.style.setProperty("--sticky", (bar.offsetHeight + 8) + "px");
  }
  clearance();
  window.addEventListener("resize", clearance);

  // Keyboard: the rows are one tab stop (the last row used); ↑ ↓ Home End move between the
  // rows shown, Enter or Space opens or closes the one focused.
  var current = rows[0] || table;
  function rove(row, focus) {
    if (current !== row) {  // one row is the tab stop; the others are focused by script only
      current.tabIndex = -1;
      row.tabIndex = 0;
      current = row;
    }
    if (focus) row.focus({ preventScroll: focus === "quiet" });
  }
  function step(row, forward) {
    var n = forward ? row.nextElementSibling : row.previousElementSibling;
    while (n && (!n.classList.contains("case") || n.hidden)) n = forward ? n.nextElementSibling : n.previousElementSibling;
    return n;
  }
  table.addEventListener("keydown", function (event) {
    var row = event.target;
    if (!row.classList || !row.classList.contains("case")) return;  // keys inside a Trial are the page's
    var to = null;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      toggle(row);
      return;
    }
    if (event.key === "ArrowDown") to = step(row, true);
    else if (event.key === "ArrowUp") to = step(row, false);
    else if (event.key === "Home") to = rows.filter(function (r) { return !r.hidden; })[0];
    else if (event.key === "End") to = rows.filter(function (r) { return !r.hidden; }).pop();
    else return;
    event.preventDefault();
    if (to) {
      rove(to, true);
      to.scrollIntoView({ block: "nearest" });
    }
  });

  // Sorting: failures first to begin with (the worst verdict of any model, then the id, as
  // the page was written); a heading sorts by its column, again the other way. A Case's
  // opened Trials move with it.
  var RANK = { FAIL: 0, ERR: 1, UNEX: 2, VAC: 3, PASS: 4, "-": 5 };
  var head = document.getElementById("cases-head");
  var sortedNote = document.getElementById("sorted");
  function rank(v) { return RANK[v] === undefined ? 9 : RANK[v]; }
  function worst(row) { return Math.min.apply(null, row.dataset.v.split(" ").map(rank)); }
  function sortKey(row, by, leg) {
    if (by === "v") return [rank(row.dataset.v.split(" ")[leg]), worst(row)];
    if (by === "ms" || by === "tokens") return [parseFloat(row.querySelector("." + by).textContent)];
    if (by === "id") return [];
    if (by === "reason") return [row.querySelector(".reason").textContent];
    return [row.dataset[by]];
  }
  function compare(a, b) {
    for (var i = 0; i < a.length; i += 1) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }
  function sortRows(by, leg, dir) {
    var keyed = rows.map(function (row) {
      var next = row.nextElementSibling;
      return { row: row, detail: next && next.classList.contains("case-detail") ? next : null,
               key: sortKey(row, by, leg).concat([row.id]) };
    });
    keyed.sort(function (a, b) { return dir * compare(a.key, b.key); });
    var moved = document.createDocumentFragment();
    keyed.forEach(function (k) {
      moved.appendChild(k.row);
      if (k.detail) moved.appendChild(k.detail);
    });
    table.appendChild(moved);
    rows = keyed.map(function (k) { return k.row; });
  }
  head.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-sort]");
    if (!button) return;
    var cell = button.parentNode;
    var dir = cell.dataset.dir === "asc" ? "desc" : "asc";
    Array.prototype.forEach.call(head.children, function (c) { delete c.dataset.dir; });
    cell.dataset.dir = dir;
    sortRows(button.dataset.sort, Number(button.dataset.leg || 0), dir === "asc" ? 1 : -1);
    sortedNote.textContent = "sorted by " + button.textContent + (dir === "asc" ? ", ascending" : ", descending") +
      (button.dataset.sort === "v" ? " (failures first)" : "");
  });

  // Links: #case-<id> opens that Case; #ev-<row>-<trial>-<anchor> opens the Case and the
  // place in its Trial's transcript (see transcript.py's anchors). A link rewrites the address
  // (so it can be copied or bookmarked) and the page opens what it names; so does an address
  // typed or reached with Back.
  document.addEventListener("click", function (event) {
    var link = event.target.closest('a[href^="#case-"], a[href^="#ev-"]');
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    var href = link.getAttribute("href");
    if (location.hash !== href) history.pushState(null, "", href);
    go(unescaped(href.slice(1)));
  });
  window.addEventListener("hashchange", function () { go(unescaped(location.hash.slice(1))); });
  function unescaped(fragment) {  // an address typed by hand may hold a stray %
    try {
      return decodeURIComponent(fragment);
    } catch (error) {
      return fragment;
    }
  }
  function unfilter(row) {
    if (!row.hidden) return;
    fVerdict.value = ""; fTier.value = ""; fFamily.value = ""; fText.value = "";
    apply();
  }
  function go(id) {
    var place = /^ev-(\d+)-(\d+)-/.exec(id);
    var row = place ? table.querySelector('.case[data-i="' + place[1] + '"]') : null;
    if (!place && id.indexOf("case-") === 0) {
      row = document.getElementById(id);
      if (row && !row.classList.contains("case")) row = null;
    }
    if (!row) return Promise.resolve(null);
    unfilter(row);
    rove(row);
    return toggle(row, true).then(function () {
      var target = place ? document.getElementById(id) : null;
      if (!target) {
        row.scrollIntoView({ block: "start" });
        row.focus({ preventScroll: true });
        return row;
      }
      var fold = target.closest("details");
      while (fold) {
        fold.open = true;
        fold = fold.parentNode.closest("details");
      }
      target.scrollIntoView({ block: "center" });
      target.classList.add("flash");
      setTimeout(function () { target.classList.remove("flash"); }, 1200);
      return target;
    });
  }
  function detail(box, data, index) {
    data.cases[index].forEach(function (pair, k) {
      var leg = data.legs[pair[0]];
      var trial = leg.trials[pair[1]];
      var at = leg.t[pair[1]];
      var prefix = "ev-" + index + "-" + k + "-";
      box.appendChild(trialNode(data, pair[0], trial, at === null ? null : data.transcripts[at], prefix));
    });
  }

  function trialNode(data, leg, trial, stored, prefix) {
    var node = clone("t-trial");
    var outcome = trial.outcome;
    node.classList.add(outcome);
    var badge = set(node, "verdict", trial.vacuous ? "VAC" : LABEL[outcome]);
    badge.classList.add(trial.vacuous ? "vac" : CLASS[outcome]);
    set(node, "head", data.models[leg] + " · Trial " + trial.trial);
    var usage = trial.usage || {};
    var meta = (trial.durationMs || 0).toFixed(1) + " ms · " + (trial.modelCalls || 0) +
      " model call(s) · " + (usage.input_tokens || 0) + " in / " + (usage.output_tokens || 0) + " out";
    if (trial.retries) meta += " · " + trial.retries + " retried";
    if (trial.loopStatus) meta += " · loop " + trial.loopStatus + (trial.loopReason ? " (" + trial.loopReason + ")" : "");
    set(node, "meta", meta);
    set(node, "error", trial.error ? "errored: " + trial.error : null);
    set(node, "unex", trial.unexercised ? "unexercised: " + trial.unexercised : null);
    var contradicted = trial.contradictions || [];
    set(node, "contradicted", contradicted.length ?
      "testimony contradicts a witness: " + contradicted.join("; ") : null);
    var notes = trial.notes || [];  // never a verdict: a recorded script that drifted, say
    set(node, "noted", notes.length ? "NOTE " + notes.join("; NOTE ") : null);
    var anchors = new Anchors(prefix);
    var body = field(node, "transcript");
    if (stored === null) {
      body.appendChild(note("No transcript: this Trial was read from a Scorecard, or it errored before any Evidence. Give its trial log to see what happened."));
      if (trial.output) body.appendChild(section("Answer", [anchors.add(item("answer", "the model's answer", "", trial.output, null), "answer")]));
    } else {
      transcript(body, stored, anchors, data.prompts || {});
    }
    var list = field(node, "expectations");
    (trial.expectations || []).forEach(function (e) {
      var x = { kind: e.kind, passed: e.passed, detail: e.detail, written: e.expectation,
                family: data.families[e.kind] || "unknown", at: e.at || null };
      list.appendChild(expectationNode(x, anchors));
    });
    return node;
  }

  // Where each Expectation's evidence is, as its kind declares it and its scorer found it
  // (``at``, a Location): the anchor of exactly that place, as transcript.py's anchor() names
  // it; else its whole part (an item not recorded, or capped); else no link. Never a guess.
  var WHOLE = { request: "requests", tool_call: "calls", denial: "denials", guard: "guards",
                event: "events", record: "records", answer: "answer" };
  var PART = { request: "the requests", tool_call: "the Tool calls", denial: "the denials",
               guard: "the guard decisions", event: "the run events", record: "the family records",
               answer: "the answer" };
  function anchorOf(at) {
    if (at.part === "request" && typeof at.index === "number") return "request-" + (at.index + 1);
    if (at.part === "tool_call" && typeof at.callId === "string") return "call-" + at.callId;
    if ((at.part === "denial" || at.part === "guard") && typeof at.index === "number") return at.part + "-" + (at.index + 1);
    if (at.part === "event" && typeof at.turn === "number" && typeof at.seq === "number") return "event-" + at.turn + "-" + at.seq;
    if (at.part === "record" && typeof at.record === "string") return "record-" + at.record;
    return WHOLE[at.part] || null;
  }
  function describe(at, exact) {
    if (!exact || anchorOf(at) === WHOLE[at.part]) return PART[at.part] || at.part;
    if (at.part === "request") return "request " + (at.index + 1);
    if (at.part === "tool_call") return "Tool call " + at.callId;
    if (at.part === "denial") return "denial " + (at.index + 1);
    if (at.part === "guard") return "guard decision " + (at.index + 1);
    if (at.part === "event") return "event " + at.seq + " of Turn " + at.turn;
    if (at.part === "record") return "record " + at.record.split(":").pop();
    return PART[at.part];
  }
  // The places of one Trial's transcript, each an element with an id (its prefix + anchor).
  function Anchors(prefix) {
    this.prefix = prefix;
    this.nodes = {};
  }
  Anchors.prototype.add = function (node, name) {
    if (!this.nodes[name]) {
      node.id = this.prefix + name;
      this.nodes[name] = node;
    }
    return node;
  };
  Anchors.prototype.target = function (at) {
    if (!at || !WHOLE[at.part]) return null;
    var exact = anchorOf(at);
    if (this.nodes[exact]) return { name: exact, exact: true };
    if (this.nodes[WHOLE[at.part]]) return { name: WHOLE[at.part], exact: false };
    return null;
  };

  // One Expectation's verdict as both places show it (its row, and beside the evidence it read).
  function verdict(node, x) {
    node.classList.add(x.passed ? "passed" : "failed");
    set(node, "mark", x.passed ? "✔" : "✘").classList.add(x.passed ? "ok" : "no");
    set(node, "kind", x.kind);
    return node;
  }

  function expectationNode(x, anchors) {
    var node = verdict(clone("t-expectation"), x);
    set(node, "family", x.family);
    set(node, "detail", x.detail);
    set(node, "written", json(x.written));
    var where = field(node, "where");
    var found = anchors.target(x.at);
    if (found === null) {  // undeclared, or its part was not observed: say so, link nothing
      if (x.at && PART[x.at.part]) {
        where.textContent = "(nothing recorded in " + PART[x.at.part] + ")";
        where.classList.add("none");
      } else {
        where.hidden = true;
      }
      return node;
    }
    where.textContent = "see the evidence (" + describe(x.at, found.exact) + ")";
    where.setAttribute("href", "#" + encodeURIComponent(anchors.prefix + found.name));
    var place = anchors.nodes[found.name];
    var read = place.querySelector(":scope > ul.read");  // the verdict beside the evidence it read
    if (read) {
      var li = verdict(clone("t-read"), x);
      set(li, "detail", x.detail);
      read.appendChild(li);
    }
    var fold = place.closest("details.part");  // a folded list an Expectation read is open
    if (fold) fold.open = true;
    return node;
  }

  // Each call that reached its Tool, with its result; then any result with no such call.
  function toolCalls(ev) {
    var results = {};
    (ev.tool_results || []).forEach(function (r) { results[r.call_id] = r; });
    var calls = (ev.tool_calls || []).map(function (c) {
      var r = results[c.call_id];
      delete results[c.call_id];
      return { id: c.call_id, name: c.name, arguments: c.arguments, turn: c.turn_index, result: r || null };
    });
    (ev.tool_results || []).forEach(function (r) {
      if (results[r.call_id]) calls.push({ id: r.call_id, name: r.name, arguments: r.arguments, turn: r.turn_index, result: r });
    });
    return calls;
  }

  function note(text) {
    var node = clone("t-note");
    set(node, "text", text);
    return node;
  }
  // A long list (guard decisions, events) is folded unless an Expectation read one of it.
  function section(title, items, fold) {
    var node = clone(fold ? "t-fold" : "t-section");
    set(node, "title", fold ? title + " (" + items.length + ")" : title);
    var box = field(node, "items");
    items.forEach(function (it) { box.appendChild(it); });
    return node;
  }
  function item(tag, title, sub, body, extra) {
    var node = clone("t-item");
    set(node, "tag", tag);
    set(node, "title", title);
    set(node, "sub", sub);
    set(node, "body", body);
    set(node, "extra", extra);
    return node;
  }
  function row(tag, title, sub, body) {
    var node = clone("t-row");
    set(node, "tag", tag);
    set(node, "title", title);
    set(node, "sub", sub);
    set(node, "body", body);
    return node;
  }
  function long(summary, body) {
    var node = clone("t-long");
    set(node, "summary", summary);
    set(node, "body", body);
    return node;
  }
  function messageText(m) {
    var text = "";
    var parts = [];
    if (typeof m.content === "string") {
      text = m.content;
    } else if (Array.isArray(m.content)) {
      m.content.forEach(function (p) {
        if (p && p.type === "text") {
          text += (text ? "\n" : "") + p.text;
        } else if (p) {
          parts.push(p.type + " " + (p.filename || "") + " " + (p.mediaType || "") + " sha256:" +
            String(p.sha256 || "").slice(0, 12) + " " + p.size + " bytes");
        }
      });
    }
    if (parts.length) text += (text ? "\n" : "") + parts.join("\n");
    var calls = (m.tool_calls || []).map(function (c) { return c.name + "(" + json(c.arguments) + ")"; });
    if (calls.length) text += (text ? "\n" : "") + "calls " + calls.join("\n      ");
    return text || "(empty)";
  }

  function transcript(box, stored, anchors, prompts) {
    var ev = stored.evidence;
    if (stored.prompt) ev.system_prompt = prompts[stored.prompt];  // stored apart: format 3
    var requests = ev.model_requests || [];
    (stored.systemShared || []).forEach(function (i) {  // stored once: see transcript.py
      if (requests[i]) requests[i].system = ev.system_prompt;
    });
    var system = ev.system_prompt || (requests.length ? requests[0].system : null);
    if (system) box.appendChild(long("System prompt (" + system.length + " characters)", system));
    var previous = [], lastSystem = system;
    var laid = requests.map(function (r, i) {
      var node = item("request " + (i + 1), "Tools offered", (r.tools || []).join(", ") || "none", null, null);
      var read = field(node, "read");
      var holder = read.parentNode;
      if (r.system !== lastSystem) holder.insertBefore(long("the system prompt changed", r.system), read);
      var shared = 0;
      while (shared < Math.min(previous.length, r.messages.length) &&
             JSON.stringify(previous[shared]) === JSON.stringify(r.messages[shared])) shared += 1;
      r.messages.slice(shared).forEach(function (m) {
        var title = m.tool_call_id ? "result of " + m.tool_call_id : "";
        var message = item(m.role, title, "", messageText(m), null);
        message.classList.add("message");
        holder.insertBefore(message, read);
      });
      previous = r.messages;
      lastSystem = r.system;
      return anchors.add(node, "request-" + (i + 1));
    });
    if (laid.length) box.appendChild(anchors.add(section("Requests as sent (each shows the messages it added)", laid), "requests"));
    var calls = toolCalls(ev);
    if (calls.length) {
      box.appendChild(anchors.add(section("Tool calls and results", calls.map(function (c) {
        var r = c.result;
        var sub = (r ? r.status : "no result") + " · turn " + c.turn + " · " + c.id;
        var out = r && r.output !== null && r.output !== undefined ? "→ " + json(r.output) : (r && r.reason ? "→ " + r.reason : null);
        return anchors.add(item("tool", c.name, sub, json(c.arguments), out), "call-" + c.id);
      })), "calls"));
    }
    var denials = ev.denials || [];
    if (denials.length) {
      box.appendChild(anchors.add(section("Denials", denials.map(function (d, i) {
        return anchors.add(item("denied", d.name, d.source + " · turn " + d.turn_index, json(d.arguments), d.reason), "denial-" + (i + 1));
      })), "denials"));
    }
    var guards = ev.guard_decisions || [];
    if (guards.length) {
      box.appendChild(anchors.add(section("Guard decisions", guards.map(function (g, i) {
        var node = row(g.blocked ? "blocked" : "allowed", g.guard, g.stage + " · turn " + g.turn_index, g.detail || null);
        if (g.blocked) node.classList.add("blocked");
        return anchors.add(node, "guard-" + (i + 1));
      }), guards.length > 4), "guards"));
    }
    var events = ev.events || [];
    if (events.length) {
      box.appendChild(anchors.add(section("Run events", events.map(function (e) {
        return anchors.add(row("#" + e.seq, e.type, "turn " + e.turn_index + " · " + e.participant, json(e.payload)), "event-" + e.turn_index + "-" + e.seq);
      }), true), "events"));
    }
    var sub = (ev.output_kind || "no output") + (ev.loop_status ? " · loop " + ev.loop_status : "") +
      (ev.loop_reason ? " (" + ev.loop_reason + ")" : "") + (ev.injected_fault ? " · injected fault " + ev.injected_fault : "");
    box.appendChild(section("Answer", [anchors.add(item("answer", "what the model answered", sub, ev.output_text, json(ev.output_structured)), "answer")]));
    var records = Object.keys(ev.records || {}).sort();
    if (records.length) {
      box.appendChild(anchors.add(section("Family records (read back by each family's fixture)", records.map(function (key) {
        return anchors.add(long(key, JSON.stringify(ev.records[key], null, 2)), "record-" + key);
      })), "records"));
    }
    var capped = stored.capped || [];
    if (capped.length) {
      box.appendChild(note("Capped when recorded: " + capped.map(function (c) {
        return c.path + ": " + c.size + " long, the first " + c.kept + " kept";
      }).join("; ")));
    }
  }

  if (location.hash) go(unescaped(location.hash.slice(1)));
})();
