/**
 * GET /docs: interactive API reference (Scalar) rendered from /v1/openapi.json. The Scalar bundle is
 * served from this app (copied from node_modules at build time), and its web fonts are off, so the page
 * works without internet access.
 */
export const dynamic = "force-static";

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Pet Store API reference</title>
  </head>
  <body>
    <div id="api-reference"></div>
    <script src="/vendor/scalar-api-reference.js"></script>
    <script>
      Scalar.createApiReference("#api-reference", {
        url: "/v1/openapi.json",
        withDefaultFonts: false,
        hideClientButton: false,
        metaData: { title: "Pet Store API reference" },
      });
    </script>
  </body>
</html>`;

export function GET(): Response {
  return new Response(HTML, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}
