// Run in every document before its own scripts (see settle.rs): tells when the page is done,
// keeps pop-ups, dialogs and service workers from opening, and keeps the URLs scripts tried to
// open. SETTLE_MS, LONG_REQUEST_MS and SHORT_TIMER_MS are put in by settle.rs.
(() => {
  const SETTLE = SETTLE_MS;
  const LONG_REQUEST = LONG_REQUEST_MS;
  const SHORT_TIMER = SHORT_TIMER_MS;
  // The page's own functions, kept before its scripts can replace them; ours use these.
  const now = performance.now.bind(performance);
  const setTimeoutFirst = window.setTimeout;
  const clearTimeoutFirst = window.clearTimeout;
  const setIntervalFirst = window.setInterval;
  const clearIntervalFirst = window.clearInterval;
  const idleCallback = window.requestIdleCallback ? window.requestIdleCallback.bind(window) : null;
  const wait = (callback, ms) => setTimeoutFirst.call(window, callback, ms);

  // The page's work in progress: requests its scripts made and bodies they read, scripts they
  // added and that have not run (each until it ends, or for LONG_REQUEST: a long poll), and
  // short timers set and not run. While any is pending, the page is not done.
  const pending = new Map();
  let nextToken = 0;
  const shortTimers = new Set();
  // Short intervals, by id: a page must stay quiet longer than the shortest of them.
  const intervals = new Map();
  // When anything happened: an element added, a request started or ended, a short timer set or
  // run. Adding an element or starting a request is a change, too.
  let lastActivity = now();

  // How long the page has not changed, for the render timeout, counted in ticks of 100 ms of
  // its own timers, each counting only when the page was idle since the one before: a page
  // starved of CPU runs neither its timers nor these, so it cannot look still while it is only
  // slow. A page busy without end still counts a tick a second (the idle callback's deadline).
  let stillTicks = 0;
  let idleSinceTick = !idleCallback;
  const noteIdle = () => {
    idleSinceTick = true;
    idleCallback(noteIdle, { timeout: 1000 });
  };
  if (idleCallback) idleCallback(noteIdle, { timeout: 1000 });
  setIntervalFirst.call(window, () => {
    if (idleSinceTick) stillTicks += 1;
    idleSinceTick = !idleCallback;
  }, 100);

  const activity = (change) => {
    lastActivity = now();
    if (change) stillTicks = 0;
  };
  const begin = () => {
    const token = nextToken++;
    pending.set(token, now());
    activity(true);
    return token;
  };
  const end = (token) => {
    if (pending.delete(token)) activity(false);
  };
  const busy = () => {
    if (shortTimers.size > 0) return true;
    const at = now();
    for (const started of pending.values()) {
      if (at - started < LONG_REQUEST) return true;
    }
    return false;
  };
  // How long the page must have been quiet: SETTLE, or longer than a short interval's period,
  // so that a page that polls or adds elements on an interval is never done.
  const needed = () => {
    let ms = SETTLE;
    for (const period of intervals.values()) ms = Math.max(ms, period + SETTLE);
    return ms;
  };

  const fetchFirst = window.fetch;
  window.fetch = function (...args) {
    const token = begin();
    let answer;
    try {
      answer = fetchFirst.apply(this, args);
    } catch (error) {
      end(token);
      throw error;
    }
    return answer.finally(() => end(token));
  };
  for (const read of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
    const readFirst = Response.prototype[read];
    if (typeof readFirst !== 'function') continue;
    Response.prototype[read] = function (...args) {
      const token = begin();
      return readFirst.apply(this, args).finally(() => end(token));
    };
  }
  const sendFirst = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    const token = begin();
    this.addEventListener('loadend', () => end(token), { once: true });
    try {
      return sendFirst.apply(this, args);
    } catch (error) {
      end(token);
      throw error;
    }
  };

  window.setTimeout = function (callback, delay, ...rest) {
    const ms = Number(delay) || 0;
    if (typeof callback !== 'function' || ms > SHORT_TIMER) {
      return setTimeoutFirst.call(this, callback, delay, ...rest);
    }
    let id;
    const run = function (...values) {
      try {
        return callback.apply(this, values);
      } finally {
        shortTimers.delete(id);
        activity(false);
      }
    };
    id = setTimeoutFirst.call(this, run, delay, ...rest);
    shortTimers.add(id);
    activity(false);
    return id;
  };
  window.setInterval = function (callback, delay, ...rest) {
    const id = setIntervalFirst.call(this, callback, delay, ...rest);
    const ms = Number(delay) || 0;
    if (ms <= SHORT_TIMER) {
      intervals.set(id, Math.max(ms, 10));
      activity(false);
    }
    return id;
  };
  // Either clears either kind: they share their ids.
  const cleared = (id) => {
    intervals.delete(id);
    if (shortTimers.delete(id)) activity(false);
  };
  window.clearTimeout = function (id) {
    cleared(id);
    return clearTimeoutFirst.call(this, id);
  };
  window.clearInterval = function (id) {
    cleared(id);
    return clearIntervalFirst.call(this, id);
  };

  // Scripts a script adds run after they load: each is waited for until it ran or failed.
  // Only those made with createElement: a script put in with innerHTML never runs.
  const madeScripts = new WeakSet();
  const createElementFirst = Document.prototype.createElement;
  Document.prototype.createElement = function (...args) {
    const element = createElementFirst.apply(this, args);
    if (element instanceof HTMLScriptElement) madeScripts.add(element);
    return element;
  };
  const scriptTypes = ['', 'module', 'text/javascript', 'application/javascript', 'text/ecmascript', 'application/ecmascript'];
  const waitForScript = (script) => {
    madeScripts.delete(script);
    if (!script.src || script.noModule || !scriptTypes.includes(script.type.trim().toLowerCase())) return;
    const token = begin();
    script.addEventListener('load', () => end(token), { once: true });
    script.addEventListener('error', () => end(token), { once: true });
  };
  new MutationObserver((records) => {
    let added = false;
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        added = true;
        if (madeScripts.has(node)) waitForScript(node);
      }
    }
    if (added) activity(true);
  }).observe(document, { childList: true, subtree: true });

  // Done: the document loaded, nothing pending, quiet for needed() and idle now (an idle
  // callback runs only when no task waits: a framework hydrating in slices, adding no element
  // and yielding between slices, is not idle until its last slice, after which its effects
  // make their requests). Resolves with how many ms it has been quiet, -1 when not done within
  // `limit` ms, -2 when the tab still shows its blank page or the page it showed before,
  // already read.
  const settled = (limit) => new Promise((resolve) => {
    if (location.protocol === 'about:' || window.__sitemapperRead) {
      resolve(-2);
      return;
    }
    const giveUp = now() + limit;
    const look = () => {
      const at = now();
      if (at >= giveUp) {
        resolve(-1);
        return;
      }
      const quiet = at - lastActivity;
      const ready = document.readyState === 'complete' && !busy();
      if (ready && quiet >= needed()) {
        if (!idleCallback) {
          resolve(quiet);
          return;
        }
        // Past the limit, the idle callback is called anyway, and look() gives up.
        idleCallback((deadline) => {
          const idleAt = now();
          const stillReady = document.readyState === 'complete' && !busy();
          if (!deadline.didTimeout && stillReady && idleAt - lastActivity >= needed()) {
            resolve(idleAt - lastActivity);
          } else {
            look();
          }
        }, { timeout: Math.max(giveUp - at, 1) });
        return;
      }
      wait(look, ready ? Math.min(Math.max(needed() - quiet, 1), giveUp - at) : 10);
    };
    look();
  });
  Object.defineProperty(window, '__sitemapperSettled', { value: settled });
  // How long the page has not changed, for the render timeout; 0 while it loads, or once it
  // was read (the tab's next page is loading).
  Object.defineProperty(window, '__sitemapperStillFor', {
    value: () => (document.readyState === 'complete' && !window.__sitemapperRead ? stillTicks * 100 : 0),
  });

  const opened = [];
  Object.defineProperty(window, '__sitemapperOpened', { value: opened });
  window.open = (url) => { try { opened.push(String(new URL(url, location.href))); } catch (e) {} return null; };
  window.alert = () => {};
  window.confirm = () => false;
  window.prompt = () => null;
  window.print = () => {};
  // A service worker runs apart from the tab, where its requests would escape the crawl's
  // rules: none is registered.
  if (navigator.serviceWorker) {
    Object.defineProperty(navigator.serviceWorker, 'register', {
      value: () => Promise.reject(new DOMException('not while crawling', 'SecurityError')),
    });
  }
  // An icon of its own, so that the browser does not ask the site for /favicon.ico, a
  // request no page made and the crawl could not check.
  document.addEventListener('DOMContentLoaded', () => {
    if (!document.querySelector('link[rel~="icon"]') && document.head) {
      const icon = document.createElement('link');
      icon.rel = 'icon';
      icon.href = 'data:,';
      document.head.appendChild(icon);
    }
  });
})();
