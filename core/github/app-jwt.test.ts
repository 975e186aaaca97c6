import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AppKeyError, appJwt, importAppKey, pemToPkcs8, pkcs1ToPkcs8 } from "./app-jwt";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pkcs8Pem = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
const pkcs1Pem = privateKey.export({ type: "pkcs1", format: "pem" }) as string;

function decode(part: string) {
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
}

/** The JWT's claims after checking its RS256 signature with node:crypto and the public key. */
function verified(jwt: string) {
  const [header, payload, signature] = jwt.split(".");
  const valid = verify("sha256", Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature!, "base64url"));
  expect(valid, "signature").toBe(true);
  return { header: decode(header!), claims: decode(payload!) };
}

describe("GitHub App JWT (OP-REPO-6)", () => {
  const now = new Date("2026-12-01T10:00:00Z");
  const nowS = now.getTime() / 1000;

  it("OP-REPO-6: a PKCS#8 key signs an RS256 JWT the public key verifies, issued 60 s back and expiring in 9 minutes", async () => {
    const jwt = await appJwt(await importAppKey(pkcs8Pem), "4242", now);
    const { header, claims } = verified(jwt);
    expect(header).toEqual({ alg: "RS256", typ: "JWT" });
    expect(claims).toEqual({ iss: "4242", iat: nowS - 60, exp: nowS + 540 });
  });

  it("OP-REPO-6: a PKCS#1 key as GitHub issues it (BEGIN RSA PRIVATE KEY) signs the same way", async () => {
    expect(pkcs1Pem).toContain("BEGIN RSA PRIVATE KEY");
    const { claims } = verified(await appJwt(await importAppKey(pkcs1Pem), "7", now));
    expect(claims.iss).toBe("7");
  });

  it("OP-REPO-6: the PKCS#8 envelope around a PKCS#1 key is byte for byte the DER node:crypto writes", () => {
    const pkcs1Der = privateKey.export({ type: "pkcs1", format: "der" });
    const pkcs8Der = privateKey.export({ type: "pkcs8", format: "der" });
    expect(Buffer.from(pkcs1ToPkcs8(new Uint8Array(pkcs1Der)))).toEqual(pkcs8Der);
  });

  it("OP-REPO-6: long-form DER lengths hold for a 4096-bit key, and a key kept on one line with literal \\n imports", async () => {
    const big = generateKeyPairSync("rsa", { modulusLength: 4096 });
    const pkcs1 = big.privateKey.export({ type: "pkcs1", format: "pem" }) as string;
    expect(Buffer.from(pemToPkcs8(pkcs1))).toEqual(big.privateKey.export({ type: "pkcs8", format: "der" }));
    const oneLine = pkcs1.trim().replace(/\n/g, "\\n");
    const jwt = await appJwt(await importAppKey(oneLine), "1", now);
    const [h, p, s] = jwt.split(".");
    expect(verify("sha256", Buffer.from(`${h}.${p}`), createPublicKey(big.privateKey), Buffer.from(s!, "base64url"))).toBe(true);
  });

  it("OP-REPO-6: a key that is not an RSA PEM is refused without repeating it", async () => {
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    for (const bad of ["not a key", pkcs1Pem.replace("BEGIN RSA PRIVATE KEY", "BEGIN CERTIFICATE"), ec]) {
      const error = await importAppKey(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppKeyError);
      // Every DER key's base64 starts "MII": none of the key material is in the message.
      expect((error as Error).message).not.toContain("MII");
    }
  });
});
