package render

// pageScript runs in every document before its own scripts. It counts the
// pending timers of up to 2 s (a link added after a timer is waited for;
// an endless timer chain runs into the timeout) and the fetch and
// XMLHttpRequest calls in flight, notes when the document last changed or
// a request ended, refuses popups and dialogs, and silences the console. window.__webtable()
// returns {timers, idle}: pending timers and requests, and milliseconds
// since the last change. It also scrolls to the bottom when asked, to
// start lazy loads.
//
// NB: the requests are counted here, not only where the crawler answers
// them: a fetch a load handler starts reaches the interception some
// milliseconds later (more on a loaded machine), and a render that looked
// in between saw a quiet page without its content.
const pageScript = `(() => {
  if (window.__webtable) return;
  const ids = new Set();
  let last = Date.now();
  const st = window.setTimeout.bind(window), ct = window.clearTimeout.bind(window);
  window.setTimeout = function (fn, ms, ...args) {
    const d = Number(ms) || 0;
    if (typeof fn !== "function" || d > 2000) return st(fn, ms, ...args);
    const id = st(function () { ids.delete(id); fn.apply(this, args); }, d);
    ids.add(id);
    return id;
  };
  window.clearTimeout = function (id) { ids.delete(id); return ct(id); };
  let pending = 0;
  const settle = () => { pending--; last = Date.now(); };
  const fetch0 = window.fetch;
  if (fetch0) window.fetch = function (...args) {
    pending++;
    let p;
    try { p = fetch0.apply(this, args); } catch (e) { settle(); throw e; }
    p.then(settle, settle);
    return p;
  };
  const send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    pending++;
    this.addEventListener("loadend", settle, {once: true});
    try { return send0.apply(this, args); } catch (e) { settle(); throw e; }
  };
  window.open = function () { return null; };
  window.alert = function () {};
  window.confirm = function () { return false; };
  window.prompt = function () { return null; };
  // NB: each console call is an event on the DevTools pipe; a page that
  // prints thousands held the render's own commands behind them.
  for (const k of ["log", "info", "warn", "error", "debug", "trace", "dir", "dirxml", "table", "count", "assert", "group", "groupCollapsed", "groupEnd", "time", "timeLog", "timeEnd"]) {
    try { console[k] = function () {}; } catch (e) {}
  }
  new MutationObserver(() => { last = Date.now(); }).observe(document,
    {subtree: true, childList: true, attributes: true, characterData: true});
  Object.defineProperty(window, "__webtable", {value: (scroll) => {
    if (scroll && document.scrollingElement) window.scrollTo(0, document.scrollingElement.scrollHeight);
    return {timers: ids.size + pending, idle: Date.now() - last};
  }});
})();`

// domScript serialises the document: its doctype, then its root element.
const domScript = `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") +
  (document.documentElement ? document.documentElement.outerHTML : "")`
