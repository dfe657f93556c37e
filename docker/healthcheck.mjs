// The image's HEALTHCHECK: GET /health of the program in this container (idx-node and idx-query
// serve it); IDX_HEALTH_PORT and IDX_HEALTH_PATH (e.g. /ready) choose another port or endpoint.
const port = process.env.IDX_HEALTH_PORT || '3000';
const path = process.env.IDX_HEALTH_PATH || '/health';
try {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
