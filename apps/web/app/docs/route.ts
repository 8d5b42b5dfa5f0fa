/**
 * GET /docs: the API reference (Swagger UI) from /v1/openapi.json, its bundle served by this app
 * (scripts/vendor-assets.mjs) and started by public/swagger-ui-init.js, as the page's CSP allows (proxy.ts). The
 * CSP names this deployment's origins, so the page is answered per request with `no-cache`.
 */
export const dynamic = "force-dynamic";

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Pet Store API reference</title>
    <link rel="icon" href="/vendor/swagger-ui/favicon-32x32.png" />
    <link rel="stylesheet" href="/vendor/swagger-ui/swagger-ui.css" />
  </head>
  <body>
    <main id="swagger-ui"></main>
    <script src="/vendor/swagger-ui/swagger-ui-bundle.js"></script>
    <script src="/swagger-ui-init.js"></script>
  </body>
</html>`;

export function GET(): Response {
  return new Response(HTML, {
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" },
  });
}
