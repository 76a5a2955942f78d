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
  }
  [fVerdict, fTier, fFamily].forEach(function (el) { el.addEventListener("change", apply); });
  fText.addEventListener("input", apply);

  // Opening a Case lays out its Trials, once.
  table.addEventListener("click", function (event) {
    var row = event.target.closest(".case");
    if (row && !event.target.closest(".case-detail")) toggle(row);
  });
  function toggle(row, open) {
    var next = row.nextElementSibling;
    var built = next && next.classList.contains("case-detail");
    var show = open === undefined ? !row.classList.contains("opened") : open;
    row.classList.toggle("opened", show);
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
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-case]");
    if (!link) return;
    event.preventDefault();
    var row = document.getElementById("case-" + link.dataset.case);
    if (!row) return;
    if (row.hidden) { fVerdict.value = ""; fTier.value = ""; fFamily.value = ""; fText.value = ""; apply(); }
    toggle(row, true);
    row.scrollIntoView({ block: "start" });
  });

  function detail(box, data, index) {
    data.cases[index].forEach(function (pair) {
      var leg = data.legs[pair[0]];
      var trial = leg.trials[pair[1]];
      var at = leg.t[pair[1]];
      box.appendChild(trialNode(data, pair[0], trial, at === null ? null : data.transcripts[at]));
    });
  }

  function trialNode(data, leg, trial, stored) {
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
    var expectations = (trial.expectations || []).map(function (e) {
      return { kind: e.kind, passed: e.passed, detail: e.detail, written: e.expectation,
               family: data.families[e.kind] || "unknown",
               at: stored ? place(e.expectation, stored.evidence) : null };
    });
    var anchors = {};
    var list = field(node, "expectations");
    expectations.forEach(function (x) { list.appendChild(expectationNode(x, anchors)); });
    var body = field(node, "transcript");
    if (stored === null) {
      body.appendChild(note("No transcript: this Trial was read from a Scorecard, or it errored before any Evidence. Give its trial log to see what happened."));
      if (trial.output) body.appendChild(section("Answer", [item("answer", "the model's answer", "", trial.output, null)]));
    } else {
      transcript(body, stored, expectations, anchors);
    }
    return node;
  }

  function expectationNode(x, anchors) {
    var node = clone("t-expectation");
    node.classList.add(x.passed ? "passed" : "failed");
    var mark = set(node, "mark", x.passed ? "✔" : "✘");
    mark.classList.add(x.passed ? "ok" : "no");
    set(node, "kind", x.kind);
    set(node, "family", x.family);
    set(node, "detail", x.detail);
    set(node, "written", json(x.written));
    var where = field(node, "where");
    if (x.at === null) {
      where.hidden = true;
    } else {
      where.textContent = "see the evidence (" + describe(x.at) + ")";
      where.addEventListener("click", function (event) {
        event.preventDefault();
        var target = anchors[x.at];
        if (!target) return;
        var fold = target.closest("details");
        if (fold) fold.open = true;
        target.scrollIntoView({ block: "center" });
        target.classList.add("flash");
        setTimeout(function () { target.classList.remove("flash"); }, 1200);
      });
    }
    return node;
  }

  // Where an Expectation's evidence is, found from the names it holds (no kind is named
  // here): the guard decision it names (at its stage, a blocking one first), else the Tool
  // call it names (the one whose arguments hold most of its other values), else the denial
  // or the event it names, else the answer.
  function place(expectation, ev) {
    var values = [];
    Object.keys(expectation || {}).forEach(function (key) {
      if (key !== "kind" && typeof expectation[key] === "string") values.push(expectation[key]);
    });
    var has = function (v) { return values.indexOf(v) >= 0; };
    var guards = (ev.guard_decisions || []).map(function (g, i) { return [i, g]; }).filter(function (p) {
      return has(p[1].guard) && (!expectation.stage || p[1].stage === expectation.stage);
    });
    if (guards.length) {
      var blocked = guards.filter(function (p) { return p[1].blocked; });
      return "guard:" + (blocked.length ? blocked : guards)[0][0];
    }
    var calls = toolCalls(ev);
    var best = -1, score = -1;
    calls.forEach(function (c, i) {
      if (!has(c.name)) return;
      var args = json(c.arguments) || "";
      var n = values.filter(function (v) { return v !== c.name && args.indexOf(v) >= 0; }).length;
      if (n > score) { best = i; score = n; }
    });
    if (best >= 0) return "call:" + best;
    var denials = ev.denials || [];
    for (var d = 0; d < denials.length; d += 1) if (has(denials[d].name)) return "denial:" + d;
    var events = ev.events || [];
    for (var e = 0; e < events.length; e += 1) if (has(events[e].type)) return "event:" + e;
    return "answer";
  }
  function describe(at) {
    var kind = at.split(":")[0];
    return { guard: "a guard decision", call: "a Tool call", denial: "a denial", event: "an event", answer: "the answer" }[kind] || at;
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
    var read = items.some(function (it) { return it.querySelector("ul.read li"); });
    var node = clone(fold ? "t-fold" : "t-section");
    set(node, "title", fold ? title + " (" + items.length + ")" : title);
    if (fold && read) node.open = true;
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
  function attach(node, at, expectations, anchors) {
    anchors[at] = node;
    var list = field(node, "read");
    expectations.forEach(function (x) {
      if (x.at !== at) return;
      var li = clone("t-read");
      li.classList.add(x.passed ? "passed" : "failed");
      var mark = set(li, "mark", x.passed ? "✔" : "✘");
      mark.classList.add(x.passed ? "ok" : "no");
      set(li, "kind", x.kind);
      set(li, "detail", x.detail);
      list.appendChild(li);
    });
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

  function transcript(box, stored, expectations, anchors) {
    var ev = stored.evidence;
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
      return node;
    });
    if (laid.length) box.appendChild(section("Requests as sent (each shows the messages it added)", laid));
    var calls = toolCalls(ev);
    if (calls.length) {
      box.appendChild(section("Tool calls and results", calls.map(function (c, i) {
        var r = c.result;
        var sub = (r ? r.status : "no result") + " · turn " + c.turn + " · " + c.id;
        var out = r && r.output !== null && r.output !== undefined ? "→ " + json(r.output) : (r && r.reason ? "→ " + r.reason : null);
        return attach(item("tool", c.name, sub, json(c.arguments), out), "call:" + i, expectations, anchors);
      })));
    }
    var denials = ev.denials || [];
    if (denials.length) {
      box.appendChild(section("Denials", denials.map(function (d, i) {
        return attach(item("denied", d.name, d.source + " · turn " + d.turn_index, json(d.arguments), d.reason), "denial:" + i, expectations, anchors);
      })));
    }
    var guards = ev.guard_decisions || [];
    if (guards.length) {
      box.appendChild(section("Guard decisions", guards.map(function (g, i) {
        var node = row(g.blocked ? "blocked" : "allowed", g.guard, g.stage + " · turn " + g.turn_index, g.detail || null);
        if (g.blocked) node.classList.add("blocked");
        return attach(node, "guard:" + i, expectations, anchors);
      }), guards.length > 4));
    }
    var events = ev.events || [];
    if (events.length) {
      box.appendChild(section("Run events", events.map(function (e, i) {
        return attach(row("#" + e.seq, e.type, "turn " + e.turn_index + " · " + e.participant, json(e.payload)), "event:" + i, expectations, anchors);
      }), true));
    }
    var sub = (ev.output_kind || "no output") + (ev.loop_status ? " · loop " + ev.loop_status : "") +
      (ev.loop_reason ? " (" + ev.loop_reason + ")" : "") + (ev.injected_fault ? " · injected fault " + ev.injected_fault : "");
    box.appendChild(section("Answer", [attach(item("answer", "what the model answered", sub, ev.output_text, json(ev.output_structured)), "answer", expectations, anchors)]));
    var records = Object.keys(ev.records || {}).sort();
    if (records.length) {
      box.appendChild(section("Family records (read back by each family's fixture)", records.map(function (key) {
        return long(key, JSON.stringify(ev.records[key], null, 2));
      })));
    }
    var capped = stored.capped || [];
    if (capped.length) {
      box.appendChild(note("Capped when recorded: " + capped.map(function (c) {
        return c.path + ": " + c.size + " long, the first " + c.kept + " kept";
      }).join("; ")));
    }
  }

})();
