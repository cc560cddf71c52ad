'use strict';
// The interactive parts of report.html, built from the embedded data. Crawled text is
// hostile: it only ever becomes text (textContent, createElement), never markup.
//
// The data's long lists are arrays, to keep the file small:
//   findings, fixed: [code, url, detail, referrers, change]
//   pages: [url, status, verdict, reason, depth, title, bytes, elapsedMs, inlinks, outlinks, extracted]
//   links: [sourceIndex, targetIndex, kind, anchor, nofollow]
const data = JSON.parse(document.getElementById('report-data').textContent);
const LIST_PAGE = 200;
const TABLE_PAGE = 500;
const REFERRERS_SHOWN = 5;
const numbers = new Intl.NumberFormat('en');
const kindByCode = new Map(data.kinds.map(kind => [kind.code, kind]));
const pageIndex = new Map(data.pages.map((page, index) => [page[0], index]));

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function badge(word, className) { return element('span', 'badge ' + className, word); }
function plural(count, one, many) { return numbers.format(count) + ' ' + (count === 1 ? one : many); }
function pageHref(url) { return '#page=' + encodeURIComponent(url); }
/** A URL as text: a link to its drill-down when the crawl recorded it. */
function urlNode(url) {
  if (pageIndex.has(url)) {
    const link = element('a', 'url', url);
    link.href = pageHref(url);
    return link;
  }
  return element('span', 'url', url);
}
function bytesText(bytes) {
  if (bytes === null || bytes === undefined) return '';
  if (bytes < 1024) return numbers.format(bytes) + ' B';
  if (bytes < 1024 * 1024) return numbers.format(Math.round(bytes / 102.4) / 10) + ' KiB';
  return numbers.format(Math.round(bytes / 104857.6) / 10) + ' MiB';
}
function millisecondsText(milliseconds) {
  return milliseconds === null || milliseconds === undefined ? '' : numbers.format(milliseconds) + ' ms';
}
/** A button that appends the next `size` items of `items` to `list`, then removes itself. */
function appendInPages(list, items, render, size, container) {
  let shown = 0;
  const more = element('button', 'more');
  more.type = 'button';
  function next() {
    const fragment = document.createDocumentFragment();
    const end = Math.min(items.length, shown + size);
    for (; shown < end; shown++) fragment.append(render(items[shown]));
    list.append(fragment);
    const left = items.length - shown;
    if (left > 0) {
      more.textContent = 'Show ' + numbers.format(Math.min(size, left)) + ' more (' + numbers.format(left) + ' not shown)';
      if (!more.isConnected) container.append(more);
    } else {
      more.remove();
    }
  }
  more.addEventListener('click', next);
  next();
}

