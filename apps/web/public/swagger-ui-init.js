// Starts Swagger UI on /docs (a file, not an inline script, so the page's CSP can forbid inline scripts).
// It starts on the document's first server, this deployment. A key pasted into "Authorize" lives only in the
// page: persisting it would leave a secret in the browser's localStorage for any later visitor or script.
window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: false,
  displayRequestDuration: true,
  validatorUrl: null,
});
