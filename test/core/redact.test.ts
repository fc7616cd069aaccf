// Which env names are secret, and how their values are taken out of text, data and suite files.
import { describe, expect, test } from "bun:test";
import { looksSecret, redactDeep, redactEnv, redactionOf, scrubText, secretNames } from "../../lib/core/redact.ts";
import { redactSuiteText } from "../../lib/load/redact-yaml.ts";
import { parseDocument } from "../../lib/core/yaml.ts";

const suite = (env: Record<string, string>, redact?: string[]) => ({ tests: [{ env }], ...(redact && { redact }) }) as never;

describe("secret names", () => {
  test("TOKEN, SECRET, PASSWORD, PASSWD, KEY, CREDENTIAL anywhere in the name, any case", () => {
    for (const n of ["API_TOKEN", "hf_token", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "PASSWD", "SSH_KEY", "KEYRING", "GOOGLE_APPLICATION_CREDENTIALS", "wandb_api_key"])
      expect(looksSecret(n)).toBe(true);
  });
  test("word parts count: MONKEY and KEYBOARD_LAYOUT are redacted too (a hidden harmless value costs a line, a shown secret costs the secret)", () => {
    expect(looksSecret("MONKEY")).toBe(true);
    expect(looksSecret("KEYBOARD_LAYOUT")).toBe(true);
  });
  test("the NCCL and CUDA variables a suite sets hold none of the words", () => {
    for (const n of ["NCCL_IB_HCA", "NCCL_DEBUG", "NCCL_SOCKET_IFNAME", "CUDA_VISIBLE_DEVICES", "NCCL_IB_TIMEOUT", "OMP_NUM_THREADS", "PYTHONPATH", "HF_HUB_OFFLINE"])
      expect(looksSecret(n)).toBe(false);
  });
  test("a suite's redact: list adds names that do not look secret", () => {
    expect(secretNames({ API_URL: "u", HF_TOKEN: "t", NCCL_DEBUG: "INFO" }, ["API_URL"])).toEqual(["API_URL", "HF_TOKEN"]);
    const r = redactionOf(suite({ API_URL: "https://user:pw@x", NCCL_DEBUG: "INFO", HF_TOKEN: "hf_abc" }, ["API_URL"]));
    expect([...r.names].sort()).toEqual(["API_URL", "HF_TOKEN"]);
    expect(r.values).toEqual(["https://user:pw@x", "hf_abc"]);
  });
});

