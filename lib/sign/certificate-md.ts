// certificate.md: the same certificate for tickets and wikis that take Markdown (Jira, GitLab, GitHub).
import { type CertificateView, UNNAMED_CLUSTER } from "./certificate-view.ts";

/**
 * Table cells: a "|" ends the cell and a newline ends the row, whatever the text says, and "<tag" would
 * start raw HTML in most renderers; CommonMark's backslash escapes keep all three literal.
 */
function cell(s: string): string {
  return s
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/<(?=[A-Za-z/!?])/g, "\\<")
    .replace(/\r?\n/g, " ");
}

function table(head: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.join(" | ")} |`;
  return [line(head.map(cell)), line(head.map(() => "---")), ...rows.map((r) => line(r.map((c) => cell(c) || "—")))].join("\n");
}

/** A fence longer than any backtick run inside, so a hostile string cannot close it early. */
function fenced(code: string, lang = ""): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((m) => m.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${code}\n${fence}`;
}

/** NCCL's account per fabric test, under the table: a column would crowd the table for every other test. */
function transportLines(v: CertificateView): string[] {
  const rows = v.tests.filter((t) => t.transport);
  if (rows.length === 0) return [];
  return ["Transport, as NCCL reported it:", "", ...rows.map((t) => `- ${cell(t.name)}: ${cell(t.transport)}`), ""];
}

export function renderCertificateMd(v: CertificateView): string {
  const out = [
    `# GPU cluster acceptance certificate: ${v.verdict}${v.cluster === UNNAMED_CLUSTER ? ` (${UNNAMED_CLUSTER})` : ""}`,
    "",
    ...(v.caveat ? [`> **${v.caveat}**`, ""] : []),
    table(
      ["", ""],
      [
        ["Cluster", `${v.cluster} · ${v.hardware}`],
        ["Suite", `${v.suite.name}${v.suite.description ? ` — ${v.suite.description}` : ""} (sha256 ${v.suite.sha256})`],
        ...(v.judged
          ? [
              [
                "Judged with",
                `${v.judged.suite}, ${v.judged.at}: its thresholds gave these verdicts; the suite above is the one the tests ran with${v.judged.from ? ` (measurements of ${v.judged.from})` : ""}`,
              ],
            ]
          : []),
        ["Platform", v.platform],
        ["Run", v.run],
        ["Result", `**${v.verdict}** · ${v.counts}`],
        ["gpucheck", v.gpucheck],
      ],
    ),
    "",
    v.nodeGroups ? "## Hardware" : "## Nodes",
    "",
    ...(v.nodeGroups
      ? [
          `${v.nodes.length} nodes; the serial numbers of every GPU are in the signed file (certificate.intoto.json, predicate.nodes).`,
          "",
          table(
            ["Nodes", "Count", "GPUs", "Versions"],
            v.nodeGroups.map((g) => [g.hosts, String(g.count), g.gpus, g.versions]),
          ),
        ]
      : v.nodesAlike
        ? [
            `Every node: ${v.nodesAlike}`,
            "",
            table(
              ["Node", "GPU serial numbers"],
              v.nodes.map((n) => [n.hostname, n.serials]),
            ),
          ]
        : [
            table(
              ["Node", "GPUs", "GPU serial numbers", "Versions"],
              v.nodes.map((n) => [n.hostname, n.gpus, n.serials, n.versions]),
            ),
          ]),
    "",
    "## Tests",
    "",
    table(
      ["Test", "Verdict", "Measured", "Threshold", "Why"],
      v.tests.map((t) => [t.name, t.outcome, t.measured, t.threshold, t.note]),
    ),
    "",
    ...transportLines(v),
    ...(v.parts.length
      ? [
          "## Parts that failed",
          "",
          table(
            ["Test", "Part", "Verdict", "Why"],
            v.parts.map((x) => [x.test, x.part, x.outcome, x.why]),
          ),
          "",
        ]
      : []),
    ...(v.remediations.length
      ? [
          "## Remediation",
          "",
          table(
            ["Test", "Hosts", "Class", "Action"],
            v.remediations.map((x) => [x.test, x.hosts, x.class, x.action]),
          ),
          "",
        ]
      : []),
    ...(v.nodeVerdicts
      ? [
          v.nodeGroups ? "## Node verdicts" : "## Nodes",
          "",
          `Accepted: ${v.nodeVerdicts.accepted}`,
          ...(v.nodeVerdicts.unjudged ? ["", `Not judged: ${v.nodeVerdicts.unjudged}`] : []),
          "",
          ...(v.nodeVerdicts.rejected.length
            ? [
                table(
                  ["Rejected node", "Why"],
                  v.nodeVerdicts.rejected.map((r) => [r.node, r.why]),
                ),
                "",
              ]
            : ["Rejected: none", ""]),
        ]
      : []),
    "## Signature",
    "",
    table(
      ["", ""],
      [
        ["Signing key", `${v.signer.fingerprint} (${v.signer.algorithm})`],
        ["Signed at", v.certifiedAt],
        ["Statement", `in-toto Statement v1 in a DSSE envelope (certificate.intoto.json), predicate ${v.predicateType}`],
        ...v.subjects.map((s) => [`File ${s.name}`, `sha256 ${s.sha256}`]),
      ],
    ),
    "",
    "## How to verify",
    "",
    `In the results directory, with the signer's public key saved as gpucheck.pub (its fingerprint must be ${v.signer.fingerprint}):`,
    "",
    fenced(v.verify.gpucheck, "sh"),
    "",
    "Without gpucheck (bash, jq, openssl, sha256sum): rebuild the signed bytes, check the signature, then the files:",
    "",
    fenced(v.verify.openssl, "sh"),
    "",
    "With cosign 2.x (checks the signature and that the file is a subject; repeat for each file):",
    "",
    fenced(v.verify.cosign, "sh"),
    "",
    "This page is a rendering of certificate.intoto.json for people; only the signed file is authoritative.",
    "",
  ];
  return out.join("\n");
}
