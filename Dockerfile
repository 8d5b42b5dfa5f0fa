# The Pet Store image: the production folder (apps/web/dist/production) on Node alone; docs/operations.md
# "Containers". The build stage runs the repository's own build; the runtime stage copies only the folder.
# The Node of .node-version (scripts/node.sh installs the same release where the machine has another).
FROM node:24.22.3-bookworm-slim AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

FROM node:24.22.3-bookworm-slim
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000
WORKDIR /app
# Owned by the image's unprivileged `node` user: the embedded database (no DATABASE_URL) is written under .data/.
COPY --from=build --chown=node:node /src/apps/web/dist/production/ ./
USER node
EXPOSE 3000
# Ready, not only up: 503 while the database does not answer or the instance drains (docs/operations.md "Health").
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`,{signal:AbortSignal.timeout(4000)}).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node as PID 1 gets SIGTERM and drains (docs/operations.md "Deploying", "Restarts"). compose.yaml's API instances
# run `node --max-semi-space-size=8 --heap-growing-percent=50 server.js` instead (docs/operations.md "Roles").
CMD ["node", "server.js"]