// --- Issues: a kind's URLs, built on its first expansion. ---
let findingsByCode = null;
function byCode(rows) {
  const grouped = new Map();
  for (const row of rows) {
    if (!grouped.has(row[0])) grouped.set(row[0], []);
    grouped.get(row[0]).push(row);
  }
  return grouped;
}
function findingItem(row) {
  const [, url, detail, referrers, change] = row;
  const item = element('li', change ? 'change-' + change : '');
  const head = element('div', 'finding-head');
  head.append(urlNode(url));
  if (change) head.append(badge(change, 'change-' + change));
  item.append(head);
  if (detail) item.append(element('div', 'detail', detail));
  if (referrers.length) {
    const line = element('div', 'referrers');
    line.append(element('span', 'label', 'Linked from ' + plural(referrers.length, 'page', 'pages') + ': '));
    const shown = element('span');
    for (const referrer of referrers.slice(0, REFERRERS_SHOWN)) shown.append(urlNode(referrer));
    line.append(shown);
    if (referrers.length > REFERRERS_SHOWN) {
      const all = element('button', '', 'show all ' + numbers.format(referrers.length));
      all.type = 'button';
      all.addEventListener('click', () => {
        for (const referrer of referrers.slice(REFERRERS_SHOWN)) shown.append(urlNode(referrer));
        all.remove();
      });
      line.append(all);
    }
    item.append(line);
  }
  return item;
}
function buildKind(container, code) {
  if (!findingsByCode) findingsByCode = { current: byCode(data.findings), fixed: byCode(data.fixed) };
  const current = findingsByCode.current.get(code) || [];
  const fixed = findingsByCode.fixed.get(code) || [];
  if (current.length) {
    const list = element('ul', 'findings');
    container.append(list);
    appendInPages(list, current, findingItem, LIST_PAGE, container);
  }
  if (fixed.length) {
    const section = element('div', 'fixed-list');
    section.append(element('h5', '', 'Fixed since the last audit: ' + plural(fixed.length, 'URL', 'URLs')));
    const list = element('ul', 'findings');
    section.append(list);
    container.append(section);
    appendInPages(list, fixed, findingItem, LIST_PAGE, section);
  }
  if (!current.length && !fixed.length) container.append(element('p', 'empty', 'No URLs.'));
}
function toggle(button, onFirstOpen) {
  const panel = document.getElementById(button.getAttribute('aria-controls'));
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    if (open && onFirstOpen && !panel.dataset.built) {
      onFirstOpen(panel);
      panel.dataset.built = 'yes';
    }
    button.setAttribute('aria-expanded', String(open));
    panel.hidden = !open;
    const label = button.dataset[open ? 'close' : 'open'];
    if (label) button.textContent = label;
  });
}
document.querySelectorAll('.group-toggle').forEach(button => toggle(button, null));
document.querySelectorAll('.kind .toggle').forEach(button =>
  toggle(button, panel => buildKind(panel, button.closest('.kind').dataset.code)));

