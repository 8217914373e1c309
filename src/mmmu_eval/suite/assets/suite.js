// Flip browser of the mmmu-eval suite report: each flipped item with both settings side by side
// (after report/assets/browser.js, which holds the parts shared with the run report).
// Every value shown comes from the JSON block and is untrusted (model output, dataset text):
// it is only ever placed with textContent or as a data: image URL, never parsed as HTML.
(function () {
  "use strict";
  var B = MmmuBrowser;
  var el = B.el;
  var data = JSON.parse(document.getElementById("flip-data").textContent);
  var items = data.items;
  var sets = Object.keys(data.sets);
  var state = { set: sets.length ? sets[0] : "", discipline: "", query: "", page: 0 };

  function matches(it) {
    if (state.set && it.set !== state.set) return false;
    if (state.discipline && it.discipline !== state.discipline) return false;
    if (state.query) {
      var hay = (it.id + "\n" + it.question + "\n" + it.a.response + "\n" + it.b.response).toLowerCase();
      if (hay.indexOf(state.query) < 0) return false;
    }
    return true;
  }

  function side(s) {
    var box = el("div", s.correct ? "right" : "wrong");
    var head = el("div", "side-head");
    head.appendChild(el("span", null, s.label));
    head.appendChild(el("span", "badge " + (s.correct ? "b-correct" : "b-wrong"), s.correct ? "correct" : "wrong"));
    box.appendChild(head);
    if (s.options.length) {
      box.appendChild(el("div", "label", "Options"));
      box.appendChild(B.options(s.options, s.letters, s.answer, s.pred));
    }
    if (s.images.length) {
      box.appendChild(B.images(s.images, function (im) { return im.ref ? data.images[im.ref] : null; }));
    }
    var dl = el("dl", "kv");
    dl.appendChild(el("dt", null, "Gold"));
    dl.appendChild(el("dd", null, s.answer.length ? s.answer.join(" or ") : "(unknown)"));
    dl.appendChild(el("dt", null, "Parsed"));
    dl.appendChild(el("dd", null, s.pred === null ? "(nothing)" : s.pred));
    box.appendChild(dl);
    box.appendChild(el("div", "label", "Response"));
    box.appendChild(el("pre", "resp", s.response || "(no response)"));
    return box;
  }

  function card(it) {
    var art = el("article", "item");
    art.setAttribute("data-id", it.id);
    var head = el("div", "item-head");
    head.appendChild(el("span", "item-id", it.id));
    head.appendChild(el("span", "subj", it.subject.replace(/_/g, " ") + " · " + it.discipline));
    art.appendChild(head);
    if (it.question) {
      art.appendChild(el("div", "label", "Question"));
      art.appendChild(el("div", "qtext", it.question));
    }
    var pair = el("div", "pair");
    pair.appendChild(side(it.a));
    pair.appendChild(side(it.b));
    art.appendChild(pair);
    return art;
  }

  var view = B.browser({ items: items, matches: matches, card: card, size: 20, state: state });
  view.on("f-set", "change", function (t) { state.set = t.value; state.page = 0; });
  view.on("f-discipline", "change", function (t) { state.discipline = t.value; state.page = 0; });
  view.on("f-search", "input", function (t) { state.query = t.value.trim().toLowerCase(); state.page = 0; });
  view.render();
})();
