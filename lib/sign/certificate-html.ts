// certificate.html: the one page that goes into the handover ticket. Self-contained (no fonts, scripts
// or images to fetch), and laid out for A4 so that "print to PDF" gives one page, two for big clusters.
import { escapeAttr, escapeText } from "../core/xml.ts";
import type { CertificateView } from "./certificate-view.ts";

const e = escapeText;
/** A fleet's certificate lists at most this many failed parts and rejected nodes, so it stays a few pages. */
const MAX_ROWS = 40;

const CSS = `
@page { size: A4; margin: 12mm 13mm; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font: 9pt/1.35 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #111; margin: 0 auto; max-width: 184mm; }
header { display: flex; justify-content: space-between; align-items: center; border-bottom: 2px solid #111; padding-bottom: 2mm; }
h1 { font-size: 15pt; margin: 0; }
h1 small { display: block; font-size: 9pt; font-weight: normal; color: #444; }
h2 { font-size: 10.5pt; margin: 3mm 0 1mm; border-bottom: 1px solid #bbb; }
.verdict { font-size: 17pt; font-weight: bold; padding: 1.5mm 5mm; border-radius: 2mm; color: #fff; }
.PASSED { background: #1a7f37; } .verdict.SIMULATED { background: #666; } .FAILED { background: #c62828; } .ERROR { background: #b35900; } .SKIPPED { background: #666; } .INCOMPLETE { background: #b35900; }
.caveat { background: #fff3cd; border: 1px solid #b35900; padding: 1.5mm 3mm; margin-top: 2mm; font-weight: bold; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.6mm 1.5mm; border-bottom: 1px solid #e2e2e2; }
th { font-size: 8pt; color: #444; font-weight: 600; }
tr { break-inside: avoid; }
table.facts th { width: 27mm; }
.mono, pre, code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.small { font-size: 7.5pt; }
.ok { color: #1a7f37; font-weight: bold; } .bad { color: #c62828; font-weight: bold; }
.transport td { color: #444; padding-top: 0; font-size: 7.5pt; }
.note td { border-bottom: 1px solid #e2e2e2; color: #7a1f1f; padding-top: 0; font-size: 8pt; }
pre { font-size: 7.5pt; background: #f5f5f5; padding: 1mm 2mm; margin: 0.5mm 0 1.5mm; white-space: pre-wrap; word-break: break-all; }
p { margin: 1mm 0; }
footer { margin-top: 2mm; font-size: 7.5pt; color: #555; }
.nowrap { white-space: nowrap; }
.serials { font-size: 7pt; word-spacing: -0.5mm; }
.hostlist { word-break: break-all; }
section.keep { break-inside: avoid; }
h2 { break-after: avoid; }
`;

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
}

