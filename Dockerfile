# civicstream: both APIs on the bundled fixtures.
# Debian 12 (bookworm): the uWebSockets.js binary needs its glibc (2.36).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY bench ./bench
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 FINANCE_PORT=8080 ARRESTS_PORT=8081
# Provenance names the mirror by the address a reader can use, never a path
# inside this container: the bundled mirrors are these folders of the
# project's repository. Serving another mirror, set both to its public URL.
ENV MIRROR_URL=fixtures/finance/v6/ ARRESTS_MIRROR_URL=fixtures/arrests/
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY data ./data
COPY fixtures ./fixtures
COPY explore ./explore
USER node
EXPOSE 8080 8081
# Healthy only when both services are ready (/readyz: loaded, a live worker, not shutting down).
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD node -e "Promise.all([process.env.FINANCE_PORT,process.env.ARRESTS_PORT].map(p=>fetch('http://127.0.0.1:'+p+'/readyz'))).then(rs=>process.exit(rs.every(r=>r.ok)?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/cli/main.js", "serve"]