// --- Pages: filtered, sorted, shown TABLE_PAGE rows at a time. ---
// Each cell says its column (`data-column`, which the phone's card layout places by) and
// its header's words (`data-label`, which a card shows before the value).
const pageColumns = [
  { key: 'url', value: page => page[0], cell: page => { const td = element('td', 'url-cell'); td.append(urlNode(page[0])); return td; } },
  { key: 'status', value: page => page[1], numeric: true, cell: page => element('td', 'number', page[1] === null ? 'none' : page[1]) },
  { key: 'verdict', value: page => page[2], cell: page => element('td', 'word', page[2]) },
  { key: 'reason', value: page => page[3] || '', cell: page => element('td', 'word', page[3] || '') },
  { key: 'depth', value: page => page[4], numeric: true, cell: page => element('td', 'number', page[4]) },
  { key: 'title', value: page => page[5] || '', cell: page => element('td', 'text', page[5] || '') },
  { key: 'size', value: page => page[6], numeric: true, cell: page => element('td', 'number', bytesText(page[6])) },
  { key: 'time', value: page => page[7], numeric: true, cell: page => element('td', 'number', millisecondsText(page[7])) },
  { key: 'inlinks', value: page => page[8], numeric: true, cell: page => element('td', 'number', numbers.format(page[8])) },
  { key: 'outlinks', value: page => page[9], numeric: true, cell: page => element('td', 'number', numbers.format(page[9])) },
];
data.extract.forEach((name, index) => pageColumns.push({
  key: 'extract',
  value: page => page[10][index] || '',
  cell: page => element('td', 'text', page[10][index] || ''),
}));
const pageLabels = [...document.querySelectorAll('#pages thead th')].map(header => header.textContent);
const pagesState = { query: '', column: null, ascending: true, limit: TABLE_PAGE, rows: null };
let searchText = null;
function matchingPages() {
  if (pagesState.rows) return pagesState.rows;
  let rows = data.pages.map((page, index) => index);
  const query = pagesState.query.trim().toLowerCase();
  if (query) {
    if (!searchText) searchText = data.pages.map(page => [page[0], page[1], page[2], page[3], page[5], ...page[10]].join('\n').toLowerCase());
    rows = rows.filter(index => searchText[index].includes(query));
  }
  if (pagesState.column !== null) {
    const column = pageColumns[pagesState.column];
    const direction = pagesState.ascending ? 1 : -1;
    const collator = new Intl.Collator('en', { numeric: true });
    rows.sort((a, b) => {
      const x = column.value(data.pages[a]), y = column.value(data.pages[b]);
      // Empty values last, whichever the direction.
      const xEmpty = x === null || x === '', yEmpty = y === null || y === '';
      if (xEmpty || yEmpty) return xEmpty === yEmpty ? a - b : (xEmpty ? 1 : -1);
      const order = column.numeric ? x - y : collator.compare(x, y);
      return order === 0 ? a - b : order * direction;
    });
  }
  pagesState.rows = rows;
  return rows;
}
function renderPages() {
  const rows = matchingPages();
  const body = document.querySelector('#pages tbody');
  const fragment = document.createDocumentFragment();
  for (const index of rows.slice(0, pagesState.limit)) {
    const page = data.pages[index];
    const row = element('tr', 'page');
    pageColumns.forEach((column, index) => {
      const cell = column.cell(page);
      cell.dataset.column = column.key;
      cell.dataset.label = pageLabels[index];
      row.append(cell);
    });
    fragment.append(row);
  }
  body.replaceChildren(fragment);
  const shown = Math.min(rows.length, pagesState.limit);
  document.getElementById('page-count').textContent = shown === rows.length
    ? plural(rows.length, 'URL', 'URLs') + (rows.length === data.pages.length ? '' : ' of ' + numbers.format(data.pages.length))
    : 'showing ' + numbers.format(shown) + ' of ' + numbers.format(rows.length) + (rows.length === data.pages.length ? '' : ' matching (' + numbers.format(data.pages.length) + ' in all)');
  const more = document.getElementById('pages-more');
  const left = rows.length - shown;
  more.hidden = left <= 0;
  more.textContent = 'Show ' + numbers.format(Math.min(TABLE_PAGE, left)) + ' more (' + numbers.format(left) + ' not shown)';
}
let filterTimer = null;
document.getElementById('page-filter').addEventListener('input', event => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => {
    pagesState.query = event.target.value;
    pagesState.rows = null;
    pagesState.limit = TABLE_PAGE;
    renderPages();
  }, 120);
});
document.getElementById('pages-more').addEventListener('click', () => { pagesState.limit += TABLE_PAGE; renderPages(); });
document.querySelectorAll('#pages thead th').forEach((header, column) => {
  const button = header.querySelector('button');
  if (!button) return;
  button.addEventListener('click', () => {
    pagesState.ascending = pagesState.column === column ? !pagesState.ascending : true;
    pagesState.column = column;
    pagesState.rows = null;
    document.querySelectorAll('#pages thead th').forEach(other => other.removeAttribute('aria-sort'));
    header.setAttribute('aria-sort', pagesState.ascending ? 'ascending' : 'descending');
    renderPages();
  });
});
renderPages();

