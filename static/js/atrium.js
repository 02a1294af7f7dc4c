// Small behaviours shared by the settings pages: copy buttons and confirmations.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = source.value !== undefined ? source.value : source.textContent;
  try {
    await navigator.clipboard.writeText(text.trim());
  } catch {
    // Clipboard API refused (plain http on a non-localhost name): select the text instead.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    document.execCommand("copy");
  }
  const label = button.textContent;
  button.textContent = "Copied";
  setTimeout(() => { button.textContent = label; }, 1500);
});

document.addEventListener("submit", (event) => {
  const message = event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});

// A form answered with errors: its first field in error is brought into view and focused (the
// page otherwise reloads at its top, the error perhaps a screen or more below).
document.addEventListener("DOMContentLoaded", () => {
  const field = document.querySelector('form [aria-invalid="true"]');
  const target = field || document.querySelector('form .error[role="alert"]');
  if (!target) return;
  target.scrollIntoView({ block: "center" });
  if (field) field.focus({ preventScroll: true });
});

// The settings menu: on a narrow screen its links fold under a "Menu" button (the stylesheet
// hides the list while the button says it is collapsed); on a wide one the button is not shown
// and the list stays a side menu. Without this script the button stays hidden and the list open.
document.addEventListener("DOMContentLoaded", () => {
  const toggle = document.querySelector(".sidenav .menu-toggle");
  if (!toggle) return;
  const setOpen = (open) => toggle.setAttribute("aria-expanded", open ? "true" : "false");
  toggle.hidden = false;
  toggle.addEventListener("click", () => setOpen(toggle.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || toggle.getAttribute("aria-expanded") !== "true") return;
    if (getComputedStyle(toggle).display === "none") return;
    setOpen(false);
    toggle.focus();
  });
});

// The menu's groups: on a narrow screen all but the current page's are folded, so that the open
// menu is a short list of groups; on a wide one all are open. Without this script all stay open.
document.addEventListener("DOMContentLoaded", () => {
  const groups = document.querySelectorAll(".sidenav details.menu-group");
  if (!groups.length) return;
  const narrow = window.matchMedia("(max-width: 44rem)");
  const fit = () => groups.forEach((group) => {
    group.open = !narrow.matches || group.querySelector('[aria-current="page"]') !== null;
  });
  fit();
  narrow.addEventListener("change", fit);
});
