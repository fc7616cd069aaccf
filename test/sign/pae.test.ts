import { describe, expect, test } from "bun:test";
import { pae } from "../../lib/sign/pae.ts";
import { dsseFixture } from "./keys-fixture.ts";

describe("PAE", () => {
  test("reproduces the DSSE spec vector byte for byte", () => {
    const spec = JSON.parse(dsseFixture("official-dsse-spec-vector.json").toString());
    const bytes = pae(spec.payloadType, Buffer.from(spec.payload_utf8));
    expect(bytes.toString("hex")).toBe(spec.pae_hex);
    expect(bytes.toString("hex")).toBe("44535345763120323920687474703a2f2f6578616d706c652e636f6d2f48656c6c6f576f726c642031312068656c6c6f20776f726c64");
    expect(bytes.toString("ascii")).toBe("DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  });

  test("reproduces the derived in-toto statement's PAE file", () => {
    const payload = dsseFixture("derived-ed25519-statement.payload.json");
    const bytes = pae("application/vnd.in-toto+json", payload);
    expect(bytes.equals(dsseFixture("derived-ed25519-statement.pae.bin"))).toBe(true);
    expect(bytes.subarray(0, 43).toString()).toBe("DSSEv1 28 application/vnd.in-toto+json 267 ");
  });

  test("counts UTF-8 bytes, not characters", () => {
    expect(pae("t/é", Buffer.from("µs ≥ 1", "utf8")).toString("utf8")).toBe("DSSEv1 4 t/é 9 µs ≥ 1");
  });

  test("an empty payload still has both lengths", () => {
    expect(pae("", Buffer.alloc(0)).toString()).toBe("DSSEv1 0  0 ");
  });
});
