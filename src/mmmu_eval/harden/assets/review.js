// Review page of `mmmu-eval harden augment`: accept / edit / drop per question, then download.
// Every value shown comes from the JSON block (dataset text, model output) and is untrusted:
// it is only placed with textContent, as an input's value, or as a data: image URL.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("review-data").textContent);
  var KEY = "mmmu-eval-review:" + data.digest;
  var decisions = {};
  try { decisions = JSON.parse(window.localStorage.getItem(KEY) || "{}") || {}; } catch (e) { decisions = {}; }
  var list = document.getElementById("items");
  var show = document.getElementById("show");
  var progress = document.getElementById("progress");
  var TOKEN = /<image\s+(\d+)>/g;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // Decisions are written when one changes, never on drawing: a tab left open on an older state
  // must not overwrite, by merely redrawing (its filter changed), what another tab saved since.
  function save() {
    try { window.localStorage.setItem(KEY, JSON.stringify(decisions)); } catch (e) { /* private mode: keep in memory */ }
    count();
  }

  function count() {
    var done = 0;
    data.rows.forEach(function (row) { if (decisionOf(row)) done += 1; });
    progress.textContent = done + " of " + data.rows.length + " decided";
  }

  function decisionOf(row) {
    return decisions[row.id] || null;
  }

  // Text with its <image N> tokens shown as the images (or a note when not embedded).
  function withImages(text, row) {
    var box = el("div", "text");
    var last = 0;
    var shots = data.images[row.id] || {};
    text.replace(TOKEN, function (match, n, offset) {
      box.appendChild(document.createTextNode(text.slice(last, offset)));
      var src = shots["image_" + n];
      if (src && src.indexOf("data:") === 0) {
        var img = el("img");
        img.src = src;
        img.alt = "image " + n;
        box.appendChild(img);
      } else {
        box.appendChild(el("span", "missing", "[image " + n + (src ? ": " + src.slice(5) : "") + "]"));
      }
      last = offset + match.length;
      return match;
    });
    box.appendChild(document.createTextNode(text.slice(last)));
    return box;
  }

  function optionList(options, answer, sources, row) {
    var ol = el("ol", "opts");
    options.forEach(function (option, k) {
      var letter = String.fromCharCode(65 + k);
      var li = el("li", letter === answer ? "right" : "");
      li.appendChild(el("b", "", letter + ". "));
      li.appendChild(withImages(option, row));
      if (sources && sources[k] && sources[k].indexOf("new") === 0) li.appendChild(el("span", "tag", "new"));
      if (letter === answer) li.appendChild(el("span", "tag ok", "answer"));
      ol.appendChild(li);
    });
    return ol;
  }

  function card(row) {
    var box = el("section", "card");
    box.dataset.id = row.id;
    var head = el("h2", "", row.id + " · " + row.subject);
    box.appendChild(head);
    var state = row.review && row.review.state || "unreviewed";
    box.appendChild(el("p", "state", "recorded: " + state + (row.review && row.review.note ? " (" + row.review.note + ")" : "")));
    if (row.flag) box.appendChild(el("p", "flag", "flagged: " + row.flag));
    if (row.note && !row.flag) box.appendChild(el("p", "note", row.note));
    (row.held || []).forEach(function (h) { box.appendChild(el("p", "note", "held in place: " + h)); });
    box.appendChild(withImages(row.question, row));
    var cols = el("div", "cols");
    var before = el("div");
    before.appendChild(el("h3", "", "original options"));
    before.appendChild(optionList(row.original_options, row.original_answer, null, row));
    var after = el("div");
    after.appendChild(el("h3", "", "options after augmenting"));
    after.appendChild(optionList(row.options, row.answer, row.sources, row));
    cols.appendChild(before);
    cols.appendChild(after);
    box.appendChild(cols);
    box.appendChild(controls(row));
    return box;
  }

  // Only the chosen action's inputs are shown: the new options' fields under "edit", the note
  // once any action is chosen. A field that is shown is always part of the decision, so nothing
  // typed is silently lost; what was typed under "edit" stays in its fields when another action
  // is chosen (and is back in the decision when "edit" is chosen again).
  function controls(row) {
    var form = el("div", "controls");
    var current = decisions[row.id] || {};
    var edits = el("div", "edits");
    var note = el("input", "note-field");
    var fields = [];

    function showFor(action) {
      edits.hidden = action !== "edit";
      note.hidden = !action;
    }

    ["accept", "edit", "drop"].forEach(function (action) {
      if (action === "edit" && !row.distractors.length) return;
      var label = el("label");
      var radio = el("input");
      radio.type = "radio";
      radio.name = "d-" + row.id;
      radio.value = action;
      radio.checked = current.action === action;
      radio.addEventListener("change", function () {
        var d = { action: action, shown: row.options, note: note.value };
        if (action === "edit") d.distractors = fields.map(function (f) { return f.value; });
        decisions[row.id] = d;
        showFor(action);
        save();
        form.parentNode.classList.add("decided");
      });
      label.appendChild(radio);
      label.appendChild(document.createTextNode(" " + action));
      form.appendChild(label);
    });
    fields = row.distractors.map(function (text, k) {
      var input = el("input");
      input.type = "text";
      input.value = current.distractors ? current.distractors[k] : text;
      input.setAttribute("aria-label", "new option " + (k + 1));
      input.addEventListener("input", function () {
        if (decisions[row.id] && decisions[row.id].action === "edit") {
          decisions[row.id].distractors = fields.map(function (f) { return f.value; });
          save();
        }
      });
      edits.appendChild(input);
      return input;
    });
    note.type = "text";
    note.placeholder = "note (why)";
    note.value = current.note || "";
    note.addEventListener("input", function () {
      if (decisions[row.id]) { decisions[row.id].note = note.value; save(); }
    });
    showFor(current.action);
    form.appendChild(note);
    form.appendChild(edits);
    return form;
  }

  function keep(row) {
    var decided = !!decisions[row.id];
    if (show.value === "undecided") return !decided;
    if (show.value === "decided") return decided;
    if (show.value === "flagged") return !!row.flag;
    return true;
  }

  function draw() {
    while (list.firstChild) list.removeChild(list.firstChild);
    data.rows.forEach(function (row) {
      if (!keep(row)) return;
      var c = card(row);
      if (decisions[row.id]) c.classList.add("decided");
      list.appendChild(c);
    });
    count();
  }

  document.getElementById("download").addEventListener("click", function () {
    var blob = new Blob([JSON.stringify({ format: data.format, digest: data.digest, decisions: decisions }, null, 1)], { type: "application/json" });
    var a = el("a");
    a.href = URL.createObjectURL(blob);
    a.download = "decisions.json";
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
  });
  document.getElementById("accept-shown").addEventListener("click", function () {
    data.rows.forEach(function (row) {
      if (keep(row) && !decisions[row.id]) decisions[row.id] = { action: "accept", shown: row.options, note: "" };
    });
    save();
    draw();
  });
  show.addEventListener("change", draw);
  draw();
})();
