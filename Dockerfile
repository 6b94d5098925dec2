# The TurnGym env server as a container: `turngym serve` with every env of this repository, Debian's Chromium
# for the wiki navigator's browser mode. Build from the repository root:
#   docker build -t turngym-env-server .
#   docker run --rm -p 8000:8000 -e TURNGYM_SERVER_TOKEN=secret turngym-env-server
# The default command serves turngym/math-thought-v1 on 0.0.0.0:8000 with one worker per core; pass another
# command line to serve other envs (see deploy/compose.yaml and deploy/kubernetes.yaml, and the server
# README's "Deployment" section).

# ---- build: install the workspaces (native addons need a compiler) and compile every package ----
FROM node:20-bookworm-slim AS build
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# npm install (not npm ci), as .ci/run does: the lock lacks other platforms' optional binaries.
RUN npm install --no-audit --no-fund && npm run build

# ---- runtime: Node, Chromium, the built tree ----
FROM node:20-bookworm-slim
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends chromium tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    TURNGYM_CHROMIUM=/usr/bin/chromium
WORKDIR /app
COPY --from=build /app /app
# One process holds a socket per session: raise the open-file limit with the runtime (`--ulimit nofile=65536`,
# compose's `ulimits`, or the node's default in Kubernetes) for more than ~1,000 sessions.
USER node
EXPOSE 8000
# /health needs no token; it answers 503 while the server shuts down.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini forwards SIGTERM to the server (a graceful close: clients told, envs closed) and reaps Chromium's children.
ENTRYPOINT ["tini", "--", "node", "/app/packages/cli/dist/bin.js"]
CMD ["serve", "turngym/math-thought-v1", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
