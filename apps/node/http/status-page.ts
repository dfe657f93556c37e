/**
 * `idx-node --status-page`: one HTML page, served at `/` to browsers, that polls `status` (the
 * {@link StatusDocument} as JSON) every two seconds and draws it: heights, a progress bar, the
 * pace as a chart, ETA, the last problem, data sources and links. Everything is inline (styles,
 * script, the chart as SVG drawn by hand), so it works offline and fetches nothing from anywhere
 * but the node.
 */
export function statusPageHtml(project: string): string {
  const title = `${project} · idx-node status`.replace(/[<>&"]/g, '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1 id="project">${title}</h1>
  <span id="health" class="badge">…</span>
  <span id="updated" class="muted"></span>
</header>
<main>
  <section class="heights">
    <div><div class="label">indexed</div><div class="big" id="indexed">-</div><div class="muted" id="processing"></div></div>
    <div><div class="label">final head</div><div class="big" id="final">-</div><div class="muted" id="target"></div></div>
    <div><div class="label">best head</div><div class="big" id="best">-</div><div class="muted" id="behind"></div></div>
  </section>
  <section>
    <div class="bar"><div id="bar-fill"></div></div>
    <div class="row"><span id="percent">-</span><span id="eta">-</span></div>
  </section>
  <section>
    <h2>Pace <span class="muted" id="rates"></span></h2>
    <svg id="chart" viewBox="0 0 600 180" preserveAspectRatio="none" role="img" aria-label="blocks and events per second over time"></svg>
    <div class="legend"><span class="key blocks"></span> blocks/s <span class="key events"></span> events/s (each on its own scale) <span id="chart-note"></span></div>
  </section>
  <section>
    <h2>Last problem</h2>
    <pre id="problem" class="muted">none</pre>
  </section>
  <section>
    <h2>Data sources</h2>
    <table><thead><tr><th>kind</th><th>address</th><th>blocks</th><th>handlers</th></tr></thead><tbody id="sources"></tbody></table>
    <div class="muted">endpoints: <span id="endpoints">-</span></div>
  </section>
  <section class="links">
    <a href="meta">/meta</a> <a href="metrics">/metrics</a> <a href="health">/health</a>
    <span id="playground"></span>
  </section>
</main>
<noscript>This page needs JavaScript to refresh; <a href="status">status</a> has the same figures as JSON.</noscript>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #667; --bg: #fff; --line: #d0d7de; --accent: #0969da; --events: #bf3989; --ok: #1a7f37; --bad: #cf222e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8b949e; --bg: #0d1117; --line: #30363d; --accent: #4493f8; --events: #db61a2; --ok: #3fb950; --bad: #f85149; } }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 12px; align-items: baseline; padding: 12px 20px; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
h1 { font-size: 18px; margin: 0; } h2 { font-size: 15px; margin: 0 0 8px; }
main { max-width: 960px; padding: 8px 20px 24px; }
section { margin: 18px 0; }
.heights { display: grid; grid-template-columns: repeat(3, 1fr); gap: 12px; }
.label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.big { font-size: 28px; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.badge { padding: 1px 8px; border-radius: 10px; border: 1px solid var(--line); font-size: 12px; }
.badge.ok { color: var(--ok); border-color: var(--ok); } .badge.bad { color: var(--bad); border-color: var(--bad); }
.bar { height: 14px; border: 1px solid var(--line); border-radius: 7px; overflow: hidden; }
#bar-fill { height: 100%; width: 0; background: var(--accent); transition: width .4s; }
.row { display: flex; justify-content: space-between; margin-top: 4px; font-variant-numeric: tabular-nums; }
svg { width: 100%; height: 180px; border: 1px solid var(--line); border-radius: 6px; }
.legend { color: var(--muted); font-size: 12px; margin-top: 4px; }
.key { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin-left: 8px; }
.key.blocks { background: var(--accent); } .key.events { background: var(--events); }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 3px 8px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
td { font-family: ui-monospace, monospace; font-size: 12px; }
.links a { margin-right: 14px; color: var(--accent); }
`;

/** Runs in the browser, with no library; text is set with textContent only (nothing the node reports is HTML). */
const SCRIPT = `(function () {
  var $ = function (id) { return document.getElementById(id); };
  var set = function (id, text) { $(id).textContent = text; };
  var num = function (n) { return n === undefined || n === null ? '-' : String(n); };
  var duration = function (s) {
    if (s < 60) return Math.round(s) + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm' + String(Math.round(s % 60)).padStart(2, '0') + 's';
    return Math.floor(s / 3600) + 'h' + String(Math.floor((s % 3600) / 60)).padStart(2, '0') + 'm';
  };
  var SVG = 'http://www.w3.org/2000/svg';
  function el(name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function line(points, key, color, w, h, top) {
    var max = 0;
    points.forEach(function (p) { if (p[key] > max) max = p[key]; });
    var scale = max > 0 ? max : 1;
    var first = points[0].at, span = Math.max(1, points[points.length - 1].at - first);
    var d = points.map(function (p) {
      return ((p.at - first) / span * w).toFixed(1) + ',' + (top + h - (p[key] / scale) * h).toFixed(1);
    }).join(' ');
    return { path: el('polyline', { points: d, fill: 'none', stroke: color, 'stroke-width': '2', 'vector-effect': 'non-scaling-stroke' }), max: max };
  }
  function chart(history) {
    var svg = $('chart');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var styles = getComputedStyle(document.documentElement);
    if (history.length < 2) {
      set('chart-note', '· the pace appears after a few seconds');
      return;
    }
    var blocks = line(history, 'blocksPerSecond', styles.getPropertyValue('--accent'), 600, 160, 10);
    var events = line(history, 'eventsPerSecond', styles.getPropertyValue('--events'), 600, 160, 10);
    svg.appendChild(events.path);
    svg.appendChild(blocks.path);
    var seconds = (history[history.length - 1].at - history[0].at) / 1000;
    set('chart-note', '· the last ' + duration(seconds) + ', at most ' + Math.round(blocks.max * 10) / 10 + ' blocks/s and ' + Math.round(events.max * 10) / 10 + ' events/s');
  }
  function render(s) {
    set('project', s.project + ' · idx-node status');
    document.title = s.project + ' · idx-node status';
    var health = $('health');
    health.textContent = s.health.healthy ? (s.caughtUp ? 'caught up' : 'indexing') : 'unhealthy: ' + s.health.error;
    health.className = 'badge ' + (s.health.healthy ? 'ok' : 'bad');
    set('indexed', num(s.indexedHeight));
    set('processing', s.processingHeight !== undefined && s.processingHeight !== s.indexedHeight ? 'processing ' + s.processingHeight : '');
    set('final', num(s.finalizedHeight));
    set('target', s.targetHeight !== undefined && s.targetHeight !== s.finalizedHeight ? 'target ' + s.targetHeight : '');
    set('best', num(s.bestHeight));
    var waiting = s.bestHeight !== undefined && s.finalizedHeight !== undefined ? s.bestHeight - s.finalizedHeight : 0;
    set('behind', waiting > 0 ? waiting + ' block' + (waiting === 1 ? '' : 's') + ' not final yet' : '');
    $('bar-fill').style.width = (s.percent || 0) + '%';
    set('percent', s.percent === undefined ? 'nothing final to index yet' : s.percent.toFixed(1) + '% of blocks ' + num(s.startHeight) + '..' + num(s.targetHeight));
    set('eta', s.caughtUp ? 'caught up' : s.etaSeconds === undefined ? 'ETA unknown' : 'ETA ' + duration(s.etaSeconds));
    set('rates', s.blocksPerSecond === undefined ? '' : s.blocksPerSecond + ' blocks/s, ' + s.eventsPerSecond + ' events/s');
    chart(s.history);
    var p = s.lastProblem;
    set('problem', p ? new Date(p.at).toLocaleString() + '  ' + p.level.toUpperCase() + ' <' + p.category + '>  ' + p.message : 'none');
    var body = $('sources');
    while (body.firstChild) body.removeChild(body.firstChild);
    s.dataSources.forEach(function (d) {
      var tr = document.createElement('tr');
      [d.kind, d.address || '-', d.startBlock + (d.endBlock !== undefined ? '..' + d.endBlock : '..'), d.handlers.join(', ')].forEach(function (text) {
        var td = document.createElement('td');
        td.textContent = text;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    set('endpoints', s.endpoints.join(', ') || '-');
    var pg = $('playground');
    while (pg.firstChild) pg.removeChild(pg.firstChild);
    if (s.links.playground) {
      var a = document.createElement('a');
      a.href = s.links.playground;
      a.textContent = 'GraphQL playground';
      pg.appendChild(a);
    } else {
      pg.textContent = 'GraphQL playground: run idx-query -f <project> --playground';
      pg.className = 'muted';
    }
    set('updated', 'updated ' + new Date().toLocaleTimeString());
  }
  function poll() {
    fetch('status', { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
      .then(render)
      .catch(function (e) {
        var health = $('health');
        health.textContent = 'the node does not answer (' + e.message + ')';
        health.className = 'badge bad';
      })
      .then(function () { setTimeout(poll, 2000); });
  }
  poll();
})();
`;
