# One image for every Settle app; docker-compose.yml picks the app with `command`.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
# 4 MiB young-generation semi-spaces: under 250 MiB resident per app at 1,000 checkouts/s (docs/benchmarks.md, e2e).
ENV NODE_OPTIONS=--max-semi-space-size=4
COPY --from=build /app/node_modules ./node_modules
# The apps with their libs (and the SQL migrations the build copies beside them), and the
# operator command lines of scripts/ops; the test harness, the demo and the benchmarks stay out.
COPY --from=build /app/dist/apps ./dist/apps
COPY --from=build /app/dist/libs ./dist/libs
COPY --from=build /app/dist/scripts/ops ./dist/scripts/ops
COPY --from=build /app/package.json ./package.json
USER node
