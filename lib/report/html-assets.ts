// The style sheet and the one small script report.html carries inline: the file must open offline,
// from an archived Jenkins artifact or an e-mail attachment, so nothing is fetched.

export const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

export const STYLE = `
:root { --pass: #1a7f37; --fail: #cf222e; --error: #8250df; --skip: #9a6700; --line: #d0d7de; --muted: #57606a; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1180px; padding: 16px 24px 48px; color: #1f2328; }
h1 { font-size: 22px; margin: 8px 0; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; } table.verdicts td:nth-child(-n+3) { white-space: nowrap; } td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; color: #fff; font-size: 12px; font-weight: 600; letter-spacing: .03em; }
.badge.passed { background: var(--pass); } .badge.failed { background: var(--fail); } .badge.error { background: var(--error); } .badge.skipped { background: var(--skip); }
.part-why { font-size: 12px; margin-top: 2px; }
ul.checks { list-style: none; padding-left: 0; margin: 4px 0; font-family: ui-monospace, monospace; font-size: 13px; }
ul.checks li.ok::before { content: "✓ "; color: var(--pass); } ul.checks li.missed::before { content: "✗ "; color: var(--fail); } ul.checks li.unjudged::before { content: "? "; color: var(--error); }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; font-size: 12px; max-height: 360px; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
svg.plot { border: 1px solid var(--line); border-radius: 6px; background: #fff; max-width: 100%; height: auto; }
svg.plot text { font: 11px system-ui, sans-serif; fill: #1f2328; } svg.plot .plot-title { font-size: 13px; font-weight: 600; }
svg.plot .grid { stroke: #eaeef2; } svg.plot .axis, svg.plot .tick { stroke: #8c959f; }
svg.plot .series path { stroke-width: 1.8; } svg.plot .series circle { stroke: none; }
svg.plot .threshold line { stroke: var(--fail); stroke-width: 1.5; stroke-dasharray: 6 4; } svg.plot .threshold text { fill: var(--fail); }
svg.plot .legend-item { cursor: pointer; } svg.plot .legend-item.off { opacity: .35; } svg.plot .hidden { display: none; }
.muted { color: var(--muted); }
.mono, .hostlist { font-family: ui-monospace, monospace; } .hostlist { word-break: break-all; font-size: 13px; } .small { font-size: 12px; }
.badge.unmeasured { background: #fff; color: var(--muted); border: 1px dashed var(--muted); } .badge.outlier { background: #bf8700; }
table.exceptions td:first-child { white-space: nowrap; }
svg.plot .node-label { font-size: 10px; fill: var(--fail); } svg.plot .muted-text { fill: var(--muted); } svg.heat text { font-size: 11px; }
figure.dist { margin: 0; max-width: 560px; } figure.dist .small { margin: 2px 4px 8px; }
p.search input { font: inherit; padding: 3px 8px; width: 16em; border: 1px solid var(--line); border-radius: 6px; }
#node-results { overflow-x: auto; } #node-results table { width: auto; } #node-results td { white-space: nowrap; }
`;

/**
 * After layout, counts the series that really have geometry and records it on each plot
 * (data-rendered-series), so a headless browser can assert the plots drew; legend entries toggle
 * their series.
 */
export const SCRIPT = `
(function () {
  var plots = document.querySelectorAll("svg.plot");
  plots.forEach(function (svg) {
    var n = 0;
    svg.querySelectorAll("g.series").forEach(function (g) {
      var b = g.getBBox();
      if (b.width > 0 || b.height > 0) n++;
    });
    svg.setAttribute("data-rendered-series", String(n));
  });
  document.body.setAttribute("data-plots-rendered", String(plots.length));
  // a fleet's search by node name: its verdict and headline in every test, from the data embedded in the page
  var search = document.getElementById("node-search");
  var data = document.getElementById("fleet-data");
  if (search && data) {
    var fleet = JSON.parse(data.textContent);
    var words = { p: "passed", f: "failed", e: "error", s: "skipped", u: "unmeasured" };
    var esc = function (s) { return String(s).replace(/[&<>"]/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); };
    search.addEventListener("input", function () {
      var q = search.value.trim().toLowerCase();
      var out = document.getElementById("node-results");
      var found = [];
      if (q) for (var i = 0; i < fleet.nodes.length && found.length < 20; i++) if (fleet.nodes[i].toLowerCase().indexOf(q) >= 0) found.push(i);
      document.getElementById("node-found").textContent = q ? (found.length === 20 ? "first 20 matches" : found.length + " match" + (found.length === 1 ? "" : "es")) : "";
      if (!found.length) { out.innerHTML = ""; return; }
      // a test per row and a column per node found: ten tests stay readable beside one to a few nodes
      var head = "<tr><th>test</th>" + found.map(function (i) { return '<th class="mono" data-node="' + esc(fleet.nodes[i]) + '">' + esc(fleet.nodes[i]) + "</th>"; }).join("") + "</tr>";
      var rows = fleet.tests.map(function (t) {
        return '<tr><td><a href="#' + t.anchor + '">' + esc(t.name) + "</a></td>" + found.map(function (i) {
          var c = words[t.cells[i]], v = t.values[i];
          return '<td><span class="badge ' + c + '">' + c.toUpperCase() + "</span>" + (v === null ? "" : " " + esc(v) + " " + esc(t.unit)) + "</td>";
        }).join("") + "</tr>";
      });
      out.innerHTML = '<table class="verdicts">' + head + rows.join("") + "</table>";
    });
  }
  document.querySelectorAll("g.legend-item").forEach(function (item) {
    item.addEventListener("click", function () {
      var name = item.getAttribute("data-series");
      item.closest("svg").querySelectorAll("g.series").forEach(function (g) {
        if (g.getAttribute("data-series") === name) g.classList.toggle("hidden");
      });
      item.classList.toggle("off");
    });
  });
})();
`;
