// Item browser of the mmmu-eval HTML report (after browser.js, which holds the shared parts).
// Every value shown comes from the JSON block and is untrusted (model output, dataset text):
// it is only ever placed with textContent or as a data: image URL, never parsed as HTML.
(function () {
  "use strict";
  var B = MmmuBrowser;
  var el = B.el;
  var items = JSON.parse(document.getElementById("items-data").textContent);
  var state = { show: "all", subject: "", query: "", page: 0 };

  var KEEP = {
    all: function () { return true; },
    wrong: function (it) { return it.verdict === "wrong"; },
    correct: function (it) { return it.verdict === "correct"; },
    fallback: function (it) { return it.fallback; },
    disagree: function (it) { return it.disagree; },
    error: function (it) { return it.status === "error"; },
    truncated: function (it) { return it.status === "truncated"; },
    missing: function (it) { return it.status === "missing"; },
    loose: function (it) { return it.loose && it.loose.length > 0; },
    harness: function (it) { return !!(it.harness && it.harness.differs); }
  };

  function matches(it) {
    if (!KEEP[state.show](it)) return false;
    if (state.subject && it.subject !== state.subject) return false;
    if (state.query) {
      var hay = (it.id + "\n" + it.question + "\n" + it.response).toLowerCase();
      if (hay.indexOf(state.query) < 0) return false;
    }
    return true;
  }

  function kv(dl, key, value) {
    if (value === undefined || value === null || value === "") return;
    dl.appendChild(el("dt", null, key));
    dl.appendChild(el("dd", null, value));
  }

  function card(it) {
    var art = el("article", "item v-" + it.verdict);
    art.setAttribute("data-id", it.id);
    var head = el("div", "item-head");
    head.appendChild(el("span", "item-id", it.id));
    head.appendChild(el("span", "badge b-" + it.verdict, it.verdict));
    if (it.fallback) head.appendChild(el("span", "badge b-fallback", "random fallback"));
    if (it.status === "truncated") head.appendChild(el("span", "badge b-truncated", "truncated"));
    if (it.disagree) head.appendChild(el("span", "badge b-fallback", "parsers disagree"));
    if (it.loose && it.loose.length) head.appendChild(el("span", "badge b-loose", "image no token refers to"));
    if (it.harness && it.harness.differs) head.appendChild(el("span", "badge b-fallback", it.harness.name + " differs: " + it.harness.cause));
    head.appendChild(el("span", "subj", it.subject.replace(/_/g, " ") + " · " + it.discipline));
    art.appendChild(head);

    var cols = el("div", "cols");
    var left = el("div");
    if (it.question) {
      left.appendChild(el("div", "label", "Question"));
      left.appendChild(el("div", "qtext", it.question));
    }
    if (it.options.length) {
      left.appendChild(el("div", "label", "Options"));
      left.appendChild(B.options(it.options, it.letters, it.answer, it.pred));
    }
    if (it.images.length) {
      left.appendChild(B.images(it.images, function (im) { return im.src; }));
    }
    cols.appendChild(left);

    var right = el("div");
    var dl = el("dl", "kv");
    kv(dl, "Gold", it.answer.length ? it.answer.join(" or ") : "(withheld)");
    kv(dl, "Parsed", it.pred === null ? "(nothing)" : it.pred);
    Object.keys(it.parsers).forEach(function (name) {
      kv(dl, "Parser " + name, it.parsers[name] === null ? "(nothing)" : it.parsers[name]);
    });
    if (it.harness && it.harness.differs) {
      kv(dl, it.harness.name, (it.harness.pred === null ? "(nothing)" : it.harness.pred) + (it.harness.correct ? " (right)" : " (wrong)"));
      kv(dl, "Why they differ", it.harness.detail);
    }
    kv(dl, "Status", it.status + (it.finish ? " (" + it.finish + ")" : ""));
    kv(dl, "Error", it.error);
    kv(dl, "Tokens", it.tokens);
    right.appendChild(dl);
    right.appendChild(el("div", "label", "Response"));
    right.appendChild(el("pre", "resp", it.status === "missing" ? "(no response)" : it.response));
    if (it.reasoning) {
      var det = el("details");
      det.appendChild(el("summary", null, "Reasoning"));
      det.appendChild(el("pre", "resp", it.reasoning));
      right.appendChild(det);
    }
    if (it.prompt) {
      var pd = el("details");
      pd.appendChild(el("summary", null, "Prompt"));
      pd.appendChild(el("pre", "resp", it.prompt));
      right.appendChild(pd);
    }
    cols.appendChild(right);
    art.appendChild(cols);
    return art;
  }

  var view = B.browser({ items: items, matches: matches, card: card, size: 25, state: state });
  view.on("f-show", "change", function (t) { state.show = t.value; state.page = 0; });
  view.on("f-subject", "change", function (t) { state.subject = t.value; state.page = 0; });
  view.on("f-search", "input", function (t) { state.query = t.value.trim().toLowerCase(); state.page = 0; });
  view.render();
})();

// The leaderboard's rows filtered by name as typed (case, spaces, hyphens and underscores ignored,
// as `mmmu-eval doctor --published NAME` matches them); html_published.py writes the table.
(function () {
  "use strict";
  var box = document.getElementById("lb-search");
  if (!box) return;
  var rows = Array.prototype.slice.call(document.querySelectorAll("#leaderboard-table tbody tr"));
  var count = document.getElementById("lb-count");
  function key(text) { return text.toLowerCase().replace(/[\s_\-\u2010-\u2014]+/g, ""); }
  box.addEventListener("input", function () {
    var q = key(box.value.trim());
    var shown = 0;
    rows.forEach(function (tr) {
      var keep = !q || key(tr.getAttribute("data-name") || "").indexOf(q) >= 0;
      tr.hidden = !keep;
      if (keep) shown += 1;
    });
    count.textContent = q ? shown + " of " + rows.length + " rows" : "";
  });
})();
