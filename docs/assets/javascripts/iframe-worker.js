/*
 * Search on the site opened from the disk, with no network.
 *
 * Material runs its search in a Web Worker, and a browser refuses to start a Worker from a
 * file:// script. Material's offline plugin inlines the search index (search/search_index.js)
 * and, for the Worker, adds a polyfill fetched from unpkg.com at page load: no use without a
 * network. This file stands in for that polyfill (the plugin adds its own only when no polyfill
 * named "iframe-worker" is listed, hence the name; mkdocs.yml lists it under extra.polyfills).
 *
 * On file:// pages only, `Worker` becomes a hidden same-origin iframe that runs the worker's
 * script: the script's `postMessage` and `addEventListener("message")` are the iframe window's,
 * wired to the page's `worker.postMessage` and `worker.addEventListener`. Over http(s) nothing
 * is replaced. tests/packaging/test_docs_site.py searches the built site from file:// with the
 * network cut off.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:") {
    return;
  }

  function FrameWorker(url) {
    var listeners = [];
    var pending = [];
    var ready = false;
    var frame = document.createElement("iframe");
    frame.hidden = true;
    frame.setAttribute("aria-hidden", "true");
    (document.body || document.documentElement).appendChild(frame);
    var inner = frame.contentWindow;
    var self = this;
    this.onmessage = null;

    function deliver(data) {
      var event = { data: data, target: self, type: "message" };
      if (typeof self.onmessage === "function") {
        self.onmessage(event);
      }
      listeners.slice().forEach(function (listener) {
        listener(event);
      });
    }

    // What the worker's script sees as its own global functions.
    inner.postMessage = function (data) {
      setTimeout(function () { deliver(data); }, 0);
    };
    inner.importScripts = function () {
      throw new Error("importScripts is not available to a worker run from the disk");
    };

    this.postMessage = function (data) {
      if (!ready) {
        pending.push(data);
        return;
      }
      setTimeout(function () {
        inner.dispatchEvent(new inner.MessageEvent("message", { data: data }));
      }, 0);
    };
    this.addEventListener = function (type, listener) {
      if (type === "message" && listeners.indexOf(listener) < 0) {
        listeners.push(listener);
      }
    };
    this.removeEventListener = function (type, listener) {
      var at = listeners.indexOf(listener);
      if (type === "message" && at >= 0) {
        listeners.splice(at, 1);
      }
    };
    this.terminate = function () {
      listeners = [];
      frame.remove();
    };

    var script = inner.document.createElement("script");
    script.src = new URL(url, location.href).href;
    script.onload = function () {
      ready = true;
      pending.splice(0).forEach(self.postMessage);
    };
    inner.document.head.appendChild(script);
  }

  window.Worker = FrameWorker;
})();
