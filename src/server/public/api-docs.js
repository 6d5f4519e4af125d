// Starts Swagger UI (served from this board, no network) on the board's own OpenAPI document.
(function () {
  'use strict';
  var root = document.getElementById('swagger-ui');
  if (!root || typeof window.SwaggerUIBundle !== 'function') return;
  window.SwaggerUIBundle({
    url: root.getAttribute('data-spec'),
    domNode: root,
    deepLinking: true,
    // No badge from validator.swagger.io: the page asks nothing of other hosts.
    validatorUrl: null,
    // The board's own routes only: the document has no servers list, so requests go to this origin.
    tryItOutEnabled: false,
  });
})();
