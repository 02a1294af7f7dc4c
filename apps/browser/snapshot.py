"""What browserExamine shows of a page: its interactive elements, each tagged in the page with a
ref of this snapshot (`s<snapshot>e<n>`, good only until the next examination), with its role, its
accessible name as a person would read it, its value (never a password's) and whether acting on it
submits a form; and the page's headings for orientation. browserExtract reads the rendered text,
links and tables the same way."""

ELEMENTS = """
(snapshot) => {
  const wanted = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],' +
    '[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=switch],[role=option],' +
    '[role=combobox],[role=textbox],[contenteditable=""],[contenteditable=true]';
  const seen = (el) => {
    if (el.closest('[hidden],[aria-hidden=true]')) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none' && el.getClientRects().length > 0;
  };
  const text = (value) => (value || '').replace(/\\s+/g, ' ').trim().slice(0, 120);
  const roleOf = (el) => {
    const given = el.getAttribute('role');
    if (given) return given;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'select') return 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'summary') return 'button';
    if (tag === 'button') return 'button';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'hidden') return '';
      return 'textbox';
    }
    return el.isContentEditable ? 'textbox' : 'generic';
  };
  const nameOf = (el) => {
    const labelled = el.getAttribute('aria-labelledby');
    if (labelled) {
      const parts = labelled.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean);
      if (parts.length) return text(parts.map((part) => part.innerText).join(' '));
    }
    if (el.getAttribute('aria-label')) return text(el.getAttribute('aria-label'));
    if (el.labels && el.labels.length) return text(Array.from(el.labels).map((l) => l.innerText).join(' '));
    if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) return text(el.value);
    return text(el.innerText || el.getAttribute('placeholder') || el.getAttribute('title') ||
                el.getAttribute('alt') || el.getAttribute('name') || '');
  };
  const submits = (el) => {
    const form = el.form || el.closest('form');
    if (!form) return false;
    if (el.tagName === 'BUTTON') return (el.getAttribute('type') || 'submit').toLowerCase() === 'submit';
    return el.tagName === 'INPUT' && ['submit', 'image'].includes((el.type || '').toLowerCase());
  };
  document.querySelectorAll('[data-atrium-ref]').forEach((el) => el.removeAttribute('data-atrium-ref'));
  const found = [];
  for (const el of document.querySelectorAll(wanted)) {
    if (found.length >= 300) break;
    const role = roleOf(el);
    if (!role || !seen(el)) continue;
    const ref = 's' + snapshot + 'e' + (found.length + 1);
    el.setAttribute('data-atrium-ref', ref);
    const inForm = !!(el.form || el.closest('form'));
    const item = {ref, role, name: nameOf(el), submits: submits(el), inForm};
    if (el.tagName === 'A') item.href = el.href;
    if (role === 'checkbox' || role === 'radio') item.checked = !!el.checked;
    if (el.disabled) item.disabled = true;
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) {
      // A field a vault secret was typed into is shown like a password, whatever its type.
      const hidden = (el.type || '').toLowerCase() === 'password' || el.hasAttribute('data-atrium-secret');
      item.value = hidden ? (el.value ? '••••' : '') : text(el.value);
    }
    if (el.tagName === 'SELECT') item.options = Array.from(el.options).slice(0, 30).map((o) => text(o.text));
    found.push(item);
  }
  const headings = Array.from(document.querySelectorAll('h1,h2,h3')).filter(seen).slice(0, 30)
    .map((h) => ({level: Number(h.tagName[1]), text: text(h.innerText)}));
  return {elements: found, headings};
}
"""

CONTENT = """
() => {
  const text = (value) => (value || '').replace(/[ \\t]+/g, ' ').replace(/\\n{3,}/g, '\\n\\n').trim();
  const tables = Array.from(document.querySelectorAll('table')).slice(0, 20).map((table) =>
    Array.from(table.rows).slice(0, 200).map((row) =>
      Array.from(row.cells).slice(0, 30).map((cell) => text(cell.innerText).slice(0, 300))));
  const links = Array.from(document.querySelectorAll('a[href]')).slice(0, 100)
    .map((a) => ({url: a.href, text: text(a.innerText).slice(0, 120)}));
  return {text: text(document.body ? document.body.innerText : ''), tables, links};
}
"""
