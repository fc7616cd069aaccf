// nccl-tests writes its `-J` file with printf, not a JSON library, so the file is not always JSON:
// infinities come out bare ("%lf" → inf, -inf; only NaN is quoted as "nan"), and a run that crashed
// leaves the document unterminated (finalised on early errors only since 2026-06). These two
// functions make such a file parseable; a file that already parses never reaches them.

/** Replaces bare inf/-inf/nan values (outside strings) with null. */
export function nullBareNonFinite(text: string): string {
  let out = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
      continue;
    }
    if (ch === 34) inString = true;
    else if (ch === 45 /* - */ || ch === 105 /* i */ || ch === 110 /* n */) {
      const m = /^-?(?:inf(?:inity)?|nan)/i.exec(text.slice(i, i + 9));
      if (m && !text.startsWith("null", i)) {
        out += `${text.slice(from, i)}null`;
        i += m[0].length - 1;
        from = i + 1;
      }
    }
  }
  return out + text.slice(from);
}

/**
 * Cuts an unterminated document after its last complete object or array and closes what is
 * still open: a results list cut in the middle of a row keeps the rows before it. Returns null
 * when nothing was complete.
 */
export function closeTruncated(text: string): string | null {
  const open: string[] = [];
  let inString = false;
  let cut = -1;
  let closers = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") open.push("}");
    else if (ch === "[") open.push("]");
    else if (ch === "}" || ch === "]") {
      open.pop();
      cut = i + 1;
      closers = [...open].reverse().join("");
    }
  }
  if (open.length === 0 && !inString) return text;
  return cut < 0 ? null : text.slice(0, cut) + closers;
}