// --- The drill-down of one page, linkable as #page=<encoded URL>. ---
const drill = document.getElementById('drill');
let linksOf = null;
let findingsOfPage = null;
function linkIndexes() {
  if (linksOf) return linksOf;
  linksOf = { in: new Map(), out: new Map() };
  data.links.forEach((link, index) => {
    for (const [map, page] of [[linksOf.out, link[0]], [linksOf.in, link[1]]]) {
      if (!map.has(page)) map.set(page, []);
      map.get(page).push(index);
    }
  });
  return linksOf;
}
function findingsOf(url) {
  if (!findingsOfPage) {
    findingsOfPage = new Map();
    for (const row of data.findings) {
      if (!findingsOfPage.has(row[1])) findingsOfPage.set(row[1], []);
      findingsOfPage.get(row[1]).push(row);
    }
  }
  return findingsOfPage.get(url) || [];
}
function facts(page) {
  const list = element('dl', 'facts');
  const add = (name, value) => {
    if (value === null || value === undefined || value === '') return;
    list.append(element('dt', '', name));
    const dd = element('dd');
    if (value instanceof Node) dd.append(value); else dd.textContent = String(value);
    list.append(dd);
  };
  add('Status', page[1] === null ? 'not fetched' : page[1]);
  add('Verdict', page[2]);
  add('Reason', page[3]);
  add('Depth', plural(page[4], 'click', 'clicks') + ' from the start page');
  add('Size', bytesText(page[6]));
  add('Response time', millisecondsText(page[7]));
  add('Title', page[5]);
  data.extract.forEach((name, index) => add(name, page[10][index]));
  if (/^https?:\/\//i.test(page[0])) {
    const open = element('a', 'url', page[0]);
    open.href = page[0];
    open.target = '_blank';
    open.rel = 'noopener noreferrer';
    add('Address', open);
  }
  return list;
}
function linkTable(indexes, total, other, otherLabel) {
  const section = document.createDocumentFragment();
  if (indexes.length < total) section.append(element('p', 'muted', 'Showing ' + numbers.format(indexes.length) + ' of ' + numbers.format(total) + '; links.csv has them all.'));
  if (!indexes.length) { section.append(element('p', 'empty', total ? 'None embedded in this report.' : 'None.')); return section; }
  const wrap = element('div', 'table-wrap');
  const table = element('table', 'links');
  const head = element('tr');
  for (const label of [otherLabel, 'Kind', 'Anchor text', 'nofollow']) head.append(element('th', 'static', label));
  const thead = element('thead');
  thead.append(head);
  table.append(thead);
  const body = element('tbody');
  for (const index of indexes) {
    const link = data.links[index];
    const row = element('tr');
    const cell = element('td', 'url-cell');
    cell.append(urlNode(data.pages[link[other]][0]));
    const kind = element('td', 'word', link[2]);
    kind.dataset.label = 'Kind';
    const anchor = element('td', 'text', link[3]);
    if (link[3]) anchor.dataset.label = 'Anchor text';
    row.append(cell, kind, anchor, element('td', 'word', link[4] ? 'nofollow' : ''));
    body.append(row);
  }
  table.append(body);
  wrap.append(table);
  section.append(wrap);
  return section;
}
function openPage(index) {
  const page = data.pages[index];
  document.getElementById('drill-title').textContent = page[0];
  const body = document.getElementById('drill-body');
  body.replaceChildren();
  body.append(facts(page));
  const found = findingsOf(page[0]);
  body.append(element('h3', '', 'Findings (' + numbers.format(found.length) + ')'));
  if (found.length) {
    const list = element('ul', 'findings');
    for (const row of found) {
      const kind = kindByCode.get(row[0]);
      const item = element('li', row[4] ? 'change-' + row[4] : '');
      const head = element('div', 'finding-head');
      if (kind) head.append(badge(kind.severity, kind.severity));
      head.append(element('strong', '', kind ? kind.title : row[0]));
      if (row[4]) head.append(badge(row[4], 'change-' + row[4]));
      item.append(head);
      if (row[2]) item.append(element('div', 'detail', row[2]));
      list.append(item);
    }
    body.append(list);
  } else {
    body.append(element('p', 'empty', 'None.'));
  }
  const links = linkIndexes();
  body.append(element('h3', 'inlinks', 'Inlinks (' + numbers.format(page[8]) + ')'));
  body.append(linkTable(links.in.get(index) || [], page[8], 0, 'From'));
  body.append(element('h3', 'outlinks', 'Outlinks (' + numbers.format(page[9]) + ')'));
  body.append(linkTable(links.out.get(index) || [], page[9], 1, 'To'));
  if (!drill.open) drill.showModal();
  drill.scrollTop = 0;
}
function showFromHash() {
  const match = /^#page=(.*)$/.exec(location.hash);
  if (!match) { if (drill.open) drill.close(); return; }
  let url;
  try { url = decodeURIComponent(match[1]); } catch (error) { return; }
  const index = pageIndex.get(url);
  if (index !== undefined) openPage(index);
}
drill.addEventListener('close', () => {
  if (location.hash.startsWith('#page=')) history.replaceState(null, '', location.pathname + location.search);
});
drill.addEventListener('click', event => { if (event.target === drill) drill.close(); });
document.getElementById('drill-close').addEventListener('click', () => drill.close());
window.addEventListener('hashchange', showFromHash);
showFromHash();
