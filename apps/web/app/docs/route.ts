/**
 * GET /docs: interactive API reference (Swagger UI) rendered from /v1/openapi.json, with "Try it out"
 * and bearer authorization. Swagger UI's bundle is served by this app (copied from node_modules at build
 * time by scripts/vendor-assets.mjs), so the page needs no CDN; it is started by public/swagger-ui-init.js,
 * not an inline script, so the page's Content-Security-Policy (proxy.ts) allows scripts from this origin only.
 * That policy names this deployment's origins (PUBLIC_BASE_URL and the OpenAPI document's servers), so the page is
 * answered per request and no shared cache keeps it: `no-cache`, where a static page would get a year's s-maxage.
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
