# One image for every Settle app; docker-compose.yml picks the app with `command`.
# Its size, measured from the layer contents without Docker: `npm run image:size` (docs/operations.md, "Image").

# The production dependencies, from the lock file, less two things nothing loads here:
# - TypeScript, an optional peer of @nestjs/swagger (for its compile-time plugin, which Settle
#   does not use), which --omit=dev keeps (24 MB);
# - the musl builds of the KurrentDB client's native bridge, which npm installs because they
#   declare no libc: the image is Debian (glibc), where @neon-rs/load picks the -gnu build (10 MB).
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver node_modules/@kurrent/bridge-linux-*-musl

# Every app, its libs, the operator command lines and the console's web app (built by vite: only
# its output is kept), from the lock file's full dependency set.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# The test support package (@settle/testing) is built with the rest; it never ships.
RUN rm -rf dist/libs/testing

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
# 4 MiB young-generation semi-spaces and a 192 MiB old generation: every app under 230 MiB resident
# (docs/operations.md, "Memory"; scripts/local/lib.sh, SETTLE_APP_NODE_OPTIONS).
ENV NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=192"
COPY --from=deps /app/node_modules ./node_modules
# The apps with their libs (and the SQL migrations the build copies beside them), and the
# operator command lines of scripts/ops; the test support (removed above), the demo and the
# benchmarks stay out.
COPY --from=build /app/dist/apps ./dist/apps
COPY --from=build /app/dist/libs ./dist/libs
COPY --from=build /app/dist/scripts/ops ./dist/scripts/ops
COPY --from=build /app/package.json ./package.json
USER node
