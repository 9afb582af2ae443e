// scratchpad ui: what the server-rendered pages cannot do alone. Stored content only ever reaches
// the page as text (textContent, never innerHTML); pages re-fetched from the server are the same
// escaped HTML the server sent first.
'use strict';

(() => {
  const body = document.body;
  const page = body.dataset.page;
  const readOnly = body.dataset.readOnly === '1';

  // --- small helpers ----------------------------------------------------------------------------

  /** An element with attributes and children (strings become text nodes). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  class ApiError extends Error {
    constructor(status, message, currentVersion) {
      super(message);
      this.status = status;
      this.currentVersion = currentVersion;
    }
  }

  /** Calls the JSON API; a failure is an ApiError with the server's message. */
  async function api(path, options = {}) {
    const init = { credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (options.body !== undefined) {
      init.method = 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    if (!response.ok) {
      const message = (data && data.error) || `the server answered ${response.status}`;
      throw new ApiError(response.status, message, data && data.current_version);
    }
    return data;
  }

  const fmt = new Intl.NumberFormat('en-US');
  const number = (n) => fmt.format(n);

  let toastTimer = null;
  function toast(text) {
    const box = document.getElementById('toast');
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
  }

  function debounce(fn, ms) {
    let timer = null;
    return (...args) => {
      clearTimeout(timer);
      timer = setTimeout(() => fn(...args), ms);
    };
  }

  /** "3m ago", "in 2h": as the server writes it. */
  function ago(at, now) {
    const delta = now - at;
    const future = delta < 0;
    const secs = Math.floor(Math.abs(delta) / 1000);
    if (secs < 5) return 'just now';
    let text;
    if (secs < 60) text = `${secs}s`;
    else if (secs < 3600) text = `${Math.floor(secs / 60)}m`;
    else if (secs < 86400) text = `${Math.floor(secs / 3600)}h`;
    else text = `${Math.floor(secs / 86400)}d`;
    return future ? `in ${text}` : `${text} ago`;
  }

  function refreshTimes(root = document) {
    const now = Date.now();
    for (const node of root.querySelectorAll('time[data-ago]')) {
      const at = Number(node.getAttribute('datetime'));
      if (Number.isFinite(at)) node.textContent = ago(at, now);
    }
  }
  setInterval(refreshTimes, 20000);

  /** The page at `url` as a document, or null when it is gone (404). */
  async function fetchPage(url) {
    const response = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    return new DOMParser().parseFromString(await response.text(), 'text/html');
  }

  // --- live updates ---------------------------------------------------------------------------

  const liveHandlers = [];
  function onStoreChange(fn) {
    liveHandlers.push(debounce(fn, 150));
  }

  function startLive() {
    const indicator = document.getElementById('live');
    if (!window.EventSource) return;
    const source = new EventSource('/api/events');
    source.addEventListener('open', () => {
      indicator.classList.add('on');
      indicator.classList.remove('off');
      indicator.title = 'Live: this page follows what agents write';
    });
    source.addEventListener('error', () => {
      indicator.classList.remove('on');
      indicator.classList.add('off');
      indicator.title = 'Not live: reconnecting…';
    });
    source.addEventListener('change', () => {
      indicator.classList.remove('pulse');
      void indicator.offsetWidth;
      indicator.classList.add('pulse');
      for (const handler of liveHandlers) handler();
    });
  }

  /** List pages: the main region fetched again and swapped in, new and changed rows flashed. */
  function liveMain() {
    onStoreChange(async () => {
      const main = document.getElementById('main');
      const keyOf = (row) => row.dataset.name || (row.cells[0] && row.cells[0].textContent);
      const before = new Map();
      for (const row of main.querySelectorAll('tbody tr')) before.set(keyOf(row), row.textContent);
      let doc;
      try {
        doc = await fetchPage(location.href);
      } catch (_) {
        return;
      }
      if (!doc) return;
      const fresh = doc.getElementById('main');
      if (!fresh) return;
      const focused = document.activeElement && document.activeElement.closest('form');
      if (focused) return; // Never swap a form away under a person typing in it.
      main.replaceChildren(...Array.from(fresh.childNodes).map((n) => document.importNode(n, true)));
      for (const row of main.querySelectorAll('tbody tr')) {
        const old = before.get(keyOf(row));
        if (before.size && old !== row.textContent) row.classList.add('fresh');
      }
      refreshTimes(main);
    });
  }

  // --- the viewer -----------------------------------------------------------------------------

  /** Pixels a scroll area may be tall; longer content is scrolled on a scale. */
  const MAX_SCROLL_PX = 8000000;
  const LINES_PER_FETCH = 200;
  const HEX_ROW_BYTES = 16;
  const HEX_ROWS_PER_FETCH = 256;
  /** Lines (or hex rows) kept in memory, nearest to the view first. */
  const CACHE_ROWS = 20000;

  class Viewer {
    constructor(root) {
      this.root = root;
      this.apiBase = root.dataset.api;
      this.version = root.dataset.version;
      this.mode = root.dataset.mode;
      this.scroller = root.querySelector('.viewer-scroll');
      this.spacer = root.querySelector('.viewer-spacer');
      this.rowsBox = root.querySelector('.viewer-rows');
      this.status = root.querySelector('.viewer-status');
      this.rowHeight = 20;
      this.cache = new Map();
      this.inFlight = new Set();
      this.target = null;
      this.rowNodes = [];
      this.generation = 0;
      this.setSize(Number(root.dataset.lines), Number(root.dataset.bytes));
      this.scroller.addEventListener('scroll', () => this.schedule());
      window.addEventListener('resize', () => this.schedule());
      this.schedule();
    }

    /** Rows in all: lines, or hex rows of 16 bytes. */
    setSize(lines, bytes) {
      this.lines = lines;
      this.bytes = bytes;
      this.total = this.mode === 'hex' ? Math.ceil(bytes / HEX_ROW_BYTES) : lines;
      this.spacer.style.height = `${Math.max(1, Math.min(this.total * this.rowHeight, MAX_SCROLL_PX))}px`;
    }

    /** Content changed (a new version): everything fetched so far is dropped. */
    reset(lines, bytes) {
      this.generation += 1;
      this.cache.clear();
      this.inFlight.clear();
      this.setSize(lines, bytes);
      this.schedule();
    }

    get scaled() {
      return this.total * this.rowHeight > MAX_SCROLL_PX;
    }

    visibleRows() {
      return Math.max(1, Math.ceil(this.scroller.clientHeight / this.rowHeight));
    }

    /** The first row on screen (1-based). */
    firstRow() {
      const top = this.scroller.scrollTop;
      if (!this.scaled) return Math.floor(top / this.rowHeight) + 1;
      const room = this.spacer.offsetHeight - this.scroller.clientHeight;
      const span = Math.max(0, this.total - this.visibleRows() + 1);
      const fraction = room > 0 ? Math.min(1, top / room) : 0;
      return Math.max(1, Math.min(span, Math.floor(fraction * span) + 1));
    }

    schedule() {
      if (this.frame) return;
      this.frame = requestAnimationFrame(() => {
        this.frame = null;
        this.render();
      });
    }

    render() {
      const first = this.firstRow();
      const count = Math.min(this.visibleRows() + 1, Math.max(0, this.total - first + 1));
      const top = this.scaled ? this.scroller.scrollTop : (first - 1) * this.rowHeight;
      this.rowsBox.style.transform = `translateY(${top}px)`;
      while (this.rowNodes.length < count) {
        const row = el('div', { class: this.mode === 'hex' ? 'row hex' : 'row' });
        this.rowsBox.append(row);
        this.rowNodes.push(row);
      }
      while (this.rowNodes.length > count) this.rowNodes.pop().remove();
      let missing = null;
      for (let i = 0; i < count; i += 1) {
        const n = first + i;
        const node = this.rowNodes[i];
        const row = this.cache.get(n);
        if (row === undefined && missing === null) missing = n;
        if (node.dataset.row === String(n) && node.dataset.filled === String(row !== undefined)) continue;
        node.dataset.row = String(n);
        node.dataset.filled = String(row !== undefined);
        node.classList.toggle('target', n === this.target);
        node.classList.toggle('loading', row === undefined);
        node.replaceChildren(...this.cells(n, row));
      }
      for (const node of this.rowNodes) node.classList.toggle('target', Number(node.dataset.row) === this.target);
      if (missing !== null) this.fetchFrom(missing);
      this.trim(first);
      const last = first + count - 1;
      if (this.mode === 'hex') {
        const from = (first - 1) * HEX_ROW_BYTES;
        const to = Math.min(this.bytes, last * HEX_ROW_BYTES);
        this.status.textContent = `bytes ${number(from)}–${number(to)} of ${number(this.bytes)}`;
      } else if (this.total === 0) {
        this.status.textContent = 'empty';
      } else {
        this.status.textContent = `lines ${number(first)}–${number(last)} of ${number(this.total)}`;
      }
    }

    cells(n, row) {
      if (this.mode === 'hex') {
        const offset = (n - 1) * HEX_ROW_BYTES;
        const off = el('span', { class: 'off', text: offset.toString(16).padStart(8, '0') });
        if (row === undefined) return [off, el('span', { class: 'bytes', text: '…' })];
        const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0'));
        const grouped = `${hex.slice(0, 8).join(' ')}  ${hex.slice(8).join(' ')}`;
        const ascii = Array.from(row, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
        return [off, el('span', { class: 'bytes', text: grouped }), el('span', { class: 'ascii', text: ascii })];
      }
      const gutter = el('a', { class: 'g', href: `#L${n}`, text: String(n) });
      if (row === undefined) return [gutter, el('span', { class: 't', text: '…' })];
      const text = el('span', { class: 't', text: row.text });
      if (!row.cut) return [gutter, text];
      return [gutter, text, el('span', { class: 'cut', text: '… (line continues: read it with Characters)' })];
    }

    /** Fetches the rows from `n` on, unless a fetch already covers them. */
    async fetchFrom(n) {
      for (const start of this.inFlight) {
        if (n >= start && n < start + this.perFetch()) return;
      }
      this.inFlight.add(n);
      const generation = this.generation;
      const version = this.version ? `&version=${encodeURIComponent(this.version)}` : '';
      try {
        if (this.mode === 'hex') {
          const offset = (n - 1) * HEX_ROW_BYTES;
          const data = await api(`${this.apiBase}/bytes?offset=${offset}&length=${HEX_ROWS_PER_FETCH * HEX_ROW_BYTES}${version}`);
          if (generation !== this.generation) return;
          const raw = atob(data.base64);
          const bytes = new Uint8Array(raw.length);
          for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
          for (let i = 0; i * HEX_ROW_BYTES < bytes.length; i += 1) {
            this.cache.set(n + i, bytes.subarray(i * HEX_ROW_BYTES, (i + 1) * HEX_ROW_BYTES));
          }
        } else {
          const data = await api(`${this.apiBase}/lines?from=${n}&count=${LINES_PER_FETCH}${version}`);
          if (generation !== this.generation) return;
          data.lines.forEach((line, i) => this.cache.set(data.from + i, line));
          if (data.lines.length === 0 && n <= this.total) {
            // Past what the content has now (it may have been replaced): show no more rows.
            this.setSize(n - 1, this.bytes);
          }
        }
      } catch (err) {
        this.status.textContent = err.message;
        return;
      } finally {
        this.inFlight.delete(n);
      }
      this.schedule();
    }

    perFetch() {
      return this.mode === 'hex' ? HEX_ROWS_PER_FETCH : LINES_PER_FETCH;
    }

    /** Keeps memory bounded: rows far from the view go. */
    trim(first) {
      if (this.cache.size <= CACHE_ROWS) return;
      const keep = CACHE_ROWS / 2;
      for (const n of this.cache.keys()) {
        if (Math.abs(n - first) > keep) this.cache.delete(n);
      }
    }

    /** Scrolls so that row `n` is on screen, a third down, and marks it. */
    goTo(n) {
      if (!Number.isFinite(n) || this.total === 0) return;
      n = Math.max(1, Math.min(this.total, Math.floor(n)));
      this.target = n;
      const before = Math.floor(this.visibleRows() / 3);
      const start = Math.max(1, n - before);
      if (!this.scaled) {
        this.scroller.scrollTop = (start - 1) * this.rowHeight;
      } else {
        const room = this.spacer.offsetHeight - this.scroller.clientHeight;
        const span = Math.max(1, this.total - this.visibleRows() + 1);
        // A little past the row's own fraction, so that rounding lands on it.
        this.scroller.scrollTop = Math.ceil(((start - 1) / span) * room) + 1;
      }
      this.render();
    }
  }

  // --- the JSON tree ------------------------------------------------------------------------

  /** Children a tree node shows before "… N more". */
  const TREE_CHILDREN = 500;
  /** Levels of the tree open at first: the shape of the document at a glance, its depths on a click. */
  const TREE_OPEN_LEVELS = 2;

  function treeValue(value) {
    if (value === null) return el('span', { class: 'lit', text: 'null' });
    switch (typeof value) {
      case 'string': return el('span', { class: 'str', text: JSON.stringify(value) });
      case 'number': return el('span', { class: 'num', text: String(value) });
      case 'boolean': return el('span', { class: 'lit', text: String(value) });
      default: return null;
    }
  }

  function treeNode(key, value, depth) {
    const label = key === null ? null : el('span', { class: 'key', text: `${JSON.stringify(key)}: ` });
    const leaf = treeValue(value);
    if (leaf) return el('div', { class: 'leaf' }, label, leaf);
    const isArray = Array.isArray(value);
    const entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
    const summary = el('summary', {}, label,
      el('span', { text: isArray ? '[' : '{' }),
      el('span', { class: 'count', text: ` ${number(entries.length)} ${isArray ? 'items' : 'keys'} ` }),
      el('span', { text: isArray ? ']' : '}' }));
    const details = el('details', {}, summary);
    // Children are built when first opened: a large document costs nothing until looked at.
    let built = false;
    const build = () => {
      if (built) return;
      built = true;
      for (const [k, v] of entries.slice(0, TREE_CHILDREN)) details.append(treeNode(isArray ? null : k, v, depth + 1));
      if (entries.length > TREE_CHILDREN) {
        details.append(el('div', { class: 'leaf count', text: `… ${number(entries.length - TREE_CHILDREN)} more (read them with jq)` }));
      }
    };
    details.addEventListener('toggle', build);
    if (depth < TREE_OPEN_LEVELS) {
      details.open = true;
      build();
    }
    return details;
  }

  async function showTree(box, apiBase) {
    if (box.dataset.loaded) return;
    box.textContent = 'Loading…';
    try {
      const response = await fetch(`${apiBase}/raw`, { credentials: 'same-origin' });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      const value = JSON.parse(await response.text());
      box.replaceChildren(treeNode(null, value, 0));
      box.dataset.loaded = '1';
    } catch (err) {
      box.textContent = `Cannot show the tree: ${err.message}`;
    }
  }

  // --- the entry page -------------------------------------------------------------------------

  function entryPage() {
    const session = body.dataset.session;
    const name = body.dataset.name;
    const apiBase = `/api/s/${encodeURIComponent(session)}/e/${encodeURIComponent(name)}`;
    const viewerRoot = document.getElementById('viewer');
    const viewer = viewerRoot ? new Viewer(viewerRoot) : null;
    const shownVersion = body.dataset.shownVersion;

    const fromHash = () => {
      const match = /^#L(\d+)$/.exec(location.hash);
      if (!match || !viewer) return;
      showLines();
      viewer.goTo(Number(match[1]));
      viewerRoot.scrollIntoView({ block: 'nearest' });
    };
    window.addEventListener('hashchange', fromHash);

    const params = new URLSearchParams(location.search);
    const linesParam = params.get('lines');
    if (/^#L\d+$/.test(location.hash)) {
      requestAnimationFrame(fromHash);
    } else if (linesParam && viewer) {
      const first = Number(linesParam.replace(/[,\s]/g, '').split(/[-–]/)[0]);
      requestAnimationFrame(() => viewer.goTo(first));
    }

    // A line of the preview opens that line in the viewer.
    document.addEventListener('click', (event) => {
      const line = event.target.closest('#preview .pl[data-line]');
      if (!line || event.target.closest('a')) return;
      location.hash = `L${line.dataset.line}`;
    });

    const jump = document.getElementById('jump');
    if (jump && viewer) {
      jump.addEventListener('submit', (event) => {
        event.preventDefault();
        const field = jump.elements.line || jump.elements.offset;
        const raw = field.value.trim();
        if (!raw) return;
        if (viewer.mode === 'hex') {
          const offset = raw.toLowerCase().startsWith('0x') ? parseInt(raw, 16) : parseInt(raw, 10);
          if (Number.isFinite(offset)) viewer.goTo(Math.floor(offset / HEX_ROW_BYTES) + 1);
        } else {
          location.hash = `L${parseInt(raw.replace(/[,\s]/g, ''), 10)}`;
        }
      });
    }

    const tree = document.getElementById('tree');
    const tabs = document.querySelectorAll('#content-box .tab');
    function showLines() {
      if (!tree || !viewerRoot) return;
      tree.hidden = true;
      viewerRoot.hidden = false;
      for (const tab of tabs) tab.classList.toggle('on', tab.dataset.view !== 'tree');
      viewer && viewer.schedule();
    }
    for (const tab of tabs) {
      tab.addEventListener('click', () => {
        if (tab.dataset.view === 'tree') {
          viewerRoot.hidden = true;
          tree.hidden = false;
          for (const t of tabs) t.classList.toggle('on', t === tab);
          showTree(tree, apiBase);
        } else {
          showLines();
        }
      });
    }

    if (!readOnly) entryActions(session, name, apiBase);

    onStoreChange(async () => {
      let doc;
      try {
        doc = await fetchPage(location.href);
      } catch (_) {
        return;
      }
      if (!doc) {
        const head = document.getElementById('entry-head');
        if (head && !document.getElementById('gone')) {
          head.after(el('div', { class: 'banner', id: 'gone', text: 'This entry was deleted, renamed or has expired: what you see is what it was.' }));
        }
        return;
      }
      const before = body.dataset.version;
      const after = doc.body.dataset.version;
      for (const id of ['entry-head', 'meta', 'preview-box', 'actions', 'version-banner']) {
        const mine = document.getElementById(id);
        const theirs = doc.getElementById(id);
        if (mine && theirs) mine.replaceWith(document.importNode(theirs, true));
      }
      refreshTimes();
      if (after && after !== before) {
        body.dataset.version = after;
        const fresh = doc.getElementById('viewer');
        if (viewer && fresh && !shownVersion) viewer.reset(Number(fresh.dataset.lines), Number(fresh.dataset.bytes));
        const tree = document.getElementById('tree');
        if (tree) delete tree.dataset.loaded;
        const editor = document.getElementById('editor');
        if (editor && !editor.hidden) {
          const note = document.getElementById('editor-error');
          note.textContent = `Version ${after} was written while you edit. Saving will show you what changed, and overwrite nothing.`;
          note.hidden = false;
        }
        toast(`${name} is now at version ${after}`);
      }
    });
  }

  function entryActions(session, name, apiBase) {
    const version = () => Number(body.dataset.version);
    const editor = document.getElementById('editor');
    const text = document.getElementById('editor-text');
    const conflict = document.getElementById('conflict');
    const editorError = document.getElementById('editor-error');
    let base = null;

    async function startEdit() {
      const response = await fetch(`${apiBase}/raw`, { credentials: 'same-origin' });
      if (!response.ok) {
        toast(`Cannot load the text: the server answered ${response.status}`);
        return;
      }
      text.value = await response.text();
      base = version();
      document.getElementById('editor-base').textContent = `from version ${base}`;
      conflict.hidden = true;
      editorError.hidden = true;
      editor.hidden = false;
      editor.scrollIntoView({ block: 'start', behavior: 'smooth' });
      text.focus();
    }

    async function save(ifVersion) {
      editorError.hidden = true;
      try {
        const data = await api(`${apiBase}/write`, { body: { text: text.value, if_version: ifVersion } });
        toast(`Saved as version ${data.entry.version}`);
        location.reload();
      } catch (err) {
        if (err.status === 409 && err.currentVersion) {
          await showConflict(err.currentVersion);
        } else {
          editorError.textContent = err.message;
          editorError.hidden = false;
        }
      }
    }

    /** A stale edit: what changed since the version it started from, and the choice what to do. */
    async function showConflict(current) {
      conflict.replaceChildren(el('h3', { text: 'This note changed while you were editing it' }));
      let who = '';
      try {
        const info = await api(apiBase);
        who = info.entry.author ? ` by ${info.entry.author}` : '';
      } catch (_) { /* the diff below says enough */ }
      conflict.append(el('p', { text: `You started from version ${base}; it is now at version ${current}${who}. Nothing was overwritten: your text is still in the box above. What changed since version ${base}:` }));
      try {
        const diff = await api(`${apiBase}/diff?from=${base}&to=${current}`);
        const lines = el('div', { class: 'diff' });
        for (const line of diff.text.split('\n')) {
          if (!line) continue;
          const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
          lines.append(el('div', { class: `dl ${kind}` }, el('span', { class: 't', text: line })));
        }
        conflict.append(lines);
      } catch (err) {
        conflict.append(el('p', { class: 'quiet', text: `What changed cannot be shown: ${err.message}` }));
      }
      const mine = el('button', { type: 'button', class: 'danger', text: `Save mine over version ${current}` });
      mine.addEventListener('click', () => save(current));
      const theirs = el('button', { type: 'button', text: `Discard mine, show version ${current}` });
      theirs.addEventListener('click', () => location.reload());
      conflict.append(el('div', { class: 'buttons' }, mine, theirs));
      conflict.hidden = false;
    }

    function dialog(id, onOk) {
      const box = document.getElementById(id);
      if (!box) return;
      const form = box.querySelector('form');
      const error = box.querySelector('.form-error');
      error.hidden = true;
      box.showModal();
      form.onsubmit = async (event) => {
        if (event.submitter && event.submitter.value === 'cancel') return;
        event.preventDefault();
        try {
          await onOk(form);
          box.close();
        } catch (err) {
          error.textContent = err.status === 409
            ? `${err.message} Reload the page to see the current version.`
            : err.message;
          error.hidden = false;
        }
      };
    }

    const sessionUrl = `/s/${encodeURIComponent(session)}`;
    document.addEventListener('click', async (event) => {
      const button = event.target.closest('[data-action]');
      if (!button) return;
      switch (button.dataset.action) {
        case 'edit':
          startEdit();
          break;
        case 'save':
          save(base);
          break;
        case 'cancel-edit':
          editor.hidden = true;
          break;
        case 'rename':
          dialog('dlg-rename', async (form) => {
            const to = form.elements.to.value.trim();
            await api(`${apiBase}/rename`, { body: { to, if_version: version() } });
            location.href = `${sessionUrl}/e/${encodeURIComponent(to)}`;
          });
          break;
        case 'pin':
        case 'unpin':
          try {
            await api(`${apiBase}/pin`, { body: { pinned: button.dataset.action === 'pin', if_version: version() } });
            location.reload();
          } catch (err) {
            toast(err.message);
          }
          break;
        case 'ttl': {
          const box = document.getElementById('dlg-ttl');
          const custom = box.querySelector('.custom-ttl');
          const preset = box.querySelector('select[name=preset]');
          const sync = () => { custom.hidden = preset.value !== 'custom'; };
          preset.onchange = sync;
          sync();
          dialog('dlg-ttl', async (form) => {
            const ttl = form.elements.preset.value === 'custom' ? form.elements.custom.value.trim() : form.elements.preset.value;
            await api(`${apiBase}/ttl`, { body: { ttl, if_version: version() } });
            location.reload();
          });
          break;
        }
        case 'delete':
          dialog('dlg-delete', async (form) => {
            const purge = Boolean(form.elements.purge && form.elements.purge.checked);
            const data = await api(`${apiBase}/delete`, { body: { if_version: version(), purge } });
            // What was kept, and how to restore it, is said on the page that comes next.
            try { sessionStorage.setItem('scratchpad-flash', data.message); } catch (_) { /* storage off */ }
            location.href = sessionUrl;
          });
          break;
        default:
          break;
      }
    });
  }

  /** Restore buttons (history page, an older version's banner). */
  function restoreButtons() {
    document.addEventListener('click', async (event) => {
      const button = event.target.closest('[data-action=restore]');
      if (!button || readOnly) return;
      const session = body.dataset.session;
      const name = body.dataset.name;
      const version = Number(button.dataset.restore);
      if (!window.confirm(`Make version ${version} of ${name} current again? It becomes a new version; nothing is lost.`)) return;
      try {
        const data = await api(`/api/s/${encodeURIComponent(session)}/e/${encodeURIComponent(name)}/restore`, {
          body: { version, if_version: Number(button.dataset.current) },
        });
        toast(`Restored as version ${data.entry.version}`);
        location.href = `/s/${encodeURIComponent(session)}/e/${encodeURIComponent(name)}`;
      } catch (err) {
        toast(err.status === 409 ? `${err.message} Reload to see the current version.` : err.message);
      }
    });
  }

  function newNotePage() {
    const form = document.getElementById('new-note');
    if (!form) return;
    const error = form.querySelector('.form-error');
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      error.hidden = true;
      const session = form.dataset.session;
      const name = form.elements.name.value.trim();
      try {
        await api(`/api/s/${encodeURIComponent(session)}/notes`, {
          body: { name, text: form.elements.text.value, pinned: form.elements.pinned.checked },
        });
        location.href = `/s/${encodeURIComponent(session)}/e/${encodeURIComponent(name)}`;
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
      }
    });
  }

  // --- start ----------------------------------------------------------------------------------

  try {
    const flash = sessionStorage.getItem('scratchpad-flash');
    if (flash) {
      sessionStorage.removeItem('scratchpad-flash');
      toast(flash);
    }
  } catch (_) { /* storage off */ }

  switch (page) {
    case 'entry':
      entryPage();
      restoreButtons();
      break;
    case 'history':
      restoreButtons();
      liveMain();
      break;
    case 'new-note':
      newNotePage();
      break;
    case 'sessions':
    case 'entries':
    case 'savings':
    case 'search':
    case 'diff':
      liveMain();
      break;
    default:
      break;
  }
  startLive();
})();