export function renderCertificateHtml(v: CertificateView): string {
  const fact = (k: string, val: string) => `<tr><th>${e(k)}</th><td>${val}</td></tr>`;
  // alike nodes (the usual case) get one line each, so 32 nodes still fit on two pages
  const nodes = v.nodeGroups
    ? `<p>${e(plural(v.nodes.length, "node"))}${v.nodeGroups.length === 1 ? `, every one: ${e(v.nodesAlike ?? `${v.nodeGroups[0].gpus} · ${v.nodeGroups[0].versions}`)}` : ` in ${v.nodeGroups.length} configurations`}. The serial numbers of all ${e(v.nodes.reduce((s, n) => s + (n.serials ? n.serials.split(" ").length : 0), 0).toLocaleString("en"))} GPUs are in the signed file (<span class="mono">certificate.intoto.json</span>, predicate.nodes), covered by the signature.</p>\n<table>\n<thead><tr><th>Nodes</th><th>Count</th><th>GPUs</th><th>Versions</th></tr></thead>\n${v.nodeGroups
        .map((g) => `<tr><td class="mono hostlist">${e(g.hosts)}</td><td>${g.count}</td><td class="nowrap">${e(g.gpus)}</td><td class="small">${e(g.versions)}</td></tr>`)
        .join("\n")}\n</table>`
    : v.nodesAlike
      ? `<p>Every node: ${e(v.nodesAlike)}</p>\n<table>\n<thead><tr><th>Node</th><th>GPU serial numbers</th></tr></thead>\n${v.nodes
          .map((n) => `<tr><td class="mono nowrap">${e(n.hostname)}</td><td class="mono serials">${e(n.serials) || "—"}</td></tr>`)
          .join("\n")}\n</table>`
      : `<table>\n<thead><tr><th>Node</th><th>GPUs</th><th>GPU serial numbers</th><th>Versions</th></tr></thead>\n${v.nodes
          .map(
            (n) =>
              `<tr><td class="mono nowrap">${e(n.hostname)}</td><td class="nowrap">${e(n.gpus)}</td><td class="mono small">${e(n.serials) || "—"}</td><td class="small">${e(n.versions)}</td></tr>`,
          )
          .join("\n")}\n</table>`;
  const tests = v.tests
    .map((t) => {
      const row = `<tr><td>${e(t.name)}</td><td class="${t.outcome === "PASSED" ? "ok" : "bad"}">${e(t.outcome)}</td><td>${e(t.measured)}</td><td>${e(t.threshold)}</td></tr>`;
      const transport = t.transport ? `\n<tr class="transport"><td></td><td colspan="3">transport: ${e(t.transport)}</td></tr>` : "";
      return (t.note ? `${row}\n<tr class="note"><td></td><td colspan="3">${e(t.note)}</td></tr>` : row) + transport;
    })
    .join("\n");
  // a fleet's node names are hostlist ranges (gpu[0001-0998]): monospaced, broken anywhere
  const list = (x: string) => (v.nodeGroups ? `<span class="mono hostlist">${e(x)}</span>` : e(x));
  // and its failed parts and rejected nodes are the first MAX_ROWS; the rest are in the signed file
  const rows = <T>(xs: T[]) => (v.nodeGroups ? xs.slice(0, MAX_ROWS) : xs);
  const more = (n: number, what: string) =>
    v.nodeGroups && n > MAX_ROWS ? `<p class="small">… and ${n - MAX_ROWS} more ${what}: every one is in the signed file, certificate.intoto.json.</p>\n` : "";
  const parts = v.parts.length
    ? `<section class="keep">\n<h2>Parts that failed</h2>\n<table>\n<thead><tr><th>Test</th><th>Part</th><th>Verdict</th><th>Why</th></tr></thead>\n${rows(v.parts)
        .map((x) => `<tr><td>${e(x.test)}</td><td class="mono small">${e(x.part)}</td><td class="bad">${e(x.outcome)}</td><td class="small">${e(x.why)}</td></tr>`)
        .join("\n")}\n</table>\n${more(v.parts.length, "failed parts")}</section>\n`
    : "";
  const remediations = v.remediations.length
    ? `<section class="keep">\n<h2>Remediation</h2>\n<table>\n<thead><tr><th>Test</th><th>Hosts</th><th>Class</th><th>Action</th></tr></thead>\n${rows(v.remediations)
        .map((x) => `<tr><td>${e(x.test)}</td><td class="mono small">${e(x.hosts)}</td><td>${e(x.class)}</td><td class="small">${e(x.action)}</td></tr>`)
        .join("\n")}\n</table>\n${more(v.remediations.length, "remediations")}</section>\n`
    : "";
  const nv = v.nodeVerdicts;
  const nodeVerdicts = nv
    ? `<section${nv.rejected.length > 20 ? "" : ' class="keep"'}>\n<h2>${v.nodeGroups ? "Node verdicts" : "Nodes"}</h2>\n<table class="facts">\n${fact("Accepted", list(nv.accepted))}\n${nv.unjudged ? `${fact("Not judged", `${list(nv.unjudged)}${v.nodeGroups ? " (not measured by every per-node test, so not accepted)" : ""}`)}\n` : ""}</table>\n${
        nv.rejected.length
          ? `<table>\n<thead><tr><th>Rejected node</th><th>Why</th></tr></thead>\n${rows(nv.rejected)
              .map((r) => `<tr><td class="bad mono">${e(r.node)}</td><td class="small">${e(r.why)}</td></tr>`)
              .join("\n")}\n</table>\n${more(nv.rejected.length, "rejected nodes")}`
          : "<p>Rejected: none</p>\n"
      }</section>\n`
    : "";
  const files = v.subjects.map((s) => `<span class="mono">${e(s.name)}</span> <span class="mono small">${e(s.sha256)}</span>`).join("<br>");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${e(`Acceptance certificate: ${v.cluster}, ${v.suite.name}: ${v.verdict}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>GPU cluster acceptance certificate<small>${e(v.cluster)} · ${e(v.hardware)}</small></h1>
<div class="verdict ${escapeAttr(v.verdict.split(" ")[0]!)}${v.verdict.includes("SIMULATED") ? " SIMULATED" : ""}">${e(v.verdict)}</div>
</header>
${v.caveat ? `<div class="caveat">${e(v.caveat)}</div>` : ""}
<table class="facts">
${fact("Cluster", e(v.cluster))}
${fact("Suite", `${e(v.suite.name)}${v.suite.description ? ` — ${e(v.suite.description)}` : ""}<br><span class="mono small">sha256 ${e(v.suite.sha256)}</span>`)}
${
  v.judged
    ? fact(
        "Judged with",
        `${e(v.judged.suite)}, ${e(v.judged.at)}: its thresholds gave these verdicts; the suite above is the one the tests ran with${v.judged.from ? `<br><span class="mono small">measurements of ${e(v.judged.from)}</span>` : ""}`,
      )
    : ""
}
${fact("Platform", e(v.platform))}
${fact("Run", e(v.run))}
${fact("Result", `<b>${e(v.verdict)}</b> · ${e(v.counts)}`)}
${fact("gpucheck", e(v.gpucheck))}
</table>
<h2>${v.nodeGroups ? "Hardware" : "Nodes"}</h2>
${nodes}
<section class="keep">
<h2>Tests</h2>
<table>
<thead><tr><th>Test</th><th>Verdict</th><th>Measured</th><th>Threshold</th></tr></thead>
${tests}
</table>
</section>
${parts}${remediations}${nodeVerdicts}<section class="keep">
<h2>Signature</h2>
<table class="facts">
${fact("Signing key", `<span class="mono">${e(v.signer.fingerprint)}</span> (${e(v.signer.algorithm)})`)}
${fact("Signed at", e(v.certifiedAt))}
${fact("Statement", `in-toto Statement v1 in a DSSE envelope, <span class="mono">certificate.intoto.json</span>; predicate <span class="mono small">${e(v.predicateType)}</span>`)}
${fact("Files covered", files)}
</table>
</section>
<section class="keep">
<h2>How to verify</h2>
<p>In the results directory, with the signer's public key saved as <span class="mono">gpucheck.pub</span> (its fingerprint must be <span class="mono">${e(v.signer.fingerprint)}</span>):</p>
<pre>${e(v.verify.gpucheck)}</pre>
<p>Without gpucheck (bash, jq, openssl, sha256sum): rebuild the signed bytes, check the signature, then the files:</p>
<pre>${e(v.verify.openssl)}</pre>
<p>With cosign 2.x (checks the signature and that the file is a subject; repeat for each file):</p>
<pre>${e(v.verify.cosign)}</pre>
</section>
<footer>This page is a rendering of certificate.intoto.json for people; only the signed file is authoritative.</footer>
</body>
</html>
`;
}
