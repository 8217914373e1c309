// Shared parts of the mmmu-eval item browsers (the run report and the suite report).
// Every value shown comes from the page's JSON block and is untrusted (model output, dataset
// text): it is only ever placed with textContent or as a data: image URL, never parsed as HTML.
var MmmuBrowser = (function () {
  "use strict";

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // The options as a list: gold letters shaded, the parsed prediction outlined.
  function options(texts, letters, gold, pred) {
    var ol = el("ol", "opts");
    texts.forEach(function (text, i) {
      var letter = letters[i];
      var li = el("li", (gold.indexOf(letter) >= 0 ? "gold " : "") + (pred === letter ? "pred" : ""));
      li.appendChild(el("b", null, letter + "."));
      li.appendChild(document.createTextNode(text));
      ol.appendChild(li);
    });
    return ol;
  }

  // The images, click to enlarge; srcOf(image) gives its data: URL (or nothing: a note instead).
  function images(list, srcOf) {
    var imgs = el("div", "imgs");
    list.forEach(function (im) {
      var fig = el("figure");
      var src = srcOf(im);
      if (src && src.indexOf("data:image/") === 0) {
        var img = el("img");
        img.alt = im.field;
        img.src = src;
        img.title = "click to enlarge";
        img.addEventListener("click", function () { fig.classList.toggle("big"); });
        fig.appendChild(img);
      }
      fig.appendChild(el("figcaption", null, im.note ? im.field + ": " + im.note : im.field));
      if (im.loose) {
        fig.classList.add("loose");
        fig.appendChild(el("figcaption", "loose-note", im.loose));
      }
      imgs.appendChild(fig);
    });
    return imgs;
  }

  // A paged list of cards in #items, counted in #f-count, paged by #p-prev / #p-next.
  // config: items, matches(item), card(item), size (cards a page), state (holds .page).
  function browser(config) {
    var state = config.state;
    var list = document.getElementById("items");
    var count = document.getElementById("f-count");
    var pageInfo = document.getElementById("p-info");
    var prev = document.getElementById("p-prev");
    var next = document.getElementById("p-next");

    function render() {
      var kept = config.items.filter(config.matches);
      var pages = Math.max(1, Math.ceil(kept.length / config.size));
      if (state.page >= pages) state.page = pages - 1;
      list.textContent = "";
      kept.slice(state.page * config.size, (state.page + 1) * config.size).forEach(function (it) {
        list.appendChild(config.card(it));
      });
      if (!kept.length) list.appendChild(el("div", "empty", "No item matches these filters."));
      count.textContent = kept.length + " of " + config.items.length + " items";
      pageInfo.textContent = "page " + (state.page + 1) + " of " + pages;
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
    }

    // Listen on a control; after fn updates the state, the list is drawn again.
    function on(id, event, fn) {
      var node = document.getElementById(id);
      if (!node) return;
      node.addEventListener(event, function (e) {
        fn(e.target);
        render();
      });
    }
    on("p-prev", "click", function () { state.page = Math.max(0, state.page - 1); });
    on("p-next", "click", function () { state.page += 1; });
    return { render: render, on: on };
  }

  return { el: el, options: options, images: images, browser: browser };
})();
