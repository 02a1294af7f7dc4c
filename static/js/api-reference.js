// Starts Redoc on the API reference page (apps/core/api/reference.py): the schema's URL and
// Redoc's options come from the container's data attributes, so the page has no inline script.
(function () {
  "use strict";
  var container = document.getElementById("redoc-container");
  if (!container || typeof Redoc === "undefined") return;
  var options = container.dataset.options ? JSON.parse(container.dataset.options) : {};
  Redoc.init(container.dataset.schemaUrl, options, container);
})();
