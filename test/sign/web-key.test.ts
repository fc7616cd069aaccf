// --key through WebCrypto (lib/sign/web-key.ts) answers exactly as node:crypto (dsse.ts keyVerifier)
// does, and leaves every key it does not read plainly to node:crypto, which names what is wrong.
import { describe, expect, test } from "bun:test";
import { createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { keyVerifier } from "../../lib/sign/dsse.ts";
import { derToRaw, webPublicKey } from "../../lib/sign/web-key.ts";
import { dsseFixture } from "./keys-fixture.ts";

const pem = (k: KeyObject) => k.export({ type: "spki", format: "pem" }) as string;

const keys = {
  ed25519: generateKeyPairSync("ed25519"),
  p256: generateKeyPairSync("ec", { namedCurve: "P-256" }),
};
const data = Buffer.from("DSSEv1 28 application/vnd.in-toto+json 5 hello");

/** every signature to try: the real one (both ECDSA encodings), each byte changed, cut, lengthened, re-encoded loosely */
function signatures(alg: keyof typeof keys): Buffer[] {
  const k = keys[alg].privateKey;
  const good = alg === "ed25519" ? sign(null, data, k) : sign("sha256", data, { key: k, dsaEncoding: "der" });
  const variants = [good, good.subarray(0, -1), Buffer.concat([good, Buffer.from([0])]), Buffer.alloc(0), Buffer.alloc(64)];
  for (let i = 0; i < good.length; i++) for (const x of [0x01, 0x80]) variants.push(Buffer.from(good.map((b, j) => (j === i ? b ^ x : b))));
  if (alg === "p256") {
    const raw = Buffer.from(derToRaw(good)!);
    const rLen = good[3]!;
    variants.push(
      raw,
      // a zero byte added before r, its length and the sequence's grown to match: valid BER, not DER
      Buffer.concat([Buffer.from([0x30, good[1]! + 1, 0x02, rLen + 1, 0x00]), good.subarray(4)]),
      // the sequence length in long form
      Buffer.concat([Buffer.from([0x30, 0x81, good[1]!]), good.subarray(2)]),
      // r and s swapped
      Buffer.concat([good.subarray(0, 2), good.subarray(4 + rLen), good.subarray(2, 4 + rLen)]),
    );
  }
  return variants;
}

describe("a key as gpucheck keygen writes it, through WebCrypto", () => {
  for (const alg of ["ed25519", "p256"] as const) {
    test(`${alg}: the same algorithm, fingerprint and verdict on every signature as node:crypto`, async () => {
      const web = await webPublicKey(pem(keys[alg].publicKey));
      const node = keyVerifier(keys[alg].publicKey);
      expect(web?.algorithm).toBe(alg);
      expect(web?.fingerprint).toBe(node.fingerprint);
      const sigs = signatures(alg);
      const verdicts = async (k: typeof node) => Promise.all(sigs.flatMap((s) => [k.verify(data, s), k.verify(data.subarray(1), s)]));
      const mine = await verdicts(web!);
      expect(mine).toEqual(await verdicts(node));
      expect(mine.filter(Boolean).length).toBe(alg === "ed25519" ? 1 : 2);
    });
  }

  test("the published vectors: the DSSE spec's P-256 signature, raw and DER, and the RFC 8032 Ed25519 key's fingerprint", async () => {
    const spec = JSON.parse(dsseFixture("official-dsse-spec-vector.json").toString());
    const p256 = (await webPublicKey(dsseFixture("spec-vector-p256-public.pem").toString()))!;
    const pae = Buffer.from(spec.pae_hex, "hex");
    expect(await p256.verify(pae, Buffer.from(spec.envelope_from_protocol_md.signatures[0].sig, "base64"))).toBe(true);
    expect(await p256.verify(pae, Buffer.from(dsseFixture("spec-vector-sig-der.b64").toString().trim(), "base64"))).toBe(true);
    expect(p256.fingerprint).toBe("SHA256:f4AuBLdH4Lj/dIuwAUXXebzoI9B/cJ4iSQ3/qByIl4M");
    expect((await webPublicKey(dsseFixture("derived-ed25519-public.pem").toString()))?.fingerprint).toBe("SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8");
  });
});

describe("any other key is left to node:crypto", () => {
  const ed = pem(keys.ed25519.publicKey);
  const p256 = pem(keys.p256.publicKey);
  const der = (text: string) => Buffer.from(text.replace(/-----[A-Z ]+-----|\s/g, ""), "base64");
  const asPem = (d: Buffer) => `-----BEGIN PUBLIC KEY-----\n${d.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END PUBLIC KEY-----\n`;
  const offCurve = der(p256);
  offCurve[offCurve.length - 1]! ^= 0x01;
  const cases: Array<[string, string]> = [
    ["RSA", pem(generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey)],
    ["ECDSA P-384", pem(generateKeyPairSync("ec", { namedCurve: "P-384" }).publicKey)],
    ["P-256, the point compressed", asPem(compressed(der(p256)))],
    ["P-256, the point off the curve", asPem(offCurve)],
    ["a comment line before the PEM block", `key of the lab cluster\n${ed}`],
    ["two PEM blocks", `${ed}${p256}`],
    ["a damaged PEM body", ed.replace(/\n(.)/, "\n!")],
    ["the DER one byte short", asPem(der(ed).subarray(0, -1))],
  ];
  for (const [name, text] of cases) {
    test(name, async () => {
      expect(await webPublicKey(text)).toBeUndefined();
    });
  }

  test("a point off the curve is refused by node:crypto too, so the message is keys.ts's", () => {
    expect(() => createPublicKey(asPem(offCurve))).toThrow();
  });
});

/** the SPKI of a P-256 key with its point in compressed form (02/03‖x) */
function compressed(spki: Buffer): Buffer {
  const point = spki.subarray(spki.length - 65);
  const x = point.subarray(1, 33);
  const prefix = Buffer.from("3039301306072a8648ce3d020106082a8648ce3d030107032200", "hex");
  return Buffer.concat([prefix, Buffer.from([point[64]! & 1 ? 0x03 : 0x02]), x]);
}
