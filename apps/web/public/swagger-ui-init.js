// Starts Swagger UI on /docs (a file, not an inline script, so the page's CSP can forbid inline scripts).
window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  displayRequestDuration: true,
  validatorUrl: null,
});
