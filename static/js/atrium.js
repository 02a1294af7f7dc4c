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
