// Flip browser of the mmmu-eval suite report: each flipped item with both settings side by side.
// Every value shown comes from the JSON block and is untrusted (model output, dataset text):
// it is only ever placed with textContent or as a data: image URL, never parsed as HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("flip-data").textContent);
  var items = data.items;
  var PAGE = 20;
  var sets = Object.keys(data.sets);
  var state = { set: sets.length ? sets[0] : "", discipline: "", query: "", page: 0 };
  var list = document.getElementById("items");
  var count = document.getElementById("f-count");
  var pageInfo = document.getElementById("p-info");
  var prev = document.getElementById("p-prev");
  var next = document.getElementById("p-next");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

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
      var ol = el("ol", "opts");
      s.options.forEach(function (text, i) {
        var letter = s.letters[i];
        var li = el("li", (s.answer.indexOf(letter) >= 0 ? "gold " : "") + (s.pred === letter ? "pred" : ""));
        li.appendChild(el("b", null, letter + "."));
        li.appendChild(document.createTextNode(text));
        ol.appendChild(li);
      });
      box.appendChild(ol);
    }
    if (s.images.length) {
      var imgs = el("div", "imgs");
      s.images.forEach(function (im) {
        var fig = el("figure");
        var src = im.ref ? data.images[im.ref] : null;
        if (src && src.indexOf("data:image/") === 0) {
          var img = el("img");
          img.alt = im.field;
          img.src = src;
          img.title = "click to enlarge";
          img.addEventListener("click", function () { fig.classList.toggle("big"); });
          fig.appendChild(img);
        }
        fig.appendChild(el("figcaption", null, im.note ? im.field + ": " + im.note : im.field));
        imgs.appendChild(fig);
      });
      box.appendChild(imgs);
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

  function render() {
    var kept = items.filter(matches);
    var pages = Math.max(1, Math.ceil(kept.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    list.textContent = "";
    kept.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (it) {
      list.appendChild(card(it));
    });
    if (!kept.length) list.appendChild(el("div", "empty", "No item matches these filters."));
    count.textContent = kept.length + " of " + items.length + " items";
    pageInfo.textContent = "page " + (state.page + 1) + " of " + pages;
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }

  function on(id, event, fn) {
    var node = document.getElementById(id);
    if (!node) return;
    node.addEventListener(event, function (e) {
      fn(e.target);
      render();
    });
  }
  on("f-set", "change", function (t) { state.set = t.value; state.page = 0; });
  on("f-discipline", "change", function (t) { state.discipline = t.value; state.page = 0; });
  on("f-search", "input", function (t) { state.query = t.value.trim().toLowerCase(); state.page = 0; });
  on("p-prev", "click", function () { state.page = Math.max(0, state.page - 1); });
  on("p-next", "click", function () { state.page += 1; });
  render();
})();