describe("redacting", () => {
  const r = redactionOf(suite({ API_TOKEN: "supersecret-token-123", PW: "x", DB_PASSWORD: 'it\'s "q"', NCCL_DEBUG: "INFO" }, ["PW"]));

  test("an env map: the secret values are ***, the others kept", () => {
    expect(redactEnv({ API_TOKEN: "supersecret-token-123", NCCL_DEBUG: "INFO" }, r.names)).toEqual({ API_TOKEN: "***", NCCL_DEBUG: "INFO" });
  });

  test("text: NAME=value in its quoted forms, and a long value wherever it stands; short values only beside their name", () => {
    expect(scrubText("export API_TOKEN='supersecret-token-123' NCCL_DEBUG=INFO", r)).toBe("export API_TOKEN='***' NCCL_DEBUG=INFO");
    expect(scrubText(`export DB_PASSWORD='it'\\''s "q"'; echo ok`, r)).toBe("export DB_PASSWORD='***'; echo ok");
    expect(scrubText(`-e PW=x -e RANK=1`, r)).toBe("-e PW=*** -e RANK=1");
    expect(scrubText("curl -H 'Authorization: supersecret-token-123' failed", r)).toBe("curl -H 'Authorization: ***' failed");
    expect(scrubText(`{"v":"it's \\"q\\""}`, r)).toBe(`{"v":"***"}`);
    // a Kubernetes env entry in a manifest's YAML, its value on the line under its name
    expect(scrubText("env:\n  - name: PW\n    value: x\n  - name: RANK\n    value: '0'\n", r)).toBe("env:\n  - name: PW\n    value: \"***\"\n  - name: RANK\n    value: '0'\n");
    // "x" is too short to hunt for in free text: rank 1, on x86 and the like stay readable
    expect(scrubText("rank x of 2 on x86", r)).toBe("rank x of 2 on x86");
  });

  test("data: properties named like a secret, Kubernetes { name, value }, Docker NAME=value, and text anywhere", () => {
    const data = {
      launch: { env: { API_TOKEN: "supersecret-token-123", NCCL_DEBUG: "INFO" } },
      containers: [
        {
          env: [
            { name: "PW", value: "x" },
            { name: "NCCL_DEBUG", value: "INFO" },
          ],
        },
      ],
      Env: ["PW=x", "RANK=0"],
      script: "#!/bin/bash\nexport API_TOKEN='supersecret-token-123'\n",
      n: 3,
      none: null,
    };
    expect(redactDeep(data, r)).toEqual({
      launch: { env: { API_TOKEN: "***", NCCL_DEBUG: "INFO" } },
      containers: [
        {
          env: [
            { name: "PW", value: "***" },
            { name: "NCCL_DEBUG", value: "INFO" },
          ],
        },
      ],
      Env: ["PW=***", "RANK=0"],
      script: "#!/bin/bash\nexport API_TOKEN='***'\n",
      n: 3,
      none: null,
    });
    // the run's own copy is untouched
    expect(data.launch.env.API_TOKEN).toBe("supersecret-token-123");
  });

  test("nothing secret: the same object back", () => {
    const plain = { env: { NCCL_DEBUG: "INFO" } };
    expect(redactDeep(plain, redactionOf(suite({ NCCL_DEBUG: "INFO" })))).toBe(plain);
  });
});

describe("suite text", () => {
  const text = `# the run's suite
name: s
x-common: &tok supersecret-token-123
redact: [ENDPOINT]
defaults:
  env:
    API_TOKEN: *tok
    NCCL_DEBUG: INFO
tests:
  - name: a
    kind: inventory
    env: { DB_PASSWORD: "hunter22", ENDPOINT: https://u:p@h }
  - name: b
    kind: inventory
    env:
      AWS_SECRET_ACCESS_KEY: 'wJalr/K7MDENG'   # the one from the docs
      SSH_KEY_PEM: |
        multi
        line
      URL: "https://x/?t=supersecret-token-123"
      N: 1
`;
  const r = redactionOf(
    suite(
      {
        API_TOKEN: "supersecret-token-123",
        NCCL_DEBUG: "INFO",
        DB_PASSWORD: "hunter22",
        ENDPOINT: "https://u:p@h",
        SSH_KEY_PEM: "multi\nline\n",
        AWS_SECRET_ACCESS_KEY: "wJalr/K7MDENG",
        URL: "https://x/?t=supersecret-token-123",
        N: "1",
      },
      ["ENDPOINT"],
    ),
  );

  test('each secret value becomes "***", anchors and comments included; every other byte is kept', () => {
    expect(redactSuiteText(text, r)).toBe(`# the run's suite
name: s
x-common: &tok "***"
redact: [ENDPOINT]
defaults:
  env:
    API_TOKEN: *tok
    NCCL_DEBUG: INFO
tests:
  - name: a
    kind: inventory
    env: { DB_PASSWORD: "***", ENDPOINT: "***" }
  - name: b
    kind: inventory
    env:
      AWS_SECRET_ACCESS_KEY: "***"   # the one from the docs
      SSH_KEY_PEM: "***"
      URL: "https://x/?t=***"
      N: 1
`);
  });

  test("what is left still parses, with *** where the values were", () => {
    const doc = parseDocument(redactSuiteText(text, r)).toJS();
    expect(doc.tests[0].env).toEqual({ DB_PASSWORD: "***", ENDPOINT: "***" });
    expect(doc.tests[1].env).toEqual({ AWS_SECRET_ACCESS_KEY: "***", SSH_KEY_PEM: "***", URL: "https://x/?t=***", N: 1 });
    expect(doc.defaults.env.API_TOKEN).toBe("***");
  });
});
