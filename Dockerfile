# One image for both roles: the API (`node dist/bundle/api.js`), the jobs worker (`dist/workers/jobs.js`) and the render worker (`dist/workers/render.js`).
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# scripts/ holds the prepare hook npm ci runs (it builds nothing until the sources are copied in below).
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 QR_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The portal's templates and assets, the scan pages' templates and the Redis adapters' Lua scripts are read from the
# source tree at run time; the guides the portal serves at /portal/docs/ from docs/.
COPY --from=build /app/src ./src
COPY docs ./docs
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["node", "dist/bundle/api.js"]
