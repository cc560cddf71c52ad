// The handbook: a single-page application in plain JavaScript. Every URL serves the same
// shell; this script reads the route from the address, fetches the page's data from
// /api/page/<n>.json and builds the page: header, navigation, breadcrumbs, text with links,
// related pages and a footer. Links are handled by a small History API router.
(function () {
  'use strict';

  var root = document.getElementById('root');
  var cache = new Map();

  function pageOf(pathname) {
    if (pathname === '/') return 0;
    var match = /^\/page\/([1-9][0-9]*)$/.exec(pathname);
    return match ? Number(match[1]) : null;
  }

  function pathOf(page) {
    return page === 0 ? '/' : '/page/' + page;
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (character) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[character];
    });
  }

  function link(page, label, attributes) {
    return '<a href="' + pathOf(page) + '"' + (attributes || '') + '>' + escapeHtml(label) + '</a>';
  }

  function load(page) {
    if (!cache.has(page)) {
      cache.set(page, fetch('/api/page/' + page + '.json', { headers: { Accept: 'application/json' } })
        .then(function (response) {
          if (!response.ok) throw new Error('HTTP ' + response.status);
          return response.json();
        }));
    }
    return cache.get(page);
  }

  function header(data) {
    var sections = data.nav.map(function (target, index) {
      var current = target === data.page ? ' aria-current="page"' : '';
      return link(target, index === 0 ? 'Home' : 'Section ' + index, current);
    });
    return '<header class="top"><a class="brand" href="/">Handbook</a>' +
      '<nav class="sections" aria-label="Sections">' + sections.join(' ') + '</nav></header>';
  }

  function breadcrumbs(data) {
    var trail = [];
    for (var page = data.parent; page !== null && trail.length < 3; page = page === 0 ? null : Math.floor((page - 1) / 2)) {
      trail.unshift(link(page, page === 0 ? 'Home' : 'Page ' + page));
    }
    return trail.length ? '<div class="breadcrumbs">' + trail.join('') + '</div>' : '';
  }

  function body(data) {
    // The links are spread through the text, as an author would place them.
    var perParagraph = Math.ceil(data.links.length / data.paragraphs.length);
    return data.paragraphs.map(function (text, index) {
      var links = data.links.slice(index * perParagraph, (index + 1) * perParagraph);
      var see = links.map(function (target) { return '<li>' + link(target, 'Page ' + target) + '</li>'; });
      return '<p>' + escapeHtml(text) + '</p>' + (see.length ? '<ul class="see-also">' + see.join('') + '</ul>' : '');
    }).join('');
  }

  function related(data) {
    var items = data.children.map(function (target) { return '<li>' + link(target, 'Next: page ' + target) + '</li>'; });
    return items.length ? '<aside class="related"><h2>Read next</h2><ul>' + items.join('') + '</ul></aside>' : '<aside class="related"></aside>';
  }

  function footer(data) {
    return '<footer class="bottom">Handbook, page ' + data.page + '. Generated for the benchmark; ' +
      'the text means nothing.</footer>';
  }

  function render(data) {
    document.title = data.title + ' | Handbook';
    root.innerHTML = header(data) +
      '<div class="layout"><main>' + breadcrumbs(data) + '<h1>' + escapeHtml(data.title) + '</h1>' +
      body(data) + '</main>' + related(data) + '</div>' + footer(data);
    window.scrollTo(0, 0);
  }

  function show(pathname) {
    var page = pageOf(pathname);
    if (page === null) {
      root.innerHTML = '<p class="error">This page does not exist. ' + link(0, 'Back home') + '</p>';
      return Promise.resolve();
    }
    root.innerHTML = '<p class="loading">Loading…</p>';
    return load(page).then(render, function (error) {
      root.innerHTML = '<p class="error">The page could not be loaded (' + escapeHtml(error.message) + ').</p>';
    });
  }

  document.addEventListener('click', function (event) {
    var anchor = event.target.closest && event.target.closest('a[href^="/"]');
    if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    history.pushState(null, '', anchor.getAttribute('href'));
    show(location.pathname);
  });
  window.addEventListener('popstate', function () { show(location.pathname); });

  show(location.pathname);
})();
